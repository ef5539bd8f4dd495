"""The soak: a long headless battle with random inputs, watched for anything going wrong.

    python -m bench.soak --minutes 60 [--bots 7] [--seed 1] [--map desert] [--json]
    python -m bench.soak --server --minutes 60 [--clients 4] [--bots 4] [--seed 1] [--json]

It counts non-finite states and vehicles below the ground (whether the physics guard
rescued them or not: every rescue is a failure where nothing asked for one), vehicles
faster than any of ours can go (flung by the physics), the guard's rescues, shells that
crossed a hull or a plate without hitting it, the handle map's size, the physics world's
bodies and the process's resident memory, sampled every ``SAMPLE_S`` simulated seconds
(:mod:`bench.soak_watch` does the watching) and printed every simulated minute.

Memory is judged by its slope, not by its growth over the run: a leak grows it steadily
with time, while the allocator's one-off steps (an arena that grows, a cache that fills)
do not. The slope is the median of the slopes between every two samples taken after the
first ``--settle-minutes`` (Theil and Sen's estimator), so one step in the middle of a
run moves it little. The exit status is 1 if a counter is not zero or the slope passes
``--max-growth-mb-per-minute``.

``--server`` soaks a dedicated server instead: :mod:`bench.server_soak`.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from typing import Callable

from bench.arguments import map_name
from bench.server_soak import DEFAULT_BOTS, DEFAULT_CLIENTS, server_soak
from bench.soak_watch import (MOST_GROWTH_MB_PER_MINUTE, SETTLE_MINUTES, Disturb, RandomDriver,
                              SoakResult, watch)
from common.errors import whole_number
from game.config import load_config
from game.sim.session import GameOptions, GameSession
from game.sim.step_loop import StepLoop
from physics.model.terrain import MapChoice


def random_battle(config, bots: int, seed: int, map_name: str = "desert") -> StepLoop:
    """A battle against ``bots`` with the player driven at random (soak and benchmark),
    match after match for as long as it runs."""
    session = GameSession(config.session, GameOptions(MapChoice.parse(map_name), seed,
                                                       bots=bots,
                                                       next_match_automatically=True))
    return StepLoop(session, RandomDriver(seed, session.simulation.step_s).controls)


def soak(minutes: float, bots: int, seed: int, map_name: str = "desert",
         report: Callable[[str], None] = print, disturb: Disturb | None = None,
         settle_minutes: float = SETTLE_MINUTES) -> SoakResult:
    """``minutes`` of a random battle against ``bots`` (:func:`watch`)."""
    loop = random_battle(load_config(), bots, seed, map_name)
    try:
        return watch(loop.simulation, loop.step, minutes, report, settle_minutes, disturb)
    finally:
        loop.session.destroy()


def summary(result: SoakResult, parameters: dict) -> dict:
    """The run's summary as the soak prints it last."""
    first, last = result.samples[0], result.samples[-1]
    return {**parameters, **asdict(result.counters),
            "memory_start_mb": first["memory_mb"], "memory_end_mb": last["memory_mb"],
            "memory_growth_mb_per_minute": round(result.growth_mb_per_minute, 4),
            "handles": [sample["handles"] for sample in result.samples[1:]],
            "failures": result.failures(parameters["max_growth_mb_per_minute"])}


def _non_negative(text: str) -> float:
    """A finite number >= 0 (minutes, or MB a minute)."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r}: expected a number >= 0")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.soak",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", type=_non_negative, default=60.0,
                        help="simulated minutes (60)")
    parser.add_argument("--bots", type=whole_number(0, None, ""), default=None,
                        help="enemy tanks (7: an 8-tank battle; with --server, 4)")
    parser.add_argument("--seed", type=whole_number(0, None, ""), default=1)
    parser.add_argument("--map", type=map_name, default="desert",
                        help="as the game's --map (desert)")
    parser.add_argument("--server", action="store_true",
                        help="a dedicated server and its clients, in lockstep on loopback")
    parser.add_argument("--clients", type=whole_number(1, None, ""), default=None,
                        help="with --server: clients driving at random (4)")
    parser.add_argument("--settle-minutes", type=_non_negative, default=SETTLE_MINUTES,
                        help="minutes the memory's slope leaves out (1)")
    parser.add_argument("--max-growth-mb-per-minute", type=_non_negative,
                        default=MOST_GROWTH_MB_PER_MINUTE,
                        help="the steepest resident memory slope that passes (0.1)")
    parser.add_argument("--json", action="store_true", help="only the summary, as JSON")
    args = parser.parse_args(argv)
    report = (lambda line: None) if args.json else print
    parameters = {"minutes": args.minutes, "seed": args.seed, "map": args.map,
                  "max_growth_mb_per_minute": args.max_growth_mb_per_minute}
    if args.server:
        parameters |= {"server": True, "clients": args.clients or DEFAULT_CLIENTS,
                       "bots": DEFAULT_BOTS if args.bots is None else args.bots}
        result = server_soak(args.minutes, parameters["clients"], parameters["bots"],
                             args.seed, args.map, report, args.settle_minutes)
    else:
        parameters["bots"] = 7 if args.bots is None else args.bots
        if args.clients is not None:
            parser.error("--clients needs --server")
        result = soak(args.minutes, parameters["bots"], args.seed, args.map, report,
                      settle_minutes=args.settle_minutes)
    print(json.dumps(summary(result, parameters)))
    return 1 if result.failures(args.max_growth_mb_per_minute) else 0


if __name__ == "__main__":
    sys.exit(main())
