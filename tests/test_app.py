"""The window's wiring: a restart makes a new game session, and the new session's views,
effects and sounds listen to it (offscreen, in a process of its own: a ShowBase)."""

from __future__ import annotations

import subprocess
import sys

import pytest

RESTART = """
from panda3d.core import loadPrcFileData
loadPrcFileData("", "audio-library-name null")
from game.app import TankBattleApp
from game.app_states import PLAYING
from game.menus.requests import Restart
from game.runs.windowed_run import WindowedRun
from game.sim.controls import ScriptedInputs
from game.sim.session import GameOptions
from game.window_config import load_window_config

firing = ScriptedInputs([(0.0, {"fire": True})])
app = TankBattleApp(load_window_config(), WindowedRun(GameOptions(bots=1), offscreen=True,
                                                      inputs=firing, seconds=600.0))
for _ in range(3):
    app.taskMgr.step()
first, first_view = app.session, app.session_view
app.send(Restart())  # what the pause menu's Restart sends
assert app.state is PLAYING
assert app.session is not first and app.session_view is not first_view
assert first.simulation.world.bullet.getNumRigidBodies() == 0, "the old world lives on"
assert app.session.simulation.time_s == 0.0
app.session.simulation.player.aim.reload_left_s = 0.0  # loaded: the next step fires
for _ in range(3):
    app.taskMgr.step()
effects = app.session_view.effects
print("muzzle flashes", effects.counts["muzzle_flash"],
      "old", first_view.effects.counts["muzzle_flash"])
print("views", len(app.session_view.vehicle_views),
      "vehicles", len(app.session.simulation.vehicles))
session = app.session
app.destroy()
session.destroy()
"""


@pytest.mark.slow
def test_a_restart_builds_a_new_session_that_the_views_listen_to(repo_root):
    done = subprocess.run([sys.executable, "-c", RESTART], cwd=repo_root, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "muzzle flashes 1 old 0" in done.stdout, done.stdout
    assert "views 2 vehicles 2" in done.stdout, done.stdout
