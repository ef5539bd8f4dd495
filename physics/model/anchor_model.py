"""The anchor model of one kind of vehicle: its state between substeps, and each substep
handed to the anchor kernel (:mod:`physics.model.anchor_kernel`).

It reaches the world only through what it is given for a substep, as Bullet's vehicle
reaches it through its raycaster: the terrain's height array, which the kernel casts
every ray against, and a :class:`~physics.model.anchors.GroundQuery` that casts the rays
marked ``exact`` beforehand (through Bullet where a rock, a crate or another vehicle may
be under them; any ground at all in tests).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from common.compiled import compiled_loop
from common.spec import KMH_PER_MPS
from physics.model import anchor_kernel as kernel
from physics.model import kernel_tables as tables
from physics.model.anchors import (AnchorCommand, AnchorConstants, AnchorImpulses, AnchorReport,
                                   BodyStates, GripSpec, GroundQuery)
from physics.model.terrain import Terrain, TerrainTables
from physics.model.tyres import SlipTyreSpec, WheelSpinSpec


def anchor_table(constants: AnchorConstants, drive_share: np.ndarray, side: np.ndarray
                 ) -> np.ndarray:
    """Per anchor, the constants the kernel reads: (A, ANCHOR_COLUMNS). ``drive_share``
    and ``side`` (A,): see :mod:`physics.model.kernel_tables`."""
    c = constants
    table = np.empty((len(c.position_bs), tables.ANCHOR_COLUMNS))
    table[:, tables.X:tables.Z + 1] = c.position_bs
    for column, values in ((tables.MASS, c.mass_share_kg), (tables.STIFFNESS, c.stiffness_n_m),
                           (tables.DAMPING, c.damping_n_s_m),
                           (tables.BUMP_STIFFNESS, c.bump_stiffness_n_m),
                           (tables.BUMP_DAMPING, c.bump_damping_n_s_m),
                           (tables.GRIP_STIFFNESS, c.grip_stiffness_n_m),
                           (tables.GRIP_DAMPING, c.grip_damping_n_s_m),
                           (tables.PATCH, c.patch_offset_m),
                           (tables.NEGATIVE_COMPLIANCE, -1.0 / c.grip_stiffness_n_m),
                           (tables.STATIC_LOAD, c.static_load_n),
                           (tables.DRIVE_SHARE, drive_share), (tables.SIDE, side)):
        table[:, column] = values
    return table


def model_entries(constants: AnchorConstants, grip: GripSpec, slip: SlipTyreSpec | None,
                  spin: WheelSpinSpec | None = None) -> np.ndarray:
    """The vehicle kind's constants the kernel reads: (MODEL_ENTRIES,). ``spin``: its
    wheels' inertia and drag (a kind with wheels has them)."""
    entries = np.zeros(tables.MODEL_ENTRIES)
    entries[tables.RAY_LENGTH] = constants.ray_length_m
    entries[tables.TRAVEL] = constants.travel_m
    entries[tables.MIN_GROUND_UP] = constants.min_ground_up
    entries[tables.GRIP] = grip.grip
    entries[tables.SLIDING_GRIP] = grip.sliding_grip
    entries[tables.ROLLING] = grip.rolling_resistance
    entries[tables.WHEEL_RADIUS] = constants.wheel_radius_m
    if constants.wheel_radius_m <= 0.0:
        entries[tables.TYRE] = tables.NO_WHEELS
        return entries
    if spin is None:
        raise ValueError("a vehicle with wheels needs their WheelSpinSpec")
    entries[tables.WHEEL_INERTIA] = spin.wheel_inertia_kg_m2
    entries[tables.BEARING_DRAG] = spin.bearing_drag_n_m
    if slip is None:
        entries[tables.TYRE] = tables.GRIP_TYRES
    else:
        entries[tables.TYRE] = tables.SLIP_TYRES
        entries[tables.PEAK_SLIP_RATIO] = slip.peak_slip_ratio
        entries[tables.PEAK_ANGLE_TAN] = math.tan(math.radians(slip.peak_slip_angle_deg))
        entries[tables.SLIDING_SHARE] = slip.sliding_share
        entries[tables.LOAD_SENSITIVITY] = slip.load_sensitivity
        entries[tables.GRIP_MODEL_BELOW_MPS] = slip.grip_model_below_kmh / KMH_PER_MPS
    return entries


