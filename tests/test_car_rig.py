"""The drawn car (a buggy) against the headless simulation, and views per vehicle kind.

As in test_look.py, the rig is built under a plain NodePath (no window) and compared
with the simulation's anchor report: wheels on the contact points, front wheels
turned by the steer angle, every wheel rolled by its spin angle.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from panda3d.core import NodePath, Point3

from game.sim.controls import Controls
from game.sim.simulation import Simulation
from game.view.rigs.car_rig import CarRig
from game.view.rigs.tank_rig import TankRig
from game.view.rigs.vehicle_view import VehicleView
from physics.model.terrain import MapChoice

CONTACT_TOLERANCE_M = 0.01


@pytest.fixture(scope="module")
def drive(config):
    """A car driven over the dunes, turning, then braked to a stop; the rig updated each
    step. Yields what each step showed."""
    simulation = Simulation(config.world, MapChoice.parse("desert"), seed=1, player_vehicle="car")
    vehicle = simulation.player
    render = NodePath("render")
    rig = CarRig(render, vehicle, config.view.car_rig, simulation.step_s)
    anchors_bs = vehicle.fleet.constants.position_bs
    frames = []
    for step in range(150):
        steer = 0.0 if step < 40 else (1.0 if step < 100 else -0.6)
        controls = Controls(throttle=1.0, steer=steer, gear="1") if step < 120 else Controls(
            brake=1.0)
        simulation.step(controls)
        rig.update(alpha=1.0, frame_s=simulation.step_s)
        report = vehicle.fleet.model.report
        i = vehicle.index
        anchors = vehicle.anchors()
        anchor_now = np.array([render.getRelativePoint(rig.root, Point3(*p)) for p in anchors_bs])
        frames.append({
            "on_ground": anchors.on_ground.copy(),
            "drawn": rig.anchor_contacts_ws() - anchor_now,
            "reported": anchors.contact_point_ws - anchors.origin_ws,
            "steer_rad": report.steer_rad[i].copy(),
            "spin_rad": report.spin_angle_rad[i].copy(),
            "drawn_heading_deg": np.array([s.getH() for s in rig.wheel_steers]),
            "drawn_pitch_deg": np.array([s.getP() for s in rig.wheel_spinners]),
            "compression": anchors.compression_m.copy(),
        })
    yield simulation, vehicle, rig, render, frames
    rig.destroy()
    simulation.destroy()


def test_the_car_gets_a_car_rig_and_the_tank_a_tank_rig(config, drive):
    simulation, car, *_ = drive
    render = NodePath("render")
    view = VehicleView(render, car, config.vehicle_looks)
    view.update(1.0)
    assert isinstance(view.rig, CarRig) and not view.has_gun
    assert view.length_m == pytest.approx(2.0 * car.spec.hull.half_extents_m[1])
    view.show_gun(False)  # a car has none: nothing to hide, no error
    point, axes = view.gun_pose_ws()  # the V view of a car: the driver's eye, looking ahead
    np.testing.assert_allclose(axes.T @ np.array(car.current.axes_ws()).T, np.eye(3), atol=1e-4)
    view.destroy()
    tank = simulation.spawn("tank", "a-tank", 80.0, 0.0, 0.0)
    view = VehicleView(render, tank, config.vehicle_looks)
    assert isinstance(view.rig, TankRig) and view.has_gun
    view.destroy()


def test_the_wheels_stand_where_the_anchors_found_the_ground(drive):
    *_, frames = drive
    compared = 0
    for number, frame in enumerate(frames):
        for a in np.nonzero(frame["on_ground"])[0]:
            error = np.linalg.norm(frame["drawn"][a] - frame["reported"][a])
            assert error < CONTACT_TOLERANCE_M, (number, a, error)
            compared += 1
    assert compared > 400
    spread = max(np.ptp(frame["compression"]) for frame in frames)
    assert spread > 0.02, "the dunes never loaded the wheels unevenly"


def test_stopped_the_wheels_stand_exactly_on_the_contacts(drive):
    simulation, vehicle, rig, _, _ = drive
    for _ in range(150):
        simulation.step(Controls(brake=1.0))
    rig.update(1.0)
    assert np.linalg.norm(vehicle.current.velocity_ws) < 0.1
    anchors = vehicle.anchors()
    assert anchors.on_ground.all()
    # At rest the substep's rays and the drawn pose agree in the world too.
    error = np.linalg.norm(rig.anchor_contacts_ws() - anchors.contact_point_ws, axis=1)
    assert error.max() < CONTACT_TOLERANCE_M


def test_the_front_wheels_turn_with_the_steering(drive):
    _, vehicle, *_, frames = drive
    front = vehicle.fleet.constants.position_bs[:, 1] > 0.0
    for frame in frames:
        np.testing.assert_allclose(frame["drawn_heading_deg"], -np.degrees(frame["steer_rad"]),
                                   atol=1e-3)
    right_turn = frames[99]
    assert np.all(right_turn["steer_rad"][front] > math.radians(10.0)), "no right lock"
    assert np.all(right_turn["drawn_heading_deg"][front] < -10.0), "wheels not turned right"
    assert np.all(np.abs(right_turn["steer_rad"][~front]) < 1e-9)
    assert np.all(frames[119]["drawn_heading_deg"][front] > 5.0), "wheels not turned left"


def test_the_wheels_roll_with_the_reported_spin(drive):
    *_, frames = drive
    for frame in frames:
        drawn = np.radians(-frame["drawn_pitch_deg"])
        difference = np.angle(np.exp(1j * (drawn - frame["spin_rad"])))
        assert np.abs(difference).max() < 1e-3
    turned = [np.ptp([f["spin_rad"][0] for f in frames[k:k + 3]]) for k in range(0, 60, 3)]
    assert max(turned) > 0.1, "the wheels never turned"


def test_between_steps_the_wheels_blend_like_the_body(config):
    simulation = Simulation(config.world, MapChoice.parse("flat"), seed=1, player_vehicle="car")
    vehicle = simulation.player
    render = NodePath("render")
    rig = CarRig(render, vehicle, config.view.car_rig, simulation.step_s)
    for _ in range(90):
        simulation.step(Controls(throttle=1.0, steer=0.5, gear="1"))
        rig.update(1.0)
    before = rig.spin_rad.copy(), rig.steer_rad.copy()
    simulation.step(Controls(throttle=1.0, steer=1.0, gear="1"))
    rig.update(0.5)
    report = vehicle.fleet.model.report
    after_spin = report.spin_angle_rad[vehicle.index]
    half_turn = np.angle(np.exp(1j * (after_spin - before[0]))) / 2.0
    assert np.abs(half_turn).min() > 0.01, "the wheels were not rolling"
    np.testing.assert_allclose(np.angle(np.exp(1j * (rig.spin_rad - before[0]))), half_turn,
                               atol=1e-6)
    np.testing.assert_allclose(rig.steer_rad,
                               (before[1] + report.steer_rad[vehicle.index]) / 2.0, atol=1e-9)
    rig.destroy()
    simulation.destroy()


@pytest.mark.slow
def test_swapping_mid_game_draws_the_new_car_and_the_camera_follows_it(run_forked, tmp_path,
                                                                       config):
    """The whole game offscreen: swap into the car (a vehicle spawned mid-game); the last
    frame shows the car's paint near the middle."""
    inputs = tmp_path / "swap.json"
    inputs.write_text(json.dumps({"events": [{"t": 0.0, "swap_vehicle": False},
                                             {"t": 0.2, "swap_vehicle": True}]}))
    png = tmp_path / "swap.png"
    result = run_forked("--offscreen", "--seconds", "1.2", "--inputs", inputs, "--screenshot", png)
    assert result.returncode == 0, result.stderr
    from tests.pixels import pixels as read_pixels
    pixels = read_pixels(png)[::4, ::4]
    paint = np.array(config.view.car_rig.body_colour)
    # Lit orange: red well above blue, hue near the paint's.
    orange = (pixels[..., 0] > pixels[..., 2] + 0.3) & (pixels[..., 1] < pixels[..., 0] * 0.75)
    rows, columns = np.nonzero(orange)
    assert len(rows) > 0.003 * pixels.shape[0] * pixels.shape[1], "no car paint in view"
    assert abs(columns.mean() / pixels.shape[1] - 0.5) < 0.2, "the camera is not on the car"
    assert paint[0] > paint[2]
