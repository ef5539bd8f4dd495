"""A player's side of the list server (:mod:`game.sim.net.listing`): the servers it lists,
each with the ping this machine measures to it, filtered and sorted as a browser shows
them; ``tank-battle --list URL`` prints them.

The ping is the time an ENet handshake with the game server takes (each in its own worker
thread, all at once): the list server's figures are its own, not the player's.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, fields, replace

from game.sim.net.listing import Announcement, enet_answers

FETCH_TIMEOUT_S = 5.0
PING_WORKERS_MOST = 16
SORT_KEYS = ("name", "map", "mode", "players", "ping")


class ListUnavailable(Exception):
    """The list at ``url`` could not be had; ``expected`` says what was missing."""

    def __init__(self, url: str, expected: str):
        super().__init__(f"{url}: expected {expected}")
        self.url, self.expected = url, expected


@dataclass(frozen=True)
class ListedServer:
    """One server as the list shows it, with this machine's ping to it (None: it did not
    answer, or was not measured)."""

    address: str
    announcement: Announcement
    ping_ms: float | None = None

    @property
    def join_address(self) -> str:
        """``HOST:PORT``, as ``--connect`` and the Join page take it."""
        return f"{self.address}:{self.announcement.port}"


def fetch_servers(url: str, version: str | None = None, map_name: str | None = None,
                  mode: str | None = None, not_full: bool = False,
                  timeout_s: float = FETCH_TIMEOUT_S) -> list[ListedServer]:
    """The servers the list server at ``url`` lists (filtered there); ListUnavailable
    saying why where it cannot be read."""
    query = {key: value for key, value in (("version", version), ("map", map_name),
                                           ("mode", mode)) if value is not None}
    if not_full:
        query["not_full"] = "1"
    address = f"{url.rstrip('/')}/servers" + (f"?{urllib.parse.urlencode(query)}"
                                              if query else "")
    try:
        with urllib.request.urlopen(address, timeout=timeout_s) as answer:
            listed = json.load(answer)["servers"]
        names = {field.name for field in fields(Announcement)}
        return [ListedServer(str(entry["address"]), Announcement.parse(
            {key: value for key, value in entry.items() if key in names}))
                for entry in listed]
    except urllib.error.HTTPError as error:
        raise ListUnavailable(url, f"a list server's servers (it answered {error.code} "
                                   f"{error.reason})") from None
    except (urllib.error.URLError, OSError) as error:
        raise ListUnavailable(url, f"a list server answering there "
                                   f"({getattr(error, 'reason', error)})") from None
    except (ValueError, KeyError, TypeError):
        raise ListUnavailable(url, "a list of servers in its answer") from None


def pinged_servers(url: str, ping_timeout_s: float) -> list[ListedServer]:
    """The servers the list server at ``url`` lists, each pinged from here
    (:func:`fetch_servers`, :func:`with_pings`)."""
    return with_pings(fetch_servers(url), ping_timeout_s)


def with_pings(servers: list[ListedServer], timeout_s: float) -> list[ListedServer]:
    """``servers`` each with the time an ENet handshake with it took (None: no answer
    within ``timeout_s``)."""
    if not servers:
        return []
    with ThreadPoolExecutor(min(PING_WORKERS_MOST, len(servers))) as pool:
        pings = list(pool.map(lambda server: handshake_ms(
            server.address, server.announcement.port, timeout_s), servers))
    return [replace(server, ping_ms=ping) for server, ping in zip(servers, pings)]


def handshake_ms(address: str, port: int, timeout_s: float) -> float | None:
    """How long an ENet handshake with ``address:port`` takes, in ms (None: none within
    ``timeout_s``)."""
    started_s = time.perf_counter()
    if not enet_answers(address, port, timeout_s):
        return None
    return (time.perf_counter() - started_s) * 1000.0


def shown(servers: list[ListedServer], sort_key: str = "players", hide_full: bool = False,
          version: str | None = None) -> list[ListedServer]:
    """The servers as a browser shows them: without the full ones (``hide_full``) and those
    of another game version (``version`` given), sorted by ``sort_key``: most players
    first; lowest ping first (unanswered last); else by that text."""
    kept = [server for server in servers
            if server.announcement.matches(version=version, not_full=hide_full)]
    if sort_key == "players":
        return sorted(kept, key=lambda server: server.announcement.fullest_first())
    if sort_key == "ping":
        return sorted(kept, key=lambda server: (server.ping_ms is None,
                                                server.ping_ms or 0.0))
    return sorted(kept, key=lambda server: str(getattr(server.announcement, sort_key)).lower())


def table(servers: list[ListedServer]) -> list[str]:
    """The servers as lines of text, a header first."""
    rows = [("NAME", "ADDRESS", "MAP", "MODE", "PLAYERS", "PING", "VERSION")]
    for server in servers:
        entry = server.announcement
        rows.append((entry.name, server.join_address, entry.map, entry.mode,
                     f"{entry.players}/{entry.max_players}",
                     "-" if server.ping_ms is None else
                     f"{server.ping_ms:.{0 if server.ping_ms >= 10.0 else 1}f} ms",
                     entry.version))
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    return ["  ".join(text.ljust(width) for text, width in zip(row, widths)).rstrip()
            for row in rows]
