"""``python -m bench net --servers N``: a list server, servers announcing to it and clients
that find a game through it, all real processes on loopback; and how a client's join is
counted."""

from __future__ import annotations

import json
import subprocess
import sys
import threading

import pytest

from bench import fleet
from game.sim.net.browse import ListedServer
from game.sim.net.listing import Announcement
from tests.test_bench import bench, finite

SERVERS, CLIENTS = 2, 2


@pytest.mark.slow
def test_clients_find_servers_through_the_list_and_join_them_again():
    done = bench("net", "--servers", str(SERVERS), "--clients", str(CLIENTS), "--bots", "1",
                 "--seconds", "14", "--play-seconds", "4", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)["results"]["net"]
    assert report["parameters"] == {"servers": SERVERS, "clients": CLIENTS, "bots": 1,
                                    "seconds": 14, "play_seconds": 4,
                                    "max_players": fleet.DEFAULT_MAX_PLAYERS, "seed": 1}
    assert report["client_failures"] == [] and report["list_failures"] == []
    assert report["servers_listed_fewest"] == SERVERS  # none dropped off the list
    # Every client played more than once: it left and found a game again.
    assert report["joins"] > CLIENTS and report["refused_joins"] == 0
    assert sum(server["joins"] for server in report["servers"]) == report["joins"]
    assert report["list_requests"] == report["joins"] + report["nothing_to_join"]
    assert 0.0 < report["list_request_ms_median"] <= report["list_request_ms_p99"]
    for server in report["servers"]:  # a whole game server: tens of MiB at least
        assert finite(server["memory_start_mib"]) and server["memory_start_mib"] > 20.0
        assert finite(server["memory_end_mib"]) and server["memory_end_mib"] > 20.0
        if sys.platform.startswith("linux"):  # a server stepping its game at 60 Hz
            assert finite(server["processor_share"]) and 0.0 < server["processor_share"] < 1.5
    assert {server["port"] for server in report["servers"]} and len(
        {server["port"] for server in report["servers"]}) == SERVERS


def _listed(name: str = "bench-1") -> ListedServer:
    return ListedServer("127.0.0.1", Announcement.parse({
        "name": name, "port": 5000, "map": "desert", "mode": "battle", "players": 1,
        "max_players": 4, "version": "1", "protocol": 1, "config_digest": "00" * 32}))


@pytest.mark.parametrize("exit_status, stderr, counted", [
    (0, "", {"joins": {"bench-1": 1}}),
    (2, "tank-battle: 127.0.0.1:5000 refused us: the server is full (4 players)\n",
     {"refusals": {"the server is full (4 players)": 1}}),
    (2, "tank-battle: the server stopped answering\n",
     {"failures": ["fleet-1 on bench-1: exit 2 tank-battle: the server stopped answering"]}),
])
def test_a_join_is_counted_as_played_refused_or_failed(monkeypatch, exit_status, stderr,
                                                       counted):
    monkeypatch.setattr(fleet.subprocess, "run", lambda *_args, **_kwargs: (
        subprocess.CompletedProcess([], exit_status, "", stderr)))
    tally = fleet._Tally()
    fleet._join(_listed(), 4.0, "fleet-1", None, 1, tally)
    seen = {"joins": tally.joins, "refusals": tally.refusals, "failures": tally.failures}
    assert {key: value for key, value in seen.items() if value} == counted


def test_a_join_that_never_ends_is_a_failure_not_a_hang(monkeypatch):
    def never_ends(*_args, timeout, **_kwargs):
        raise subprocess.TimeoutExpired("tank-battle", timeout)
    monkeypatch.setattr(fleet.subprocess, "run", never_ends)
    tally = fleet._Tally()
    fleet._join(_listed(), 4.0, "fleet-1", None, 1, tally)
    assert tally.failures == ["fleet-1 on bench-1: ran past its time"] and not tally.joins


def test_the_tally_counts_from_many_threads_at_once():
    tally = fleet._Tally()
    threads = [threading.Thread(target=lambda: [tally.add(nothing_to_join=1, list_ms=1.0,
                                                          joins="bench-1")
                                                for _ in range(500)]) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert tally.nothing_to_join == 4000 and len(tally.list_ms) == 4000
    assert tally.joins == {"bench-1": 4000}
