"""Tanks of several classes in one fleet: each vehicle steps with its own class's
constants, to the bit what it does in a fleet of its class alone, and a battle of mixed
classes drives them all in one fleet."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from physics.bullet.fleet import VehicleFleet
from physics.bullet.world import PhysicsWorld
from physics.model.anchors import AnchorCommand, BodyStates, GroundHits, derive_constants
from physics.model.gearbox import DriveCommand
from physics.model.terrain import MapChoice, build_terrain

SUBSTEP_S = 1.0 / 120.0
CLASSES = ("medium", "light", "heavy")


class TiltedGround:
    """A plane through the origin, tilted about x, with the surface's grip: every ray is
    cast here (the model's query), whatever the kind."""

    def __init__(self, slope: float):
        self.normal = np.array([0.0, -slope, 1.0]) / np.hypot(slope, 1.0)

    def cast(self, origins_ws, directions_ws, length_m, min_ground_up, rays):
        facing = -directions_ws @ self.normal
        distance = (origins_ws @ self.normal) / np.maximum(facing, 1e-9)
        count = len(origins_ws)
        return GroundHits((distance <= length_m) & (facing >= min_ground_up), distance,
                          origins_ws + distance[:, None] * directions_ws,
                          np.tile(self.normal, (count, 1)), np.zeros((count, 3)),
                          np.ones(count), np.zeros(count))


@pytest.fixture(scope="module")
def specs(config):
    return [config.world.tanks[name] for name in CLASSES]


def _constants(spec, gravity_m_s2):
    return derive_constants(spec.suspension, spec.grip, spec.hull.mass_kg, gravity_m_s2,
                            tracked=True)


def _rows(values, picked):
    return None if values is None else np.ascontiguousarray(values[picked])


def test_a_model_of_three_classes_steps_each_tank_as_a_model_of_its_class_alone(config, specs):
    gravity = config.game.simulation.gravity_m_s2
    constants = [_constants(spec, gravity) for spec in specs]
    kinds = [0, 2, 1, 1, 0, 2, 2]
    together = specs[0].make_model(constants[0])
    assert [together.add_kind(spec.make_model(own)) for spec, own in
            zip(specs[1:], constants[1:])] == [1, 2]
    for kind in kinds:
        together.resize(len(together.kind) + 1, kind)
    count = len(kinds)
    rng = np.random.default_rng(4)
    slope = 0.1
    at_xy = rng.uniform(-3, 3, (count, 2))
    heights = np.array([specs[kind].suspension.ride_height_m
                        - constants[kind].position_bs[:, 2].mean() for kind in kinds])
    states = BodyStates(np.column_stack([at_xy, heights + slope * at_xy[:, 1]]),
                        np.tile(np.eye(3), (count, 1, 1)), rng.normal(0, 1.5, (count, 3)),
                        rng.normal(0, 0.2, (count, 3)))
    command = AnchorCommand(rng.uniform(-3, 3, (count, 4)), rng.uniform(0, 5e4, (count, 4)),
                            np.zeros((count, 4)), np.ones((count, 4)),
                            rng.uniform(-1e4, 1e4, (count, 4)))
    ground = TiltedGround(slope)
    batches = [together.step(states, command, SUBSTEP_S, query=ground) for _ in range(3)]
    for vehicle, kind in enumerate(kinds):
        alone = specs[kind].make_model(constants[kind])
        alone.resize(1)
        picked = slice(vehicle, vehicle + 1)
        one = BodyStates(*(np.ascontiguousarray(getattr(states, field.name)[picked])
                           for field in dataclasses.fields(BodyStates)))
        own = AnchorCommand(*(_rows(getattr(command, field.name), picked)
                              for field in dataclasses.fields(AnchorCommand)))
        for batch in batches:
            result = alone.step(one, own, SUBSTEP_S, query=ground)
            np.testing.assert_array_equal(result.linear_ws[0], batch.linear_ws[vehicle])
            np.testing.assert_array_equal(result.angular_ws[0], batch.angular_ws[vehicle])
        np.testing.assert_array_equal(alone.driveline[0], together.driveline[vehicle])
        np.testing.assert_array_equal(alone.report.load_n[0], together.report.load_n[vehicle])
        assert together.constants_of(vehicle) is constants[kind]
    # Their springs differ: the heavy's anchors carry more than the light's.
    loads = together.report.load_n.sum(axis=1)
    assert loads[kinds.index(2)] > loads[kinds.index(1)] > 0.0


def test_a_drive_of_three_classes_commands_each_tank_as_its_class_alone(config, specs):
    gravity = config.game.simulation.gravity_m_s2
    constants = [_constants(spec, gravity) for spec in specs]
    kinds = [2, 0, 1, 2, 1]
    together = specs[0].make_drive(constants[0])
    assert [together.add_kind(spec.make_drive(own)) for spec, own in
            zip(specs[1:], constants[1:])] == [1, 2]
    for kind in kinds:
        together.add_vehicle(kind)
    count = len(kinds)
    rng = np.random.default_rng(8)
    drive = DriveCommand(rng.uniform(0, 8, count), rng.uniform(0, 9e4, count),
                         np.full(count, 2000.0), rng.random(count) < 0.3,
                         rng.uniform(-9e4, 9e4, count))
    steer, brake = rng.uniform(-1, 1, count), np.where(rng.random(count) < 0.3, 0.5, 0.0)
    shifting, handbrake = rng.random(count) < 0.2, np.zeros(count, dtype=bool)
    command = together.command(drive, shifting, steer, brake, handbrake, 1 / 60, np.zeros(count))
    for vehicle, kind in enumerate(kinds):
        alone = specs[kind].make_drive(constants[kind])
        alone.add_vehicle()
        picked = slice(vehicle, vehicle + 1)
        own = alone.command(DriveCommand(*(np.ascontiguousarray(array[picked])
                                           for array in drive)),
                            shifting[picked], steer[picked], brake[picked], handbrake[picked],
                            1 / 60, np.zeros(1))
        np.testing.assert_array_equal(own.surface_speed_mps[0],
                                      command.surface_speed_mps[vehicle])
        np.testing.assert_array_equal(own.force_limit_n[0], command.force_limit_n[vehicle])
        np.testing.assert_array_equal(own.force_bias_n[0], command.force_bias_n[vehicle])
    together.remove(1)
    assert together.kind.tolist() == [2, 1, 2, 1]


def test_three_classes_settle_in_one_fleet_each_at_its_own_ride_height(config, specs,
                                                                       simulate_until):
    """Three tanks of each class in one fleet on flat ground, dropped and left: each
    comes to rest with its own anchors at its own ride height."""
    from game.sim.simulation import Simulation
    simulation = Simulation(config.world, MapChoice("flat"), 1, player_vehicle=None)
    tanks = [simulation.spawn("tank", f"{name}-{number}", x_m=12.0 * number,
                              y_m=15.0 * CLASSES.index(name), heading_deg=0.0,
                              tank_class=name)
             for number in range(3) for name in CLASSES]
    assert {tank.fleet for tank in tanks} == {simulation.tanks}
    assert len(simulation.fleets) == 2  # the tanks' and the car's
    for _ in range(round(4.0 / simulation.step_s)):
        simulation.step()
    for tank in tanks:
        view = tank.anchors()
        ground_m = view.contact_point_ws[:, 2]
        ride_m = view.origin_ws[:, 2] - ground_m
        assert tank.spec is config.world.tanks[tank.tank_class]
        assert np.allclose(ride_m, tank.spec.suspension.ride_height_m, atol=0.03), tank.name
        assert np.linalg.norm(tank.current.velocity_ws) < 0.05
    simulation.destroy()


def test_a_fleet_refuses_a_car_among_its_tanks_and_a_kind_it_lacks(config):
    world = PhysicsWorld(config.game.simulation)
    terrain = build_terrain(MapChoice.parse("flat"), config.game.terrain, 1)
    tanks = VehicleFleet(world, terrain, config.tank, config.tank_gearbox)
    with pytest.raises(ValueError, match="only tanks"):
        tanks.add_kind(config.car, config.car_gearbox)
    with pytest.raises(ValueError, match="kind 1"):
        tanks.add(None, kind=1)
    tanks.destroy()
    world.destroy()
