"""``tank-battle --prepare``: compile the physics for this machine once, ahead of play (for
installers and CI), with a progress line; and the same on a start that finds them not
prepared (a headless game or a server says each step in its log).

numba compiles a loop for the types it is first called with, and keeps it in its disk
cache; a game then loads the cache as its simulation is made
(:func:`common.compiled.load_cached`). Preparing plays short headless games that call the
loops a game calls: a battle of 8 tanks on the dunes (shells, craters, the bots' look
round and search, vehicles close to each other), the firing range (shells striking plates), the big desert made in tiles, and
the car. The loops that only a window's particles call are compiled in the first window.
"""

from __future__ import annotations

import logging
import time

from common import compiled
from game.config import load_config
from game.sim.session import GameOptions, GameSession
from game.sim.step_loop import StepLoop
from physics.model.terrain import MapChoice

log = logging.getLogger(__name__)

SCENARIOS = (("a battle on the dunes", GameOptions(MapChoice.parse("desert"), 1, bots=7,
                                                   player_ai="hard"), 40.0),
             ("the firing range", GameOptions(MapChoice.parse("range"), 1,
                                              player_ai="hard"), 10.0),
             ("the big desert", GameOptions(MapChoice.parse("desert:4096"), 2, bots=1,
                                            player_ai="normal"), 10.0),
             ("the car", GameOptions(MapChoice.parse("desert"), 3, vehicle="car",
                                     player_ai="normal"), 5.0))
"""What is played, and for how many simulated seconds."""


def prepare_first(args) -> None:
    """A start whose compiled loops are not cached here (the first, or the first since the
    code, numba or the machine changed: :func:`common.compiled.needs_preparing`): prepare
    them before the game, a log line a step, rather than compile them as it plays."""
    log.info("the physics are not prepared for this machine: preparing them once (half a "
             "minute on a 2-core machine)")
    prepare(args, say=log.info)


def say_now(line: str) -> None:
    """A progress line, out at once (a window reading it through a pipe shows it)."""
    print(line, flush=True)


def prepare(args, say=say_now) -> int:
    """Play :data:`SCENARIOS` headless, saying each as it starts and what came of it."""
    if not compiled.AVAILABLE:
        say(f"tank-battle: {compiled.PLAIN_REASON}: the loops run as plain Python, nothing "
            "to prepare")
        return 0
    config = load_config(args.config)
    started_s = time.perf_counter()
    for number, (what, options, seconds) in enumerate(SCENARIOS, start=1):
        say(f"preparing the physics for this machine ({number}/{len(SCENARIOS)}): {what}")
        session = GameSession(config.session, options)
        try:
            StepLoop(session, session.player_brain()).run_for(seconds)
        finally:
            session.destroy()
    ready = [loop for loop in compiled.LOOPS if loop.signatures]
    compiled.mark_prepared()
    say(f"prepared: {len(ready)} of {len(compiled.LOOPS)} compiled loops ready, in "
        f"{time.perf_counter() - started_s:.1f} s")
    log.info("not prepared (called by a window only, or not in these games): %s",
             ", ".join(sorted(loop.__name__ for loop in compiled.LOOPS
                              if not loop.signatures)) or "none")
    return 0
