"""Steady play makes and destroys no Panda nodes: the whole game offscreen (in a process of
its own: a ShowBase), driving and firing among bots, with dust, a shell in flight, the
reload ring, minimap, markers, damage wedges and the kill feed all changing, keeps the
same nodes under the 3-D scene and every 2-D overlay from frame to frame."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

STEADY = """
import json
from dataclasses import replace
from panda3d.core import loadPrcFileData
loadPrcFileData("", "audio-library-name null")
from bench.frame import arrange_in_view
from game.app import TankBattleApp
from game.sim.controls import ScriptedInputs
from game.sim.events import Damage, Destroyed
from game.sim.session import GameOptions
from game.window_config import load_window_config
from game.runs.windowed_run import WindowedRun

WARM_UP_FRAMES, FRAMES = 40, 60
LOFT_RAD = 0.3
SIDEWAYS_RAD = 1.5

config = load_window_config()
window = replace(config.view.window, width_px=640, height_px=360)
config = replace(config, view=replace(config.view, window=window))
driving = ScriptedInputs([(0.0, {"throttle": 1.0, "steer": 0.2}),
                          ((WARM_UP_FRAMES + 5) / 60.0, {"fire": True})])
app = TankBattleApp(config, WindowedRun(GameOptions(bots=3, seed=3), offscreen=True,
                                        inputs=driving, seconds=600.0))
arrange_in_view(app)  # the bots in front of the player: marked, on the minimap
roots = [app.render, app.render2d] + [view.screen.overlay.root for view in app.views]


def subtree(root) -> set:
    return {path.node().this for path in [root] + list(root.findAllMatches("**"))}


def nodes() -> set:  # every node (by its address), the sounds' emitters too
    return set().union(*(subtree(root) for root in roots))


for _ in range(WARM_UP_FRAMES):
    app.taskMgr.step()
player = app.session.simulation.player
player.aim.reload_left_s = 0.0  # loaded: a shell flies during the measured frames ...
player.aim.elevation_rad = LOFT_RAD  # ... far, up and to the side, clear of the bots
player.aim.turret_heading_rad = SIDEWAYS_RAD
hud = app.views[0].hud
effects = app.session_view.effects
dust_before = effects.counts["track_dust"] + effects.counts["slide_dust"]
first = nodes()
changed, tracers, markers, particles = 0, 0, 0, 0
for frame in range(FRAMES):
    if frame == 5:
        hud.on_events([Damage(player.name, "bot-1", 10.0, 90.0),
                       Destroyed("bot-2", player.name)], player.name)
    app.taskMgr.step()
    changed += nodes() != first
    tracers = max(tracers, app.session_view.combat_view.shown_tracers)
    markers = max(markers, len(hud.markers.markers))
    particles = max(particles, effects.particles.count)
print(json.dumps({"nodes": len(first), "frames_changed": changed, "tracers": tracers,
                  "markers": markers, "particles": particles,
                  "dust": effects.counts["track_dust"] + effects.counts["slide_dust"]
                  - dust_before, "wedges": len(hud.damage.bearings) + len(hud.damage.sources),
                  "kill_feed": hud.kill_feed.lines}))
session = app.session
app.destroy()
session.destroy()
"""


@pytest.mark.slow
def test_steady_frames_make_and_destroy_no_nodes(repo_root):
    done = subprocess.run([sys.executable, "-c", STEADY], cwd=repo_root, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    # The frames were busy: dust, a shell in flight, particles, markers, the HUD's events.
    assert report["dust"] > 0 and report["particles"] > 0, report
    assert report["tracers"] > 0, report
    assert report["markers"] > 0, report
    assert report["kill_feed"], report
    assert report["frames_changed"] == 0, report
