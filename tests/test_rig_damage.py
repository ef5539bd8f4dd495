"""A tank's damage drawn (game/view/rigs/rig_damage.py, broken_track.py): a destroyed track
lies on the ground off its wheels until it is mended, and a turret an ammo rack threw is
drawn where its body flies and lies until the round is over.

No window: Panda3D builds geometry and composes transforms under a plain NodePath, and the
rigs are drawn as the session view draws them (``update_views`` with the simulation's
thrown turrets), against the headless simulation.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from panda3d.core import GeomVertexReader, NodePath

import game.view.rigs.rig_pose as rig_pose
import game.view.rigs.track_belt as track_belt
from game.sim.controls import Controls
from game.sim.simulation import Simulation
from game.view.rigs.broken_track import BrokenBelts
from game.view.rigs.vehicle_view import VehicleLooks, VehicleView, update_views
from physics.model.parts import DAMAGED, DESTROYED, PART_NAMES
from physics.model.terrain import MapChoice
from tests.part_losses import losses

SETTLE_S = 1.0
SAME_M = 1e-4
"""Metres: float32 vertex rows and node transforms."""
ON_ANCHOR_M = 0.01
"""A road wheel's contact stands this close to its anchor's."""
BLOW_UP = 1000.0
"""Hit points that destroy any part."""
THROWN_FLIGHT_STEPS = 30
RUN_STEPS = 60
DUNE_STEPS = 240
DUNE_SPREAD_M = 0.03
LEFT, RIGHT = 0, 1


@pytest.fixture
def flat(config):
    simulation = Simulation(config.world, MapChoice("flat"), seed=1)
    for _ in range(round(SETTLE_S / simulation.step_s)):
        simulation.step(Controls())
    yield simulation
    simulation.destroy()


def looks(config) -> VehicleLooks:
    return VehicleLooks(config.view.tank_rig, config.view.car_rig, config.view.scene)


def draw(views, simulation, alpha: float = 1.0) -> None:
    """One frame, as the session view draws it."""
    update_views(views, alpha, simulation.step_s, True, simulation.thrown_turrets)


def strike(simulation, vehicle, part: str) -> None:
    simulation.combat.parts.strike(vehicle, losses(**{part: BLOW_UP}), vehicle)


def belt_rows(belts) -> np.ndarray:
    """(2, R, 12) both belts' vertex rows as a belts mesh (a rig's, or a track it dropped)
    holds them, the left's first."""
    belts = belts.belts[0] if hasattr(belts, "belts") else belts
    data = belts.node().getGeom(0).getVertexData()
    rows = np.frombuffer(memoryview(data.getArray(0)).cast("B"), dtype=np.float32)
    return rows.reshape(2, -1, 12).copy()


def folded_away(rows: np.ndarray) -> bool:
    """Whether one belt's rows are all at one point: nothing of it drawn."""
    return bool(np.ptp(rows[:, :3], axis=0).max() == 0.0)


def faces_agree_with_normals(belts) -> bool:
    """Whether every triangle of a belts mesh that has an area faces the way its vertices'
    normals point (else it is drawn inside out)."""
    belts = belts.belts[0] if hasattr(belts, "belts") else belts
    geom = belts.node().getGeom(0)
    rows = belt_rows(belts).reshape(-1, 12)
    primitive = geom.getPrimitive(0).decompose()
    reader = GeomVertexReader(primitive.getVertices(), 0)
    corners = []
    while not reader.isAtEnd():
        corners.append(reader.getData1i())
    triangles = np.array(corners).reshape(-1, 3)
    p = rows[triangles, :3].astype(np.float64)
    face = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
    area = np.linalg.norm(face, axis=1)
    facing = np.einsum("ti,ti->t", face, rows[triangles[:, 0], 3:6])
    return bool(np.all(facing[area > 1e-8] > 0.0))