_NO_TERRAIN = TerrainTables(np.zeros((1, 1, 6)), np.zeros((1, 1, 4)),
                            np.zeros((1, 1), dtype=np.int64), np.ones(7), np.zeros((1, 2, 2)))
"""The terrain's tables when there is none (every ray is cast beforehand)."""
_NO_HITS = np.zeros((tables.EXACT_ROWS, 0))
"""The hits cast beforehand when there are none."""


class _Substep(NamedTuple):
    """One substep's results, from which its :class:`AnchorReport` is made when read."""

    results: np.ndarray
    steer_rad: np.ndarray
    wheel_radius_m: np.ndarray
    """Each vehicle's wheels' radius (V,; 0: tracks)."""

    def report(self) -> AnchorReport:
        rows = self.results
        vehicles, anchors = self.steer_rad.shape
        shape = (vehicles, anchors)
        hit = rows[tables.HIT] > 0.5
        along, spin = rows[tables.ALONG], rows[tables.SPIN]
        reference = np.maximum(np.abs(along), tables.SLIP_REFERENCE_SPEED_MPS)
        radius_m = np.repeat(self.wheel_radius_m, anchors)
        slip_ratio = (np.where(hit & (radius_m > 0.0), (spin * radius_m - along) / reference,
                               0.0)
                      if np.count_nonzero(radius_m) else np.zeros(hit.shape))

        def vectors(first: int) -> np.ndarray:
            return rows[first:first + 3].T.reshape(vehicles, anchors, 3)

        return AnchorReport(
            hit.reshape(shape), rows[tables.COMPRESSION].reshape(shape),
            rows[tables.LOAD].reshape(shape), ((rows[tables.SLIDING] > 0.5) & hit).reshape(shape),
            vectors(tables.POINT), vectors(tables.NORMAL), vectors(tables.ORIGIN),
            vectors(tables.DOWN), self.steer_rad.copy(), spin.reshape(shape),
            rows[tables.SPIN_ANGLE].reshape(shape), slip_ratio.reshape(shape),
            np.where(hit, np.arctan2(rows[tables.ACROSS], reference), 0.0).reshape(shape))


def _ray_reach_m(constants: AnchorConstants) -> float:
    """How far from its centre of mass every ray of a vehicle with ``constants`` ends."""
    return (float(np.max(np.linalg.norm(constants.position_bs, axis=1)))
            + constants.ray_length_m)


def _read_only(array: np.ndarray) -> np.ndarray:
    """``array``, or a read-only view of it: a track's steer and grip arrays are shared
    read-only, a wheel's are made each step; handed over alike, the kernel is compiled
    once for both."""
    if not array.flags.writeable:
        return array
    view = array.view()
    view.flags.writeable = False
    return view


def _resized(array: np.ndarray, count: int) -> np.ndarray:
    """``array`` with ``count`` rows: kept rows first, new rows zero."""
    grown = np.zeros((count,) + array.shape[1:])
    kept = min(count, len(array))
    grown[:kept] = array[:kept]
    return grown


