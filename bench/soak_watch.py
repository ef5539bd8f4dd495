"""What the soaks watch: a run's steps checked for anything going wrong, its counters
and resident memory sampled, the memory judged by its slope (:mod:`bench.soak` says
what each counter means and how the slope is taken), and a player at random."""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from typing import Callable

import numpy as np

from bench.usage import resident_memory_mb
from game.sim.armour_hits import plate_on_line
from game.sim.controls import GEAR_NAMES, Controls
from game.sim.events import Event, Recovered, RoundEnd
from game.sim.guard import BELOW_GROUND, NON_FINITE
from game.sim.simulation import Simulation
from physics.model.pose import BodyState

SECONDS_PER_MINUTE = 60.0
SAMPLE_S = 15.0
"""Simulated seconds between two samples of the counters and the memory."""
INPUT_HOLD_S = 1.5
"""The random player holds each random input this long."""
SETTLE_MINUTES = 1.0
"""Simulated minutes left out of the memory's slope: the first matches fill caches,
compile loops and grow the allocator's arenas to their working size."""
MOST_SPEED_MPS = 100.0
"""No vehicle of ours goes this fast on its own (the tanks top out near 13 m/s, the buggy
near 45): faster is motion the physics made up, such as a body flung out of the ground."""
MOST_GROWTH_MB_PER_MINUTE = 0.1
"""The steepest slope of the resident memory that passes: about 6 MB an hour. A server
that leaked this much would grow by 150 MB a day."""

Disturb = Callable[[Simulation, int], None]
"""Called before each step with the simulation and the step's number (a test breaks a
vehicle on purpose through it, to see the soak catch it)."""


def _segment_crosses_box(start, end, centre, axes, half_extents) -> bool:
    """Does the segment start-end pass through the oriented box? (slab test)"""
    origin = axes @ (np.asarray(start) - centre)
    direction = axes @ (np.asarray(end) - np.asarray(start))
    enter, leave = 0.0, 1.0
    for axis in range(3):
        if abs(direction[axis]) < np.finfo(float).tiny:
            if abs(origin[axis]) > half_extents[axis]:
                return False
            continue
        near = (-half_extents[axis] - origin[axis]) / direction[axis]
        far = (half_extents[axis] - origin[axis]) / direction[axis]
        enter, leave = max(enter, min(near, far)), min(leave, max(near, far))
        if enter > leave:
            return False
    return True


@dataclass
class SoakCounters:
    """What went wrong (all must stay zero), and the rounds played."""

    non_finite: int = 0
    """Vehicle states that went non-finite: rescued by the guard, or seen after it."""
    below_ground: int = 0
    """Vehicles that fell through the ground: rescued by the guard, or seen after it."""
    too_fast: int = 0
    """Vehicle-steps faster than ``MOST_SPEED_MPS``: motion the physics made up."""
    recovered: int = 0
    """The guard's rescues, whatever their reason."""
    shells_through: int = 0
    """Shells that crossed a hull or a plate in a step without hitting it."""
    rounds: int = 0

    def count(self, events: list[Event]) -> None:
        """A step's events: the guard's rescues and the rounds that ended."""
        for event in events:
            if isinstance(event, Recovered):
                self.recovered += 1
                self.non_finite += event.reason == NON_FINITE
                self.below_ground += event.reason == BELOW_GROUND
            elif isinstance(event, RoundEnd):
                self.rounds += 1

    def failures(self) -> list[str]:
        """The names of the counters that are not zero."""
        return [name for name in ("non_finite", "below_ground", "too_fast", "recovered",
                                  "shells_through")
                if getattr(self, name)]


@dataclass
class SoakResult:
    counters: SoakCounters
    samples: list[dict] = field(default_factory=list)
    """Every ``SAMPLE_S``: the minute, the counters so far, handles, bodies, memory."""
    growth_mb_per_minute: float = 0.0
    """The resident memory's slope after the settling minutes (:func:`memory_slope`)."""

    def failures(self, most_growth_mb_per_minute: float = MOST_GROWTH_MB_PER_MINUTE
                 ) -> list[str]:
        """What failed: the counters not zero, and the memory if it grew too steeply."""
        memory = (["memory"] if self.growth_mb_per_minute > most_growth_mb_per_minute
                  else [])
        return self.counters.failures() + memory


