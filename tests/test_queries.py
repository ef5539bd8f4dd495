"""The physics world's queries against brute force: seeded random spheres and boxes in a
world, and the answers of sweeps, overlaps and all-hits rays compared with analytic
sphere-sphere and sphere-box distances."""

from __future__ import annotations

import numpy as np
import pytest
from panda3d.bullet import BulletBoxShape, BulletRigidBodyNode, BulletSphereShape
from panda3d.core import LQuaternionf, Point3, TransformState, Vec3

from physics.bullet import groups
from physics.bullet.overlap import probe_solid
from physics.bullet.world import PhysicsWorld, box_shape, sphere_shape
from physics.model.stepping import SimulationSpec

FIELD_M = 12.0
"""Bodies stand in a cube this wide around the origin."""
MARGIN_M = 0.05
"""Near misses this close to touching are left out of exact comparisons: Bullet counts
bodies within its contact threshold as overlapping and rounds a box's corners by its
collision margin."""


class Body:
    """A random sphere (``half`` None) or oriented box, and its owner in the handle map."""

    def __init__(self, name: str, centre, radius=None, half=None, axes=None):
        self.name, self.centre, self.radius = name, np.asarray(centre, float), radius
        self.half = None if half is None else np.asarray(half, float)
        self.axes = axes

    def distance(self, point) -> float:
        """From a point to the body's surface (negative inside a sphere, 0 inside a box)."""
        if self.half is None:
            return float(np.linalg.norm(point - self.centre)) - self.radius
        return box_distance(point, self.centre, self.axes, self.half)

    def __repr__(self) -> str:
        return self.name


def box_distance(point, centre, axes, half) -> float:
    local = axes @ (np.asarray(point, float) - centre)
    return float(np.linalg.norm(np.maximum(np.abs(local) - half, 0.0)))


def random_axes(rng) -> tuple[np.ndarray, LQuaternionf]:
    """A random rotation: the box's axes in world space (one a row) and its quaternion."""
    quaternion = LQuaternionf(*rng.normal(size=4))
    quaternion.normalize()
    rows = np.array([list(quaternion.xform(Vec3(*basis))) for basis in np.eye(3)])
    return rows, quaternion


@pytest.fixture(scope="module")
def scene():
    """A world of 12 spheres (rock group) and 12 boxes (prop group), seeded."""
    world = PhysicsWorld(SimulationSpec(step_hz=60.0, substeps=1, max_steps_per_frame=5,
                                        gravity_m_s2=0.0))
    rng = np.random.default_rng(20)
    bodies = []
    for number in range(12):
        body = Body(f"sphere-{number}", rng.uniform(-FIELD_M / 2, FIELD_M / 2, 3),
                    radius=rng.uniform(0.3, 1.2))
        node = BulletRigidBodyNode(body.name)
        node.addShape(BulletSphereShape(body.radius))
        node.setIntoCollideMask(groups.mask_of(groups.ROCK))
        node.setTransform(TransformState.makePos(Point3(*body.centre)))
        world.add_body(node, owner=body)
        bodies.append(body)
    for number in range(12):
        axes, quaternion = random_axes(rng)
        body = Body(f"box-{number}", rng.uniform(-FIELD_M / 2, FIELD_M / 2, 3),
                    half=rng.uniform(0.3, 1.2, 3), axes=axes)
        node = BulletRigidBodyNode(body.name)
        node.addShape(BulletBoxShape(Vec3(*body.half)))
        node.setIntoCollideMask(groups.mask_of(groups.PROP))
        node.setTransform(TransformState.makePosQuatScale(Point3(*body.centre), quaternion,
                                                          Vec3(1.0, 1.0, 1.0)))
        world.add_body(node, owner=body)
        bodies.append(body)
    yield world, bodies, rng
    world.destroy()


def test_box_axes_read_back_from_bullet(scene):
    world, bodies, _ = scene
    for body in bodies:
        if body.half is not None:
            node = next(n for n in world.bullet.getRigidBodies() if n.getName() == body.name)
            mat = node.getTransform().getMat()
            rows = np.array([[mat.getCell(row, col) for col in range(3)] for row in range(3)])
            np.testing.assert_allclose(rows, body.axes, atol=1e-5)


