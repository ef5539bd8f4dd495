"""The player's own online file (``servers.toml`` in the user's config folder): the servers
they joined from the Join game page, most recent first, offered again on that page; and
the list server they chose on the Find game page, read again there (and by ``--headless
--list``) until they choose another.

A file that cannot be read, or holds anything but addresses, is taken as no history and
the game's own list server (and replaced at the next join or choice); one that cannot be
written costs only remembering the join or the choice.
"""

from __future__ import annotations

import logging
import tomllib
from pathlib import Path

import tomli_w

from common.settings import user_folder, write_atomically
from game.sim.net.listing import list_url_expected

log = logging.getLogger(__name__)

FILE_NAME = "servers.toml"
ADDRESS_CHARS_MOST = 128


def history_path() -> Path:
    return user_folder("config") / FILE_NAME


def _read_table(path: Path) -> dict:
    try:
        with open(path, "rb") as stream:
            return tomllib.load(stream)
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        log.warning("%s: not read (%s); no servers joined before are offered", path, error)
        return {}


def _list_url(table: dict, path: Path) -> str | None:
    url = table.get("list")
    if url is None:
        return None
    expected = list_url_expected(url) if isinstance(url, str) else "text"
    if expected is not None:
        log.warning("%s: list: expected %s; the game's own list server is read", path,
                    expected)
        return None
    return url


def chosen_list_url(path: Path | None = None) -> str | None:
    """The list server the player chose on the Find game page (None: the game's own)."""
    path = Path(path) if path is not None else history_path()
    return _list_url(_read_table(path), path)


class JoinHistory:
    """At most ``most`` addresses (``HOST:PORT``), the last one joined first; and the list
    server chosen (``list_url``, None: the game's own)."""

    def __init__(self, most: int, path: Path | None = None):
        self.most = most
        self.path = Path(path) if path is not None else history_path()
        table = _read_table(self.path)
        self.addresses = self._joined(table)
        self.list_url = _list_url(table, self.path)

    def _joined(self, table: dict) -> list[str]:
        joined = table.get("joined", [])
        if not isinstance(joined, list) or not all(
                isinstance(address, str) and 0 < len(address) <= ADDRESS_CHARS_MOST
                for address in joined):
            log.warning("%s: joined: expected a list of addresses; none are offered",
                        self.path)
            return []
        return joined[:self.most]

    def joined(self, address: str) -> None:
        """``address`` was joined: first in the history, saved."""
        self.addresses = ([address] + [known for known in self.addresses
                                       if known != address])[:self.most]
        self._write()

    def chose_list(self, url: str | None) -> None:
        """The player chose the list server at ``url`` (None: the game's own): saved."""
        self.list_url = url
        self._write()

    def _write(self) -> None:
        table: dict = {"joined": self.addresses}
        if self.list_url is not None:
            table["list"] = self.list_url
        try:
            write_atomically(self.path, tomli_w.dumps(table))
        except OSError as error:
            log.warning("%s: not written (%s)", self.path, error)
