"""A first start picks the graphics quality from the renderer: on a software renderer
(Mesa's llvmpipe, as on machines without a GPU driver) it starts at low, saved; the
player's own choice, once saved, always wins; a GPU's start keeps the default."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from common.settings import UserSettings, save_settings
from game.applied_settings import SOFTWARE_QUALITY, pick_first_quality, software_renderer

LLVMPIPE = "llvmpipe (LLVM 15.0.6, 256 bits)"
GPU = "NVIDIA GeForce RTX 3060/PCIe/SSE2"


@pytest.fixture
def defaults(config):
    return config.view.user_settings


@pytest.mark.parametrize("renderer, software", [
    (LLVMPIPE, True), ("softpipe", True), ("Google SwiftShader", True),
    ("Apple Software Renderer", True), ("GDI Generic", True),
    ("Microsoft Basic Render Driver", True), (GPU, False),
    ("AMD Radeon RX 6600 (radeonsi, navi23, LLVM 15.0.6, DRM 3.49)", False),
    ("Mesa Intel(R) UHD Graphics 620 (KBL GT2)", False), ("", False)])
def test_software_renderers_are_told_by_name(renderer, software):
    assert software_renderer(renderer) is software


def test_a_first_start_on_llvmpipe_starts_low_and_keeps_it(tmp_path, defaults):
    assert defaults.quality != SOFTWARE_QUALITY
    store = UserSettings(defaults, tmp_path / "settings.toml")
    assert pick_first_quality(store, LLVMPIPE)
    assert store.current.quality == SOFTWARE_QUALITY
    again = UserSettings(defaults, tmp_path / "settings.toml")
    assert again.current.quality == SOFTWARE_QUALITY and "quality" in again.saved
    assert not pick_first_quality(again, LLVMPIPE)  # picked once


def test_the_players_own_quality_wins_on_llvmpipe(tmp_path, defaults):
    path = tmp_path / "settings.toml"
    save_settings(path, defaults)  # the player saved the settings page: high, as default
    store = UserSettings(defaults, path)
    assert not pick_first_quality(store, LLVMPIPE)
    assert store.current.quality == defaults.quality


def test_a_gpus_first_start_keeps_the_default_and_writes_nothing(tmp_path, defaults):
    store = UserSettings(defaults, tmp_path / "settings.toml")
    assert not pick_first_quality(store, GPU)
    assert store.current.quality == defaults.quality
    assert not (tmp_path / "settings.toml").exists()


WINDOW = """
from panda3d.core import loadPrcFileData
loadPrcFileData("", "audio-library-name null")
from pathlib import Path
import sys
from common.settings import UserSettings
from game.app import TankBattleApp
from game.runs.windowed_run import WindowedRun
from game.sim.session import GameOptions
from game.window_config import load_window_config

config = load_window_config()
store = UserSettings(config.view.user_settings, Path(sys.argv[1]))
app = TankBattleApp(config, WindowedRun(GameOptions(), offscreen=True, menu=True, seconds=1.0),
                    settings=store)
print("renderer", app.win.getGsg().getDriverRenderer())
print("quality", app.settings_in_use.current.quality)
app.destroy()
"""


@pytest.mark.slow
def test_the_window_starts_at_the_renderers_quality(repo_root, tmp_path, defaults):
    """The game's own window, offscreen here: at low where its renderer draws in software
    (llvmpipe on a machine without a GPU), at the default elsewhere."""
    settings = tmp_path / "settings.toml"
    env = {**os.environ, "TANK_BATTLE_DATA_HOME": str(tmp_path), "ALSOFT_DRIVERS": "null"}
    done = subprocess.run([sys.executable, "-c", WINDOW, str(settings)], cwd=repo_root,
                          capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = dict(line.split(" ", 1) for line in done.stdout.splitlines() if " " in line)
    expected = SOFTWARE_QUALITY if software_renderer(lines["renderer"]) else defaults.quality
    assert lines["quality"] == expected, done.stdout
    assert settings.exists() is software_renderer(lines["renderer"])
