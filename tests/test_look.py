"""The drawn tank rig and the chase camera against the headless simulation (no window).

Panda3D builds geometry and composes transforms without a window, so the rig is
built under a plain NodePath and compared with what the simulation reports.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from panda3d.core import NodePath, Point3, TransformState, Vec3

from game.camera import ChaseCamera
from game.controls import Controls
from game.simulation import Simulation, ground_aligned_rotation
from game.tank_rig import TankRig
from physics.pose import BodyState
from physics.terrain import MapChoice

CONTACT_TOLERANCE_M = 0.01
CAMERA_CLEARANCE_M = 0.5


@pytest.fixture
def desert(config):
    simulation = Simulation(config, MapChoice.parse("desert"), seed=1)
    yield simulation
    simulation.destroy()


def make_rig(config, vehicle) -> tuple[NodePath, TankRig]:
    render = NodePath("render")
    rig = TankRig(render, vehicle, config.game.tank_rig, config.game.scene.vehicle_colour,
                  config.game.scene.track_colour)
    return render, rig


def test_road_wheels_stand_where_the_anchors_found_the_ground(config, desert):
    vehicle = desert.player
    render, rig = make_rig(config, vehicle)
    anchors_bs = vehicle.fleet.constants.position_bs
    drive = Controls(throttle=1.0, steer=0.3)
    compared = 0
    spread = []
    for step in range(4 * 60):
        desert.step(drive if step < 3 * 60 else Controls(brake=1.0))
        rig.update(alpha=1.0, frame_s=desert.step_s)
        anchors = vehicle.anchors()
        wheels = rig.anchor_contacts_ws()
        # While moving, the rays were cast one substep before the drawn (current) pose:
        # compare each wheel with its own anchor, in the anchor's frame.
        anchor_now = np.array([render.getRelativePoint(rig.root, Point3(*p)) for p in anchors_bs])
        for a in np.nonzero(anchors.on_ground)[0]:
            drawn = wheels[a] - anchor_now[a]
            reported = anchors.contact_point_ws[a] - anchors.origin_ws[a]
            assert np.linalg.norm(drawn - reported) < CONTACT_TOLERANCE_M, (step, a)
            compared += 1
        spread.append(np.ptp(anchors.compression_m))
    assert compared > 600
    assert max(spread) > 0.03, "the dunes never loaded the anchors unevenly"
    # Braked to a stop on the dunes: the wheels stand exactly on the reported contacts.
    assert np.linalg.norm(vehicle.current.velocity_ws) < 0.2
    anchors = vehicle.anchors()
    on = anchors.on_ground
    assert on.all()
    error = np.linalg.norm(rig.anchor_contacts_ws()[on] - anchors.contact_point_ws[on], axis=1)
    assert error.max() < CONTACT_TOLERANCE_M
    rig.destroy()


def test_the_rig_blends_wheels_between_steps_like_the_hull(config, desert):
    vehicle = desert.player
    render, rig = make_rig(config, vehicle)
    for _ in range(30):
        desert.step(Controls(throttle=1.0))
    rig.update(1.0)
    desert.step(Controls(throttle=1.0))
    rig.update(0.0)
    at_start = rig.root.getPos(render)
    rig.update(0.5)
    halfway = np.array(rig.root.getPos(render))
    rig.update(1.0)
    at_end = np.array(rig.root.getPos(render))
    np.testing.assert_allclose(halfway, (np.array(at_start) + at_end) / 2, atol=1e-5)
    np.testing.assert_allclose(at_end, vehicle.current.position_ws, atol=1e-5)
    rig.destroy()


def test_the_tracks_scroll_and_the_turret_follows_the_vehicle(config, desert):
    vehicle = desert.player
    render, rig = make_rig(config, vehicle)
    vehicle.aim.turret_heading_rad = math.radians(30.0)
    vehicle.aim.elevation_rad = math.radians(10.0)
    for _ in range(60):
        desert.step(Controls(throttle=1.0))
        rig.update(1.0, desert.step_s)
    assert rig._travelled.min() > 0.5, "the tracks did not run forward"
    _, axes = rig.gun_pose_ws()
    body_axes = vehicle.current.axes_ws()
    bore_bs = body_axes @ axes[:, 1]
    assert math.degrees(math.atan2(bore_bs[0], bore_bs[1])) == pytest.approx(30.0, abs=0.5)
    assert math.degrees(math.asin(bore_bs[2])) == pytest.approx(10.0, abs=0.5)
    rig.destroy()


def steepest_point(terrain) -> tuple[np.ndarray, np.ndarray]:
    """The steepest sample away from the edges, and the uphill direction there."""
    slope_y, slope_x = np.gradient(terrain.heights_m, terrain.spacing_m)
    steepness = np.hypot(slope_x, slope_y)
    margin = int(60 / terrain.spacing_m)
    inner = np.zeros_like(steepness, dtype=bool)
    inner[margin:-margin, margin:-margin] = True
    j, i = np.unravel_index(np.argmax(np.where(inner, steepness, 0.0)), steepness.shape)
    xs, ys = terrain.sample_positions()
    uphill = np.array([slope_x[j, i], slope_y[j, i]])
    return np.array([xs[j, i], ys[j, i]]), uphill / np.linalg.norm(uphill)


def put_vehicle(simulation, vehicle, xy, heading_deg):
    """Set the vehicle down on its springs at ``xy`` (test set-up only)."""
    terrain = simulation.terrain
    ground, normal = terrain.surface_at(*xy)
    lift = (vehicle.spec.suspension.ride_height_m
            - float(vehicle.fleet.constants.position_bs[:, 2].mean()))
    position = np.array([xy[0], xy[1], float(ground)]) + normal * lift
    vehicle.body.setTransform(TransformState.makePosQuatScale(
        Point3(*position), ground_aligned_rotation(normal, heading_deg), Vec3(1, 1, 1)))
    vehicle.body.setLinearVelocity(Vec3(0, 0, 0))
    vehicle.body.setAngularVelocity(Vec3(0, 0, 0))
    vehicle.current = vehicle.previous = BodyState.of(vehicle.body)


def test_the_chase_camera_stays_above_the_steepest_dunes(config, desert):
    vehicle = desert.player
    terrain = desert.terrain
    steep, uphill = steepest_point(terrain)
    # Start 40 m before the steepest face and drive up and over it.
    heading = math.degrees(math.atan2(uphill[0], uphill[1]))
    put_vehicle(desert, vehicle, steep - uphill * 40.0, heading)
    render = NodePath("render")
    camera_node = render.attachNewNode("camera")

    def ray(start, end):
        hit = desert.world.ray_closest(start, end, exclude=vehicle.body)
        return None if hit is None else hit.position_ws

    camera = ChaseCamera(camera_node, terrain, config.game.camera, ray)
    length = 2.0 * vehicle.spec.hull.half_extents_m[1]
    lowest = math.inf
    passed_steep = False
    for step in range(14 * 60):
        # Part of the way the player swings the camera low and round.
        orbiting = 4 * 60 <= step < 7 * 60
        camera.hold_orbit(orbiting)
        if orbiting:
            camera.orbit(0.004, -0.01)
        desert.step(Controls(throttle=1.0, gear="A", steer=0.15 if step > 9 * 60 else 0.0))
        state = vehicle.current
        camera.update(desert.step_s, state.position_ws,
                      np.array(state.axes_ws()).T, length)
        x, y, z = camera_node.getPos(render)
        clearance = z - float(terrain.height_at(x, y))
        lowest = min(lowest, clearance)
        assert clearance >= CAMERA_CLEARANCE_M, (step, clearance)
        passed_steep |= np.linalg.norm(state.position_ws[:2] - steep) < 6.0
    assert passed_steep, "the drive never crossed the steepest dune face"
    assert lowest < 5.0, "the camera never came near the ground: not a test"
