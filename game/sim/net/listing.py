"""The list server: where dedicated servers announce themselves and players find them.

A small HTTP service (``tank-battle --list-server``), in memory:

- ``POST /announce``: a dedicated server's announcement, JSON (:class:`Announcement`).
  The address listed is the connection's, never one the message names. A server not
  listed yet is listed only once an ENet handshake shows a game server answers at that
  address and the port it gave; after that it renews every few seconds, and is forgotten
  after ``forget_after_s`` of silence. Each address may announce at most
  ``announcements_per_minute_most`` times a minute and list at most
  ``servers_per_address_most`` servers. Anything wrong is a 4xx with a reason in
  ``{"error": ...}``, never a crash.
- ``GET /servers``: ``{"servers": [...]}``, each an announcement with its ``address`` and
  how long ago it was heard; filters ``version``, ``map``, ``mode`` (equal) and
  ``not_full`` (``1``: only servers with room).

It runs on aiohttp: one asyncio process answers thousands of requests a minute without a
thread each, its server parses and bounds requests (body size, header size) before our
code sees them, and it is the established asyncio HTTP library. The ENet check runs in a
worker thread: it waits on a socket.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import time
import urllib.parse
from collections import deque
from dataclasses import asdict, dataclass, fields
from typing import Awaitable, Callable

from common.spec import Spec, SpecError, tuning

LOG = logging.getLogger(__name__)

TEXT_MOST = 32
"""The most characters in a name, map, mode or version."""
DIGEST_MOST = 64
PLAYERS_MOST = 64
MINUTE_S = 60.0
LIST_URL_SCHEMES = ("http", "https")
LIST_URL_CHARS_MOST = 200


def list_url_expected(url: str) -> str | None:
    """What a list server's address must be, where ``url`` is not one (None: it is)."""
    parts = urllib.parse.urlsplit(url)
    if (parts.scheme not in LIST_URL_SCHEMES or not parts.hostname
            or not 0 < len(url) <= LIST_URL_CHARS_MOST or not url.isprintable()
            or any(char.isspace() for char in url)):
        return (f"an address starting http:// or https://, at most "
                f"{LIST_URL_CHARS_MOST} characters, such as http://lists.example.org:27900")
    try:
        parts.port  # a port that is not a number or out of range raises
    except ValueError:
        return "a port from 1 to 65535 after the host"
    return None


@dataclass(frozen=True)
class ListingSpec(Spec):
    """config/game.toml's ``[listing]``: the list server, and how servers announce to it."""

    url: str = tuning("the list server players and servers use unless told another "
                      "(--list, --announce)")
    port: int = tuning("the port a list server listens on unless told another",
                       minimum=1, maximum=65535)
    renew_s: float = tuning("a dedicated server announces itself again this often",
                            minimum=1.0, maximum=60.0)
    forget_after_s: float = tuning("a server not heard from for this long leaves the list",
                                   minimum=2.0, maximum=600.0)
    announcements_per_minute_most: int = tuning(
        "announcements one address may make a minute; more are refused (429)", minimum=1,
        maximum=10000)
    servers_per_address_most: int = tuning("servers one address may have listed at once",
                                           minimum=1, maximum=1000)
    body_bytes_most: int = tuning("the largest announcement taken, in bytes", minimum=256,
                                  maximum=65536)
    verify_timeout_s: float = tuning("how long the list server waits for a new server to "
                                     "answer its ENet handshake", minimum=0.1, maximum=10.0)

    def __post_init__(self) -> None:
        super().__post_init__()
        expected = list_url_expected(self.url)
        if expected is not None:
            raise SpecError("url", self.url, expected)
        renewing = math.ceil(self.servers_per_address_most * MINUTE_S / self.renew_s)
        if self.announcements_per_minute_most < renewing:
            raise SpecError("announcements_per_minute_most", self.announcements_per_minute_most,
                            f"at least {renewing}: servers_per_address_most servers on one "
                            f"host, each renewing every renew_s")


class AnnouncementError(ValueError):
    """An announcement that cannot be listed; its text is the reason the server is told."""


@dataclass(frozen=True)
class Announcement:
    """What a dedicated server says of itself."""

    name: str
    port: int
    map: str
    mode: str
    players: int
    max_players: int
    version: str
    protocol: int
    config_digest: str

    @property
    def full(self) -> bool:
        return self.players >= self.max_players

    def matches(self, version: str | None = None, map_name: str | None = None,
                mode: str | None = None, not_full: bool = False) -> bool:
        """Whether it passes the list's filters (each None or False: any)."""
        return ((version is None or self.version == version)
                and (map_name is None or self.map == map_name)
                and (mode is None or self.mode == mode) and not (not_full and self.full))

    def fullest_first(self) -> tuple[int, str]:
        """The list's order: most players first, then by name."""
        return -self.players, self.name

    @classmethod
    def parse(cls, data: object) -> Announcement:
        """From decoded JSON; raises AnnouncementError naming the first field that is
        missing, unknown or not what it should be."""
        if not isinstance(data, dict):
            raise AnnouncementError("expected a JSON object")
        names = [field.name for field in fields(cls)]
        unknown = sorted(set(data) - set(names))
        if unknown:
            raise AnnouncementError(f"unknown field {unknown[0]!r}")
        values: dict = {}
        for name in names:
            if name not in data:
                raise AnnouncementError(f"missing field {name!r}")
            values[name] = _checked(name, data[name])
        if values["players"] > values["max_players"]:
            raise AnnouncementError("players: expected at most max_players")
        return cls(**values)