class AnchorModel:
    """Steps the anchors of V vehicles; holds what carries over between substeps: the grip
    springs' stretch, the terrain casts' distances, the wheels' spin, and what the driven
    anchors last passed back to the engine.

    The vehicles may be of several kinds with the same number of anchors (a light, a
    medium and a heavy tank): each kind's constants are a table of its own, and each
    vehicle reads its kind's in the one loop over them all. The model is made for its
    first kind (kind 0); :meth:`add_kind` adds more.

    ``drive_share`` and ``side`` (A,): each anchor's share of the engine's drive and its
    track (:mod:`physics.model.kernel_tables`); by default every anchor drives alike and
    none is on a track."""

    def __init__(self, constants: AnchorConstants, grip: GripSpec,
                 slip: SlipTyreSpec | None = None, spin: WheelSpinSpec | None = None,
                 drive_share: np.ndarray | None = None, side: np.ndarray | None = None):
        self.constants = constants
        """The first kind's constants."""
        self.anchors = len(constants.position_bs)
        self._kind_constants = [constants]
        self._kind_tables = anchor_table(
            constants, np.full(self.anchors, 1.0 / self.anchors) if drive_share is None
            else drive_share, np.zeros(self.anchors) if side is None else side)[None]
        """Per kind, the anchors' rows (K, A, ANCHOR_COLUMNS)."""
        self._kind_entries = model_entries(constants, grip, slip, spin)[None]
        """Per kind, the model's entries (K, MODEL_ENTRIES)."""
        self.kind = np.zeros(0, dtype=np.int64)
        """Each vehicle's kind."""
        self._table = self._kind_tables[self.kind]
        self._entries = self._kind_entries[self.kind]
        self.ray_reach_m = _ray_reach_m(constants)
        """Every ray of every vehicle ends within this of its centre of mass: the largest of
        their kinds' (the first kind's while there are none)."""
        self._deflection = np.zeros((2, 0))
        """The grip springs' stretch along and across each anchor's heading, rows (2, N)."""
        self._last_distance = np.zeros(0)
        self._warm = False
        """Whether ``_last_distance`` holds the terrain casts of these same rays."""
        self.spin_speed_rad_s = np.zeros((0, self.anchors))
        self.spin_angle_rad = np.zeros((0, self.anchors))
        self.driveline = np.zeros((0, tables.DRIVELINE_COLUMNS))
        """Per vehicle, what its driven anchors did in the last substep, for the engine."""
        self._no_exact = np.zeros(0, dtype=np.bool_)
        self._no_bias = np.zeros((0, self.anchors))
        self._last: _Substep | None = None
        self._report: AnchorReport | None = None

    def add_kind(self, other: AnchorModel) -> int:
        """Step vehicles of ``other``'s first kind too (a model made for it, with as many
        anchors); return the number of that kind here."""
        if other.anchors != self.anchors:
            raise ValueError(f"a kind with {other.anchors} anchors in a model of "
                             f"{self.anchors}")
        self._kind_constants.append(other.constants)
        self._kind_tables = np.concatenate([self._kind_tables, other._kind_tables[:1]])
        self._kind_entries = np.concatenate([self._kind_entries, other._kind_entries[:1]])
        return len(self._kind_constants) - 1

    def constants_of(self, vehicle: int) -> AnchorConstants:
        """One vehicle's constants (its kind's)."""
        return self._kind_constants[self.kind[vehicle]]

    def _kinds_changed(self) -> None:
        """The vehicles' rows of constants, made again from their kinds."""
        self._table = np.ascontiguousarray(self._kind_tables[self.kind])
        self._entries = np.ascontiguousarray(self._kind_entries[self.kind])
        self.ray_reach_m = max((_ray_reach_m(self._kind_constants[kind])
                                for kind in set(self.kind.tolist())),
                               default=_ray_reach_m(self._kind_constants[0]))

    @property
    def report(self) -> AnchorReport | None:
        """What every anchor did in the last substep (None before the first); made when
        first read, at most once a substep."""
        if self._report is None and self._last is not None:
            self._report = self._last.report()
        return self._report

    @property
    def deflection_m(self) -> np.ndarray:
        """The grip springs' stretch (V, A, 2): along and across each anchor's heading."""
        return self._deflection.T.reshape(-1, self.anchors, 2)

    def resize(self, count: int, kind: int = 0) -> None:
        """Keep the state of the first ``count`` vehicles; new ones, of ``kind``, start
        relaxed and still."""
        kept = self.kind[:count]
        self.kind = np.concatenate([kept, np.full(count - len(kept), kind, dtype=np.int64)])
        self._kinds_changed()
        self._deflection = np.ascontiguousarray(_resized(self.deflection_m, count)
                                                .reshape(-1, 2).T)
        self.spin_speed_rad_s = _resized(self.spin_speed_rad_s, count)
        self.spin_angle_rad = _resized(self.spin_angle_rad, count)
        self.driveline = _resized(self.driveline, count)
        self._new_casts(count)

    def _new_casts(self, count: int) -> None:
        """The terrain casts' carried distances and exact-cast flags, fresh for ``count``
        vehicles (the rows changed: none of the old ones can be trusted)."""
        self._last_distance = np.zeros(count * self.anchors)
        self._warm = False
        self._no_exact = np.zeros(count * self.anchors, dtype=np.bool_)

    def _columns(self, vehicle: int) -> slice:
        """One vehicle's columns of the per-anchor rows."""
        return slice(vehicle * self.anchors, (vehicle + 1) * self.anchors)

    def vehicle_state(self, vehicle: int) -> tuple[np.ndarray, ...]:
        """One vehicle's carried-over state (grip stretch, wheel spin and angle, driveline
        sums), copied."""
        return (self._deflection[:, self._columns(vehicle)].copy(),
                self.spin_speed_rad_s[vehicle].copy(), self.spin_angle_rad[vehicle].copy(),
                self.driveline[vehicle].copy())

    def set_vehicle_state(self, vehicle: int, state: tuple) -> None:
        (self._deflection[:, self._columns(vehicle)], self.spin_speed_rad_s[vehicle],
         self.spin_angle_rad[vehicle], self.driveline[vehicle]) = state
        self._warm = False

    def remove(self, vehicle: int) -> None:
        """Forget one vehicle's state; the vehicles after it move down one index."""
        self._deflection = np.ascontiguousarray(np.delete(
            self._deflection, np.r_[self._columns(vehicle)], axis=1))
        self.spin_speed_rad_s = np.delete(self.spin_speed_rad_s, vehicle, axis=0)
        self.spin_angle_rad = np.delete(self.spin_angle_rad, vehicle, axis=0)
        self.driveline = np.delete(self.driveline, vehicle, axis=0)
        self.kind = np.delete(self.kind, vehicle)
        self._kinds_changed()
        self._new_casts(len(self.spin_speed_rad_s))
        self._last = self._report = None  # its rows no longer match the vehicles

    def relax(self, vehicle: int) -> None:
        """Forget one vehicle's grip stretch and wheel spin (it was set down afresh), and
        where the rays met the ground: the next casts start afresh, as a new vehicle's do."""
        self._deflection[:, self._columns(vehicle)] = 0.0
        self.spin_speed_rad_s[vehicle] = 0.0
        self.driveline[vehicle] = 0.0
        self._warm = False

    @property
    def table(self) -> np.ndarray:
        """Each vehicle's anchors' rows (V, A, ANCHOR_COLUMNS) as the compiled loops read
        them (shared: do not change it), what
        :func:`physics.model.ray_narrowing.fleet_rays_meeting_links` makes rays of."""
        return self._table

    def rays(self, position_ws: np.ndarray, axes_ws: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray]:
        """Anchor origins and ray directions (V, A, 3) of hulls at ``position_ws`` (V, 3)
        with ``axes_ws`` (V, 3, 3): down each hull's -Z."""
        count = len(position_ws) * self.anchors
        cast = np.empty((count, _CAST_COLUMNS))
        _rays_to_cast(position_ws, axes_ws, self._table, self._entries,
                      np.arange(count, dtype=np.int64), cast)
        return cast[:, 0:3].reshape(-1, self.anchors, 3), cast[:, 3:6].reshape(-1, self.anchors, 3)

    def step(self, states: BodyStates, command: AnchorCommand, substep_s: float,
             terrain: Terrain | None = None, query: GroundQuery | None = None,
             exact: np.ndarray | None = None, ground_ready: bool = False) -> AnchorImpulses:
        """One substep for every anchor of every vehicle.

        Each ray is cast against ``terrain``'s height array; the rays marked in ``exact``
        (N,), every ray when there is no terrain, are cast beforehand by ``query``.
        ``ground_ready``: the terrain's tiles under every ray were made for the whole step
        (:meth:`prepare_ground`), not to be looked at again in each substep.
        """
        vehicles = len(states.position_ws)
        count = vehicles * self.anchors
        exact, exact_hits = self._cast_exact(states, terrain, query, exact, count)
        ground_tables = _NO_TERRAIN
        if terrain is not None:
            if not ground_ready:
                self.prepare_ground(states, terrain)
            ground_tables = terrain.tables
        linear, angular = np.empty((vehicles, 3)), np.empty((vehicles, 3))
        impulse, results = np.empty((3, count)), np.empty((tables.RESULT_ROWS, count))
        finite = kernel.anchor_substep(
            states.position_ws, states.axes_ws, states.velocity_ws,
            states.angular_velocity_ws, command.surface_speed_mps, command.force_limit_n,
            self._bias(command), _read_only(command.steer_rad), _read_only(command.grip_scale), self._table,
            self._entries, ground_tables.planes, ground_tables.ground,
            ground_tables.directory, ground_tables.lookup, terrain is not None, exact,
            exact_hits,
            self._deflection, self._last_distance, self._warm, self.spin_speed_rad_s.reshape(-1),
            self.spin_angle_rad.reshape(-1), substep_s, linear, angular, impulse, results,
            self.driveline)
        self._warm = self._warm or terrain is not None
        self._last = _Substep(results, command.steer_rad, self._entries[:, tables.WHEEL_RADIUS])
        self._report = None
        return AnchorImpulses(impulse.T.reshape(vehicles, self.anchors, 3), linear, angular,
                              finite)

    def _bias(self, command: AnchorCommand) -> np.ndarray:
        """The command's force bias (zeros, kept, when it has none)."""
        if command.force_bias_n is not None:
            return command.force_bias_n
        if self._no_bias.shape != command.force_limit_n.shape:
            self._no_bias = np.zeros(command.force_limit_n.shape)
            self._no_bias.setflags(write=False)
        return self._no_bias

    def prepare_ground(self, states: BodyStates, terrain: Terrain, travel_m: float = 0.0
                       ) -> None:
        """Have the terrain make the tiles every ray of these vehicles may reach, from where
        they are or anywhere within ``travel_m`` of it."""
        if not terrain.tiles_on_demand:
            return
        reach_m = self.ray_reach_m + travel_m
        xs, ys = states.position_ws[:, :2].T.tolist()  # cheaper than numpy on a fleet
        low_x, low_y, high_x, high_y = min(xs), min(ys), max(xs), max(ys)
        terrain.prepare_box(low_x - reach_m, low_y - reach_m, high_x + reach_m,
                            high_y + reach_m)

    def _cast_exact(self, states, terrain, query, exact, count
                    ) -> tuple[np.ndarray, np.ndarray]:
        """The per-ray flags and the rows of the hits ``query`` cast (all rays without
        terrain)."""
        if terrain is None:
            exact = np.ones(count, dtype=np.bool_)
        if exact is None or query is None or not np.count_nonzero(exact):
            return self._no_exact, _NO_HITS
        rays = np.flatnonzero(exact)
        cast = np.empty((len(rays), _CAST_COLUMNS))
        _rays_to_cast(states.position_ws, states.axes_ws, self._table, self._entries, rays,
                      cast)
        hits = query.cast(cast[:, 0:3], cast[:, 3:6], cast[:, 6], cast[:, 7], rays)
        # The hits' rows go in with one assignment (a ray near a rock is cast in most
        # substeps where a tank stands by one).
        rows = np.zeros((tables.EXACT_ROWS, count))
        rows[:, rays] = hits.rows()
        return np.ascontiguousarray(exact, dtype=np.bool_), rows


