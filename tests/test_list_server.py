"""The list server (game/sim/net/listing.py, list_service.py): who gets listed and for how
long, what is refused and why, its HTTP routes under bad input, the ENet check that a game
server really answers, and ``tank-battle --list-server`` as users run it."""

from __future__ import annotations

import asyncio
import json
import random
import threading
import urllib.error
import urllib.request

import pytest
from aiohttp.test_utils import TestClient, TestServer

from common.settings import OVERRIDE_ENV
from game.menus.join_history import JoinHistory
from game.sim.net.link import Endpoint, enet_available
from game.sim.net.list_service import make_app
from game.sim.net.listing import Announcement, ServerList, enet_answers
from tests.conftest import cli_env
from tests.net_harness import GameProcess, wait_until

HONEST = {"name": "Dunes 1", "port": 27960, "map": "desert", "mode": "battle", "players": 3,
          "max_players": 8, "version": "0.9.0", "protocol": 2,
          "config_digest": "0123456789abcdef"}


class Clock:
    def __init__(self):
        self.now_s = 1000.0

    def __call__(self) -> float:
        return self.now_s


@pytest.fixture
def spec(config):
    return config.game.listing


def _listing(spec, answers=True, clock=None) -> ServerList:
    async def verify(_address: str, _port: int) -> bool:
        return answers
    return ServerList(spec, verify, clock or Clock())


def _announce(server_list: ServerList, address: str, body) -> tuple[int, dict]:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return asyncio.run(server_list.announce(address, data))


# ----- who is listed ------------------------------------------------------------------------


def test_an_answering_server_is_listed_at_the_address_it_came_from(spec):
    servers = _listing(spec)
    status, answer = _announce(servers, "10.0.0.5", HONEST)
    assert status == 200 and answer["listed"] and answer["renew_s"] == spec.renew_s
    [listed] = servers.servers()
    assert listed["address"] == "10.0.0.5" and listed["port"] == 27960
    assert {key: listed[key] for key in HONEST} == HONEST


def test_a_server_that_does_not_answer_its_handshake_is_not_listed(spec):
    servers = _listing(spec, answers=False)
    status, answer = _announce(servers, "10.0.0.5", HONEST)
    assert status == 422 and answer["error"] == "no game server answers at 10.0.0.5:27960"
    assert servers.servers() == []


def test_a_silent_server_is_forgotten_and_a_renewing_one_kept(spec):
    clock = Clock()
    servers = _listing(spec, clock=clock)
    _announce(servers, "10.0.0.5", HONEST)
    _announce(servers, "10.0.0.6", HONEST)
    for _ in range(4):  # 10.0.0.6 renews; 10.0.0.5 falls silent
        clock.now_s += spec.forget_after_s / 3.0
        _announce(servers, "10.0.0.6", HONEST)
    assert [server["address"] for server in servers.servers()] == ["10.0.0.6"]


def test_the_filters_pick_by_version_map_mode_and_room(spec):
    servers = _listing(spec)
    _announce(servers, "10.0.0.1", HONEST)
    _announce(servers, "10.0.0.2", {**HONEST, "players": 8})
    _announce(servers, "10.0.0.3", {**HONEST, "map": "flat", "version": "0.8.0"})
    _announce(servers, "10.0.0.4", {**HONEST, "mode": "zone", "players": 1})

    def addresses(**filters):
        return sorted(server["address"] for server in servers.servers(**filters))
    assert addresses() == ["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"]
    assert addresses(not_full=True) == ["10.0.0.1", "10.0.0.3", "10.0.0.4"]
    assert addresses(version="0.9.0") == ["10.0.0.1", "10.0.0.2", "10.0.0.4"]
    assert addresses(map_name="flat") == ["10.0.0.3"]
    assert addresses(mode="zone") == ["10.0.0.4"]
    assert servers.servers()[0]["players"] == 8  # the fullest first


def test_one_address_is_held_to_its_rate_and_its_count_of_servers(spec):
    servers = _listing(spec)
    for _ in range(spec.announcements_per_minute_most):
        assert _announce(servers, "10.0.0.9", HONEST)[0] == 200
    status, answer = _announce(servers, "10.0.0.9", HONEST)
    assert status == 429 and "too many announcements" in answer["error"]
    assert _announce(servers, "10.0.0.1", HONEST)[0] == 200  # another address is not held
    many = _listing(spec)
    for port in range(1, spec.servers_per_address_most + 1):
        assert _announce(many, "10.0.0.7", {**HONEST, "port": port})[0] == 200
    status, answer = _announce(many, "10.0.0.7", {**HONEST, "port": 60000})
    assert status == 429 and answer["error"] == "too many servers listed from this address"


