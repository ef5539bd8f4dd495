"""Collision groups: the pair table on every world, bodies colliding as it says, the game's
bodies in their groups, anchors' rays skipping debris, and shells passing through the tank
that fired them for their first metres (and only then)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from panda3d.bullet import BulletBoxShape, BulletRigidBodyNode, BulletSphereShape
from panda3d.core import Point3, TransformState, Vec3

from game.config import load_config
from game.sim.controls import Controls
from game.sim.events import Hit, Shot
from game.sim.simulation import Simulation
from physics.bullet import groups
from physics.bullet.bodies import make_hull_body, make_plate_body
from physics.bullet.ground import BulletRays
from physics.bullet.shells import ShellSystem
from physics.bullet.world import PhysicsWorld
from physics.model.stepping import SimulationSpec
from physics.model.terrain import MapChoice


@pytest.fixture(scope="module")
def config():
    return load_config()


def make_world(gravity_m_s2: float = 9.81) -> PhysicsWorld:
    return PhysicsWorld(SimulationSpec(step_hz=60.0, substeps=2, max_steps_per_frame=5,
                                       gravity_m_s2=gravity_m_s2))


def test_every_world_has_the_pair_table():
    world = make_world()
    for first in groups.GROUP_NAMES:
        for second in groups.GROUP_NAMES:
            assert groups.collide(first, second) == groups.collide(second, first)
            assert world.bullet.getGroupCollisionFlag(first, second) == groups.collide(
                first, second)
    assert not groups.collide(groups.RAISED_HULL, groups.TERRAIN)
    for group in groups.HULL_GROUPS:  # whichever pairs a hull is in, it meets the solids
        assert all(groups.collide(group, other) for other in (
            *groups.HULL_GROUPS, groups.PROP, groups.ROCK, groups.SHELL, groups.DEBRIS,
            groups.TRIGGER))
    assert [groups.hull_group(terrain, edges) for terrain in (True, False)
            for edges in (True, False)] == [groups.HULL, groups.INLAND_HULL,
                                            groups.RAISED_HULL, groups.RAISED_INLAND_HULL]
    assert not groups.collide(groups.FRESH_SHELL, groups.HULL)
    assert not groups.collide(groups.DEBRIS, groups.TRIGGER)
    world.destroy()


def _dropped_onto(falling: int, floor: int) -> float:
    """Where a ball of group ``falling`` is after falling 2 s onto a slab of group
    ``floor`` whose top is at z = 0."""
    world = make_world()
    slab = BulletRigidBodyNode("slab")
    slab.addShape(BulletBoxShape(Vec3(5.0, 5.0, 0.5)))
    slab.setTransform(TransformState.makePos(Point3(0.0, 0.0, -0.5)))
    slab.setIntoCollideMask(groups.mask_of(floor))
    ball = BulletRigidBodyNode("ball")
    ball.addShape(BulletSphereShape(0.25))
    ball.setMass(1.0)
    ball.setDeactivationEnabled(False)
    ball.setTransform(TransformState.makePos(Point3(0.0, 0.0, 1.0)))
    ball.setIntoCollideMask(groups.mask_of(falling))
    world.add_body(slab)
    world.add_body(ball)
    for _ in range(120):
        world.step()
    height_m = ball.getTransform().getPos()[2]
    world.destroy()
    return height_m


@pytest.mark.parametrize("falling, floor", [
    (groups.HULL, groups.TERRAIN), (groups.RAISED_HULL, groups.TERRAIN),
    (groups.DEBRIS, groups.TERRAIN), (groups.DEBRIS, groups.ROCK),
    (groups.SHELL, groups.TRIGGER), (groups.SHELL, groups.PROP),
    (groups.FRESH_SHELL, groups.HULL), (groups.FRESH_SHELL, groups.ROCK),
    (groups.HULL, groups.TRIGGER), (groups.PROP, groups.TRIGGER),
    (groups.HULL, groups.EDGE), (groups.RAISED_HULL, groups.EDGE),
    (groups.INLAND_HULL, groups.TERRAIN), (groups.INLAND_HULL, groups.EDGE),
    (groups.RAISED_INLAND_HULL, groups.TERRAIN), (groups.RAISED_INLAND_HULL, groups.EDGE),
    (groups.RAISED_INLAND_HULL, groups.ROCK), (groups.SHELL, groups.RAISED_INLAND_HULL)])
def test_bodies_collide_as_the_table_says(falling, floor):
    height_m = _dropped_onto(falling, floor)
    if groups.collide(falling, floor):
        assert height_m == pytest.approx(0.25, abs=0.05)  # resting on the slab
    else:
        assert height_m < -5.0  # fell through it


def test_the_game_makes_its_bodies_in_their_groups(config):
    simulation = Simulation(config.world, MapChoice.parse("range"), seed=1)
    by_name = {node.getName(): node for node in simulation.world.bullet.getRigidBodies()}
    assert by_name["terrain"].getIntoCollideMask() == groups.mask_of(groups.TERRAIN)
    assert by_name["map-edge"].getIntoCollideMask() == groups.mask_of(groups.EDGE)
    for plate in simulation.plates:
        assert by_name[plate.name].getIntoCollideMask() == groups.mask_of(groups.PROP)
    hull_mask = simulation.player.body.getIntoCollideMask()
    assert hull_mask in [groups.mask_of(group) for group in groups.HULL_GROUPS]
    simulation.destroy()
    desert = Simulation(config.world, MapChoice.parse("desert"), seed=1)
    rocks = [node for node in desert.world.bullet.getRigidBodies()
             if node.getName().startswith("rock-")]
    assert rocks and all(node.getIntoCollideMask() == groups.mask_of(groups.ROCK)
                         for node in rocks)
    desert.destroy()


def _static_box(name: str, centre, half, group: int) -> BulletRigidBodyNode:
    body = BulletRigidBodyNode(name)
    body.addShape(BulletBoxShape(Vec3(*half)))
    body.setTransform(TransformState.makePos(Point3(*centre)))
    body.setIntoCollideMask(groups.mask_of(group))
    return body


def test_the_anchors_rays_skip_debris(config):
    simulation = Simulation(config.world, MapChoice.parse("flat"), seed=1)
    world = simulation.world
    world.add_body(_static_box("debris", (20.0, 0.0, 1.5), (0.5, 0.5, 0.1), groups.DEBRIS))
    rays = BulletRays(world, simulation.terrain, [None], 1)  # as the fleet casts them
    down, limit = np.array([[0.0, 0.0, -1.0]]), 0.5
    start = np.array([[20.0, 0.0, 3.0]])
    assert not rays.cast(start, down, 3.0, limit, np.array([0])).hit[0]
    world.add_body(_static_box("crate", (20.0, 0.0, 0.5), (0.5, 0.5, 0.5), groups.PROP))
    hits = rays.cast(start, down, 3.0, limit, np.array([0]))
    assert hits.hit[0] and hits.point_ws[0, 2] == pytest.approx(1.0, abs=1e-3)  # the crate
    simulation.destroy()


class _Tank:
    """An owner in the handle map with a hull body, as a vehicle is."""

    def __init__(self, world: PhysicsWorld, config, name: str, centre_ws):
        self.name = name
        self.body = make_hull_body(config.tank.hull, name)
        self.body.setTransform(TransformState.makePos(Point3(*centre_ws)))
        world.add_body(self.body, owner=self)


def _first_hit(world: PhysicsWorld, system: ShellSystem, steps: int = 30):
    for step in range(steps):
        world.step()
        hits, _ = system.update(world.time_s, 10.0)
        if hits:
            return hits[0]
    return None


@pytest.mark.parametrize("owned", [True, False])
def test_a_shell_passes_through_its_firer_in_its_first_metres_only(config, owned):
    """A shell launched 6 m behind a hull, through it, at a plate: it passes through the
    tank that fired it (and on to the plate), but strikes any other tank there."""
    world = make_world(gravity_m_s2=0.0)
    tank = _Tank(world, config, "tank", (0.0, 0.0, 0.0))
    plate = make_plate_body("plate", (0.0, 30.0, 0.0), (2.0, 0.05, 2.0))
    world.add_body(plate, owner="plate")
    gun = config.tank.gun
    assert gun.firer_pass_m > 6.0 + config.tank.hull.half_extents_m[1]  # past its far face
    system = ShellSystem(world, config.shells.air)
    shell = config.shells.shells[gun.ammunition[0].shell]
    firer = tank if owned else _Tank(world, config, "other", (50.0, 0.0, 0.0))
    system.launch(firer, (0.0, -6.0, 0.3), (0.0, shell.muzzle_velocity_mps, 0.0), gun, shell,
                  0.0, firer.body)
    hit = _first_hit(world, system)
    assert hit is not None
    if owned:
        assert hit.target == "plate"
        assert hit.position_ws[1] == pytest.approx(30.0 - 0.05, abs=1e-3)
        assert np.linalg.norm(np.array(tank.body.getLinearVelocity())) == 0.0  # not pushed
    else:
        assert hit.target is tank
        assert hit.position_ws[1] == pytest.approx(-config.tank.hull.half_extents_m[1],
                                                   abs=1e-2)
    world.destroy()


def test_past_its_first_metres_a_shell_strikes_its_firer(config):
    world = make_world(gravity_m_s2=0.0)
    tank = _Tank(world, config, "tank", (0.0, 0.0, 0.0))
    gun = config.tank.gun
    system = ShellSystem(world, config.shells.air)
    shell = config.shells.shells[gun.ammunition[0].shell]
    start_y = -gun.firer_pass_m - config.tank.hull.half_extents_m[1] - 40.0
    system.launch(tank, (0.0, start_y, 0.3), (0.0, shell.muzzle_velocity_mps, 0.0), gun, shell,
                  0.0)
    hit = _first_hit(world, system)
    assert hit is not None and hit.target is tank
    world.destroy()


def test_a_tank_firing_downhill_at_speed_never_hits_itself(config):
    gun = dataclasses.replace(config.tank.gun, reload_s=0.5)
    world_specs = config.world.with_tank(dataclasses.replace(config.tank, gun=gun))
    simulation = Simulation(world_specs, MapChoice.parse("slope:15"), seed=1)
    player = simulation.player
    simulation.place(player, 0.0, 0.0, 180.0)  # down the slope
    shots, hits, pitches_deg, speeds = 0, [], [], []
    for step in range(60 * 8):
        events = simulation.step(Controls(throttle=1.0, gear="A", elevation=-1.0,
                                          fire=step > 120))
        shots += sum(isinstance(event, Shot) for event in events)
        hits += [event for event in events if isinstance(event, Hit)]
        pitches_deg.append(player.current.heading_pitch_roll_deg()[1])
        speeds.append(player.current.forward_speed_mps())
    assert shots >= 8 and len(hits) >= shots - 2
    assert max(pitches_deg[120:]) < -10.0 and max(speeds) > 10.0  # nose down, fast
    assert all(hit.target != player.name for hit in hits)
    simulation.destroy()
