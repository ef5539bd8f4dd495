"""Shells that can meet nothing in a step go unchecked after it (``ShellSystem.to_follow``):
high over the ground and every body a shell meets, and inside the map's edges. They still
fly and expire; anything they could meet keeps them followed: a static body's top, a moving
body's top where it is now, the map's edges."""

from __future__ import annotations

import pytest
from panda3d.bullet import BulletBoxShape, BulletRigidBodyNode
from panda3d.core import Point3, TransformState, Vec3

from physics.bullet import groups
from physics.bullet.bodies import make_hull_body, make_plate_body
from physics.bullet.shells import ShellSystem
from physics.bullet.world import PhysicsWorld
from tests.test_collision_groups import make_world

GROUND_TOP_M = 10.0
"""The ground's ceiling the tests give: everything they fly over is below it."""
EDGES_M = (1000.0, 1000.0)
LIFETIME_S = 6.0


def _fly(world: PhysicsWorld, system: ShellSystem, steps: int) -> tuple[list, int, int]:
    """Step as the simulation does; the hits, the shells expired, the steps left unchecked."""
    hits: list = []
    expired = quiet = 0
    for _ in range(steps):
        followed = system.to_follow(2.0 * world.step_s, GROUND_TOP_M, EDGES_M)
        quiet += len(system.shells) - (0 if followed is None else len(followed[3]))
        world.step()
        found, gone = system.update(world.time_s, LIFETIME_S)
        hits, expired = hits + found, expired + gone
        if not system.shells:
            break
    return hits, expired, quiet


def _launch(config, system: ShellSystem, start_ws, velocity_ws):
    gun = config.tank.gun
    shell = config.shells.shells[gun.ammunition[0].shell]
    return system.launch("gunner", start_ws, velocity_ws, gun, shell, 0.0)


def test_the_worlds_top_is_its_bodies_highest_but_the_terrains_and_the_edges(config):
    world = make_world(gravity_m_s2=0.0)
    assert world.top_m(groups.SHELL_PATH) == -float("inf")
    wall = BulletRigidBodyNode("edge")  # a plane's bounds say nothing: left aside
    wall.addShape(BulletBoxShape(Vec3(1.0, 1.0, 500.0)))
    wall.setIntoCollideMask(groups.mask_of(groups.EDGE))
    world.add_body(wall)
    plate = world.add_body(make_plate_body("plate", (0.0, 0.0, 50.0), (2.0, 0.05, 2.0)))
    plate_top_m = world.top_m(groups.SHELL_PATH)
    assert 52.0 <= plate_top_m <= 53.0  # its sphere's top: over its corner
    assert world.top_m(groups.mask_of(groups.ROCK)) == -float("inf")
    hull = make_hull_body(config.tank.hull, "tank")
    hull.setTransform(TransformState.makePos(Point3(0.0, 0.0, 20.0)))
    world.add_body(hull)
    assert world.top_m(groups.SHELL_PATH) == plate_top_m
    hull.setTransform(TransformState.makePos(Point3(0.0, 0.0, 80.0)))  # read where it is now
    assert 80.0 + config.tank.hull.half_extents_m[2] < world.top_m(groups.SHELL_PATH) < 90.0
    world.remove_body(plate)
    hull.setTransform(TransformState.makePos(Point3(0.0, 0.0, 20.0)))
    assert world.top_m(groups.SHELL_PATH) < 30.0
    world.destroy()


def test_a_shell_fired_into_the_sky_flies_unchecked_and_expires(config):
    world = make_world()
    system = ShellSystem(world, config.shells.air)
    world.add_body(make_plate_body("plate", (0.0, 0.0, 5.0), (2.0, 0.05, 2.0)))
    shell = _launch(config, system, (0.0, 0.0, 100.0), (0.0, 100.0, 200.0))
    hits, expired, quiet = _fly(world, system, 2 * round(LIFETIME_S / world.step_s))
    assert hits == [] and expired == 1 and not system.shells
    steps = round(LIFETIME_S / world.step_s)
    assert quiet >= steps - 1  # every step of its flight
    assert shell.last_position_ws[2] > 900.0  # it flew on all the while


@pytest.mark.parametrize("moving", [False, True])
def test_a_body_high_in_a_shells_way_keeps_it_followed_and_is_struck(config, moving):
    """A shell 300 m up, 300 m from a plate (static) or a hull (moving) up there too."""
    world = make_world(gravity_m_s2=0.0)
    system = ShellSystem(world, config.shells.air)
    if moving:
        target = make_hull_body(config.tank.hull, "tank")
        target.setTransform(TransformState.makePos(Point3(0.0, 300.0, 300.0)))
        target.setGravity(Vec3(0.0, 0.0, 0.0))
    else:
        target = make_plate_body("plate", (0.0, 300.0, 300.0), (2.0, 0.05, 2.0))
    world.add_body(target, owner="target")
    _launch(config, system, (0.0, 0.0, 300.0), (0.0, 800.0, 0.0))
    hits, _, quiet = _fly(world, system, 60)
    assert [hit.target for hit in hits] == ["target"] and quiet == 0
    world.destroy()


def test_a_shell_near_the_maps_edge_is_followed(config):
    world = make_world()
    system = ShellSystem(world, config.shells.air)
    _launch(config, system, (0.0, 0.0, 400.0), (0.0, 100.0, 100.0))
    _launch(config, system, (EDGES_M[0] - 5.0, 0.0, 400.0), (100.0, 0.0, 100.0))
    _fly(world, system, 1)  # the second's reach in a step is over 3 m: it reaches the edge
    followed = system.to_follow(2.0 * world.step_s, GROUND_TOP_M, EDGES_M)
    assert followed is not None and followed[3] == [system.shells[1]]
    assert system.followed() == [system.shells[1]]
    world.destroy()
