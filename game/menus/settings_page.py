"""The Settings page: the player's own settings, on a frame a menu gives it (the pause
menu's, :mod:`game.menus.pause_menu`, or a title menu's). DirectGui.

Two columns: sound and view on the left (the master, effects and engine volumes, the
field of view, the mouse's inversions, the compact HUD), the display on the right
(fullscreen, resolution, vsync, graphics quality, and a note naming what applies only
on the next start). Under them a status line (saved, or why not) and Save and Back.

Every change applies at once through ``on_settings(current)`` (a ``UserSettingsSpec``);
Save writes the player's file through :class:`common.settings.UserSettings`.
"""

from __future__ import annotations

from direct.gui.DirectGui import DGG, DirectCheckButton, DirectLabel, DirectOptionMenu, DirectSlider
from panda3d.core import TextNode

from common.settings import AUTO_RESOLUTION, QUALITY_LEVELS, UserSettings
from game.menus.menu_spec import MenuSpec

TITLE_BELOW_TOP = 0.15
"""The page's title, under the page's top edge (the rows start at ``settings_first_row_z``)."""
SLIDER_LIFT = 0.35
"""A slider's centre above its row's text baseline, in text heights (level with the
text's middle)."""
VALUE_GAP = 0.04
"""From a slider's right end to the value it shows."""
CHECK_INDENT = 0.08
"""From a column's left edge to a check box's text (the box sits in this gap)."""
CHECK_BOX_BORDER = 0.3
"""Space round a check box, in text heights: the box clear of its text."""
BUTTONS_ABOVE_BOTTOM = 0.12
BUTTONS_X = 0.3
"""Save and Back: above the page's bottom edge, Save left of the middle, Back right."""
STATUS_ABOVE_BUTTONS = 0.19
"""The status line, over Save and Back."""
RESTART_NOTE = "Applies on the next start: {}."


