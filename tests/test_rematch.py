"""Rematch on the end-of-match screen, in the real app (offscreen, in a process of its own:
a ShowBase): a match played to its end from the title menu, then Rematch starts a fresh
match of the same options (a new session, the old one gone, the score back to nothing,
every vehicle whole at its spawn, time running, the end screen closed), and that match in
turn is played to its end screen. tests/test_match.py presses the screen's buttons on
their own; tests/test_title_app.py follows its Menu button."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

REMATCH = """
import json
import sys
from dataclasses import replace
from panda3d.core import loadPrcFileData
loadPrcFileData("", "audio-library-name null")
from game.app import TankBattleApp
from game.sim.session import GameOptions
from game.runs.windowed_run import WindowedRun
from game.window_config import load_window_config

app = TankBattleApp(load_window_config(sys.argv[1]), WindowedRun(
    GameOptions(), offscreen=True, menu=True, seconds=600.0))
menus = app.menus
facts = {}

def frames(count):
    for _ in range(count):
        app.taskMgr.step()

def where(session):
    # Each vehicle's place on the ground (x, y) and whether it is whole, by name.
    return {vehicle.name: [*map(float, vehicle.current.position_ws[:2]),
                           vehicle.health == vehicle.spec.armour.health
                           and not vehicle.destroyed]
            for vehicle in session.simulation.vehicles}

def play_to_the_end(session):
    # The player's side wins: the bot is destroyed where it stands; then the frames run
    # (the restart pause) until the end screen opens. Returns the frames that took (None:
    # no bot to destroy, or no end screen within 5 s).
    simulation = session.simulation
    bot = simulation.vehicle_named("bot-1")
    if bot is None:
        return None
    simulation.combat.damage(bot, 1e6, simulation.player)
    for frame in range(1, 300):
        frames(1)
        if menus.match_end.is_open:
            return frame
    return None

frames(3)
title = menus.front_door.menu
menus.front_door.play(replace(title.current_setup(), map="flat", bots=1, rounds=1))
menus.action("activate")                     # a new player's help card: Got it
frames(30)
first = app.session
simulation = first.simulation
facts["spawns"] = {name: list(map(float, spawn[:2]))
                   for name, spawn in first.battle.spawns.items()}
for vehicle in simulation.vehicles:          # each drives off its spawn (set down elsewhere)
    x, y = vehicle.current.position_ws[:2]
    simulation.place(vehicle, x + 30.0, y - 20.0, 90.0)
frames(2)
facts["first_end_frames"] = play_to_the_end(first)
facts["before"] = {"where": where(first), "score": dict(first.battle.score),
                   "over": first.battle.over, "paused": app.paused,
                   "title": menus.match_end.title["text"]}

menus.match_end.buttons["Rematch"].commandFunc(None)   # what DirectGui runs on a click
frames(1)
second = app.session
facts["new_session"] = second is not first
facts["old_world_bodies"] = first.simulation.world.bullet.getNumRigidBodies()
facts["same_options"] = second.options == first.options
facts["rematch_spawns"] = {name: list(map(float, spawn[:2]))
                           for name, spawn in second.battle.spawns.items()}
facts["after"] = {"where": where(second), "score": dict(second.battle.score),
                  "round": second.battle.round, "over": second.battle.over,
                  "end_screen": menus.match_end.is_open, "front": repr(menus.front),
                  "title_open": app.title_open, "paused": app.paused,
                  "hud": app.views[0].screen.overlay.display_region.isActive()}
started_s = second.simulation.time_s
frames(30)
facts["ran_s"] = [started_s, second.simulation.time_s]
facts["second_end_frames"] = play_to_the_end(second)
facts["second_end"] = {"score": dict(second.battle.score), "over": second.battle.over,
                       "title": menus.match_end.title["text"], "paused": app.paused}
session = app.session
app.destroy()
session.destroy()
print(json.dumps(facts))
"""

SPAWN_M = 0.5
"""A vehicle set down at its spawn has settled on its springs this close to it (x, y)."""


@pytest.mark.slow
def test_rematch_starts_a_fresh_match_of_the_same_options(repo_root, tmp_path, config_copy,
                                                          edit_file):
    # Quicker frames and ends: a small buffer, and a short pause before a match's end.
    edit_file(config_copy / "view.toml", 'title = "Tank Battle"\nwidth_px = 1280\n'
              'height_px = 720', 'title = "Tank Battle"\nwidth_px = 320\nheight_px = 200')
    edit_file(config_copy / "game.toml", "restart_delay_s = 5.0", "restart_delay_s = 0.5")
    env = {"TANK_BATTLE_CONFIG_HOME": str(tmp_path), "TANK_BATTLE_DATA_HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", REMATCH, str(config_copy)], cwd=repo_root,
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, **env})
    assert done.returncode == 0, done.stderr[-3000:]
    facts = json.loads(done.stdout.strip().splitlines()[-1])

    # The first match ended: won, its screen open, the game stopped under it, and every
    # vehicle away from its spawn (so that the rematch has to put them back).
    before = facts["before"]
    assert facts["first_end_frames"] is not None, "the first match's end screen never opened"
    assert before["title"] == "Victory" and before["over"] and before["paused"]
    assert before["score"] == {"player": 1, "bots": 0}
    assert set(before["where"]) == set(facts["spawns"]) == {"player", "bot-1"}
    for name, (x, y, _) in before["where"].items():
        assert abs(x - facts["spawns"][name][0]) > 10.0, name

    # Rematch: a new session of the same options; the old one's world is gone.
    assert facts["new_session"] and facts["same_options"]
    assert facts["old_world_bodies"] == 0
    after = facts["after"]
    assert after["score"] == {"player": 0, "bots": 0}
    assert after["round"] == 1 and not after["over"]
    assert facts["rematch_spawns"] == facts["spawns"]  # the same places
    assert set(after["where"]) == set(facts["spawns"])
    for name, (x, y, whole) in after["where"].items():
        spawn_x, spawn_y = facts["spawns"][name]
        assert whole, name
        assert abs(x - spawn_x) < SPAWN_M and abs(y - spawn_y) < SPAWN_M, name
    # The end screen is gone and no other menu took its place; the game runs, HUD shown.
    assert not after["end_screen"] and after["front"] == "None"
    assert not after["title_open"] and not after["paused"] and after["hud"]
    started_s, later_s = facts["ran_s"]
    assert later_s - started_s == pytest.approx(30 / 60.0, abs=1.5 / 60.0)  # a step a frame

    # The fresh match is a real one: played to its end, its own screen opens on its score.
    assert facts["second_end_frames"] is not None, "the rematch's end screen never opened"
    second_end = facts["second_end"]
    assert second_end["score"] == {"player": 1, "bots": 0}
    assert second_end["over"] and second_end["paused"] and second_end["title"] == "Victory"
