"""A player's side of the list server (game/sim/net/browse.py): reading the list, the ping
measured from here, the browser's filters and order, and ``tank-battle --list URL``."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from game.sim.net.browse import (ListedServer, ListUnavailable, fetch_servers, handshake_ms,
                                 shown, table)
from game.sim.net.link import enet_available
from game.sim.net.listing import Announcement
from tests.test_list_server import HONEST, _Listening


def _server(name, players=3, version="0.9.0", ping_ms=None, map_name="desert"):
    return ListedServer("10.0.0.1", Announcement(**{**HONEST, "name": name,
                                                    "players": players, "version": version,
                                                    "map": map_name}), ping_ms)


def test_the_browser_sorts_by_players_ping_or_name_and_hides_what_it_is_told():
    servers = [_server("b", players=8, ping_ms=90.0), _server("a", players=1, ping_ms=None),
               _server("c", players=3, version="0.8.0", ping_ms=20.0)]
    assert [s.announcement.name for s in shown(servers)] == ["b", "c", "a"]
    assert [s.announcement.name for s in shown(servers, "ping")] == ["c", "b", "a"]
    assert [s.announcement.name for s in shown(servers, "name")] == ["a", "b", "c"]
    assert [s.announcement.name for s in shown(servers, hide_full=True)] == ["c", "a"]
    assert [s.announcement.name for s in shown(servers, version="0.9.0")] == ["b", "a"]


def test_the_table_has_a_line_a_server_under_its_header():
    lines = table([_server("Dunes", ping_ms=42.4), _server("Flat", ping_ms=None)])
    assert lines[0].split() == ["NAME", "ADDRESS", "MAP", "MODE", "PLAYERS", "PING",
                                "VERSION"]
    assert lines[1].split() == ["Dunes", "10.0.0.1:27960", "desert", "battle", "3/8", "42",
                                "ms", "0.9.0"]
    assert lines[2].split()[5] == "-"  # no answer to the handshake


class _Stub:
    """An HTTP server on loopback answering every GET with ``status`` and ``body``."""

    def __init__(self, status: int, body: bytes):
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - the stdlib's name
                stub.paths.append(self.path)
                self.send_response(status)
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *_args):
                pass
        self.paths: list[str] = []
        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.http.server_address[1]}"
        self.thread = threading.Thread(target=self.http.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.http.shutdown()
        self.http.server_close()


def test_the_list_is_read_with_its_filters_asked_of_the_list_server():
    stub = _Stub(200, json.dumps({"servers": [{"address": "10.0.0.7", **HONEST,
                                               "heard_s_ago": 1.5}]}).encode())
    try:
        [server] = fetch_servers(stub.url, version="0.9.0", not_full=True)
    finally:
        stub.close()
    assert server.join_address == "10.0.0.7:27960" and server.announcement.name == "Dunes 1"
    assert stub.paths == ["/servers?version=0.9.0&not_full=1"]


@pytest.mark.parametrize("status, body, expected", [
    (500, b"oops", "a list server's servers (it answered 500"),
    (200, b"<html>", "a list of servers in its answer"),
    (200, json.dumps({"servers": [{"address": "x", "port": "no"}]}).encode(),
     "a list of servers in its answer")])
def test_a_list_that_cannot_be_read_says_why_in_one_line(status, body, expected):
    stub = _Stub(status, body)
    try:
        with pytest.raises(ListUnavailable) as error:
            fetch_servers(stub.url)
    finally:
        stub.close()
    assert str(error.value).startswith(f"{stub.url}: expected {expected}")
    with pytest.raises(ListUnavailable, match="expected a list server answering there"):
        fetch_servers("http://127.0.0.1:9", timeout_s=2.0)


@pytest.mark.skipif(not enet_available(), reason="pyenet is not installed")
def test_the_ping_is_an_enet_handshakes_time_and_none_without_an_answer():
    listening = _Listening()
    try:
        ping = handshake_ms("127.0.0.1", listening.port, 2.0)
    finally:
        listening.close()
    assert ping is not None and 0.0 < ping < 2000.0
    assert handshake_ms("127.0.0.1", listening.port, 0.3) is None


# ----- the title menu's Find game page -----------------------------------------------------


def _menu(config, read, list_url="http://lists.example:27900", on_list_chosen=None):
    from panda3d.core import NodePath

    from game.menus.title_menu import MatchSetup, TitleMenu
    calls = {name: (lambda *args: None) for name in
             ("on_play", "on_range", "on_host", "on_join", "on_quit")}
    setup = MatchSetup(map="desert", vehicle="tank", bots=3, difficulty="normal",
                       gearbox="automatic", rounds=5)
    return TitleMenu(NodePath("aspect2d"), config.view.menu, config.view.title_menu, setup,
                     **calls, online=True, player_name="ann", join_address="127.0.0.1:27960",
                     default_port=27960, read_servers=read, version="0.9.0",
                     list_url=list_url, on_list_chosen=on_list_chosen or (lambda url: None))


def _press(widget) -> None:
    widget.commandFunc(None)


def _read_done(menu) -> None:
    menu.browser._reading.join(10.0)
    menu.browser.update()


def test_find_game_lists_the_servers_and_choosing_one_fills_the_join_page(config):
    servers = [_server("Busy", players=8, ping_ms=80.0), _server("Near", players=2, ping_ms=9.0),
               _server("Old", players=5, version="0.8.0", ping_ms=30.0)]
    menu = _menu(config, lambda url: servers)
    _press(menu.buttons["main/Find game"])
    assert menu.page == "servers"
    assert "Reading" in menu.status["servers"]["text"]
    _read_done(menu)
    rows = [button["text"] for button in menu.browser.rows]
    assert rows[0].startswith("Busy") and rows[1].startswith("Near") and rows[2] == ""
    assert menu.status["servers"]["text"].startswith("2 servers (1 hidden)")
    _press(menu.buttons["servers/Ping"])
    assert menu.browser.rows[0]["text"].startswith("Near")
    _press(menu.buttons["servers/Hide full"])
    assert [button["text"].split()[0] for button in menu.browser.rows if button["text"]] == [
        "Near"]
    _press(menu.buttons["servers/All versions"])  # show the other versions too
    assert [button["text"].split()[0] for button in menu.browser.rows if button["text"]] == [
        "Near", "Old"]
    _press(menu.browser.rows[1])
    assert menu.page == "join" and menu.join_address.value == "10.0.0.1:27960"
    assert menu.status["join"]["text"].startswith("Old:")
    menu.destroy()


def test_find_game_says_why_there_is_no_list(config):
    def unavailable(url):
        raise ListUnavailable(url, "a list server answering there")
    menu = _menu(config, unavailable, "http://lists.invalid")
    _press(menu.buttons["main/Find game"])
    _read_done(menu)
    assert menu.status["servers"]["text"] == (
        "No list: http://lists.invalid: expected a list server answering there")
    assert all(button["text"] == "" for button in menu.browser.rows)
    _press(menu.buttons["servers/Back"])
    assert menu.page == "main"
    menu.destroy()


def test_without_a_list_to_read_there_is_no_find_game(config):
    from panda3d.core import NodePath

    from game.menus.title_menu import MatchSetup, TitleMenu
    calls = {name: (lambda *args: None) for name in
             ("on_play", "on_range", "on_host", "on_join", "on_quit")}
    menu = TitleMenu(NodePath("aspect2d"), config.view.menu, config.view.title_menu,
                     MatchSetup(map="desert", vehicle="tank", bots=3, difficulty="normal",
                                gearbox="automatic", rounds=5), **calls, online=True,
                     player_name="ann", join_address="127.0.0.1:27960", default_port=27960)
    assert "main/Find game" not in menu.buttons and menu.browser is None
    menu.destroy()


@pytest.mark.parametrize("list_url, saved, read_from", [
    (None, None, "config"), (None, "http://chosen.example:1", "http://chosen.example:1"),
    ("http://lists.example:27900", "http://chosen.example:1", "http://lists.example:27900")])
def test_find_game_reads_the_command_line_s_list_else_the_chosen_one_else_config_s(
        config, monkeypatch, home, list_url, saved, read_from):
    """``--list URL`` with a window: Find game reads URL; without it, the list server the
    player chose there before; else ``[listing] url``."""
    from panda3d.core import NodePath

    from game.menus.front_door import build_front_door
    from game.menus.join_history import JoinHistory
    from game.runs.windowed_run import WindowedRun
    from game.sim.session import GameOptions
    if saved is not None:
        JoinHistory(8).chose_list(saved)
    asked = []
    front = build_front_door(lambda request: None, NodePath("aspect2d"), config,
                             WindowedRun(GameOptions(), menu=True, list_url=list_url), None)
    try:
        front.menu.browser.read = lambda url: asked.append(url) or []
        _press(front.menu.buttons["main/Find game"])
        front.menu.browser._reading.join(10.0)
        assert asked == [config.game.listing.url if read_from == "config" else read_from]
    finally:
        front.destroy()


def test_a_list_server_typed_on_the_page_is_read_and_kept_for_next_time(config, home):
    from panda3d.core import NodePath

    from game.menus.front_door import build_front_door
    from game.menus.join_history import JoinHistory, chosen_list_url
    from game.runs.windowed_run import WindowedRun
    from game.sim.session import GameOptions

    def front_door():
        return build_front_door(lambda request: None, NodePath("aspect2d"), config,
                                WindowedRun(GameOptions(), menu=True), None)
    asked: list[str] = []
    front = front_door()
    browser = front.menu.browser
    browser.read = lambda url: asked.append(url) or []
    assert browser.list_row.value == config.game.listing.url
    browser.list_row.entry.enterText("not a list")
    browser.refresh()
    assert "expected an address starting http://" in front.menu.status["servers"]["text"]
    assert asked == [] and chosen_list_url() is None  # nothing read, nothing kept
    browser.list_row.entry.enterText("https://community.example:8443")
    browser.list_row.entry["command"]("https://community.example:8443")  # Enter
    browser._reading.join(10.0)
    assert asked == ["https://community.example:8443"]
    front.destroy()
    assert chosen_list_url() == "https://community.example:8443"
    front = front_door()
    assert front.menu.browser.list_row.value == "https://community.example:8443"
    front.menu.browser.list_row.entry.enterText(config.game.listing.url)  # the game's own
    front.menu.browser.read = lambda url: []
    front.menu.browser.refresh()
    front.menu.browser._reading.join(10.0)
    front.destroy()
    assert chosen_list_url() is None and JoinHistory(8).list_url is None


# ----- the servers joined before -------------------------------------------------------------


def test_the_history_keeps_the_last_joined_first_and_at_most_its_size(tmp_path):
    from game.menus.join_history import JoinHistory
    path = tmp_path / "servers.toml"
    history = JoinHistory(3, path)
    assert history.addresses == []
    for address in ("a:1", "b:2", "c:3", "a:1", "d:4"):
        history.joined(address)
    assert history.addresses == ["d:4", "a:1", "c:3"]
    assert JoinHistory(3, path).addresses == ["d:4", "a:1", "c:3"]  # saved
    assert JoinHistory(2, path).addresses == ["d:4", "a:1"]
    history.chose_list("http://lists.example:1")  # kept beside the joins, both saved
    assert JoinHistory(3, path).list_url == "http://lists.example:1"
    assert JoinHistory(3, path).addresses == ["d:4", "a:1", "c:3"]


@pytest.mark.parametrize("text", ["joined = [", 'joined = "a:1"', "joined = [1, 2]",
                                  'joined = ["' + "x" * 200 + '"]', 'list = "ftp://x"',
                                  "list = 3"])
def test_a_bad_history_file_offers_nothing_and_is_replaced_at_the_next_join(tmp_path, text,
                                                                             caplog):
    from game.menus.join_history import JoinHistory
    path = tmp_path / "servers.toml"
    path.write_text(text, encoding="utf-8")
    with caplog.at_level("WARNING"):
        history = JoinHistory(3, path)
    assert history.addresses == [] and history.list_url is None and caplog.records
    history.joined("a:1")
    assert JoinHistory(3, path).addresses == ["a:1"]
    assert JoinHistory(3, path).list_url is None


def test_a_join_from_the_join_page_is_remembered_and_offered_next_time(config, tmp_path):
    from game.menus.front_door import FrontDoor, OnlineSettings
    from game.menus.join_history import JoinHistory
    from game.sim.session import GameOptions
    from tests.test_title_menu import FakeApp, FakeJoin, _title
    path = tmp_path / "servers.toml"

    def door_with(history):
        app = FakeApp()
        return app, FrontDoor(app.send, lambda **callbacks: _title(
            config, recent=history.addresses, **callbacks), GameOptions(seed=7),
            online=OnlineSettings("config", 27960, 1.0),
            joiner=lambda *request: FakeJoin(["session"]), history=history)
    app, door = door_with(JoinHistory(8, path))
    assert door.menu.join_recent is None  # nothing joined yet
    _press(door.menu.buttons["main/Join game"])
    door.menu.join_address.entry.enterText("10.1.2.3:5000")
    _press(door.menu.buttons["join/Join"])
    door.update()
    assert app.started  # in the game
    door.destroy()
    app, door = door_with(JoinHistory(8, path))
    assert door.menu.join_recent.value == "10.1.2.3:5000"
    door.menu.join_address.entry.enterText("somewhere:1")
    door.menu.join_recent.step(1)  # one address: stepping comes back to it, filling it in
    assert door.menu.join_address.value == "10.1.2.3:5000"
    door.destroy()
