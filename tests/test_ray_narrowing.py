"""Which anchors' rays go through Bullet: measured along the links between bodies, the rays
are the ones measuring every linked ray against its body's sphere finds, with and without
numba, and a sphere that stands for a box counts only the rays through the box, exactly (a
ray that stops 10 µm short of a face misses it); in a fleet, a ray over another vehicle's
hull or a rock is cast and rays beside a hull or far from every body are not, even for a
vehicle near another; and a tank set on another's hull rides on it."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from panda3d.core import LQuaternionf

from physics.bullet.bodies import make_hull_body, terrain_collider
from physics.bullet.fleet import VehicleFleet
from physics.bullet.ground import BulletRays
from physics.bullet.poses import set_at_rest
from physics.bullet.world import PhysicsWorld
from physics.model import ray_narrowing
from physics.model.kernel_tables import X, Y, Z
from physics.model.plate_solids import hull_planes
from physics.model.ray_narrowing import DOP_AXES, segments_near_links
from physics.model.rocks import Rock, icosphere
from physics.model.terrain import MapChoice, build_terrain

PER_BODY = 4


def passes_near(start, end, centre, limit_m: float) -> bool:
    """Does the segment pass closer than ``limit_m`` to a finite ``centre``?"""
    if not np.isfinite(centre).all():
        return False
    along = end - start
    fraction = np.clip(np.dot(centre - start, along) / np.dot(along, along), 0.0, 1.0)
    return bool(np.linalg.norm(centre - (start + fraction * along)) < limit_m)


def every_link(starts, ends, links, centres, limits) -> np.ndarray:
    """Per segment: does it pass closer than a linked body's limit to its centre (every
    segment of each link's own body measured against the other)?"""
    meets = np.zeros(len(starts), dtype=bool)
    for own, other in links:
        for a in range(own * PER_BODY, (own + 1) * PER_BODY):
            meets[a] |= passes_near(starts[a], ends[a], centres[other], limits[other])
    return meets


def random_bodies(rng, count: int):
    """Bodies over a patch of ground, some crowded, each with ``PER_BODY`` short downward
    rays round its centre; every body linked to a random few others. Returns the rays'
    starts and ends, their reach from their body's centre, the links, the centres and
    the limits."""
    spread_m = rng.uniform(5.0, 40.0)
    centres = rng.uniform(-spread_m, spread_m, (count, 3)) * (1.0, 1.0, 0.05)
    starts = np.repeat(centres, PER_BODY, axis=0) + rng.normal(0.0, 2.0, (count * PER_BODY, 3))
    directions = rng.normal(0.0, 0.3, (len(starts), 3))
    directions[:, 2] = -1.0
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    ends = starts + directions * rng.uniform(0.5, 2.0, (len(starts), 1))
    own = np.repeat(centres, PER_BODY, axis=0)
    reach_m = max(np.linalg.norm(starts - own, axis=1).max(),
                  np.linalg.norm(ends - own, axis=1).max())
    links = np.array([(a, b) for a in range(count) for b in range(count)
                      if a != b and rng.random() < 0.4]).reshape(-1, 2)
    limits = rng.uniform(0.2, 5.0, count)
    return starts, ends, reach_m, links, centres, limits


@pytest.mark.parametrize("seed", range(8))
def test_the_links_find_the_rays_every_linked_pair_finds(seed):
    rng = np.random.default_rng(seed)
    starts, ends, reach_m, links, centres, limits = random_bodies(rng, 40)
    found = segments_near_links(starts, ends, PER_BODY, reach_m, links, centres, limits)
    assert found.tolist() == every_link(starts, ends, links, centres, limits).tolist()
    assert 0 < np.count_nonzero(found) < len(found)


def test_rays_and_bodies_that_are_not_finite_or_none():
    rng = np.random.default_rng(4)
    starts, ends, reach_m, links, centres, limits = random_bodies(rng, 20)
    starts[0, 0] = np.nan
    centres[1, 2] = np.inf
    limits[2] = -3.0  # reaches nothing
    with np.errstate(invalid="ignore"):
        expected = every_link(starts, ends, links, centres, limits)
    found = segments_near_links(starts, ends, PER_BODY, reach_m, links, centres, limits)
    assert not found[0] and found.tolist() == expected.tolist()
    assert not segments_near_links(starts, ends, PER_BODY, reach_m, links[:0], centres,
                                   limits).any()


