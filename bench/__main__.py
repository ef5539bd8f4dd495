"""``python -m bench [BENCHMARK] [options]``: run benchmarks, print a table or JSON.

Benchmarks:
  vehicles    our four-anchor tanks against Bullet's BulletVehicle (ms per fixed step)
  battle      headless battles (8 tanks; with no benchmark named, 8 and 32):
              simulated seconds per wall second
  particles   our numpy particle system against Panda's ParticleEffect (ms per frame)
  frame       the whole game offscreen, the player driven by the bot brain: our frame work,
              Panda's rendering and the static scene's floor (ms per frame)
  ai          the bots' tournament: levels against each other, shots fired blind, how long
              an idle player lasts
  net         a dedicated server and headless clients on loopback through a simulated
              link: bandwidth, prediction and interpolation error, server step time;
              with --servers N, N servers announcing to a list server and clients that
              list, join, play and leave again: memory, refused joins, list request times
  penetration what each shell of config/shells.toml (or --config DIR's) pierces at 100 to
              2000 m, square on and at 30 degrees, flown as the game flies it (not a timing)
With no benchmark named, all of them run at their default sizes (net only where pyenet
is installed; frame in a child process, as it opens a window of its own).

``--json`` prints one JSON document instead of the table::

  {"machine": {python, numpy, panda3d, platform, cpu_count, ...},
   "results": {"vehicles": {"parameters": {...}, "results": [{count, ours, bullet_vehicle,
                                                               ratio}, ...]}},
   "skipped": {"battle": "why", ...}}

A bad flag prints one line and exits with status 2, like the game.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bench import ai, battle, fleet, frame, net, penetration, vehicles
from bench.arguments import map_name
from bench.machine import machine_info
from common.errors import whole_number
from game.sim.net.link import enet_available

NOT_AVAILABLE: dict[str, str] = {}
DEFAULT_PARTICLES = 10_000
DEFAULT_PARTICLE_FRAMES = 60


def _names(text: str) -> tuple[str, ...]:
    names = tuple(part.strip() for part in text.split(","))
    if not all(names):
        raise argparse.ArgumentTypeError(f"{text!r}: expected names separated by commas, "
                                         "e.g. medium or light,heavy")
    return names


def _counts(text: str) -> list[int]:
    try:
        counts = [int(part) for part in text.split(",")]
    except ValueError:
        counts = []
    if not counts or any(count < 1 for count in counts):
        raise argparse.ArgumentTypeError(f"{text!r}: expected whole numbers >= 1 separated by "
                                         "commas, e.g. 1,10,100")
    return counts


_POSITIVE = whole_number(1, None, "")
_AT_LEAST_ZERO = whole_number(0, None, "")


def _add_battle(commands, common) -> None:
    fight = commands.add_parser("battle", parents=[common],
                                help="headless battles: simulated seconds per wall second")
    size = fight.add_mutually_exclusive_group()
    size.add_argument("--tanks", type=_counts, default=list(battle.DEFAULT_TANKS),
                      help="tanks in the battle, the player and N - 1 bots; several sizes "
                           "comma separated, one battle each (default "
                           f"{','.join(map(str, battle.DEFAULT_TANKS))}; with no benchmark "
                           f"named {','.join(map(str, battle.ALL_BENCHMARKS_TANKS))})")
    size.add_argument("--bots", type=_AT_LEAST_ZERO,
                      help="enemy tanks besides the player (the same as --tanks BOTS+1)")
    fight.add_argument("--seconds", type=_POSITIVE, default=int(battle.DEFAULT_SECONDS),
                       help=f"simulated seconds (default {battle.DEFAULT_SECONDS:g})")
    fight.add_argument("--seed", type=int, default=battle.DEFAULT_SEED,
                       help=f"world and bot seed (default {battle.DEFAULT_SEED})")
    fight.add_argument("--map", type=map_name, default=battle.DEFAULT_MAP,
                       help=f"the map fought on, as the game's --map (default "
                            f"{battle.DEFAULT_MAP})")
    fight.add_argument("--bot-tanks", type=_names, default=None, metavar="NAME[,NAME...]",
                       help="the bots' tank classes, taken in turn (default: config/game.toml's "
                            "[battle] bot_tanks, a mix; one name: a single-class battle)")
    fight.add_argument("--evict-mib", type=whole_number(0, battle.MOST_EVICT_MIB, "MiB"),
                       default=battle.DEFAULT_EVICT_MIB,
                       help="before every step, untimed, write through this many MiB: the "
                            "caches evicted, as a drawn frame's rendering leaves them "
                            f"(default {battle.DEFAULT_EVICT_MIB}: none)")
    fight.add_argument("--against", type=map_name, default=None, metavar="MAP",
                       help="also fight each battle on MAP, the two stepped in turn in one "
                            "process: ms a step on each and the ratio (default: none)")


def _add_ai(commands, common) -> None:
    tournament = commands.add_parser("ai", parents=[common],
                                     help="the bots' tournament: levels, fairness, survival")
    tournament.add_argument("--seeds", type=_POSITIVE, default=ai.DEFAULT_SEEDS,
                            help=f"rounds per pairing, one per seed (default "
                                 f"{ai.DEFAULT_SEEDS})")
    tournament.add_argument("--round-seconds", type=_POSITIVE, default=int(ai.DEFAULT_ROUND_S),
                            help=f"a round undecided after this long counts for neither "
                                 f"(default {ai.DEFAULT_ROUND_S:g})")


def _add_penetration(commands, common) -> None:
    pierce = commands.add_parser("penetration", parents=[common],
                                 help="what each shell pierces at range (not a timing)")
    pierce.add_argument("--config", type=Path, metavar="DIR",
                        help="read the TOML files from DIR (default: the shipped config/)")


def _size(text: str) -> tuple[int, int]:
    try:
        return frame.parse_size(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _add_frame(commands, common) -> None:
    drawn = commands.add_parser("frame", parents=[common],
                                help="the whole game offscreen: ms per frame, ours and Panda's")
    tanks = drawn.add_mutually_exclusive_group()
    tanks.add_argument("--bots", type=_AT_LEAST_ZERO, default=frame.DEFAULT_BOTS,
                       help=f"enemy tanks on their usual ring round the player (default "
                            f"{frame.DEFAULT_BOTS})")
    tanks.add_argument("--tanks", type=_POSITIVE,
                       help="this many tanks in the camera's view: the bots on rows in front "
                            "of the player")
    drawn.add_argument("--frames", type=_POSITIVE, default=frame.DEFAULT_FRAMES,
                       help=f"frames measured, and as many static frames by turns (default "
                            f"{frame.DEFAULT_FRAMES})")
    drawn.add_argument("--warmup", type=_AT_LEAST_ZERO, default=frame.DEFAULT_WARMUP_FRAMES,
                       help=f"frames before the measured ones, not counted (default "
                            f"{frame.DEFAULT_WARMUP_FRAMES})")
    drawn.add_argument("--size", type=_size, default=frame.DEFAULT_SIZE, metavar="WxH",
                       help="the offscreen window's size (default "
                            f"{frame.DEFAULT_SIZE[0]}x{frame.DEFAULT_SIZE[1]})")
    drawn.add_argument("--profile", type=Path, metavar="FILE",
                       help="write a cProfile of our frame work over the measured frames "
                            "to FILE (the profiler slows it: figures not comparable)")


def _add_net(commands, common) -> None:
    if not enet_available():
        NOT_AVAILABLE["net"] = "needs pyenet (pip install pyenet)"
    online = commands.add_parser("net", parents=[common],
                                 help="a server and headless clients: bandwidth, prediction; "
                                      "with --servers, many servers and a list server")
    online.add_argument("--clients", type=_POSITIVE, default=net.DEFAULT_CLIENTS,
                        help=f"headless clients (default {net.DEFAULT_CLIENTS})")
    online.add_argument("--bots", type=_AT_LEAST_ZERO,
                        help=f"bots on each server (default {net.DEFAULT_BOTS}; "
                             f"{fleet.DEFAULT_BOTS} with --servers)")
    online.add_argument("--seconds", type=_POSITIVE,
                        help=f"seconds each client plays (default {net.DEFAULT_SECONDS:g}); "
                             f"with --servers, the whole run's (default "
                             f"{fleet.DEFAULT_SECONDS:g})")
    online.add_argument("--net-sim", default=net.DEFAULT_NET_SIM,
                        metavar="LATENCY_MS,JITTER_MS,LOSS_PCT",
                        help=f"each client's simulated link (default {net.DEFAULT_NET_SIM}; "
                             f"not with --servers)")
    online.add_argument("--keep", type=Path, metavar="DIR",
                        help="leave the server's and clients' telemetry in DIR")
    many = online.add_argument_group("many servers")
    many.add_argument("--servers", type=_POSITIVE,
                      help="start this many servers announcing to a list server; the clients "
                           "list, choose, join, play, leave and join again")
    many.add_argument("--play-seconds", type=_POSITIVE, default=int(fleet.DEFAULT_PLAY_S),
                      help=f"with --servers: how long each join plays (default "
                           f"{fleet.DEFAULT_PLAY_S:g})")
    many.add_argument("--max-players", type=_POSITIVE, default=fleet.DEFAULT_MAX_PLAYERS,
                      help=f"with --servers: each server's most players (default "
                           f"{fleet.DEFAULT_MAX_PLAYERS})")


def _run_net(options, config) -> tuple[dict, str]:
    if getattr(options, "servers", None) is not None:
        report = fleet.run(
            clients=options.clients, servers=options.servers,
            bots=fleet.DEFAULT_BOTS if options.bots is None else options.bots,
            seconds=fleet.DEFAULT_SECONDS if options.seconds is None else options.seconds,
            play_s=options.play_seconds, max_players=options.max_players)
        return report, fleet.table(report)
    report = net.run(config, clients=options.clients,
                     bots=net.DEFAULT_BOTS if options.bots is None else options.bots,
                     seconds=net.DEFAULT_SECONDS if options.seconds is None else options.seconds,
                     net_sim=options.net_sim, keep=options.keep)
    return report, net.table(report)


def _parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--json", action="store_true",
                        help="print one JSON document (machine, parameters, results)")
    parser = argparse.ArgumentParser(prog="python -m bench", parents=[common],
                                     description="Benchmarks of the tank game.")
    commands = parser.add_subparsers(dest="benchmark", metavar="BENCHMARK")
    bench = commands.add_parser("vehicles", parents=[common],
                                help="our four-anchor tanks against Bullet's BulletVehicle")
    bench.add_argument("--counts", type=_counts, default=list(vehicles.DEFAULT_COUNTS),
                       help="vehicle counts to measure, comma separated (default "
                            f"{','.join(map(str, vehicles.DEFAULT_COUNTS))})")
    bench.add_argument("--steps", type=_POSITIVE, default=vehicles.DEFAULT_STEPS,
                       help=f"fixed steps per timed run (default {vehicles.DEFAULT_STEPS})")
    bench.add_argument("--repeats", type=_POSITIVE, default=vehicles.DEFAULT_REPEATS,
                       help=f"timed runs per model; the median counts (default "
                            f"{vehicles.DEFAULT_REPEATS})")
    bench.add_argument("--warmup", type=_AT_LEAST_ZERO, default=vehicles.DEFAULT_WARMUP_STEPS,
                       help=f"untimed steps before each timed run: the gear engages, the tanks get going "
                            f"(default {vehicles.DEFAULT_WARMUP_STEPS})")
    bench.add_argument("--seed", type=int, default=vehicles.DEFAULT_SEED,
                       help=f"desert map seed (default {vehicles.DEFAULT_SEED})")
    bench.add_argument("--map", type=map_name, default=vehicles.DEFAULT_MAP,
                       help=f"the map, as the game's --map: desert or desert:SIZE (default "
                            f"{vehicles.DEFAULT_MAP})")
    _add_battle(commands, common)
    sparks = commands.add_parser("particles", parents=[common],
                                 help="our particles against Panda's ParticleEffect")
    sparks.add_argument("--count", type=_POSITIVE, default=DEFAULT_PARTICLES,
                        help=f"live particles (default {DEFAULT_PARTICLES})")
    sparks.add_argument("--frames", type=_POSITIVE, default=DEFAULT_PARTICLE_FRAMES,
                        help=f"frames measured; the median counts (default "
                             f"{DEFAULT_PARTICLE_FRAMES})")
    _add_ai(commands, common)
    _add_frame(commands, common)
    _add_net(commands, common)
    _add_penetration(commands, common)
    for name, reason in NOT_AVAILABLE.items():
        if name not in commands.choices:
            commands.add_parser(name, parents=[common], help=reason)
    return parser


def _run_one(name: str, options, config, quiet: bool, alone: bool) -> tuple[dict, str]:
    """Run one benchmark (``alone``: the only one in this process); its report and table."""
    if name == "frame":  # opens a window: in this process only when it is the only one
        run = frame.run if alone else frame.run_in_child
        extra = {"profile": options.profile} if alone else {}
        report = run(bots=options.bots, tanks=options.tanks, frames=options.frames,
                     size=options.size, warmup=options.warmup, **extra)
        return report, frame.table(report)
    if name == "particles":  # opens an offscreen window: last, in this process
        from bench.particles import benchmark
        report = benchmark(options.count, options.frames)
        return report, f"particles: {json.dumps(report)}"
    if name == "net":
        return _run_net(options, config)
    if name == "penetration":
        report = penetration.run(config)
        return report, penetration.table(report)
    if name == "ai":
        report = ai.run(config, seeds=options.seeds, round_s=options.round_seconds)
        return report, ai.table(report)
    if name == "battle":
        tanks = options.tanks if options.bots is None else [options.bots + 1]
        if options.bot_tanks is not None:
            config = battle.with_bot_tanks(config, options.bot_tanks)
        report = battle.run(config, tanks=tanks, seconds=options.seconds, seed=options.seed,
                            map_name=options.map, evict_mib=options.evict_mib,
                            against=options.against)
        return report, battle.table(report)
    progress = None if quiet else (
        lambda result: print(f"  {result['count']} tanks: ours "
                             f"{result['ours']['ms_per_step']:.3f} ms/step, BulletVehicle "
                             f"{result['bullet_vehicle']['ms_per_step']:.3f} ms/step",
                             file=sys.stderr, flush=True))
    report = vehicles.run(config, counts=options.counts, steps=options.steps,
                          repeats=options.repeats, warmup_steps=options.warmup,
                          seed=options.seed, progress=progress, map_name=options.map)
    return report, vehicles.table(report)


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.benchmark is None:  # everything, at the default sizes
        wanted = []
        for name in ("vehicles", "battle", "ai", "net", "penetration", "frame", "particles"):
            if name in NOT_AVAILABLE:
                continue
            defaults = parser.parse_args([name])
            defaults.json = args.json
            if name == "battle":
                defaults.tanks = list(battle.ALL_BENCHMARKS_TANKS)
            wanted.append((name, defaults))
        wanted += [(name, args) for name in NOT_AVAILABLE]
    else:
        wanted = [(args.benchmark, args)]

    from game.config import CONFIG_DIR, load_config  # after parsing: --help stays instant
    from common.errors import UserError
    try:
        config = load_config(getattr(args, "config", None) or CONFIG_DIR)
    except UserError as error:
        print(f"bench: {error}", file=sys.stderr)
        return 2

    document = {"machine": machine_info(), "results": {}, "skipped": {}}
    for name, options in wanted:
        if name in NOT_AVAILABLE:
            document["skipped"][name] = NOT_AVAILABLE[name]
            if not args.json:
                print(f"{name}: skipped, {NOT_AVAILABLE[name]}")
            continue
        try:
            report, text = _run_one(name, options, config, args.json,
                                    alone=args.benchmark is not None)
        except UserError as error:  # a flag naming what the config lacks (--bot-tanks)
            print(f"bench: {error}", file=sys.stderr)
            return 2
        document["results"][name] = report
        if not args.json:
            print(text)
    if args.json:
        print(json.dumps(document, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
