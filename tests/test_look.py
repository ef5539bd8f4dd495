"""The drawn tank rig and the chase camera against the headless simulation (no window).

Panda3D builds geometry and composes transforms without a window, so the rig is
built under a plain NodePath and compared with what the simulation reports.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from panda3d.core import NodePath, Point3, TransformState, Vec3

from game.sim.controls import Controls
from game.sim.simulation import Simulation
from game.view.camera import ChaseCamera
from game.view.rigs.tank_rig import TankRig
from physics.bullet.poses import body_state, ground_aligned_rotation
from physics.model.terrain import MapChoice, build_terrain

CONTACT_TOLERANCE_M = 0.01
CAMERA_CLEARANCE_M = 0.5


@pytest.fixture
def desert(config):
    simulation = Simulation(config.world, MapChoice.parse("desert"), seed=1)
    yield simulation
    simulation.destroy()


def make_rig(config, vehicle) -> tuple[NodePath, TankRig]:
    render = NodePath("render")
    rig = TankRig(render, vehicle, config.view.tank_rig, config.view.scene.vehicle_colour,
                  config.view.scene.track_colour)
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
    aim_gun(vehicle, math.radians(30.0), math.radians(10.0))
    for _ in range(90):
        desert.step(Controls(throttle=1.0))
        rig.update(1.0, desert.step_s)
    assert rig.travelled_m.min() > 0.5, "the tracks did not run forward"
    _, axes = rig.gun_pose_ws()
    body_axes = vehicle.current.axes_ws()
    bore_bs = body_axes @ axes[:, 1]
    assert math.degrees(math.atan2(bore_bs[0], bore_bs[1])) == pytest.approx(30.0, abs=0.5)
    assert math.degrees(math.asin(bore_bs[2])) == pytest.approx(10.0, abs=0.5)
    rig.destroy()


def aim_gun(vehicle, heading_rad: float, elevation_rad: float) -> None:
    """Point the vehicle's gun (test set-up), through its gun state."""
    vehicle.aim.turret_heading_rad, vehicle.aim.elevation_rad = heading_rad, elevation_rad


def test_the_drawn_muzzle_is_where_shells_leave(config, desert):
    """The drawn turret ring, trunnion height and muzzle match the tank's physics gun
    (exactly at zero elevation, the turret turned any way)."""
    from physics.model.ballistics import gun_axes
    vehicle = desert.player
    gun = vehicle.spec.gun
    render, rig = make_rig(config, vehicle)
    aim_gun(vehicle, math.radians(-70.0), 0.0)
    desert.step(Controls())
    rig.update(1.0)
    drawn = np.array(render.getRelativePoint(rig.gun, Point3(*rig.muzzle_bs)))
    muzzle, barrel = gun_axes(vehicle.current, gun, vehicle.aim)
    np.testing.assert_allclose(drawn, muzzle, atol=1e-3)
    _, axes = rig.gun_pose_ws()
    np.testing.assert_allclose(axes[:, 1], barrel, atol=1e-4)
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
    vehicle.current = vehicle.previous = body_state(vehicle.body)


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

    camera = ChaseCamera(camera_node, terrain, config.view.camera, ray)
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


# ----- combat view and wrecks --------------------------------------------------------

class FakeShell:
    def __init__(self, position, velocity, age_s=10.0):
        self.position_ws = np.array(position, dtype=float)
        self.velocity_ws = np.array(velocity, dtype=float)
        self.fired_at_s = FakeBattle.time_s - age_s


class FakePlate:
    def __init__(self, position, half_extents, heading_deg=0.0):
        self.position_ws = np.array(position, dtype=float)
        self.half_extents_m = tuple(half_extents)
        self.heading_deg = heading_deg


class FakeBattle:
    step_s = 1.0 / 60.0
    time_s = 100.0

    def __init__(self, terrain=None):
        self.shells, self.plates, self.terrain = [], [], terrain


def tracer_rows(view) -> np.ndarray:
    """The tracers' vertices: x, y, z, r, g, b, a per row."""
    geom = view.tracer_node.getGeom(0)
    data = geom.getVertexData()
    return np.frombuffer(memoryview(data.getArray(0)).cast("B"), np.float32).reshape(-1, 7)


