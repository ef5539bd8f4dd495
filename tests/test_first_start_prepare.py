"""A start that finds the compiled physics not prepared for this machine (a first start,
or the first since the code, numba or the machine changed) prepares them before its game,
a log line a step, and later starts do not; a preparation killed halfway is taken up again
at the next start, whatever it left in the cache."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

from common import compiled
from common.settings import CACHE_OVERRIDE_ENV
from tests.conftest import MAIN, REPO_ROOT, cli_env
from tests.net_harness import GameProcess

pytestmark = [pytest.mark.skipif(not compiled.AVAILABLE, reason=f"{compiled.PLAIN_REASON}"),
              pytest.mark.slow]
HALFWAY = "preparing the physics for this machine (2/"


def _env(tmp_path) -> dict[str, str]:
    """An empty numba cache and cache folder of the test's own, and preparing allowed."""
    return cli_env(**{"NUMBA_CACHE_DIR": str(tmp_path / "numba"),
                      CACHE_OVERRIDE_ENV: str(tmp_path / "cache"),
                      compiled.PREPARE_ENV: "1"})


def _game(env, *args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(MAIN), "--headless", "--seconds", "1",
                           "--bots", "1", "--log-level", "info", *args], cwd=REPO_ROOT,
                          env=env, capture_output=True, text=True, timeout=300)


def test_a_first_start_prepares_and_a_killed_preparation_is_taken_up_again(tmp_path):
    env = _env(tmp_path)
    with GameProcess("preparing", "--prepare", env=env) as preparing:
        preparing.wait_for_line(HALFWAY, seconds=240)
        preparing.process.send_signal(signal.SIGKILL)  # the player closes it halfway
        preparing.wait()
    assert not list((tmp_path / "cache").rglob("*.prepared"))  # not marked as prepared
    first = _game(env)
    assert first.returncode == 0, first.stderr
    steps = [line for line in first.stderr.splitlines() if "preparing the physics" in line]
    assert len(steps) == 4 and "not prepared for this machine" in first.stderr
    assert len(list((tmp_path / "cache").rglob("*.prepared"))) == 1
    later = _game(env)
    assert later.returncode == 0, later.stderr
    assert "preparing" not in later.stderr  # prepared once


def test_preparing_can_be_left_to_the_game_and_the_plain_path_never_prepares(tmp_path,
                                                                              monkeypatch):
    monkeypatch.setattr(compiled, "prepared_marker", lambda: tmp_path / "missing.prepared")
    assert compiled.needs_preparing({})
    assert not compiled.needs_preparing({compiled.PREPARE_ENV: "0"})
    monkeypatch.setattr(compiled, "AVAILABLE", False)
    assert not compiled.needs_preparing({})