SAMPLES = 4001
"""Points sampled along a segment to bracket whether it passes through a box: their
spacing, a 4000th of the segment (0.1 to 0.5 mm here), is how close to the exact answer
the bracket holds the narrowing."""
DECIDED_SHARE = 0.9
"""At least this share of the rays near a box pass through it or clear it by more than the
samples' spacing: for them the bracket is the exact answer, and the narrowing must give it."""


def random_boxes(rng, centres: np.ndarray, count: int) -> ray_narrowing.Boxes:
    """Boxes for the first ``count`` bodies, turned every way, each inside its sphere."""
    axes = np.linalg.qr(rng.normal(size=(count, 3, 3)))[0].transpose(0, 2, 1)
    half_extents = np.tile([1.5, 3.0, 1.0], (count, 1)) * rng.uniform(0.8, 1.0, (count, 1))
    return ray_narrowing.Boxes(centres[:count] + rng.normal(0.0, 0.1, (count, 3)), axes,
                               half_extents)


def passes_through_box(start, end, boxes, b, grown_m: float,
                       samples: int = SAMPLES) -> bool:
    """Does any of ``samples`` points evenly along the segment lie in box ``b`` grown by
    ``grown_m`` on every side?"""
    points = start + np.linspace(0.0, 1.0, samples)[:, None] * (end - start)
    local = (points - boxes.centres_ws[b]) @ boxes.axes_ws[b].T
    return bool((np.abs(local) <= boxes.half_extents_m[b] + grown_m).all(axis=1).any())


@pytest.mark.parametrize("seed", range(6))
def test_a_body_with_a_box_counts_only_the_rays_through_the_box(seed):
    """A segment meets a body with a box where it passes within the body's sphere and
    through the box: bracketed by points sampled along it, in the box (it must count) and
    in the box grown by their spacing (it may). Nearly every ray is decided by the bracket
    (it is the exact answer there), and the rays near a box both meet it and miss it."""
    rng = np.random.default_rng(seed)
    starts, ends, reach_m, links, centres, limits = random_bodies(rng, 40)
    boxed = 20
    limits[:boxed] = 4.0  # round the box, whose corners are 3.5 m from its centre
    boxes = random_boxes(rng, centres, boxed)
    found = segments_near_links(starts, ends, PER_BODY, reach_m, links, centres, limits, boxes)
    within_spheres = every_link(starts, ends, links, centres, limits)
    unboxed_links = links[links[:, 1] >= boxed]
    beyond_boxes = every_link(starts, ends, unboxed_links, centres, limits)
    spacing_m = np.linalg.norm(ends - starts, axis=1) / (SAMPLES - 1)
    near_a_box = np.flatnonzero(within_spheres & ~beyond_boxes)
    through = clear = 0
    for a in near_a_box:
        own = a // PER_BODY
        near_boxes = [other for mine, other in links if mine == own and other < boxed
                      and passes_near(starts[a], ends[a], centres[other], limits[other])]
        must = any(passes_through_box(starts[a], ends[a], boxes, b, 0.0) for b in near_boxes)
        may = any(passes_through_box(starts[a], ends[a], boxes, b, spacing_m[a])
                  for b in near_boxes)
        assert must <= found[a] <= may, a
        through += must
        clear += not may
    assert through > 0 and clear > 0  # both answers are put to the test
    assert through + clear >= DECIDED_SHARE * len(near_a_box)
    assert (beyond_boxes <= found).all() and (found <= within_spheres).all()
    assert found.sum() < within_spheres.sum()


GRAZE_M = (1e-5, 0.1)
"""The grazing rays stop this far short of a box's face, or reach this far into it: 10 µm
to 10 cm, spread evenly in scale (half of them within a millimetre)."""