def aimed_segment(rng, bodies) -> tuple[np.ndarray, np.ndarray]:
    """A segment from somewhere round the field that passes near one of the bodies."""
    start = rng.uniform(-FIELD_M, FIELD_M, 3)
    near = bodies[rng.integers(len(bodies))].centre + rng.normal(0.0, 1.0, 3)
    return start, start + (near - start) * rng.uniform(0.5, 1.8)


def first_touch(gap, length_m: float) -> float | None:
    """The first share of the way where ``gap(share)`` (convex along the path) reaches 0."""
    low, high = 0.0, 1.0
    for _ in range(50):  # the share of least gap
        third = (high - low) / 3.0
        if gap(low + third) < gap(high - third):
            high -= third
        else:
            low += third
    least = (low + high) / 2.0
    if gap(least) > 0.0:
        return None
    low, high = 0.0, least
    for _ in range(40):
        middle = (low + high) / 2.0
        low, high = (low, middle) if gap(middle) <= 0.0 else (middle, high)
    return high


def brute_sweep(bodies, gap_to, start, end):
    """Each body the swept shape touches, with the share of the way it first does, nearest
    first; and the least gap along the way to each body."""
    path = end - start
    touches, least = [], {}
    for body in bodies:
        def gap(share, body=body):
            return gap_to(body, start + path * share)
        share = first_touch(gap, float(np.linalg.norm(path)))
        least[body] = min(gap(s) for s in np.linspace(0.0, 1.0, 101))
        if share is not None:
            touches.append((share, body))
    return sorted(touches, key=lambda touch: touch[0]), least


def _check_sweep(world, bodies, rng, shape, gap_to, mask, candidates, trials, axes=None):
    met, missed = 0, 0
    for _ in range(trials):
        start, end = aimed_segment(rng, candidates)
        length_m = float(np.linalg.norm(end - start))
        if any(gap_to(body, start) < MARGIN_M for body in candidates):
            continue  # starting inside or touching: not a sweep's question
        touches, least = brute_sweep(candidates, gap_to, start, end)
        if any(abs(gap) < MARGIN_M for gap in least.values()):
            continue  # a graze either way
        hit = world.sweep_closest(shape, start, end, mask, axes_ws=axes)
        if not touches:
            assert hit is None
            missed += 1
            continue
        if len(touches) > 1 and (touches[1][0] - touches[0][0]) * length_m < 2 * MARGIN_M:
            continue  # two bodies met at the same place
        assert hit is not None
        assert world.handles.owner_of(hit.node) is touches[0][1]
        assert hit.fraction * length_m == pytest.approx(touches[0][0] * length_m,
                                                        abs=MARGIN_M)
        met += 1
    assert met >= trials // 6 and met + missed >= trials // 2


def test_a_swept_sphere_meets_what_brute_force_finds_first(scene):
    world, bodies, rng = scene
    for radius_m in (0.06, 0.4):
        _check_sweep(world, bodies, rng, sphere_shape(radius_m),
                     lambda body, centre, r=radius_m: body.distance(centre) - r,
                     groups.ALL_GROUPS, bodies, 60)


def test_a_swept_box_meets_the_spheres_brute_force_finds_first(scene):
    world, bodies, rng = scene
    spheres = [body for body in bodies if body.half is None]
    axes, _ = random_axes(rng)
    half = np.array([0.3, 0.6, 0.2])
    _check_sweep(world, bodies, rng, box_shape(half),
                 lambda body, centre: box_distance(body.centre, centre, axes, half)
                 - body.radius, groups.mask_of(groups.ROCK), spheres, 60, axes=axes)


def test_a_sweep_skips_what_it_excludes(scene):
    world, bodies, _ = scene
    target = bodies[0]
    start, end = target.centre - [0.0, 0.0, 8.0], target.centre + [0.0, 0.0, 8.0]
    node = next(n for n in world.bullet.getRigidBodies() if n.getName() == target.name)
    mask = node.getIntoCollideMask()
    hit = world.sweep_closest(sphere_shape(0.05), start, end, groups.ALL_GROUPS, exclude=node)
    assert hit is None or world.handles.owner_of(hit.node) is not target
    assert node.getIntoCollideMask() == mask  # put back as it was
    assert world.handles.owner_of(world.sweep_closest(
        sphere_shape(0.05), start, end, groups.ALL_GROUPS).node) is not None


