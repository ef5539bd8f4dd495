"""The title menu: what a game started in a window with no match flags opens on.

Its main page offers Play (the match setup page: map, bots, their level, vehicle,
gearbox, rounds), Firing range, Host game and Join game (online play, where ENet is
installed), Settings, Controls and Quit. Every page works with the mouse, and with the
keyboard or a pad through :class:`~game.menus.focus.MenuFocus` (up, down, left,
right, activate); "back" (Esc, the pad's B) goes to the page before.

The menu only draws its pages and calls back: ``on_play(setup)``, ``on_range(setup)``,
``on_host(request)``, ``on_join(request)``, ``on_quit()``, and ``on_page(name)`` each time
it shows a page (the front door, :mod:`game.menus.front_door`, turns these into the app's
requests). Settings and Controls pages are
built by their own modules into frames this menu hands out (:meth:`TitleMenu.add_page`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Sequence

from direct.gui.DirectGui import DGG, DirectButton, DirectFrame, DirectLabel

from common.spec import Spec, SpecError, tuning
from game.menus.focus import MenuFocus
from game.menus.menu_spec import MenuSpec
from game.menus.server_browser import ServerBrowser
from game.menus.widgets import ChoiceRow, TextRow, play_click, with_click
from game.sim.zone import MODES
from game.view.draw.colours import rgba
from game.view.draw.overlay import keep_alpha


@dataclass(frozen=True)
class TitleMenuSpec(Spec):
    """The title menu: its look beyond the pause menu's, and what match setup offers."""

    title: str = tuning("the game's name over the main page")
    title_scale: float = tuning("the title's text height", minimum=0.05, maximum=0.5)
    backdrop_colour: tuple[float, ...] = rgba("the veil over the scene behind the menu")
    focus_colour: tuple[float, ...] = rgba("the outline round the item the keyboard or pad "
                                           "has the focus on")
    focus_thickness_px: float = tuning("that outline's width", minimum=1.0, maximum=8.0)
    maps: tuple[str, ...] = tuning("maps match setup offers (desert, desert:SIZE, flat, "
                                   "slope:DEG)",
                                   length=(1, 16))
    most_bots: int = tuning("match setup offers 0 to this many bots", minimum=1, maximum=32)
    setup_bots: int = tuning("match setup starts with this many (the command line's --bots "
                             "instead, where it asks for some)", minimum=0, maximum=32)
    round_choices: tuple[int, ...] = tuning("match lengths, in rounds, match setup offers",
                                            length=(1, 16))
    name_chars: int = tuning("the name and address fields' width, in characters",
                             minimum=8, maximum=40)
    server_stop_wait_s: float = tuning("a hosted server is given this long to tell its "
                                       "players and stop, then ended", minimum=0.1,
                                       maximum=30.0)
    browser_rows: int = tuning("servers the Find game page shows at once", minimum=1,
                               maximum=12)
    recent_servers_most: int = tuning("servers joined before that the Join page offers",
                                      minimum=1, maximum=32)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.setup_bots > self.most_bots:
            raise SpecError("setup_bots", self.setup_bots,
                            f"at most most_bots ({self.most_bots})")


@dataclass(frozen=True)
class MatchSetup:
    """What the match setup page (and the host page) chose."""

    map: str
    vehicle: str
    bots: int
    difficulty: str
    gearbox: str
    """"automatic" or "manual"."""
    rounds: int
    mode: str = MODES[0]
    """"battle", or "zone": the capture zone decides rounds too (played locally only)."""
    tank: str = ""
    """The tank class (config/tanks/NAME.toml; "": the config's default)."""
    allies: int = 0
    """Bots on the player's side (played only with bots to fight)."""


@dataclass(frozen=True)
class HostRequest:
    """Host game: a server on this machine, on ``port``, and this player in it."""

    setup: MatchSetup
    name: str
    port: int


@dataclass(frozen=True)
class JoinForm:
    """Join game: the server's address as typed, and this player's name, vehicle and
    gearbox (match setup's)."""

    address: str
    name: str
    vehicle: str
    gearbox: str = "automatic"
    tank: str = ""
    """The tank class ("": the config's default)."""


