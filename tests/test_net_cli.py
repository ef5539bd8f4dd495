"""Online play from the command line, as users run it: a `--serve` process and `--connect`
processes on loopback, their telemetry, their exit statuses and one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from game.sim.net.link import enet_available
from tests.conftest import MAIN, REPO_ROOT, cli_env

pytestmark = pytest.mark.skipif(not enet_available(), reason="pyenet is not installed")
EXIT_USAGE = 2
SERVER_START_S = 60.0


def start_server(*args):
    """A `--serve --port 0` process and the port it printed on its first line."""
    server = subprocess.Popen([sys.executable, str(MAIN), "--serve", "--host", "127.0.0.1",
                               "--port", "0", *map(str, args)], cwd=REPO_ROOT, env=cli_env(),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = server.stdout.readline()
    assert line.startswith("serving on 127.0.0.1:"), line + server.stderr.read()
    return server, int(line.rsplit(":", 1)[1])


def rows(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def online_run(tmp_path_factory):
    """A server for 9 s with a bot, and two headless clients: alpha drives 4 s, bravo
    stays until the server ends the game."""
    folder = tmp_path_factory.mktemp("online")
    server, port = start_server("--seconds", "9", "--bots", "1", "--map", "flat",
                                "--telemetry", folder / "server.jsonl")
    drive = folder / "drive.json"
    drive.write_text(json.dumps({"events": [{"t": 0.0, "throttle": 1.0, "gear": "1"}]}))
    clients = {}
    for name, seconds in (("alpha", 4), ("bravo", 60)):
        clients[name] = subprocess.Popen(
            [sys.executable, str(MAIN), "--headless", "--connect", f"127.0.0.1:{port}",
             "--name", name, "--inputs", drive, "--seconds", str(seconds), "--net-sim",
             "30,5,2", "--telemetry", folder / f"{name}.jsonl"],
            cwd=REPO_ROOT, env=cli_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True)
    outputs = {name: client.communicate(timeout=SERVER_START_S + 60)
               for name, client in clients.items()}
    server_out = server.communicate(timeout=30)
    return {"folder": folder, "server": (server.returncode, *server_out),
            **{name: (clients[name].returncode, *outputs[name]) for name in clients}}


def test_the_server_and_its_clients_exit_0(online_run):
    for name in ("server", "alpha", "bravo"):
        code, _out, err = online_run[name]
        assert code == 0, (name, err)
        assert "Traceback" not in err


def test_a_client_the_server_leaves_says_so_in_one_line(online_run):
    _code, out, _err = online_run["bravo"]
    assert out.strip().splitlines() == ["tank-battle: the server ended the game: the game is "
                                        "over"]


def test_client_telemetry_has_the_network_fields(online_run):
    records = rows(online_run["folder"] / "alpha.jsonl")
    assert len(records) == 4 * 60
    last = records[-1]
    assert {"t", "pos", "vel", "gear", "anchors", "events", "tick", "drawn_pos", "ping_ms",
            "remote"} <= set(last)
    assert last["t"] == pytest.approx(4.0)
    assert [remote["name"] for remote in last["remote"]] == ["bot-1", "bravo"]
    assert 20.0 < last["ping_ms"] < 400.0  # 2 x 30 ms simulated, plus the steps between
    ticks = [record["tick"] for record in records]
    assert all(later > earlier for earlier, later in zip(ticks, ticks[1:]))
    assert all(remote["tick"] < last["tick"] for remote in last["remote"])


def test_server_telemetry_has_every_vehicle_and_every_client(online_run):
    records = rows(online_run["folder"] / "server.jsonl")
    assert len(records) == 9 * 60
    assert [record["tick"] for record in records] == list(range(1, 9 * 60 + 1))
    both = [record for record in records if len(record["net"]) == 2]
    busy = both[len(both) // 2]  # both have been sending and reading for a while
    assert {vehicle["name"] for vehicle in busy["vehicles"]} == {"bot-1", "alpha", "bravo"}
    assert {link["name"] for link in busy["net"]} == {"alpha", "bravo"}
    assert all(link["out_Bps"] > 0 and link["in_Bps"] > 0 for link in busy["net"])
    events = [event for record in records for event in record["events"]]
    assert {"type": "joined", "vehicle": "alpha"} in events
    assert {"type": "left", "vehicle": "alpha", "reason": "quit"} in events


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
    server, port = start_server("--seconds", "30")
    try:
        edit_file(config_copy / "game.toml", "snapshot_hz = 20", "snapshot_hz = 30")
        result = run_cli("--headless", "--connect", f"127.0.0.1:{port}", "--config",
                         config_copy, "--seconds", "2")
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert result.returncode == EXIT_USAGE
    assert result.stderr.strip().splitlines() == [
        f"tank-battle: 127.0.0.1:{port} refused us: the server's config files differ from "
        "this client's"]


def test_nobody_there_is_one_line_and_exit_2(config_copy, edit_file, run_cli):
    edit_file(config_copy / "game.toml", "connect_timeout_s = 10.0", "connect_timeout_s = 1.0")
    result = run_cli("--headless", "--connect", "127.0.0.1:9", "--config", config_copy)
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
def test_bad_online_flags_are_one_line_and_exit_2(run_cli, args, said):
    result = run_cli(*args)
    assert result.returncode == EXIT_USAGE
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and said in lines[0]


def test_without_pyenet_the_online_flags_say_how_to_get_it(monkeypatch, capsys):
    import game.online
    from game.cli import main
    monkeypatch.setattr(game.online, "enet_available", lambda: False)
    assert main(["--serve", "--seconds", "1"]) == EXIT_USAGE
    assert "pip install pyenet" in capsys.readouterr().err


def test_a_window_joins_and_draws_another_player(tmp_path, run_cli):
    """`--connect --offscreen`: a window on a server's game, another player driving in it."""
    server, port = start_server("--seconds", "60", "--map", "flat")
    drive = tmp_path / "drive.json"
    drive.write_text(json.dumps({"events": [{"t": 0.0, "throttle": 0.5, "gear": "1"}]}))
    bravo = subprocess.Popen([sys.executable, str(MAIN), "--headless", "--connect",
                              f"127.0.0.1:{port}", "--name", "bravo", "--inputs", drive,
                              "--seconds", "30"], cwd=REPO_ROOT, env=cli_env(),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        png, telemetry = tmp_path / "alpha.png", tmp_path / "alpha.jsonl"
        result = run_cli("--connect", f"127.0.0.1:{port}", "--name", "alpha", "--offscreen",
                         "--seconds", "3", "--screenshot", png, "--telemetry", telemetry)
    finally:
        bravo.kill()
        server.terminate()
        server.wait(timeout=30)
    assert result.returncode == 0, result.stderr[-2000:]
    assert png.stat().st_size > 10_000
    last = rows(telemetry)[-1]
    assert [remote["name"] for remote in last["remote"]] == ["bravo"]
    assert last["ping_ms"] > 0.0