@pytest.mark.parametrize("loops", ["compiled", "numpy"])
def test_a_destroyed_track_lies_on_the_ground_until_it_is_mended(config, flat, simulate_until,
                                                                 monkeypatch, loops):
    if loops == "numpy":  # as where numba is not there
        for loop in ("blend_hulls_loop", "track_motion_loop", "wheel_poses_loop"):
            monkeypatch.setattr(rig_pose, loop, None)
        monkeypatch.setattr(track_belt, "belt_rows_loop", None)
    tank = flat.player
    render = NodePath("render")
    view = VehicleView(render, tank, looks(config), flat.step_s)
    rig, spec = view.rig, config.view.tank_rig
    draw([view], flat)
    whole = belt_rows(rig)
    assert not isinstance(rig.belt_data, BrokenBelts), "a whole tank pays for broken tracks"
    top_z = rig.drive_centres[LEFT][2] + spec.drive_wheel_radius_m
    assert whole[:, :, 2].max(axis=1) == pytest.approx([top_z + spec.track_thickness_m] * 2,
                                                       abs=SAME_M)

    strike(flat, tank, "left_track")
    assert tank.parts.state("left_track") == DESTROYED
    flat.step(Controls(throttle=1.0))
    draw([view], flat)
    on_rig = belt_rows(rig)
    assert folded_away(on_rig[LEFT]), "a belt still round the broken side's wheels"
    assert on_rig[RIGHT, :, 2].max() == pytest.approx(top_z + spec.track_thickness_m,
                                                      abs=SAME_M)
    dropped = rig.damage.dropped[LEFT]
    assert dropped.getParent() == render and rig.damage.dropped[RIGHT] is None
    lying = belt_rows(dropped)
    assert folded_away(lying[RIGHT])
    road = len(rig.station_y[LEFT])
    ground_z = rig.shown_wheel_z[:road] - rig.wheel_lift_m
    assert np.ptp(ground_z) < SAME_M * 100, "not standing level on the flat"
    left = lying[LEFT]
    assert left[:, 2].min() == pytest.approx(ground_z.mean(), abs=SAME_M * 10)
    assert left[:, 2].max() == pytest.approx(ground_z.mean() + spec.track_thickness_m,
                                             abs=SAME_M * 10), "the left belt is not flat"
    rear_wheel_y = rig.station_y[LEFT][0]
    assert left[:, 1].min() == pytest.approx(rear_wheel_y - spec.broken_track_trail_m,
                                             abs=SAME_M), "it does not trail behind"
    assert left[:, 0].min() < whole[LEFT, :, 0].min() - spec.broken_track_slew_m / 2
    assert faces_agree_with_normals(dropped)
    laid_at = np.array(dropped.getMat(render))
    heading_before = tank.current.axes_ws()[1].copy()

    runs = []
    for _ in range(RUN_STEPS):  # the right track drives it round: only the right belt runs
        flat.step(Controls(throttle=1.0))
        draw([view], flat)
        runs.append(belt_rows(rig)[:, :, 10])
    assert np.abs(runs[-1][RIGHT] - runs[0][RIGHT]).max() > 1.0
    swung_deg = math.degrees(math.acos(min(1.0, float(heading_before
                                                      @ tank.current.axes_ws()[1]))))
    assert swung_deg > 5.0, "the tank did not swing round its broken track"
    assert np.array(dropped.getMat(render)) == pytest.approx(laid_at, abs=SAME_M), \
        "the lying track moved with the hull"
    assert np.array_equal(belt_rows(dropped), lying), "the lying track changed"
    anchors = tank.anchors()
    left_anchors = np.flatnonzero(tank.constants.position_bs[:, 0] < 0.0)
    drawn = rig.anchor_contacts_ws()[left_anchors]
    assert np.linalg.norm(drawn - anchors.contact_point_ws[left_anchors], axis=1).max() \
        < ON_ANCHOR_M, "the left road wheels left their anchors"

    simulate_until(flat, lambda s: tank.parts.state("left_track") == DAMAGED,
                   tank.parts.repair_s[PART_NAMES.index("left_track")] + SETTLE_S,
                   Controls(brake=1.0))
    draw([view], flat)
    mended = belt_rows(rig)
    assert not isinstance(rig.belt_data, BrokenBelts)
    assert rig.damage.dropped == [None, None] and dropped.isEmpty(), "it was not picked up"
    assert mended[:, :, 2].max(axis=1) == pytest.approx([top_z + spec.track_thickness_m] * 2,
                                                        abs=SAME_M)
    assert mended[LEFT, :, 1].min() > rear_wheel_y - spec.drive_wheel_gap_m \
        - spec.drive_wheel_radius_m - spec.track_thickness_m - SAME_M
    assert faces_agree_with_normals(rig)
    view.destroy()


