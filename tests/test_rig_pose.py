"""Tank rigs posed together (game/view/rigs/rig_pose.py) look exactly as each posed alone.

The batched pass works out every seen tank's wheel heights, spins and belt rows in a few
numpy operations over all of them. The reference here is the per-tank computation it
replaced: each anchor's ground distance from the vehicle's own AnchorView, np.interp
along each side, the wheels' spin from the metres each track ran, and the belt's rows
built strip by strip. Several tanks drive in different ways (turning either way, on
dunes, pivoting, one stopping, one burnt) and are drawn at several alphas per step, and
again with no time passing (as paused: nothing changes, nothing is rewritten); every
wheel, spinner and belt vertex must agree.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from panda3d.core import NodePath

import game.view.rigs.rig_pose as rig_pose
from game.sim.controls import Controls
from game.sim.simulation import Simulation
from game.view.rigs.track_belt import (EDGE_TEXTURE_V, MIN_TANGENT_LENGTH_M, BeltShape,
                                  BeltTemplate, belt_path, belt_rows_batch)
from game.view.rigs.vehicle_view import VehicleLooks, VehicleView, pose_views, update_views
from physics.model.terrain import MapChoice

SAME = 1e-5
"""Metres (and radians, and texture units): float32 rows and poses."""
TANKS = (("east", 30.0, 10.0, 90.0, Controls(throttle=1.0, steer=0.6)),
         ("west", -25.0, -15.0, 200.0, Controls(throttle=0.8, steer=-0.4)),
         ("north", 5.0, 40.0, 10.0, Controls(throttle=0.6, steer=1.0)))
"""Tanks besides the player: name, where (x, y), heading (degrees) and how they drive."""
STEPS = 80
STOP_STEP = 60
WRECK_STEP = 40
ALPHAS = (0.35, 1.0, 1.0)
"""Each step is drawn at these alphas, a frame each (the last twice: paused)..."""
FRAME_SHARES = (0.35, 0.65, 0.0)
"""... each frame this share of a step long."""


# ----- the per-tank reference ---------------------------------------------------------

def same_angle(drawn: float, expected: float) -> bool:
    """Whether two angles (radians) are one, a whole number of turns aside."""
    apart = math.remainder(float(drawn) - float(expected), math.tau)
    return abs(apart) <= SAME


def reference_strip(yz_a, x_a, yz_b, x_b, normal, u, v_a, v_b):
    count = len(yz_a)
    positions = np.empty((2 * count, 3))
    positions[0::2] = np.column_stack([np.full(count, x_a), yz_a])
    positions[1::2] = np.column_stack([np.full(count, x_b), yz_b])
    uv = np.empty((2 * count, 2))
    uv[:, 0] = np.repeat(u, 2)
    uv[0::2, 1], uv[1::2, 1] = v_a, v_b
    return positions, np.repeat(normal, 2, axis=0), uv


def reference_belt_rows(shape: BeltShape, centre_z, travelled_m: float, colour) -> np.ndarray:
    inner = belt_path(shape, centre_z)
    inner = np.vstack([inner, inner[:1]])
    tangent = np.roll(inner[:-1], -1, axis=0) - np.roll(inner[:-1], 1, axis=0)
    tangent /= np.maximum(np.linalg.norm(tangent, axis=1, keepdims=True),
                          MIN_TANGENT_LENGTH_M)
    tangent = np.vstack([tangent, tangent[:1]])
    outward = np.stack([-tangent[:, 1], tangent[:, 0]], axis=1)
    outer = inner + outward * shape.thickness_m
    arc = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(inner, axis=0), axis=1))])
    links = max(round(arc[-1] / shape.link_length_m), 1)
    u = (arc - travelled_m) * links / arc[-1]
    x0 = shape.track_x_m - shape.half_width_m
    x1 = shape.track_x_m + shape.half_width_m
    count = len(inner)
    out_n = np.hstack([np.zeros((count, 1)), outward])
    side_n = np.tile([1.0, 0.0, 0.0], (count, 1))
    parts = [reference_strip(outer, x0, outer, x1, out_n, u, 0.0, 1.0),
             reference_strip(inner, x1, inner, x0, -out_n, u, 1.0, 0.0),
             reference_strip(inner, x1, outer, x1, side_n, u, 0.0, EDGE_TEXTURE_V),
             reference_strip(outer, x0, inner, x0, -side_n, u, EDGE_TEXTURE_V, 0.0)]
    rows = [np.concatenate([p[k] for p in parts]) for k in range(3)]
    colours = np.tile(np.append(np.asarray(colour, dtype=np.float64), 1.0), (len(rows[0]), 1))
    return np.hstack([rows[0], rows[1], colours, rows[2]])


def reference_track_speeds(vehicle) -> np.ndarray:
    state = vehicle.current
    right, forward, _ = state.axes_ws()
    track_x = vehicle.fleet.constants.position_bs[:, 0]
    speeds = []
    for side in (track_x < 0.0, track_x > 0.0):
        lever = right * track_x[side].mean()
        point_velocity = state.velocity_ws + np.cross(state.angular_velocity_ws, lever)
        speeds.append(float(point_velocity @ forward))
    return np.array(speeds)


def reference_distances(vehicle, rest_length_m: float) -> np.ndarray:
    anchors = vehicle.anchors()
    if anchors is None:
        return np.full(len(vehicle.fleet.constants.position_bs), rest_length_m)
    along = np.einsum("ai,ai->a", anchors.contact_point_ws - anchors.origin_ws,
                      anchors.direction_ws)
    return np.where(anchors.on_ground, along, anchors.rest_length_m)


class ReferenceTank:
    """What the per-tank code kept: the last two steps' values and the tracks' run."""

    def __init__(self, rig):
        self.rig = rig
        self.steps = [None, None]
        self.seen = None
        self.travelled_m = np.zeros(2)

    def update(self, frame_s: float) -> None:
        vehicle = self.rig.vehicle
        if vehicle.current is not self.seen:
            self.seen = vehicle.current
            value = (reference_distances(vehicle, self.rig.rest_length_m),
                     reference_track_speeds(vehicle))
            self.steps = [value if self.steps[1] is None else self.steps[1], value]
        self.travelled_m = self.travelled_m + self.steps[1][1] * frame_s

    def check(self, alpha: float) -> None:
        """Every wheel, spinner and belt vertex of the rig against the reference."""
        rig = self.rig
        spec = rig.spec
        previous, current = self.steps[0][0], self.steps[1][0]
        distances = previous + (current - previous) * alpha
        left = rig.anchors_bs[:, 0] < 0.0
        drawn_wheels = rig.wheels.poses  # what the WHEELS shader reads: centre, spin
        wheel = 0
        for side, on_side in enumerate((left, ~left)):
            order = np.argsort(rig.anchors_bs[on_side, 1])
            ys = rig.anchors_bs[on_side, 1][order]
            ground_z = (rig.anchors_bs[on_side, 2] - distances[on_side])[order]
            centre_z = (np.interp(rig.station_y[side], ys, ground_z) + spec.track_thickness_m
                        + spec.road_wheel_radius_m)
            spin = -self.travelled_m[side] / spec.road_wheel_radius_m
            for y, z in zip(rig.station_y[side], centre_z):
                np.testing.assert_allclose(drawn_wheels[wheel, :3],
                                           (rig.shape.track_x[side], y, z), atol=SAME)
                assert same_angle(drawn_wheels[wheel, 3], spin)
                wheel += 1
            rows = reference_belt_rows(rig.belt_shapes[side], centre_z, self.travelled_m[side],
                                       rig.belt_colour)
            drawn = np.frombuffer(memoryview(rig.belt_data.getArray(0)).cast("B"),
                                  dtype=np.float32).reshape(2, *rows.shape)[side]
            np.testing.assert_allclose(drawn, rows, atol=SAME)
        for index, side in enumerate(rig.drive_wheel_sides):
            rear_y, front_y, drive_z = rig.drive_centres[side]
            drawn = drawn_wheels[wheel + index]
            np.testing.assert_allclose(drawn[:3], (rig.shape.track_x[side],
                                                   (rear_y, front_y)[index % 2], drive_z),
                                       atol=SAME)
            assert same_angle(drawn[3], -self.travelled_m[side] / spec.drive_wheel_radius_m)


# ----- tests --------------------------------------------------------------------------

@pytest.fixture
def battle(config):
    """The player and three more tanks on the dunes, each driving its own way."""
    simulation = Simulation(config.world, MapChoice.parse("desert"), seed=4)
    for name, x, y, heading, _ in TANKS:
        simulation.spawn("tank", name, x, y, heading)
    yield simulation
    simulation.destroy()


def looks(config) -> VehicleLooks:
    return VehicleLooks(config.view.tank_rig, config.view.car_rig, config.view.scene)


@pytest.mark.parametrize("loops", ["compiled", "numpy"])
def test_tanks_posed_together_match_each_posed_by_the_per_tank_reference(config, battle,
                                                                         monkeypatch, loops):
    if loops == "numpy":  # as where numba is not there
        for loop in ("blend_hulls_loop", "track_motion_loop", "wheel_poses_loop"):
            monkeypatch.setattr(rig_pose, loop, None)
    render = NodePath("render")
    views = [VehicleView(render, vehicle, looks(config), battle.step_s)
             for vehicle in battle.vehicles]
    references = [ReferenceTank(view.rig) for view in views]
    others = {name: controls for name, _, _, _, controls in TANKS}
    for step in range(STEPS):
        if step == STOP_STEP:  # one stands still (its parts are left as they are)
            others["north"] = Controls(throttle=0.0, brake=1.0)
        if step == WRECK_STEP:  # one's belts are burnt
            views[1].rig.set_belt_shade(config.view.scene.wreck_shade)
        battle.step(Controls(throttle=1.0, steer=-0.3), others)
        for index, alpha in enumerate(ALPHAS):
            frame_s = battle.step_s * FRAME_SHARES[index]
            seen = views if step % 3 else views[::2]  # some frames, only some are seen
            update_views(views, alpha, frame_s, pose_parts=False)
            pose_views(seen)
            for view, reference in zip(views, references):
                reference.update(frame_s)
                np.testing.assert_allclose(view.rig.travelled_m, reference.travelled_m,
                                           atol=SAME)
                if view in seen:
                    reference.check(alpha)
    assert all(np.abs(reference.travelled_m).max() > 0.1 for reference in references), \
        "every tank's tracks ran"


def test_the_fleet_track_speeds_match_each_vehicle_alone(config, battle):
    others = {name: controls for name, _, _, _, controls in TANKS}
    for _ in range(30):
        battle.step(Controls(throttle=1.0, steer=1.0), others)
    expected = [reference_track_speeds(vehicle) for vehicle in battle.vehicles]
    assert max(abs(left - right) for left, right in expected) > 0.05, "some tank turns"
    for vehicle, speeds in zip(battle.vehicles, expected):
        np.testing.assert_allclose(vehicle.track_speeds_mps(), speeds, rtol=1e-12, atol=1e-12)


def test_batched_belt_rows_match_the_per_belt_reference():
    rng = np.random.default_rng(7)
    stations = np.array([-2.0, -1.2, -0.4, 0.4, 1.2, 2.0])
    shapes = [BeltShape(track_x_m=x, half_width_m=0.25, stations_y=stations + shift,
                        rear_y_m=-2.6 + shift, front_y_m=2.6 + shift, drive_z_m=0.3,
                        road_wheel_radius_m=0.34, drive_wheel_radius_m=0.3, thickness_m=0.08,
                        link_length_m=link, arc_segments=6)
              for x, shift, link in ((-1.1, 0.0, 0.32), (1.1, 0.0, 0.32), (-0.9, 0.3, 0.25))]
    centre_z = rng.uniform(-0.3, 0.3, (len(shapes), len(stations)))
    travelled = rng.uniform(-20.0, 20.0, len(shapes))
    colours = rng.uniform(0.0, 1.0, (len(shapes), 3))
    rows = belt_rows_batch(BeltTemplate.of(shapes), centre_z, travelled, colours)
    for k, shape in enumerate(shapes):
        expected = reference_belt_rows(shape, centre_z[k], travelled[k], colours[k])
        np.testing.assert_allclose(rows[k], expected.astype(np.float32), atol=1e-6)


def test_a_tanks_wheels_are_one_mesh_and_the_fixed_pieces_are_one_node_each(
        config, battle):
    view = VehicleView(NodePath("render"), battle.player, looks(config), battle.step_s)
    rig = view.rig
    wheels = rig.root.findAllMatches("wheels")
    assert wheels.getNumPaths() == 1 and wheels[0].node().getNumGeoms() == 1
    road = sum(len(stations) for stations in rig.station_y)
    assert rig.wheels.count == road + len(rig.drive_wheel_sides)
    data = wheels[0].node().getGeom(0).getVertexData()
    index = np.frombuffer(memoryview(data.getArray(0)).cast("B"), dtype=np.float32)
    index = index.reshape(data.getNumRows(), -1)[:, -1]  # the "wheel" column, last
    assert set(index.tolist()) == set(range(rig.wheels.count))
    assert rig.root.find("**/wheel-mount").isEmpty()  # no node per wheel
    assert rig.root.findAllMatches("hull").getNumPaths() == 1
    assert rig.root.find("hull").node().getNumGeoms() == 1
    turret_pieces = [child for child in rig.turret.getChildren() if child.name != "gun"]
    assert len(turret_pieces) == 1 and turret_pieces[0].node().getNumGeoms() == 1
    assert rig.gun.getNumChildren() == 1