@pytest.mark.parametrize("body, reason", [
    (b"{not json", "expected JSON"),
    ([1, 2], "expected a JSON object"),
    ({key: value for key, value in HONEST.items() if key != "map"}, "missing field 'map'"),
    ({**HONEST, "address": "1.2.3.4"}, "unknown field 'address'"),
    ({**HONEST, "port": 0}, "port: expected a whole number from 1 to 65535"),
    ({**HONEST, "port": "27960"}, "port: expected a whole number from 1 to 65535"),
    ({**HONEST, "players": True}, "players: expected a whole number from 0 to 64"),
    ({**HONEST, "players": 9}, "players: expected at most max_players"),
    ({**HONEST, "name": ""}, "name: expected printable text of 1 to 32 characters"),
    ({**HONEST, "name": "x" * 33}, "name: expected printable text of 1 to 32 characters"),
    ({**HONEST, "name": "a\nb"}, "name: expected printable text of 1 to 32 characters"),
    ({**HONEST, "version": 9}, "version: expected printable text of 1 to 32 characters"),
    ({**HONEST, "config_digest": "XYZ"}, "config_digest: expected lowercase hexadecimal"),
])
def test_a_bad_announcement_is_refused_with_its_reason(spec, body, reason):
    servers = _listing(spec)
    assert _announce(servers, "10.0.0.5", body) == (400, {"error": reason})
    assert servers.servers() == []


def test_an_announcement_parses_to_its_fields():
    assert Announcement.parse(HONEST) == Announcement(**HONEST)


# ----- the HTTP routes ----------------------------------------------------------------------


def _with_client(spec, exercise):
    """Run ``exercise(client)`` against the service over a loopback socket."""
    async def run():
        async with TestClient(TestServer(make_app(_listing(spec)))) as client:
            return await exercise(client)
    return asyncio.run(run())


def test_over_http_a_server_is_announced_and_listed_with_the_callers_address(spec):
    async def exercise(client):
        announced = await client.post("/announce", json=HONEST)
        assert announced.status == 200
        listed = await client.get("/servers", params={"not_full": "1", "version": "0.9.0"})
        assert listed.status == 200
        [server] = (await listed.json())["servers"]
        assert server["address"] == "127.0.0.1" and server["name"] == "Dunes 1"
        empty = await client.get("/servers", params={"map": "flat"})
        assert (await empty.json()) == {"servers": []}
    _with_client(spec, exercise)


def test_over_http_bad_requests_are_4xx_with_a_reason(spec):
    async def exercise(client):
        huge = await client.post("/announce", data=b"x" * (spec.body_bytes_most + 1))
        assert huge.status == 413 and "at most" in (await huge.json())["error"]
        unknown = await client.get("/servers", params={"full": "1"})
        assert unknown.status == 400 and "unknown filter 'full'" in (await unknown.json())[
            "error"]
        bad = await client.get("/servers", params={"not_full": "yes"})
        assert bad.status == 400
        assert (await client.get("/announce")).status == 405
        assert (await client.get("/nowhere")).status == 404
    _with_client(spec, exercise)


def test_fuzzed_announcements_are_all_refused_and_the_honest_one_stays_listed(spec):
    """Random bytes, random JSON and honest announcements with one field broken: every
    one a 4xx (none a 500), and the honest server still listed at the end."""
    rng = random.Random(7)
    junk_values = [None, True, -1, 2 ** 40, 1.5, "", "x" * 500, [], {}, {"a": [1]}, "\x00"]

    def fuzzed() -> bytes:
        kind = rng.randrange(3)
        if kind == 0:
            return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300)))
        if kind == 1:
            return json.dumps(rng.choice(junk_values)).encode()
        broken = dict(HONEST)
        broken[rng.choice(list(HONEST))] = rng.choice(junk_values)
        return json.dumps(broken).encode()

    async def exercise(client):
        assert (await client.post("/announce", json=HONEST)).status == 200
        statuses = set()
        for _ in range(spec.announcements_per_minute_most - 1):
            response = await client.post("/announce", data=fuzzed())
            statuses.add(response.status)
        assert statuses <= {400, 413}, statuses
        flood = await client.post("/announce", json=HONEST)  # over the minute's rate now
        assert flood.status == 429
        listed = await (await client.get("/servers")).json()
        assert [server["name"] for server in listed["servers"]] == ["Dunes 1"]
    _with_client(spec, exercise)


# ----- the ENet check, and the command line ------------------------------------------------


needs_enet = pytest.mark.skipif(not enet_available(), reason="pyenet is not installed")


class _Listening:
    """A bare ENet host on loopback, answering handshakes in a thread (a game server's
    stand-in for the check)."""

    def __init__(self):
        self.endpoint = Endpoint.listen("127.0.0.1", 0, 4)
        self.port = self.endpoint.port
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self):
        while not self._stop.is_set():
            self.endpoint.receive(0.01)

    def close(self):
        self._stop.set()
        self._thread.join()
        self.endpoint.close()


