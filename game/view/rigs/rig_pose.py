"""The tanks' moving parts posed in one pass over all of them, not one tank after another.

What a tank rig reads once per step (each anchor's distance to the ground, each track's
ground speed) is read for every tank of a fleet at once from the fleet's arrays
(:func:`latch_step_values`); what it shows once per frame (the road wheels' heights, the
wheels' spin, both belts' vertex rows) is worked out for all the tanks seen this frame
in a few numpy operations (:func:`pose_tank_parts`), and so are the hulls' blended poses,
their rotations and the tracks' run (:func:`place_tank_rigs`); the per-step reads, the
hulls' poses and the wheels' are compiled loops where numba is there
(:mod:`game.view.rigs.rig_kernel`). Only the writes into Panda's memory remain one tank after
another (its hull's transform, its turret's and gun's angles where they changed, its
wheels' pose array, :mod:`game.view.rigs.wheel_set`, and its belts' vertex buffers), and the
parts' only where they changed since last shown: a tank standing still rewrites no parts
(each vertex buffer written is one to upload again).
"""

from __future__ import annotations

import math

import numpy as np
from panda3d.core import LQuaternionf, Point3

from game.sim.vehicles import Vehicle, side_track_x_m
from game.view.rigs.rig_kernel import blend_hulls_loop, track_motion_loop, wheel_poses_loop
from game.view.rigs.track_belt import BeltTemplate, belt_rows_batch
from physics.model.pose import blend_pose_arrays


def wheel_height_weights(anchors_bs: np.ndarray, sides: list[np.ndarray],
                         stations_y: list[np.ndarray]) -> np.ndarray:
    """(W, A): the road wheels' centre heights (side by side, rear to front) as weights on
    the anchors' ground heights: on each side, ``np.interp`` of the wheels' stations along
    that side's anchors (``sides``: the anchor indices of each side), which is linear in
    the heights and so the same map every frame."""
    rows = []
    for on_side, stations in zip(sides, stations_y):
        order = on_side[np.argsort(anchors_bs[on_side, 1])]
        weights = np.zeros((len(stations), len(anchors_bs)))
        for place, anchor in enumerate(order):
            unit = np.zeros(len(order))
            unit[place] = 1.0
            weights[:, anchor] = np.interp(stations, anchors_bs[order, 1], unit)
        rows.append(weights)
    return np.vstack(rows)


def anchor_distances(report, index: np.ndarray, rest_length_m: float) -> np.ndarray:
    """(V, A) each anchor's distance from its origin to the ground along its ray, for the
    fleet's vehicles ``index``, from the controller's last substep (the unloaded length
    where it is off the ground)."""
    along = np.einsum("vai,vai->va", report.contact_point_ws[index] - report.origin_ws[index],
                      report.direction_ws[index])
    return np.where(report.on_ground[index], along, rest_length_m)


def track_speeds(velocity_ws: np.ndarray, spin_ws: np.ndarray, axes_ws: np.ndarray,
                 side_x_m: np.ndarray) -> np.ndarray:
    """(V, 2) ground speed along the hull (+ forward) under the left and right tracks of V
    bodies: velocities and spins (V, 3), axes (V, 3, 3) as rows, the tracks ``side_x_m``
    across the hull. The numbers of :func:`game.sim.vehicles.track_speeds_mps`, with the
    cross product written out (np.cross costs more than its arithmetic on small arrays)."""
    right, forward = axes_ws[:, 0], axes_ws[:, 1]
    turning_ws = np.stack([spin_ws[:, 1] * right[:, 2] - spin_ws[:, 2] * right[:, 1],
                           spin_ws[:, 2] * right[:, 0] - spin_ws[:, 0] * right[:, 2],
                           spin_ws[:, 0] * right[:, 1] - spin_ws[:, 1] * right[:, 0]], axis=1)
    along = np.einsum("vi,vi->v", velocity_ws, forward)
    turning = np.einsum("vi,vi->v", turning_ws, forward)
    return along[:, None] + turning[:, None] * side_x_m[None, :]


class _SideTracks:
    """Each fleet's tracks across the hull (:func:`side_track_x_m`), worked out once per
    fleet's constants."""

    by_constants: dict = {}

    @classmethod
    def of(cls, constants) -> np.ndarray:
        key = id(constants)
        kept = cls.by_constants.get(key)
        if kept is None or kept[0] is not constants:
            kept = cls.by_constants[key] = (constants, side_track_x_m(constants.position_bs))
        return kept[1]


