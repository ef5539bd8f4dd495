"""The grid broadphase answers exactly as measuring every pair: on random layouts, on points
at cell borders and at exactly the limit, far outside the map, with one point or none, and
without numba; and a fleet finds exactly the vehicles near something, the only ones whose
rays may be cast through Bullet."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from panda3d.bullet import BulletBoxShape, BulletRigidBodyNode
from panda3d.core import LQuaternionf, Point3, TransformState, Vec3

from physics.bullet import near_tests
from physics.bullet.bodies import make_hull_body, make_rock_body, terrain_collider
from physics.bullet.fleet import VehicleFleet
from physics.bullet.ground import BulletRays
from physics.bullet.poses import set_at_rest
from physics.bullet.world import PhysicsWorld
from physics.model import broadphase
from physics.model.broadphase import (along_path_m, in_pairs, pairs_within, points_near_path,
                                      reached, sphere_pairs)
from physics.model.rocks import Rock, icosphere
from physics.model.terrain import MapChoice, build_terrain

def near_each_other(points: np.ndarray, limit_m: float) -> np.ndarray:
    """Per point: is another point closer than ``limit_m`` (in a pair the fleet's near
    test finds)?"""
    return in_pairs(pairs_within(points, limit_m), len(points))


def near_spheres(points: np.ndarray, centres: np.ndarray, limits_m: np.ndarray) -> np.ndarray:
    """Per point: is a sphere's centre closer than its limit (in a pair with it)?"""
    return in_pairs(sphere_pairs(points, centres, limits_m)[:, 0], len(points))


LIMIT_M = 11.45
"""About what the fleet asks of 45 t tanks: twice their reach and the room to spare."""


def every_pair(points: np.ndarray, limit_m: float) -> np.ndarray:
    """Per point: is another point closer than ``limit_m`` (every pair measured)?"""
    near = np.zeros(len(points), dtype=bool)
    for a in range(len(points)):
        for b in range(len(points)):
            if a != b and np.linalg.norm(points[a] - points[b]) < limit_m:
                near[a] = True
    return near


def every_sphere(points: np.ndarray, centres: np.ndarray, limits_m: np.ndarray) -> np.ndarray:
    """Per point: is a sphere's centre closer than its limit (every pair measured)?"""
    if not len(centres) or not len(points):
        return np.zeros(len(points), dtype=bool)
    return (np.linalg.norm(points[:, None] - centres[None], axis=-1) < limits_m[None]).any(axis=1)


def random_layout(rng, count: int) -> np.ndarray:
    """``count`` points over a map of dunes, some in clumps, some alone."""
    spread_m = rng.uniform(20.0, 300.0)
    points = rng.uniform(-spread_m, spread_m, (count, 3)) * (1.0, 1.0, 0.05)
    clumped = rng.random(count) < 0.3
    points[clumped] = points[0] + rng.normal(0.0, LIMIT_M, (int(clumped.sum()), 3))
    return points


@pytest.fixture(params=[0, 10 ** 9], ids=["grid", "every pair"])
def either_way(request, monkeypatch):
    """Pairs found through the grid, or by measuring every pair in the compiled loop."""
    monkeypatch.setattr(broadphase, "EVERY_PAIR_UP_TO", request.param)


@pytest.mark.parametrize("seed", range(12))
def test_the_grid_finds_the_pairs_every_pair_finds(seed, either_way):
    rng = np.random.default_rng(seed)
    points = random_layout(rng, int(rng.integers(2, 400)))
    near = near_each_other(points, LIMIT_M)
    np.testing.assert_array_equal(near, every_pair(points, LIMIT_M))
    assert 0 < near.sum() < len(points)  # both answers occur


@pytest.mark.parametrize("count", [0, 1, 2, 3, 25])
def test_none_one_and_a_few_in_a_row(count):
    points = np.zeros((count, 3))
    points[:, 0] = np.arange(count) * LIMIT_M * 0.6  # each near its neighbours
    near = near_each_other(points, LIMIT_M)
    np.testing.assert_array_equal(near, every_pair(points, LIMIT_M))
    assert near.tolist() == [count > 1] * count


