"""The anchor model as it was written in vectorised numpy, kept as the test reference for
the anchor kernel (:mod:`physics.model.anchor_kernel`): the same maths over arrays of
vehicles x anchors, a few whole-array operations per stage, and the terrain's rays cast
all at once. The kernel must give its numbers to within the tolerances the tests state.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from common.spec import KMH_PER_MPS
from physics.model.anchors import (AnchorCommand, AnchorConstants, AnchorImpulses, AnchorReport,
                                   BodyStates, GripSpec, GroundHits)
from physics.model.kernel_tables import PARALLEL_COSINE, SLIP_REFERENCE_SPEED_MPS, TAU
from physics.model.terrain import Terrain
from physics.model.tyres import SlipTyreSpec, WheelSpinSpec

_TINY = np.finfo(float).tiny
_DERIVATIVE_STEP_RAD_S = 1e-3

# ----- the layout the model computes in -------------------------------------------------------
#
# The public arrays are (V, A[, 3]): vehicles x anchors x xyz. Inside a step the model
# works on the N = V * A anchors flat, vehicle by vehicle (anchor n is vehicle n // A's
# anchor n % A), with vectors stored as three rows (3, N): each x, y or z is then one
# contiguous array, a dot or cross product is a few whole-array operations, and no
# operation broadcasts a short trailing axis (which costs numpy several times more).
# At a few hundred anchors numpy's cost is per call, not per number, so the step is
# written as few calls as it can be. Results equal the (V, A, 3) formulation's to
# rounding; the reports and impulses are handed out as (V, A[, 3]) views. For the same
# reason "is any set?" is asked as np.count_nonzero(mask): a quarter of ndarray.any's cost.


def _dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Dot products of row-stored vectors (3, N) -> (N,)."""
    product = a * b
    return product[0] + product[1] + product[2]


_NEXT = np.array([1, 2, 0])
_AFTER_NEXT = np.array([2, 0, 1])
"""Each component's two others, in cyclic order: (a x b)_i = a_j b_k - a_k b_j."""


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cross products of row-stored vectors (3, ...), broadcasting the rest."""
    return (a.take(_NEXT, axis=0) * b.take(_AFTER_NEXT, axis=0)
            - a.take(_AFTER_NEXT, axis=0) * b.take(_NEXT, axis=0))


def _rows(vectors: np.ndarray) -> np.ndarray:
    """(N, 3) vectors as rows (3, N); free when they are the transpose of rows already."""
    return np.ascontiguousarray(vectors.T)


def _resized(array: np.ndarray, count: int) -> np.ndarray:
    """``array`` with ``count`` rows: kept rows first, new rows zero."""
    grown = np.zeros((count,) + array.shape[1:])
    kept = min(count, len(array))
    grown[:kept] = array[:kept]
    return grown


class _PerAnchor:
    """The constants of every anchor of ``count`` vehicles, flat (N,) or as rows (3, N)."""

    def __init__(self, constants: AnchorConstants, count: int):
        def tiled(values):
            return np.tile(values, count)

        self.position_bs = np.tile(constants.position_bs.T, (1, count))
        self.mass_share_kg = tiled(constants.mass_share_kg)
        self.static_load_n = tiled(constants.static_load_n)
        self.stiffness_n_m = tiled(constants.stiffness_n_m)
        self.damping_n_s_m = tiled(constants.damping_n_s_m)
        self.bump_stiffness_n_m = tiled(constants.bump_stiffness_n_m)
        self.bump_damping_n_s_m = tiled(constants.bump_damping_n_s_m)
        self.grip_stiffness_n_m = tiled(constants.grip_stiffness_n_m)
        self.grip_damping_n_s_m = tiled(constants.grip_damping_n_s_m)
        self.patch_offset_m = tiled(constants.patch_offset_m)
        self.negative_grip_compliance_m_n = -1.0 / self.grip_stiffness_n_m


class FlatCommand(NamedTuple):
    """An :class:`AnchorCommand`'s arrays flat over the N anchors (views, not copies)."""

    surface_speed_mps: np.ndarray
    force_limit_n: np.ndarray
    steer_rad: np.ndarray
    grip_scale: np.ndarray
    force_bias_n: np.ndarray

    @classmethod
    def of(cls, command: AnchorCommand) -> "FlatCommand":
        bias = (np.zeros(command.force_limit_n.size) if command.force_bias_n is None
                else command.force_bias_n.reshape(-1))
        return cls(command.surface_speed_mps.reshape(-1), command.force_limit_n.reshape(-1),
                   command.steer_rad.reshape(-1), command.grip_scale.reshape(-1), bias)