def _check_overlaps(found, gaps) -> None:
    required = {body for body, gap in gaps.items() if gap < -MARGIN_M}
    allowed = {body for body, gap in gaps.items() if gap < MARGIN_M}
    assert required <= set(found) <= allowed
    assert len(found) == len(set(found))


def test_sphere_overlaps_agree_with_brute_force(scene):
    world, bodies, rng = scene
    met = 0
    for _ in range(80):
        centre, radius_m = rng.uniform(-FIELD_M / 2, FIELD_M / 2, 3), rng.uniform(0.2, 3.0)
        found = world.overlap_sphere(centre, radius_m, groups.ALL_GROUPS)
        _check_overlaps(found, {body: body.distance(centre) - radius_m for body in bodies})
        met += len(found)
        rocks = world.overlap_sphere(centre, radius_m, groups.mask_of(groups.ROCK))
        assert set(rocks) == {body for body in found if body.half is None}
    assert met > 20


def test_box_overlaps_agree_with_brute_force_on_spheres(scene):
    world, bodies, rng = scene
    spheres = [body for body in bodies if body.half is None]
    met = 0
    for _ in range(80):
        axes, _ = random_axes(rng)
        centre, half = rng.uniform(-FIELD_M / 2, FIELD_M / 2, 3), rng.uniform(0.2, 2.5, 3)
        found = world.overlapping(probe_solid(centre, half_extents_m=half, axes_ws=axes),
                                  groups.mask_of(groups.ROCK))
        _check_overlaps(found, {body: box_distance(body.centre, centre, axes, half)
                                - body.radius for body in spheres})
        met += len(found)
    assert met > 10


def crossings(body, start, end) -> tuple[float, float] | None:
    """The shares of the way where a segment enters and leaves a body (None: it misses)."""
    path = end - start
    if body.half is None:
        offset = start - body.centre
        a, b, c = path @ path, offset @ path, offset @ offset - body.radius ** 2
        root = b * b - a * c
        if root < 0.0:
            return None
        return (-b - np.sqrt(root)) / a, (-b + np.sqrt(root)) / a
    local_start, local_path = body.axes @ (start - body.centre), body.axes @ path
    with np.errstate(divide="ignore", invalid="ignore"):
        low = (-body.half - local_start) / local_path
        high = (body.half - local_start) / local_path
    enter = np.max(np.minimum(low, high))
    leave = np.min(np.maximum(low, high))
    return (enter, leave) if enter <= leave else None


def test_an_all_hits_ray_returns_every_body_crossed_nearest_first(scene):
    """And the nodes on the line are those same bodies', in any order."""
    world, bodies, rng = scene
    compared = 0
    for _ in range(100):
        start, end = aimed_segment(rng, bodies)
        length_m = float(np.linalg.norm(end - start))
        spans = {body: crossings(body, start, end) for body in bodies}
        if any(span is not None and (span[0] <= 0.0 <= span[1]
                                     or abs(span[0] - 1.0) * length_m < MARGIN_M
                                     or (span[1] - span[0]) * length_m < 0.2)
               for span in spans.values()):
            continue  # starts inside a body, ends at one, or only grazes one
        expected = sorted((span[0], body) for body, span in spans.items()
                          if span is not None and 0.0 <= span[0] <= 1.0)
        hits = world.ray_all(start, end, groups.ALL_GROUPS)
        assert [world.handles.owner_of(hit.node) for hit in hits] == [b for _, b in expected]
        for hit, (share, _) in zip(hits, expected):
            assert hit.fraction * length_m == pytest.approx(share * length_m, abs=MARGIN_M)
        assert [hit.fraction for hit in hits] == sorted(hit.fraction for hit in hits)
        props = world.ray_all(start, end, groups.mask_of(groups.PROP))
        assert [world.handles.owner_of(hit.node) for hit in props] == [
            body for _, body in expected if body.half is not None]
        owners = [world.handles.owner_of(hit.node) for hit in hits]
        crossed = world.nodes_on_line(start, end, groups.ALL_GROUPS)
        assert sorted(map(id, map(world.handles.owner_of, crossed))) == sorted(map(id, owners))
        if hits:  # the nodes left out are not there
            kept = world.nodes_on_line(start, end, groups.ALL_GROUPS, exclude=hits[0].node)
            assert sorted(map(id, map(world.handles.owner_of, kept))) == sorted(
                map(id, owners[1:]))
        compared += bool(expected)
    assert compared >= 25