def test_points_on_cell_borders_and_at_exactly_the_limit(either_way):
    """Cells are as wide as the limit: points on their borders exactly the limit apart (not
    near), and pairs across a border a hair closer than it, along y and across a corner
    (near). The limit and the coordinates are exact in binary, so are the distances."""
    limit_m = 11.5
    border = np.arange(-3, 4) * limit_m
    grid_x, grid_y = np.meshgrid(border, border)
    on_borders = np.column_stack([grid_x.ravel(), grid_y.ravel(), np.zeros(grid_x.size)])
    hair_m = 2.0 ** -40
    pairs = np.array([[100 * limit_m, 0.0, 0.0], [101 * limit_m, 0.0, 0.0],
                      [500.0, 2 * limit_m - 0.25, 0.0], [500.0, 3 * limit_m - 0.25 - hair_m, 0.0],
                      [-50 * limit_m - 0.5, 50 * limit_m + 0.5, 0.0],
                      [-50 * limit_m + 7.5, 50 * limit_m - 7.5, 0.0],
                      [7 * limit_m, 7 * limit_m, 3.0], [7 * limit_m, 7 * limit_m, 3.0]])
    points = np.vstack([on_borders, pairs])
    near = near_each_other(points, limit_m)
    np.testing.assert_array_equal(near, every_pair(points, limit_m))
    assert not near[:-6].any() and near[-6:].all()


def test_far_outside_the_map_and_coordinates_that_are_not_finite(either_way):
    rng = np.random.default_rng(7)
    cluster = rng.uniform(-15.0, 15.0, (30, 3)) * (1.0, 1.0, 0.05)
    points = np.vstack([cluster, cluster[:10] + (1e7, -3e9, 0.0), cluster[:5] * 1e-9 + 1e15,
                        [[1e300, 0.0, 0.0], [-1e300, 5.0, 0.0], [1e300, 1.0, 0.0]],
                        [[np.nan, 0.0, 0.0], [0.0, np.inf, 0.0], [0.0, np.inf, 0.0],
                         [1.0, 1.0, -np.inf]]])
    with np.errstate(invalid="ignore", over="ignore"):
        expected = every_pair(points, LIMIT_M)
    near = near_each_other(points, LIMIT_M)
    np.testing.assert_array_equal(near, expected)
    assert near[40:45].all() and near[45] and not near[46] and near[47]
    assert not near[-4:].any()


def every_pair_within(points: np.ndarray, limit_m: float) -> list[list[int]]:
    """Each pair of points closer than ``limit_m``, the lower index first, in order."""
    with np.errstate(invalid="ignore", over="ignore"):
        return [[a, b] for a in range(len(points)) for b in range(a + 1, len(points))
                if np.linalg.norm(points[a] - points[b]) < limit_m]


@pytest.mark.parametrize("seed", range(6))
def test_the_pairs_are_the_ones_every_pair_finds(seed, either_way):
    rng = np.random.default_rng(40 + seed)
    points = random_layout(rng, int(rng.integers(2, 300)))
    pairs = pairs_within(points, LIMIT_M)
    assert pairs.tolist() == every_pair_within(points, LIMIT_M)
    assert pairs.dtype == np.int64 and pairs.shape[1] == 2


def test_pairs_in_a_crowd_far_out_and_not_finite(either_way):
    """A crowd has more pairs than points (the first guess at how many); points far out
    pair as any do, and a point that is not finite pairs with none."""
    rng = np.random.default_rng(3)
    crowd = rng.uniform(-3.0, 3.0, (60, 3))
    points = np.vstack([crowd, crowd[:4] + (1e7, -3e9, 0.0), [[np.nan, 0.0, 0.0],
                                                               [0.0, np.inf, 0.0]]])
    pairs = pairs_within(points, LIMIT_M)
    assert len(pairs) > 4 * len(points)
    assert pairs.tolist() == every_pair_within(points, LIMIT_M)
    assert pairs_within(points, np.inf).tolist() == [
        [a, b] for a in range(64) for b in range(a + 1, 64)]
    assert not len(pairs_within(points, 0.0)) and not len(pairs_within(points[:1], LIMIT_M))


