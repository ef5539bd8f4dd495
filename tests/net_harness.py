"""Online play for tests, two ways.

- :class:`NetHarness`: a server and its clients in one test process, on loopback, stepped
  in lockstep. Each :meth:`NetHarness.step` lets the server read what came in and take a
  step, then each client read what came in and take its step (or the steps its lead asks
  for): no thread, no sleep beyond ENet's own, every loop bounded.
- :class:`GameProcess` and :func:`start_server`: the game's own command line in processes
  of their own, as players run it. A test waits for what it needs next (the server's
  "serving on" line, a client's first telemetry row, an event in the server's telemetry),
  each wait bounded by :data:`WAIT_MOST_S` and failing with what did not happen; never
  for a fixed time.
"""

from __future__ import annotations

import queue
import subprocess
import sys
import threading
import time
from dataclasses import fields, replace
from pathlib import Path

from game.config import CONFIG_DIR
from game.runs.online import identity
from game.sim.controls import Controls
from game.sim.net.client import NetClient
from game.sim.net.joining import Joining, JoinRequest
from game.sim.net.link import Endpoint
from game.sim.net.server import GameServer
from game.sim.net.spec import NetSpec
from game.sim.session import GameOptions
from physics.model.terrain import MapChoice
from tests.conftest import MAIN, REPO_ROOT, cli_env

JOIN_STEPS_MOST = 200
WAIT_MOST_S = 120.0
"""The longest a test waits for one thing a process or a loop should do (start, join, say
something, end): far beyond what a loaded machine needs, so only a real failure meets it."""
POLL_S = 0.02
"""How long a wait sleeps between looks."""
SERVER_SECONDS = 600.0
"""A test's server runs this long unless the test ends it first (every test does)."""


def lockstep(net: NetSpec) -> NetSpec:
    """``net`` with the longest silences it allows. In lockstep a side falls silent only
    while the test process is busy with the other (a slow step on a busy machine, physics
    compiled anew): no silence a test means, unless it sets a short one itself."""
    most = {field.name: field.metadata["maximum"] for field in fields(net)}
    return replace(net, timeout_s=most["timeout_s"],
                   server_timeout_s=most["server_timeout_s"])


class NetHarness:
    def __init__(self, config, bots: int = 0, map_text: str = "flat", max_players: int = 8,
                 net: NetSpec | None = None):
        self.config = config
        self.net = net or lockstep(config.game.net)
        self.identity = identity(CONFIG_DIR)
        self.server = GameServer(config.session, self.net,
                                 GameOptions(MapChoice.parse(map_text), 1, None, bots),
                                 self.identity, Endpoint.listen("127.0.0.1", 0,
                                                                max_players + 4), max_players)
        self.clients: dict[str, NetClient] = {}
        self.controls: dict[str, Controls] = {}
        self.events: dict[str, list] = {}
        """Every event each client's steps returned."""

    @property
    def port(self) -> int:
        return self.server.endpoint.port

    def joining(self, name: str, vehicle: str = "tank", version: str | None = None,
                digest: bytes | None = None, tank: str = "") -> Joining:
        request = JoinRequest("127.0.0.1", self.port, name, vehicle,
                              version or self.identity.version,
                              digest or self.identity.config_digest, tank)
        # Not the game's connect timeout (a wall-clock race against the server's steps,
        # which here are the test's): :meth:`join` counts steps instead.
        return Joining(Endpoint.client(), request, WAIT_MOST_S)

    def join(self, name: str, vehicle: str = "tank", tank: str = "", **identity) -> NetClient:
        """Join, stepping the server until the welcome comes and the first snapshot is in."""
        joining = self.joining(name, vehicle, tank=tank, **identity)
        for _ in range(JOIN_STEPS_MOST):
            self.server.receive(0.002)
            self.server.step()
            joined = joining.poll(0.002)
            if joined is not None:
                break
        else:
            raise AssertionError("no welcome")
        # In lockstep a round trip is a step or so. What the wall clock says of the join's
        # is how long the server's steps took (physics compiled at a first join, a busy
        # machine), which would start the client seconds ahead.
        joined = replace(joined, round_trip_s=0.0)
        client = NetClient(self.config.session, self.net, joining.endpoint, joined, vehicle,
                           tank or None)
        self.clients[client.name] = client
        self.controls[client.name] = Controls()
        self.events[client.name] = []
        self.step_until(lambda: client.tick is not None, "the first snapshot")
        return client

    def step(self, steps: int = 1) -> None:
        for _ in range(steps):
            self.server.receive(0.001)
            self.server.step()
            for name, client in list(self.clients.items()):
                client.receive(0.001)
                for _ in range(client.steps_due() if client.tick is not None else 1):
                    self.events[name] += client.step(self.controls[name])

    def step_until(self, condition, what: str, most_steps: int = 600) -> None:
        for _ in range(most_steps):
            if condition():
                return
            self.step()
        raise AssertionError(f"{what} did not happen within {most_steps} steps")

    def leave(self, name: str) -> None:
        client = self.clients.pop(name)
        del self.controls[name]
        client.leave()
        client.destroy()

    def server_vehicle(self, name: str):
        return self.server.simulation.vehicle_named(name)

    def close(self) -> None:
        for name in list(self.clients):
            self.leave(name)
        self.server.destroy()