class SettingsPage:
    """The settings widgets on ``frame``. ``clicked(command)`` wraps a widget's command with
    the menu's click; ``button(label, command, pos)`` makes one of the menu's own buttons on
    this page; ``on_back()`` leaves the page. ``display`` (a :class:`game.view.display.Display`
    or anything with ``resolutions()`` and ``needs_restart(settings)``) offers the
    resolutions and says what waits for a restart; without one the page offers only
    "auto" (and the saved resolution) and names nothing."""

    def __init__(self, frame, spec: MenuSpec, settings: UserSettings, *, on_settings, clicked,
                 button, on_back, display=None):
        self.spec = spec
        self.settings = settings
        self.on_settings = on_settings
        self.display = display
        self._ready = False
        s = spec
        self._label = dict(text_scale=s.settings_text_scale, text_fg=s.text_colour,
                           frameColor=(0, 0, 0, 0), text_align=TextNode.ALeft)
        top, bottom = s.settings_page_half_size[1], -s.settings_page_half_size[1]
        DirectLabel(parent=frame, text="Settings", text_scale=s.text_scale * 1.2,
                    text_fg=s.text_colour, frameColor=(0, 0, 0, 0),
                    pos=(0, 0, top - TITLE_BELOW_TOP))
        self._build_sound_and_view(frame, clicked)
        self._build_display(frame, clicked)
        buttons_z = bottom + BUTTONS_ABOVE_BOTTOM
        self.status = DirectLabel(parent=frame, text="",
                                  pos=(0, 0, buttons_z + STATUS_ABOVE_BUTTONS),
                                  text_wordwrap=-2.0 * s.settings_columns_x[0] / s.note_text_scale,
                                  **{**self._label, "text_align": TextNode.ACenter,
                                     "text_scale": s.note_text_scale})
        """Where the settings were saved, or why not (or why the file was not read); it
        wraps within the left column's margins."""
        button("Save", self.save, (-BUTTONS_X, 0, buttons_z))
        button("Back", on_back, (BUTTONS_X, 0, buttons_z))
        if settings.warning:
            self.status["text"] = settings.warning
        self._ready = True
        self._update_labels()

    # ----- building ----------------------------------------------------------------------

    def _row(self, column: int, row: int) -> tuple[float, float]:
        """The left edge and text baseline of a row of a column."""
        s = self.spec
        return s.settings_columns_x[column], s.settings_first_row_z - row * s.settings_row_spacing

    def _slider(self, frame, row: int, text: str, value: float, value_range) -> tuple:
        """A labelled slider in the left column, and the label that shows its value."""
        s = self.spec
        x, z = self._row(0, row)
        DirectLabel(parent=frame, text=text, pos=(x, 0, z), **self._label)
        low, high = value_range
        centre_x = x + s.settings_label_width + s.settings_slider_width / 2.0
        lift = SLIDER_LIFT * s.settings_text_scale
        slider = DirectSlider(parent=frame, range=(low, high),
                              value=min(max(value, low), high), pageSize=(high - low) / 10.0,
                              scale=s.settings_slider_width / 2.0, pos=(centre_x, 0, z + lift),
                              command=self._changed)
        shown = DirectLabel(parent=frame, text="", pos=(
            x + s.settings_label_width + s.settings_slider_width + VALUE_GAP, 0, z),
            **self._label)
        return slider, shown

    def _check(self, frame, clicked, column: int, row: int, text: str, value: bool):
        x, z = self._row(column, row)
        return DirectCheckButton(parent=frame, text=text, indicatorValue=int(value),
                                 scale=self.spec.settings_text_scale, text_fg=self.spec.text_colour,
                                 text_align=TextNode.ALeft, frameColor=(0, 0, 0, 0),
                                 boxPlacement="left", boxBorder=CHECK_BOX_BORDER,
                                 pos=(x + CHECK_INDENT, 0, z),
                                 command=clicked(self._changed))

    def _choice(self, frame, clicked, row: int, text: str, items: list[str], current: str):
        """A labelled drop-down list in the right column."""
        s = self.spec
        x, z = self._row(1, row)
        DirectLabel(parent=frame, text=text, pos=(x, 0, z), **self._label)
        return DirectOptionMenu(parent=frame, items=items, initialitem=items.index(current),
                                scale=s.settings_text_scale, pos=(x + s.settings_label_width, 0, z),
                                text_fg=s.text_colour, frameColor=s.button_colour,
                                relief=DGG.FLAT, item_text_fg=s.text_colour,
                                item_frameColor=s.panel_colour, item_relief=DGG.FLAT,
                                highlightColor=s.key_cell_colour,
                                command=clicked(self._changed))

    def _build_sound_and_view(self, frame, clicked) -> None:
        """The left column: three volumes, the field of view, the mouse, the HUD."""
        current = self.settings.current
        self.master_volume, self.master_label = self._slider(
            frame, 0, "Master volume", current.master_volume, (0.0, 1.0))
        self.effects_volume, self.effects_label = self._slider(
            frame, 1, "Effects volume", current.effects_volume, (0.0, 1.0))
        self.engine_volume, self.engine_label = self._slider(
            frame, 2, "Engine volume", current.engine_volume, (0.0, 1.0))
        self.fov, self.fov_label = self._slider(
            frame, 3, "Field of view", current.field_of_view_deg,
            self.spec.field_of_view_limits_deg)
        self.invert_x = self._check(frame, clicked, 0, 4, "Invert mouse left/right",
                                    current.invert_x)
        self.invert_y = self._check(frame, clicked, 0, 5, "Invert mouse up/down",
                                    current.invert_y)
        self.hud_compact = self._check(frame, clicked, 0, 6, "Compact HUD", current.hud_compact)

    def _build_display(self, frame, clicked) -> None:
        """The right column: fullscreen, resolution, vsync, quality, the restart note."""
        current = self.settings.current
        self.fullscreen = self._check(frame, clicked, 1, 0, "Fullscreen (F11)",
                                      current.fullscreen)
        self.resolution = self._choice(frame, clicked, 1, "Resolution",
                                       self.resolution_items(current.resolution),
                                       current.resolution)
        self.vsync = self._check(frame, clicked, 1, 2, "Vsync", current.vsync)
        self.quality = self._choice(frame, clicked, 3, "Graphics quality", list(QUALITY_LEVELS),
                                    current.quality)
        x, z = self._row(1, 4)
        self.restart_note = DirectLabel(parent=frame, text="", pos=(x, 0, z),
                                        text_wordwrap=self._note_wrap(), **{
                                            **self._label,
                                            "text_scale": self.spec.note_text_scale,
                                            "text_fg": self.spec.key_colour})
        """Which of the settings shown apply only on the next start (empty: none)."""

    def _note_wrap(self) -> float:
        """The restart note wraps at the page's right edge (in text heights)."""
        s = self.spec
        width = s.settings_page_half_size[0] - s.settings_columns_x[1]
        return width / s.note_text_scale

    def resolution_items(self, current: str) -> list[str]:
        """"auto", then the display's resolutions (and the saved one, if the display does
        not list it)."""
        offered = list(self.display.resolutions()) if self.display is not None else []
        items = [AUTO_RESOLUTION, *offered]
        return items if current in items else [*items, current]

    @property
    def widgets(self) -> list:
        """The page's widgets in reading order (the left column, then the right): what a
        menu with keyboard and pad focus steps through (Save and Back are the menu's own)."""
        return [self.master_volume, self.effects_volume, self.engine_volume, self.fov,
                self.invert_x, self.invert_y, self.hud_compact, self.fullscreen,
                self.resolution, self.vsync, self.quality]

    # ----- the settings ------------------------------------------------------------------

    def values(self) -> dict:
        """The settings as the widgets show them."""
        def share(slider) -> float:
            return round(float(slider["value"]), 3)
        return {"master_volume": share(self.master_volume),
                "effects_volume": share(self.effects_volume),
                "engine_volume": share(self.engine_volume),
                "field_of_view_deg": round(float(self.fov["value"]), 1),
                "invert_x": bool(self.invert_x["indicatorValue"]),
                "invert_y": bool(self.invert_y["indicatorValue"]),
                "hud_compact": bool(self.hud_compact["indicatorValue"]),
                "fullscreen": bool(self.fullscreen["indicatorValue"]),
                "resolution": self.resolution.get(),
                "vsync": bool(self.vsync["indicatorValue"]),
                "quality": self.quality.get()}

    def _update_labels(self) -> None:
        for slider, label in ((self.master_volume, self.master_label),
                              (self.effects_volume, self.effects_label),
                              (self.engine_volume, self.engine_label)):
            label["text"] = f"{float(slider['value']) * 100:.0f}%"
        self.fov_label["text"] = f"{float(self.fov['value']):.0f} deg"
        waiting = (self.display.needs_restart(self.settings.current)
                   if self.display is not None else [])
        self.restart_note["text"] = RESTART_NOTE.format(", ".join(waiting)) if waiting else ""

    def _changed(self, *_args) -> None:
        if not self._ready:  # widgets still being made
            return
        current = self.settings.change(**self.values())
        self._update_labels()
        self.on_settings(current)

    def refresh(self) -> None:
        """The widgets show the settings in use again (changed elsewhere: F11)."""
        current = self.settings.current
        if all(getattr(current, name) == value for name, value in self.values().items()):
            return
        self._ready = False
        for name in ("invert_x", "invert_y", "hud_compact", "fullscreen", "vsync"):
            widget = getattr(self, name)
            widget["indicatorValue"] = int(getattr(current, name))
            widget.setIndicatorValue()
        for slider, value in ((self.master_volume, current.master_volume),
                              (self.effects_volume, current.effects_volume),
                              (self.engine_volume, current.engine_volume),
                              (self.fov, current.field_of_view_deg)):
            slider["value"] = value
        self.resolution["items"] = self.resolution_items(current.resolution)
        self.resolution.set(self.resolution["items"].index(current.resolution), fCommand=False)
        self.quality.set(QUALITY_LEVELS.index(current.quality), fCommand=False)
        self._ready = True
        self._update_labels()

    def save(self) -> None:
        try:
            self.settings.change(**self.values())
            self.settings.save()
            self.status["text"] = f"Saved to {self.settings.path}"
        except OSError as error:
            self.status["text"] = f"Not saved: {error.strerror or error}"
