"""What a frame reads of the fleets, read fleet-wide, is what each vehicle reads alone.

The view reads the controller's report for a whole fleet's vehicles at once (dust under
the anchors, the rigs' per-step values); the reference is each vehicle's own
``anchors()`` and ``track_speeds_mps()``. Tanks and a car (two fleets, interleaved in
the simulation's order) drive for a while; the dust spawned, the latched track speeds
and the rigs' placed hulls must agree with the per-vehicle reading.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from panda3d.core import NodePath

from game.audio.sounds import track_speeds_of
from game.sim.controls import Controls
from game.sim.simulation import Simulation
from game.view.effects.effects import DUST_FIELDS, Effects
from game.view.rigs.rig_pose import rotation_matrices
from game.view.rigs.vehicle_view import VehicleLooks, VehicleView, update_views
from physics.bullet import poses
from physics.bullet.poses import body_state
from physics.model.pose import BodyState, blend_poses, rotation_matrix
from physics.model.terrain import MapChoice

STEPS = 40
OTHERS = (("tank", "east", 20.0, 5.0, 90.0, Controls(throttle=1.0, steer=0.7)),
          ("car", "rover", -15.0, 10.0, 30.0, Controls(throttle=1.0, steer=-0.5)),
          ("tank", "west", -20.0, -10.0, 200.0, Controls(throttle=0.7, steer=-1.0)))
"""Vehicles besides the player: kind, name, where (x, y), heading and how they drive."""


@pytest.fixture
def mixed(config):
    simulation = Simulation(config.world, MapChoice.parse("desert"), seed=5)
    for kind, name, x, y, heading, _ in OTHERS:
        simulation.spawn(kind, name, x, y, heading)
    yield simulation
    simulation.destroy()


def drive(simulation, steps: int = 1) -> None:
    others = {name: controls for _, name, _, _, _, controls in OTHERS}
    for _ in range(steps):
        simulation.step(Controls(throttle=1.0, steer=0.3), others)


def reference_rows(simulation) -> tuple[tuple, dict]:
    """The layout and the anchors' rows, read vehicle by vehicle."""
    reports = [(vehicle, vehicle.anchors()) for vehicle in simulation.vehicles]
    reports = [(vehicle, anchors) for vehicle, anchors in reports if anchors is not None]
    layout = tuple((vehicle.name, len(anchors.on_ground)) for vehicle, anchors in reports)
    rows = {name: np.concatenate([getattr(anchors, name) for _, anchors in reports])
            for name in DUST_FIELDS}
    return layout, rows


def test_the_dust_reads_every_fleet_as_each_vehicle_alone(config, mixed):
    effects = Effects(mixed, config.view.effects, seed=2)
    kinds = {vehicle.kind for vehicle in mixed.vehicles}
    assert kinds == {"tank", "car"}, "two fleets"
    for _ in range(STEPS):
        drive(mixed)
        anchors, rows = effects._anchor_rows()
        expected_layout, expected_rows = reference_rows(mixed)
        assert anchors.layout == expected_layout
        assert [vehicle.name for vehicle in anchors.vehicles] == [name for name, _
                                                                  in anchors.layout]
        for name in DUST_FIELDS:
            np.testing.assert_array_equal(rows[name], expected_rows[name])
        effects.update(mixed.step_s)
    assert effects.counts["track_dust"] + effects.counts["slide_dust"] > 0, "dust rose"


