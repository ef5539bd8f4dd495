"""The first-run help card: the main keys and pad controls on one card over the game, shown
to a new player when their first match starts, until dismissed (then remembered in their
settings); F1 shows it again.

Its lines are made from the bindings in use (:mod:`game.input.bindings`), so a rebound key
shows as rebound.
"""

from __future__ import annotations

from direct.gui.DirectGui import DGG, DirectButton, DirectFrame, DirectLabel
from panda3d.core import TextNode

from game.input.bindings import ControlsSpec, keys_in_words, pad_in_words
from game.menus.menu_spec import MenuSpec
from game.menus.requests import DismissHelp, Send
from game.view.draw.overlay import keep_alpha

MAIN_CONTROLS = (
    ("Drive, brake", ("throttle", "brake"), ("throttle_axis", "brake_axis")),
    ("Steer (tracks pivot at a standstill)", ("steer_left", "steer_right"), ("steer_axis",)),
    ("Fire", ("fire",), ("fire",)),
    ("Turn the turret", ("turret_left", "turret_right"), ("turret_axis",)),
    ("Raise, lower the gun", ("gun_up", "gun_down"), ("gun_axis",)),
    ("Shell for the next reload", ("shell_1", "shell_2", "shell_3"), ("next_shell",)),
    ("Gun sight / chase camera", ("camera_view",), ("camera_view",)),
    ("Automatic gearbox (gear keys: manual)", ("gear_automatic",), ("gear_automatic",)),
    ("Back on the tracks", ("reset",), ("reset",)),
    ("Pause menu: settings, controls", ("pause",), ("pause",)),
    ("This card", ("help_card",), ()),
)
"""(what it does, keyboard actions, pad actions) for each line of the card."""


def card_lines(controls: ControlsSpec) -> list[tuple[str, str, str]]:
    """(what, keys, pad) in words for each of the card's lines."""
    lines = []
    for what, keys, pad in MAIN_CONTROLS:
        key_names = tuple(key for action in keys
                          for key in getattr(controls.keyboard, action)[:2])
        pad_names = [name for action in pad for name in _names(getattr(controls.gamepad, action))]
        lines.append((what, keys_in_words(key_names), pad_in_words(tuple(pad_names)) if pad_names else "-"))
    return lines


def _names(value) -> tuple[str, ...]:
    return value if isinstance(value, tuple) else (value,)


class HelpCard:
    """The card on ``parent`` (aspect2d), hidden until :meth:`show`; its button and
    the menu keys' "back" send the app DismissHelp (which hides it: :meth:`hide`)."""

    def __init__(self, parent, spec: MenuSpec, controls: ControlsSpec, send: Send):
        self.send = send
        rows = card_lines(controls)
        half_height = 0.2 + len(rows) * spec.controls_row_spacing * 0.5 + 0.12
        self.frame = DirectFrame(parent=parent, frameColor=spec.panel_colour,
                                 frameSize=(-1.25, 1.25, -half_height, half_height))
        keep_alpha(self.frame)
        top = half_height - 0.12
        DirectLabel(parent=self.frame, text="Welcome to Tank Battle: the main controls",
                    text_scale=spec.text_scale, text_fg=spec.text_colour,
                    frameColor=(0, 0, 0, 0), pos=(0, 0, top))
        style = dict(text_scale=spec.controls_text_scale, frameColor=(0, 0, 0, 0),
                     text_align=TextNode.ALeft)
        columns = spec.controls_columns_x
        for index, row in enumerate(rows):
            z = top - 0.14 - index * spec.controls_row_spacing
            for column, text in enumerate(row):
                DirectLabel(parent=self.frame, text=text, pos=(columns[column], 0, z),
                            text_fg=spec.key_colour if column else spec.text_colour, **style)
        self.button = DirectButton(parent=self.frame, text="Got it",
                                   command=lambda *_args: self.send(DismissHelp()),
                                   text_scale=spec.text_scale, text_fg=spec.text_colour,
                                   frameColor=spec.button_colour, relief=DGG.FLAT,
                                   frameSize=(-0.25, 0.25, -0.055, 0.085),
                                   pos=(0, 0, -half_height + 0.1))
        self.buttons = {"Got it": self.button}
        """Its one button, by label: the menu keys press it."""
        self.frame.hide()

    @property
    def shown(self) -> bool:
        return not self.frame.isHidden()

    def show(self) -> None:
        self.frame.show()

    def hide(self) -> None:
        self.frame.hide()

    def destroy(self) -> None:
        self.frame.destroy()
