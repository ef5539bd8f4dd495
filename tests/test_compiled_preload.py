"""No compiled loop is loaded mid-battle: a simulation, as it is made, loads every loop its
disk cache holds (common/compiled.py ``load_cached``), so none is first loaded in a step
(each a few milliseconds: a hitch in that frame).

Two fresh processes play the same short battle: the first fills the disk cache with every
loop the battle calls; in the second, every loop the battle calls already has its machine
code loaded when the simulation has been made, before the first step."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from common import compiled

pytestmark = [pytest.mark.skipif(not compiled.AVAILABLE, reason="the loops run as Python"),
              pytest.mark.slow]

BATTLE = """
import sys
from common import compiled
from game.config import load_config
from game.sim.session import GameOptions, GameSession
from game.sim.step_loop import StepLoop
from physics.model.terrain import MapChoice

session = GameSession(load_config().session, GameOptions(MapChoice.parse("desert"), 1, bots=3,
                                                         player_ai="hard"))
loop = StepLoop(session)
ready = {loop_.__name__ for loop_ in compiled.LOOPS if loop_.overloads}
for _ in range(int(sys.argv[1])):
    loop.step()
called = {loop_.__name__ for loop_ in compiled.LOOPS if loop_.overloads}
print("loaded mid-battle:", sorted(called - ready))
print("called:", len(called))
"""


def _battle(repo_root, steps: int) -> str:
    done = subprocess.run([sys.executable, "-c", BATTLE, str(steps)], cwd=repo_root,
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_every_loop_a_battle_calls_is_loaded_before_its_first_step(repo_root):
    steps = 1800  # 30 s: shells fly, strike and dig craters
    _battle(repo_root, steps)  # fills the cache with whatever this battle calls
    out = _battle(repo_root, steps)
    assert "loaded mid-battle: []" in out, out
    called = int(out.split("called:")[1])
    assert called >= 10, out  # the battle did call compiled loops


def test_prepare_plays_its_games_and_says_how_many_loops_are_ready(run_cli):
    """``tank-battle --prepare``: a progress line a game, then how many of the compiled
    loops are ready (compiled into the cache, or loaded from it), exit 0."""
    result = run_cli("--prepare", timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    lines = result.stdout.splitlines()
    assert [line.split(": ", 1)[1] for line in lines[:4]] == [
        "a battle on the dunes", "the firing range", "the big desert", "the car"]
    assert lines[0].startswith("preparing the physics for this machine (1/4)")
    ready, total = (int(word) for word in lines[4].split()[1:4:2])
    assert lines[4].startswith("prepared: ") and total >= ready >= 25, lines[4]


def test_prepare_is_not_a_match_flag():
    from game.cli import match_flags_given
    assert match_flags_given(["--prepare"]) == set()