@pytest.mark.parametrize("seed", range(6))
def test_the_point_and_sphere_pairs_are_the_ones_every_pair_finds(seed, either_way):
    """Including a crowd with more pairs than the first guess at how many, a sphere that
    is nowhere, one whose limit is NaN and one that reaches every point."""
    rng = np.random.default_rng(70 + seed)
    points = np.vstack([random_layout(rng, int(rng.integers(1, 200))),
                        rng.uniform(-2.0, 2.0, (30, 3)), [[np.nan, 0.0, 0.0]]])
    centres = np.vstack([random_layout(rng, int(rng.integers(1, 40))),
                         rng.uniform(-2.0, 2.0, (20, 3)), [[0.0, np.inf, 0.0]] * 2])
    limits = rng.uniform(0.5, 2.0 * LIMIT_M, len(centres))
    limits[-1] = np.nan
    with np.errstate(invalid="ignore"):
        expected = [[a, b] for a in range(len(points)) for b in range(len(centres))
                    if np.linalg.norm(points[a] - centres[b]) < limits[b]]
    pairs = sphere_pairs(points, centres, limits)
    assert pairs.tolist() == expected and len(pairs) > 2 * len(points)
    limits[0] = np.inf
    endless = sphere_pairs(points, centres, limits)
    assert {a for a, b in endless.tolist() if b == 0} == set(range(len(points) - 1))


@pytest.mark.parametrize("seed", range(8))
def test_spheres_of_different_limits(seed, either_way):
    rng = np.random.default_rng(100 + seed)
    points = random_layout(rng, int(rng.integers(1, 300)))
    centres = random_layout(rng, int(rng.integers(1, 60)))
    limits = rng.uniform(0.5, 2.0 * LIMIT_M, len(centres))
    near = near_spheres(points, centres, limits)
    np.testing.assert_array_equal(near, every_sphere(points, centres, limits))


def test_spheres_at_their_limit_none_and_limits_that_meet_nothing_or_everything():
    points = np.array([[0.0, 0.0, 0.0], [10.0, 0.0, 0.0], [50.0, 0.0, 0.0], [np.nan, 0, 0]])
    centres = np.array([[0.0, 4.0, 0.0], [10.0, 0.0, 3.0]])
    assert near_spheres(points, centres, np.array([4.0, 3.0])).tolist() == [False] * 4
    assert near_spheres(points, centres, np.array([4.0, 3.0 + 1e-12])).tolist() == \
        [False, True, False, False]
    assert not near_spheres(points, np.zeros((0, 3)), np.zeros(0)).any()
    assert len(near_spheres(np.zeros((0, 3)), centres, np.ones(2))) == 0
    assert not near_spheres(points, centres, np.array([np.nan, 0.0])).any()
    assert near_spheres(points, centres, np.array([np.inf, 1.0])).tolist() == \
        [True, True, True, False]


PLAIN_PYTHON_RUN = """
import json, sys
sys.modules['numba'] = None
import numpy as np
from common import compiled
assert not compiled.AVAILABLE
from tests.test_broadphase import LIMIT_M, near_each_other, near_spheres, random_layout
rng = np.random.default_rng(11)
points = random_layout(rng, 200)
limits = rng.uniform(0.5, 2.0 * LIMIT_M, 40)
print(json.dumps([near_each_other(points, LIMIT_M).tolist(),
                  near_spheres(points, points[:40], limits).tolist()]))
"""


