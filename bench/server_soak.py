"""The dedicated server's soak: ``python -m bench.soak --server --minutes 60``.

A :class:`~game.sim.net.server.GameServer` with bots, and clients that join it over ENet
on loopback and drive at random, all in this process and in lockstep: the server takes a
step, then each client reads what came and takes the steps it is due. Every endpoint
reads one clock, the server's game time (its tick over its step rate), so a simulated
hour passes in a few minutes with the clocks agreeing as they do in real time: the
clients' leads, the snapshots' ages and the silence timeouts all behave as they do
online. The server runs match after match, as ``--serve`` does.

What it counts is the soak's (:mod:`bench.soak`), over the server's world: its vehicles'
faults and the guard's rescues, shells through hulls, its handles and bodies, and the
process's resident memory, judged by its slope. The clients live in the same process,
so a leak of theirs shows too.
"""

from __future__ import annotations

import time
from typing import Callable

from bench.soak_watch import SETTLE_MINUTES, RandomDriver, SoakResult, watch
from game.config import CONFIG_DIR, load_config
from game.runs.online import identity
from game.sim.net.client import NetClient
from game.sim.net.joining import Joining, JoinRequest
from game.sim.net.link import Endpoint
from game.sim.net.server import GameServer
from game.sim.session import GameOptions
from physics.model.terrain import MapChoice

DEFAULT_CLIENTS = 4
DEFAULT_BOTS = 4
SPARE_PEERS = 4
"""Peers the server's host takes beyond its players (one refused while full, say)."""
JOIN_STEPS_MOST = 600
"""Server steps a client may take to be welcomed and get its first snapshot (10 s of
game time)."""


class _Lockstep:
    """The server and its clients, and the one clock they all read."""

    def __init__(self, config, clients: int, bots: int, seed: int, map_name: str):
        endpoint = Endpoint.listen("127.0.0.1", 0, clients + SPARE_PEERS)
        self.server = GameServer(config.session, config.game.net,
                                 GameOptions(MapChoice.parse(map_name), seed, None, bots),
                                 identity(CONFIG_DIR), endpoint, clients)
        endpoint.clock = self.game_time_s
        self.config = config
        self.clients: list[NetClient] = []
        self.drivers: list[RandomDriver] = []
        for number in range(clients):
            self.join(f"soak-{number + 1}", seed + number + 1)

    def game_time_s(self) -> float:
        return self.server.tick * self.server.step_s

    def join(self, name: str, seed: int) -> None:
        endpoint = Endpoint.client()
        endpoint.clock = self.game_time_s
        server = self.server
        joining = Joining(endpoint, JoinRequest("127.0.0.1", server.endpoint.port, name,
                                                "tank", server.identity.version,
                                                server.identity.config_digest),
                          self.config.game.net.connect_timeout_s)
        for _ in range(JOIN_STEPS_MOST):
            self.server_step()
            joined = joining.poll()
            if joined is not None:
                break
        else:
            raise RuntimeError(f"{name} was not welcomed within {JOIN_STEPS_MOST} steps")
        client = NetClient(self.config.session, self.config.game.net, endpoint, joined, "tank")
        self.clients.append(client)
        self.drivers.append(RandomDriver(seed, client.step_s))
        for _ in range(JOIN_STEPS_MOST):
            if client.tick is not None:
                return
            self.step()
        raise RuntimeError(f"{name} had no snapshot within {JOIN_STEPS_MOST} steps")

    def server_step(self) -> list:
        self.server.receive(0.0)
        return self.server.step()

    def step(self) -> list:
        """A server step, then each client's due steps; the server's events."""
        events = self.server_step()
        for client, driver in zip(self.clients, self.drivers):
            client.receive(0.0)
            for _ in range(client.steps_due() if client.tick is not None else 1):
                client.step(driver.controls_at(client.steps_taken))
            if client.gone is not None:
                raise RuntimeError(f"{client.name} lost the server: {client.gone.reason}")
        return events

    def close(self) -> None:
        """Every client says goodbye (in real time: the game clock stands still now)."""
        for client in self.clients:
            client.endpoint.clock = time.monotonic
            client.close()
        self.server.destroy()


def server_soak(minutes: float, clients: int = DEFAULT_CLIENTS, bots: int = DEFAULT_BOTS,
                seed: int = 1, map_name: str = "desert",
                report: Callable[[str], None] = print,
                settle_minutes: float = SETTLE_MINUTES) -> SoakResult:
    """``minutes`` of the server's game time with ``clients`` clients and ``bots`` bots;
    ``report`` gets a JSON line every simulated minute."""
    lockstep = _Lockstep(load_config(), clients, bots, seed, map_name)
    try:
        return watch(lockstep.server.simulation, lockstep.step, minutes, report,
                     settle_minutes, extra=lambda: {"clients": len(lockstep.server.clients)})
    finally:
        lockstep.close()