@needs_enet
def test_the_check_finds_an_enet_host_that_answers_and_none_where_nothing_listens():
    listening = _Listening()
    try:
        assert enet_answers("127.0.0.1", listening.port, 2.0)
    finally:
        listening.close()
    assert not enet_answers("127.0.0.1", listening.port, 0.3)


@needs_enet
@pytest.mark.slow
def test_the_list_server_from_the_command_line_lists_a_server_that_answers(tmp_path):
    listening = _Listening()
    try:
        with GameProcess("the list", "--list-server", "--host", "127.0.0.1", "--port", "0",
                         "--seconds", "60") as lister:
            port = int(lister.wait_for_line("listing on 127.0.0.1:").rsplit(":", 1)[1])
            url = f"http://127.0.0.1:{port}"
            request = urllib.request.Request(
                f"{url}/announce", json.dumps({**HONEST, "port": listening.port}).encode(),
                {"Content-Type": "application/json"})
            with urllib.request.urlopen(request, timeout=10) as answer:
                assert json.load(answer)["listed"]
            with urllib.request.urlopen(f"{url}/servers", timeout=10) as answer:
                [server] = json.load(answer)["servers"]
            assert (server["address"], server["port"]) == ("127.0.0.1", listening.port)
            refused = urllib.request.Request(f"{url}/announce", json.dumps(
                {**HONEST, "port": 1}).encode(), {"Content-Type": "application/json"})
            with pytest.raises(urllib.error.HTTPError) as error:
                urllib.request.urlopen(refused, timeout=10)
            assert error.value.code == 422
            lister.terminate()
            assert lister.wait() == 0
    finally:
        listening.close()


# ----- a server announcing itself ----------------------------------------------------------


def test_a_server_that_cannot_reach_its_list_says_so_once_and_once_when_it_can(caplog):
    """The announcer's log: one warning when announcements start failing (not one per
    try), one line when they are taken again."""
    from game.sim.net.announce import Announcer

    announcer = Announcer("http://127.0.0.1:9", lambda: HONEST, renew_s=1.0)  # discard port
    reason = announcer.announce_once()
    assert reason  # nothing listens there
    with caplog.at_level("INFO", logger="game.sim.net.announce"):
        for _ in range(3):
            announcer._note(reason)
        announcer._note(None)
    lines = [record.getMessage() for record in caplog.records]
    assert len(lines) == 2
    assert lines[0].startswith("the list server at http://127.0.0.1:9/announce does not "
                               "list this server")
    assert lines[1] == "the list server at http://127.0.0.1:9/announce lists this server again"


@needs_enet
@pytest.mark.slow
def test_a_dedicated_server_announces_itself_and_is_listed_by_name(tmp_path):
    with GameProcess("the list", "--list-server", "--host", "127.0.0.1", "--port", "0",
                     "--seconds", "120") as lister:
        list_port = int(lister.wait_for_line("listing on 127.0.0.1:").rsplit(":", 1)[1])
        url = f"http://127.0.0.1:{list_port}"
        with GameProcess("the server", "--serve", "--host", "127.0.0.1", "--port", "0",
                         "--map", "flat", "--seconds", "120", "--announce", url,
                         "--name", "Dunes of test") as server:
            port = int(server.wait_for_line("serving on 127.0.0.1:").rsplit(":", 1)[1])

            def listed() -> list[dict]:
                with urllib.request.urlopen(f"{url}/servers", timeout=10) as answer:
                    return json.load(answer)["servers"]
            wait_until(lambda: bool(listed()), "the server listed")
            [entry] = listed()
            assert (entry["address"], entry["port"], entry["name"]) == (
                "127.0.0.1", port, "Dunes of test")
            assert (entry["map"], entry["players"], entry["max_players"]) == ("flat", 0, 8)
            with GameProcess("the lister", "--headless", "--list", url) as printed:
                assert printed.wait() == 0, printed.err
            header, row = printed.out_lines
            assert header.split()[:3] == ["NAME", "ADDRESS", "MAP"]
            assert row.startswith(f"Dunes of test  127.0.0.1:{port}  flat  battle  0/8")
            assert row.split()[-2] == "ms"  # it answered the handshake: a ping
            # Without a URL, the list server the player chose on the Find game page.
            JoinHistory(8, tmp_path / "servers.toml").chose_list(url)
            with GameProcess("the player's lister", "--headless", "--list",
                             env=cli_env(**{OVERRIDE_ENV: str(tmp_path)})) as chosen:
                assert chosen.wait() == 0, chosen.err
            assert chosen.out_lines[1].startswith(f"Dunes of test  127.0.0.1:{port}")
            server.terminate()
            assert server.wait() == 0
        lister.terminate()
        assert lister.wait() == 0