def _per_anchor_frames(states: BodyStates, anchors: int) -> np.ndarray:
    """(6, 3, N): each anchor's copy of its body's position, right, forward and up axes,
    velocity and angular velocity, as rows."""
    count = len(states.position_ws)
    frames = np.empty((6, 3, count))
    frames[0] = states.position_ws.T
    frames[1:4] = np.transpose(states.axes_ws, (1, 2, 0))
    frames[4] = states.velocity_ws.T
    frames[5] = states.angular_velocity_ws.T
    return np.repeat(frames, anchors, axis=2)


class AnchorModel:
    """Steps the anchors of V vehicles of one kind. Holds the grip springs' state."""

    def __init__(self, constants: AnchorConstants, grip: GripSpec,
                 spin: WheelSpinSpec | None = None):
        self.constants = constants
        self.grip = grip
        self.wheel_spin = spin
        self.anchors = len(constants.position_bs)
        self._deflection = np.zeros((2, 0))
        """The grip springs' stretch along and across each anchor's heading, rows (2, N)."""
        self.spin_speed_rad_s = np.zeros((0, self.anchors))
        self.spin_angle_rad = np.zeros((0, self.anchors))
        self._report: AnchorReport | None = None
        self._report_parts: _ReportParts | None = None
        self._per_anchor = _PerAnchor(constants, 0)

    @property
    def report(self) -> AnchorReport | None:
        """What every anchor did in the last substep (None before the first)."""
        if self._report is None and self._report_parts is not None:
            self._report = self._report_parts.report()
        return self._report

    @property
    def deflection_m(self) -> np.ndarray:
        """The grip springs' stretch (V, A, 2): along and across each anchor's heading."""
        return self._deflection.T.reshape(-1, self.anchors, 2)

    def resize(self, count: int) -> None:
        """Keep the state of the first ``count`` vehicles; new ones start relaxed and still."""
        self._deflection = np.ascontiguousarray(_resized(self.deflection_m, count)
                                                .reshape(-1, 2).T)
        self.spin_speed_rad_s = _resized(self.spin_speed_rad_s, count)
        self.spin_angle_rad = _resized(self.spin_angle_rad, count)
        self._per_anchor = _PerAnchor(self.constants, count)

    def relax(self, vehicle: int) -> None:
        """Forget one vehicle's grip stretch and wheel spin (it was set down afresh)."""
        columns = slice(vehicle * self.anchors, (vehicle + 1) * self.anchors)
        self._deflection[:, columns] = 0.0
        spin = self.spin_speed_rad_s.copy()  # the last report keeps the spin it had
        spin[vehicle] = 0.0
        self.spin_speed_rad_s = spin

    def rays(self, states: BodyStates) -> tuple[np.ndarray, np.ndarray]:
        """Anchor origins (V, A, 3) and ray directions (V, A, 3): down the hull's -Z."""
        origins, down = self._rays(_per_anchor_frames(states, self.anchors),
                                   _PerAnchor(self.constants, len(states.position_ws)))
        return origins.T.reshape(-1, self.anchors, 3), down.T.reshape(-1, self.anchors, 3)

    @staticmethod
    def _rays(frames: np.ndarray, per_anchor: _PerAnchor) -> tuple[np.ndarray, np.ndarray]:
        position, right, forward, up = frames[:4]
        x, y, z = per_anchor.position_bs
        return position + (x * right + y * forward + z * up), -up

    def step(self, states: BodyStates, ground, command: AnchorCommand,
             substep_s: float) -> AnchorImpulses:
        """One substep for every anchor of every vehicle."""
        c, k = self.constants, self._per_anchor
        vehicles, anchors = len(states.position_ws), self.anchors
        frames = _per_anchor_frames(states, anchors)
        position, right, hull_forward, _, body_velocity, spin = frames
        origins, down = self._rays(frames, k)
        hits = ground.cast(origins.T, down.T, c.ray_length_m, c.min_ground_up)
        hit = hits.hit
        point, normal = _rows(hits.point_ws), _rows(hits.normal_ws)
        flat = FlatCommand.of(command)
        forward, side = self._ground_frame(hull_forward, right, normal, flat.steer_rad)
        # The spring acts at the contact point; grip at the centre of the stretch of track
        # the anchor carries. Both points' spin velocities in one cross product.
        levers = np.empty((3, 2, vehicles * anchors))
        lever = np.subtract(point, position, out=levers[:, 0])
        grip_lever = lever + k.patch_offset_m * forward
        np.subtract(grip_lever, lever, out=levers[:, 1])
        turning = _cross(spin[:, None], levers)
        velocity = body_velocity + turning[:, 0] - _rows(hits.ground_velocity_ws)
        grip_velocity = velocity + turning[:, 1]
        load, compression = self._suspension(hit, hits.distance_m, normal, velocity)
        ground_along = _dot(grip_velocity, forward)
        ground_across = _dot(grip_velocity, side)
        self.surface_grip = hits.grip_scale * flat.grip_scale
        self.surface_rolling = hits.rolling_resistance
        along, across, sliding = self._grip(hit, load, ground_along, ground_across, flat,
                                            substep_s)
        # Off the ground the load is zero, so the support and the grip are too.
        forces = np.empty((3, 2, vehicles * anchors))
        np.multiply(load * substep_s, normal, out=forces[:, 0])
        np.multiply(along * substep_s, forward, out=forces[:, 1])
        forces[:, 1] += (across * substep_s) * side
        self._spin(hit, sliding, ground_along, along, flat, substep_s)
        # The report is built when read (the last substep's, at most once a frame).
        self._report = None
        self._report_parts = _ReportParts(
            (vehicles, anchors), hit, compression, load, sliding, point, normal, origins, down,
            command.steer_rad, self.spin_speed_rad_s, self.spin_angle_rad, ground_along,
            ground_across, c.wheel_radius_m)
        # Both torques in one cross product: lever x support and grip lever x grip; then
        # each anchor's impulse and torque, and their sums over each vehicle's anchors.
        np.copyto(levers[:, 1], grip_lever)
        totals = np.empty((2, 3, 2, vehicles * anchors))
        totals[0] = forces
        totals[1] = _cross(levers, forces)
        per_anchor = (totals[:, :, 0] + totals[:, :, 1]).reshape(2, 3, vehicles, anchors)
        sums = per_anchor[..., 0].copy()
        for anchor in range(1, anchors):  # a few adds beat one reduce over a short axis
            sums += per_anchor[..., anchor]
        return AnchorImpulses(per_anchor[0].transpose(1, 2, 0), sums[0].T, sums[1].T)

    def _spin(self, hit, sliding, ground_along_mps, along_n, command: FlatCommand,
              substep_s) -> None:
        """Grip tyres' wheels roll with the ground while they grip (or slide undriven);
        sliding under power or brake, or in the air, they spin on their inertia, turned
        toward the asked speed with at most the drive's force against the contact's pull;
        free in the air, they coast."""
        radius = self.constants.wheel_radius_m
        if radius <= 0.0:
            return
        inertia = self.wheel_spin.wheel_inertia_kg_m2
        shape = self.spin_speed_rad_s.shape
        spin = self.spin_speed_rad_s.reshape(-1)
        limit = command.force_limit_n
        driven = limit > 0.0
        ground_n = np.where(hit, along_n, 0.0)
        wanted = ((command.surface_speed_mps - spin * radius) * inertia
                  / (radius ** 2 * substep_s) + ground_n)
        spun = spin + radius * (np.clip(wanted, -limit, limit) - ground_n) * substep_s / inertia
        spin = np.where(hit & (~sliding | ~driven), ground_along_mps / radius,
                        np.where(driven, spun, self._coasted(spin, substep_s)))
        self.spin_speed_rad_s = spin.reshape(shape)
        self.spin_angle_rad = (self.spin_angle_rad + self.spin_speed_rad_s * substep_s) % TAU

    def _coasted(self, spin, substep_s):
        """Free wheels' spin after a substep of their bearings' drag."""
        slowing = self.wheel_spin.bearing_drag_n_m * substep_s / self.wheel_spin.wheel_inertia_kg_m2
        return spin - np.clip(spin, -slowing, slowing)

    def _suspension(self, hit, distance_m, normal, velocity):
        """Spring + damper along the normal, plus the bump stop; never pulls."""
        c, k = self.constants, self._per_anchor
        compression = np.where(hit, c.ray_length_m - distance_m, 0.0)
        closing_mps = -_dot(velocity, normal)  # + while the anchor approaches the ground
        spring = k.stiffness_n_m * compression + k.damping_n_s_m * closing_mps
        beyond = compression - c.travel_m
        # Multiplying by a mask rather than np.where: every number here is finite (a missed
        # ray's compression is zero), and a product costs a third of a where.
        bump = (beyond > 0.0) * np.maximum(k.bump_stiffness_n_m * beyond
                                           + k.bump_damping_n_s_m * closing_mps, 0.0)
        load = hit * np.maximum(spring + bump, 0.0)
        return load, compression

    @staticmethod
    def _ground_frame(hull_forward, hull_right, normal, steer_rad):
        """Each anchor's heading (the hull's forward turned by its steer angle) projected
        onto its contact plane, and the heading's right."""
        if np.count_nonzero(steer_rad):
            heading = np.cos(steer_rad) * hull_forward + np.sin(steer_rad) * hull_right
        else:  # tracks never steer: skip the trigonometry
            heading = hull_forward
        forward = heading - _dot(heading, normal) * normal
        forward /= np.maximum(np.sqrt(_dot(forward, forward)), _TINY)
        return forward, _cross(forward, normal)

    def _grip(self, hit, load, along_mps, across_mps, command: FlatCommand, substep_s):
        """Drive and grip together inside the friction circle; ``along_mps`` and
        ``across_mps`` are the ground's speed under the anchor along and across its heading."""
        k, spec = self._per_anchor, self.grip
        drive_limit = command.force_limit_n
        slip = np.empty((2, len(load)))  # along and across, as rows
        np.subtract(along_mps, command.surface_speed_mps, out=slip[0])
        slip[1] = across_mps
        deflection = self._deflection
        deflection += slip * substep_s
        wanted = k.grip_stiffness_n_m * deflection
        wanted += k.grip_damping_n_s_m * slip
        np.negative(wanted, out=wanted)
        wanted_along, wanted_across = wanted
        # Sticking: the track passes on what the engine (or brake) can give along it.
        low, high = command.force_bias_n - drive_limit, command.force_bias_n + drive_limit
        along = np.minimum(np.maximum(wanted_along, low), high)
        capacity = self.surface_grip * load
        sliding = np.hypot(along, wanted_across) > spec.grip * capacity
        # Sliding: kinetic friction against the slip, the drive still capped by the engine;
        # the force wanted is scaled down to the sliding grip (sticking: left as it is).
        scale = np.divide(spec.sliding_grip * capacity, np.hypot(wanted_along, wanted_across),
                          out=np.ones_like(capacity), where=sliding)
        along = np.minimum(np.maximum(wanted_along * scale, low), high)
        across = wanted_across * scale
        # The stick spring keeps only the stretch that matches the force it passed on, so an
        # engine-limited or sliding anchor does not wind up; off the ground it relaxes.
        kept = np.empty_like(slip)
        kept[0], kept[1] = along, across
        kept += k.grip_damping_n_s_m * slip
        kept *= hit * k.negative_grip_compliance_m_n
        self._deflection = kept
        # Rolling resistance: against the ground speed along the track, never reversing it.
        resistance = (spec.rolling_resistance + self.surface_rolling) * load
        along = along + np.minimum(np.maximum(-along_mps * k.mass_share_kg / substep_s,
                                              -resistance), resistance)
        return along, across, sliding


