"""The four-anchor raycast vehicle model: its specs, the constants derived from them, and
what goes in and out of a substep (body states, ray hits, commands, reports, impulses).

Pure numpy: no Bullet, no rendering. Every array is laid out (vehicles, anchors, ...).
The substep itself is :mod:`physics.model.anchor_kernel`, driven by
:class:`physics.model.anchor_model.AnchorModel`; a thin adapter
(:mod:`physics.bullet.fleet`) gathers the poses, answers the ray queries and applies the
impulses to the Bullet bodies.

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
   reports ``sliding``; slip tyres pull by their own curve instead
   (:mod:`physics.model.tyres`).

Spring stiffness and damping are derived, never typed: each anchor's share of
the sprung mass comes from the static balance of the anchors about the centre
of mass, and ``k = m (2 pi f)^2``, ``c = 2 zeta sqrt(k m)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from common.spec import Spec, SpecError, tuning
from physics.model import kernel_tables as tables


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

    grip: float = tuning("static friction coefficient on hardpan (the reference surface; "
                         "others scale it): most ground force as a share of load",
                         minimum=0.05, maximum=3.0)
    sliding_grip: float = tuning("friction coefficient while sliding, on hardpan",
                                 minimum=0.01, maximum=3.0)
    grip_frequency_hz: float = tuning("stiffness of the grip's stick spring, as a natural "
                                      "frequency of the anchor's mass share", minimum=0.5,
                                      maximum=30.0)
    grip_damping_ratio: float = tuning("damping of the grip's stick spring", minimum=0.05,
                                       maximum=2.0)
    rolling_resistance: float = tuning("force against rolling as a share of load, on "
                                       "hardpan (other surfaces add theirs)", minimum=0.0,
                                       maximum=0.5)

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

    @staticmethod
    def of_rows(rows: np.ndarray) -> GroundHits:
        """Hits given as the kernel reads them (:meth:`rows`), each field a view."""
        return _TableHits(rows)

    def rows(self) -> np.ndarray:
        """The hits as the anchor kernel reads them, (EXACT_ROWS, N) in the order of
        :mod:`~physics.model.kernel_tables`' ``EXACT_*`` rows (flags as 0 or 1)."""
        return np.concatenate((
            np.asarray(self.hit, dtype=float)[None], np.asarray(self.distance_m)[None],
            np.asarray(self.point_ws).T, np.asarray(self.normal_ws).T,
            np.asarray(self.ground_velocity_ws).T, np.asarray(self.grip_scale)[None],
            np.asarray(self.rolling_resistance)[None]))


class _TableHits(GroundHits):
    """Hits made as the kernel's table (a query that casts ray by ray builds it at once):
    :meth:`rows` is the table itself, and a field is a view of it made when first read
    (the model reads only the table)."""

    _FIELDS = {"hit": (tables.EXACT_HIT, 1), "distance_m": (tables.EXACT_DISTANCE, 1),
               "point_ws": (tables.EXACT_POINT, 3), "normal_ws": (tables.EXACT_NORMAL, 3),
               "ground_velocity_ws": (tables.EXACT_GROUND_VELOCITY, 3),
               "grip_scale": (tables.EXACT_GRIP, 1),
               "rolling_resistance": (tables.EXACT_ROLLING, 1)}
    """Each field's first row in the table, and how many rows it takes."""

    def __init__(self, rows: np.ndarray):  # the fields come from the table, when read
        self._table = rows

    def __getattr__(self, name: str):
        if name not in _TableHits._FIELDS:
            raise AttributeError(name)
        first, count = _TableHits._FIELDS[name]
        value = (self._table[first] > 0.5 if name == "hit" else self._table[first]
                 if count == 1 else self._table[first:first + count].T)
        setattr(self, name, value)
        return value

    def rows(self) -> np.ndarray:
        return self._table


class GroundQuery(Protocol):
    """How the model sees the world besides the terrain's height array: rays, and nothing
    else (as Bullet's vehicle sees it through its raycaster)."""

    def cast(self, origins_ws: np.ndarray, directions_ws: np.ndarray, length_m: np.ndarray,
             min_ground_up: np.ndarray, rays: np.ndarray) -> GroundHits:
        """Cast M rays (origins and unit directions (M, 3)) each up to its ``length_m``
        (M,); surfaces whose normal has ``normal . -direction`` below the ray's
        ``min_ground_up`` (M,) are not ground (its vehicle's: the kinds' differ). ``rays``
        (M,) are the rays' anchor indices (vehicle v's anchor a is ``v * A + a``), so a
        query can skip each ray's own vehicle."""


@dataclass
class AnchorCommand:
    """What the drive asks of every anchor this step, arrays (V, A)."""

    surface_speed_mps: np.ndarray  # track belt / wheel rim speed to pull toward, + forward
    force_limit_n: np.ndarray     # most force the engine or brake gives there, >= 0
    steer_rad: np.ndarray         # heading from the hull's forward, + to the right
    grip_scale: np.ndarray        # share of the grip available (a handbrake lowers it)
    force_bias_n: np.ndarray | None = None
    """A track's drive stays within ``force_limit_n`` of this (+ forward; None: of 0): the
    engine's share while the steer unit, limited to its own force, turns the tracks
    apart."""

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
    finite: bool | None = None
    """Every total is finite (None: not known, the reader checks)."""
