"""Many servers at once (``bench net --servers N --clients M``): a list server and N
dedicated servers announcing to it, all on loopback, and M headless clients that find a
game through the list, join it, play, leave and find one again, until the time is up.

Every process is the game's own command line (``--list-server``, ``--serve --announce``,
``--connect --headless``). A client's turn is what a player does in the Find game page:
read the list (timed: these are the list server's request times, as a player sees them),
ping the servers, choose one at random among those that answer, are not full and run
this version, then join it and play for ``play_s`` with random inputs.

Each server's resident memory is read once it is first listed and again when every
client has left, before it is stopped: what a match costs a host, and whether it grows;
and, on Linux, the share of a processor it kept busy between the two.

On one machine every server announces from 127.0.0.1, where a community's list sees each
host from its own address; the list server here is started with a copy of the config
whose per-address limits fit N servers (``[listing]``), the only thing it changes.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import tempfile
import threading
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import tomli_w

from bench.net import random_inputs, serve_on_loopback
from bench.usage import children_cpu_s, machine_load, process_cpu_s, process_memory_mb
from game.menus.hosting import game_command
from game.sim.net.browse import ListUnavailable, fetch_servers, shown, with_pings

DEFAULT_SERVERS = 4
DEFAULT_CLIENTS = 8
DEFAULT_BOTS = 2
DEFAULT_SECONDS = 90.0
DEFAULT_PLAY_S = 20.0
DEFAULT_MAX_PLAYERS = 4
START_TIMEOUT_S = 60.0
"""The longest the list server, or a server's first listing, may take to come."""
JOIN_MARGIN_S = 30.0
"""A client's run may take this long beyond its play time (loading, joining, leaving)."""
PLAY_LEAST_S = 2.0
"""A client does not start a join with less time than this left."""
RETRY_WAIT_S = 1.0
"""A client that found nothing to join reads the list again after this."""
LAST_WORDS = 6
"""Lines of a server's log a report quotes when it ended before its time."""
LIMIT_HEADROOM = 4
"""The bench's list server takes this many times the announcements N servers make."""