def memory_slope(samples: list[dict], settle_minutes: float = SETTLE_MINUTES) -> float:
    """MB a minute: the median of the slopes between every two samples after
    ``settle_minutes`` (Theil-Sen); 0.0 with fewer than two such samples."""
    kept = [(sample["minute"], sample["memory_mb"]) for sample in samples
            if sample["minute"] >= settle_minutes]
    if len(kept) < 2:
        return 0.0
    minutes, memory = np.array(kept).T
    first, second = np.triu_indices(len(kept), k=1)
    return float(np.median((memory[second] - memory[first])
                           / (minutes[second] - minutes[first])))


def vehicle_faults(simulation: Simulation) -> tuple[int, int, int]:
    """How many vehicles are non-finite, how many below the ground and how many faster
    than ``MOST_SPEED_MPS``, now (after the guard: what it let through)."""
    limit = simulation.specs.spawn.below_ground_limit_m
    non_finite = below = too_fast = 0
    for vehicle in simulation.vehicles:
        state = vehicle.current
        values = np.concatenate([state.position_ws, state.orientation_ws, state.velocity_ws,
                                 state.angular_velocity_ws])
        if not np.all(np.isfinite(values)):
            non_finite += 1
            continue
        if state.position_ws[2] < float(simulation.terrain.height_at(
                *state.position_ws[:2])) - limit:
            below += 1
        too_fast += float(np.dot(state.velocity_ws, state.velocity_ws)) > MOST_SPEED_MPS ** 2
    return non_finite, below, too_fast


def shells_through(simulation: Simulation, flying_before: dict,
                   turrets_before: dict | None = None) -> int:
    """How many shells still flying after this step crossed a hull or a plate in it
    (``flying_before``: each shell's position before the step, by id; ``turrets_before``:
    each vehicle's turret heading before it, by id, as :func:`turret_headings` reads them).

    A vehicle moves during the step as the shell does, and the path is tested against it
    as it stood at the step's start and at its end: a crossing counts where the path
    crosses it both times. (A shell that grazed past a turret side swinging after it
    starts inside that turret as it stands at the end, though the shell was never in it.)"""
    crossed = 0
    turrets_before = turrets_before or {}
    for shell in simulation.shells:
        start = flying_before.get(id(shell))
        if start is None:
            continue
        end = shell.position_ws
        for vehicle in simulation.vehicles:
            if vehicle is not shell.owner:
                crossed += (_crosses_vehicle(vehicle, start, end)
                            and _crosses_vehicle(vehicle, start, end, vehicle.previous,
                                                 turrets_before.get(id(vehicle))))
        for plate in simulation.plates:
            slope = math.radians(plate.slope_deg)  # leaning back: its top towards +Y
            axes = np.array([[1.0, 0.0, 0.0], [0.0, math.cos(slope), -math.sin(slope)],
                             [0.0, math.sin(slope), math.cos(slope)]])
            crossed += _segment_crosses_box(start, end, plate.position_ws, axes,
                                            plate.half_extents_m)
    return crossed


def turret_headings(simulation: Simulation) -> dict[int, float]:
    """Each armed vehicle's turret heading now, by id (before a step, for
    :func:`shells_through`)."""
    return {id(vehicle): vehicle.aim.turret_heading_rad for vehicle in simulation.vehicles
            if vehicle.aim is not None}


def _crosses_vehicle(vehicle, start_ws: np.ndarray, end_ws: np.ndarray,
                     state: BodyState | None = None,
                     turret_heading_rad: float | None = None) -> bool:
    """Whether the path from ``start_ws`` to ``end_ws`` crosses the vehicle's collider: its
    armour plates where it has them (the turret's turned to ``turret_heading_rad``), else
    its hull box, with the vehicle as ``state`` (default: as it stands now, its turret
    too)."""
    state = vehicle.current if state is None else state
    if getattr(vehicle.spec, "plates", None) is None:
        hull = vehicle.spec.hull
        axes = state.axes_ws()
        centre = state.position_ws + axes[2] * hull.centre_of_mass_drop_m
        return _segment_crosses_box(start_ws, end_ws, centre, axes, hull.half_extents_m)
    start_bs, path_bs = state.in_body_frame(start_ws, np.asarray(end_ws) - np.asarray(start_ws))
    length_m = float(np.linalg.norm(path_bs))
    if length_m == 0.0:
        return False
    met = plate_on_line(vehicle, start_bs, path_bs, turret_heading_rad)
    return met is not None and met.distance_m <= length_m