def latch_step_values(rigs) -> None:
    """Latch the per-step values of every tank rig in ``rigs`` whose vehicle stepped since
    it last looked, read one fleet's vehicles of one kind at a time; the others (no fleet report yet, a network
    client's vehicles) read their own when they update."""
    fleets: dict[tuple[int, int], list] = {}
    for rig in rigs:
        vehicle = rig.vehicle
        if rig.step_latch.stale(vehicle.current) and isinstance(vehicle, Vehicle):
            fleets.setdefault((id(vehicle.fleet), id(vehicle.constants)), []).append(rig)
    for group in fleets.values():
        first = group[0].vehicle
        report = first.fleet.model.report
        if report is None:
            continue
        index = np.array([rig.vehicle.index for rig in group])
        states = [rig.vehicle.current for rig in group]
        distances, speeds = _track_motion(report, index, first.constants, states)
        for rig, state, distance, speed in zip(group, states, distances, speeds):
            rig.step_latch.offer(state, (distance, speed))


def _track_motion(report, index: np.ndarray, constants, states
                  ) -> tuple[np.ndarray, np.ndarray]:
    """(V, A) :func:`anchor_distances` and (V, 2) :func:`track_speeds` of the fleet's
    vehicles ``index``, whose states are ``states``."""
    velocity_ws = np.array([state.velocity_ws for state in states])
    spin_ws = np.array([state.angular_velocity_ws for state in states])
    axes_ws = np.array([state.axes_ws() for state in states])
    side_x_m = _SideTracks.of(constants)
    rest_length_m = float(constants.rest_length_m)
    if track_motion_loop is None:
        return (anchor_distances(report, index, rest_length_m),
                track_speeds(velocity_ws, spin_ws, axes_ws, side_x_m))
    distances = np.empty((len(index), report.on_ground.shape[1]))
    speeds = np.empty((len(index), len(side_x_m)))
    track_motion_loop(report.contact_point_ws, report.origin_ws, report.direction_ws,
                      report.on_ground, index, rest_length_m, velocity_ws, spin_ws, axes_ws,
                      side_x_m, distances, speeds)
    return distances, speeds