def grazing_rays(rng, boxes: ray_narrowing.Boxes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``PER_BODY`` rays for each box, each coming down on a random face from outside at a
    slant of up to 60 degrees, its end a random depth (:data:`GRAZE_M`) short of the face's
    plane or past it, over the face. A ray that stops short lies wholly outside that plane,
    so it misses the box, however close; one that reaches in ends inside the box. Returns
    the starts and ends (box by box) and, per ray, whether it reaches into its box."""
    count = len(boxes.centres_ws) * PER_BODY
    box = np.repeat(np.arange(len(boxes.centres_ws)), PER_BODY)
    axes, half = boxes.axes_ws[box], boxes.half_extents_m[box]  # (R, 3, 3) rows, (R, 3)
    face_axis = rng.integers(0, 3, count)
    rows = np.arange(count)
    outward = axes[rows, face_axis] * rng.choice([-1.0, 1.0], (count, 1))
    over_face = rng.uniform(-0.9, 0.9, (count, 3)) * half
    over_face[rows, face_axis] = 0.0
    reaches_in = rows % 2 == 1
    depth_m = 10.0 ** rng.uniform(*np.log10(GRAZE_M), count)
    to_face_m = half[rows, face_axis] + np.where(reaches_in, -depth_m, depth_m)
    ends = (boxes.centres_ws[box] + np.einsum("rk,rkj->rj", over_face, axes)
            + outward * to_face_m[:, None])
    slant = rng.normal(0.0, 1.0, (count, 3))
    slant -= np.sum(slant * outward, axis=1, keepdims=True) * outward  # along the face
    slant *= np.tan(rng.uniform(0.0, np.radians(60.0), (count, 1))) / np.linalg.norm(
        slant, axis=1, keepdims=True)
    back = outward + slant  # from the end back to the start: away from the face
    starts = ends + back / np.linalg.norm(back, axis=1, keepdims=True) * rng.uniform(
        0.5, 2.0, (count, 1))
    return starts, ends, reaches_in


@pytest.mark.parametrize("seed", range(4))
def test_a_ray_that_stops_a_hair_short_of_a_box_misses_it_and_one_that_reaches_in_meets_it(
        seed):
    """The slab test is exact, not a margin: of rays coming down on boxes turned every way,
    each one that ends 10 µm to 10 cm short of a face misses the box and each one that
    ends as deep inside meets it (the bodies' spheres reach past every ray)."""
    rng = np.random.default_rng(100 + seed)
    boxed = 40
    centres = rng.uniform(-20.0, 20.0, (boxed, 3))
    boxes = random_boxes(rng, centres, boxed)
    starts, ends, reaches_in = grazing_rays(rng, boxes)
    # Bodies 0 .. boxed - 1 are the boxes (whose own rows of rays are nowhere: they meet
    # nothing); body boxed + i, at box i's centre, owns the rays coming down on box i.
    nowhere = np.full_like(starts, np.nan)
    starts, ends = np.vstack([nowhere, starts]), np.vstack([nowhere, ends])
    centres = np.vstack([boxes.centres_ws, boxes.centres_ws])
    own = np.repeat(centres, PER_BODY, axis=0)[len(nowhere):]
    reach_m = max(np.linalg.norm(starts[len(nowhere):] - own, axis=1).max(),
                  np.linalg.norm(ends[len(nowhere):] - own, axis=1).max())
    limits = np.full(2 * boxed, 4.0)  # round each box, whose corners are 3.5 m from its centre
    links = np.array([(boxed + b, b) for b in range(boxed)])
    found = segments_near_links(starts, ends, PER_BODY, reach_m, links, centres, limits, boxes)
    assert not found[:len(nowhere)].any()
    assert found[len(nowhere):].tolist() == reaches_in.tolist()


def random_fleet(rng) -> tuple:
    """The arguments of :func:`ray_narrowing.fleet_rays_meeting_links` for 20 vehicles of 8
    anchors, 6 static obstacles with boxes and 3 moving ones, linked at random."""
    vehicles, statics, moving = 20, 6, 3
    position = rng.uniform(-8.0, 8.0, (vehicles, 3))
    axes = np.linalg.qr(rng.normal(size=(vehicles, 3, 3)))[0].transpose(0, 2, 1)
    table = np.zeros((vehicles, 8, max(X, Y, Z) + 1))  # each vehicle's own anchors
    table[:, :, [X, Y, Z]] = rng.uniform(-2.0, 2.0, (vehicles, 8, 3))
    others_centres = rng.uniform(-8.0, 8.0, (statics + moving, 3))
    boxes = ray_narrowing.Boxes(others_centres[:statics].copy(),
                                np.linalg.qr(rng.normal(size=(statics, 3, 3)))[0],
                                rng.uniform(0.3, 2.0, (statics, 3)))
    links = np.array([(own, other) for own in range(vehicles)
                      for other in range(vehicles + statics + moving)
                      if own != other and rng.random() < 0.4])
    return (position, axes, table, rng.uniform(0.8, 1.2, vehicles), 4.0, links,
            rng.uniform(2.5, 3.5, vehicles), rng.uniform(0.2, 0.4, vehicles),
            rng.uniform(1.0, 3.0, (vehicles, 3)), others_centres,
            rng.uniform(0.5, 3.0, statics + moving), boxes)


PLAIN_PYTHON_RUN = """
import json, sys
import numpy as np
sys.modules["numba"] = None  # as on a platform without numba
sys.path.insert(0, "tests")
from physics.model import ray_narrowing
from test_ray_narrowing import PER_BODY, random_bodies, random_boxes, random_fleet
assert ray_narrowing._segments_meeting_links.__module__ == "physics.model.ray_narrowing"
assert ray_narrowing._fleet_rays_meeting_links.__module__ == "physics.model.ray_narrowing"
rng = np.random.default_rng(2)
starts, ends, reach_m, links, centres, limits = random_bodies(rng, 30)
boxes = random_boxes(rng, centres, 10)
print(json.dumps([ray_narrowing.segments_near_links(starts, ends, PER_BODY, reach_m, links,
                                                    centres, limits, boxes).tolist(),
                  ray_narrowing.fleet_rays_meeting_links(
                      *random_fleet(np.random.default_rng(5))).tolist()]))
"""


def test_without_numba_the_plain_loop_gives_the_same_answers(repo_root):
    done = subprocess.run([sys.executable, "-c", PLAIN_PYTHON_RUN], cwd=repo_root,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    rng = np.random.default_rng(2)
    starts, ends, reach_m, links, centres, limits = random_bodies(rng, 30)
    boxes = random_boxes(rng, centres, 10)
    segments, fleet = json.loads(done.stdout)
    assert segments == segments_near_links(
        starts, ends, PER_BODY, reach_m, links, centres, limits, boxes).tolist()
    assert fleet == ray_narrowing.fleet_rays_meeting_links(
        *random_fleet(np.random.default_rng(5))).tolist()
    assert 0 < sum(fleet) < len(fleet)


def test_a_ray_over_another_hull_is_cast_and_rays_beside_or_far_from_a_hull_are_not(
        config, monkeypatch):
    """Tank 1 lies just over tank 0's hull, its rays reaching down past the hull's top;
    tank 2 stands two reaches from tank 0 (near it, but its rays pass nowhere near a
    hull); tank 3 is alone; tank 4 stands beside tank 0, its rays inside tank 0's bounding
    sphere but clear of its box: Bullet casts tank 1's rays, and no ray of tanks 2, 3, 4."""
    world = PhysicsWorld(config.game.simulation)
    terrain = build_terrain(MapChoice.parse("flat"), config.game.terrain, 1)
    world.add_body(terrain_collider(terrain))
    fleet = VehicleFleet(world, terrain, config.tank, config.tank_gearbox)
    hull = config.tank.hull
    ground_m = float(terrain.height_at(0.0, 0.0))
    hull_top_m = ground_m + 1.0 + hull.centre_of_mass_drop_m + hull.half_extents_m[2]
    anchor_z_m = float(fleet.constants.position_bs[0, 2])
    above_m = hull_top_m - anchor_z_m + 0.5 * fleet.constants.ray_length_m
    beside_m = hull.half_extents_m[0] + 2.5
    places = [(0.0, 0.0, ground_m + 1.0), (0.0, 0.5, above_m),
              (2.0 * fleet.reach_m, 0.0, ground_m + 1.0), (60.0, 60.0, ground_m + 1.0),
              (beside_m, 0.0, ground_m + 1.0)]
    for number, place in enumerate(places):
        body = make_hull_body(config.tank.hull, f"tank-{number}")
        world.add_body(body)
        set_at_rest(body, place, LQuaternionf(1, 0, 0, 0))
        fleet.add(body)
    anchors = len(fleet.constants.position_bs)
    beside_ray_ws = np.array(places[4]) + fleet.constants.position_bs[0]
    assert np.linalg.norm(beside_ray_ws - np.array(places[0])) < fleet.kinds[0].collider_reach_m
    cast_rays = []
    cast = BulletRays.cast

    def recording(self, origins_ws, directions_ws, length_m, min_ground_up, rays):
        cast_rays.extend(rays.tolist())
        return cast(self, origins_ws, directions_ws, length_m, min_ground_up, rays)

    monkeypatch.setattr(BulletRays, "cast", recording)
    fleet.update_drive(world.step_s)
    assert fleet._plan.near.tolist() == [True, True, True, False, True]
    world.step()
    cast_vehicles = {ray // anchors for ray in cast_rays}
    assert set(range(anchors, 2 * anchors)) <= set(cast_rays)
    assert not cast_vehicles & {2, 3, 4}
    fleet.destroy()
    world.destroy()


def test_a_tank_set_on_another_tanks_hull_rides_on_it():
    """A tank set down on top of another stands on its springs on that hull (its rays are
    cast through Bullet and the hull is nearer than the terrain), not on the sand under it.
    (Tanks with their hulls' plates alone: a turret's roof would hold it up clear of the
    hull.)"""
    import dataclasses

    from game.config import load_config
    from game.sim.simulation import Simulation
    from physics.model.armour import PlateLayout
    config = load_config()
    hull_plates = PlateLayout(tuple(plate for plate in config.tank.plates.plate
                                    if plate.part == "hull"))
    specs = config.world.with_tank(dataclasses.replace(config.tank, plates=hull_plates))
    simulation = Simulation(specs, MapChoice.parse("flat"), seed=1)
    below = simulation.player
    x_m, y_m = below.current.position_ws[0], below.current.position_ws[1]
    above = simulation.spawn("tank", "above", x_m, y_m, 0.0)
    hull = config.tank.hull
    hull_height_m = 2.0 * hull.half_extents_m[2]
    for _ in range(round(1.0 / simulation.step_s)):  # the one below settles first
        set_at_rest(above.body, (x_m, y_m, float(below.current.position_ws[2]) + hull_height_m
                                 + 1.0), LQuaternionf(1, 0, 0, 0))
        simulation.step()
    for _ in range(round(2.0 / simulation.step_s)):
        simulation.step()
    lift_m = above.body.getTransform().getPos().z - below.body.getTransform().getPos().z
    assert lift_m > hull_height_m
    assert all(anchor["on_ground"] for anchor in above.anchor_reports())
    assert all(anchor["compression"] > 0.0 for anchor in above.anchor_reports())
    simulation.destroy()


@pytest.mark.parametrize("seed", range(4))
def test_a_fleets_rays_are_measured_as_the_segments_made_of_them_are(config, seed):
    """The fleet's own pass (rays made from each vehicle's pose as it goes, hulls' boxes
    and rocks' boxes) finds, to the bit, what measuring the segments made first finds, the
    hull boxes and the static boxes stacked after the vehicles' rows."""
    world = PhysicsWorld(config.game.simulation)
    terrain = build_terrain(MapChoice.parse("flat"), config.game.terrain, 1)
    fleet = VehicleFleet(world, terrain, config.tank, config.tank_gearbox)
    model, constants = fleet.model, fleet.constants
    rng = np.random.default_rng(seed)
    vehicles, statics, moving = 30, 12, 5
    model.resize(vehicles)
    position = rng.uniform(-12.0, 12.0, (vehicles, 3))
    axes = np.linalg.qr(rng.normal(size=(vehicles, 3, 3)))[0].transpose(0, 2, 1)
    axes[:, 2] *= np.sign(np.linalg.det(axes))[:, None]  # right-handed
    position[3, 1] = np.nan  # a broken vehicle meets nothing
    others_centres = rng.uniform(-12.0, 12.0, (statics + moving, 3))
    others_limits = rng.uniform(0.5, 4.0, statics + moving)
    static_axes = np.linalg.qr(rng.normal(size=(statics, 3, 3)))[0].transpose(0, 2, 1)
    static_half = rng.uniform(0.3, 2.0, (statics, 3))
    static_half[0] = np.inf  # a static body without a box
    static_boxes = ray_narrowing.Boxes(others_centres[:statics] + rng.normal(0, 0.2, (statics, 3)),
                                       static_axes, static_half)
    links = np.array([(own, other) for own in range(vehicles)
                      for other in range(vehicles + statics + moving)
                      if own != other and rng.random() < 0.3])
    hull_limit, drop = fleet.kinds[0].collider_reach_m + 0.05, config.tank.hull.centre_of_mass_drop_m
    hull_half = fleet.kinds[0].hull_box_half_m
    found = ray_narrowing.fleet_rays_meeting_links(
        position, axes, model.table, np.full(vehicles, constants.ray_length_m),
        model.ray_reach_m, links, np.full(vehicles, hull_limit), np.full(vehicles, drop),
        np.tile(hull_half, (vehicles, 1)), others_centres, others_limits, static_boxes)
    origins, directions = model.rays(position, axes)
    starts = origins.reshape(-1, 3)
    ends = starts + directions.reshape(-1, 3) * constants.ray_length_m
    boxes = ray_narrowing.Boxes(
        np.concatenate([position + axes[:, 2] * drop, static_boxes.centres_ws]),
        np.concatenate([axes, static_axes]),
        np.concatenate([np.tile(hull_half, (vehicles, 1)), static_half]))
    with np.errstate(invalid="ignore"):
        expected = segments_near_links(
            starts, ends, model.anchors, model.ray_reach_m, links,
            np.vstack([position, others_centres]),
            np.concatenate([np.full(vehicles, hull_limit), others_limits]), boxes)
    assert found.tolist() == expected.tolist()
    assert 0 < np.count_nonzero(found) < len(found) and not found[3 * model.anchors:
                                                                 4 * model.anchors].any()
    fleet.destroy()
    world.destroy()


@pytest.mark.parametrize("seed", range(3))
def test_a_rocks_k_dop_counts_every_ray_into_the_rock_and_fewer_than_its_box(seed):
    """A rock's k-DOP (its box cut across its edges' and corners' diagonals) stands for
    it: every ray that passes into the rock's convex hull (by points sampled along it) is
    counted, none that its box alone would not count, and fewer than by the box alone."""
    rng = np.random.default_rng(seed)
    unit_points, triangles = icosphere()
    rocks, boxes, hulls = 12, [], []
    for _ in range(rocks):
        points = unit_points * rng.uniform(1.0, 3.0) * rng.uniform(0.8, 1.2, (len(unit_points),
                                                                             1))
        points[:, 2] *= rng.uniform(0.4, 0.9)
        rock = Rock(np.zeros(3), 0.0, points, triangles, 1.0)
        centre_bs, half, faces = rock.bounds_bs()
        axes = np.linalg.qr(rng.normal(size=(3, 3)))[0].T  # rows: the rock's axes
        where = rng.uniform(-30.0, 30.0, 3)
        boxes.append((where + centre_bs @ axes, axes, half, DOP_AXES @ axes, faces))
        hulls.append(hull_planes(where + points @ axes))
    centres, axes, half, slab_axes, faces = (np.array(column) for column in zip(*boxes))
    per_rock = 200
    starts = np.repeat(centres, per_rock, axis=0) + rng.uniform(-4.0, 4.0, (rocks * per_rock, 3))
    ends = starts + rng.normal(0.0, 1.0, starts.shape) * 2.0
    links = np.array([(rocks + rock, rock) for rock in range(rocks)])
    all_centres = np.vstack([centres, centres])  # bodies 12..23 own the rays, 0..11 the rocks
    limits = np.full(2 * rocks, 8.0)
    nowhere = np.full((rocks * per_rock, 3), np.nan)
    own = np.repeat(centres, per_rock, axis=0)
    reach_m = float(max(np.linalg.norm(starts - own, axis=1).max(),
                        np.linalg.norm(ends - own, axis=1).max()))
    starts, ends = np.vstack([nowhere, starts]), np.vstack([nowhere, ends])
    cut = segments_near_links(starts, ends, per_rock, reach_m, links, all_centres, limits,
                              ray_narrowing.Boxes(centres, axes, half, slab_axes, faces))
    boxed = segments_near_links(starts, ends, per_rock, reach_m, links, all_centres, limits,
                                ray_narrowing.Boxes(centres, axes, half))
    cut, boxed = cut[len(nowhere):], boxed[len(nowhere):]
    samples = np.linspace(0.0, 1.0, 400)[:, None]
    into = np.array([bool((np.max(hulls[a // per_rock][0] @ (start + samples * (end - start)).T
                                  - hulls[a // per_rock][1][:, None], axis=0) <= 0.0).any())
                     for a, (start, end) in enumerate(zip(starts[len(nowhere):],
                                                          ends[len(nowhere):]))])
    assert into.any()
    assert (into <= cut).all() and (cut <= boxed).all()
    assert cut.sum() < 0.85 * boxed.sum()
