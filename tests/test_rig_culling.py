"""Rigs pose their moving parts (turret, gun, wheels, belts) only where a camera may see
them, and far from the players' eyes only on their turn; the gun a camera reads is aimed
whether or not they are posed yet.

Built under a plain NodePath (no window) as in test_look.py: a vehicle is driven, and
two views of it are updated each step, one posing its parts every frame and one
posing them only when a camera's frustum holds its bounding sphere. Where the camera
sees it, the two must agree exactly, however long it went unseen.
"""

from __future__ import annotations

import numpy as np
import pytest
from panda3d.core import Camera, NodePath, OrthographicLens, PerspectiveLens, Point3

from game.sim.controls import Controls
from game.sim.simulation import Simulation
from game.view.rigs.vehicle_view import (VehicleDetailSpec, VehicleLooks, VehicleView,
                                         pose_views_if_seen, views_seen)
from physics.model.ballistics import gun_axes
from physics.model.terrain import MapChoice

SAME_POSE = 1e-6
CAMERA_BACK_M = 30.0
"""The camera stands this far behind the vehicle, level with it."""
NARROW_FIELD_OF_VIEW_DEG = 2.0
"""A lens this narrow, aimed at the vehicle, sees it only where the vehicle really is."""
SHADOW_FILM_M = 20.0
"""A sun-shadow-like orthographic camera's square, looking straight down."""
STEPS_UNSEEN = 90
FAR_FROM_ORIGIN_M = 100.0
STEPS_SEEN = 30


def looks(config) -> VehicleLooks:
    return VehicleLooks(config.view.tank_rig, config.view.car_rig, config.view.scene)


def frustums_of(camera: NodePath) -> list:
    return [(camera, camera.node().getLens().makeBounds())]


def aim_camera(camera: NodePath, view: VehicleView, towards: bool) -> None:
    """Behind the vehicle, looking at it (``towards``) or away from it."""
    target = Point3(*view.position)
    camera.setPos(target + Point3(0.0, -CAMERA_BACK_M, 0.0))
    camera.lookAt(target if towards else target + Point3(0.0, -2.0 * CAMERA_BACK_M, 0.0))


def seen(view: VehicleView, frustums) -> bool:
    """Whether some camera may see the view (its reach about its drawn position)."""
    return views_seen([view], frustums) == [view]


def posed_if_seen(view: VehicleView, frustums) -> bool:
    """The frame's pass that poses the parts the cameras may see, over one view: whether
    its parts are posed."""
    pose_views_if_seen([view], frustums)
    return view.rig.parts_posed


def parts_pose(view: VehicleView) -> np.ndarray:
    """Every wheel's and spinner's transform in the rig's frame (a tank's wheels: their
    poses, which its wheel set's shader reads), and the belts' vertices."""
    root = view.root
    paths = [path for name in ("wheel-mount", "drive-wheel", "steer", "spin", "wheel")
             for path in root.findAllMatches(f"**/{name}")]
    mats = [np.array(path.getMat(root)).ravel() for path in paths]
    if hasattr(view.rig, "wheels"):
        mats.append(np.array(view.rig.wheels.poses, dtype=np.float64).ravel())
    for name in ("turret", "gun"):  # a tank's
        part = getattr(view.rig, name, None)
        if part is not None:
            mats.append(np.array(part.getMat(root)).ravel())
    assert mats
    belts = [np.frombuffer(memoryview(belt.node().getGeom(0).getVertexData().getArray(0))
                           .cast("B"), dtype=np.float32)
             for belt in getattr(view.rig, "belts", [])]
    return np.concatenate(mats + belts)


@pytest.fixture(params=["tank", "car"])
def drive(config, request):
    """A vehicle on the range, whose spawn is far from the world's origin."""
    simulation = Simulation(config.world, MapChoice.parse("range"), seed=1,
                            player_vehicle=request.param)
    yield simulation, simulation.player
    simulation.destroy()


def test_a_vehicle_unseen_keeps_its_parts_and_one_seen_again_matches_one_always_posed(
        config, drive):
    simulation, vehicle = drive
    always = VehicleView(NodePath("render-always"), vehicle, looks(config), simulation.step_s)
    render = NodePath("render")
    culled = VehicleView(render, vehicle, looks(config), simulation.step_s)
    camera = render.attachNewNode(Camera("camera", PerspectiveLens()))
    controls = Controls(throttle=1.0, steer=0.4, turret=0.6, elevation=0.3)
    unseen_pose = parts_pose(culled)
    for step in range(STEPS_UNSEEN + STEPS_SEEN):
        simulation.step(controls)
        always.update(1.0, simulation.step_s)
        culled.update(1.0, simulation.step_s, pose_parts=False)
        seen = step >= STEPS_UNSEEN
        aim_camera(camera, culled, towards=seen)
        assert posed_if_seen(culled, frustums_of(camera)) == seen, step
        if seen:
            np.testing.assert_allclose(parts_pose(culled), parts_pose(always), rtol=0.0,
                                       atol=SAME_POSE)
        else:
            assert np.array_equal(parts_pose(culled), unseen_pose), step
    # The hull follows the vehicle whether or not it is seen, and its parts did move.
    assert np.allclose(culled.position, always.position, atol=SAME_POSE)
    assert not np.allclose(parts_pose(always), unseen_pose, atol=SAME_POSE)