@dataclass
class _Tally:
    """What the clients saw, added to from their threads under ``lock``."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    list_ms: list[float] = field(default_factory=list)
    list_failures: list[str] = field(default_factory=list)
    listed_counts: list[int] = field(default_factory=list)
    joins: dict[str, int] = field(default_factory=dict)
    refusals: dict[str, int] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    nothing_to_join: int = 0

    def add(self, **changes) -> None:
        with self.lock:
            for name, value in changes.items():
                held = getattr(self, name)
                if isinstance(held, list):
                    held.append(value)
                elif isinstance(held, dict):
                    held[value] = held.get(value, 0) + 1
                else:
                    setattr(self, name, held + value)


def run(clients: int = DEFAULT_CLIENTS, servers: int = DEFAULT_SERVERS,
        bots: int = DEFAULT_BOTS, seconds: float = DEFAULT_SECONDS,
        play_s: float = DEFAULT_PLAY_S, max_players: int = DEFAULT_MAX_PLAYERS,
        seed: int = 1) -> dict:
    """The list server, ``servers`` servers and ``clients`` clients for ``seconds``; what
    they measured."""
    from game.config import CONFIG_DIR  # the game's modules: only once a benchmark runs
    from game.sim.replay import game_version
    version = game_version()
    with tempfile.TemporaryDirectory(prefix="tank-fleet-") as name:
        folder = Path(name)
        lister, url = _start_list_server(folder, CONFIG_DIR, servers)
        started: list[subprocess.Popen] = [lister]
        cpu_before_s, started_s = children_cpu_s(), time.monotonic()
        try:
            hosts = []
            for number in range(servers):
                log_file = folder / f"server-{number + 1}.log"
                process, port = _start_server(url, number, bots, seconds, max_players, seed,
                                              log_file)
                started.append(process)
                hosts.append({"name": f"bench-{number + 1}", "port": port, "process": process,
                              "log": log_file})
            _wait_until_listed(url, hosts)
            tally = _Tally()
            ends_s = time.monotonic() + seconds
            threads = [threading.Thread(target=_client, name=f"fleet client {number + 1}",
                                        args=(url, version, folder, number, seed, ends_s,
                                              play_s, clients, tally), daemon=True)
                       for number in range(clients)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(seconds + play_s + JOIN_MARGIN_S + START_TIMEOUT_S)
            for host in hosts:
                host["memory_end_mib"] = _memory(host["process"])
                host["cpu_end"] = _cpu(host["process"])
                host["ended_early"] = _ended_early(host["process"], host["log"])
        finally:
            for process in started:
                _stop(process)
        wall_s = time.monotonic() - started_s
        cpu_after_s = children_cpu_s()
    report = _figures(hosts, tally)
    report["machine_load"] = machine_load(cpu_before_s, cpu_after_s, wall_s)
    report["parameters"] = {"servers": servers, "clients": clients, "bots": bots,
                            "seconds": seconds, "play_seconds": play_s,
                            "max_players": max_players, "seed": seed}
    return report


def _start_list_server(folder: Path, config_dir: Path,
                       servers: int) -> tuple[subprocess.Popen, str]:
    config = folder / "list-config"
    shutil.copytree(config_dir, config)
    game_file = config / "game.toml"
    game = tomllib.loads(game_file.read_text(encoding="utf-8"))
    listing = game["listing"]
    renewals_per_minute = 60.0 / listing["renew_s"]
    listing["announcements_per_minute_most"] = max(
        listing["announcements_per_minute_most"],
        int(LIMIT_HEADROOM * servers * renewals_per_minute))
    listing["servers_per_address_most"] = max(listing["servers_per_address_most"], servers)
    game_file.write_text(tomli_w.dumps(game), encoding="utf-8")
    log_file = folder / "list-server.log"
    process = subprocess.Popen(
        game_command(["--list-server", "--host", "127.0.0.1", "--port", "0",
                      "--config", str(config), "--log-file", str(log_file)]),
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = process.stdout.readline()
    if not line.startswith("listing on "):
        process.kill()
        raise RuntimeError(f"the list server did not start: {line}"
                           f"{_ended_early(process, log_file)}")
    return process, "http://" + line.split()[-1]


def _start_server(url: str, number: int, bots: int, seconds: float, max_players: int,
                  seed: int, log_file: Path) -> tuple[subprocess.Popen, int]:
    return serve_on_loopback(
        ["--announce", url, "--name", f"bench-{number + 1}", "--bots", str(bots),
         "--max-players", str(max_players), "--seed", str(seed + number),
         "--seconds", f"{seconds + START_TIMEOUT_S + JOIN_MARGIN_S:g}",
         "--log-file", str(log_file)], f"server {number + 1}", stderr=subprocess.DEVNULL)


def _wait_until_listed(url: str, hosts: list[dict]) -> None:
    """Until the list shows every server; each one's memory as it is first listed."""
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        try:
            listed = {server.announcement.port for server in fetch_servers(url)}
        except ListUnavailable:
            listed = set()
        for host in hosts:
            if host["port"] in listed and "memory_start_mib" not in host:
                host["memory_start_mib"] = _memory(host["process"])
                host["cpu_start"] = _cpu(host["process"])
        if all("memory_start_mib" in host for host in hosts):
            return
        time.sleep(RETRY_WAIT_S / 4.0)
    missing = [host["name"] for host in hosts if "memory_start_mib" not in host]
    raise RuntimeError(f"not listed within {START_TIMEOUT_S:g} s: {', '.join(missing)}")


def _client(url: str, version: str, folder: Path, number: int, seed: int, ends_s: float,
            play_s: float, clients: int, tally: _Tally) -> None:
    """One player's turns, from a staggered start until ``ends_s``."""
    rng = random.Random(seed * 1000 + number)
    time.sleep(play_s * number / clients)  # players come one after another, not at once
    inputs = folder / f"inputs-{number + 1}.json"
    inputs.write_text(json.dumps(random_inputs(seed * 1000 + number, play_s)))
    turn = 0
    while (left_s := ends_s - time.monotonic()) >= PLAY_LEAST_S:
        chosen = _choose(url, version, rng, tally)
        if chosen is None:
            tally.add(nothing_to_join=1)
            time.sleep(RETRY_WAIT_S)
            continue
        turn += 1
        _join(chosen, min(play_s, left_s), f"fleet-{number + 1}", inputs, seed + turn, tally)


def _choose(url: str, version: str, rng: random.Random, tally: _Tally):
    """A server to join, as a player in the Find game page chooses one (None: none)."""
    started_s = time.perf_counter()
    try:
        servers = fetch_servers(url)
    except ListUnavailable as error:
        tally.add(list_failures=str(error))
        return None
    tally.add(list_ms=(time.perf_counter() - started_s) * 1000.0,
              listed_counts=len(servers))
    answering = [server for server in shown(with_pings(servers, START_TIMEOUT_S / 10.0),
                                            hide_full=True, version=version)
                 if server.ping_ms is not None]
    return rng.choice(answering) if answering else None


