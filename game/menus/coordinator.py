"""Every menu of a game in a window, and where the menu keys and pad buttons go: the title
menu (with its front door, :mod:`game.menus.front_door`), the pause menu, the end-of-match
screen and the first-run help card, for :class:`game.app.TankBattleApp`.

Which menus exist depends on who is there: a person at the window gets them all; a
scripted or offscreen run gets none, except the title menu when ``--menu`` asks for it.
At most one takes the menu keys at a time (:attr:`Menus.front`): the title menu, else the
end-of-match screen, else the pause menu. The help card sits over the game and leaves
the keys to it.
"""

from __future__ import annotations

from dataclasses import replace

from direct.showbase.DirectObject import DirectObject

from game.input.menu_input import MenuKeys, PadMenuReader
from game.menus.focus import MenuFocus
from game.sim.events import Event, MatchEnd, RoundStart


class Menus:
    """``app`` gives the callbacks (``resume``, ``restart_game``, ``finish``,
    ``apply_settings``, ``apply_bindings``, ``show_title``, ``pause``) and the
    window's 2-D layer."""

    def __init__(self, app, config, run, *, settings, bindings, sounds, pads, key_capture,
                 display=None):
        from game.menus.front_door import build_front_door  # DirectGUI: only with a menu
        self.app = app
        view, controls = config.view, config.controls
        self.settings = settings
        # A person at the window gets every menu; a scripted run only --menu's title menu
        # (and what it opens), to be looked at.
        everything = run.menu or not run.scripted
        self.config = config
        self.front_door = (build_front_door(self, app.aspect2d, config, run, sounds,
                                            self.open_page) if everything else None)
        self.pause_menu = self.match_end = self.help_card = None
        if everything:
            self._build_person_menus(config, settings, bindings, sounds, pads, key_capture,
                                     display)
        self.focus = MenuFocus(view.title_menu.focus_colour,
                               view.title_menu.focus_thickness_px,
                               self.pause_menu.click if self.pause_menu else lambda: None)
        self._focused: tuple | None = None
        self.navigation = controls.menu_navigation
        self._shown_at_frame_start = None
        """The menu in front when this frame began: a key pressed this frame answers to it
        (so the Esc that opens the pause menu does not also close it, whichever of the
        game's keys and the menu's keys hears it first)."""
        self.keys = MenuKeys(DirectObject(), controls.menu_navigation, self.action,
                             active=lambda: self._shown_at_frame_start is not None)
        self.pad_reader = PadMenuReader(pads, controls.menu_navigation) if pads else None
        if self.front_door is not None:
            (self.front_door.menu.open if run.menu else self.front_door.menu.close)()

    def _build_person_menus(self, config, settings, bindings, sounds, pads, key_capture,
                            display) -> None:
        from game.input.pad_input import PadButtonCapture
        from game.menus.help_card import HelpCard
        from game.menus.match_end_screen import MatchEndScreen
        from game.menus.pause_menu import PauseMenu
        app, view = self.app, config.view
        self.pause_menu = PauseMenu(
            app.aspect2d, view.menu, settings, config.controls, on_resume=app.resume,
            on_restart=app.restart_game, on_quit=app.finish, on_settings=app.apply_settings,
            sounds=sounds, bindings=bindings, key_capture=key_capture,
            pad_capture=PadButtonCapture(pads), on_bindings=app.apply_bindings,
            display=display, on_main_menu=app.show_title if self.front_door else None)
        self.match_end = MatchEndScreen(app.aspect2d, view.match_end,
                                        on_rematch=self._rematch, on_menu=self._to_title,
                                        sounds=sounds)
        self.help_card = HelpCard(app.aspect2d, view.menu, config.controls,
                                  on_dismiss=self._help_dismissed)

    # ----- which menu has the keys ---------------------------------------------------------

    @property
    def title_open(self) -> bool:
        return self.front_door is not None and self.front_door.menu.is_open

    @property
    def front(self):
        """The menu the keys and pads move through now (None: none is shown)."""
        if self.pause_menu is not None and self.pause_menu.is_open:
            return self.pause_menu
        if self.title_open:
            return self.front_door.menu
        if self.match_end is not None and self.match_end.is_open:
            return self.match_end
        if self.help_card is not None and self.help_card.shown:
            return self.help_card
        return None

    @property
    def capturing(self) -> bool:
        """The Controls page waits for a key or pad button to bind (Esc cancels it)."""
        return self.pause_menu is not None and self.pause_menu.capturing

    def action(self, action: str) -> None:
        """A menu key or pad button: it moves through the menu in front."""
        front = self.front
        if front is None or self.capturing:
            return
        if hasattr(front, "act"):  # a menu with its own focus (the title menu)
            front.act(action)
            return
        self._refocus(front)
        if action == "back":
            self._back(front)
        else:
            self.focus.act(action)

    def _back(self, front) -> None:
        if front is self.match_end:
            self._to_title()
        elif front is self.help_card:
            self.help_card.dismiss()
        else:
            front.back()

    def open_page(self, name: str) -> None:
        """The title menu's Settings or Controls: the pause menu's page, whose Back
        returns to the title menu."""
        title = self.front_door.menu  # stays open under it: the game stays stopped
        title.hide_pages()
        self.pause_menu.open_page(name, leave_to=lambda: title.show_page("main"))

    def _refocus(self, front) -> None:
        """Hand the focus the items of the page now shown, when it changed."""
        page = getattr(front, "page", None)
        if self._focused != (front, page):
            self._focused = (front, page)
            self.focus.set_items(focus_items(front, page))

    def takes_key(self, key: str) -> bool:
        """Whether the menu in front answers ``key`` (the game's own keys leave it)."""
        return self._shown_at_frame_start is not None and key in self.navigation.keys()

    def poll(self, frame_s: float) -> None:
        """Once a frame: the pads' menu buttons, a join or a hosted server under way."""
        self._shown_at_frame_start = self.front
        if self.pad_reader is not None and self.front is not None:
            for action in self.pad_reader.poll(frame_s):
                self.action(action)
        front = self.front
        if front is not None and not hasattr(front, "act"):
            self._refocus(front)
        elif front is None and self._focused is not None:
            self._focused = None
            self.focus.set_items([])
        if self.title_open:
            self.front_door.update()

    # ----- events and the help card ------------------------------------------------------

    def on_events(self, events: list[Event], session) -> bool:
        """The match ended: its screen opens, the player's side's column first (True: a
        local game stops for it). Online, the server's next match closes it."""
        if self.match_end is None:
            return False
        player = session.simulation.player
        free_for_all = getattr(session.battle, "free_for_all", False)
        side = player.name if free_for_all and player is not None else "player"
        for event in events:
            if isinstance(event, MatchEnd):
                self.match_end.show(event, side)
                return True
            if isinstance(event, RoundStart) and self.match_end.is_open:
                self.match_end.hide()
        return False

    # ----- the title menu's games ---------------------------------------------------------

    def start_local(self, options) -> None:
        """A match the title menu set up, in place of what runs now (the menu closes)."""
        from game.sim.session import GameSession
        self.app.replace_session(GameSession(self.config.session, options,
                                             self.app.new_recorder(options)))
        self._close_title()

    def start_online(self, session, gearbox: str) -> None:
        """A server's game, joined from the title menu (the menu closes), driven with
        match setup's ``gearbox``."""
        self.app.player_gearbox = gearbox
        self.app.replace_session(session)
        self._close_title()

    def finish(self) -> None:
        """The title menu's Quit."""
        self.app.finish()

    def show_title(self) -> None:
        """The title menu over the player's vehicle standing alone on the map: the game
        that ran ends (a hosted server stops)."""
        from game.sim.session import GameSession
        options = self.app.session.options
        backdrop = replace(options, bots=0, vehicle=options.vehicle or "tank",
                           free_for_all=False, player_ai=None)
        self.app.replace_session(GameSession(self.config.session, backdrop))
        self.front_door.leave_hosted()
        self.front_door.menu.open()
        self.app.show_huds(False)
        self.app.paused = True

    def _close_title(self) -> None:
        self.close_all()
        self.app.show_huds(True)
        self.front_door.menu.close()
        self.app.paused = False
        self.match_started()

    def say_game_ended(self, gone) -> None:
        """On the title menu's Join page: why the online game ended."""
        self.front_door.menu.show_page("join")
        self.front_door.menu.set_status("join", f"The game ended: {gone}")

    def match_started(self) -> None:
        """A new player's first match: the help card, until they dismiss it."""
        if self.help_card is not None and not self.settings.current.help_seen:
            self._show_help()

    def toggle_help(self) -> None:
        """F1: the help card over the game (a local game waits for it), or away."""
        if self.help_card is None:
            return
        if self.help_card.shown:
            self.help_card.dismiss()
        elif self.front is None:
            self._show_help()

    def _show_help(self) -> None:
        self.help_card.show()
        if not self.app.online:
            self.app.paused = True

    def _help_dismissed(self) -> None:
        if self.front is None:
            self.app.paused = False
        if not self.settings.current.help_seen:
            self.settings.change(help_seen=True)
            try:
                self.settings.save()
            except OSError:  # not remembered: it shows again next time, nothing worse
                pass

    def _rematch(self) -> None:
        self.match_end.hide()
        self.app.restart_game()

    def _to_title(self) -> None:
        if self.match_end is not None:
            self.match_end.hide()
        self.app.show_title()

    def close_all(self) -> None:
        """The game goes on: no end screen, no pause menu, no help card over it."""
        if self.match_end is not None:
            self.match_end.hide()
        if self.help_card is not None:
            self.help_card.dismiss()
        if self.pause_menu is not None:
            self.pause_menu.close()

    def destroy(self) -> None:
        self.keys.destroy()
        self.focus.destroy()
        for menu in (self.front_door, self.pause_menu, self.match_end, self.help_card):
            if menu is not None:
                menu.destroy()


def focus_items(front, page) -> list:
    """The widgets keys and pads move through on ``front``'s ``page``: its buttons (and,
    on a page that lists them, its other widgets) in their order."""
    if hasattr(front, "focus_items"):
        return list(front.focus_items(page))
    prefix = f"{page}/" if page is not None else ""
    return [widget for name, widget in front.buttons.items() if name.startswith(prefix)]
