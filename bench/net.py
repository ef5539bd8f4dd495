"""The network benchmark: a dedicated server, headless clients driving at random, on
loopback through a simulated link; bandwidth, prediction and interpolation error, and the
server's step time, read from their telemetry.

Every process is the game's own command line (``--serve``, ``--connect --headless``), so
what is measured is what players run. The first ``WARMUP_S`` of each client's run (joining,
catching the server's clock) are left out of the figures, and so are the steps round a
vehicle being set down elsewhere (a round's start, a reset).
"""

from __future__ import annotations

import json
import math
import os
import random
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.usage import children_cpu_s, machine_load
from game.menus.hosting import game_command

DEFAULT_CLIENTS = 8
DEFAULT_BOTS = 8
DEFAULT_SECONDS = 60.0
DEFAULT_NET_SIM = "100,10,2"
WARMUP_S = 3.0
START_TIMEOUT_S = 60.0
DRIVING_MPS = 1.0
"""Rows of the own vehicle faster than this count as driving."""
TARGETS = {"down_kbit_s": 64.0, "up_kbit_s": 16.0, "own_rms_m": 0.25, "drawn_jump_m": 2.0,
           "remote_rms_m": 0.25, "remote_behind_s": 0.5, "server_step_ms": 16.667 / 2.0}
"""The issue's targets: the most each figure may be."""


def random_inputs(seed: int, seconds: float) -> dict:
    """An inputs file that drives at random: new throttle and steer every 1-3 s, the
    automatic gearbox, a shot now and then."""
    rng = random.Random(seed)
    events, t = [{"t": 0.0, "gear": "A", "throttle": 1.0}], 0.0
    while t < seconds:
        t += rng.uniform(1.0, 3.0)
        events.append({"t": round(t, 3), "throttle": round(rng.uniform(0.3, 1.0), 3),
                       "steer": round(rng.uniform(-0.8, 0.8), 3),
                       "turret": round(rng.uniform(-1.0, 1.0), 3),
                       "fire": rng.random() < 0.3})
    return {"events": events}


def serve_on_loopback(arguments: list[str], what: str = "the server",
                      stderr=subprocess.PIPE) -> tuple[subprocess.Popen, int]:
    """A dedicated server (``--serve`` with ``arguments``) on a free loopback port, once it
    says it serves; and that port."""
    server = subprocess.Popen(
        game_command(["--serve", "--host", "127.0.0.1", "--port", "0", *arguments]),
        stdout=subprocess.PIPE, stderr=stderr, text=True)
    line = server.stdout.readline()
    if not line.startswith("serving on "):
        server.kill()
        said = server.stderr.read() if server.stderr is not None else ""
        raise RuntimeError(f"{what} did not start: {line!r} {said}")
    return server, int(line.rsplit(":", 1)[1])


def _start_server(folder: Path, bots: int, seconds: float, seed: int):
    return serve_on_loopback(["--bots", str(bots), "--seconds", f"{seconds:g}",
                              "--seed", str(seed), "--telemetry", str(folder / "server.jsonl")])


def run(config, clients: int = DEFAULT_CLIENTS, bots: int = DEFAULT_BOTS,
        seconds: float = DEFAULT_SECONDS, net_sim: str = DEFAULT_NET_SIM, seed: int = 1,
        keep: Path | None = None) -> dict:
    """Run the server and ``clients`` clients for ``seconds``; their figures. ``keep``: a
    folder to leave the telemetry files in (else they go)."""
    step_s = config.game.simulation.step_s
    with tempfile.TemporaryDirectory(prefix="tank-net-") as name:
        folder = Path(name) if keep is None else Path(keep)
        folder.mkdir(parents=True, exist_ok=True)
        server, port = _start_server(folder, bots, seconds + 30.0, seed)
        processes = []
        cpu_before_s = children_cpu_s()
        started_s = time.monotonic()
        try:
            for number in range(clients):
                inputs = folder / f"inputs-{number}.json"
                inputs.write_text(json.dumps(random_inputs(seed * 1000 + number, seconds)))
                if processes:  # one at a time: loading the game costs a second or two
                    _wait_for_rows(folder / f"client-{number}.jsonl", processes[-1])
                processes.append(subprocess.Popen(
                    game_command(["--headless", "--connect", f"127.0.0.1:{port}",
                                  "--name", f"client-{number + 1}", "--inputs", str(inputs),
                                  "--seconds", f"{seconds:g}", "--net-sim", net_sim,
                                  "--seed", str(number + 1), "--telemetry",
                                  str(folder / f"client-{number + 1}.jsonl")]),
                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True))
            deadline = time.monotonic() + seconds + START_TIMEOUT_S
            failures = [_finish(process, deadline) for process in processes]
        finally:
            server.terminate()
            server.wait(timeout=30)
        wall_s = time.monotonic() - started_s
        cpu_after_s = children_cpu_s()
        report = analyse(folder, clients, WARMUP_S, step_s)
    report["machine_load"] = machine_load(cpu_before_s, cpu_after_s, wall_s)
    """The share of the machine's processors the server and clients kept busy: near 1,
    they waited on each other for it, and lateness shows in the figures (None on Windows,
    which does not count its children's processor time)."""
    report["parameters"] = {"clients": clients, "bots": bots, "seconds": seconds,
                            "net_sim": net_sim, "seed": seed, "warmup_s": WARMUP_S}
    report["client_failures"] = [failure for failure in failures if failure]
    return report


def _wait_for_rows(path: Path, process) -> None:
    """Until the client writing ``path`` has joined (its first row), or has ended."""
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline and process.poll() is None:
        if path.exists() and path.stat().st_size > 0:
            return
        time.sleep(0.05)


