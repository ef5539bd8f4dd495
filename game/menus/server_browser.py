"""The title menu's Find game page: the servers a list server lists
(:mod:`game.sim.net.browse`), each with its map, mode, players and the ping measured from
here, sorted by players, ping or name, the full ones and other versions hidden or shown.
Choosing one fills the Join game page's address, where the player's name and vehicle are
chosen and Join pressed; an address typed there stays. The page names the list server it
reads: the player may type another's address there (Enter or Refresh reads it), and the
one they chose is kept for next time.

The list is read, and the servers pinged, in a worker thread (a second or two): the page
says so meanwhile, and shows the servers, or why there are none, on the first frame
after.
"""

from __future__ import annotations

import threading
from typing import Callable

from game.menus.widgets import TextRow
from game.sim.net.browse import ListedServer, ListUnavailable, pinged_servers, shown
from game.sim.net.listing import list_url_expected

SORTS = (("Players", "players"), ("Ping", "ping"), ("Name", "name"))
LIST_ROW = (-1.15, 0.655)
"""Where the list server's row sits on the page (its label's left edge, its height)."""
LIST_ENTRY_X = -0.6
LIST_URL_CHARS_SHOWN = 34


class ServerBrowser:
    """The Find game page of ``menu`` (a :class:`~game.menus.title_menu.TitleMenu`),
    ``rows`` servers at a time. ``read(url)`` gives the servers the list server at ``url``
    lists, pinged (it may raise ListUnavailable); ``list_url``: the list server read first;
    ``on_list_chosen(url)``: the player chose another; ``version``: this game's, the one
    other versions are told apart by; ``on_pick(server)``: a server was chosen."""

    def __init__(self, menu, rows: int, read: Callable[[str], list[ListedServer]],
                 version: str, on_pick: Callable[[ListedServer], None], list_url: str,
                 on_list_chosen: Callable[[str], None] = lambda _url: None):
        self.menu, self.read, self.version, self.on_pick = menu, read, version, on_pick
        self.list_url, self.on_list_chosen = list_url, on_list_chosen
        self.servers: list[ListedServer] = []
        self.sort_key = "players"
        self.hide_full = False
        self.hide_other_versions = True
        self._reading: threading.Thread | None = None
        self._read: tuple[list[ListedServer], str | None] | None = None
        """What the last read gave, not yet shown: the servers, or why there are none."""
        menu.add_page("servers", 1.25, 0.92)
        menu.heading("servers", "Find game", 0.8)
        self.list_row = TextRow(menu.pages["servers"], menu.spec, "List server", list_url,
                                LIST_ROW, LIST_URL_CHARS_SHOWN, LIST_ENTRY_X)
        self.list_row.entry["command"] = lambda _text: self.refresh()
        menu.items["servers"].append(self.list_row.entry)
        for index, (label, key) in enumerate(SORTS):
            menu.button("servers", label, lambda key=key: self.sort_by(key),
                        (-1.0 + index * 0.4, 0, 0.5), 0.18)
        self.full_toggle = menu.button("servers", "Hide full", self.toggle_full,
                                       (0.33, 0, 0.5), 0.28)
        self.version_toggle = menu.button("servers", "All versions", self.toggle_versions,
                                          (0.92, 0, 0.5), 0.28)
        self.rows = [menu.button("servers", f"row {row + 1}",
                                 lambda row=row: self.pick(row),
                                 (0, 0, 0.34 - row * 0.15), 1.15) for row in range(rows)]
        menu.status_line("servers", -0.56)
        menu.button("servers", "Refresh", self.refresh, (-0.3, 0, -0.76), 0.25)
        menu.button("servers", "Back", lambda: menu.show_page("main"), (0.3, 0, -0.76), 0.25)
        self._draw()

    # ----- reading the list -------------------------------------------------------------

    def refresh(self) -> None:
        """Read the list again, from the list server the page names (in a worker thread;
        one read at a time). A list server the player typed is kept for next time."""
        if self._reading is not None and self._reading.is_alive():
            return
        url = self.list_row.value
        expected = list_url_expected(url)
        if expected is not None:
            self.menu.set_status("servers", f"List server {url!r}: expected {expected}")
            return
        if url != self.list_url:
            self.list_url = url
            self.on_list_chosen(url)
        self.menu.set_status("servers", "Reading the list of servers ...")
        self._reading = threading.Thread(target=self._read_list, args=(url,),
                                         name="server list", daemon=True)
        self._reading.start()

    def _read_list(self, url: str) -> None:
        try:
            self._read = (self.read(url), None)
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


def read_with_pings(ping_timeout_s: float) -> Callable[[str], list[ListedServer]]:
    """The page's ``read``: the list at a URL, each server pinged."""
    return lambda url: pinged_servers(url, ping_timeout_s)