def blend_hull_poses(rigs, alpha: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each rig's hull pose ``alpha`` of the way from its vehicle's previous step to the
    last, all rigs at once: positions (R, 3), orientation quaternions (R, 4) and rotation
    matrices (R, 3, 3)."""
    previous_ws = np.array([rig.vehicle.previous.position_ws for rig in rigs], np.float64)
    current_ws = np.array([rig.vehicle.current.position_ws for rig in rigs], np.float64)
    previous_q = np.array([rig.vehicle.previous.orientation_ws for rig in rigs], np.float64)
    current_q = np.array([rig.vehicle.current.orientation_ws for rig in rigs], np.float64)
    if blend_hulls_loop is None:
        position, orientation = blend_pose_arrays(previous_ws, current_ws, previous_q,
                                                  current_q, alpha)
        return position, orientation, rotation_matrices(orientation)
    count = len(rigs)
    position, orientation = np.empty((count, 3)), np.empty((count, 4))
    rotation = np.empty((count, 3, 3))
    blend_hulls_loop(previous_ws, current_ws, previous_q, current_q, float(alpha), position,
                     orientation, rotation)
    return position, orientation, rotation


def rotation_matrices(quaternion: np.ndarray) -> np.ndarray:
    """(R, 3, 3) :func:`physics.model.pose.rotation_matrix` of each (w, x, y, z) row of
    ``quaternion`` (R, 4), the same numbers written straight into one array (stacking
    nine small arrays costs more than the arithmetic)."""
    w, x, y, z = quaternion.T
    matrix = np.empty((len(quaternion), 3, 3))
    matrix[:, 0, 0] = 1 - 2 * (y * y + z * z)
    matrix[:, 0, 1] = 2 * (x * y - w * z)
    matrix[:, 0, 2] = 2 * (x * z + w * y)
    matrix[:, 1, 0] = 2 * (x * y + w * z)
    matrix[:, 1, 1] = 1 - 2 * (x * x + z * z)
    matrix[:, 1, 2] = 2 * (y * z - w * x)
    matrix[:, 2, 0] = 2 * (x * z - w * y)
    matrix[:, 2, 1] = 2 * (y * z + w * x)
    matrix[:, 2, 2] = 1 - 2 * (x * x + y * y)
    return matrix


def place_tank_rigs(rigs, alpha: float, frame_s: float) -> None:
    """Every rig of ``rigs`` (tank rigs) at its hull pose ``alpha`` of the way from its
    vehicle's previous step to the last, its tracks run on by ``frame_s`` at their ground
    speeds: the numbers for all rigs at once, then one short loop of node writes. Their
    turrets, guns, wheels and belts wait for :func:`pose_tank_parts` (a rig no camera sees
    needs none of them)."""
    if not rigs:
        return
    pairs = [rig.step_latch.update(rig.vehicle.current) for rig in rigs]
    travelled = (np.array([rig.travelled_m for rig in rigs])
                 + np.array([pair[1][1] for pair in pairs]) * frame_s)
    position, orientation, rotation = blend_hull_poses(rigs, alpha)
    for rig, pair, run, place, turn, where, facing in zip(
            rigs, pairs, travelled, position, rotation, position.tolist(),
            orientation.tolist()):
        rig.step_pair, rig.step_alpha, rig.travelled_m = pair, alpha, run
        rig.position, rig.rotation = place, turn
        rig.root.setPosQuat(Point3(*where), LQuaternionf(*facing))
        rig.parts_posed = False


def _layout(rig) -> tuple[int, int, int]:
    """Rigs batched together have as many anchors, road wheels and belt points."""
    return (rig.anchors_bs.shape[0], rig.wheel_weights.shape[0],
            rig.belt_template.path_y.shape[1])


_STACKS_KEPT = 8
"""Rig groups whose stacks are kept: the rigs seen together (all near ones, and the far
ones posed in turns, :func:`game.view.rigs.vehicle_view.pose_views_if_seen`) come round again
frame after frame."""


class _Stacked:
    """What the rigs of a group keep fixed from their build (belt templates, anchors'
    heights, wheel weights and lift, wheel radii; the sprockets' and idlers' sides, the
    same for all of a layout), stacked over the group: kept with the rigs it was stacked
    from (so that their ids stay theirs), the same group of tanks seen frame after frame
    stacks once."""

    _kept: dict[tuple[int, ...], _Stacked] = {}
    """The last :data:`_STACKS_KEPT` groups' stacks, by their rigs' ids, oldest first."""

    def __init__(self, rigs: list):
        self.rigs = list(rigs)
        self.template = BeltTemplate.stack([rig.belt_template for rig in rigs])
        self.anchors_z = np.array([rig.anchors_bs[:, 2] for rig in rigs])
        self.weights = np.array([rig.wheel_weights for rig in rigs])
        self.lift_m = np.array([rig.wheel_lift_m for rig in rigs])
        self.radii_m = np.array([(rig.spec.road_wheel_radius_m, rig.spec.drive_wheel_radius_m)
                                 for rig in rigs])
        self.drive_sides = np.array(rigs[0].drive_wheel_sides, dtype=np.int64)

    @classmethod
    def of(cls, rigs: list) -> _Stacked:
        key = tuple(map(id, rigs))
        kept = cls._kept
        stacked = kept.pop(key, None) or cls(rigs)
        kept[key] = stacked  # the newest last
        while len(kept) > _STACKS_KEPT:
            del kept[next(iter(kept))]
        return stacked


def pose_tank_parts(rigs) -> None:
    """Aim the turret and gun, and pose the road wheels, sprockets, idlers and belts, of
    every rig in ``rigs`` (tank rigs) not yet posed since its last update, at that
    update's pose."""
    groups: dict[tuple, list] = {}
    for rig in rigs:
        if not rig.parts_posed:
            rig.parts_posed = True
            rig.aim_turret()
            groups.setdefault(_layout(rig), []).append(rig)
    for group in groups.values():
        _pose_group(group)


def _pose_group(rigs) -> None:
    """Wheel heights, spins and belt rows of ``rigs`` (of one layout) worked out together,
    then written into each rig's nodes and vertex buffers where they changed."""
    stacked = _Stacked.of(rigs)
    previous = np.array([rig.step_pair[0][0] for rig in rigs])
    current = np.array([rig.step_pair[1][0] for rig in rigs])
    alpha = np.array([rig.step_alpha for rig in rigs])
    travelled = np.array([rig.travelled_m for rig in rigs])
    colour = np.array([rig.belt_colour for rig in rigs], dtype=np.float64)
    posed = _posed_wheels if wheel_poses_loop is None else _posed_wheels_compiled
    centre_z, moved = posed(rigs, stacked, previous, current, alpha, travelled, colour)
    _write_belts(rigs, stacked.template, moved, centre_z.reshape(len(moved), -1),
                 travelled.ravel(), np.repeat(colour, 2, axis=0))
    for rig, wheel_z, run, paint in zip(rigs, centre_z, travelled, colour):
        rig.shown_wheel_z, rig.shown_travelled_m, rig.shown_belt_colour = wheel_z, run, paint


def _posed_wheels(rigs, stacked: _Stacked, previous: np.ndarray, current: np.ndarray,
                  alpha: np.ndarray, travelled: np.ndarray, colour: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray]:
    """The road wheels' heights (R, W) from the anchors' ground distances ``alpha`` of the
    way from ``previous`` to ``current`` (R, A), every rig's wheels written where they
    changed, and whether each belt moved (2R,): in numpy operations over the rigs."""
    distances = previous + (current - previous) * alpha[:, None]
    ground_z = stacked.anchors_z - distances
    centre_z = np.einsum("rwa,ra->rw", stacked.weights, ground_z) + stacked.lift_m[:, None]
    radii = stacked.radii_m
    # Spins about X as a node's setP turns (the WHEELS shader's sense), in radians wrapped
    # to one turn so that the float32 pose array keeps them precise on a long drive.
    road_spin_rad = np.remainder(-travelled / radii[:, :1], math.tau)
    drive_spin_rad = np.remainder(-travelled / radii[:, 1:], math.tau)
    moved = _belts_moved(rigs, centre_z, travelled, colour)
    _write_wheels(rigs, centre_z, road_spin_rad, drive_spin_rad)
    return centre_z, moved


def _posed_wheels_compiled(rigs, stacked: _Stacked, previous: np.ndarray,
                           current: np.ndarray, alpha: np.ndarray, travelled: np.ndarray,
                           colour: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_posed_wheels` in one compiled loop (:mod:`game.view.rigs.rig_kernel`)."""
    count, road = len(rigs), stacked.weights.shape[1]
    poses = np.array([rig.wheel_poses for rig in rigs])
    centre_z, wheels_moved = np.empty((count, road)), np.empty(count, dtype=bool)
    moved = np.empty(2 * count, dtype=bool)
    wheel_poses_loop(previous, current, alpha, stacked.anchors_z, stacked.weights,
                     stacked.lift_m, travelled, stacked.radii_m, stacked.drive_sides, colour,
                     np.array([rig.shown_wheel_z for rig in rigs]),
                     np.array([rig.shown_travelled_m for rig in rigs]),
                     np.array([rig.shown_belt_colour for rig in rigs], dtype=np.float64),
                     poses, centre_z, wheels_moved, moved)
    _show_wheels(rigs, poses, wheels_moved)
    return centre_z, moved


def _belts_moved(rigs, centre_z: np.ndarray, travelled_m: np.ndarray,
                 colour: np.ndarray) -> np.ndarray:
    """(2R,) per belt (two per rig): whether its wheels rose or fell, it ran, or its colour
    changed since it was last shown: else its rows are what it shows already."""
    sides = (len(rigs), 2, -1)
    rose = (centre_z.reshape(sides)
            != np.array([rig.shown_wheel_z for rig in rigs]).reshape(sides)).any(axis=2)
    ran = travelled_m != np.array([rig.shown_travelled_m for rig in rigs])
    shaded = (colour != np.array([rig.shown_belt_colour for rig in rigs])).any(axis=1)
    return (rose | ran | shaded[:, None]).ravel()


def _write_wheels(rigs, centre_z: np.ndarray, road_rad: np.ndarray,
                  drive_rad: np.ndarray) -> None:
    """Each rig's wheel poses (centres and spins, road wheels then sprockets and idlers)
    from the road wheels' heights ``centre_z`` (R, W) and each side's spins (R, 2); written
    only for the rigs where one changed since it was last shown (a tank standing still
    writes none), one copy for all of a rig's wheels."""
    shown = np.array([rig.wheel_poses for rig in rigs])
    poses = shown.copy()
    road = centre_z.shape[1]
    poses[:, :road, 2] = centre_z
    poses[:, :road, 3] = np.repeat(road_rad, road // road_rad.shape[1], axis=1)
    poses[:, road:, 3] = drive_rad[:, rigs[0].drive_wheel_sides]
    _show_wheels(rigs, poses, (poses != shown).any(axis=(1, 2)))


def _show_wheels(rigs, poses: np.ndarray, changed: np.ndarray) -> None:
    """Write each rig's wheel poses (R, W + D, 4) where ``changed`` (R,): one copy for all
    of a rig's wheels."""
    for index in np.flatnonzero(changed).tolist():
        rig = rigs[index]
        rig.wheel_poses = poses[index]
        rig.wheels.write(poses[index])


def _write_belts(rigs, template: BeltTemplate, moved: np.ndarray, belt_z: np.ndarray,
                 travelled_m: np.ndarray, colour: np.ndarray) -> None:
    """Rewrite the vertex rows of both belts of each rig where either ``moved`` (a flag
    per belt, two per rig; ``template``: the rigs' belt templates stacked): one copy per
    rig."""
    rewritten = np.flatnonzero(moved.reshape(len(rigs), 2).any(axis=1))
    if len(rewritten) == 0:
        return
    belts = np.stack([2 * rewritten, 2 * rewritten + 1], axis=1).ravel()
    if len(belts) < len(moved):
        template = template.take(belts)
    rows = belt_rows_batch(template, belt_z[belts], travelled_m[belts], colour[belts])
    for index, rig in enumerate(rewritten.tolist()):
        rigs[rig].belt_data.modifyArrayHandle(0).copyDataFrom(rows[2 * index:2 * index + 2])
