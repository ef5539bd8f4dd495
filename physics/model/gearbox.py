"""The H-pattern gearbox with its engine and clutch: gear selection, shifting and the
drive command, for many vehicles at once.

No Bullet, no Panda3D. One :class:`Gearbox` holds the state of ``count`` vehicles as
arrays and steps them all in one call (a loop compiled with numba where it is installed):
the engine and clutch of :mod:`physics.model.engine` through the engaged gear, each
vehicle's driveline read back from its anchors' last substep. The vehicles may be of
several kinds (:class:`GearboxKind`: a light, a medium and a heavy tank, each with its own
engine, torque curve and gears), each stepped with its own kind's tables. The vehicle
model then drives each vehicle's tracks or wheels toward ``DriveCommand.rim_speed_mps``
with at most ``DriveCommand.force_n``.

Each gear's overall ratio (gearbox times final drive) follows from its top speed: the
engine at the redline turns the tracks or wheels at that speed. Gears are indexed R, N, 1,
2, ... (``GearboxKind.names``). While a shift is under way no gear is engaged (``gear_index``
is N, ``target_index`` the selected gear), the clutch is out and the throttle closed for
``shift_time_s``; shifting into N is instant.

Engagement rules (requests that break them are refused with an event, never an
exception): R only below ``reverse_engage_below_kmh`` in either direction
(reason ``"moving"``); a forward gear not while rolling backwards at or above that
speed (``"moving"``: this covers leaving R while reversing), nor one whose top
speed is below the current speed (``"over_rev"``); an unknown name is refused
with ``"unknown"``. Requesting the selected gear again is a no-op. There are no separate
"grind" events: a refusal with reason ``"moving"`` is the grind, for audio to play.

Throttle is one axis in -1..1. The pedal is its positive part, except in automatic
mode in R, where the axis is a direction and the pedal is its negative part.
What a request did is a :class:`GearRequest`; which vehicles started or finished a
shift in a step is the :class:`GearboxStep` it returns (the game makes its events of
them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from common.spec import KMH_PER_MPS, Spec, SpecError, tuning
from physics.model.engine import (RPM_PER_RAD_S, ClutchSpec, Driveline, EngineSpec,
                                  engine_settings, torque_curve_table)
from physics.model.gear_stepping import step_gearboxes

REVERSE = "R"
NEUTRAL = "N"
FORWARD_NAMES = ("1", "2", "3", "4", "5")
FIRST = FORWARD_NAMES[0]


@dataclass(frozen=True)
class GearSpec(Spec):
    """One gear: how fast it tops out, which sets its ratio."""

    name: str = tuning("gear name: 'R' or a forward gear '1'..'5'", choices=(REVERSE,) + FORWARD_NAMES)
    top_speed_kmh: float = tuning("speed magnitude at which the engine reaches the redline in "
                                  "this gear (km/h): its ratio follows", minimum=0.1,
                                  maximum=1000.0)


@dataclass(frozen=True)
class GearboxSpec(Spec):
    """A vehicle kind's drivetrain: its engine, clutch, gears, shift and automatic tuning."""

    gears: tuple[GearSpec, ...] = tuning("one 'R' and forward gears '1'..'N' in order", length=(2, 6))
    idle_rpm: float = tuning("engine speed at rest or in neutral off the throttle (rpm)", minimum=100.0, maximum=20000.0)
    redline_rpm: float = tuning("engine speed at a gear's top speed (rpm)", minimum=100.0, maximum=20000.0)
    final_drive_ratio: float = tuning("the final drive's reduction, behind the gearbox's (the "
                                      "gear ratios are the overall ones divided by it)",
                                      minimum=0.1, maximum=100.0)
    driveline_inertia_kg_m2: float = tuning("the gearbox's and shafts' inertia, at the engine",
                                            minimum=0.001, maximum=100.0)
    engine: EngineSpec = tuning("torque curve, inertia, governor and limiter")
    clutch: ClutchSpec = tuning("the automatic clutch")
    shift_time_s: float = tuning("duration of a shift, with no drive meanwhile (s)", minimum=0.0, maximum=5.0)
    reverse_engage_below_kmh: float = tuning("R, or a forward gear while reversing, only below this speed (km/h)",
                                             minimum=0.1, maximum=50.0)
    hold_below_kmh: float = tuning("in gear off the throttle on the ground below this speed, or "
                                   "rolling against the gear's way, the brakes hold the vehicle "
                                   "(a hill hold)",
                                   minimum=0.0, maximum=20.0)
    automatic_upshift_fraction: float = tuning("automatic: shift up above this fraction of the gear's top speed",
                                               minimum=0.1, maximum=1.0)
    automatic_downshift_fraction: float = tuning("automatic: shift down below this fraction of the gear's top speed",
                                                 minimum=0.0, maximum=1.0)

    def __post_init__(self) -> None:
        super().__post_init__()
        names = [gear.name for gear in self.gears]
        if names.count(REVERSE) != 1:
            raise SpecError("gears", names, "exactly one gear named 'R'")
        forward = [(index, gear) for index, gear in enumerate(self.gears) if gear.name != REVERSE]
        for number, (index, gear) in enumerate(forward):
            if gear.name != FORWARD_NAMES[number]:
                raise SpecError(f"gears[{index}].name", gear.name,
                                f"'{FORWARD_NAMES[number]}' (forward gears listed in order 1, 2, ...)")
            if number == 0:
                continue
            previous = forward[number - 1][1]
            if gear.top_speed_kmh <= previous.top_speed_kmh:
                raise SpecError(f"gears[{index}].top_speed_kmh", gear.top_speed_kmh,
                                f"above gear {previous.name}'s {previous.top_speed_kmh} km/h")
        if self.redline_rpm <= self.idle_rpm:
            raise SpecError("redline_rpm", self.redline_rpm, f"above idle_rpm ({self.idle_rpm})")
        self._check_engine()
        up, down = self.automatic_upshift_fraction, self.automatic_downshift_fraction
        if down >= up:
            raise SpecError("automatic_downshift_fraction", down, f"below automatic_upshift_fraction ({up})")
        for (_, low), (_, high) in zip(forward, forward[1:]):
            if down * high.top_speed_kmh >= up * low.top_speed_kmh:  # would shift straight back: hunting
                raise SpecError("automatic_downshift_fraction", down,
                                f"below {up * low.top_speed_kmh / high.top_speed_kmh:.3f} so that gear "
                                f"{high.name} does not shift back down right after the upshift from {low.name}")


    def rad_s_per_mps(self, name: str) -> float:
        """Gear ``name``'s engine speed per m/s of rim speed: the redline at its top speed."""
        top_kmh = next(gear.top_speed_kmh for gear in self.gears if gear.name == name)
        return self.redline_rpm / RPM_PER_RAD_S / (top_kmh / KMH_PER_MPS)

    def _check_engine(self) -> None:
        """The torque curve spans idle to redline; the clutch bites above idle (a vehicle at
        idle in gear stands still) and locks by the redline."""
        curve = self.engine.torque_curve
        if curve[0].rpm > self.idle_rpm:
            raise SpecError("engine.torque_curve[0].rpm", curve[0].rpm,
                            f"at most idle_rpm ({self.idle_rpm})")
        if curve[-1].rpm < self.redline_rpm:
            raise SpecError(f"engine.torque_curve[{len(curve) - 1}].rpm", curve[-1].rpm,
                            f"at least redline_rpm ({self.redline_rpm})")
        if self.clutch.bite_rpm <= self.idle_rpm:
            raise SpecError("clutch.bite_rpm", self.clutch.bite_rpm,
                            f"above idle_rpm ({self.idle_rpm})")
        if self.clutch.lock_rpm > self.redline_rpm:
            raise SpecError("clutch.lock_rpm", self.clutch.lock_rpm,
                            f"at most redline_rpm ({self.redline_rpm})")


