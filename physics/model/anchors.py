"""The four-anchor raycast vehicle model: body states and ray hits in, impulses out.

Pure numpy: no Bullet, no rendering. Every array is laid out (vehicles, anchors,
...), so a hundred vehicles cost one pass, not a hundred Python loops. A thin
adapter (:mod:`physics.bullet.fleet`) gathers the poses, casts the rays through
a :class:`GroundQuery` and applies the impulses to the Bullet bodies.

Each substep, for every anchor (a point fixed to the hull, body frame):

1. **cast**: a ray from the anchor down the hull's -Z, as long as the spring's
   unloaded length, finds the ground (never the vehicle itself, nothing the ray
   starts inside, nothing steeper than ``max_ground_angle_deg``);
2. **suspension**: a spring and damper along the contact normal, using the
   anchor's own velocity ``v + w x r`` relative to the ground; it pushes, never
   pulls; past full compression a stiffer bump stop takes over;
3. **drive**: each anchor has a commanded surface speed (a track's belt, a
   wheel's rim) and steer angle; it pulls the ground point toward that speed
   along its heading projected on the ground, with at most the engine's (or
   brake's) force — :mod:`physics.model.tracks` and :mod:`physics.model.wheels`
   turn controls into these per-anchor commands;
4. **grip**: the along-track slip and the sideways velocity are resisted
   together by a stiff "bristle" spring and damper (static friction: a parked
   tank holds on a slope with zero creep), limited to ``grip x load`` (the
   friction circle); past it the anchor slides with ``sliding_grip x load`` and
   reports ``sliding``.

Spring stiffness and damping are derived, never typed: each anchor's share of
the sprung mass comes from the static balance of the anchors about the centre
of mass, and ``k = m (2 pi f)^2``, ``c = 2 zeta sqrt(k m)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple, Protocol

import numpy as np

from physics.model.spec import Spec, SpecError, tuning

TAU = 2.0 * math.pi

_TINY = np.finfo(float).tiny
"""Keeps a division by a length that may be zero finite."""

SLIP_REFERENCE_SPEED_MPS = 0.5
"""Slip ratio and angle divide by the ground speed; below walking pace they would blow up,
so the division uses at least this speed (a convention of the reports, not tuning)."""


@dataclass(frozen=True)
class AnchorSpec(Spec):
    """A suspension anchor in the body frame (origin at the centre of mass)."""

    x_m: float = tuning("right (+) / left (-) of the centre of mass", minimum=-10.0, maximum=10.0)
    y_m: float = tuning("ahead (+) / behind (-) the centre of mass", minimum=-10.0, maximum=10.0)
    z_m: float = tuning("above (+) / below (-) the centre of mass", minimum=-10.0, maximum=10.0)


@dataclass(frozen=True)
class SuspensionSpec(Spec):
    anchors: tuple[AnchorSpec, ...] = tuning("where the rays start (suspension mounts); left "
                                             "side x < 0, right x > 0", length=(3, 32))
    ride_height_m: float = tuning("anchor-to-ground distance at rest on flat ground",
                                  minimum=0.05, maximum=3.0)
    travel_m: float = tuning("spring compression from unloaded to the bump stop",
                             minimum=0.02, maximum=2.0)
    natural_frequency_hz: float = tuning("bounce frequency of the sprung mass", minimum=0.3,
                                         maximum=10.0)
    damping_ratio: float = tuning("share of critical damping (1 = no overshoot)",
                                  minimum=0.05, maximum=2.0)
    bump_stop_stiffness_ratio: float = tuning("bump stop stiffness as a multiple of the "
                                              "spring's (critically damped)", minimum=1.0,
                                              maximum=100.0)
    max_ground_angle_deg: float = tuning("surfaces steeper than this from the hull's up are "
                                         "walls, not ground", minimum=10.0, maximum=89.0)
    wheel_radius_m: float = tuning("radius of the wheel at the end of each spring (0: a "
                                   "track's anchor rides on the ground itself)", minimum=0.0,
                                   maximum=2.0, default=0.0)

    def __post_init__(self) -> None:
        super().__post_init__()
        if any(anchor.x_m == 0.0 for anchor in self.anchors):
            raise SpecError("anchors", self.anchors, "every anchor left (x < 0) or right "
                            "(x > 0) of the centre line, on one track")
        if not {anchor.x_m < 0.0 for anchor in self.anchors} == {True, False}:
            raise SpecError("anchors", self.anchors, "anchors on both sides (x < 0 and x > 0)")


@dataclass(frozen=True)
class GripSpec(Spec):
    """How the anchors hold on to the ground."""

    grip: float = tuning("static friction coefficient: most ground force as a share of load",
                         minimum=0.05, maximum=3.0)
    sliding_grip: float = tuning("friction coefficient while sliding", minimum=0.01,
                                 maximum=3.0)
    grip_frequency_hz: float = tuning("stiffness of the grip's stick spring, as a natural "
                                      "frequency of the anchor's mass share", minimum=0.5,
                                      maximum=30.0)
    grip_damping_ratio: float = tuning("damping of the grip's stick spring", minimum=0.05,
                                       maximum=2.0)
    rolling_resistance: float = tuning("force against rolling as a share of load",
                                       minimum=0.0, maximum=0.5)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.sliding_grip > self.grip:
            raise SpecError("sliding_grip", self.sliding_grip, f"at most grip ({self.grip})")


@dataclass(frozen=True)
class AnchorConstants:
    """Per-anchor numbers derived from the specs, as arrays over anchors."""

    position_bs: np.ndarray     # (A, 3) anchor positions, body frame
    mass_share_kg: np.ndarray   # (A,) sprung mass each anchor carries at rest
    static_load_n: np.ndarray   # (A,) the weight of that share
    stiffness_n_m: np.ndarray   # (A,)
    damping_n_s_m: np.ndarray   # (A,)
    bump_stiffness_n_m: np.ndarray
    bump_damping_n_s_m: np.ndarray
    grip_stiffness_n_m: np.ndarray
    grip_damping_n_s_m: np.ndarray
    rest_length_m: float        # unloaded spring length
    wheel_radius_m: float
    travel_m: float
    min_ground_up: float        # cosine of the steepest ground angle
    patch_offset_m: np.ndarray  # (A,) from the anchor to the centre of the track it carries

    @property
    def ray_length_m(self) -> float:
        return self.rest_length_m + self.wheel_radius_m


def static_mass_shares(positions_bs: np.ndarray, mass_kg: float) -> np.ndarray:
    """Each anchor's share of the mass when the vehicle stands level and still.

    The shares balance the weight and both tipping moments about the centre of
    mass; with more than three anchors the least-squares (minimum-norm)
    solution spreads the load as evenly as the balance allows.
    """
    balance = np.vstack([np.ones(len(positions_bs)), positions_bs[:, 0], positions_bs[:, 1]])
    shares, *_ = np.linalg.lstsq(balance, np.array([mass_kg, 0.0, 0.0]), rcond=None)
    return shares


def derive_constants(suspension: SuspensionSpec, grip: GripSpec, mass_kg: float,
                     gravity_m_s2: float, tracked: bool) -> AnchorConstants:
    """Stiffness and damping from frequency and damping ratio; rest length from ride height.

    ``tracked``: the anchors carry two tracks (grip acts along each track's stretch)
    rather than wheels (grip acts at the contact point).
    """
    positions = np.array([[a.x_m, a.y_m, a.z_m] for a in suspension.anchors])
    mass = static_mass_shares(positions, mass_kg)
    if np.any(mass <= 0.0):
        raise SpecError("suspension.anchors", suspension.anchors,
                        "anchors around the centre of mass, so each carries some weight")
    omega = 2.0 * math.pi * suspension.natural_frequency_hz
    stiffness = mass * omega ** 2
    damping = 2.0 * suspension.damping_ratio * np.sqrt(stiffness * mass)
    bump_stiffness = stiffness * suspension.bump_stop_stiffness_ratio
    grip_stiffness = mass * (2.0 * math.pi * grip.grip_frequency_hz) ** 2
    # At rest each spring is compressed by its share of the weight: g / omega^2.
    rest_length = (suspension.ride_height_m - suspension.wheel_radius_m
                   + gravity_m_s2 / omega ** 2)
    if rest_length <= suspension.travel_m:
        raise SpecError("suspension.travel_m", suspension.travel_m,
                        f"less than the unloaded spring length {rest_length:.3f} m, so the "
                        "hull clears the ground at the bump stop")
    patch_offset = np.zeros(len(positions))
    if tracked:
        left = positions[:, 0] < 0.0
        for side in (left, ~left):
            patch_offset[side] = _patch_centres(positions[side, 1]) - positions[side, 1]
    return AnchorConstants(
        position_bs=positions, mass_share_kg=mass, static_load_n=mass * gravity_m_s2,
        stiffness_n_m=stiffness,
        damping_n_s_m=damping, bump_stiffness_n_m=bump_stiffness,
        bump_damping_n_s_m=2.0 * np.sqrt(bump_stiffness * mass),
        grip_stiffness_n_m=grip_stiffness,
        grip_damping_n_s_m=2.0 * grip.grip_damping_ratio * np.sqrt(grip_stiffness * mass),
        rest_length_m=rest_length, wheel_radius_m=suspension.wheel_radius_m,
        travel_m=suspension.travel_m,
        min_ground_up=math.cos(math.radians(suspension.max_ground_angle_deg)),
        patch_offset_m=patch_offset)


def _patch_centres(along_m: np.ndarray) -> np.ndarray:
    """Centre of the stretch of track each anchor carries.

    A track touches the ground along its whole length, between its first and
    last anchors; each anchor carries the stretch nearer to it than to its
    neighbours. Grip acts at the centre of that stretch, so turning on the spot
    meets the resistance of a loaded strip (mu W L / 4 for a track of length L),
    not that of weights concentrated at the track's ends.
    """
    order = np.argsort(along_m)
    ends = along_m[order]
    bounds = np.concatenate([[ends[0]], (ends[1:] + ends[:-1]) / 2.0, [ends[-1]]])
    centres = np.empty_like(along_m)
    centres[order] = (bounds[1:] + bounds[:-1]) / 2.0
    return centres


@dataclass
class BodyStates:
    """Rigid-body states of V vehicles. ``axes_ws[v]`` rows: right, forward, up."""

    position_ws: np.ndarray          # (V, 3) centre of mass
    axes_ws: np.ndarray              # (V, 3, 3)
    velocity_ws: np.ndarray          # (V, 3)
    angular_velocity_ws: np.ndarray  # (V, 3)


@dataclass
class GroundHits:
    """Where N rays met ground. Rays that missed have ``hit`` False (other fields unused)."""

    hit: np.ndarray              # (N,) bool
    distance_m: np.ndarray       # (N,) along the ray; may be < 0 if the origin is underground
    point_ws: np.ndarray         # (N, 3)
    normal_ws: np.ndarray        # (N, 3)
    ground_velocity_ws: np.ndarray  # (N, 3) velocity of the ground at the hit point
    grip_scale: np.ndarray       # (N,) the surface's grip as a share of the tyre's own
    rolling_resistance: np.ndarray  # (N,) added by the surface, as a share of load


class GroundQuery(Protocol):
    """How the model sees the world: rays, and nothing else."""

    def cast(self, origins_ws: np.ndarray, directions_ws: np.ndarray, length_m: float,
             min_ground_up: float) -> GroundHits:
        """Cast N rays (unit directions) up to ``length_m``; surfaces whose normal has
        ``normal . -direction < min_ground_up`` are not ground."""


@dataclass
class AnchorCommand:
    """What the drive asks of every anchor this step, arrays (V, A)."""

    surface_speed_mps: np.ndarray  # track belt / wheel rim speed to pull toward, + forward
    force_limit_n: np.ndarray     # most force the engine or brake gives there, >= 0
    steer_rad: np.ndarray         # heading from the hull's forward, + to the right
    grip_scale: np.ndarray        # share of the grip available (a handbrake lowers it)

    @classmethod
    def idle(cls, vehicles: int, anchors: int) -> "AnchorCommand":
        zeros = np.zeros((vehicles, anchors))
        return cls(zeros, zeros.copy(), zeros.copy(), np.ones((vehicles, anchors)))


@dataclass
class AnchorReport:
    """What every anchor did in the last substep, arrays (V, A[, 3])."""

    on_ground: np.ndarray
    compression_m: np.ndarray
    load_n: np.ndarray
    sliding: np.ndarray
    contact_point_ws: np.ndarray
    contact_normal_ws: np.ndarray
    origin_ws: np.ndarray
    direction_ws: np.ndarray
    steer_rad: np.ndarray
    spin_speed_rad_s: np.ndarray   # wheels: + rolling forward (0 for tracks)
    spin_angle_rad: np.ndarray
    slip_ratio: np.ndarray         # (rim speed - ground speed) / ground speed: + spinning up
    slip_angle_rad: np.ndarray     # + sliding to the wheel's right


@dataclass
class AnchorImpulses:
    """The substep's impulses: per anchor at its contact point, and summed per body."""

    anchor_ws: np.ndarray     # (V, A, 3) impulse on the vehicle at each contact point
    linear_ws: np.ndarray     # (V, 3) total impulse
    angular_ws: np.ndarray    # (V, 3) total torque impulse about the centre of mass


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

    @classmethod
    def of(cls, command: AnchorCommand) -> "FlatCommand":
        return cls(command.surface_speed_mps.reshape(-1), command.force_limit_n.reshape(-1),
                   command.steer_rad.reshape(-1), command.grip_scale.reshape(-1))


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


# The rows of a compiled substep's per-anchor results, (RESULT_ROWS, N) (written by
# :mod:`physics.model.anchor_kernel`, read by :meth:`AnchorModel.take_results`): flags as 0 or
# 1, vectors as three rows from the one named.
HIT, COMPRESSION, LOAD, SLIDING, POINT, NORMAL, ORIGIN, DOWN, ALONG, ACROSS = (
    0, 1, 2, 3, 4, 7, 10, 13, 16, 17)
RESULT_ROWS = 18


class AnchorModel:
    """Steps the anchors of V vehicles of one kind. Holds the grip springs' state."""

    def __init__(self, constants: AnchorConstants, grip: GripSpec):
        self.constants = constants
        self.grip = grip
        self.anchors = len(constants.position_bs)
        self._deflection = np.zeros((2, 0))
        """The grip springs' stretch along and across each anchor's heading, rows (2, N)."""
        self.spin_speed_rad_s = np.zeros((0, self.anchors))
        self.spin_angle_rad = np.zeros((0, self.anchors))
        self._report: AnchorReport | None = None
        self._report_parts: _ReportParts | _CompiledResults | None = None
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

    @property
    def grip_stretch(self) -> np.ndarray:
        """The grip springs' stretch as the model keeps it, rows (2, N): a compiled
        substep carries it on in place."""
        return self._deflection

    def take_results(self, results: np.ndarray, command: AnchorCommand) -> None:
        """A compiled substep's per-anchor results (rows as above) become the last
        substep's, for the report (sorted out only if it is read)."""
        self._report = None
        self._report_parts = _CompiledResults(results, self.anchors, command.steer_rad,
                                              self.spin_speed_rad_s, self.spin_angle_rad,
                                              self.constants.wheel_radius_m)

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

    def step(self, states: BodyStates, ground: GroundQuery, command: AnchorCommand,
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
        self._spin(hit, sliding, ground_along, flat, substep_s)
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

    def _spin(self, hit, sliding, ground_along_mps, command: FlatCommand, substep_s) -> None:
        """Grip tyres' wheels roll with the ground; sliding, or in the air, they turn at the
        speed the drive asks (spinning up under power, locked under the brake)."""
        radius = self.constants.wheel_radius_m
        if radius <= 0.0:
            return
        shape = self.spin_speed_rad_s.shape
        spin = self.spin_speed_rad_s.reshape(-1)
        driven = command.force_limit_n > 0.0
        rim_mps = np.where(hit & ~sliding, ground_along_mps,
                          np.where(driven, command.surface_speed_mps, spin * radius))
        rim_mps = np.where(hit & sliding & ~driven, ground_along_mps, rim_mps)
        self.spin_speed_rad_s = (rim_mps / radius).reshape(shape)
        self.spin_angle_rad = (self.spin_angle_rad + self.spin_speed_rad_s * substep_s) % TAU

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
        along = np.minimum(np.maximum(wanted_along, -drive_limit), drive_limit)
        capacity = self.surface_grip * load
        sliding = np.hypot(along, wanted_across) > spec.grip * capacity
        # Sliding: kinetic friction against the slip, the drive still capped by the engine;
        # the force wanted is scaled down to the sliding grip (sticking: left as it is).
        scale = np.divide(spec.sliding_grip * capacity, np.hypot(wanted_along, wanted_across),
                          out=np.ones_like(capacity), where=sliding)
        along = np.minimum(np.maximum(wanted_along * scale, -drive_limit), drive_limit)
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


class _CompiledResults(NamedTuple):
    """A compiled substep's results, from which its :class:`AnchorReport` is made."""

    results: np.ndarray
    anchors: int
    steer_rad: np.ndarray
    spin_speed_rad_s: np.ndarray
    spin_angle_rad: np.ndarray
    wheel_radius_m: float

    def report(self) -> AnchorReport:
        results = self.results
        return _ReportParts(
            (results.shape[1] // self.anchors, self.anchors), results[HIT] > 0.5,
            results[COMPRESSION], results[LOAD], results[SLIDING] > 0.5,
            results[POINT:POINT + 3], results[NORMAL:NORMAL + 3], results[ORIGIN:ORIGIN + 3],
            results[DOWN:DOWN + 3], self.steer_rad, self.spin_speed_rad_s,
            self.spin_angle_rad, results[ALONG], results[ACROSS], self.wheel_radius_m).report()


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