def grid_points(centre, axes, half, count: int = 7) -> np.ndarray:
    """Points on a grid through a box, corners and faces included."""
    steps = np.linspace(-1.0, 1.0, count)
    local = np.stack(np.meshgrid(steps, steps, steps), axis=-1).reshape(-1, 3) * half
    return centre + local @ axes


def inside_box(points, centre, axes, half) -> np.ndarray:
    return np.all(np.abs((points - centre) @ axes.T) <= half + 1e-9, axis=1)


def test_box_overlaps_agree_with_sampled_boxes(scene):
    """Box against box: a box with a grid point inside the other is always found, and a
    box found stands within reach (its centre no further than the two half diagonals).
    The trials meet both: boxes the grid shows overlapping, and boxes out of reach. (Their
    own seed: the cases met do not hang on the tests run before.)"""
    world, bodies, _ = scene
    rng = np.random.default_rng(21)
    boxes = [body for body in bodies if body.half is not None]
    overlapping = out_of_reach = 0
    for _ in range(60):
        axes, _ = random_axes(rng)
        centre, half = rng.uniform(-FIELD_M / 2, FIELD_M / 2, 3), rng.uniform(0.2, 2.5, 3)
        found = set(world.overlapping(probe_solid(centre, half_extents_m=half, axes_ws=axes),
                                      groups.mask_of(groups.PROP)))
        for box in boxes:
            sampled = bool(inside_box(grid_points(centre, axes, half), box.centre, box.axes,
                                      box.half).any()
                           or inside_box(grid_points(box.centre, box.axes, box.half), centre,
                                         axes, half).any())
            in_reach = bool(np.linalg.norm(box.centre - centre)
                            <= np.linalg.norm(half) + np.linalg.norm(box.half))
            assert sampled <= (box in found) <= in_reach, (box, centre, half)
            overlapping += sampled
            out_of_reach += not in_reach
    assert overlapping >= 20 and out_of_reach >= 20


@pytest.mark.parametrize("gap_m, touching", [(-0.02, True), (0.02, False)])
def test_a_box_beside_a_turned_box_overlaps_only_when_it_reaches_it(scene, gap_m, touching):
    world, bodies, _ = scene
    for box in (body for body in bodies if body.half is not None):
        half = np.array([0.5, 0.5, 0.5])
        centre = box.centre + box.axes[0] * (box.half[0] + half[0] + gap_m)
        found = world.overlapping(probe_solid(centre, half_extents_m=half, axes_ws=box.axes),
                                  groups.mask_of(groups.PROP))
        assert (box in found) == touching


def test_a_static_body_moved_after_it_was_added_is_met_where_it_now_is():
    """The world leaves sleeping static bodies' boxes alone each step (no forced update of
    every box): one that moves must still be found at its new place, not its old."""
    world = PhysicsWorld(SimulationSpec(step_hz=60.0, substeps=2, max_steps_per_frame=5,
                                        gravity_m_s2=9.81))
    plate = BulletRigidBodyNode("plate")
    plate.addShape(BulletBoxShape(Vec3(1.0, 1.0, 1.0)))
    path = world.add_body(plate)
    world.step()
    assert not world.bullet.getForceUpdateAllAabbs()

    def met_at(x_m: float):
        return world.ray_closest((x_m, 0.0, 10.0), (x_m, 0.0, -10.0))

    assert met_at(0.0) is not None
    path.setPos(50.0, 0.0, 0.0)  # through the scene graph
    world.step()
    assert met_at(0.0) is None and met_at(50.0).position_ws[2] == pytest.approx(1.0, abs=0.05)
    plate.setTransform(TransformState.makePos(Point3(100.0, 0.0, 0.0)))  # on the body
    world.step()
    assert met_at(50.0) is None and met_at(100.0).position_ws[2] == pytest.approx(1.0, abs=0.05)
