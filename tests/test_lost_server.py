"""A server lost mid-game, with no goodbye (killed with SIGKILL: no End message goes out).

Its clients hear nothing more; after ``[net] server_timeout_s`` of silence (1 s here, from a
copy of the config that the server reads too, as it refuses a client of other config
files) the game is lost: a headless client says so in one line and exits 2; a window that
joined from the title menu goes back to the Join page, which says why, and keeps running.
"""

from __future__ import annotations

import pytest

from game.sim.net.link import enet_available
from tests.conftest import cli_env
from tests.net_harness import WAIT_MOST_S, GameProcess, start_server

pytestmark = [pytest.mark.skipif(not enet_available(), reason="pyenet is not installed"),
              pytest.mark.slow]
EXIT_USAGE = 2
SILENT_S = 1
"""The config copy's ``server_timeout_s``: the least the config allows."""
LOST = f"the server stopped answering (nothing from it for {SILENT_S} s)"
PLAYS_ON_SECONDS = 600
"""A client told to play this long is still playing when its server is killed."""


@pytest.fixture
def quick_config(config_copy, edit_file):
    """The config with a server counted lost after 1 s of silence."""
    edit_file(config_copy / "game.toml", "server_timeout_s = 5.0",
              f"server_timeout_s = {SILENT_S}.0")
    return config_copy


def test_a_headless_client_of_a_killed_server_says_so_in_one_line_and_exits_2(
        quick_config, tmp_path):
    server, port = start_server("--map", "flat", "--config", quick_config)
    telemetry = tmp_path / "alpha.jsonl"
    with server, GameProcess("alpha", "--headless", "--connect", f"127.0.0.1:{port}",
                             "--name", "alpha", "--seconds", PLAYS_ON_SECONDS,
                             "--config", quick_config, "--telemetry", telemetry) as alpha:
        alpha.wait_for_rows(telemetry)  # in the game, stepping
        server.kill()  # SIGKILL: no goodbye goes out
        code = alpha.wait()
    assert code == EXIT_USAGE, alpha.err
    assert alpha.err_lines == [f"tank-battle: {LOST}"]
    assert alpha.out_lines == []


WINDOW = """
import sys, time
from panda3d.core import loadPrcFileData
loadPrcFileData("", "audio-library-name null")
from pathlib import Path
from game.app import TankBattleApp
from game.sim.session import GameOptions
from game.menus.title_menu import JoinForm
from game.window_config import load_window_config
from game.runs.windowed_run import WindowedRun
from physics.model.terrain import MapChoice

config_dir, port, wait_most_s = Path(sys.argv[1]), sys.argv[2], float(sys.argv[3])
app = TankBattleApp(load_window_config(config_dir),
                    WindowedRun(GameOptions(MapChoice.parse("flat")), offscreen=True, menu=True,
                                config_dir=config_dir))
finished = []
app.finish = lambda: finished.append(True)  # the window must not end: note it if it does
menus = app.menus
title = menus.front_door.menu

def frames_until(condition, what):
    deadline = time.monotonic() + wait_most_s
    while not condition():
        if time.monotonic() > deadline:
            sys.exit(f"{what} did not happen within {wait_most_s:g} s")
        app.taskMgr.step()

frames_until(lambda: app.title_open, "the title menu")
title.show_page("join")
menus.front_door.join(JoinForm(f"127.0.0.1:{port}", "alpha", "tank"))
frames_until(lambda: app.online and not app.title_open and app.session.client.tick is not None,
             "joining")
print("joined", flush=True)   # the test kills the server now
frames_until(lambda: app.title_open or finished, "going back to the title menu")
print("back", "page", title.page, "online", app.online, "finished", finished)
print("status", title.status["join"]["text"])
for _ in range(30):  # and it keeps running
    app.taskMgr.step()
print("still", "title", app.title_open, "page", title.page, "finished", finished)
session = app.session
app.destroy()
session.destroy()
"""


def test_a_window_whose_server_is_killed_goes_back_to_the_join_page_saying_why(
        quick_config, tmp_path):
    server, port = start_server("--map", "flat", "--config", quick_config)
    env = cli_env(TANK_BATTLE_CONFIG_HOME=str(tmp_path), TANK_BATTLE_DATA_HOME=str(tmp_path))
    with server, GameProcess("the window", quick_config, port, WAIT_MOST_S, code=WINDOW,
                             env=env) as window:
        window.wait_for_line("joined")
        server.kill()
        code = window.wait()
    assert code == 0, window.err[-3000:]
    out = window.out_lines
    assert "back page join online False finished []" in out, out
    assert f"status The game ended: {LOST}" in out, out
    assert "still title True page join finished []" in out, out
