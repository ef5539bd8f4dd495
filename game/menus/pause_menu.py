"""The pause menu (Esc): resume, restart, settings, controls (and rebinding), quit.
DirectGui.

The app owns the pause itself (the fixed-step clock stops while the menu is
open); this module only draws the pages and sends the app requests
(:mod:`game.menus.requests`): Resume, Restart, ToTitle (Main menu), Quit,
ChangeSettings (a setting changed on the Settings page, :mod:`game.menus.settings_page`:
use it now; its Save writes the user's file through :class:`common.settings.UserSettings`)
and Rebind (a key or pad control rebound on the Controls page,
:mod:`game.menus.controls_page`: use it now). Every button, check box and choice clicks
(the synthesised ``ui_click``) through the game's sound player, ``sounds``.
"""

from __future__ import annotations

from direct.gui.DirectGui import DGG, DirectButton, DirectFrame, DirectLabel

from game.audio.sounds import SoundPlayer
from game.input.bindings import ControlsSpec
from game.input.rebinding import UserBindings
from game.menus.controls_page import ControlsPage
from game.menus.menu_spec import MenuSpec
from game.menus.requests import (ChangeSettings, Quit, Rebind, Restart, Resume, Send,
                                 ToTitle)
from game.menus.settings_page import SettingsPage
from game.menus.widgets import play_click, with_click
from game.view.draw.overlay import keep_alpha


