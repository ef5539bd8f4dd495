"""Every menu of a game in a window, and where the menu keys and pad buttons go: the title
menu (with its front door, :mod:`game.menus.front_door`), the pause menu, the end-of-match
screen and the first-run help card, for :class:`game.app.TankBattleApp`.

The pages send the app requests (:mod:`game.menus.requests`) and write nothing of it; the
app's state machine (:mod:`game.app_states`) decides, and the app opens and closes the
pages through :class:`Menus`.

Which menus exist depends on who is there: a person at the window gets them all; a
scripted or offscreen run gets none, except the title menu when ``--menu`` asks for it.
At most one takes the menu keys at a time (:attr:`Menus.front`): the pause menu (over any
other), else the title menu, else the end-of-match screen, else the help card.
"""

from __future__ import annotations

from direct.showbase.DirectObject import DirectObject

from game.input.menu_input import MenuKeys, PadMenuReader
from game.menus.focus import MenuFocus
from game.menus.requests import DismissHelp, MatchEnded, NextMatch, Request, Send, ToTitle
from game.sim.events import Event, MatchEnd, RoundStart


class Menus:
    """The menus on ``parent`` (the window's aspect2d). Every page sends its requests to
    the app through ``send`` (:mod:`game.menus.requests`); the app carries out what its
    state machine takes, opening and closing the pages through the methods below."""

    def __init__(self, parent, config, run, send: Send, *, settings, bindings, sounds, pads,
                 key_capture, display=None):
        from game.menus.front_door import build_front_door  # DirectGUI: only with a menu
        self.send = send
        view, controls = config.view, config.controls
        self.settings = settings
        # A person at the window gets every menu; a scripted run only --menu's title menu
        # (and what it opens), to be looked at.
        everything = run.menu or not run.scripted
        self.front_door = (build_front_door(send, parent, config, run, sounds, self.open_page)
                           if everything else None)
        self.pause_menu = self.match_end = self.help_card = None
        if everything:
            self._build_person_menus(parent, config, settings, bindings, sounds, pads,
                                     key_capture, display)
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

    def _build_person_menus(self, parent, config, settings, bindings, sounds, pads,
                            key_capture, display) -> None:
        from game.input.pad_input import PadButtonCapture
        from game.menus.help_card import HelpCard
        from game.menus.match_end_screen import MatchEndScreen
        from game.menus.pause_menu import PauseMenu
        view, send = config.view, self.send
        self.pause_menu = PauseMenu(
            parent, view.menu, settings, config.controls, send, sounds=sounds,
            bindings=bindings, key_capture=key_capture, pad_capture=PadButtonCapture(pads),
            display=display, main_menu=self.front_door is not None)
        self.match_end = MatchEndScreen(parent, view.match_end, send, sounds=sounds)
        self.help_card = HelpCard(parent, view.menu, config.controls, send)

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
            self.send(ToTitle())
        elif front is self.help_card:
            self.send(DismissHelp())
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

    # ----- what the game asks of the app ------------------------------------------------

    def requests_for(self, events: list[Event], session) -> list[Request]:
        """What a step's events ask of the app: the end screen when the match ended (the
        player's side's column first); online, closed when the server's next begins."""
        if self.match_end is None:
            return []
        player = session.simulation.player
        free_for_all = session.battle.free_for_all and player is not None
        requests: list[Request] = []
        for event in events:
            if isinstance(event, MatchEnd):
                return requests + [MatchEnded(event, player.name if free_for_all else "player")]
            if isinstance(event, RoundStart):
                requests.append(NextMatch())
        return requests

    # ----- what the app opens and closes ------------------------------------------------

    @property
    def help_due(self) -> bool:
        """A new player's first match: the help card shows, until they dismiss it."""
        return self.help_card is not None and not self.settings.current.help_seen

    @property
    def help_shown(self) -> bool:
        return self.help_card is not None and self.help_card.shown

    def hide_help(self) -> None:
        """The help card away, and remembered as seen (not saved: it shows again next
        time, nothing worse)."""
        if self.help_card is not None:
            self.help_card.hide()
        if not self.settings.current.help_seen:
            self.settings.change(help_seen=True)
            try:
                self.settings.save()
            except OSError:
                pass

    def open_title(self) -> None:
        """The title menu opens (a server this game hosted stops)."""
        self.close_all()
        self.front_door.leave_hosted()
        self.front_door.menu.open()

    def close_title(self) -> None:
        self.close_all()
        self.front_door.menu.close()

    def say_game_ended(self, reason: str) -> None:
        """On the title menu's Join page: why the online game ended."""
        self.front_door.menu.show_page("join")
        self.front_door.menu.set_status("join", f"The game ended: {reason}")

    def refresh_settings(self) -> None:
        """The Settings page shows the settings in use (changed elsewhere: F11)."""
        if self.pause_menu is not None:
            self.pause_menu.refresh_settings()

    def close_all(self) -> None:
        """The game goes on: no end screen, no pause menu, no help card over it."""
        if self.match_end is not None:
            self.match_end.hide()
        if self.help_card is not None:
            self.help_card.hide()
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