DIFFICULTY_CHOICES = ("easy", "normal", "hard")
VEHICLE_CHOICES = ("tank", "car")
GEARBOX_CHOICES = ("automatic", "manual")


class TitleMenu:
    """The title menu's pages on ``parent`` (aspect2d). ``online``: whether Host game and
    Join game are offered (ENet is there)."""

    def __init__(self, parent, spec: MenuSpec, title: TitleMenuSpec, setup: MatchSetup, *,
                 on_play, on_range, on_host, on_join, on_quit, online: bool,
                 player_name: str, join_address: str, default_port: int, sounds=None,
                 open_page=None, on_page: Callable[[str], None] = lambda name: None,
                 read_servers: Callable | None = None, version: str = "",
                 list_url: str = "", on_list_chosen: Callable[[str], None] = lambda url: None,
                 recent: Sequence[str] = (), tanks: Sequence[str] = ()):
        self.spec, self.title_spec = spec, title
        self.tanks = tuple(tanks)
        """The tank classes offered (none: no Tank row, the config's default is played)."""
        self.sounds = sounds
        self.on_play, self.on_range, self.on_quit = on_play, on_range, on_quit
        self.on_host, self.on_join = on_host, on_join
        self.on_page = on_page
        self.open_page = open_page
        """``open_page(name)`` shows the Settings or Controls page (the pause menu's: one
        of each in the game); None: the title menu offers neither."""
        self.veil = DirectFrame(parent=parent, frameColor=title.backdrop_colour,
                                frameSize=(-4, 4, -2, 2), state=DGG.NORMAL)  # eats clicks
        keep_alpha(self.veil)
        self.pages: dict[str, DirectFrame] = {}
        self.items: dict[str, list] = {}
        """Each page's focusable widgets, top to bottom."""
        self.backs: dict[str, Callable[[], None]] = {}
        self.buttons: dict[str, DirectButton] = {}
        """Every button by page and label ("main/Play"): tests press them."""
        self.status: dict[str, DirectLabel] = {}
        self.focus = MenuFocus(title.focus_colour, title.focus_thickness_px, self.click)
        self.browser: ServerBrowser | None = None
        """The Find game page (online, with a list server to read)."""
        self._build_main_page(online, finds=online and read_servers is not None)
        self.setup_rows = self._build_setup_page(setup)
        if online:
            self._build_host_page(setup, player_name, default_port)
            self._build_join_page(player_name, join_address, setup, list(recent))
            if read_servers is not None:
                self.browser = ServerBrowser(self, title.browser_rows, read_servers, version,
                                             self._picked, list_url, on_list_chosen)
        self.page: str | None = "main"
        """The page shown (None: none, another menu's page is over this one)."""
        self.show_page("main")

    # ----- building -----------------------------------------------------------------------

    def click(self) -> None:
        play_click(self.sounds)

    def _clicked(self, command):
        return with_click(self.sounds, command)

    def _button_style(self, half_width: float) -> dict:
        s = self.spec
        return dict(text_scale=s.text_scale, text_fg=s.text_colour, frameColor=s.button_colour,
                    relief=DGG.FLAT, frameSize=(-half_width, half_width, -0.055, 0.085))

    def button(self, page: str, label: str, command, pos, half_width: float = 0.45):
        widget = DirectButton(parent=self.pages[page], text=label, pos=pos,
                              command=self._clicked(command), **self._button_style(half_width))
        self.buttons[f"{page}/{label}"] = widget
        self.items[page].append(widget)
        return widget

    def add_page(self, name: str, half_width: float, half_height: float,
                 back: Callable[[], None] | None = None) -> DirectFrame:
        """A new page (hidden until shown); ``back`` is what "back" does there (default:
        the main page)."""
        page = DirectFrame(parent=self.veil, frameColor=self.spec.panel_colour,
                           frameSize=(-half_width, half_width, -half_height, half_height))
        self.pages[name] = page
        self.items[name] = []
        self.backs[name] = back or (lambda: self.show_page("main"))
        page.hide()
        return page

    def heading(self, page: str, text: str, z: float, scale: float | None = None) -> None:
        DirectLabel(parent=self.pages[page], text=text, text_fg=self.spec.text_colour,
                    text_scale=scale or self.spec.text_scale * 1.2, frameColor=(0, 0, 0, 0),
                    pos=(0, 0, z))

    def status_line(self, page: str, z: float) -> None:
        self.status[page] = DirectLabel(
            parent=self.pages[page], text="", text_fg=self.spec.text_colour,
            text_scale=self.spec.note_text_scale, frameColor=(0, 0, 0, 0), pos=(0, 0, z),
            text_wordwrap=40)

    def _build_main_page(self, online: bool, finds: bool) -> None:
        self.add_page("main", 0.75, 0.92, back=lambda: None)
        self.heading("main", self.title_spec.title, 0.66, self.title_spec.title_scale)
        entries = [("Play", lambda: self.show_page("setup")),
                   ("Firing range", lambda: self.on_range(self.current_setup()))]
        if finds:
            entries.append(("Find game", self._find))
        if online:
            entries += [("Host game", lambda: self.show_page("host")),
                        ("Join game", lambda: self.show_page("join"))]
        if self.open_page is not None:
            entries += [("Settings", lambda: self.open_page("settings")),
                        ("Controls", lambda: self.open_page("controls"))]
        entries.append(("Quit", self.on_quit))
        spacing = 1.2 / len(entries)
        for row, (label, command) in enumerate(entries):
            self.button("main", label, command, (0, 0, 0.4 - row * spacing))

    def _rows(self, page: str, setup: MatchSetup, top: float, keys: tuple[str, ...]) -> dict:
        """Choice rows for the fields ``keys`` of ``setup``, from ``top`` down."""
        title = self.title_spec
        choices = {"map": title.maps, "vehicle": VEHICLE_CHOICES,
                   "bots": range(title.most_bots + 1), "allies": range(title.most_bots + 1),
                   "difficulty": DIFFICULTY_CHOICES,
                   "gearbox": GEARBOX_CHOICES, "rounds": title.round_choices,
                   "mode": MODES, "tank": self.tanks}
        labels = {"map": "Map", "vehicle": "Vehicle", "bots": "Bots", "allies": "Allies",
                  "difficulty": "Bots' level", "gearbox": "Gearbox", "rounds": "Rounds",
                  "mode": "Mode", "tank": "Tank"}
        rows = {}
        keys = tuple(key for key in keys if key != "tank" or self.tanks)
        for index, key in enumerate(keys):
            rows[key] = ChoiceRow(self.pages[page], self.spec, labels[key], choices[key],
                                  getattr(setup, key), (-0.8, top - index * 0.13),
                                  self._clicked)
            self.items[page].append(rows[key])
        return rows

    def _build_setup_page(self, setup: MatchSetup) -> dict:
        self.add_page("setup", 0.95, 0.9)
        self.heading("setup", "Match setup", 0.72)
        rows = self._rows("setup", setup, 0.5, ("map", "mode", "bots", "allies", "difficulty",
                                                 "vehicle", "tank", "gearbox", "rounds"))
        self.button("setup", "Start", lambda: self.on_play(self.current_setup()),
                    (-0.3, 0, -0.72), 0.25)
        self.button("setup", "Back", lambda: self.show_page("main"), (0.3, 0, -0.72), 0.25)
        return rows

    def _build_host_page(self, setup: MatchSetup, player_name: str, port: int) -> None:
        self.add_page("host", 0.95, 0.9)
        self.heading("host", "Host game", 0.72)
        self.host_name = TextRow(self.pages["host"], self.spec, "Your name", player_name,
                                 (-0.8, 0.5), self.title_spec.name_chars)
        self.host_port = TextRow(self.pages["host"], self.spec, "Port", str(port),
                                 (-0.8, 0.37), self.title_spec.name_chars)
        self.items["host"] += [self.host_name.entry, self.host_port.entry]
        self.host_rows = self._rows("host", setup, 0.24, ("map", "bots", "difficulty",
                                                          "vehicle", "tank"))
        self.status_line("host", -0.45)
        self.button("host", "Start server", self._host, (-0.3, 0, -0.72), 0.3)
        self.button("host", "Back", lambda: self.show_page("main"), (0.35, 0, -0.72), 0.25)

    def _build_join_page(self, player_name: str, address: str, setup: MatchSetup,
                         recent: list[str]) -> None:
        self.add_page("join", 0.95, 0.7)
        self.heading("join", "Join game", 0.52)
        self.join_address = TextRow(self.pages["join"], self.spec, "Server (host:port)",
                                    address, (-0.8, 0.3), self.title_spec.name_chars)
        self.join_name = TextRow(self.pages["join"], self.spec, "Your name", player_name,
                                 (-0.8, 0.17), self.title_spec.name_chars)
        self.items["join"] += [self.join_address.entry, self.join_name.entry]
        self.join_rows = self._rows("join", setup, 0.04, ("vehicle", "tank"))
        self.join_vehicle = self.join_rows["vehicle"]
        self.join_recent: ChoiceRow | None = None
        """The servers joined before, the last first: choosing one fills the address."""
        if recent:
            self.join_recent = ChoiceRow(self.pages["join"], self.spec, "Joined before",
                                         recent, recent[0],
                                         (-0.8, 0.04 - 0.13 * len(self.join_rows)),
                                         self._clicked,
                                         on_change=self.join_address.entry.enterText)
            self.items["join"].append(self.join_recent)
        self.status_line("join", -0.36)
        self.button("join", "Join", self._join, (-0.3, 0, -0.52), 0.25)
        self.button("join", "Back", lambda: self.show_page("main"), (0.3, 0, -0.52), 0.25)

    # ----- what the pages chose ----------------------------------------------------------

    def current_setup(self) -> MatchSetup:
        return MatchSetup(**{key: row.value for key, row in self.setup_rows.items()})

    def _host(self) -> None:
        setup = replace(self.current_setup(),
                        **{key: row.value for key, row in self.host_rows.items()})
        port = self.host_port.value
        if not port.isdigit() or not 0 < int(port) <= 65535:
            self.set_status("host", f"Port {port!r}: expected a number from 1 to 65535")
            return
        self.on_host(HostRequest(setup, self.host_name.value, int(port)))

    def _find(self) -> None:
        """The Find game page, its list read afresh."""
        self.show_page("servers")
        if self.browser is not None:
            self.browser.refresh()

    def _picked(self, server) -> None:
        """A server chosen on the Find game page: its address on the Join page."""
        self.join_address.entry.enterText(server.join_address)
        self.show_page("join")
        self.set_status("join", f"{server.announcement.name}: choose your name and vehicle, "
                                "then Join")

    def _join(self) -> None:
        tank = self.join_rows.get("tank")
        self.on_join(JoinForm(self.join_address.value, self.join_name.value,
                              self.join_vehicle.value, self.current_setup().gearbox,
                              tank.value if tank is not None else ""))

    def set_status(self, page: str, text: str) -> None:
        """A line on ``page`` (host, join): what is happening, or why it failed."""
        if page in self.status:
            self.status[page]["text"] = text

    # ----- showing and moving --------------------------------------------------------------

    @property
    def is_open(self) -> bool:
        return not self.veil.isHidden()

    def show_page(self, name: str) -> None:
        for key, page in self.pages.items():
            (page.show if key == name else page.hide)()
        self.page = name
        self.focus.set_items(self.items.get(name, []))
        self.on_page(name)

    def hide_pages(self) -> None:
        """No page shown (another menu's page is over it); :meth:`show_page` brings one
        back."""
        for page in self.pages.values():
            page.hide()
        self.page = None
        self.focus.set_items([])

    def act(self, action: str) -> None:
        """A menu action from the keyboard or a pad (:mod:`game.input.menu_input`)."""
        if action == "back":
            if self.page is not None:
                self.backs[self.page]()
        else:
            self.focus.act(action)

    def open(self) -> None:
        self.veil.show()
        self.show_page("main")

    def close(self) -> None:
        self.focus.set_items([])
        self.veil.hide()

    def destroy(self) -> None:
        self.focus.destroy()
        self.veil.destroy()
