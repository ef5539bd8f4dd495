"""Shared fixtures and helpers for the whole suite.

- ``repo_root``: the project folder (where main.py and config/ live).
- ``run_cli(*args, timeout=..., env=...)``: run ``python main.py ARGS`` in a subprocess
  from the repo root; returns the ``subprocess.CompletedProcess`` (text stdout/stderr).
- ``run_forked``: the same, forked from a process that has imported the game already (a
  second less a run); not for runs compared with another process's (a fork's hash seed).
- ``config_copy``: a private copy of config/ under tmp_path, to corrupt and pass as
  ``--config DIR`` or to ``load_config(DIR)``; ``edit_file(path, old, new)`` edits it.
- ``config``: the shipped config, loaded once (frozen, safe to share).
- ``simulate_until(simulation, condition, max_seconds, controls=...)``: step a
  Simulation until ``condition(simulation)`` holds; returns the simulated seconds taken.

Before any test runs: numba's cache is this source's own (:mod:`tests.compiled_cache`),
and the games the tests start keep their settings, replays and logs in a temporary folder
of this process's own (``TANK_BATTLE_CONFIG_HOME``, ``TANK_BATTLE_DATA_HOME``), so that
parallel workers never share one and the developer's own are never touched.
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Callable

import pytest

from tests.compiled_cache import use_cache_of_this_source

REPO_ROOT = Path(__file__).resolve().parents[1]
use_cache_of_this_source(REPO_ROOT)  # before anything imports numba

from common.compiled import PREPARE_ENV  # noqa: E402 (numba's cache first)
from common.settings import CACHE_OVERRIDE_ENV, DATA_OVERRIDE_ENV, OVERRIDE_ENV  # noqa: E402
from game.sim.controls import Controls  # noqa: E402
from game.window_config import load_window_config  # noqa: E402

MAIN = REPO_ROOT / "main.py"
CONFIG_DIR = REPO_ROOT / "config"
CLI_TIMEOUT_S = 120.0


def _own_user_folders() -> None:
    """The games the suite starts (in this process and its subprocesses) keep their
    settings, replays and logs in a folder of this test process's own, never the
    developer's, and never one another test process (a parallel worker) writes to. A test
    that needs its own folders sets them itself. Their games compile the physics as they
    play, into the suite's one shared cache, rather than each preparing it first on its
    own (a test of preparing asks for it)."""
    folder = Path(tempfile.mkdtemp(prefix="tank-battle-tests-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    os.environ.setdefault(OVERRIDE_ENV, str(folder / "config"))
    os.environ.setdefault(DATA_OVERRIDE_ENV, str(folder / "data"))
    os.environ.setdefault(CACHE_OVERRIDE_ENV, str(folder / "cache"))
    os.environ.setdefault(PREPARE_ENV, "0")


_own_user_folders()


def cli_env(**extra: str) -> dict[str, str]:
    """The environment for game subprocesses: no display, no sound card needed."""
    env = dict(os.environ)
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    env["ALSOFT_DRIVERS"] = "null"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update(extra)
    return env


def _run_cli(*args, timeout: float = CLI_TIMEOUT_S, env: dict[str, str] | None = None,
             cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(MAIN), *map(str, args)],
                          cwd=cwd or REPO_ROOT, env=env or cli_env(), capture_output=True,
                          text=True, timeout=timeout)


def _edit_file(path: Path, old: str, new: str) -> None:
    """Replace the one occurrence of ``old`` in ``path`` (fails if it is not there once)."""
    text = Path(path).read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times in {path}"
    Path(path).write_text(text.replace(old, new), encoding="utf-8")


def _simulate_until(simulation, condition: Callable, max_seconds: float,
                    controls: Controls | None = None) -> float:
    """Step ``simulation`` (idle controls unless given) until ``condition(simulation)``.

    The condition is checked after each step. Returns the simulated seconds it took;
    raises AssertionError if it is not met within ``max_seconds``.
    """
    controls = controls if controls is not None else Controls()
    start_s = simulation.time_s
    steps = int(round(max_seconds / simulation.step_s))
    for _ in range(steps):
        simulation.step(controls)
        if condition(simulation):
            return simulation.time_s - start_s
    raise AssertionError(f"condition not met within {max_seconds:g} s of simulated time "
                         f"(ran {steps} steps to t = {simulation.time_s:.3f} s)")


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture(scope="session")
def run_cli():
    """``run_cli(*args, timeout=..., env=..., cwd=...)`` -> CompletedProcess."""
    return _run_cli


@pytest.fixture(scope="session")
def run_forked():
    """``run_cli`` forked from a process that has imported the game already
    (:mod:`tests.cli_fork`): for every run but those whose output is compared with another
    process's. With an ``env`` of its own, or the environment changed since, a run is
    ``run_cli``'s."""
    from tests.cli_fork import forked_run
    return forked_run


@pytest.fixture(scope="session")
def edit_file():
    """``edit_file(path, old, new)``: replace the single occurrence of ``old``."""
    return _edit_file


@pytest.fixture
def config_copy(tmp_path: Path) -> Path:
    """A copy of config/ (every TOML file) in tmp_path; returns the copied folder."""
    target = tmp_path / "config"
    shutil.copytree(CONFIG_DIR, target)
    return target


@pytest.fixture(scope="session")
def config():
    """The shipped config/, loaded once."""
    return load_window_config(CONFIG_DIR)


@pytest.fixture(scope="session")
def simulate_until():
    """``simulate_until(simulation, condition, max_seconds, controls=None)`` -> seconds."""
    return _simulate_until


@pytest.fixture
def keys(config):
    """The default keyboard bindings (config/controls.toml)."""
    return config.controls.keyboard


@pytest.fixture
def pads(config):
    """The default gamepad bindings (config/controls.toml)."""
    return config.controls.gamepad


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    """A user config folder of the test's own (settings.toml, bindings.toml go there)."""
    from common.settings import OVERRIDE_ENV
    folder = tmp_path / "config-home"
    monkeypatch.setenv(OVERRIDE_ENV, str(folder))
    return folder