def _vectors(rows: np.ndarray, vehicles: int) -> np.ndarray:
    """Per-anchor vectors (3, N) as (V, A, 3)."""
    return rows.T.reshape(vehicles, -1, 3)


class _ReportParts(NamedTuple):
    """A substep's per-anchor results, flat, from which its :class:`AnchorReport` is made."""

    shape: tuple[int, int]
    hit: np.ndarray
    compression_m: np.ndarray
    load_n: np.ndarray
    sliding: np.ndarray
    point: np.ndarray
    normal: np.ndarray
    origins: np.ndarray
    down: np.ndarray
    steer_rad: np.ndarray
    spin_speed_rad_s: np.ndarray
    spin_angle_rad: np.ndarray
    ground_along_mps: np.ndarray
    ground_across_mps: np.ndarray
    wheel_radius_m: float

    def report(self) -> AnchorReport:
        shape, hit, vehicles = self.shape, self.hit, self.shape[0]
        reference_mps = np.maximum(np.abs(self.ground_along_mps), SLIP_REFERENCE_SPEED_MPS)
        if self.wheel_radius_m > 0.0:
            slip_ratio = np.where(hit, (self.spin_speed_rad_s.reshape(-1) * self.wheel_radius_m
                                        - self.ground_along_mps) / reference_mps, 0.0)
        else:
            slip_ratio = np.zeros(hit.shape)
        return AnchorReport(
            hit.reshape(shape), self.compression_m.reshape(shape), self.load_n.reshape(shape),
            (self.sliding & hit).reshape(shape), _vectors(self.point, vehicles),
            _vectors(self.normal, vehicles), _vectors(self.origins, vehicles),
            _vectors(self.down, vehicles), self.steer_rad.copy(), self.spin_speed_rad_s.copy(),
            self.spin_angle_rad.copy(), slip_ratio.reshape(shape),
            np.where(hit, np.arctan2(self.ground_across_mps, reference_mps), 0.0).reshape(shape))