def _finish(process, deadline: float) -> str | None:
    try:
        process.wait(timeout=max(1.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        process.kill()
        return "a client ran past its time"
    if process.returncode != 0:
        return f"a client exited {process.returncode}: {process.stderr.read().strip()}"
    return None


def _rows(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line]


def _rms(values: list[float]) -> float | None:
    return round(math.sqrt(float(np.mean(np.square(values)))), 4) if values else None


TELEPORTS = ("round_start", "reset", "recovered")
"""Events that set vehicles down somewhere else: not a prediction's or an interpolation's
error, so the steps round them are left out."""
TELEPORT_MARGIN_S = 0.5


def _teleports(server_rows: list[dict]) -> dict[str | None, list[int]]:
    """The server ticks where vehicles were set down elsewhere, by vehicle name (None:
    every vehicle, a round's start)."""
    ticks: dict[str | None, list[int]] = {}
    for row in server_rows:
        for event in row["events"]:
            if event["type"] in TELEPORTS:
                ticks.setdefault(event.get("vehicle"), []).append(row["tick"])
    return ticks


def _near_teleport(teleports: dict, name: str, tick: float, margin: float) -> bool:
    return any(abs(tick - at) <= margin for key in (None, name)
               for at in teleports.get(key, ()))


def analyse(folder: Path, clients: int, warmup_s: float, step_s: float) -> dict:
    """The figures of a run's telemetry files (server.jsonl, client-N.jsonl)."""
    server_rows = _rows(folder / "server.jsonl")
    positions = {row["tick"]: {v["name"]: v["pos"] for v in row["vehicles"]}
                 for row in server_rows}
    teleports = _teleports(server_rows)
    margin = TELEPORT_MARGIN_S / step_s
    down, up = [], []
    for row in server_rows:
        for link in row["net"]:
            down.append(link["out_Bps"])
            up.append(link["in_Bps"])
    own_errors, jumps, remote_errors, behind_s = [], [], [], []
    for number in range(1, clients + 1):
        name = f"client-{number}"
        drawn = None
        for row in _rows(folder / f"client-{number}.jsonl"):
            if row["t"] < warmup_s:
                continue
            if _near_teleport(teleports, name, row["tick"], margin):
                drawn = None
                continue
            server = positions.get(row["tick"], {})
            if name in server and math.hypot(*row["vel"][:2]) > DRIVING_MPS:
                own_errors.append(float(np.linalg.norm(np.subtract(server[name], row["pos"]))))
            if drawn is not None:
                jumps.append(float(np.linalg.norm(np.subtract(row["drawn_pos"], drawn))))
            drawn = row["drawn_pos"]
            for remote in row["remote"]:
                if _near_teleport(teleports, remote["name"], remote["tick"], margin):
                    continue
                shown = _server_position(positions, remote["name"], remote["tick"])
                if shown is not None:
                    remote_errors.append(float(np.linalg.norm(shown - remote["pos"])))
                behind_s.append((row["tick"] - remote["tick"]) * step_s)
    step_ms = [row["step_ms"] for row in server_rows[len(server_rows) // 10:]]
    return _figures(down, up, own_errors, jumps, remote_errors, behind_s, step_ms)


def _server_position(positions: dict, name: str, tick: float) -> np.ndarray | None:
    """Where the server had ``name`` at a fractional tick (between its two rows)."""
    first = math.floor(tick)
    before, after = positions.get(first, {}), positions.get(first + 1, {})
    if name not in before or name not in after:
        return None
    alpha = tick - first
    return np.array(before[name]) * (1.0 - alpha) + np.array(after[name]) * alpha


def _figures(down, up, own_errors, jumps, remote_errors, behind_s, step_ms) -> dict:
    kbit = 8.0 / 1000.0
    figures = {
        "down_kbit_s": round(float(np.mean(down)) * kbit, 2) if down else None,
        "down_kbit_s_p99": round(float(np.percentile(down, 99)) * kbit, 2) if down else None,
        "down_kbit_s_peak": round(float(np.max(down)) * kbit, 2) if down else None,
        "up_kbit_s": round(float(np.mean(up)) * kbit, 2) if up else None,
        "own_rms_m": _rms(own_errors),
        "own_rows": len(own_errors),
        "drawn_jump_m": round(max(jumps), 4) if jumps else None,
        "remote_rms_m": _rms(remote_errors),
        "remote_behind_s": round(max(behind_s), 3) if behind_s else None,
        "remote_behind_s_median": round(float(np.median(behind_s)), 3) if behind_s else None,
        "remote_behind_s_p99": (round(float(np.percentile(behind_s, 99)), 3) if behind_s
                                else None),
        "server_step_ms": round(float(np.mean(step_ms)), 3) if step_ms else None,
        "server_step_ms_p99": round(float(np.percentile(step_ms, 99)), 3) if step_ms else None,
    }
    figures["met"] = {key: figures[key] is not None and figures[key] <= most
                      for key, most in TARGETS.items()}
    figures["targets"] = TARGETS
    return figures


def table(report: dict) -> str:
    parameters = report["parameters"]
    lines = [f"net: {parameters['clients']} clients, {parameters['bots']} bots, "
             f"{parameters['seconds']:g} s through {parameters['net_sim']}"]
    for key, most in TARGETS.items():
        value = report[key]
        mark = "ok" if report["met"][key] else "MISSED"
        lines.append(f"  {key:18s} {value!s:>10s}  (at most {most:g}) {mark}")
    lines.append(f"  machine load       {report['machine_load']!s:>10}  (of its "
                 f"{os.cpu_count()} processors)")
    for failure in report["client_failures"]:
        lines.append(f"  {failure}")
    return "\n".join(lines)