class PauseMenu:
    """``bindings`` (the player's keys and pad controls) and ``key_capture`` (the next key
    pressed, see :mod:`game.menus.controls_page`) make the Controls page rebind them; without
    both it only shows them. ``pad_capture`` reads the next pad button (None: no pads).
    ``display`` (:class:`game.view.display.Display`) offers the Settings page its
    resolutions and says which settings wait for a restart. ``main_menu``: offer the
    title menu (a game with one)."""

    def __init__(self, parent, spec: MenuSpec, settings, controls: ControlsSpec, send: Send,
                 *, sounds: SoundPlayer | None = None, bindings: UserBindings | None = None,
                 key_capture=None, pad_capture=None, display=None, main_menu: bool = False):
        self.spec = spec
        self.settings = settings
        self.sounds = sounds
        self.send = send
        self._leave_to = None
        """Where Back leaves the Settings and Controls pages when the title menu opened them
        (None: this menu's first page)."""
        self.veil = DirectFrame(parent=parent, frameColor=spec.dim_colour,
                                frameSize=(-4, 4, -2, 2), state=DGG.NORMAL)  # eats clicks
        keep_alpha(self.veil)
        self.pages: dict[str, DirectFrame] = {}
        self.buttons: dict[str, DirectButton] = {}
        """Every button by page and label ("main/Resume"): tests press them."""
        button = dict(text_scale=spec.text_scale, text_fg=spec.text_colour,
                      frameColor=spec.button_colour, relief=DGG.FLAT, pad=(0.3, 0.12),
                      frameSize=(-0.45, 0.45, -0.055, 0.085))
        small = {**button, "frameSize": (-0.25, 0.25, -0.055, 0.085)}
        self._build_main_page(button, main_menu)
        self._build_settings_page(small, display)
        self._build_controls_page(controls, bindings, key_capture, pad_capture, small)
        self.is_open = False
        self.close()

    def _build_main_page(self, button: dict, main_menu: bool) -> None:
        """Resume, restart, settings, controls, the title menu (where there is one) and
        quit, one under another."""
        s = self.spec
        main = self._page("main", 0.9, 0.85)
        DirectLabel(parent=main, text="Paused", text_scale=s.text_scale * 1.4,
                    text_fg=s.text_colour, frameColor=(0, 0, 0, 0), pos=(0, 0, 0.62))
        entries = [("Resume", lambda: self.send(Resume())),
                   ("Restart", lambda: self.send(Restart())),
                   ("Settings", lambda: self.show_page("settings")),
                   ("Controls", lambda: self.show_page("controls"))]
        if main_menu:
            entries.append(("Main menu", lambda: self.send(ToTitle())))
        entries.append(("Quit", lambda: self.send(Quit())))
        for row, (label, command) in enumerate(entries):
            self._button(main, "main", label, command, (0, 0, 0.38 - row * 0.19), button)

    def _build_settings_page(self, small: dict, display) -> None:
        """The player's settings (:mod:`game.menus.settings_page`), with Save and Back."""
        page = self._page("settings", *self.spec.settings_page_half_size)
        self.settings_page = SettingsPage(
            page, self.spec, self.settings,
            on_settings=lambda settings: self.send(ChangeSettings(settings)),
            clicked=self._clicked,
            button=lambda label, command, pos: self._button(page, "settings", label, command,
                                                            pos, small),
            on_back=self.back, display=display)

    def _build_controls_page(self, controls: ControlsSpec, bindings, key_capture, pad_capture,
                             small: dict) -> None:
        """Every binding, rebinding the keyboard and the pad (:mod:`game.menus.controls_page`),
        and Back."""
        help_page = self._page("controls", 1.25, 0.92)
        self.controls_page = ControlsPage(
            help_page, self.spec, controls, bindings, key_capture, self.veil,
            clicked=self._clicked, pad_capture=pad_capture,
            on_bindings=lambda keyboard, gamepad: self.send(Rebind(keyboard, gamepad)),
            button=lambda label, command: self._button(help_page, "controls", label, command,
                                                       (-0.3, 0, -0.82), small))
        self._button(help_page, "controls", "Back", self.back,
                     (0.3 if self.controls_page.editable else 0, 0, -0.82), small)

    def _clicked(self, command):
        return with_click(self.sounds, command)

    def click(self) -> None:
        play_click(self.sounds)

    def _button(self, parent, page: str, label: str, command, pos, style: dict) -> None:
        self.buttons[f"{page}/{label}"] = DirectButton(
            parent=parent, text=label, command=self._clicked(command), pos=pos, **style)

    def _page(self, name: str, half_width: float, half_height: float) -> DirectFrame:
        page = DirectFrame(parent=self.veil, frameColor=self.spec.panel_colour,
                           frameSize=(-half_width, half_width, -half_height, half_height))
        self.pages[name] = page
        return page

    @property
    def controls_columns(self) -> list[str]:
        """The Controls page's three columns, as shown."""
        return self.controls_page.columns()

    @property
    def capturing(self) -> bool:
        """The Controls page is waiting for a key or pad button to bind (the game's own
        keys and the pads' Start hold off)."""
        return self.controls_page.capturing

    def poll_pads(self) -> None:
        """Once a frame while open: the pads, for a pad button being bound."""
        self.controls_page.poll_pads()

    def show_page(self, name: str) -> None:
        self.controls_page.cancel()
        if name == "settings":
            self.settings_page.refresh()
        for key, page in self.pages.items():
            (page.show if key == name else page.hide)()
        self.page = name

    def open(self) -> None:
        self._leave_to = None
        self.is_open = True
        self.veil.show()
        self.show_page("main")

    def open_page(self, name: str, leave_to) -> None:
        """Open on the page ``name`` alone (the title menu's Settings and Controls): its
        Back closes this menu and calls ``leave_to()``."""
        self.open()
        self._leave_to = leave_to
        self.show_page(name)

    def back(self) -> None:
        """Esc, the pad's B, a page's Back: the page before (from the first page: resume;
        opened by the title menu: back there)."""
        if self._leave_to is not None:
            leave_to = self._leave_to
            self.close()
            leave_to()
        elif self.page == "main":
            self.send(Resume())
        else:
            self.show_page("main")

    def focus_items(self, page: str) -> list:
        """The widgets the keys and pads move through on ``page``, in order."""
        buttons = [widget for name, widget in self.buttons.items()
                   if name.startswith(page + "/")]
        if page == "settings":
            return [*self.settings_page.widgets, *buttons]
        if page == "controls":
            return [*self.controls_page.focus_items(), *buttons]
        return buttons

    def close(self) -> None:
        self.controls_page.cancel()
        self._leave_to = None
        self.is_open = False
        self.veil.hide()

    def values(self) -> dict:
        """The settings as the Settings page's widgets show them."""
        return self.settings_page.values()

    def refresh_settings(self) -> None:
        """The Settings page shows the settings in use again (changed elsewhere: F11)."""
        self.settings_page.refresh()

    def save(self) -> None:
        """What the Settings page's Save does."""
        self.settings_page.save()

    def destroy(self) -> None:
        self.controls_page.destroy()
        self.veil.destroy()