class SlipTyreModel(AnchorModel):
    """The anchor core with slip tyres in place of the friction-circle grip."""

    def __init__(self, constants: AnchorConstants, grip: GripSpec, slip: SlipTyreSpec,
                 spin: WheelSpinSpec):
        super().__init__(constants, grip, spin)
        self.slip = slip
        self._peak_angle_tan = math.tan(math.radians(slip.peak_slip_angle_deg))
        self._blend_mps = slip.grip_model_below_kmh / KMH_PER_MPS

    def _tyre_forces(self, spin, along_mps, across_mps, load, peak_grip):
        """Longitudinal and lateral tyre force for a spin, and whether past the peak."""
        spec = self.slip
        reference = np.maximum(np.abs(along_mps), SLIP_REFERENCE_SPEED_MPS)
        ratio = (spin * self.constants.wheel_radius_m - along_mps) / reference / spec.peak_slip_ratio
        angle = across_mps / reference / self._peak_angle_tan
        combined = np.hypot(ratio, angle)
        rising = combined * (2.0 - combined)
        falling = spec.sliding_share + (1.0 - spec.sliding_share) * np.exp(-(combined - 1.0) ** 2)
        grip = peak_grip * np.where(combined <= 1.0, rising, falling)
        scale = np.divide(grip * load, combined, out=np.zeros_like(load),
                          where=combined > 0.0)
        return scale * ratio, -scale * angle, combined > 1.0

    def _grip(self, hit, load, along_mps, across_mps, command: FlatCommand, substep_s):
        c, k, spec = self.constants, self._per_anchor, self.slip
        grip_along, grip_across, grip_sliding = super()._grip(hit, load, along_mps, across_mps,
                                                              command, substep_s)
        radius, inertia = c.wheel_radius_m, self.wheel_spin.wheel_inertia_kg_m2
        relative_load = np.maximum(load, np.finfo(float).tiny) / k.static_load_n
        peak = self.grip.grip * self.surface_grip * relative_load ** -spec.load_sensitivity
        contact_load = np.where(hit, load, 0.0)

        shape = self.spin_speed_rad_s.shape
        spin = self.spin_speed_rad_s.reshape(-1)
        force, _, _ = self._tyre_forces(spin, along_mps, across_mps, contact_load, peak)
        # Engine or brake: the rim force that would bring the wheel to the asked speed this
        # substep against the tyre's pull, within what they can give (a brake holds a
        # stopped wheel like static friction; it never turns it backwards).
        wanted = ((command.surface_speed_mps - spin * radius) * inertia / (radius ** 2 * substep_s)
                  + force)
        drive = np.clip(wanted, -command.force_limit_n, command.force_limit_n)
        nudged, _, _ = self._tyre_forces(spin + _DERIVATIVE_STEP_RAD_S, along_mps, across_mps,
                                         contact_load, peak)
        stiffness = (nudged - force) / _DERIVATIVE_STEP_RAD_S
        spin = spin + radius * (drive - force) / (inertia / substep_s + radius * stiffness)
        along, across, past_peak = self._tyre_forces(spin, along_mps, across_mps, contact_load,
                                                     peak)
        resistance = (self.grip.rolling_resistance + self.surface_rolling) * contact_load
        along = along + np.clip(-along_mps * k.mass_share_kg / substep_s, -resistance, resistance)

        # At walking pace the stick-slip model holds (and the wheel rolls with the ground).
        weight = np.where(hit, np.clip(np.abs(along_mps) / self._blend_mps, 0.0, 1.0), 1.0)
        grip_weight = 1.0 - weight
        self.spin_speed_rad_s = (weight * spin + grip_weight * along_mps / radius).reshape(shape)
        along = weight * along + grip_weight * grip_along
        across = weight * across + grip_weight * grip_across
        sliding = np.where(weight >= 0.5, past_peak, grip_sliding)
        return along, across, sliding

    def _spin(self, hit, sliding, ground_along_mps, along_n, command: FlatCommand,
              substep_s) -> None:
        """The spin was integrated with the tyre forces; free in the air, the wheels coast;
        then the angle turns."""
        shape = self.spin_speed_rad_s.shape
        spin = self.spin_speed_rad_s.reshape(-1)
        free = ~hit & (command.force_limit_n <= 0.0)
        self.spin_speed_rad_s = np.where(free, self._coasted(spin, substep_s), spin).reshape(shape)
        self.spin_angle_rad = (self.spin_angle_rad + self.spin_speed_rad_s * substep_s) % TAU