def wait_until(condition, what: str, seconds: float = WAIT_MOST_S,
               poll_s: float = POLL_S) -> None:
    """Until ``condition()`` holds (it is asked at least once more after the time is up);
    raises AssertionError saying ``what`` did not happen within ``seconds``."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {seconds:g} s")
        time.sleep(poll_s)


# ----- the command line in processes of its own ------------------------------------------

class GameProcess:
    """``python main.py ARGS`` (or ``python -c CODE ARGS``), its output read line by line as
    it comes (by two threads, so a pipe never fills and a wait for a line is bounded)."""

    def __init__(self, name: str, *args, code: str | None = None,
                 env: dict[str, str] | None = None):
        self.name = name
        program = ["-c", code] if code is not None else [str(MAIN)]
        self.process = subprocess.Popen([sys.executable, *program, *map(str, args)],
                                        cwd=REPO_ROOT, env=env or cli_env(),
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        text=True)
        self.out_lines: list[str] = []
        self.err_lines: list[str] = []
        self._new_out: queue.Queue[str | None] = queue.Queue()
        self._readers = [threading.Thread(target=self._read, args=(stream, lines, new),
                                          daemon=True)
                         for stream, lines, new in ((self.process.stdout, self.out_lines,
                                                     self._new_out),
                                                    (self.process.stderr, self.err_lines, None))]
        for reader in self._readers:
            reader.start()

    @staticmethod
    def _read(stream, lines: list[str], new: queue.Queue | None) -> None:
        for line in stream:
            lines.append(line.rstrip("\n"))
            if new is not None:
                new.put(lines[-1])
        if new is not None:
            new.put(None)  # the stream ended

    @property
    def running(self) -> bool:
        return self.process.poll() is None

    @property
    def out(self) -> str:
        return "".join(line + "\n" for line in self.out_lines)

    @property
    def err(self) -> str:
        return "".join(line + "\n" for line in self.err_lines)

    def wait_for_line(self, prefix: str, seconds: float = WAIT_MOST_S) -> str:
        """The next line on stdout starting with ``prefix`` (every line is kept in
        ``out_lines`` too); fails if the process ends first or ``seconds`` pass."""
        deadline = time.monotonic() + seconds
        while True:
            try:
                line = self._new_out.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"{self.name} said no {prefix!r} within {seconds:g} s; "
                                     f"stderr: {self.err[-2000:]}") from None
            if line is None:
                self.wait()
                raise AssertionError(f"{self.name} ended ({self.process.returncode}) without "
                                     f"saying {prefix!r}; stderr: {self.err[-2000:]}")
            if line.startswith(prefix):
                return line

    def wait_for_rows(self, telemetry: Path, seconds: float = WAIT_MOST_S) -> None:
        """Until the client writing ``telemetry`` has joined and is stepping (its first rows
        are in the file); fails at once if it ends first."""
        def stepping() -> bool:
            if not self.running:
                raise AssertionError(f"{self.name} ended ({self.process.returncode}) before "
                                     f"its first step; stderr: {self.err[-2000:]}")
            return telemetry.exists() and telemetry.stat().st_size > 0
        wait_until(stepping, f"{self.name}'s first telemetry rows", seconds)

    def wait(self, seconds: float = WAIT_MOST_S) -> int:
        """Until it ends (killed if it has not within ``seconds``, and the test fails); its
        exit status. Its output is all read by then."""
        try:
            self.process.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"{self.name} did not end within {seconds:g} s; stderr: "
                                 f"{self.err[-2000:]}") from None
        for reader in self._readers:
            reader.join(timeout=seconds)
        return self.process.returncode

    def terminate(self) -> None:
        """SIGTERM: a server stops as on Ctrl+C, telling its players the game is over."""
        if self.running:
            self.process.terminate()

    def kill(self) -> None:
        """SIGKILL: gone at once, nothing said to anyone."""
        if self.running:
            self.process.kill()
        self.process.wait()

    def __enter__(self) -> "GameProcess":
        return self

    def __exit__(self, *_exc) -> None:
        self.kill()  # a test that failed midway leaves nothing running


def start_server(*args, name: str = "the server") -> tuple[GameProcess, int]:
    """A ``--serve --port 0`` process that runs :data:`SERVER_SECONDS` unless ``args`` say
    otherwise, and the port it printed once serving."""
    server = GameProcess(name, "--serve", "--host", "127.0.0.1", "--port", "0",
                         "--seconds", SERVER_SECONDS, *args)
    try:
        line = server.wait_for_line("serving on 127.0.0.1:")
    except AssertionError:
        server.kill()
        raise
    return server, int(line.rsplit(":", 1)[1])
