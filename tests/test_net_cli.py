"""Online play from the command line, as users run it: a `--serve` process and `--connect`
processes on loopback, their telemetry, their exit statuses and one-line errors.

Each step waits for what it needs (the server serving, a client stepping in the game, the
server hearing a client leave), bounded and failing with what did not happen; no test
hangs on a figure of wall-clock time that a loaded machine could miss.
"""

from __future__ import annotations

import json

import pytest

from game.sim.net.link import enet_available
from tests.net_harness import GameProcess, start_server, wait_until

pytestmark = pytest.mark.skipif(not enet_available(), reason="pyenet is not installed")
EXIT_USAGE = 2
ALPHA_SECONDS = 4
"""How long alpha drives, from joining."""
STAYS_SECONDS = 600
"""A client told to play this long plays until the server ends the game."""
LATENCY_MS, JITTER_MS, LOSS_PCT = 30, 5, 2
"""The online run's simulated link, each way."""
PING_SLACK_MS = 1000.0
"""What a loaded machine may add to a round trip (a process waiting its turn for the
processor): a ping above the simulated link's round trip by more than this is no round
trip."""


def rows(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def client(name: str, port: int, *args) -> GameProcess:
    return GameProcess(name, "--headless", "--connect", f"127.0.0.1:{port}", "--name", name,
                       *args)


@pytest.fixture(scope="module")
def online_run(tmp_path_factory):
    """A server with a bot and two headless clients: bravo joins first and stays until the
    server ends the game; alpha joins once bravo is in, drives 4 s and quits; once the
    server has seen alpha leave, it is told to stop (as on Ctrl+C) with bravo still in."""
    folder = tmp_path_factory.mktemp("online")
    drive = folder / "drive.json"
    drive.write_text(json.dumps({"events": [{"t": 0.0, "throttle": 1.0, "gear": "1"}]}))
    link = ["--net-sim", f"{LATENCY_MS},{JITTER_MS},{LOSS_PCT}", "--inputs", drive]
    server_telemetry = folder / "server.jsonl"
    server, port = start_server("--bots", "1", "--map", "flat", "--telemetry",
                                server_telemetry)
    with server, client("bravo", port, "--seconds", STAYS_SECONDS, "--telemetry",
                        folder / "bravo.jsonl", *link) as bravo:
        bravo.wait_for_rows(folder / "bravo.jsonl")
        with client("alpha", port, "--seconds", ALPHA_SECONDS, "--telemetry",
                    folder / "alpha.jsonl", *link) as alpha:
            quit_playing = alpha.wait() == 0
        if quit_playing:  # (else the tests say why: there is no leaving to wait for)
            wait_until_written(server, server_telemetry, '{"type":"left","vehicle":"alpha"',
                               "the server's telemetry showing alpha leave")
        server.terminate()
        server.wait()
        bravo.wait()
    return {"folder": folder, **{name: (process.process.returncode, process.out, process.err)
                                 for name, process in (("server", server), ("alpha", alpha),
                                                       ("bravo", bravo))}}


def wait_until_written(process: GameProcess, path, text: str, what: str) -> None:
    """Until ``text`` is in the file ``process`` writes (which reaches the file in blocks);
    fails at once if the process ends first."""
    def written() -> bool:
        assert process.running, f"{process.name} ended: {process.err[-2000:]}"
        return text in path.read_text(encoding="utf-8")
    wait_until(written, what)


@pytest.mark.slow
def test_the_server_and_its_clients_exit_0(online_run):
    for name in ("server", "alpha", "bravo"):
        code, _out, err = online_run[name]
        assert code == 0, (name, err)
        assert "Traceback" not in err


@pytest.mark.slow
def test_a_client_the_server_leaves_says_so_in_one_line(online_run):
    _code, out, _err = online_run["bravo"]
    assert out.strip().splitlines() == ["tank-battle: the server ended the game: the game is "
                                        "over"]


@pytest.mark.slow
def test_client_telemetry_has_the_network_fields(online_run):
    records = rows(online_run["folder"] / "alpha.jsonl")
    assert len(records) == ALPHA_SECONDS * 60
    last = records[-1]
    assert {"t", "pos", "vel", "gear", "anchors", "events", "tick", "drawn_pos", "ping_ms",
            "remote"} <= set(last)
    assert last["t"] == pytest.approx(ALPHA_SECONDS)
    assert [remote["name"] for remote in last["remote"]] == ["bot-1", "bravo"]
    # At least the simulated link's round trip (1 ms for the clocks' rounding), and not
    # seconds more.
    least_ms = 2 * (LATENCY_MS - JITTER_MS) - 1
    assert least_ms < last["ping_ms"] < 2 * (LATENCY_MS + JITTER_MS) + PING_SLACK_MS
    ticks = [record["tick"] for record in records]
    assert all(later > earlier for earlier, later in zip(ticks, ticks[1:]))
    assert all(remote["tick"] < last["tick"] for remote in last["remote"])


@pytest.mark.slow
def test_server_telemetry_has_every_vehicle_and_every_client(online_run):
    records = rows(online_run["folder"] / "server.jsonl")
    # A row a step, from the first, each at its step's time.
    assert [record["tick"] for record in records] == list(range(1, len(records) + 1))
    assert all(record["t"] == pytest.approx(record["tick"] / 60, abs=1e-6)
               for record in records)
    both = [record for record in records if len(record["net"]) == 2]
    busy = both[len(both) // 2]  # both have been sending and reading for a while
    assert {vehicle["name"] for vehicle in busy["vehicles"]} == {"bot-1", "alpha", "bravo"}
    assert {link["name"] for link in busy["net"]} == {"alpha", "bravo"}
    assert all(link["out_Bps"] > 0 and link["in_Bps"] > 0 for link in busy["net"])
    events = [event for record in records for event in record["events"]]
    assert {"type": "joined", "vehicle": "alpha"} in events
    assert {"type": "left", "vehicle": "alpha", "reason": "quit"} in events


@pytest.mark.slow
def test_the_predicted_vehicle_matches_the_server_at_the_same_tick(online_run):
    server = {record["tick"]: {v["name"]: v["pos"] for v in record["vehicles"]}
              for record in rows(online_run["folder"] / "server.jsonl")}
    errors = [sum((a - b) ** 2 for a, b in zip(record["pos"], server[record["tick"]]["alpha"]))
              ** 0.5 for record in rows(online_run["folder"] / "alpha.jsonl")[60:]
              if "alpha" in server.get(record["tick"], {})]
    assert len(errors) > 100
    assert sorted(errors)[len(errors) // 2] < 0.05  # mostly spot on; lost packets cost a bit


def test_a_client_of_other_config_files_is_refused_in_one_line(config_copy, edit_file,
                                                               run_cli):
    server, port = start_server()
    with server:
        edit_file(config_copy / "game.toml", "snapshot_hz = 20", "snapshot_hz = 30")
        result = run_cli("--headless", "--connect", f"127.0.0.1:{port}", "--config",
                         config_copy, "--seconds", "2")
    assert result.returncode == EXIT_USAGE
    assert result.stderr.strip().splitlines() == [
        f"tank-battle: 127.0.0.1:{port} refused us: the server's config files differ from "
        "this client's"]


def test_nobody_there_is_one_line_and_exit_2(config_copy, edit_file, run_forked):
    edit_file(config_copy / "game.toml", "connect_timeout_s = 10.0", "connect_timeout_s = 1.0")
    result = run_forked("--headless", "--connect", "127.0.0.1:9", "--config", config_copy)
    assert result.returncode == EXIT_USAGE
    assert result.stderr.strip().splitlines() == [
        "tank-battle: 127.0.0.1:9: no answer within 1 s (is a server running there, and the "
        "port open?)"]


@pytest.mark.parametrize("args, said", [
    (("--serve", "--connect", "127.0.0.1:5"), "choose one"),
    (("--headless", "--connect", "nowhere"), "HOST:PORT"),
    (("--headless", "--connect", "127.0.0.1:5", "--net-sim", "100,10"), "--net-sim"),
    (("--headless", "--net-sim", "100,10,2"), "add --connect"),
    (("--serve", "--players", "2"), "drop --players"),
    (("--headless", "--connect", "127.0.0.1:5", "--bots", "3"), "drop --bots"),
])
def test_bad_online_flags_are_one_line_and_exit_2(run_forked, args, said):
    result = run_forked(*args)
    assert result.returncode == EXIT_USAGE
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and said in lines[0]


def test_without_pyenet_the_online_flags_say_how_to_get_it(monkeypatch, capsys):
    import game.runs.online
    from game.cli import main
    monkeypatch.setattr(game.runs.online, "enet_available", lambda: False)
    assert main(["--serve", "--seconds", "1"]) == EXIT_USAGE
    assert "pip install pyenet" in capsys.readouterr().err


@pytest.mark.slow
def test_a_window_joins_and_draws_another_player(tmp_path, run_cli):
    """`--connect --offscreen`: a window on a server's game, another player driving in it
    (bravo, in the game before the window joins, there until it is done)."""
    server, port = start_server("--map", "flat")
    drive = tmp_path / "drive.json"
    drive.write_text(json.dumps({"events": [{"t": 0.0, "throttle": 0.5, "gear": "1"}]}))
    with server, client("bravo", port, "--inputs", drive, "--seconds", STAYS_SECONDS,
                        "--telemetry", tmp_path / "bravo.jsonl") as bravo:
        bravo.wait_for_rows(tmp_path / "bravo.jsonl")
        png, telemetry = tmp_path / "alpha.png", tmp_path / "alpha.jsonl"
        result = run_cli("--connect", f"127.0.0.1:{port}", "--name", "alpha", "--offscreen",
                         "--seconds", "3", "--screenshot", png, "--telemetry", telemetry)
    assert result.returncode == 0, result.stderr[-2000:]
    assert png.stat().st_size > 10_000
    last = rows(telemetry)[-1]
    assert [remote["name"] for remote in last["remote"]] == ["bravo"]
    assert last["ping_ms"] > 0.0