def test_the_rigs_placed_together_match_each_vehicle_alone(config, mixed):
    render = NodePath("render")
    looks = VehicleLooks(config.view.tank_rig, config.view.car_rig, config.view.scene)
    views = [VehicleView(render, vehicle, looks, mixed.step_s) for vehicle in mixed.vehicles]
    travelled = {view.vehicle.name: np.zeros(2) for view in views if view.has_gun}
    for _ in range(STEPS):
        drive(mixed)
        for alpha in (0.4, 1.0):
            update_views(views, alpha, mixed.step_s / 2.0, pose_parts=True)
            for view in views:
                if not view.has_gun:
                    continue
                vehicle, rig = view.vehicle, view.rig
                travelled[vehicle.name] += (np.array(vehicle.track_speeds_mps())
                                            * mixed.step_s / 2.0)
                np.testing.assert_allclose(rig.step_pair[1][1], vehicle.track_speeds_mps(),
                                           rtol=1e-12, atol=1e-12)
                np.testing.assert_allclose(rig.travelled_m, travelled[vehicle.name],
                                           atol=1e-9)
                position, orientation = blend_poses(vehicle.previous, vehicle.current, alpha)
                np.testing.assert_allclose(rig.root.getPos(), position, atol=1e-4)
                drawn = np.array(rig.root.getQuat())
                assert min(np.abs(drawn - orientation).max(),
                           np.abs(drawn + orientation).max()) < 1e-5
                assert np.isclose(-np.radians(rig.turret.getH()), vehicle.turret_heading_rad,
                                  atol=1e-5)
    assert max(np.abs(run).max() for run in travelled.values()) > 0.2, "the tracks ran"


def test_the_clatter_hears_the_track_speeds_the_vehicle_reports(mixed):
    drive(mixed, STEPS)
    tanks = [vehicle for vehicle in mixed.vehicles if vehicle.kind == "tank"]
    assert max(abs(left - right) for left, right in map(track_speeds_of, tanks)) > 0.05, \
        "some tank turns"
    for vehicle in tanks:
        np.testing.assert_allclose(track_speeds_of(vehicle), vehicle.track_speeds_mps(),
                                   rtol=1e-12, atol=1e-12)


def test_the_rigs_rotations_are_the_physicsrotation_matrices():
    rng = np.random.default_rng(6)
    quaternions = rng.normal(size=(50, 4))
    quaternions /= np.linalg.norm(quaternions, axis=1, keepdims=True)
    np.testing.assert_array_equal(rotation_matrices(quaternions),
                                  rotation_matrix(quaternions))


def test_each_fleets_poses_read_at_once_are_each_bodys_own(mixed):
    """The guard's read of a whole fleet (the step's end state of every vehicle) gives,
    number for number, what reading each body alone gives."""
    drive(mixed, STEPS)
    for fleet in mixed.fleets.values():
        if not len(fleet):
            continue
        poses = fleet.poses()
        states = poses.states()
        assert len(states) == len(fleet.bodies)
        for body, together in zip(fleet.bodies, states):
            alone = body_state(body)
            for name in ("position_ws", "orientation_ws", "velocity_ws", "angular_velocity_ws"):
                assert np.array_equal(getattr(alone, name), getattr(together, name)), name
            assert np.array_equal(alone.axes_ws(), together.axes_ws())
            assert type(together) is BodyState  # made without its __init__, still frozen
            with pytest.raises(dataclasses.FrozenInstanceError):
                together.position_ws = alone.position_ws
        assert poses.finite.all()


def test_a_body_read_with_a_number_that_is_not_finite_is_marked_alone():
    """(Panda refuses to set such a state; Bullet's maths may still make one.)"""
    count = 3
    values = np.arange(26 * count, dtype=np.float32)  # matrices, quaternions, velocities
    matrices, quaternions, vectors = np.split(values, [16 * count, 20 * count])
    vectors[3 * 1 + 2] = np.nan  # body 1's linear velocity's z
    position, velocity, spin = np.empty((3, count, 3))
    rows, axes = np.empty((count, 13)), np.empty((count, 3, 3))
    finite = np.empty(count, bool)
    poses._pose_rows(matrices, quaternions, vectors, position, axes, velocity, spin, rows,
                     finite)
    assert finite.tolist() == [True, False, True]
    assert (rows[:, 0:3] == position).all() and (rows[:, 10:13] == spin).all()
    assert rows[2, 0:3].tolist() == [44.0, 45.0, 46.0]  # body 2's matrix row 3
    assert rows[2, 3:7].tolist() == [56.0, 57.0, 58.0, 59.0]
    assert rows[2, 10:13].tolist() == [75.0, 76.0, 77.0]
    assert axes[2, 1].tolist() == [36.0, 37.0, 38.0]
