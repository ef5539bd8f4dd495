"""Two checkouts' battles stepped in turn: what a change costs a step, in one run.

    python -m bench.lockstep BEFORE[:CLASSES] AFTER[:CLASSES] [--seed N] [--tanks N]
                             [--seconds S] [--map MAP] [--random-bots] [--same-start]
                             [--json]

Each checkout (a folder holding the game, as ``git worktree add`` makes one) plays the
bench's battle (:func:`bench.soak.random_battle`: the player driven at random against
``--tanks - 1`` bots) in a process of its own, started in that folder with this
interpreter. The two processes take one fixed step each in turn, which goes first
alternating, and each times its own steps; while one steps the other waits. Both run
on one processor (where the system lets a program choose). A machine's slow spells fall
on both alike, where two runs one after the other on a shared machine differ by a tenth
and more. Each step finds the caches holding the other process's leavings, as a drawn
frame's step finds the renderer's, so the steps cost more than in a battle alone
(``bench battle``): compare the two figures of one run, not either with another
benchmark's.

``CLASSES``: the bots' tank classes, comma separated, taken in turn (none: the checkout's
config). ``--random-bots``: every bot's tank is driven at random as the player's is (its
own seed), not by its brain: the same kind of work in both trees, whatever their bots do
(how long they wait to fire, who lives). ``--same-start``: the before's vehicles are
set down where the after's start, by name, before the first step: where the two trees
open a round differently (a ring round the player, two lines abreast), the same ground
and the same distances between the tanks, which decide how often their rays and hulls
come near each other. The child's code is sent with the command, so a checkout from
before this file existed can be measured too: it needs only ``bench.soak.random_battle``
and ``game.config.load_config`` (and ``bench.battle.with_bot_tanks`` for ``CLASSES``).

Prints the ms a step of each and ``after_speed``, the before's ms over the after's (1.1:
the after steps a tenth faster).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from bench.arguments import map_name
from game.config import load_config

CHILD_EXIT_S = 60.0
"""How long a battle's process may take to end once told to (it destroys its session)."""

CHILD = """
import json, sys, time
sys.path.insert(0, '.')
from bench.soak import random_battle
from game.config import load_config
seed, tanks, classes, map_name = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
random_bots = sys.argv[5] == 'random'
config = load_config()
if classes:
    from bench.battle import with_bot_tanks
    config = with_bot_tanks(config, tuple(classes.split(',')))
loop = random_battle(config, tanks - 1, seed, map_name)
randomised = 0
if random_bots:  # every tank driven at random, as the player is: no bot's brain
    from bench.soak_watch import RandomDriver
    simulation = loop.simulation
    # The drivers' names through the private table: older trees have no public list.
    for number, name in enumerate(sorted(simulation._drivers)):
        simulation.add_driver(name, RandomDriver(seed + 1 + number, simulation.step_s).controls)
        randomised += 1
simulation = loop.simulation
def starts():
    return {vehicle.name: [*vehicle.current.position_ws[:2].tolist(),
                           vehicle.current.heading_pitch_roll_deg()[0]]
            for vehicle in simulation.vehicles}
print('starts ' + json.dumps(starts()), flush=True)
placed = 0
order = sys.stdin.readline()
if order.startswith('place '):  # where the other battle's vehicles start, by name
    for name, (x_m, y_m, heading_deg) in json.loads(order[len('place '):]).items():
        vehicle = simulation.vehicle_named(name)
        if vehicle is not None:
            simulation.place(vehicle, x_m, y_m, heading_deg)
            placed += 1
placed_at = starts()
loop.step()  # not timed: it loads the compiled loops
spent_s, steps = 0.0, 0
print('ready', flush=True)
for line in sys.stdin:
    if line.startswith('quit'):
        break
    started = time.perf_counter()
    loop.step()
    spent_s += time.perf_counter() - started
    steps += 1
    print('stepped', flush=True)
loop.session.destroy()
print(json.dumps({'ms_per_step': spent_s / max(steps, 1) * 1000.0, 'steps': steps,
                  'randomised': randomised, 'placed': placed, 'starts': placed_at}), flush=True)
"""


def _child(checkout: str, seed: int, tanks: int, map_text: str, random_bots: bool
           ) -> tuple[subprocess.Popen, dict]:
    """A checkout's battle, set up and waiting to be told where its vehicles start; with
    where they start now, by name (x and y in metres, heading in degrees)."""
    folder, _, classes = checkout.partition(":")
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(seed), str(tanks), classes,
                              map_text, "random" if random_bots else "brains"], cwd=folder,
                             stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True, bufsize=1)
    if hasattr(os, "sched_setaffinity"):  # both on one processor: the same caches, and
        os.sched_setaffinity(child.pid, {min(os.sched_getaffinity(0))})  # its slow spells
    kind, _, starts = _reply(child).partition(" ")
    if kind != "starts":
        _end(child)
        raise RuntimeError(f"{folder}: its battle did not start")
    return child, json.loads(starts)