def test_the_gun_a_camera_reads_is_aimed_before_the_parts_are_posed(config):
    simulation = Simulation(config.world, MapChoice.parse("range"), seed=1)
    try:
        view = VehicleView(NodePath("render"), simulation.player, looks(config),
                           simulation.step_s)
        for _ in range(30):
            simulation.step(Controls(turret=1.0, elevation=1.0))
            view.update(1.0, simulation.step_s, pose_parts=False)
        _, axes = view.gun_pose_ws()
        vehicle = simulation.player
        _, barrel_ws = gun_axes(vehicle.current, vehicle.spec.gun, vehicle.aim)
        assert vehicle.aim.turret_heading_rad > 0.1 and vehicle.aim.elevation_rad > 0.05
        np.testing.assert_allclose(axes[:, 1], barrel_ws, atol=1e-5)
    finally:
        simulation.destroy()


def test_a_vehicle_in_view_is_posed_and_one_behind_the_camera_is_not(config, drive):
    simulation, vehicle = drive
    render = NodePath("render")
    world = render.attachNewNode("world")  # the rig's parent need not be the camera's
    world.setPos(250.0, -80.0, 3.0)
    view = VehicleView(world, vehicle, looks(config), simulation.step_s)
    camera = render.attachNewNode(Camera("camera", PerspectiveLens()))
    camera.node().getLens().setFov(NARROW_FIELD_OF_VIEW_DEG)
    simulation.step(Controls(throttle=1.0))
    view.update(1.0, simulation.step_s, pose_parts=False)
    # Far from the origin: a sphere taken in the wrong frame would miss the narrow lens.
    assert np.linalg.norm(view.position) > FAR_FROM_ORIGIN_M
    target = view.root.getPos(render)
    camera.setPos(target + Point3(0.0, -CAMERA_BACK_M, 0.0))
    camera.lookAt(target + Point3(0.0, -2.0 * CAMERA_BACK_M, 0.0))
    assert not seen(view, frustums_of(camera))
    assert not posed_if_seen(view, frustums_of(camera))
    camera.lookAt(target)
    assert seen(view, frustums_of(camera))
    assert posed_if_seen(view, frustums_of(camera))


def test_a_vehicle_under_the_sun_shadow_camera_is_posed(config, drive):
    simulation, vehicle = drive
    render = NodePath("render")
    view = VehicleView(render, vehicle, looks(config), simulation.step_s)
    lens = OrthographicLens()
    lens.setFilmSize(SHADOW_FILM_M, SHADOW_FILM_M)
    lens.setNearFar(0.0, 2.0 * CAMERA_BACK_M)
    sun = render.attachNewNode(Camera("sun", lens))
    simulation.step(Controls(throttle=1.0))
    view.update(1.0, simulation.step_s, pose_parts=False)
    target = Point3(*view.position)
    sun.setP(-90.0)  # looking straight down
    sun.setPos(target + Point3(2.0 * SHADOW_FILM_M, 0.0, CAMERA_BACK_M))
    assert not posed_if_seen(view, frustums_of(sun))
    sun.setPos(target + Point3(0.0, 0.0, CAMERA_BACK_M))
    assert posed_if_seen(view, frustums_of(sun))


def test_a_vehicle_far_from_every_eye_is_posed_on_its_turn_and_a_near_one_every_frame(
        config, drive):
    """Seen from within ``full_rate_within_m`` the parts move every frame; from farther,
    every ``far_every_frames``-th frame (the view's turn), and then exactly as a view
    posed every frame has them."""
    simulation, vehicle = drive
    detail = VehicleDetailSpec(full_rate_within_m=2.0 * CAMERA_BACK_M, far_every_frames=3)
    always = VehicleView(NodePath("render-always"), vehicle, looks(config), simulation.step_s)
    render = NodePath("render")
    view = VehicleView(render, vehicle, looks(config), simulation.step_s, parts_turn=4)
    camera = render.attachNewNode(Camera("camera", PerspectiveLens()))
    controls = Controls(throttle=1.0, steer=0.4)
    posed = []
    for frame in range(12):
        simulation.step(controls)
        always.update(1.0, simulation.step_s)
        view.update(1.0, simulation.step_s, pose_parts=False)
        aim_camera(camera, view, towards=True)
        eye_ws = np.array(camera.getPos(render))
        if frame >= 6:  # the player's eye backs off, beyond the full rate's reach
            eye_ws += (0.0, -2.0 * CAMERA_BACK_M, 0.0)
        pose_views_if_seen([view], frustums_of(camera), detail, [eye_ws], frame)
        posed.append(view.rig.parts_posed)
        if view.rig.parts_posed:
            np.testing.assert_allclose(parts_pose(view), parts_pose(always), rtol=0.0,
                                       atol=SAME_POSE)
    assert posed == [True] * 6 + [frame % 3 == 4 % 3 for frame in range(6, 12)]
