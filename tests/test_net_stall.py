"""A stall is not a fault: a dedicated server, or a client, whose process stands still for
3 s (SIGSTOP, then SIGCONT: as a flood, a slow disk or a paused process would hold it)
keeps every honest player in the game, and each client predicts its own vehicle where the
server has it again at once.

While a server stands still its clients' clocks run on, so their inputs arrive far ahead
of its tick when it wakes: they are dropped, not counted as malformed (a server that
counted them put out every honest player after a stall). While a client stands still the
server hears nothing from it for less than its ``timeout_s`` and keeps its vehicle.

Each client drives a circle from a scripted inputs file; the prediction is measured as in
``test_net_cli``: its vehicle's position at each tick against the server's telemetry at
the same tick, from 2 s after the stall to the end (a row reaches the file in blocks, so
the stall's end is read a little early, which only makes the test stricter).
"""

from __future__ import annotations

import json
import math
import signal
import sys
import time

import pytest

from game.sim.net.link import enet_available
from tests.net_harness import GameProcess, start_server, wait_until

pytestmark = [pytest.mark.skipif(not enet_available(), reason="pyenet is not installed"),
              pytest.mark.skipif(sys.platform == "win32", reason="SIGSTOP is POSIX's"),
              pytest.mark.slow]
STALL_S = 3.0
PLAYS_S = 12
"""How long each client plays (simulated seconds, from joining)."""
STALLED_AFTER_S = 3.0
"""The stall starts once both clients have played this long."""
RECOVERED_WITHIN_S = 2.0
PREDICTION_RMS_MOST_M = 0.25
CIRCLE = {"events": [{"t": 0.0, "throttle": 0.6, "steer": 0.4, "gear": "1"}]}


def _rows(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.endswith("}")]


def _played_s(path) -> float:
    """The simulated time of the last row a client's telemetry file holds so far."""
    rows = _rows(path) if path.exists() else []
    return rows[-1]["t"] if rows else 0.0


def _stalled_run(tmp_path, stalled: str) -> dict:
    """A server and two clients (alpha, beta); once both have played a while, ``stalled``
    ("server" or "alpha") stands still for :data:`STALL_S`. Returns each client's exit
    status and output, the server's telemetry and each client's, and the time each client
    had played when the stall ended."""
    drive = tmp_path / "circle.json"
    drive.write_text(json.dumps(CIRCLE), encoding="utf-8")
    server_telemetry = tmp_path / "server.jsonl"
    server, port = start_server("--map", "flat", "--telemetry", server_telemetry)
    telemetry = {name: tmp_path / f"{name}.jsonl" for name in ("alpha", "beta")}
    with server:
        clients = {name: GameProcess(name, "--headless", "--connect", f"127.0.0.1:{port}",
                                     "--name", name, "--seconds", PLAYS_S, "--inputs", drive,
                                     "--telemetry", path)
                   for name, path in telemetry.items()}
        try:
            def playing() -> bool:
                for name, process in clients.items():
                    assert process.running, (name, process.out, process.err[-2000:])
                return all(_played_s(path) >= STALLED_AFTER_S for path in telemetry.values())
            wait_until(playing, "both clients playing")
            held = (server if stalled == "server" else clients[stalled]).process
            held.send_signal(signal.SIGSTOP)
            time.sleep(STALL_S)
            held.send_signal(signal.SIGCONT)
            resumed_s = {name: _played_s(path) for name, path in telemetry.items()}
            codes = {name: process.wait() for name, process in clients.items()}
        finally:
            for process in clients.values():
                process.kill()
        server.terminate()
        server.wait()
    return {"codes": codes, "out": {name: (process.out, process.err)
                                    for name, process in clients.items()},
            "server": _rows(server_telemetry),
            "clients": {name: _rows(path) for name, path in telemetry.items()},
            "resumed_s": resumed_s}


def _prediction_rms_m(run: dict, name: str) -> tuple[float, int]:
    """RMS distance between where ``name``'s client predicted its vehicle and where the
    server had it at the same tick, from :data:`RECOVERED_WITHIN_S` after the stall; and
    how many ticks that is."""
    server = {row["tick"]: {vehicle["name"]: vehicle["pos"] for vehicle in row["vehicles"]}
              for row in run["server"]}
    since_s = run["resumed_s"][name] + RECOVERED_WITHIN_S
    squares = [sum((a - b) ** 2 for a, b in zip(row["pos"], server[row["tick"]][name]))
               for row in run["clients"][name]
               if row["t"] >= since_s and name in server.get(row["tick"], {})]
    return (math.sqrt(sum(squares) / len(squares)) if squares else math.inf), len(squares)


def _everyone_stayed(run: dict) -> None:
    for name in ("alpha", "beta"):
        out, err = run["out"][name]
        assert run["codes"][name] == 0, (name, out, err)
        assert "put out" not in out + err and "Traceback" not in err, (name, out, err)
        assert len(run["clients"][name]) == PLAYS_S * 60  # played to its end
    left = [event for row in run["server"] for event in row["events"]
            if event["type"] == "left"]
    assert sorted((event["vehicle"], event["reason"]) for event in left) == [
        ("alpha", "quit"), ("beta", "quit")]
    for name in ("alpha", "beta"):
        rms_m, ticks = _prediction_rms_m(run, name)
        assert ticks > 60 and rms_m < PREDICTION_RMS_MOST_M, (name, rms_m, ticks)


def test_a_server_that_stands_still_for_3_s_keeps_both_players(tmp_path):
    _everyone_stayed(_stalled_run(tmp_path, "server"))


def test_a_client_that_stands_still_for_3_s_plays_on(tmp_path):
    _everyone_stayed(_stalled_run(tmp_path, "alpha"))


SLOW_BUILD = """
import sys, time
import game.sim.net.client as client
from game.sim.session import GameSession

def slow_session(*args, **kwargs):
    time.sleep(float(sys.argv[1]))  # a busy machine building the map and the world
    return GameSession(*args, **kwargs)

client.GameSession = slow_session
from game.cli import main
sys.exit(main(sys.argv[2:]))
"""


def test_a_client_that_takes_longer_to_build_its_game_than_the_server_waits_plays(
        tmp_path, config):
    """On a loaded machine a client may take seconds between the welcome and its first
    step: longer than the server waits for a silent client and than ENet waits for its
    acknowledgements. It is kept in, and plays."""
    build_s = config.game.net.timeout_s + STALL_S
    server_telemetry = tmp_path / "server.jsonl"
    server, port = start_server("--map", "flat", "--bots", 1, "--telemetry", server_telemetry)
    with server:
        with GameProcess("slow", build_s, "--headless", "--connect", f"127.0.0.1:{port}",
                         "--name", "slow", "--seconds", 3, "--telemetry",
                         tmp_path / "slow.jsonl", code=SLOW_BUILD) as slow:
            assert slow.wait() == 0, (slow.err, server.err)
        server.terminate()
        server.wait()
    assert len(_rows(tmp_path / "slow.jsonl")) == 3 * 60  # played to its end
    left = [(event["vehicle"], event["reason"]) for row in _rows(server_telemetry)
            for event in row["events"] if event["type"] == "left"]
    assert left == [("slow", "quit")]
