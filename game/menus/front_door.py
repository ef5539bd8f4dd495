"""The front door: the title menu and what its choices start (a match against bots, the
firing range, a hosted or joined online game).

:class:`FrontDoor` turns the menu's choices into the app's requests
(:mod:`game.menus.requests`), sent through ``send``: StartMatch, JoinStarted, JoinFailed,
Joined, Quit, and OpenSetup or OpenMain as the pages change; :meth:`FrontDoor.update` runs
once a frame while the menu is open.
Joining a server takes a few frames (:class:`~game.sim.net.client.Joining` is polled, so
the window keeps drawing); hosting first starts a server process (:mod:`game.menus.hosting`)
and then joins it on this machine. The hosted server lives until the game leaves it or
quits.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from game.menus.hosting import HostingFailed
from game.menus.join_history import JoinHistory
from game.menus.requests import (Joined, JoinFailed, JoinStarted, OpenMain, OpenSetup, Quit,
                                 Send, StartMatch)
from game.menus.title_menu import HostRequest, JoinForm, MatchSetup, TitleMenu
from game.sim.net.joining import ConnectionRefused
from game.sim.session import GameOptions
from physics.model.terrain import MapChoice

RANGE_MAP = "range"
LOOPBACK = "127.0.0.1"
ANY_ADDRESS = "0.0.0.0"
SETUP_PAGES = ("setup", "host", "join")
"""The title menu's pages where a game is chosen (the app's MATCH_SETUP)."""


@dataclass(frozen=True)
class OnlineSettings:
    """What joining needs beyond the form: the game's identity and the config's folder."""

    config_dir: object
    default_port: int
    stop_wait_s: float


def options_for(setup: MatchSetup, base: GameOptions) -> GameOptions:
    """A local match's options from match setup (the seed and players as ``base`` has them)."""
    return replace(base, map=MapChoice.parse(setup.map), vehicle=setup.vehicle,
                   tank=setup.tank or None, bots=setup.bots,
                   allies=setup.allies if setup.bots else 0, difficulty=setup.difficulty,
                   gearbox=setup.gearbox, rounds=setup.rounds, mode=setup.mode,
                   free_for_all=False, player_ai=None)


def setup_from(options: GameOptions, difficulty: str, rounds: int, bots: int,
               tank: str = "") -> MatchSetup:
    """Match setup's first values: the command line's options (``difficulty``, ``rounds``,
    ``bots`` and ``tank``: the config's, where the options leave them open; no bots is
    open, since a round needs someone to fight)."""
    return MatchSetup(map=options.map.text, vehicle=options.vehicle or "tank",
                      bots=options.bots or bots, difficulty=options.difficulty or difficulty,
                      gearbox=options.gearbox or "automatic",
                      rounds=options.rounds or rounds, mode=options.mode,
                      tank=options.tank or tank, allies=options.allies)


def parse_address(text: str, default_port: int) -> tuple[str, int]:
    """HOST or HOST:PORT as typed; raises ValueError with what was expected."""
    host, colon, port = text.strip().rpartition(":")
    if not colon:
        host, port = text.strip(), str(default_port)
    if not host or not port.isdigit() or not 0 < int(port) <= 65535:
        raise ValueError(f"{text!r}: expected HOST:PORT, like {LOOPBACK}:{default_port}")
    return host, int(port)