_CAST_COLUMNS = 8
"""A ray cast beforehand, as :func:`_rays_to_cast` gives it: origin, direction, length and
least upward facing of its ground."""


@compiled_loop
def _rays_to_cast(position, axes, anchors, entries, rays, cast):
    """Into ``cast`` (M, 8), for each ray in ``rays`` (anchor numbers, vehicle by vehicle):
    its origin and direction (the numbers the substep's own
    :func:`~physics.model.anchor_kernel._ray` gives it), and its vehicle's ray length and
    least upward facing of ground, in one pass (a ray or two a substep by a rock: one call,
    not a dozen array operations)."""
    count = anchors.shape[1]
    for m in range(rays.shape[0]):
        vehicle, anchor = rays[m] // count, rays[m] % count
        (cast[m, 0], cast[m, 1], cast[m, 2], cast[m, 3], cast[m, 4], cast[m, 5]) = kernel._ray(
            position[vehicle, 0], position[vehicle, 1], position[vehicle, 2],
            axes[vehicle, 0, 0], axes[vehicle, 0, 1], axes[vehicle, 0, 2],
            axes[vehicle, 1, 0], axes[vehicle, 1, 1], axes[vehicle, 1, 2],
            axes[vehicle, 2, 0], axes[vehicle, 2, 1], axes[vehicle, 2, 2],
            anchors[vehicle, anchor, tables.X], anchors[vehicle, anchor, tables.Y],
            anchors[vehicle, anchor, tables.Z])
        cast[m, 6] = entries[vehicle, tables.RAY_LENGTH]
        cast[m, 7] = entries[vehicle, tables.MIN_GROUND_UP]