_TERRAIN_ITERATIONS = 2
"""Ray-plane refinements against the height grid, for rays cast the first time: each lands
exactly on the plane of the triangle under the last guess. The first guess is the ray's
start, straight above its hit but for the hull's tilt, so the second lands on the right
triangle unless the hit is within a few centimetres of an edge, where both triangles'
planes agree to within millimetres. The same rays cast again start from where they met
the ground last time, a substep ago (millimetres away), and need one refinement."""


class TerrainGround:
    """Rays against the terrain's height array, all at once."""

    def __init__(self, terrain: Terrain):
        self.terrain = terrain
        self._last_distance_m: np.ndarray | None = None
        """How far along each ray the collider was at the last cast (the same rays, in
        the same order, are cast every substep)."""

    def cast(self, origins_ws, directions_ws, length_m, min_ground_up) -> GroundHits:
        terrain = self.terrain
        # Vectors as rows (3, N), as the anchor model computes (free when handed its rows).
        origins, directions = _rows(origins_ws), _rows(directions_ws)
        last = self._last_distance_m
        if last is not None and last.shape == (origins.shape[1],):
            # Within the ray: a ray that missed, or a vehicle set down elsewhere, still
            # looks under its own start.
            distance, iterations = np.minimum(np.maximum(last, 0.0), length_m), 1
        else:
            distance, iterations = 0.0, _TERRAIN_ITERATIONS
        for _ in range(iterations):
            guess = origins + distance * directions
            height, normal = terrain.planes_at(guess[:2])
            facing = _dot(normal, directions)  # < 0: the ray meets the face
            distance = distance + normal[2] * (height - guess[2]) / np.minimum(facing,
                                                                                -PARALLEL_COSINE)
        self._last_distance_m = distance
        point = origins + distance * directions
        # The surface's ripples stand a little above the collider.
        ripple, grip, rolling = terrain.ground_at(point[:2])
        distance = distance - ripple / np.maximum(-facing, PARALLEL_COSINE)
        point = origins + distance * directions
        hit = ((distance <= length_m) & (-facing >= min_ground_up)
               & terrain.contains_rows(point[:2]))
        return GroundHits(hit, distance, point.T, np.ascontiguousarray(normal).T,
                          np.zeros(point.T.shape), grip, rolling)
