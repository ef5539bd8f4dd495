"""The battle benchmark: an 8-tank headless battle (AI, shells, damage), real-time factor.

Runs the whole game as ``--headless --bots 7`` does, the player driving at random
like the soak, and reports simulated seconds per wall second. The first step is not
timed: it loads the compiled anchor step (compiles it, the first time on a machine).
"""

from __future__ import annotations

import time

from bench.soak import random_battle
from game.sim.events import Destroyed, Hit, RoundEnd, Shot

DEFAULT_BOTS = 7
DEFAULT_SECONDS = 120.0
DEFAULT_SEED = 1


def run(config, bots: int = DEFAULT_BOTS, seconds: float = DEFAULT_SECONDS,
        seed: int = DEFAULT_SEED) -> dict:
    loop = random_battle(config, bots, seed)
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
    return {"parameters": {"tanks": bots + 1, "simulated_s": seconds, "seed": seed},
            "wall_s": round(wall_s, 3), "realtime_factor": round(timed_s / wall_s, 2),
            "ms_per_step": round(wall_s / (steps - 1) * 1000.0, 3), "events": {kind.TYPE: count for kind, count in counts.items()}}

def table(report: dict) -> str:
    parameters = report["parameters"]
    return (f"battle: {parameters['tanks']} tanks, {parameters['simulated_s']:g} s simulated in "
            f"{report['wall_s']:.1f} s: {report['realtime_factor']:.1f}x real time "
            f"({report['ms_per_step']:.2f} ms a step); events {report['events']}")