def _checked(name: str, value: object) -> int | str:
    """``value`` of field ``name`` if it is what that field takes, else AnnouncementError."""
    if name in ("port", "players", "max_players", "protocol"):
        low, high = {"port": (1, 65535), "players": (0, PLAYERS_MOST),
                     "max_players": (1, PLAYERS_MOST), "protocol": (1, 1 << 30)}[name]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise AnnouncementError(f"{name}: expected a whole number from {low} to {high}")
        return value
    most = DIGEST_MOST if name == "config_digest" else TEXT_MOST
    if not isinstance(value, str) or not 0 < len(value) <= most or not value.isprintable():
        raise AnnouncementError(f"{name}: expected printable text of 1 to {most} characters")
    if name == "config_digest" and any(char not in "0123456789abcdef" for char in value):
        raise AnnouncementError("config_digest: expected lowercase hexadecimal")
    return value


Verify = Callable[[str, int], Awaitable[bool]]
"""Whether a game server answers at an address and port."""


@dataclass
class _Listed:
    announcement: Announcement
    heard_s: float


class ServerList:
    """The servers listed, and the rules for getting listed (no HTTP here)."""

    def __init__(self, spec: ListingSpec, verify: Verify,
                 clock: Callable[[], float] = time.monotonic):
        self.spec = spec
        self.verify = verify
        self.clock = clock
        self._listed: dict[tuple[str, int], _Listed] = {}
        self._recent: dict[str, deque[float]] = {}
        """Per address: when it announced in the last minute."""

    async def announce(self, address: str, body: bytes) -> tuple[int, dict]:
        """An announcement from ``address``: the HTTP status and the JSON answer."""
        now_s = self.clock()
        self._forget_silent(now_s)
        if not self._within_rate(address, now_s):
            return 429, {"error": "too many announcements from this address; wait a minute"}
        try:
            announcement = Announcement.parse(json.loads(body))
        except (ValueError, RecursionError) as error:  # JSONDecodeError is a ValueError
            reason = str(error) if isinstance(error, AnnouncementError) else "expected JSON"
            return 400, {"error": reason}
        key = (address, announcement.port)
        if key not in self._listed:
            if sum(1 for listed in self._listed if listed[0] == address) \
                    >= self.spec.servers_per_address_most:
                return 429, {"error": "too many servers listed from this address"}
            if not await self.verify(address, announcement.port):
                return 422, {"error": f"no game server answers at {address}:"
                                      f"{announcement.port}"}
        self._listed[key] = _Listed(announcement, now_s)
        return 200, {"listed": True, "renew_s": self.spec.renew_s}

    def servers(self, version: str | None = None, map_name: str | None = None,
                mode: str | None = None, not_full: bool = False) -> list[dict]:
        """The servers listed now that pass the filters, most players first."""
        now_s = self.clock()
        self._forget_silent(now_s)
        kept = sorted(((address, listed) for (address, _port), listed in self._listed.items()
                       if listed.announcement.matches(version, map_name, mode, not_full)),
                      key=lambda kept_one: kept_one[1].announcement.fullest_first())
        return [{"address": address, **asdict(listed.announcement),
                 "heard_s_ago": round(now_s - listed.heard_s, 1)} for address, listed in kept]

    def _within_rate(self, address: str, now_s: float) -> bool:
        recent = self._recent.setdefault(address, deque())
        while recent and now_s - recent[0] >= MINUTE_S:
            recent.popleft()
        if len(recent) >= self.spec.announcements_per_minute_most:
            return False
        recent.append(now_s)
        return True

    def _forget_silent(self, now_s: float) -> None:
        for key in [key for key, listed in self._listed.items()
                    if now_s - listed.heard_s > self.spec.forget_after_s]:
            del self._listed[key]
        for address in [address for address, recent in self._recent.items()
                        if not recent or now_s - recent[-1] >= MINUTE_S]:
            del self._recent[address]


def enet_answers(address: str, port: int, timeout_s: float) -> bool:
    """Whether a game server answers an ENet handshake at ``address:port`` within
    ``timeout_s`` (it is told goodbye at once)."""
    from game.sim.net.link import Endpoint  # pyenet: only where a server is checked

    endpoint = Endpoint.client()
    try:
        peer = endpoint.connect(address, port)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            for arrival in endpoint.receive(min(0.05, timeout_s)):
                if arrival.kind == "connect":
                    endpoint.disconnect(peer, now=True)
                    return True
                if arrival.kind == "disconnect":
                    return False
        return False
    except OSError:
        return False
    finally:
        endpoint.close()


def thread_verifier(timeout_s: float) -> Verify:
    """:func:`enet_answers` in a worker thread, as the service awaits it."""
    async def verify(address: str, port: int) -> bool:
        return await asyncio.to_thread(enet_answers, address, port, timeout_s)
    return verify
