"""A window asked for where there is no display: one clear line on stderr, saying that a
display is needed and what to run instead, and exit status 2 (no traceback, none of
Panda3D's own lines about the displays it tried). Both where no display is named (the
environment of ``cli_env()`` names none) and where the one named cannot be opened."""

from __future__ import annotations

import sys

import pytest

from tests.conftest import cli_env

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="displays named in DISPLAY and WAYLAND_DISPLAY: Linux's")

NO_SUCH_DISPLAY = ":4127"
"""An X display nobody runs: Panda3D tries it and fails."""


def _one_clear_line(done) -> str:
    """The one line a run that found no display wrote (checked), for the caller's checks."""
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    line = lines[0]
    assert line.startswith("tank-battle: window: expected a display"), line
    assert "--offscreen" in line and "--headless" in line, line  # what to do instead
    assert done.stdout == ""
    return line


@pytest.mark.parametrize("args", [[], ["--map", "flat", "--seconds", "1"]],
                         ids=["title menu", "a match"])
def test_no_display_named_is_one_line_and_status_2(run_cli, tmp_path, args):
    done = run_cli(*args, env=cli_env(TANK_BATTLE_CONFIG_HOME=str(tmp_path),
                                      TANK_BATTLE_DATA_HOME=str(tmp_path)))
    assert "DISPLAY and WAYLAND_DISPLAY are not set" in _one_clear_line(done)


def test_a_display_that_will_not_open_is_one_line_and_status_2(run_cli, tmp_path):
    done = run_cli("--map", "flat", "--seconds", "1",
                   env=cli_env(DISPLAY=NO_SUCH_DISPLAY, TANK_BATTLE_CONFIG_HOME=str(tmp_path),
                               TANK_BATTLE_DATA_HOME=str(tmp_path)))
    assert "Could not open window" in _one_clear_line(done)
