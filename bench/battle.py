"""The battle benchmark: headless battles (AI, shells, damage) at one or more sizes, each
one's real-time factor.

Each size runs the whole game as ``--headless --bots N-1`` does, the player driving at
random like the soak, and reports simulated seconds per wall second. The first step is
not timed: it loads the compiled loops (compiles them, the first time on a machine).

Each result also splits a step's time into its parts (``step_ms``), each timed with
``perf_counter`` round the calls :meth:`Simulation.step <game.sim.simulation.Simulation.step>`
makes: the bots' controls, the vehicles' drive (gearboxes, tracks, the near test), the
physics (the anchors and Bullet), the guard (reading every state back), the shells and
damage (firing, then what the shells struck), and the rest of the step (its own
bookkeeping, the battle's rules, the player's random driving).

The timers wrap some twenty calls a step, and cost a few percent of an 8-tank step. So
each size runs twice, the same battle both times (it is seeded): first untimed, which
gives the real-time factor and ``ms_per_step``, then with the timers, which gives the
split and, in ``timed_ms_per_step``, what the step cost with them (the split sums to it:
``other`` takes the timers' own cost).

``evict_mib`` (``--evict-mib``): before every step, untimed, write through a buffer of that
many MiB, which pushes the step's code and data out of the processor's caches as the
renderer does between two of the game's frames (software GL most of all: it draws through
megabytes of buffers and textures on every core). A step then costs what it costs in a
drawn frame (``bench frame``'s ``steps_ms``), and the split says which parts pay most for
coming back from memory.

``against`` (``--against MAP``): each size is also fought on another map, the two battles
in one process and stepped in turn, one step of each (which goes first alternating), every
step timed: ``ms_per_step`` on each map and the ``ratio`` of ``--map``'s to ``MAP``'s. A
machine's slow spells (another program, a neighbour on a shared host) fall on both alike,
so the ratio holds from run to run where two runs one after the other can differ by a
tenth. The caches hold the other battle's leavings, not the step's own, in both.
"""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np

from bench.parts import PartTimer
from bench.soak import random_battle
from game.config import check_tank_class
from game.sim.events import Destroyed, Hit, Recovered, RoundEnd, Shot

STEP_PARTS = ("bots", "drive", "physics", "guard", "combat")
"""The parts of a step timed apart; ``other`` is what is left of the step."""

DEFAULT_TANKS = (8,)
"""``python -m bench battle``: one battle of 8 tanks (7 bots and the player)."""
ALL_BENCHMARKS_TANKS = (8, 32)
"""``python -m bench`` (every benchmark): a battle of 8 tanks and one of 32."""
DEFAULT_SECONDS = 120.0
DEFAULT_SEED = 1
DEFAULT_MAP = "desert"
DEFAULT_EVICT_MIB = 0
"""No buffer written between the steps: they run with the caches as the last step left them."""
MOST_EVICT_MIB = 1024
"""Far beyond any processor's last cache, and a buffer any machine that runs the game has
room for."""
_BYTES_PER_MIB = 1 << 20


def run_one(config, tanks: int, seconds: float, seed: int, map_name: str = DEFAULT_MAP,
            evict_mib: int = DEFAULT_EVICT_MIB) -> dict:
    """One battle of ``tanks`` tanks (``tanks - 1`` bots), run untimed and then timed part
    by part: its wall time, real-time factor, ms a step, the split of a step and the
    events counted."""
    evictor = _Evictor(evict_mib)
    wall_s, steps, step_s, counts, _ = _battle(config, tanks, seconds, seed, map_name,
                                               evictor, timed_parts=False)
    timed_wall_s, _, _, _, parts = _battle(config, tanks, seconds, seed, map_name, evictor,
                                           timed_parts=True)
    ms_per_step = wall_s / (steps - 1) * 1000.0
    timed_ms_per_step = timed_wall_s / (steps - 1) * 1000.0
    return {"tanks": tanks, "wall_s": round(wall_s, 3),
            "realtime_factor": round((steps - 1) * step_s / wall_s, 2),
            "ms_per_step": round(ms_per_step, 3),
            "timed_ms_per_step": round(timed_ms_per_step, 3),
            "step_ms": parts.per_step_ms(steps - 1, timed_ms_per_step),
            "events": {kind.TYPE: count for kind, count in counts.items()}}


def _battle(config, tanks: int, seconds: float, seed: int, map_name: str, evictor: _Evictor,
            timed_parts: bool) -> tuple[float, int, float, dict, StepParts | None]:
    """Run one battle: the wall time of every step but the first (each after ``evictor``'s
    untimed pass), the steps, the step's length, the events counted by kind, and the parts'
    timers (None: untimed)."""
    loop = random_battle(config, tanks - 1, seed, map_name)
    step_s = loop.simulation.step_s
    steps = max(round(seconds / step_s), 2)
    counts = dict.fromkeys((Shot, Hit, Destroyed, RoundEnd, Recovered), 0)
    parts = (StepParts(loop.simulation, loop.session.battle.bots.values()) if timed_parts
             else None)
    wall_s = 0.0
    for step in range(steps):
        if step == 1 and parts is not None:
            parts.clear()
        evictor.evict()
        started = time.perf_counter()
        events = loop.step()
        if step:
            wall_s += time.perf_counter() - started
        for event in events:
            if type(event) in counts:
                counts[type(event)] += 1
    loop.session.destroy()
    return wall_s, steps, step_s, counts, parts