class FrontDoor:
    """The title menu and the games it starts. ``joiner(address, port, name, vehicle, tank)``
    starts joining a server and returns something with ``poll() -> session | None``
    (raising on refusal); ``hoster(arguments)`` starts a server process
    (:class:`game.menus.hosting.HostedServer`). Both None: no online play here."""

    def __init__(self, send: Send, make_menu, base_options: GameOptions, *,
                 online: OnlineSettings | None = None, joiner=None, hoster=None,
                 history: JoinHistory | None = None):
        """``make_menu(**callbacks)`` makes the :class:`TitleMenu` with this front door's
        ``on_play``, ``on_range``, ``on_host``, ``on_join``, ``on_quit`` and ``on_page``;
        ``history``: the servers joined from the Join page, kept (None: not kept)."""
        self.send = send
        self.base_options = base_options
        self.online = online
        self._joiner, self._hoster = joiner, hoster
        self.history = history
        self.joining = None
        self.joining_page = "join"
        self.joining_address = ""
        self.joining_gearbox = "automatic"
        self.hosted = None
        """The server this game started (Host game), while it runs."""
        self._hosting: tuple[HostRequest, object] | None = None
        self.menu: TitleMenu = make_menu(on_play=self.play, on_range=self.firing_range,
                                         on_host=self.host, on_join=self.join,
                                         on_quit=lambda: send(Quit()), on_page=self._on_page)

    def _on_page(self, name: str) -> None:
        self.send(OpenSetup() if name in SETUP_PAGES else OpenMain())

    # ----- local games -------------------------------------------------------------------

    def play(self, setup: MatchSetup) -> None:
        self.send(StartMatch(options_for(setup, self.base_options)))

    def firing_range(self, setup: MatchSetup) -> None:
        self.send(StartMatch(replace(options_for(setup, self.base_options),
                                     map=MapChoice.parse(RANGE_MAP), bots=0)))

    # ----- online games ------------------------------------------------------------------

    def join(self, form: JoinForm) -> None:
        if self.joining is not None:
            return
        try:
            host, port = parse_address(form.address, self.online.default_port)
        except ValueError as error:
            self.menu.set_status("join", str(error))
            return
        self._start_joining("join", host, port, form.name,
                            (form.vehicle, form.tank, form.gearbox))

    def _start_joining(self, page: str, host: str, port: int, name: str,
                       drive: tuple[str, str, str]) -> None:
        """Join as ``name``, ``drive`` being the (vehicle, tank class, gearbox) to play
        with."""
        self.menu.set_status(page, f"Joining {host}:{port} ...")
        self.joining_page = page
        self.joining_address = f"{host}:{port}"
        vehicle, tank, self.joining_gearbox = drive
        try:
            self.joining = self._joiner(host, port, name, vehicle, tank)
        except (OSError, ConnectionRefused) as error:  # ENet could not start: say why
            self._failed(page, f"Could not join: {error}")
            return
        self.send(JoinStarted())

    def host(self, request: HostRequest) -> None:
        if self._hosting is not None or self.joining is not None:
            return
        self.leave_hosted()
        setup = request.setup
        arguments = ["--serve", "--host", ANY_ADDRESS, "--port", str(request.port),
                     "--map", setup.map, "--bots", str(setup.bots),
                     "--difficulty", setup.difficulty, "--rounds", str(setup.rounds),
                     "--config", str(self.online.config_dir)]
        try:
            self.hosted = self._hoster(arguments)
        except OSError as error:
            self.menu.set_status("host", f"Server not started: {error}")
            return
        self._hosting = request, self.hosted
        self.menu.set_status("host", f"Starting a server on port {request.port} ...")
        self.send(JoinStarted())

    def update(self) -> None:
        """Once a frame while the menu is open: a server starting, a join under way."""
        if self._hosting is not None:
            self._poll_hosting()
        if self.joining is not None:
            self._poll_joining()
        if self.menu.browser is not None:
            self.menu.browser.update()

    def _poll_hosting(self) -> None:
        request, server = self._hosting
        try:
            port = server.poll()
        except HostingFailed as error:  # it stopped: its own reason
            self._hosting = None
            self.hosted = None
            self._failed("host", f"Server stopped: {error}")
            return
        if port is not None:
            self._hosting = None
            self._start_joining("host", LOOPBACK, port, request.name,
                                (request.setup.vehicle, request.setup.tank,
                                 request.setup.gearbox))

    def _poll_joining(self) -> None:
        try:
            session = self.joining.poll()
        except ConnectionRefused as error:  # refused, no answer, not a server: say so
            self.joining = None
            if self.joining_page == "host":
                self.leave_hosted()
            self._failed(self.joining_page, str(error))
            return
        if session is not None:
            self.joining = None
            self.menu.set_status(self.joining_page, "")
            if self.joining_page == "join" and self.history is not None:
                self.history.joined(self.joining_address)
            self.send(Joined(session, self.joining_gearbox))

    def _failed(self, page: str, reason: str) -> None:
        """A join or a server that failed: its page says why (shown again if the player
        went on to another meanwhile)."""
        self.send(JoinFailed())
        self.menu.set_status(page, reason)
        if self.menu.page not in (page, None):
            self.menu.show_page(page)

    def leave_hosted(self) -> None:
        """Stop the server this game started (its players are told it ended)."""
        if self.hosted is not None:
            self.hosted.stop()
            self.hosted = None

    def destroy(self) -> None:
        self.leave_hosted()
        self.menu.destroy()


def build_front_door(send: Send, parent, config, run, sounds, open_page=None) -> FrontDoor:
    """The title menu on ``parent`` (aspect2d) and its front door, sending the app its
    requests, in a window on ``config`` started as ``run`` says
    (:class:`game.runs.windowed_run.WindowedRun`): match setup starts from the command line's
    options, online play where ENet is installed."""
    from game.menus.hosting import HostedServer
    from game.menus.server_browser import read_with_pings
    from game.menus.window_join import WindowJoin
    from game.sim.replay import game_version
    from game.sim.net.link import DEFAULT_PORT, enet_available
    view, game = config.view, config.game
    setup = setup_from(run.options, game.ai.difficulty, game.battle.rounds,
                       view.title_menu.setup_bots, game.spawn.tank)
    online = enet_available()

    history = JoinHistory(view.title_menu.recent_servers_most)

    def make_menu(**callbacks) -> TitleMenu:
        return TitleMenu(parent, view.menu, view.title_menu, setup, **callbacks,
                         recent=history.addresses, tanks=tuple(config.tanks),
                         online=online, player_name=run.options.player_name,
                         join_address=(history.addresses[0] if history.addresses
                                       else f"{LOOPBACK}:{DEFAULT_PORT}"),
                         default_port=DEFAULT_PORT, sounds=sounds, open_page=open_page,
                         read_servers=read_with_pings(game.listing.verify_timeout_s),
                         list_url=run.list_url or history.list_url or game.listing.url,
                         on_list_chosen=lambda url: history.chose_list(
                             None if url == game.listing.url else url),
                         version=game_version())

    settings = OnlineSettings(run.config_dir, DEFAULT_PORT, view.title_menu.server_stop_wait_s)
    return FrontDoor(
        send, make_menu, run.options, online=settings if online else None,
        joiner=lambda host, port, name, vehicle, tank: WindowJoin(
            config, run.config_dir, host, port, name, vehicle, tank or None),
        hoster=lambda arguments: HostedServer(arguments, settings.stop_wait_s),
        history=history)
