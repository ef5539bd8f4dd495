"""The chase camera's springs, hitches, orbit and zoom, on a flat map with a plain NodePath."""

from __future__ import annotations

import math

import numpy as np
import pytest
from panda3d.core import NodePath

from game.view.camera import CHASE, GUNSIGHT, ChaseCamera, critically_damped
from physics.model.terrain import MapChoice, build_terrain

LENGTH_M = 6.8
FRAME_S = 1.0 / 60.0


@pytest.fixture
def rig(config):
    terrain = build_terrain(MapChoice.parse("flat"), config.game.terrain, seed=1)
    render = NodePath("render")
    node = render.attachNewNode("camera")
    return ChaseCamera(node, terrain, config.view.camera), node


def frames(camera, seconds, position, rotation=np.eye(3), dt=FRAME_S):
    for _ in range(round(seconds / dt)):
        camera.update(dt, np.asarray(position, dtype=float), rotation, LENGTH_M)
        yield camera


def test_the_spring_step_never_overshoots():
    position, velocity = 0.0, 0.0
    seen = []
    for _ in range(600):
        position, velocity = critically_damped(position, velocity, 10.0, 2.0, FRAME_S)
        seen.append(position)
    assert max(seen) <= 10.0 and np.all(np.diff(seen) >= 0.0)
    assert seen[-1] == pytest.approx(10.0, abs=1e-3)


def test_it_sits_behind_and_above_and_aims_ahead(rig, config):
    camera, node = rig
    list(frames(camera, 0.1, (0.0, 0.0, 2.0)))
    x, y, z = node.getPos()
    spec = config.view.camera
    assert x == pytest.approx(0.0, abs=1e-6)
    assert y == pytest.approx(-spec.distance_lengths * LENGTH_M, rel=1e-3)
    assert z - 2.0 == pytest.approx(spec.height_lengths * LENGTH_M, rel=1e-3)
    forward = np.array(node.getQuat().getForward())
    assert forward[1] > 0.8 and forward[2] < 0.0, "not looking ahead and down"


def test_it_follows_a_jump_without_overshooting(rig):
    camera, node = rig
    list(frames(camera, 0.1, (0.0, 0.0, 0.0)))
    start_y = node.getY()
    ys = [node.getY() for _ in frames(camera, 4.0, (0.0, 10.0, 0.0))]
    assert ys[0] - start_y < 1.0, "snapped instead of following"
    assert np.all(np.diff(ys) >= -1e-9) and max(ys) <= start_y + 10.0 + 1e-6
    assert ys[-1] == pytest.approx(start_y + 10.0, abs=0.01)


def test_a_hitch_glides_on_and_settles(rig, config):
    camera, node = rig
    list(frames(camera, 0.1, (0.0, 0.0, 0.0)))
    before = np.array(node.getPos())
    camera.update(30.0, np.array([0.0, 50.0, 0.0]), np.eye(3), LENGTH_M)  # a 30 s frame
    moved = np.linalg.norm(np.array(node.getPos()) - before)
    assert np.isfinite(moved)
    assert moved < 50.0 * 0.9, "a hitch snapped the camera to the new place"
    camera.update(float("nan"), np.array([0.0, 50.0, 0.0]), np.eye(3), LENGTH_M)
    assert np.all(np.isfinite(np.array(node.getPos())))
    list(frames(camera, 3.0, (0.0, 50.0, 0.0)))
    expected_y = 50.0 - config.view.camera.distance_lengths * LENGTH_M
    assert node.getY() == pytest.approx(expected_y, abs=0.05)


def test_it_swings_round_behind_a_turning_vehicle_the_short_way(rig):
    camera, node = rig
    list(frames(camera, 0.1, (0.0, 0.0, 0.0)))
    turn = math.radians(170.0)
    rotation = np.array([[math.cos(turn), math.sin(turn), 0.0],
                         [-math.sin(turn), math.cos(turn), 0.0], [0.0, 0.0, 1.0]])
    headings = [c.heading for c in frames(camera, 5.0, (0.0, 0.0, 0.0), rotation)]
    target = math.atan2(rotation[0, 1], rotation[1, 1])
    assert abs(headings[-1] - target) < 0.01
    assert all(0.0 <= h <= target + 1e-6 for h in headings), "swung the long way or overshot"


def test_orbit_follows_the_mouse_and_returns_when_released(rig, config):
    camera, node = rig
    list(frames(camera, 0.1, (0.0, 0.0, 0.0)))
    camera.hold_orbit(True)
    camera.orbit(90.0 / config.view.camera.orbit_deg_per_screen, 0.0)
    list(frames(camera, 0.5, (0.0, 0.0, 0.0)))
    assert math.degrees(camera.orbit_yaw) == pytest.approx(90.0)
    x, y, _ = node.getPos()
    assert x < -0.9 * config.view.camera.distance_lengths * LENGTH_M, "not swung to the side"
    camera.hold_orbit(False)
    yaws = [math.degrees(c.orbit_yaw) for c in frames(camera, 5.0, (0.0, 0.0, 0.0))]
    assert np.all(np.diff(yaws) <= 1e-9) and min(yaws) >= -1e-6, "overshot on the way back"
    assert abs(yaws[-1]) < 0.5
    assert node.getX() == pytest.approx(0.0, abs=0.1)


def test_orbit_pitch_and_zoom_are_limited(rig, config):
    camera, _ = rig
    spec = config.view.camera
    camera.hold_orbit(True)
    camera.orbit(0.0, -10.0)
    assert math.degrees(camera.orbit_pitch) == pytest.approx(spec.orbit_pitch_limits_deg[1])
    for _ in range(100):
        camera.zoom_by(1.0)
    assert camera.zoom_target == pytest.approx(spec.zoom_limits[0])
    for _ in range(100):
        camera.zoom_by(-1.0)
    assert camera.zoom_target == pytest.approx(spec.zoom_limits[1])


def test_never_below_the_ground_and_pulled_in_front_of_obstacles(config):
    terrain = build_terrain(MapChoice.parse("flat"), config.game.terrain, seed=1)
    render = NodePath("render")
    node = render.attachNewNode("camera")
    wall_y = -4.0

    def ray(start, end):  # a wall across the map 4 m behind the vehicle
        if end[1] >= wall_y:
            return None
        t = (start[1] - wall_y) / (start[1] - end[1])
        return start + (end - start) * t

    camera = ChaseCamera(node, terrain, config.view.camera, ray)
    camera.hold_orbit(True)
    camera.orbit(0.0, 10.0)  # as low as it goes
    for _ in frames(camera, 1.0, (0.0, 0.0, 0.0)):
        assert node.getZ() >= config.view.camera.terrain_clearance_m - 1e-9
        assert node.getY() >= wall_y + config.view.camera.obstacle_margin_m * 0.5


def test_the_view_key_toggles_the_gun_sight(rig, config):
    camera, node = rig
    assert camera.mode == CHASE
    camera.toggle_view()
    assert camera.mode == GUNSIGHT
    assert camera.field_of_view_deg == config.view.camera.gunsight_field_of_view_deg
    eye = np.array([1.0, 2.0, 3.0])
    axes = np.eye(3)
    camera.update(FRAME_S, np.zeros(3), np.eye(3), LENGTH_M, (eye, axes))
    np.testing.assert_allclose(np.array(node.getPos()), eye, atol=1e-6)
    np.testing.assert_allclose(np.array(node.getQuat().getForward()), [0.0, 1.0, 0.0],
                               atol=1e-6)
    camera.toggle_view()
    assert camera.field_of_view_deg == config.view.camera.field_of_view_deg
