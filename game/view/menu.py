"""The pause menu (Esc): resume, restart, settings, controls (and rebinding), quit.
DirectGui.

The app owns the pause itself (the fixed-step clock stops while the menu is
open); this module only draws the pages and calls back:
``on_resume()``, ``on_restart()``, ``on_quit()``, ``on_settings(settings)`` (a
setting changed: apply it now), ``on_bindings(keyboard, gamepad)`` (a key or pad control
was rebound on the Controls page, :mod:`game.view.controls_page`: use it now) and the settings
page's Save writes
the user's file through :class:`game.settings.UserSettings`. Every button, check box and
choice clicks (the synthesised ``ui_click``) through the game's sound player, ``sounds``.
"""

from __future__ import annotations

from direct.gui.DirectGui import (DGG, DirectButton, DirectCheckButton, DirectFrame, DirectLabel,
                                  DirectOptionMenu, DirectSlider)
from panda3d.core import TextNode

from game.audio.sounds import UI_CLICK, SoundPlayer
from game.input.bindings import ControlsSpec
from game.input.rebinding import UserBindings
from game.settings import QUALITY_LEVELS
from game.view.controls_page import ControlsPage
from game.view.menu_spec import MenuSpec
from game.view.overlay import keep_alpha


class PauseMenu:
    """``bindings`` (the player's keys and pad controls) and ``key_capture`` (the next key
    pressed, see :mod:`game.view.controls_page`) make the Controls page rebind them; without
    both it only shows them. ``pad_capture`` reads the next pad button (None: no pads)."""

    def __init__(self, parent, spec: MenuSpec, settings, controls: ControlsSpec, *,
                 on_resume, on_restart, on_quit, on_settings, sounds: SoundPlayer | None = None,
                 bindings: UserBindings | None = None, key_capture=None, pad_capture=None,
                 on_bindings=lambda keyboard, gamepad: None):
        self.spec = spec
        self.settings = settings
        self.sounds = sounds
        self.on_resume, self.on_restart, self.on_quit = on_resume, on_restart, on_quit
        self.on_settings = on_settings
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
        self._build_main_page(button)
        self._build_settings_page(small)
        self._build_controls_page(controls, bindings, key_capture, pad_capture, on_bindings,
                                  small)
        self._update_labels()
        self.is_open = False
        self.close()

    def _build_main_page(self, button: dict) -> None:
        """Resume, restart, settings, controls and quit, one under another."""
        s = self.spec
        main = self._page("main", 0.9, 0.75)
        DirectLabel(parent=main, text="Paused", text_scale=s.text_scale * 1.4,
                    text_fg=s.text_colour, frameColor=(0, 0, 0, 0), pos=(0, 0, 0.55))
        for row, (label, command) in enumerate((
                ("Resume", self._resume), ("Restart", self._restart),
                ("Settings", lambda: self.show_page("settings")),
                ("Controls", lambda: self.show_page("controls")), ("Quit", self.on_quit))):
            self._button(main, "main", label, command, (0, 0, 0.3 - row * 0.2), button)

    def _build_settings_page(self, small: dict) -> None:
        """The player's settings, a status line (saved, or why not) and Save and Back."""
        s = self.spec
        page = self._page("settings", 1.1, 0.85)
        DirectLabel(parent=page, text="Settings", text_scale=s.text_scale * 1.2,
                    text_fg=s.text_colour, frameColor=(0, 0, 0, 0), pos=(0, 0, 0.68))
        self._build_settings_widgets(page)
        self.status = DirectLabel(parent=page, text="", text_scale=s.text_scale * 0.55,
                                  text_fg=s.text_colour, frameColor=(0, 0, 0, 0),
                                  pos=(0, 0, -0.48), text_wordwrap=34)
        self._button(page, "settings", "Save", self.save, (-0.3, 0, -0.68), small)
        self._button(page, "settings", "Back", lambda: self.show_page("main"), (0.3, 0, -0.68),
                     small)
        if self.settings.warning:
            self.status["text"] = self.settings.warning

    def _build_settings_widgets(self, page) -> None:
        """Volume and field of view sliders, the mouse's inversions, graphics quality; each
        change applies at once (:meth:`_changed`)."""
        s = self.spec
        current = self.settings.current
        label = dict(text_scale=s.text_scale * 0.8, text_fg=s.text_colour,
                     frameColor=(0, 0, 0, 0), text_align=TextNode.ALeft)
        DirectLabel(parent=page, text="Volume", pos=(-0.95, 0, 0.45), **label)
        self.volume = DirectSlider(parent=page, range=(0.0, 1.0), value=current.volume,
                                   pageSize=0.1, scale=0.45, pos=(0.4, 0, 0.47),
                                   command=self._changed)
        DirectLabel(parent=page, text="Field of view", pos=(-0.95, 0, 0.27), **label)
        low, high = s.field_of_view_limits_deg
        self.fov = DirectSlider(parent=page, range=(low, high),
                                value=min(max(current.field_of_view_deg, low), high),
                                pageSize=5.0, scale=0.45, pos=(0.4, 0, 0.29),
                                command=self._changed)
        self.fov_label = DirectLabel(parent=page, text="", pos=(0.92, 0, 0.27), **label)
        check = dict(scale=s.text_scale * 0.8, text_fg=s.text_colour, text_align=TextNode.ALeft,
                     frameColor=(0, 0, 0, 0), boxPlacement="left",
                     command=self._clicked(self._changed))
        self.invert_x = DirectCheckButton(parent=page, text="Invert mouse left/right",
                                          indicatorValue=int(current.invert_x),
                                          pos=(-0.6, 0, 0.08), **check)
        self.invert_y = DirectCheckButton(parent=page, text="Invert mouse up/down",
                                          indicatorValue=int(current.invert_y),
                                          pos=(-0.6, 0, -0.08), **check)
        DirectLabel(parent=page, text="Graphics quality", pos=(-0.95, 0, -0.27), **label)
        self.quality = DirectOptionMenu(parent=page, items=list(QUALITY_LEVELS),
                                        initialitem=QUALITY_LEVELS.index(current.quality),
                                        scale=s.text_scale * 0.9, pos=(0.1, 0, -0.27),
                                        command=self._clicked(self._changed))

    def _build_controls_page(self, controls: ControlsSpec, bindings, key_capture, pad_capture,
                             on_bindings, small: dict) -> None:
        """Every binding, rebinding the keyboard and the pad (:mod:`game.view.controls_page`),
        and Back."""
        help_page = self._page("controls", 1.25, 0.92)
        self.controls_page = ControlsPage(
            help_page, self.spec, controls, bindings, key_capture, self.veil,
            clicked=self._clicked, on_bindings=on_bindings, pad_capture=pad_capture,
            button=lambda label, command: self._button(help_page, "controls", label, command,
                                                       (-0.3, 0, -0.82), small))
        self._button(help_page, "controls", "Back", lambda: self.show_page("main"),
                     (0.3 if self.controls_page.editable else 0, 0, -0.82), small)

    def _clicked(self, command):
        """``command`` with a click first (it takes whatever the widget passes)."""
        def click_then(*args):
            self.click()
            command(*args)
        return click_then

    def click(self) -> None:
        if self.sounds is not None:
            self.sounds.play(UI_CLICK, None)

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
        for key, page in self.pages.items():
            (page.show if key == name else page.hide)()
        self.page = name

    def open(self) -> None:
        self.is_open = True
        self.veil.show()
        self.show_page("main")

    def close(self) -> None:
        self.controls_page.cancel()
        self.is_open = False
        self.veil.hide()

    def _resume(self) -> None:
        self.on_resume()

    def _restart(self) -> None:
        self.on_restart()

    def values(self) -> dict:
        """The settings as the widgets show them."""
        return {"volume": round(float(self.volume["value"]), 3),
                "field_of_view_deg": round(float(self.fov["value"]), 1),
                "invert_x": bool(self.invert_x["indicatorValue"]),
                "invert_y": bool(self.invert_y["indicatorValue"]),
                "quality": self.quality.get()}

    def _update_labels(self) -> None:
        self.fov_label["text"] = f"{float(self.fov['value']):.0f} deg"

    def _changed(self, *_args) -> None:
        if not hasattr(self, "quality"):  # widgets still being made
            return
        self._update_labels()
        current = self.settings.change(**self.values())
        self.on_settings(current)

    def save(self) -> None:
        try:
            self.settings.change(**self.values())
            self.settings.save()
            self.status["text"] = f"Saved to {self.settings.path}"
        except OSError as error:
            self.status["text"] = f"Not saved: {error.strerror or error}"

    def destroy(self) -> None:
        self.controls_page.destroy()
        self.veil.destroy()
