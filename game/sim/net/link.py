"""The transport: ENet through pyenet, with a simulated bad link for clients.

:class:`Endpoint` is one ENet host (a server listening, or a client with one peer). It
hands out what arrived as :class:`Arrival` values and sends on the two channels of
:mod:`game.sim.net.protocol`: the state channel unreliable and sequenced, the reliable
one reliable and ordered.

A client may run over a :class:`LinkSimulation` (``--net-sim LATENCY,JITTER,LOSS``): each
packet it sends and each it receives waits LATENCY ± JITTER ms, and LOSS % of the state
channel's are dropped. Reliable messages are delayed but never dropped, and keep their
order, as ENet delivers them after resending (the resend's extra delay is not modelled).
"""

from __future__ import annotations

import heapq
import math
import random
import time
from dataclasses import dataclass, field
from typing import Callable

from game.sim.net.protocol import CHANNELS, RELIABLE_CHANNEL

try:
    import enet
except ImportError:  # pyenet has no wheel for every platform (macOS): single player only
    enet = None

DEFAULT_PORT = 27960
"""Where a server listens unless told otherwise, and a client looks."""
INSTALL_HINT = "pyenet for online play (pip install pyenet; it has no wheel for macOS)"
GOODBYE_CODE = 1
"""The code every disconnect of ours carries. ENet's own disconnect of a peer that stopped
answering carries 0, so the other side can tell a goodbye from a lost link."""


def enet_available() -> bool:
    return enet is not None


@dataclass(frozen=True)
class LinkSimulation:
    """A simulated link, each direction: delay of ``latency_ms`` ± ``jitter_ms`` (uniform),
    ``loss_pct`` % of unreliable packets lost."""

    latency_ms: float
    jitter_ms: float
    loss_pct: float

    @classmethod
    def parse(cls, text: str) -> "LinkSimulation":
        """From ``LATENCY_MS,JITTER_MS,LOSS_PCT``; raises ValueError saying what is wrong."""
        parts = text.split(",")
        if len(parts) != 3:
            raise ValueError("three numbers LATENCY_MS,JITTER_MS,LOSS_PCT")
        try:
            latency, jitter, loss = (float(part) for part in parts)
        except ValueError:
            raise ValueError("three numbers LATENCY_MS,JITTER_MS,LOSS_PCT") from None
        if not all(math.isfinite(value) for value in (latency, jitter, loss)):
            raise ValueError("finite numbers")
        if not 0.0 <= latency <= 5000.0 or not 0.0 <= jitter <= latency:
            raise ValueError("a latency in [0, 5000] ms and a jitter in [0, latency] ms")
        if not 0.0 <= loss <= 100.0:
            raise ValueError("a loss in [0, 100] %")
        return cls(latency, jitter, loss)


@dataclass(order=True)
class _Delayed:
    due_s: float
    order: int
    action: Callable[[], None] = field(compare=False)


class _DelayLine:
    """Packets held until their time, in one direction of a simulated link."""

    def __init__(self, simulation: LinkSimulation, rng: random.Random):
        self.simulation = simulation
        self.rng = rng
        self._queue: list[_Delayed] = []
        self._count = 0
        self._last_reliable_s = 0.0

    def put(self, now_s: float, reliable: bool, action: Callable[[], None]) -> None:
        simulation = self.simulation
        if not reliable and self.rng.random() * 100.0 < simulation.loss_pct:
            return
        delay_ms = simulation.latency_ms + self.rng.uniform(-simulation.jitter_ms,
                                                            simulation.jitter_ms)
        due_s = now_s + delay_ms / 1000.0
        if reliable:  # in order, as ENet delivers them
            due_s = self._last_reliable_s = max(due_s, self._last_reliable_s)
        self._count += 1
        heapq.heappush(self._queue, _Delayed(due_s, self._count, action))

    def release(self, now_s: float) -> None:
        while self._queue and self._queue[0].due_s <= now_s:
            heapq.heappop(self._queue).action()

    def clear(self) -> None:
        self._queue.clear()


@dataclass(frozen=True)
class Arrival:
    """Something that came in: a peer connected or left, or a message on a channel."""

    kind: str
    """"connect", "disconnect" or "message"."""
    peer: int
    channel: int = 0
    data: bytes = b""
    lost: bool = False
    """A disconnect ENet made itself: the peer stopped answering, no goodbye came."""