def check_step(simulation: Simulation, counters: SoakCounters, events: list[Event],
               flying_before: dict, turrets_before: dict | None = None) -> None:
    """Count what went wrong in the step just taken: what the guard rescued (its events)
    and what it let through (``flying_before``, ``turrets_before``: see
    :func:`shells_through`)."""
    counters.count(events)
    non_finite, below, too_fast = vehicle_faults(simulation)
    counters.non_finite += non_finite
    counters.below_ground += below
    counters.too_fast += too_fast
    counters.shells_through += shells_through(simulation, flying_before, turrets_before)


class RandomDriver:
    """A player at random: a fresh random set of controls every ``INPUT_HOLD_S``."""

    def __init__(self, seed: int, step_s: float):
        self.rng = np.random.default_rng(seed)
        self.hold_steps = round(INPUT_HOLD_S / step_s)
        self._controls = Controls()

    def controls_at(self, step: int) -> Controls:
        """The controls for step number ``step``: new ones every ``hold_steps``."""
        if step % self.hold_steps == 0:
            rng = self.rng
            self._controls = Controls(
                throttle=float(rng.uniform(-1, 1)), steer=float(rng.uniform(-1, 1)),
                brake=float(rng.choice([0.0, 0.0, 0.0, 1.0])),
                handbrake=bool(rng.random() < 0.05), gear=str(rng.choice(GEAR_NAMES)),
                fire=bool(rng.random() < 0.5), turret=float(rng.uniform(-1, 1)),
                elevation=float(rng.uniform(-1, 1)))
        return self._controls

    def controls(self, simulation: Simulation) -> Controls:
        """The controls for the step about to be taken (a step loop's player)."""
        return self.controls_at(simulation.world.step_count)


def sample(minute: float, counters: SoakCounters, simulation: Simulation) -> dict:
    """One sample: the counters so far, the handles, shells, thrown turrets (bodies until
    their round ends) and bodies, the memory."""
    return {"minute": round(minute, 4), **asdict(counters),
            "handles": len(simulation.world.handles), "shells": len(simulation.shells),
            "thrown": len(simulation.thrown_turrets), "bodies": simulation.world.body_count(),
            "memory_mb": round(resident_memory_mb(), 2)}


def watch(simulation: Simulation, step: Callable[[], list[Event]], minutes: float,
          report: Callable[[str], None] = print, settle_minutes: float = SETTLE_MINUTES,
          disturb: Disturb | None = None, extra: Callable[[], dict] = dict) -> SoakResult:
    """Take ``step()`` (a step of ``simulation``, and its events) for ``minutes`` of game
    time, checking each step and sampling every ``SAMPLE_S``; ``report`` gets a JSON line
    every simulated minute; every sample adds ``extra()``'s fields. A big desert's caches
    are reserved first (:meth:`~physics.model.tiled_terrain.TiledTerrain.reserve`): their
    filling toward their room is not read as growth."""
    reserve = getattr(simulation.arena.terrain, "reserve", None)
    if reserve is not None:  # a big desert's tile pool and rocks: caches, not leaks
        reserve()
    result = SoakResult(SoakCounters())
    result.samples.append(sample(0.0, result.counters, simulation))
    steps_per_sample = round(SAMPLE_S / simulation.step_s)
    samples_per_minute = round(SECONDS_PER_MINUTE / SAMPLE_S)
    for number in range(round(minutes * SECONDS_PER_MINUTE / simulation.step_s)):
        if disturb is not None:
            disturb(simulation, number)
        flying_before = {id(shell): shell.position_ws for shell in simulation.shells}
        turrets_before = turret_headings(simulation)
        check_step(simulation, result.counters, step(), flying_before, turrets_before)
        if (number + 1) % steps_per_sample == 0:
            taken = (number + 1) // steps_per_sample
            result.samples.append({**sample(taken / samples_per_minute, result.counters,
                                            simulation), **extra()})
            if taken % samples_per_minute == 0:
                report(json.dumps(result.samples[-1]))
    result.growth_mb_per_minute = memory_slope(result.samples, settle_minutes)
    return result