def _join(server, play_s: float, name: str, inputs: Path, seed: int, tally: _Tally) -> None:
    """Join ``server``, play ``play_s`` and leave; counted as played, refused or failed."""
    try:
        done = subprocess.run(
            game_command(["--headless", "--connect", server.join_address, "--name", name,
                          "--inputs", str(inputs), "--seconds", f"{play_s:g}",
                          "--seed", str(seed)]),
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            timeout=play_s + JOIN_MARGIN_S, check=False)
    except subprocess.TimeoutExpired:
        tally.add(failures=f"{name} on {server.announcement.name}: ran past its time")
        return
    why = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ""
    if done.returncode == 0:
        tally.add(joins=server.announcement.name)
    elif "refused" in why:
        tally.add(refusals=why.split("refused us: ", 1)[-1])
    else:
        tally.add(failures=f"{name} on {server.announcement.name}: exit {done.returncode}"
                           f" {why}")


def _ended_early(process: subprocess.Popen, log_file: Path) -> str | None:
    """Why a server ended before it was stopped (its exit status and its log's last
    lines); None while it runs."""
    if process.poll() is None:
        return None
    try:
        lines = log_file.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        lines = []
    return f"exit {process.returncode}: " + " | ".join(lines[-LAST_WORDS:])


def _memory(process: subprocess.Popen) -> float | None:
    resident = process_memory_mb(process.pid) if process.poll() is None else None
    return None if resident is None else round(resident, 1)


def _cpu(process: subprocess.Popen) -> tuple[float, float | None]:
    """When, and how many processor seconds ``process`` had used by then."""
    return time.monotonic(), process_cpu_s(process.pid)


def _processor_share(host: dict) -> float | None:
    """The share of one processor a server kept busy from its first listing to the end."""
    (start_s, start_cpu_s), (end_s, end_cpu_s) = host.get("cpu_start"), host.get("cpu_end")
    if start_cpu_s is None or end_cpu_s is None or end_s <= start_s:
        return None
    return round((end_cpu_s - start_cpu_s) / (end_s - start_s), 3)


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()
    try:
        process.wait(timeout=START_TIMEOUT_S / 2.0)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _figures(hosts: list[dict], tally: _Tally) -> dict:
    list_ms = tally.list_ms
    return {
        "servers": [{"name": host["name"], "port": host["port"],
                     "memory_start_mib": host.get("memory_start_mib"),
                     "memory_end_mib": host.get("memory_end_mib"),
                     "processor_share": _processor_share(host),
                     "joins": tally.joins.get(host["name"], 0),
                     "ended_early": host.get("ended_early")} for host in hosts],
        "joins": sum(tally.joins.values()),
        "refused_joins": sum(tally.refusals.values()),
        "refusals": dict(tally.refusals),
        "nothing_to_join": tally.nothing_to_join,
        "client_failures": list(tally.failures),
        "list_requests": len(list_ms),
        "list_request_ms_median": round(float(np.median(list_ms)), 2) if list_ms else None,
        "list_request_ms_p99": round(float(np.percentile(list_ms, 99)), 2) if list_ms else None,
        "list_failures": list(tally.list_failures),
        "servers_listed_fewest": min(tally.listed_counts) if tally.listed_counts else None,
    }


def table(report: dict) -> str:
    parameters = report["parameters"]
    lines = [f"net: {parameters['servers']} servers ({parameters['bots']} bots, at most "
             f"{parameters['max_players']} players each), {parameters['clients']} clients "
             f"joining for {parameters['play_seconds']:g} s at a time, "
             f"{parameters['seconds']:g} s"]
    for server in report["servers"]:
        lines.append(f"  {server['name']:10s} port {server['port']:<6d} memory "
                     f"{server['memory_start_mib']} -> {server['memory_end_mib']} MiB, "
                     f"{server['processor_share']} of a processor, {server['joins']} joins"
                     + (f"\n    ended early: {server['ended_early']}"
                        if server["ended_early"] else ""))
    lines.append(f"  joins {report['joins']}, refused {report['refused_joins']}"
                 + "".join(f"\n    refused {count}x: {reason}"
                           for reason, count in report["refusals"].items()))
    lines.append(f"  list requests {report['list_requests']}: median "
                 f"{report['list_request_ms_median']} ms, 99th percentile "
                 f"{report['list_request_ms_p99']} ms; fewest servers listed "
                 f"{report['servers_listed_fewest']}")
    lines.append(f"  machine load       {report['machine_load']!s}  (of its "
                 f"{os.cpu_count()} processors)")
    for failure in report["client_failures"] + report["list_failures"]:
        lines.append(f"  {failure}")
    return "\n".join(lines)