def test_without_numba_the_plain_loops_give_the_same_answers(repo_root):
    done = subprocess.run([sys.executable, "-c", PLAIN_PYTHON_RUN], cwd=repo_root,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    pairs, spheres = json.loads(done.stdout)
    rng = np.random.default_rng(11)
    points = random_layout(rng, 200)
    limits = rng.uniform(0.5, 2.0 * LIMIT_M, 40)
    assert pairs == every_pair(points, LIMIT_M).tolist()
    assert spheres == every_sphere(points, points[:40], limits).tolist()


def box_body(name: str, position, half_extents_m, mass_kg: float) -> BulletRigidBodyNode:
    body = BulletRigidBodyNode(name)
    body.addShape(BulletBoxShape(Vec3(*half_extents_m)))
    body.setMass(mass_kg)
    body.setTransform(TransformState.makePos(Point3(*position)))
    return body


def test_a_fleet_finds_exactly_the_vehicles_near_something(config, monkeypatch):
    """Tanks at rest at random places on flat ground, a static block and a moving crate:
    the vehicles near something are the tanks near another tank (twice the reach and the
    room to spare), the block (the reach, half the room and its radius) or the crate (the
    reach and its radius); only their anchors may be cast through Bullet (those whose rays
    pass near a body: tests/test_ray_narrowing.py)."""
    world = PhysicsWorld(config.game.simulation)
    terrain = build_terrain(MapChoice.parse("flat"), config.game.terrain, 1)
    world.add_body(terrain_collider(terrain))
    fleet = VehicleFleet(world, terrain, config.tank, config.tank_gearbox)
    rng = np.random.default_rng(3)
    places = rng.uniform(-60.0, 60.0, (60, 2))
    for number, (x, y) in enumerate(places):
        body = make_hull_body(config.tank.hull, f"tank-{number}")
        world.add_body(body)
        set_at_rest(body, (x, y, 1.0), LQuaternionf(1, 0, 0, 0))
        fleet.add(body)
    obstacles = [box_body("block", (30.0, 0.0, 1.0), (2.0, 2.0, 1.0), 0.0),
                 box_body("crate", (-30.0, 5.0, 0.5), (0.6, 0.6, 0.5), 500.0)]
    for body in obstacles:
        world.add_body(body)
        fleet.add_obstacle(body)
    cast_vehicles = []
    cast = BulletRays.cast

    def recording(self, origins_ws, directions_ws, length_m, min_ground_up, rays):
        cast_vehicles.append(sorted(set((rays // self.anchors).tolist())))
        return cast(self, origins_ws, directions_ws, length_m, min_ground_up, rays)

    monkeypatch.setattr(BulletRays, "cast", recording)
    centres = np.array([body.getTransform().getPos() for body in fleet.bodies], dtype=float)
    room_m = near_tests._NEAR_TEST_SLACK_M
    spheres = [(np.array(body.getTransform().getMat().xformPoint(body.getShapeBounds()
                                                                   .getCenter())),
                body.getShapeBounds().getRadius()) for body in obstacles]
    expected = (every_pair(centres, 2.0 * fleet.reach_m + room_m)
                | every_sphere(centres, spheres[0][0][None],
                               np.array([fleet.reach_m + room_m / 2.0 + spheres[0][1]]))
                | every_sphere(centres, spheres[1][0][None],
                               np.array([fleet.reach_m + spheres[1][1]])))
    fleet.update_drive(world.step_s)
    assert fleet._plan.near.tolist() == expected.tolist()
    world.step()
    for vehicles in cast_vehicles:
        assert set(vehicles) <= set(np.flatnonzero(expected).tolist())
    assert 0 < expected.sum() < len(places)
    fleet.destroy()
    world.destroy()


def tanks_round_a_rock(config, bounds: str, steps: int) -> tuple[list, int, int]:
    """Tanks driving past and onto a flat rock for ``steps`` steps, the rock given to the
    fleet with its ``bounds`` ("sphere": none but its sphere, "box" or "k-DOP"): every
    tank's state at the end, the rays cast through Bullet and those of them that met the
    rock."""
    world = PhysicsWorld(config.game.simulation)
    terrain = build_terrain(MapChoice.parse("flat"), config.game.terrain, 1)
    world.add_body(terrain_collider(terrain))
    fleet = VehicleFleet(world, terrain, config.tank, config.tank_gearbox)
    unit_points, triangles = icosphere()
    points = unit_points * 4.0
    points[:, 2] *= 0.3  # a slab 2.4 m high, its bounding sphere 8 m across
    rock = Rock(np.array([0.0, 0.0, 0.2]), 30.0, points, triangles, 4.0)
    rock_body = make_rock_body(rock, "rock")
    world.add_body(rock_body)
    starts = [(-9.0, -6.0, 90.0), (-9.0, 6.0, 90.0), (6.0, -9.0, 0.0), (-5.5, -3.0, 90.0),
              (8.5, 2.0, 200.0), (-2.0, 9.5, 160.0)]
    for number, (x, y, heading) in enumerate(starts):
        body = make_hull_body(config.tank.hull, f"tank-{number}")
        world.add_body(body)
        facing = LQuaternionf()
        facing.setHpr(Vec3(-heading, 0.0, 0.0))
        set_at_rest(body, (x, y, 1.2), facing)
        fleet.add(body, automatic=True)
        fleet.set_controls(number, 0.6, 0.1 * (number % 3 - 1), 0.0, False)
    fleet.add_obstacle(rock_body, {"sphere": None, "box": rock.box_bs(),
                                   "k-DOP": rock.bounds_bs()}[bounds])
    rays, met = [], []
    cast = fleet._bullet_rays.cast

    def counting(origins_ws, directions_ws, length_m, min_ground_up, anchors):
        hits = cast(origins_ws, directions_ws, length_m, min_ground_up, anchors)
        rays.append(len(anchors))
        met.append(int(np.count_nonzero(hits.hit)))
        return hits

    fleet._bullet_rays.cast = counting
    for _ in range(steps):
        fleet.update_drive(world.step_s)
        world.step()
    states = [tuple(np.concatenate([state.position_ws, state.orientation_ws,
                                    state.velocity_ws]).tolist())
              for state in fleet.poses().states()]
    fleet.destroy()
    world.destroy()
    return states, sum(rays), sum(met)


def test_a_rock_with_a_box_spares_bullet_the_rays_beside_it(config):
    """A flat rock's box leaves out of Bullet the rays that pass within its bounding sphere
    but beside the box, and its k-DOP those through the box's empty corners too: the tanks
    round it and on it move exactly as they do when every ray within the sphere is cast."""
    boxed, boxed_rays, boxed_met = tanks_round_a_rock(config, "box", 180)
    spherical, spherical_rays, spherical_met = tanks_round_a_rock(config, "sphere", 180)
    cut, cut_rays, cut_met = tanks_round_a_rock(config, "k-DOP", 180)
    assert boxed == spherical == cut
    assert 0 < boxed_met == spherical_met == cut_met  # a tank rides on the rock's edge
    assert boxed_rays < spherical_rays / 2
    assert cut_met <= cut_rays < boxed_rays


def test_a_path_is_measured_along_its_pieces_and_passes_near_what_it_should():
    path = np.array([[0.0, 0.0, 0.0], [10.0, 0.0, 0.0], [10.0, 10.0, 0.0]])
    assert along_path_m(path, np.array([4.0, 0.5, 0.0])) == pytest.approx(4.0)
    assert along_path_m(path, np.array([10.5, 3.0, 0.0])) == pytest.approx(13.0)
    assert along_path_m(path, np.array([20.0, 20.0, 0.0])) == pytest.approx(20.0)  # its end
    points = np.array([[5.0, 1.0, 0.0], [5.0, 3.0, 0.0], [11.0, 5.0, 0.0]])
    assert points_near_path(points, path, np.array([1.5, 1.5, 1.5])).tolist() == [
        True, False, True]


def test_reached_answers_as_numpys_norms_do_to_the_last_bit():
    """Which centres a point reaches, in plain floats, as numpy's norms decide it: on
    random layouts, with points set exactly on a centre's reach and one not finite."""
    rng = np.random.default_rng(11)
    for _ in range(200):
        centres, radii = rng.normal(0.0, 30.0, (8, 3)), rng.uniform(2.0, 6.0, 8)
        points, reach = rng.normal(0.0, 30.0, (3, 3)), rng.uniform(0.0, 20.0, 3)
        points[0] = centres[2] + [0.0, 0.0, radii[2] + reach[0]]  # about on the edge
        if rng.random() < 0.1:
            points[1, 0] = np.nan
        gaps = np.linalg.norm(centres[:, None, :] - points[None, :, :], axis=2)
        expected = (gaps <= radii[:, None] + reach[None, :]).any(axis=1).tolist()
        assert reached(centres, radii, points, reach) == expected
        assert reached(centres, radii, points, reach.tolist()) == expected
    assert reached(centres, radii, np.zeros((0, 3)), []) == [False] * 8
