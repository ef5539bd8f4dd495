"""A window on a server's game drives with the player's own gearbox (the game's other
options are the server's): automatic for a new player, manual when asked for."""

from __future__ import annotations

import subprocess
import sys

import pytest

from game.sim.net.link import enet_available
from tests.conftest import REPO_ROOT, cli_env
from tests.net_harness import WAIT_MOST_S, start_server

pytestmark = pytest.mark.skipif(not enet_available(), reason="pyenet is not installed")

JOIN = """
import sys
from dataclasses import replace
from panda3d.core import loadPrcFileData
loadPrcFileData("", "audio-library-name null")
from game.app import TankBattleApp
from game.cli import build_parser, player_gearbox
from game.runs.online import connect
from game.sim.net.shown import ClientSession
from game.window_config import load_window_config
from game.runs.windowed_run import WindowedRun

port, gearbox = sys.argv[1], sys.argv[2:]
args = build_parser().parse_args(["--connect", "127.0.0.1:" + port, "--name", "alpha",
                                  "--offscreen", *gearbox])
config = load_window_config(args.config)
session = ClientSession(connect(args, config))
options = replace(session.options, gearbox=player_gearbox(args))
app = TankBattleApp(config, WindowedRun(options, offscreen=True, online=session, seconds=60.0))
for _ in range(30):
    app.taskMgr.step()
player = session.simulation.player
print("automatic", bool(player.fleet.gearbox.automatic[player.index]))
app.destroy()
session.destroy()
"""


@pytest.fixture(scope="module")
def port():
    """One server for every case: each window joins, looks and leaves."""
    server, port = start_server("--map", "flat")
    with server:
        yield port


@pytest.mark.slow
@pytest.mark.parametrize("gearbox, automatic", [(["--gearbox", "automatic"], True),
                                                ([], False),
                                                (["--gearbox", "manual"], False)])
def test_the_players_own_gearbox_drives_on_a_server(port, gearbox, automatic):
    done = subprocess.run([sys.executable, "-c", JOIN, str(port), *gearbox], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=WAIT_MOST_S, env=cli_env())
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"automatic {automatic}" in done.stdout, done.stdout
