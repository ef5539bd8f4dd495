"""The default bindings as one Markdown table (action | keyboard / mouse | gamepad), made
from config/controls.toml: the "Default bindings" table of docs/controls.md is this table,
and a test keeps the two the same.

    python -m tools.bindings_table [--config DIR]     print the table

Every cell names the keys or pad controls in words and, in backticks, the action's key in
config/controls.toml, so the table also says what to edit to rebind it.
"""

from __future__ import annotations

from dataclasses import dataclass

from game.input.gamepad import GamepadSpec
from game.input.keyboard import KeyboardSpec, MouseSpec
from game.input.menu_input import MenuNavigationSpec
from common.spec import Spec, tuning


@dataclass(frozen=True)
class ControlsSpec(Spec):
    """Every binding of config/controls.toml."""

    keyboard: KeyboardSpec = tuning("keyboard bindings")
    mouse: MouseSpec = tuning("the mouse in the gun sight")
    gamepad: GamepadSpec = tuning("gamepad bindings, dead zones and response curves")
    menu_navigation: MenuNavigationSpec = tuning("moving through the menus without the mouse")


ROWS: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("throttle: drive in the selected gear", ("throttle",), ("throttle_axis",)),
    ("brake", ("brake",), ("brake_axis",)),
    ("steer left / right (a tank: tracks at different speeds; pivots at a standstill)",
     ("steer_left", "steer_right"), ("steer_axis",)),
    ("handbrake", ("handbrake",), ("handbrake",)),
    ("reverse (only near a standstill) / neutral", ("gear_reverse", "gear_neutral"), ()),
    ("gears 1 to 5", ("gear_1", "gear_2", "gear_3", "gear_4", "gear_5"), ()),
    ("shift up / down one gear (R, N, 1 … 5)", ("gear_up", "gear_down"),
     ("gear_up", "gear_down")),
    ("H gate: hold the clutch and move the gate stick to a slot (1 3 5 across the top, "
     "2 4 R across the bottom, centre N)", (), ("clutch", "gate_stick")),
    ("automatic gearbox (a gear key or a shift goes back to manual)", ("gear_automatic",),
     ("gear_automatic",)),
    ("fire (held: again as soon as it has reloaded)", ("fire",), ("fire",)),
    ("traverse the turret left / right", ("turret_left", "turret_right"), ("turret_axis",)),
    ("raise / lower the gun", ("gun_up", "gun_down"), ("gun_axis",)),
    ("choose the first / second / third shell, loaded at the next reload",
     ("shell_1", "shell_2", "shell_3"), ()),
    ("choose the next shell with rounds left, loaded at the next reload", ("next_shell",),
     ("next_shell",)),
    ("set the vehicle back on its wheels", ("reset",), ("reset",)),
    ("hop between the tank and the car", ("swap_vehicle",), ("swap_vehicle",)),
    ("chase camera / gun sight (in a car: the driver's seat)", ("camera_view",),
     ("camera_view",)),
    ("look round: hold, and move the mouse (pad: the turret's stick); springs back behind "
     "on release", ("camera_orbit",), ("camera_orbit",)),
    ("zoom the chase camera in", ("camera_zoom_in",), ("camera_zoom_in",)),
    ("zoom the chase camera out", ("camera_zoom_out",), ("camera_zoom_out",)),
    ("pause menu: resume, restart, settings, controls, quit", ("pause",), ("pause",)),
    ("suspension debug overlay on / off", ("debug_overlay",), ()),
    ("armour view on / off: each plate by the armour it shows the camera", ("armour_view",),
     ()),
    ("scoreboard on / off (online)", ("scoreboard",), ()),
    ("save a screenshot in your data folder", ("screenshot",), ()),
    ("fullscreen / window", ("fullscreen",), ()),
    ("compact HUD on / off", ("hud_compact",), ()),
    ("the main keys' card on / off", ("help_card",), ()),
    ("quit at once", ("quit",), ()),
)
"""(what it does, keyboard actions, gamepad actions) in the table's order."""

