"""The title menu's Find game page: the servers a list server lists
(:mod:`game.sim.net.browse`), each with its map, mode, players and the ping measured from
here, sorted by players, ping or name, the full ones and other versions hidden or shown.
Choosing one fills the Join game page's address, where the player's name and vehicle are
chosen and Join pressed; an address typed there stays.

The list is read, and the servers pinged, in a worker thread (a second or two): the page
says so meanwhile, and shows the servers, or why there are none, on the first frame
after.
"""

from __future__ import annotations

import threading
from typing import Callable

from game.sim.net.browse import ListedServer, ListUnavailable, pinged_servers, shown

SORTS = (("Players", "players"), ("Ping", "ping"), ("Name", "name"))


class ServerBrowser:
    """The Find game page of ``menu`` (a :class:`~game.menus.title_menu.TitleMenu`),
    ``rows`` servers at a time. ``read()`` gives the servers, pinged (it may raise
    ListUnavailable); ``version``: this game's, the one other versions are told apart by;
    ``on_pick(server)``: a server was chosen."""

    def __init__(self, menu, rows: int, read: Callable[[], list[ListedServer]], version: str,
                 on_pick: Callable[[ListedServer], None]):
        self.menu, self.read, self.version, self.on_pick = menu, read, version, on_pick
        self.servers: list[ListedServer] = []
        self.sort_key = "players"
        self.hide_full = False
        self.hide_other_versions = True
        self._reading: threading.Thread | None = None
        self._read: tuple[list[ListedServer], str | None] | None = None
        """What the last read gave, not yet shown: the servers, or why there are none."""
        menu.add_page("servers", 1.25, 0.92)
        menu.heading("servers", "Find game", 0.76)
        for index, (label, key) in enumerate(SORTS):
            menu.button("servers", label, lambda key=key: self.sort_by(key),
                        (-1.0 + index * 0.4, 0, 0.56), 0.18)
        self.full_toggle = menu.button("servers", "Hide full", self.toggle_full,
                                       (0.33, 0, 0.56), 0.28)
        self.version_toggle = menu.button("servers", "All versions", self.toggle_versions,
                                          (0.92, 0, 0.56), 0.28)
        self.rows = [menu.button("servers", f"row {row + 1}",
                                 lambda row=row: self.pick(row),
                                 (0, 0, 0.38 - row * 0.15), 1.15) for row in range(rows)]
        menu.status_line("servers", -0.56)
        menu.button("servers", "Refresh", self.refresh, (-0.3, 0, -0.76), 0.25)
        menu.button("servers", "Back", lambda: menu.show_page("main"), (0.3, 0, -0.76), 0.25)
        self._draw()

    # ----- reading the list -------------------------------------------------------------

    def refresh(self) -> None:
        """Read the list again (in a worker thread; one read at a time)."""
        if self._reading is not None and self._reading.is_alive():
            return
        self.menu.set_status("servers", "Reading the list of servers ...")
        self._reading = threading.Thread(target=self._read_list, name="server list",
                                         daemon=True)
        self._reading.start()

    def _read_list(self) -> None:
        try:
            self._read = (self.read(), None)
        except ListUnavailable as error:
            self._read = ([], f"No list: {error}")

    def update(self) -> None:
        """Once a frame while the menu is open: a finished read, shown."""
        read, self._read = self._read, None
        if read is not None:
            self.servers, reason = read
            self._draw(reason)

    # ----- what the player does ---------------------------------------------------------

    def sort_by(self, key: str) -> None:
        self.sort_key = key
        self._draw()

    def toggle_full(self) -> None:
        self.hide_full = not self.hide_full
        self._draw()

    def toggle_versions(self) -> None:
        self.hide_other_versions = not self.hide_other_versions
        self._draw()

    def pick(self, row: int) -> None:
        listed = self.listed
        if row < len(listed):
            self.on_pick(listed[row])

    @property
    def listed(self) -> list[ListedServer]:
        """The servers as the page shows them, in its order and filters."""
        return shown(self.servers, self.sort_key, self.hide_full,
                     self.version if self.hide_other_versions else None)

    def _draw(self, reason: str | None = None) -> None:
        listed = self.listed
        for row, button in enumerate(self.rows):
            button["text"] = _row_text(listed[row]) if row < len(listed) else ""
        self.full_toggle["text"] = "Show full" if self.hide_full else "Hide full"
        self.version_toggle["text"] = ("All versions" if self.hide_other_versions
                                       else "This version only")
        hidden = len(self.servers) - len(listed)
        self.menu.set_status("servers", reason or (
            f"{len(listed)} server{'s' if len(listed) != 1 else ''}"
            + (f" ({hidden} hidden)" if hidden else "")
            + (f", the first {len(self.rows)} shown" if len(listed) > len(self.rows) else "")
            + " - choose one to join"))


def _row_text(server: ListedServer) -> str:
    entry = server.announcement
    ping = "-" if server.ping_ms is None else f"{server.ping_ms:.0f} ms"
    return (f"{entry.name}   {entry.map} {entry.mode}   {entry.players}/{entry.max_players}"
            f"   {ping}   v{entry.version}")


def read_with_pings(url: str, ping_timeout_s: float) -> Callable[[], list[ListedServer]]:
    """The page's ``read``: the list at ``url``, each server pinged."""
    return lambda: pinged_servers(url, ping_timeout_s)