def test_tracers_are_streaks_in_one_geom_rewritten_each_frame(config):
    from game.view.effects.combat_view import CombatView
    battle = FakeBattle()
    render = NodePath("render")
    view = CombatView(render, battle, config.view.combat_view)
    spec = config.view.combat_view
    children = view.root.getNumChildren()
    eye = np.array([0.0, -50.0, 10.0])
    view.update(1.0, eye)
    assert view.shown_tracers == 0 and len(tracer_rows(view)) == 0
    geom_address = view.tracer_node.getGeom(0).this  # no reference kept: it is not copied
    battle.shells = [FakeShell((0.0, 100.0, 5.0), (0.0, 1200.0, 0.0)),
                     FakeShell((10.0, 0.0, 2.0), (0.0, 1200.0, 0.0), age_s=5.0 / 1200.0),
                     FakeShell((-20.0, 50.0, 2.0), (300.0, 0.0, 40.0))]
    for alpha in (0.0, 0.5, 1.0):
        view.update(alpha, eye)
        assert view.tracer_node.getNumGeoms() == 1 and view.shown_tracers == 3
        assert view.tracer_node.getGeom(0).this == geom_address, "a Geom per frame"
        assert view.root.getNumChildren() == children, "a node per shell"
        rows = tracer_rows(view)
        assert len(rows) == 12
        heads = (rows[0::4, :3] + rows[1::4, :3]) / 2.0
        tails = (rows[2::4, :3] + rows[3::4, :3]) / 2.0
        expected = np.array([s.position_ws - s.velocity_ws * (1.0 - alpha) * battle.step_s
                             for s in battle.shells])
        np.testing.assert_allclose(heads, expected, atol=1e-3)
        length = np.linalg.norm(heads - tails, axis=1)
        assert length[0] == pytest.approx(spec.tracer_length_m, abs=1e-3)
        # Just fired 5 m ago: the streak reaches back to the muzzle, not beyond.
        assert length[1] == pytest.approx(max(5.0 - 20.0 * (1.0 - alpha), 0.0), abs=1e-3)
        width = np.linalg.norm(rows[0::4, :3] - rows[1::4, :3], axis=1)
        np.testing.assert_allclose(width, spec.tracer_width_m, atol=1e-4)
        assert np.all(rows[0::4, 6] == 1.0) and np.all(rows[2::4, 6] == 0.0), "tail fades"
    battle.shells = []
    view.update(1.0, eye)
    assert view.shown_tracers == 0 and len(tracer_rows(view)) == 0
    assert len(view.tracer_node.getGeom(0).getPrimitive(0).getVertexList()) == 0
    view.destroy()


def test_plates_are_steel_boxes_on_posts_in_the_ground(config):
    from game.view.effects.combat_view import CombatView
    terrain = build_terrain(MapChoice.parse("flat"), config.game.terrain, seed=1)
    battle = FakeBattle(terrain)
    ground = float(terrain.height_at(0.0, 100.0))
    battle.plates = [FakePlate((0.0, 100.0, ground + 2.0), (2.0, 0.05, 1.5)),
                     FakePlate((30.0, 300.0, ground + 2.0), (2.0, 0.05, 1.5), heading_deg=30.0)]
    render = NodePath("render")
    view = CombatView(render, battle, config.view.combat_view)
    view.update(1.0, np.zeros(3))
    view.update(1.0, np.zeros(3))
    assert len(view.plates) == 2
    for plate, path in zip(battle.plates, view.plates.values()):
        low, high = path.getTightBounds(render)
        np.testing.assert_allclose(np.array(path.getPos(render)), plate.position_ws, atol=1e-5)
        assert high[2] == pytest.approx(plate.position_ws[2] + 1.5, abs=1e-3)
        assert low[2] < ground - 0.1, "the posts do not reach into the ground"
        assert path.getH() == pytest.approx(-plate.heading_deg)
    battle.plates = battle.plates[:1]
    view.update(1.0, np.zeros(3))
    assert len(view.plates) == 1
    view.destroy()


def test_the_simulation_s_shells_are_drawn(config):
    """Against the real simulation: a shot leaves a tracer for each shell in flight."""
    from game.view.effects.combat_view import CombatView
    simulation = Simulation(config.world, MapChoice.parse("flat"), seed=1)
    try:
        render = NodePath("render")
        view = CombatView(render, simulation, config.view.combat_view)
        simulation.player.aim.reload_left_s = 0.0  # loaded
        for _ in range(3):
            simulation.step(Controls(fire=True))
        view.update(1.0, np.array([0.0, -20.0, 5.0]))
        assert view.shown_tracers == len(simulation.shells) > 0
        view.destroy()
    finally:
        simulation.destroy()


def hull_colours(rig) -> np.ndarray:
    node = rig.root.find("**/hull").node()
    data = node.getGeom(0).getVertexData()
    return np.frombuffer(memoryview(data.getArray(0)).cast("B"), np.float32).reshape(-1, 10)[
        :, 6:9].copy()


def test_a_destroyed_vehicle_is_drawn_as_a_burnt_wreck(config, desert):
    from game.view.rigs.vehicle_view import VehicleView
    vehicle = desert.player
    render = NodePath("render")
    view = VehicleView(render, vehicle, config.vehicle_looks)
    view.update(1.0)
    paint = hull_colours(view.rig)
    vehicle.destroyed = True
    view.update(1.0)
    assert view.wrecked
    np.testing.assert_allclose(hull_colours(view.rig),
                               paint * np.array(config.view.scene.wreck_shade), atol=1e-5)
    view.update(1.0)  # stays burnt, not burnt twice
    np.testing.assert_allclose(hull_colours(view.rig),
                               paint * np.array(config.view.scene.wreck_shade), atol=1e-5)
    vehicle.destroyed = False
    view.update(1.0)
    np.testing.assert_allclose(hull_colours(view.rig), paint, atol=1e-6)
    view.destroy()
