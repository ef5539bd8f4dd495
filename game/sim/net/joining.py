"""Joining a server: connect, say hello, and wait for its welcome or its refusal.

:class:`Joining` does it a poll at a time (a window keeps drawing meanwhile); :func:`join`
waits for it. The welcome (the map, the seed, the vehicle the server gave us) and what
came right after it are handed to a :class:`~game.sim.net.client.NetClient`.
"""

from __future__ import annotations

from dataclasses import dataclass

from game.sim.net.link import Arrival, Endpoint
from game.sim.net.protocol import (RELIABLE_CHANNEL, Hello, ProtocolError, Refuse, Welcome,
                                   decode_server)

WAIT_S = 0.01
"""How long a loop waiting on the network sleeps between looks."""


class ConnectionRefused(Exception):
    """The server would not let us in (or could not be reached): one line saying why."""


@dataclass(frozen=True)
class JoinRequest:
    address: str
    port: int
    name: str
    vehicle: str
    version: str
    config_digest: bytes
    tank: str = ""
    """The tank class ("": the server's default)."""


@dataclass(frozen=True)
class Joined:
    """A server let us in: its peer key, its welcome, and what came right after it."""

    peer: int
    welcome: Welcome
    after: tuple[Arrival, ...]
    round_trip_s: float
    """From the hello going out to the welcome coming in."""


class Joining:
    """Connecting and saying hello, a poll at a time (a window keeps drawing meanwhile).
    :meth:`poll` raises :class:`ConnectionRefused` when refused, or when nothing answers
    within ``timeout_s``."""

    def __init__(self, endpoint: Endpoint, request: JoinRequest, timeout_s: float):
        self.endpoint = endpoint
        self.request = request
        self.timeout_s = timeout_s
        self.where = f"{request.address}:{request.port}"
        self.peer = endpoint.connect(request.address, request.port)
        self._deadline_s = endpoint.clock() + timeout_s
        self._hello_s = 0.0

    def poll(self, wait_s: float = 0.0) -> Joined | None:
        """The server's welcome once it has come (None until then)."""
        endpoint = self.endpoint
        if endpoint.clock() > self._deadline_s:
            raise ConnectionRefused(f"{self.where}: no answer within {self.timeout_s:g} s (is "
                                    "a server running there, and the port open?)")
        arrivals = endpoint.receive(wait_s)
        for index, arrival in enumerate(arrivals):
            if arrival.kind == "connect":
                self._hello_s = endpoint.clock()
                request = self.request
                endpoint.send(self.peer, RELIABLE_CHANNEL,
                              Hello(request.version, request.config_digest, request.name,
                                    request.vehicle, tank=request.tank).encode())
            elif arrival.kind == "disconnect":
                raise ConnectionRefused(f"{self.where}: the server closed the connection")
            elif arrival.channel == RELIABLE_CHANNEL:
                message = self._message(arrival.data)
                if isinstance(message, Welcome):
                    return Joined(self.peer, message, tuple(arrivals[index + 1:]),
                                  endpoint.clock() - self._hello_s)
        return None

    def _message(self, data: bytes):
        try:
            message = decode_server(data)
        except ProtocolError as error:
            raise ConnectionRefused(f"{self.where}: not a Tank Battle server ({error})"
                                    ) from None
        if isinstance(message, Refuse):
            raise ConnectionRefused(f"{self.where} refused us: {message.reason}")
        return message


def join(endpoint: Endpoint, request: JoinRequest, timeout_s: float) -> Joined:
    """Connect and say hello, waiting for the answer (see :class:`Joining`)."""
    joining = Joining(endpoint, request, timeout_s)
    while True:
        joined = joining.poll(WAIT_S)
        if joined is not None:
            return joined
