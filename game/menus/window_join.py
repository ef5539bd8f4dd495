"""Joining a server from the title menu, a poll a frame, so the window keeps drawing
(``--connect`` joins before the window opens: :mod:`game.runs.online`)."""

from __future__ import annotations

from game.sim.net.client import NetClient
from game.sim.net.joining import ConnectionRefused, Joining, JoinRequest
from game.sim.net.link import Endpoint
from game.sim.net.shown import ClientSession
from game.sim.replay import config_digest, game_version


class WindowJoin:
    """Joining a server from the title menu, a poll a frame: :meth:`poll` gives the
    window's :class:`~game.sim.net.shown.ClientSession` once in (None until then), or
    raises :class:`ConnectionRefused` (the endpoint closed)."""

    def __init__(self, config, config_dir, address: str, port: int, name: str, vehicle: str,
                 tank: str | None = None):
        self.config = config
        self.vehicle, self.tank = vehicle, tank
        self.endpoint = Endpoint.client()
        request = JoinRequest(address, port, name, vehicle, game_version(),
                              bytes.fromhex(config_digest(config_dir)), tank or "")
        try:
            self.joining = Joining(self.endpoint, request, config.game.net.connect_timeout_s)
        except BaseException:
            self.endpoint.close()
            raise

    def poll(self):
        try:
            joined = self.joining.poll()
        except ConnectionRefused:
            self.endpoint.close()
            raise
        if joined is None:
            return None
        client = NetClient(self.config.session, self.config.game.net, self.endpoint, joined,
                           self.vehicle, self.tank)
        return ClientSession(client)
