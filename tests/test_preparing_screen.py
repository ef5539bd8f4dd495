"""The first start's progress screen: it follows ``--prepare``'s progress lines, weighting
each step by the seconds its game plays, ends when the preparation does, and says in the
log when it failed (the game then compiles as it plays)."""

from __future__ import annotations

import sys
import time

from panda3d.core import NodePath

from game.menus.preparing_screen import BAR_RANGE, PreparingScreen

STEPS = ("preparing the physics for this machine (1/2): a battle on the dunes",
         "preparing the physics for this machine (2/2): the car",
         "prepared: 30 of 35 compiled loops ready, in 1.0 s")


def _speaker(lines, exit_status: int = 0, pause_s: float = 0.0) -> list[str]:
    """A stand-in for ``--prepare``: says ``lines``, a pause before each, and exits."""
    code = (f"import sys, time\nfor line in {list(lines)!r}:\n    time.sleep({pause_s})\n"
            f"    print(line, flush=True)\nsys.exit({exit_status})")
    return [sys.executable, "-c", code]


def _until_finished(screen: PreparingScreen) -> list[tuple[float, str]]:
    """Each distinct (bar, step text) the screen showed until the preparation ended."""
    shown: list[tuple[float, str]] = []
    deadline = time.monotonic() + 30.0
    while screen.update():
        assert time.monotonic() < deadline
        now = (round(screen.bar["value"], 3), screen.step["text"])
        if not shown or shown[-1] != now:
            shown.append(now)
        time.sleep(0.01)
    shown.append((round(screen.bar["value"], 3), screen.step["text"]))
    return shown


def test_the_bar_follows_the_steps_weighted_by_their_seconds(config):
    screen = PreparingScreen(NodePath("aspect2d"), config.view.menu,
                             _speaker(STEPS, pause_s=0.2), weights=[30.0, 10.0])
    shown = _until_finished(screen)
    assert (0.0, "a battle on the dunes (1 of 2)") in shown
    assert (BAR_RANGE * 0.75, "the car (2 of 2)") in shown  # the dunes were 30 of 40 s
    assert shown[-1] == (BAR_RANGE, "Ready") and screen.succeeded
    screen.destroy()


def test_a_failed_preparation_ends_the_screen_and_says_so(config, caplog):
    screen = PreparingScreen(NodePath("aspect2d"), config.view.menu,
                             _speaker(STEPS[:1], exit_status=3), weights=[1.0, 1.0])
    with caplog.at_level("WARNING"):
        _until_finished(screen)
    assert not screen.succeeded
    assert "preparing the physics failed (exit 3)" in caplog.text
    screen.destroy()


def test_closing_the_window_meanwhile_stops_the_preparation(config):
    screen = PreparingScreen(NodePath("aspect2d"), config.view.menu,
                             _speaker(STEPS, pause_s=30.0), weights=[1.0, 1.0])
    screen.destroy()
    assert screen.process.poll() is not None  # stopped, not left running
