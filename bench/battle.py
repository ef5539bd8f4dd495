"""The battle benchmark: headless battles (AI, shells, damage) at one or more sizes, each
one's real-time factor.

Each size runs the whole game as ``--headless --bots N-1`` does, the player driving at
random like the soak, and reports simulated seconds per wall second. The first step is
not timed: it loads the compiled loops (compiles them, the first time on a machine).
"""

from __future__ import annotations

import time

from bench.soak import random_battle
from game.sim.events import Destroyed, Hit, RoundEnd, Shot

DEFAULT_TANKS = (8,)
"""``python -m bench battle``: one battle of 8 tanks (7 bots and the player)."""
ALL_BENCHMARKS_TANKS = (8, 32)
"""``python -m bench`` (every benchmark): a battle of 8 tanks and one of 32."""
DEFAULT_SECONDS = 120.0
DEFAULT_SEED = 1
DEFAULT_MAP = "desert"


def run_one(config, tanks: int, seconds: float, seed: int, map_name: str = DEFAULT_MAP
            ) -> dict:
    """One battle of ``tanks`` tanks (``tanks - 1`` bots): its wall time, real-time factor,
    ms a step and the events counted."""
    loop = random_battle(config, tanks - 1, seed, map_name)
    step_s = loop.simulation.step_s
    steps = max(round(seconds / step_s), 2)
    counts = dict.fromkeys((Shot, Hit, Destroyed, RoundEnd), 0)
    started = 0.0
    for step in range(steps):
        if step == 1:
            started = time.perf_counter()
        for event in loop.step():
            if type(event) in counts:
                counts[type(event)] += 1
    wall_s = time.perf_counter() - started
    timed_s = (steps - 1) * step_s
    loop.session.destroy()
    return {"tanks": tanks, "wall_s": round(wall_s, 3),
            "realtime_factor": round(timed_s / wall_s, 2),
            "ms_per_step": round(wall_s / (steps - 1) * 1000.0, 3),
            "events": {kind.TYPE: count for kind, count in counts.items()}}


def run(config, tanks=DEFAULT_TANKS, seconds: float = DEFAULT_SECONDS,
        seed: int = DEFAULT_SEED, map_name: str = DEFAULT_MAP) -> dict:
    """One battle per entry of ``tanks``, in turn; ``realtime_factor`` maps each size (as
    text, for JSON) to its factor."""
    results = [run_one(config, count, seconds, seed, map_name) for count in tanks]
    return {"parameters": {"tanks": list(tanks), "simulated_s": seconds, "seed": seed,
                           "map": map_name},
            "results": results,
            "realtime_factor": {str(result["tanks"]): result["realtime_factor"]
                                for result in results}}


def table(report: dict) -> str:
    parameters = report["parameters"]
    lines = [f"battle: {parameters['simulated_s']:g} s simulated on {parameters['map']} "
             f"(seed {parameters['seed']})"]
    for result in report["results"]:
        lines.append(f"  {result['tanks']:>3} tanks: {result['realtime_factor']:.1f}x real time "
                     f"({result['ms_per_step']:.2f} ms a step, {result['wall_s']:.1f} s); "
                     f"events {result['events']}")
    return "\n".join(lines)
