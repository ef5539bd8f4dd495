"""A server and its clients in one test process, on loopback, stepped in lockstep.

Each :meth:`NetHarness.step` lets the server read what came in and take a step, then each
client read what came in and take its step (or the steps its lead asks for): no thread,
no sleep beyond ENet's own, every loop bounded.
"""

from __future__ import annotations

import time
from dataclasses import replace

from game.config import CONFIG_DIR
from game.online import identity
from game.sim.controls import Controls
from game.sim.net.client import Joining, JoinRequest, NetClient
from game.sim.net.link import Endpoint
from game.sim.net.server import GameServer
from game.sim.session import GameOptions
from physics.model.terrain import MapChoice

JOIN_STEPS_MOST = 200


class NetHarness:
    def __init__(self, config, bots: int = 0, map_text: str = "flat", max_players: int = 8,
                 net=None):
        self.config = config
        self.net = net or config.game.net
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
                digest: bytes | None = None) -> Joining:
        request = JoinRequest("127.0.0.1", self.port, name, vehicle,
                              version or self.identity.version,
                              digest or self.identity.config_digest)
        return Joining(Endpoint.client(), request, self.net.connect_timeout_s)

    def join(self, name: str, vehicle: str = "tank", **identity) -> NetClient:
        """Join, stepping the server until the welcome comes and the first snapshot is in."""
        joining = self.joining(name, vehicle, **identity)
        for _ in range(JOIN_STEPS_MOST):
            self.server.receive(0.002)
            self.server.step()
            joined = joining.poll(0.002)
            if joined is not None:
                break
        else:
            raise AssertionError("no welcome")
        client = NetClient(self.config.session, self.net, joining.endpoint, joined, vehicle)
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


def short_timeouts(net, timeout_s: float = 1.0):
    return replace(net, timeout_s=timeout_s, connect_timeout_s=timeout_s)


def wait_until(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return condition()
