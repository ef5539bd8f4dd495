"""The servers this player joined from the Join game page, most recent first, kept in the
user's config folder (``servers.toml``) and offered again on that page.

A file that cannot be read, or holds anything but addresses, is taken as no history (and
replaced at the next join); one that cannot be written costs only remembering the join.
"""

from __future__ import annotations

import logging
import tomllib
from pathlib import Path

import tomli_w

from common.settings import user_folder, write_atomically

log = logging.getLogger(__name__)

FILE_NAME = "servers.toml"
ADDRESS_CHARS_MOST = 128


def history_path() -> Path:
    return user_folder("config") / FILE_NAME


class JoinHistory:
    """At most ``most`` addresses (``HOST:PORT``), the last one joined first."""

    def __init__(self, most: int, path: Path | None = None):
        self.most = most
        self.path = Path(path) if path is not None else history_path()
        self.addresses = self._read()

    def _read(self) -> list[str]:
        try:
            with open(self.path, "rb") as stream:
                joined = tomllib.load(stream).get("joined", [])
        except FileNotFoundError:
            return []
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
            log.warning("%s: not read (%s); no servers joined before are offered", self.path,
                        error)
            return []
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
        try:
            write_atomically(self.path, tomli_w.dumps({"joined": self.addresses}))
        except OSError as error:
            log.warning("%s: not written (%s)", self.path, error)