class Endpoint:
    """One ENet host: a server's (listening) or a client's (one peer)."""

    def __init__(self, host: "enet.Host", clock: Callable[[], float] = time.monotonic,
                 simulation: LinkSimulation | None = None, seed: int = 0):
        self._host = host
        self._peers: dict[int, "enet.Peer"] = {}
        self.clock = clock
        rng = random.Random(seed)
        self._outgoing = _DelayLine(simulation, rng) if simulation else None
        self._incoming = _DelayLine(simulation, rng) if simulation else None
        self._arrived: list[Arrival] = []

    @classmethod
    def listen(cls, address: str, port: int, max_peers: int) -> "Endpoint":
        """A server's host on ``address:port``; raises OSError when it cannot bind."""
        _require_enet()
        try:
            host = enet.Host(enet.Address(address.encode(), port), max_peers, CHANNELS, 0, 0)
        except (OSError, MemoryError) as error:  # pyenet raises MemoryError on a failed bind
            raise OSError(f"cannot listen on {address}:{port} ({error or 'address in use'})"
                          ) from None
        return cls(host)

    @classmethod
    def client(cls, simulation: LinkSimulation | None = None, seed: int = 0) -> "Endpoint":
        _require_enet()
        return cls(enet.Host(None, 1, CHANNELS, 0, 0), simulation=simulation, seed=seed)

    @property
    def port(self) -> int:
        return self._host.address.port

    def connect(self, address: str, port: int) -> int:
        """Start connecting to a server; its peer's key (the connect arrival follows)."""
        peer = self._host.connect(enet.Address(address.encode(), port), CHANNELS, 0)
        key = peer.incomingPeerID
        self._peers[key] = peer
        return key

    def send(self, peer: int, channel: int, data: bytes) -> None:
        reliable = channel == RELIABLE_CHANNEL
        if self._outgoing is None:
            self._send_now(peer, channel, data)
        else:
            self._outgoing.put(self.clock(), reliable,
                               lambda: self._send_now(peer, channel, data))

    def _send_now(self, peer: int, channel: int, data: bytes) -> None:
        target = self._peers.get(peer)
        if target is None:
            return
        flags = enet.PACKET_FLAG_RELIABLE if channel == RELIABLE_CHANNEL else 0
        target.send(channel, enet.Packet(data, flags))

    def receive(self, wait_s: float = 0.0) -> list[Arrival]:
        """What arrived (waiting at most ``wait_s`` for the first of it); sends what is due."""
        if self._outgoing is not None:
            self._outgoing.release(self.clock())
        wait_ms = max(0, int(wait_s * 1000.0))
        while True:
            event = self._host.service(wait_ms)
            wait_ms = 0
            if event is None or event.type == enet.EVENT_TYPE_NONE:
                break
            self._take(event)
        if self._incoming is not None:
            self._incoming.release(self.clock())
        arrived, self._arrived = self._arrived, []
        return arrived

    def _take(self, event) -> None:
        key = event.peer.incomingPeerID
        if event.type == enet.EVENT_TYPE_CONNECT:
            _never_throttle(event.peer)
            self._peers[key] = event.peer
            self._arrived.append(Arrival("connect", key))
        elif event.type == enet.EVENT_TYPE_DISCONNECT:
            self._peers.pop(key, None)
            self._deliver(Arrival("disconnect", key, lost=event.data != GOODBYE_CODE),
                          reliable=True)  # after what came before
        elif event.type == enet.EVENT_TYPE_RECEIVE:
            self._deliver(Arrival("message", key, event.channelID, bytes(event.packet.data)),
                          reliable=event.channelID == RELIABLE_CHANNEL)

    def _deliver(self, arrival: Arrival, reliable: bool) -> None:
        if self._incoming is None:
            self._arrived.append(arrival)
        else:
            self._incoming.put(self.clock(), reliable, lambda: self._arrived.append(arrival))

    def flush(self) -> None:
        self._host.flush()

    def disconnect(self, peer: int, *, now: bool = False) -> None:
        """Say goodbye to a peer: at once (its disconnect arrival will not come), or after
        what is queued for it has gone."""
        target = self._peers.get(peer)
        if target is None:
            return
        if now:
            target.disconnect_now(GOODBYE_CODE)
            del self._peers[peer]
        else:
            target.disconnect_later(GOODBYE_CODE)

    def close(self) -> None:
        """Drop every peer at once and stop."""
        for peer in list(self._peers):
            self.disconnect(peer, now=True)
        self._host.flush()
        for line in (self._outgoing, self._incoming):
            if line is not None:
                line.clear()


def _never_throttle(peer) -> None:
    """Send every unreliable packet. ENet's throttle drops a share of them while the round
    trip grows (a peer busy loading, a slow frame) and takes seconds to recover; the game
    sends little, at a fixed rate, and copes with loss itself (deltas against what the
    client acknowledged, inputs repeated)."""
    peer.packetThrottleDeceleration = 0  # it starts at its top: it stays there


def _require_enet() -> None:
    if enet is None:
        raise ImportError(INSTALL_HINT)
