"""A joined client's link kept alive while this process builds the game it joined.

Between the server's welcome and the client's first step, the process builds the map,
the world and (with a window) the views: half a second on an idle machine, ten times that
on a busy one. Nothing would answer the server meanwhile. ENet gives up on a peer whose
acknowledgements stop for about 5 s, and the server puts out a client it has not heard
from for ``timeout_s``: an honest player on a loaded machine would be put out before
their game began. So a thread services the link while the game is built, and says
:class:`~game.sim.net.protocol.Loading` now and then; what arrives meanwhile is kept,
in order, for the client to read first.
"""

from __future__ import annotations

import threading

from game.sim.net.link import Arrival, Endpoint
from game.sim.net.protocol import RELIABLE_CHANNEL, Loading

SERVICE_EVERY_S = 0.05
"""How often the thread services the link: ENet's acknowledgements go out this promptly
(its first retransmissions come after a few hundred ms)."""
SAYINGS_PER_TIMEOUT = 4
"""Loading is said this many times in each of the server's silence timeouts."""


class KeepAlive:
    """Services ``endpoint`` and says Loading to ``peer`` every ``timeout_s`` /
    :data:`SAYINGS_PER_TIMEOUT` from :meth:`start` to :meth:`stop`, in a thread. The
    endpoint is the thread's alone meanwhile."""

    def __init__(self, endpoint: Endpoint, peer: int, timeout_s: float):
        self.endpoint, self.peer = endpoint, peer
        self.say_every_s = timeout_s / SAYINGS_PER_TIMEOUT
        self.heard_s: float | None = None
        """When something last came (None: nothing has)."""
        self._arrivals: list[Arrival] = []
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="keep alive", daemon=True)

    def start(self) -> KeepAlive:
        self._thread.start()
        return self

    def stop(self) -> list[Arrival]:
        """Stop servicing; what arrived meanwhile, oldest first."""
        self._stopping.set()
        if self._thread.is_alive():
            self._thread.join()
        arrivals, self._arrivals = self._arrivals, []
        return arrivals

    def _run(self) -> None:
        said_s = None
        while not self._stopping.is_set():
            arrivals = self.endpoint.receive(0.0)
            now_s = self.endpoint.clock()
            if arrivals:
                self._arrivals += arrivals
                self.heard_s = now_s
            if said_s is None or now_s - said_s >= self.say_every_s:
                self.endpoint.send(self.peer, RELIABLE_CHANNEL, Loading().encode())
                self.endpoint.flush()
                said_s = now_s
            self._stopping.wait(SERVICE_EVERY_S)
