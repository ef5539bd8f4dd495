"""The anchors' Bullet rays ask for Bullet's closest hit first and look through all of a
ray's hits only when that one is not ground: the answers must be the ones looking through
every hit gives, to the last bit (own hull, walls, hits behind the start, other hulls),
with the terrain's collider among the bodies met and (as the fleet casts them) without."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from panda3d.bullet import BulletBoxShape, BulletRigidBodyNode
from panda3d.core import LQuaternionf, Point3, TransformState, Vec3

from physics.bullet.bodies import ABOVE_TERRAIN_MASK, make_hull_body, terrain_collider
from physics.bullet.ground import BulletRays, _closest_ground
from physics.bullet.poses import set_at_rest
from physics.bullet.world import ALL_BODIES, PhysicsWorld
from physics.model.anchors import GroundHits
from physics.model.kernel_tables import EXACT_ROWS
from physics.model.terrain import MapChoice, build_terrain

ANCHORS = 4


def every_hit(world, vehicles, origins, directions, length_m, min_ground_up, rays, mask):
    """The reference: every hit of each ray, the nearest ground one chosen."""
    found = []
    for start, direction, anchor in zip(origins, directions, rays):
        end = start + direction * length_m
        hits = world.bullet.rayTestAll(Point3(*start), Point3(*end), mask).getHits()
        best = _closest_ground(hits, Vec3(*direction), min_ground_up,
                               vehicles[anchor // ANCHORS])
        found.append(None if best is None else (
            best.getHitFraction(), tuple(best.getHitPos()), tuple(best.getHitNormal()),
            best.getNode().getName()))
    return found


@pytest.mark.parametrize("with_terrain", [True, False])
def test_closest_first_gives_what_every_hit_gives(config, with_terrain):
    world = PhysicsWorld(config.game.simulation)
    terrain = build_terrain(MapChoice.parse("desert"), config.game.terrain, 3)
    world.add_body(terrain_collider(terrain))
    rng = np.random.default_rng(7)
    hulls = []
    for number in range(12):  # hulls close together, some tilted, some stacked
        body = make_hull_body(config.tank.hull, f"tank-{number}")
        world.add_body(body)
        x, y = rng.uniform(-12.0, 12.0, 2)
        lift = float(terrain.height_at(x, y)) + rng.uniform(0.5, 4.0)
        tilt = LQuaternionf()
        tilt.setHpr(Vec3(*rng.uniform(-40.0, 40.0, 3)))
        set_at_rest(body, (x, y, lift), tilt)
        hulls.append(body)
    wall = BulletRigidBodyNode("steep-ramp")
    wall.addShape(BulletBoxShape(Vec3(3.0, 3.0, 0.05)))
    wall.setTransform(TransformState.makePosHpr(Point3(0.0, 0.0, float(terrain.height_at(0, 0))
                                                       + 1.0), Vec3(0.0, 0.0, 75.0)))
    world.add_body(wall)
    world.step()  # Bullet's broadphase takes the bodies' places from a step
    count = 600
    origins = np.column_stack([rng.uniform(-15.0, 15.0, (count, 2)), np.zeros(count)])
    origins[:, 2] = terrain.height_at(origins[:, 0], origins[:, 1]) + rng.uniform(-0.5, 5.0,
                                                                                   count)
    directions = rng.normal(0.0, 0.3, (count, 3))
    directions[:, 2] = -1.0
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    rays = rng.integers(0, len(hulls) * ANCHORS, count)
    for number, body in enumerate(hulls):  # rays from under and inside their own hulls
        centre = np.array(body.getTransform().getPos())
        origins[number * 10:number * 10 + 10] = centre + rng.uniform(-1.5, 1.5, (10, 3))
        rays[number * 10:number * 10 + 10] = number * ANCHORS + rng.integers(0, ANCHORS, 10)
    length_m, min_ground_up = 4.0, math.cos(math.radians(70.0))
    mask = ALL_BODIES if with_terrain else ABOVE_TERRAIN_MASK
    caster = BulletRays(world, terrain, hulls, ANCHORS, mask)
    got = []
    for start, direction, anchor in zip(origins.tolist(), directions.tolist(), rays.tolist()):
        best = caster._ground_hit(start, direction, length_m, min_ground_up,
                                  hulls[anchor // ANCHORS])
        got.append(None if best is None else (
            best.getHitFraction(), tuple(best.getHitPos()), tuple(best.getHitNormal()),
            best.getNode().getName()))
    expected = every_hit(world, hulls, origins, directions, length_m, min_ground_up, rays,
                         mask)
    assert got == expected
    names = {hit[3] for hit in expected if hit is not None}
    assert ("terrain" in names) == with_terrain and any(name.startswith("tank-") for name in names)
    assert sum(hit is None for hit in expected) > 0
    world.destroy()


def test_rays_that_meet_nothing_get_what_the_whole_pass_gives_them(config):
    """Rays that meet nothing get the same numbers whether or not another ray of their cast
    meets something; the table the kernel reads holds each field's numbers."""
    world = PhysicsWorld(config.game.simulation)
    terrain = build_terrain(MapChoice.parse("desert"), config.game.terrain, 3)
    hull = make_hull_body(config.tank.hull, "tank-0")
    world.add_body(hull)
    ground_m = float(terrain.height_at(0.0, 0.0))
    set_at_rest(hull, (0.0, 0.0, ground_m + 1.0), LQuaternionf())
    world.step()
    rng = np.random.default_rng(11)
    beside = np.column_stack([rng.uniform(20.0, 40.0, (8, 2)), np.zeros(8)])
    beside[:, 2] = terrain.height_at(beside[:, 0], beside[:, 1]) + rng.uniform(-0.5, 2.0, 8)
    onto_hull = np.array([[0.0, 0.0, ground_m + 4.0]])
    directions = np.tile([0.0, 0.0, -1.0], (9, 1)) + rng.normal(0.0, 0.2, (9, 3))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    directions[-1] = (0.0, 0.0, -1.0)
    caster = BulletRays(world, terrain, [None] * 9, 1, ABOVE_TERRAIN_MASK)
    length_m, min_ground_up = 4.0, math.cos(math.radians(70.0))
    whole = caster.cast(np.vstack([beside, onto_hull]), directions, length_m, min_ground_up,
                        np.arange(9))
    assert whole.hit.tolist() == [False] * 8 + [True]
    missed = caster.cast(beside, directions[:8], length_m, min_ground_up, np.arange(8))
    assert caster.pushed_bodies == {} and caster.pushed_points_ws == {}
    for field in ("hit", "distance_m", "point_ws", "normal_ws", "ground_velocity_ws",
                  "grip_scale", "rolling_resistance"):
        got, expected = getattr(missed, field), getattr(whole, field)[:8]
        assert got.dtype == expected.dtype and got.shape == expected.shape, field
        assert got.tobytes() == expected.tobytes(), field
    fields = GroundHits(*(getattr(whole, field.name) for field in dataclasses.fields(GroundHits)))
    assert whole.rows().shape == (EXACT_ROWS, 9)
    assert np.ascontiguousarray(whole.rows()).tobytes() == fields.rows().tobytes()
    world.destroy()
