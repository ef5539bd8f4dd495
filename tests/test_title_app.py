"""The title menu in the window (offscreen, in a process of its own: a ShowBase): it opens
with the game stopped behind it, match setup starts the match it set up (another map
redraws the ground), the end of the match opens its screen, Menu goes back to the title,
the first match shows the help card once, a new game puts the gear lever back, and
``--offscreen --menu --screenshot`` shows the menu."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

FLOW = """
from panda3d.core import loadPrcFileData
loadPrcFileData("", "audio-library-name null")
from dataclasses import replace
from game.app import TankBattleApp
from game.runs.windowed_run import WindowedRun
from game.sim.session import GameOptions
from game.window_config import load_window_config

config = load_window_config()
# A small buffer of the window's shape: the flow waits some 300 frames for the match's end,
# and each frame drawn at the full size took most of this test's time.
window = replace(config.view.window, width_px=356, height_px=200)
config = replace(config, view=replace(config.view, window=window))
app = TankBattleApp(config, WindowedRun(GameOptions(bots=2), offscreen=True, menu=True,
                                        seconds=600.0))
def frames(count):
    for _ in range(count):
        app.taskMgr.step()
frames(3)
menus = app.menus
print("title", app.title_open, "paused", app.paused, "steps", app.session.simulation.time_s,
      "bots", app.session.options.bots, "state", app.state.name)
ground = app.scene.terrain
title = menus.front_door.menu
title.act("activate")                                  # Play
print("play", app.state.name, title.page)
setup = replace(title.current_setup(), map="flat", bots=1, rounds=1, gearbox="manual")
menus.front_door.play(setup)
frames(5)
simulation = app.session.simulation
print("match", app.session.options.map.text, len(simulation.vehicles), "title", app.title_open,
      "paused", app.paused, "stopped", simulation.time_s == 0, "ground", app.scene.terrain is not ground,
      "automatic", bool(simulation.player.fleet.gearbox.automatic[simulation.player.index]))
print("help", menus.help_card.shown, "paused", app.paused, app.state.name)
menus.action("activate")                               # Got it
print("seen", menus.settings.current.help_seen, menus.settings.path.read_text().count("help_seen = true"),
      "paused", app.paused, app.state.name)
frames(3)
assert simulation.time_s > 0
app.messenger.send("escape")                           # the pause menu ...
frames(2)
print("esc", menus.pause_menu.is_open, app.paused, app.state.name)
app.messenger.send("escape")                           # ... and back to the game
frames(2)
print("esc again", menus.pause_menu.is_open, app.paused, app.state.name)
bot = simulation.vehicle_named("bot-1")
simulation.combat.damage(bot, 10000.0, simulation.player)
for _ in range(600):
    frames(1)
    if menus.match_end.is_open:
        break
print("end", menus.match_end.is_open, "paused", app.paused, menus.match_end.title["text"],
      app.state.name)
app.player_inputs.poll_pads = lambda: None
app.player_inputs.pause_pressed = lambda: True         # Start does not resume a finished match
frames(2)
print("start", menus.match_end.is_open, app.state.name)
app.player_inputs.first.keyboard.mapper.lever = "3"    # the player left it in 3rd
menus.match_end.buttons["Menu"].commandFunc(None)
frames(2)
print("back", app.title_open, "bots", app.session.options.bots, "paused", app.paused,
      "lever", app.player_inputs.first.keyboard.mapper.lever, app.state.name)
session = app.session
app.destroy()
session.destroy()
"""


@pytest.mark.slow
def test_the_title_menu_starts_the_match_it_set_up_and_comes_back(repo_root, tmp_path):
    env = {"TANK_BATTLE_CONFIG_HOME": str(tmp_path), "TANK_BATTLE_DATA_HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", FLOW], cwd=repo_root, capture_output=True,
                          text=True, timeout=300, env={**os.environ, **env})
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    assert "title True paused True steps 0.0 bots 0 state TITLE" in out, out
    assert "play MATCH_SETUP setup" in out, out
    # A new player's first match waits under the help card until it is dismissed.
    assert "match flat 2 title False paused True stopped True ground True automatic False" in out, out
    assert "help True paused True HELP" in out and "seen True 1 paused False PLAYING" in out, out
    assert "esc True True PAUSED" in out and "esc again False False PLAYING" in out, out
    assert "end True paused True Victory MATCH_END" in out, out
    assert "start True MATCH_END" in out, out
    # A new game puts the gear lever back: the last game's gear would shift the new vehicle.
    assert "back True bots 0 paused True lever None TITLE" in out, out


@pytest.mark.slow
def test_offscreen_menu_screenshot_shows_the_title_menu(run_forked, tmp_path):
    shot = tmp_path / "title.png"
    done = run_forked("--offscreen", "--menu", "--seconds", "0.1", "--screenshot", shot)
    assert done.returncode == 0, done.stderr[-2000:]
    assert shot.stat().st_size > 10_000
