"""How the pause menu and its pages look: the spec the menu (:mod:`game.menus.pause_menu`), its
Settings page (:mod:`game.menus.settings_page`) and its Controls page
(:mod:`game.menus.controls_page`) share."""

from __future__ import annotations

from dataclasses import dataclass

from common.spec import Spec, tuning
from game.view.draw.colours import rgba


@dataclass(frozen=True)
class MenuSpec(Spec):
    """The pause menu (Esc), its settings page and the controls help."""

    text_scale: float = tuning("button text height", minimum=0.02, maximum=0.3)
    panel_colour: tuple[float, ...] = rgba("the menu's backing")
    button_colour: tuple[float, ...] = rgba("buttons")
    text_colour: tuple[float, ...] = rgba("text")
    key_colour: tuple[float, ...] = rgba("the keys and pad controls on the Controls page")
    dim_colour: tuple[float, ...] = rgba("the veil over the paused game")
    field_of_view_limits_deg: tuple[float, ...] = tuning(
        "the field-of-view slider's range", minimum=20.0, maximum=120.0, length=(2, 2))
    controls_text_scale: float = tuning("text height on the Controls page", minimum=0.01,
                                        maximum=0.2)
    controls_row_spacing: float = tuning("from one row of the Controls page to the next",
                                         minimum=0.02, maximum=0.3)
    controls_columns_x: tuple[float, ...] = tuning(
        "the left edges of the Controls page's action, keyboard and gamepad columns",
        minimum=-1.5, maximum=1.5, length=(3, 3))
    key_cell_colour: tuple[float, ...] = rgba("an action's keys: a button that rebinds them")
    capture_colour: tuple[float, ...] = rgba("that button while it waits for a key")
    key_cell_gap: float = tuning("space between two actions' key buttons in one row",
                                 minimum=0.0, maximum=0.2)
    key_cell_padding: tuple[float, ...] = tuning(
        "a key button's margin round its text (across, up and down)", minimum=0.0,
        maximum=0.1, length=(2, 2))
    note_text_scale: float = tuning("the Controls page's note and status lines",
                                    minimum=0.01, maximum=0.2)
    settings_page_half_size: tuple[float, ...] = tuning(
        "the Settings page's half width and half height (the width fits a 5:4 window)",
        minimum=0.3, maximum=1.8, length=(2, 2))
    settings_columns_x: tuple[float, ...] = tuning(
        "the left edges of the Settings page's two columns (sound and view; display)",
        minimum=-1.5, maximum=1.5, length=(2, 2))
    settings_first_row_z: float = tuning("the Settings page's first row, from its centre",
                                         minimum=-1.0, maximum=1.0)
    settings_row_spacing: float = tuning("from one row of the Settings page to the next",
                                         minimum=0.02, maximum=0.4)
    settings_text_scale: float = tuning("text height on the Settings page", minimum=0.01,
                                        maximum=0.2)
    settings_label_width: float = tuning("from a column's left edge to its row's control",
                                         minimum=0.05, maximum=1.2)
    settings_slider_width: float = tuning("a slider's length", minimum=0.1, maximum=1.2)