class GearRequest(NamedTuple):
    """What asking one vehicle for a gear did."""

    outcome: str
    """"started" (a shift is under way), "shifted" (engaged at once: into N), "refused"
    or "unchanged" (that gear was selected already)."""
    from_gear: str
    to_gear: str
    reason: str = ""
    """Why it was refused: "moving", "over_rev" or "unknown" ("": it was not)."""


class DriveCommand(NamedTuple):
    """What the engine asks of each vehicle this step (arrays, one entry per vehicle)."""

    rim_speed_mps: np.ndarray  # signed forward speed of the tracks or driven wheels to drive toward (m/s)
    force_n: np.ndarray        # most force the clutch passes to them, all together (N, >= 0)
    rpm: np.ndarray            # engine speed (rpm)
    hold: np.ndarray           # in gear, off the throttle, nearly still or rolling back: held
    push_n: np.ndarray         # the force the clutch passes, signed (N, + forward)


class GearboxStep(NamedTuple):
    """One step of every gearbox: the drive command, and per vehicle whether an automatic
    shift started and whether a shift finished in it (``Gearbox.shift_names`` says which)."""

    command: DriveCommand
    started: np.ndarray
    finished: np.ndarray


def gate_layout(forward_count: int) -> dict[str, tuple[float, float]]:
    """Lever position (column, row) of each gear in the H gate; N is (0, 0).

    Forward gears fill the columns pairwise top (+1) then bottom (-1): 1-2, 3-4,
    5-R for five gears; R takes the slot after the last forward gear. Columns are
    centred on N, so they may be half-integers for an even column count.
    """
    slots = list(FORWARD_NAMES[:forward_count]) + [REVERSE]
    columns = (len(slots) + 1) // 2
    centre = (columns - 1) / 2
    layout = {name: (slot // 2 - centre, 1.0 if slot % 2 == 0 else -1.0) for slot, name in enumerate(slots)}
    layout[NEUTRAL] = (0.0, 0.0)
    return layout


def _per_vehicle(values, count: int) -> np.ndarray:
    """``values`` as ``count`` floats: an array of that many as it is, a scalar repeated."""
    if isinstance(values, np.ndarray) and values.shape == (count,) and values.dtype == float:
        return values
    return np.broadcast_to(np.asarray(values, dtype=float), (count,))


REVERSE_INDEX, NEUTRAL_INDEX, FIRST_INDEX = 0, 1, 2
"""The gear indices of R, N and 1 in every kind's gear list (R, N, 1, 2, ...)."""


class GearboxKind:
    """What one vehicle kind's gearboxes share: its spec and gears, and the tables a step
    reads for them (made once, from the spec and the kind's driveline)."""

    def __init__(self, spec: GearboxSpec, driveline: Driveline):
        self.spec = spec
        gears = {gear.name: gear for gear in spec.gears}
        forward = [name for name in FORWARD_NAMES if name in gears]
        self.names: tuple[str, ...] = (REVERSE, NEUTRAL, *forward)
        """The gears by index: R, N, 1, 2, ..."""
        self.reverse, self.neutral, self.first = REVERSE_INDEX, NEUTRAL_INDEX, FIRST_INDEX
        self.top = len(self.names) - 1
        self.gate = gate_layout(len(forward))
        table = [gears.get(name) for name in self.names]
        self.top_mps = np.array([g.top_speed_kmh / KMH_PER_MPS if g else 0.0 for g in table])
        """Per gear: its top speed (m/s; 0 in N)."""
        self.direction = np.array([-1.0, 0.0] + [1.0] * len(forward))
        """Per gear: which way it drives (+1 forward, -1 R, 0 N)."""
        self.reverse_engage_mps = spec.reverse_engage_below_kmh / KMH_PER_MPS
        engaged = self.top_mps > 0.0
        rad_s_per_mps = np.array([spec.rad_s_per_mps(name) if gear else 0.0
                                  for name, gear in zip(self.names, table)])
        self.overall_ratios = rad_s_per_mps * driveline.radius_m
        """Per gear: engine turns per turn of the sprockets or driven wheels (0 in N)."""
        self.gear_ratios = self.overall_ratios / spec.final_drive_ratio
        """Per gear: the gearbox's own ratio, before the final drive."""
        gear_numbers = np.arange(len(self.names))
        forward_gear = gear_numbers >= self.first
        self.stepping_table = np.column_stack([
            rad_s_per_mps * self.direction,
            spec.driveline_inertia_kg_m2 + driveline.rim_inertia_kg_m2
            / np.where(engaged, self.overall_ratios, 1.0) ** 2,
            np.where(forward_gear & (gear_numbers < self.top),
                     spec.automatic_upshift_fraction * self.top_mps, np.inf),
            np.where(forward_gear & (gear_numbers > self.first),
                     spec.automatic_downshift_fraction * self.top_mps, -np.inf)])
        """Per gear, what a step reads of it in one look-up: engine rad/s per m/s of forward
        rim speed (signed; 0 in N), the driveline's own inertia at the engine, and the
        speeds automatic mode shifts up above and down below (never, where there is no gear
        to shift to). N's row (no drive, never shifted to or from) is also what pads the
        table where another kind has more gears."""
        self.settings = np.array([self.reverse_engage_mps, spec.shift_time_s,
                                  spec.hold_below_kmh / KMH_PER_MPS])
        """What a step reads of the kind besides: reverse engage speed (m/s), shift time
        (s), hill hold speed (m/s)."""
        self.engine = np.array(engine_settings(spec.engine, spec.clutch, spec.idle_rpm,
                                               spec.redline_rpm, driveline))
        """:mod:`physics.model.engine`'s settings array."""
        self.curve = np.array(torque_curve_table(spec.engine))
        """The torque curve table (rows: rpm, full throttle, closed throttle)."""


def _stacked(tables: list[np.ndarray], pads: list[np.ndarray]) -> np.ndarray:
    """Per-kind tables of rows stacked into one (kinds, most rows, columns) array: each
    kind's own rows, then its ``pads`` row repeated to the longest one's length."""
    rows = max(len(table) for table in tables)
    return np.ascontiguousarray(np.stack([
        np.concatenate([table, np.repeat(pad[np.newaxis], rows - len(table), axis=0)])
        for table, pad in zip(tables, pads)]))


class Gearbox:
    """The gearboxes of ``count`` vehicles, stepped together; they may be of several kinds
    (each a :class:`GearboxKind`: its own engine, curve and gears).

    ``Gearbox(spec, count)`` makes kind 0 of ``spec`` and ``count`` vehicles of it;
    :meth:`add_kind` makes further kinds, :meth:`add_vehicle` a vehicle of any of them.
    State (numpy arrays over vehicles): ``kind`` (index into ``kinds``), ``gear_index``
    (engaged gear; N during a shift), ``target_index`` (the selected gear), ``from_index``
    (gear a running shift started from), ``shift_left_s``, ``automatic`` and ``rpm``.
    """

    def __init__(self, spec: GearboxSpec, count: int, automatic: bool | np.ndarray = False,
                 *, driveline: Driveline):
        self.kinds: list[GearboxKind] = []
        self.add_kind(spec, driveline)
        self.count = count
        self.kind = np.zeros(count, dtype=np.int64)
        """Each vehicle's kind (index into ``kinds``)."""
        self.gear_index = np.full(count, NEUTRAL_INDEX, dtype=np.int64)
        self.target_index = self.gear_index.copy()
        self.from_index = self.gear_index.copy()
        self.shift_left_s = np.zeros(count)
        self.automatic = np.broadcast_to(np.asarray(automatic, dtype=bool), (count,)).copy()
        self.rpm = np.full(count, spec.idle_rpm)
        self.speed_mps = np.zeros(count)
        """Each vehicle's forward speed at the start of the last step."""
        self.power_share = np.ones(count)
        """Each vehicle's engine torque as a share of its own (a damaged engine's is less)."""

    def add_kind(self, spec: GearboxSpec, driveline: Driveline) -> int:
        """A further vehicle kind (its gearbox spec, and the driveline its engine drives);
        return its number, for :meth:`add_vehicle`."""
        self.kinds.append(GearboxKind(spec, driveline))
        kinds = self.kinds
        neutral_rows = [kind.stepping_table[NEUTRAL_INDEX] for kind in kinds]
        last_points = [kind.curve[-1] for kind in kinds]
        # The step's stacked per-kind tables, padded to the kind with the most gears and
        # the longest curve (a step reads only a kind's own rows of them).
        self._gears = _stacked([kind.stepping_table for kind in kinds], neutral_rows)
        self._curve = _stacked([kind.curve for kind in kinds], last_points)
        self._settings = np.ascontiguousarray(np.stack([kind.settings for kind in kinds]))
        self._engine = np.ascontiguousarray(np.stack([kind.engine for kind in kinds]))
        return len(kinds) - 1

    def kind_of(self, vehicle: int) -> GearboxKind:
        """The kind of one vehicle."""
        return self.kinds[int(self.kind[vehicle])]

    def add_vehicle(self, automatic: bool = False, kind: int = 0) -> int:
        """Grow the set by one vehicle of kind ``kind`` (in N, at idle); return its index."""
        if not 0 <= kind < len(self.kinds):
            raise ValueError(f"no gearbox kind {kind} (there are {len(self.kinds)})")
        self.kind = np.append(self.kind, np.int64(kind))
        self.gear_index = np.append(self.gear_index, NEUTRAL_INDEX)
        self.target_index = np.append(self.target_index, NEUTRAL_INDEX)
        self.from_index = np.append(self.from_index, NEUTRAL_INDEX)
        self.shift_left_s = np.append(self.shift_left_s, 0.0)
        self.automatic = np.append(self.automatic, bool(automatic))
        self.rpm = np.append(self.rpm, self.kinds[kind].spec.idle_rpm)
        self.speed_mps = np.append(self.speed_mps, 0.0)
        self.power_share = np.append(self.power_share, 1.0)
        self.count += 1
        return self.count - 1

    _STATE = ("gear_index", "target_index", "from_index", "shift_left_s", "automatic", "rpm",
              "speed_mps")

    def vehicle_state(self, vehicle: int) -> tuple:
        """One vehicle's gearbox as it stands (to set it back with :meth:`set_vehicle_state`)."""
        return tuple(getattr(self, name)[vehicle].item() for name in self._STATE)

    def set_vehicle_state(self, vehicle: int, state: tuple) -> None:
        for name, value in zip(self._STATE, state):
            getattr(self, name)[vehicle] = value

    def relax(self, vehicle: int) -> None:
        """The vehicle was set down afresh, standing: its engine back at idle (the lever
        stays where the driver left it)."""
        self.rpm[vehicle] = self.kind_of(vehicle).spec.idle_rpm
        self.speed_mps[vehicle] = 0.0

    def remove_vehicle(self, vehicle: int) -> None:
        """Shrink the set by one: the vehicles after ``vehicle`` move down one index."""
        for name in self._STATE + ("power_share", "kind"):
            setattr(self, name, np.delete(getattr(self, name), vehicle))
        self.count -= 1

    # ----- queries -------------------------------------------------------------
    def gear_name(self, vehicle: int) -> str:
        """The engaged gear of one vehicle ("N" while a shift is under way)."""
        return self.kind_of(vehicle).names[self.gear_index[vehicle]]

    def gear_direction(self, vehicle: int) -> float:
        """Which way one vehicle's engaged gear drives it: +1 forward, -1 in R, 0 in N."""
        return float(self.kind_of(vehicle).direction[self.gear_index[vehicle]])

    def gear_names(self) -> list[str]:
        """The engaged gear of every vehicle, in vehicle order."""
        kinds = self.kinds
        return [kinds[kind].names[index] for kind, index in zip(self.kind, self.gear_index)]

    def selected_name(self, vehicle: int) -> str:
        """The gear one vehicle has selected (the shift's destination while shifting)."""
        return self.kind_of(vehicle).names[self.target_index[vehicle]]

    @property
    def shifting(self) -> np.ndarray:
        """Per vehicle: a shift is under way."""
        return self.target_index != self.gear_index

    # ----- selection -----------------------------------------------------------
    def _refusal(self, vehicle: int, index: int, speed_mps: float) -> str | None:
        """Why gear ``index`` of ``vehicle``'s kind cannot be engaged at forward speed
        ``speed_mps``, or None."""
        kind = self.kind_of(vehicle)
        if index == kind.reverse and abs(speed_mps) >= kind.reverse_engage_mps:
            return "moving"
        if kind.direction[index] > 0:
            if speed_mps <= -kind.reverse_engage_mps:
                return "moving"
            if speed_mps > kind.top_mps[index]:
                return "over_rev"
        return None

    def request(self, vehicle: int, gear: str, forward_speed_mps: float) -> GearRequest:
        """Select ``gear`` ("R", "N", "1"...) on one vehicle moving at ``forward_speed_mps``
        (a gear its kind does not have is refused as unknown)."""
        vehicle = int(vehicle)
        kind = self.kind_of(vehicle)
        names = kind.names
        selected = names[self.target_index[vehicle]]
        if gear not in names:
            return GearRequest("refused", selected, gear, "unknown")
        index = names.index(gear)
        if index == self.target_index[vehicle]:
            return GearRequest("unchanged", selected, gear)
        reason = self._refusal(vehicle, index, float(forward_speed_mps))
        if reason is not None:
            return GearRequest("refused", selected, gear, reason)
        origin = self.from_index[vehicle] if self.shifting[vehicle] else self.gear_index[vehicle]
        self.from_index[vehicle] = origin
        self.target_index[vehicle] = index
        if index == kind.neutral:  # disengaging is instant
            self.gear_index[vehicle] = index
            self.shift_left_s[vehicle] = 0.0
            return GearRequest("shifted", names[origin], gear)
        self.gear_index[vehicle] = kind.neutral
        self.shift_left_s[vehicle] = kind.spec.shift_time_s
        return GearRequest("started", names[origin], gear)

    def set_automatic(self, vehicle: int, on: bool) -> None:
        """Turn automatic shifting on or off for one vehicle."""
        self.automatic[vehicle] = on

    # ----- stepping ------------------------------------------------------------
    def step(self, dt_s: float, forward_speed_mps: np.ndarray, throttle: np.ndarray,
             driveline: np.ndarray) -> GearboxStep:
        """Advance every vehicle by ``dt_s``; return this step's drive command and shifts.

        ``forward_speed_mps`` (signed, + forward) and ``throttle`` (-1..1) have one entry
        per vehicle (scalars broadcast); ``driveline`` (V,
        DRIVELINE_COLUMNS) is what each vehicle's driven anchors did in the last substep
        (:mod:`physics.model.kernel_tables`). The command holds for the whole step, from the
        state at its start; shifts that finish during it report at its end.
        """
        count = self.count
        rim_speed_mps, force_n, push_n = np.empty((3, count))
        hold, started, finished = np.zeros((3, count), dtype=np.bool_)
        step_gearboxes(
            dt_s, np.ascontiguousarray(_per_vehicle(forward_speed_mps, count)),
            np.ascontiguousarray(_per_vehicle(throttle, count)),
            np.ascontiguousarray(driveline, dtype=float), self.automatic,
            self.gear_index, self.target_index, self.from_index, self.shift_left_s, self.rpm,
            self.speed_mps, self.power_share, self.kind, self._gears, self._settings,
            self._engine, self._curve, REVERSE_INDEX, NEUTRAL_INDEX, FIRST_INDEX,
            rim_speed_mps, force_n, push_n, hold, started, finished)
        return GearboxStep(DriveCommand(rim_speed_mps, force_n, self.rpm.copy(), hold, push_n),
                           started, finished)

    def shift_names(self, vehicle: int) -> tuple[str, str]:
        """The gears one vehicle's latest shift went from and to."""
        names = self.kind_of(vehicle).names
        return names[self.from_index[vehicle]], names[self.target_index[vehicle]]