def _start(child: subprocess.Popen, starts: dict | None) -> None:
    """Place a battle's vehicles at ``starts`` (by name; None: where they are) and wait
    until its first step, untimed, is taken."""
    _say(child, "keep" if starts is None else "place " + json.dumps(starts))
    if _reply(child) != "ready":
        _end(child)
        raise RuntimeError("a battle did not take its first step")


def _end(child: subprocess.Popen) -> None:
    """Stop a battle's process that is told nothing more: its input closed, its loop ends
    and it exits, or it is killed when it does not in time."""
    assert child.stdin is not None
    child.stdin.close()
    try:
        child.wait(timeout=CHILD_EXIT_S)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()


def _reply(child: subprocess.Popen) -> str:
    assert child.stdout is not None
    return child.stdout.readline().strip()


def _say(child: subprocess.Popen, line: str) -> None:
    assert child.stdin is not None
    child.stdin.write(line + "\n")
    child.stdin.flush()


def run(before: str, after: str, seed: int = 1, tanks: int = 8, seconds: float = 60.0,
        map_text: str = "desert", random_bots: bool = False, same_start: bool = False,
        starts: dict | None = None) -> dict:
    """The two checkouts' battles stepped in turn for ``seconds`` of simulated time (in
    this checkout's fixed steps); ``random_bots``: the bots' tanks driven at random too;
    ``same_start``: the before's vehicles start where the after's do (by name);
    ``starts``: both battles' vehicles start there (by name: x and y in metres, heading
    in degrees)."""
    steps = max(round(seconds * load_config().game.simulation.step_hz), 1)
    children: list[subprocess.Popen] = []
    try:
        own_starts = []
        for checkout in (before, after):
            child, child_starts = _child(checkout, seed, tanks, map_text, random_bots)
            children.append(child)
            own_starts.append(child_starts)
        after_starts = starts if starts is not None else own_starts[1]
        _start(children[0], after_starts if same_start or starts is not None else None)
        _start(children[1], starts)
        for step in range(steps):
            for child in (children if step % 2 == 0 else children[::-1]):
                _say(child, "step")
                if _reply(child) != "stepped":
                    raise RuntimeError("a battle stopped mid-run")
        results = []
        for child in children:
            _say(child, "quit")
            results.append(json.loads(_reply(child)))
    finally:
        for child in children:
            _end(child)
    ms = [result["ms_per_step"] for result in results]
    return {"parameters": {"before": before, "after": after, "seed": seed, "tanks": tanks,
                           "simulated_s": seconds, "map": map_text,
                           "random_bots": random_bots, "same_start": same_start},
            "placed": [result["placed"] for result in results],
            "starts": [result["starts"] for result in results],
            "steps": [result["steps"] for result in results],
            "bots_driven_at_random": [result["randomised"] for result in results],
            "ms_per_step": {"before": round(ms[0], 3), "after": round(ms[1], 3)},
            "after_speed": round(ms[0] / ms[1], 3)}


def _checkout(text: str) -> str:
    folder = text.partition(":")[0]
    if not (Path(folder) / "bench" / "soak.py").is_file():
        raise argparse.ArgumentTypeError(f"{folder!r}: expected a checkout of the game")
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.lockstep",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=_checkout, help="FOLDER[:CLASSES]")
    parser.add_argument("after", type=_checkout, help="FOLDER[:CLASSES]")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--tanks", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--map", type=map_name, default="desert")
    parser.add_argument("--random-bots", action="store_true",
                        help="drive the bots' tanks at random too, as the player's: the same "
                             "kind of work in both trees whatever their bots' brains do")
    parser.add_argument("--same-start", action="store_true",
                        help="the before's vehicles start where the after's do (by name): "
                             "the same ground and the same distances between them, where "
                             "the two trees' openings differ")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    report = run(args.before, args.after, args.seed, args.tanks, args.seconds, args.map,
                 args.random_bots, args.same_start)
    if args.json:
        print(json.dumps(report))
    else:
        ms = report["ms_per_step"]
        print(f"{args.tanks} tanks, seed {args.seed}, {args.seconds:g} s in turns: before "
              f"{ms['before']:.3f} ms a step, after {ms['after']:.3f}; the after at "
              f"{report['after_speed']:.3f} of the before's speed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