KEY_WORDS = {
    "arrow_up": "↑", "arrow_down": "↓", "arrow_left": "←", "arrow_right": "→",
    "space": "Space", "backspace": "Backspace", "escape": "Esc", "enter": "Enter",
    "tab": "Tab", "page_up": "Page Up", "page_down": "Page Down",
    "mouse1": "left mouse button", "mouse2": "middle mouse button",
    "mouse3": "right mouse button", "wheel_up": "mouse wheel up",
    "wheel_down": "mouse wheel down",
}
PAD_WORDS = {
    "face_a": "A", "face_b": "B", "face_x": "X", "face_y": "Y",
    "lshoulder": "left shoulder", "rshoulder": "right shoulder",
    "ltrigger": "left trigger click", "rtrigger": "right trigger click",
    "lstick": "left stick click", "rstick": "right stick click",
    "dpad_up": "D-pad up", "dpad_down": "D-pad down", "dpad_left": "D-pad left",
    "dpad_right": "D-pad right", "start": "Start", "back": "Back", "guide": "Guide",
    "left_x": "left stick ←→", "left_y": "left stick ↑↓", "right_x": "right stick ←→",
    "right_y": "right stick ↑↓", "left_trigger": "left trigger",
    "right_trigger": "right trigger", "left": "left stick", "right": "right stick",
}


def key_words(key: str) -> str:
    """A Panda3D key name as people say it (``arrow_up``: ↑, ``w``: W, ``f3``: F3)."""
    if key in KEY_WORDS:
        return KEY_WORDS[key]
    function_key = key[0] == "f" and key[1:].isdigit()
    return key.upper() if len(key) == 1 or function_key else key.replace("_", " ").title()


def pad_words(name: str) -> str:
    """A pad button, axis or stick name as people say it."""
    return PAD_WORDS.get(name, name.replace("_", " "))


def _cell(spec, actions: tuple[str, ...], words, name_actions: bool = True) -> str:
    """The controls bound to ``actions`` in words, each followed by its config key in
    backticks when ``name_actions``; a dash for none."""
    parts = []
    for action in actions:
        value = getattr(spec, action)
        names = value if isinstance(value, tuple) else (value,)
        shown = ", ".join(words(name) for name in names) or "unbound"
        parts.append(f"{shown} (`{action}`)" if name_actions else shown)
    return " / ".join(parts) or "—"


def bindings_table(controls: ControlsSpec) -> str:
    """The Markdown table of ``controls``' bindings, one row per entry of ``ROWS``."""
    lines = ["| action | keyboard / mouse | gamepad |", "|---|---|---|"]
    for doc, keyboard, gamepad in ROWS:
        cells = (_cell(controls.keyboard, keyboard, key_words),
                 _cell(controls.gamepad, gamepad, pad_words))
        lines.append(f"| {doc} | " + " | ".join(cell.replace("|", "\\|") for cell in cells)
                     + " |")
    return "\n".join(lines) + "\n"


ARROW_WORDS = (("←→", "sideways"), ("↑↓", "up / down"), ("↑", "Up"), ("↓", "Down"),
               ("←", "Left"), ("→", "Right"))
"""Arrows in words, for text drawn in Panda3D's default font (which has no arrows)."""


def _without_arrows(text: str) -> str:
    for arrow, words in ARROW_WORDS:
        text = text.replace(arrow, words)
    return text


def keys_in_words(keys: tuple[str, ...]) -> str:
    """An action's keys in words without arrows (for Panda3D's default font), "unbound"
    for none: the Controls page's keyboard cells and the rebinding messages."""
    return _without_arrows(", ".join(key_words(key) for key in keys) or "unbound")


def pad_in_words(names: tuple[str, ...] | str) -> str:
    """A pad action's buttons, or its axis or stick, in words without arrows ("unbound" for
    no button): the Controls page's pad cells and the pad rebinding messages."""
    names = (names,) if isinstance(names, str) else names
    return _without_arrows(", ".join(pad_words(name) for name in names) or "unbound")


def help_rows(controls: ControlsSpec) -> list[tuple[str, str, str]]:
    """(what it does, keyboard / mouse, gamepad) in plain words, for the pause menu's
    Controls page: the table's rows without the config keys or arrows."""
    return [tuple(_without_arrows(text) for text in (
                doc, _cell(controls.keyboard, keyboard, key_words, name_actions=False),
                _cell(controls.gamepad, gamepad, pad_words, name_actions=False)))
            for doc, keyboard, gamepad in ROWS]