def test_on_the_dunes_a_track_lies_where_its_road_wheels_stood(config):
    """Broken on the dunes, the track is laid under the road wheels as they stood (each at
    its own height), and stays there as the tank drives on."""
    desert = Simulation(config.world, MapChoice.parse("desert"), seed=1)
    tank = desert.player
    render = NodePath("render")
    view = VehicleView(render, tank, looks(config), desert.step_s)
    rig, spec = view.rig, config.view.tank_rig
    for _ in range(DUNE_STEPS):  # over the dunes
        desert.step(Controls(throttle=1.0, steer=0.3))
        draw([view], desert)
    road = len(rig.station_y[RIGHT])
    wheel_z = rig.shown_wheel_z[road:2 * road].copy()
    assert np.ptp(wheel_z) > DUNE_SPREAD_M, "the dunes never lifted one wheel above another"
    strike(desert, tank, "right_track")
    draw([view], desert)  # the parts change in a step: the rig looks at the next
    desert.step(Controls(throttle=1.0, steer=0.3))
    draw([view], desert)
    dropped = rig.damage.dropped[RIGHT]
    right = belt_rows(dropped)[RIGHT]
    for y, z in zip(rig.station_y[RIGHT], wheel_z):
        under = right[np.abs(right[:, 1] - y) < SAME_M]
        assert len(under), "no row under a road wheel"
        assert under[:, 2].max() == pytest.approx(z - spec.road_wheel_radius_m, abs=SAME_M * 10)
    laid_at, start = np.array(dropped.getMat(render)), tank.current.position_ws.copy()
    for _ in range(RUN_STEPS):
        desert.step(Controls(throttle=1.0, steer=0.3))
        draw([view], desert)
    assert np.linalg.norm(tank.current.position_ws - start) > 1.0
    assert np.array(dropped.getMat(render)) == pytest.approx(laid_at, abs=SAME_M)
    view.destroy()
    assert dropped.isEmpty(), "the lying track outlived its rig"
    desert.destroy()


def turret_pose(view, render) -> tuple[np.ndarray, np.ndarray]:
    turret = view.rig.turret
    return np.array(turret.getPos(render)), np.array(turret.getQuat(render))


def same_rotation(drawn: np.ndarray, expected: np.ndarray) -> bool:
    return abs(abs(float(np.dot(drawn, expected))) - 1.0) < SAME_M


def test_a_thrown_turret_is_drawn_at_its_body_until_the_round_is_over(config, flat):
    render = NodePath("render")
    x_m, y_m = flat.player.current.position_ws[:2].tolist()
    flat.spawn("tank", "other", x_m + 20.0, y_m, 0.0)
    tank, other = flat.player, flat.vehicle_named("other")
    views = [VehicleView(render, vehicle, looks(config), flat.step_s)
             for vehicle in (tank, other)]
    draw(views, flat)
    on_hull = [np.array(view.rig.turret.getPos()) for view in views]
    gun_on_turret = np.array(views[0].rig.gun.getPos(views[0].rig.turret))

    strike(flat, tank, "ammo_rack")
    (thrown,) = flat.thrown_turrets
    assert thrown.vehicle == tank.name
    for _ in range(THROWN_FLIGHT_STEPS):  # drawn every step, as a game is
        flat.step(Controls())
        draw(views, flat)
    before = thrown.pose()
    flat.step(Controls())
    after = thrown.pose()
    draw(views, flat, alpha=1.0)
    position, quaternion = turret_pose(views[0], render)
    assert np.linalg.norm(position - after[0]) < SAME_M
    assert same_rotation(quaternion, after[1])
    assert position[2] - tank.current.position_ws[2] > 1.0, "not thrown up"
    assert np.linalg.norm(np.array(views[0].rig.gun.getPos(views[0].rig.turret))
                          - gun_on_turret) < SAME_M, "the gun stayed behind"
    draw(views, flat, alpha=0.5)  # blended between the last two steps, like the hull
    position, _ = turret_pose(views[0], render)
    assert np.linalg.norm(position - (before[0] + after[0]) / 2.0) < SAME_M
    assert np.linalg.norm(np.array(views[1].rig.turret.getPos()) - on_hull[1]) < SAME_M

    flat.combat.clear()  # a new round: the thrown turret is gone
    assert not flat.thrown_turrets
    draw(views, flat)
    assert np.linalg.norm(np.array(views[0].rig.turret.getPos()) - on_hull[0]) < SAME_M
    heading_deg = -np.degrees(tank.turret_heading_rad)
    assert views[0].rig.turret.getH() == pytest.approx(heading_deg, abs=1e-3)
    assert views[0].rig.turret.getP() == pytest.approx(0.0, abs=1e-3)
    assert views[0].rig.turret.getR() == pytest.approx(0.0, abs=1e-3)
    for view in views:
        view.destroy()