class _Evictor:
    """Writes through a buffer of ``mib`` MiB (none: nothing), so that what comes next finds
    the caches holding the buffer rather than its own code and data."""

    def __init__(self, mib: int):
        self.mib = mib
        self._buffer = np.zeros(mib * _BYTES_PER_MIB // np.dtype(np.float64).itemsize)

    def evict(self) -> None:
        if self.mib:
            np.add(self._buffer, 1.0, out=self._buffer)


class StepParts:
    """Wall time spent in each of :data:`STEP_PARTS`, by timed wrappers set on the
    simulation's own objects (the bots, fleets, world, guard and combat)."""

    def __init__(self, simulation, bots):
        self._timer = PartTimer(STEP_PARTS)
        for bot in bots:
            self._timer.wrap(bot, "controls", "bots")
        for fleet in simulation.fleets.values():
            self._timer.wrap(fleet, "update_drive", "drive")
        self._timer.wrap(simulation.world, "step", "physics")
        self._timer.wrap(simulation.guard, "record_and_guard", "guard")
        self._timer.wrap(simulation.combat, "aim_and_fire", "combat")
        self._timer.wrap(simulation.combat, "resolve", "combat")

    def clear(self) -> None:
        self._timer.clear()

    def per_step_ms(self, steps: int, ms_per_step: float) -> dict:
        """Milliseconds a step in each part, and ``other``: the rest of ``ms_per_step``."""
        split = {part: spent_ms / steps for part, spent_ms in self._timer.take().items()}
        split["other"] = ms_per_step - sum(split.values())
        return {part: round(ms, 3) for part, ms in split.items()}


def with_bot_tanks(config, names: tuple[str, ...]):
    """``config`` with the bots taking the tank classes ``names`` in turn; a class the
    config lacks is a :class:`~common.errors.UserError`."""
    for name in names:
        check_tank_class(name, config.tanks, flag="--bot-tanks")
    battle_spec = replace(config.game.battle, bot_tanks=names)
    return replace(config, game=replace(config.game, battle=battle_spec))


def in_turns(config, tanks: int, seconds: float, seed: int, map_name: str, against: str
             ) -> dict:
    """The battle of ``tanks`` tanks on ``map_name`` and on ``against`` in one process,
    stepped in turn (see the module's notes): ms a step on each, and the first's over the
    second's."""
    loops = [random_battle(config, tanks - 1, seed, name) for name in (map_name, against)]
    try:
        for loop in loops:
            loop.step()  # not timed, as in a battle alone
        steps = max(round(seconds / loops[0].simulation.step_s), 1)
        spent_s = [0.0, 0.0]
        for step in range(steps):
            for which in ((0, 1) if step % 2 == 0 else (1, 0)):
                started = time.perf_counter()
                loops[which].step()
                spent_s[which] += time.perf_counter() - started
    finally:
        for loop in loops:
            loop.session.destroy()
    ms = [spent / steps * 1000.0 for spent in spent_s]
    return {"map": against, "steps": steps, "ms_per_step": round(ms[0], 3),
            "against_ms_per_step": round(ms[1], 3), "ratio": round(ms[0] / ms[1], 3)}


def run(config, tanks=DEFAULT_TANKS, seconds: float = DEFAULT_SECONDS,
        seed: int = DEFAULT_SEED, map_name: str = DEFAULT_MAP,
        evict_mib: int = DEFAULT_EVICT_MIB, against: str | None = None) -> dict:
    """One battle per entry of ``tanks``, in turn; ``realtime_factor`` maps each size (as
    text, for JSON) to its factor. ``against``: each also fought in turns with one on that
    map (:func:`in_turns`), in the result's ``against``."""
    results = [run_one(config, count, seconds, seed, map_name, evict_mib) for count in tanks]
    if against is not None:
        for result in results:
            result["against"] = in_turns(config, result["tanks"], seconds, seed, map_name,
                                         against)
    return {"parameters": {"tanks": list(tanks), "simulated_s": seconds, "seed": seed,
                           "map": map_name, "evict_mib": evict_mib, "against": against,
                           "bot_tanks": list(config.game.battle.bot_tanks)},
            "results": results,
            "realtime_factor": {str(result["tanks"]): result["realtime_factor"]
                                for result in results}}


def table(report: dict) -> str:
    parameters = report["parameters"]
    lines = [f"battle: {parameters['simulated_s']:g} s simulated on {parameters['map']} "
             f"(seed {parameters['seed']}; the bots' classes in turn: "
             f"{', '.join(parameters['bot_tanks'])})"]
    if parameters["evict_mib"]:
        lines.append(f"  every step after writing through {parameters['evict_mib']} MiB "
                     f"(the caches evicted, as between drawn frames)")
    for result in report["results"]:
        lines.append(f"  {result['tanks']:>3} tanks: {result['realtime_factor']:.1f}x real time "
                     f"({result['ms_per_step']:.2f} ms a step, {result['wall_s']:.1f} s); "
                     f"events {result['events']}")
        lines.append(f"      of a step timed part by part ({result['timed_ms_per_step']:.2f} ms): "
                     + ", ".join(f"{part} {ms:.3f}" for part, ms in result["step_ms"].items()))
        turns = result.get("against")
        if turns is not None:
            lines.append(f"      in turns with a battle on {turns['map']}: "
                         f"{turns['ms_per_step']:.3f} ms a step against "
                         f"{turns['against_ms_per_step']:.3f}, {turns['ratio']:.2f} times")
    return "\n".join(lines)
