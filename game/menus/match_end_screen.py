"""The end-of-match screen: Victory, Defeat or Draw, the score, each side's figures, and
Rematch or Menu. DirectGui.

The app opens it when a :class:`~game.sim.events.MatchEnd` arrives and holds the game's
input meanwhile; this module only draws and sends the app its buttons' requests
(:mod:`game.menus.requests`): Rematch is Restart (a new match, the same options), Menu is
ToTitle (back to the title menu). Every button clicks (the
synthesised ``ui_click``) through the game's sound player, ``sounds``, as the pause
menu's do.
"""

from __future__ import annotations

from dataclasses import dataclass

from direct.gui.DirectGui import DGG, DirectButton, DirectFrame, DirectLabel
from panda3d.core import TextNode

from common.spec import Spec, tuning
from game.audio.sounds import SoundPlayer
from game.menus.requests import Restart, Send, ToTitle
from game.menus.widgets import with_click
from game.sim.events import DRAW, MatchEnd
from game.view.draw.colours import rgba
from game.view.draw.overlay import keep_alpha

PERCENT = 100.0
"""Accuracy (a share) is shown in per cent."""
NO_FIGURE = "-"
"""Shown for an accuracy with no shot to measure it by."""
ROWS = (("Kills", "kills"), ("Shots", "shots"), ("Hits", "hits"), ("Accuracy", "accuracy"),
        ("Damage dealt", "damage_dealt"), ("Damage taken", "damage_taken"))
"""The table's rows: the label shown and the figure's key in ``MatchEnd.sides``."""
SIDE_NAMES = {"player": "Your side", "bots": "Bots"}
"""Column headings of the two sides against the bots (free for all: the players' names)."""
BUTTONS = ("Rematch", "Menu")


@dataclass(frozen=True)
class MatchEndSpec(Spec):
    """The end-of-match screen: sizes in shares of the window's half height (aspect2d)."""

    text_scale: float = tuning("text height of the score, the table and the buttons",
                               minimum=0.02, maximum=0.3)
    title_scale: float = tuning("the title's text height", minimum=0.02, maximum=0.5)
    panel_half_size: tuple[float, ...] = tuning("the panel's half width and half height",
                                                minimum=0.1, maximum=2.0, length=(2, 2))
    panel_colour: tuple[float, ...] = rgba("the panel's backing")
    dim_colour: tuple[float, ...] = rgba("the veil over the finished game")
    button_colour: tuple[float, ...] = rgba("buttons")
    text_colour: tuple[float, ...] = rgba("text")
    heading_colour: tuple[float, ...] = rgba("the table's column headings")
    victory_colour: tuple[float, ...] = rgba("the title when the player's side won")
    defeat_colour: tuple[float, ...] = rgba("the title when it lost")
    draw_colour: tuple[float, ...] = rgba("the title in a draw")
    title_z: float = tuning("the title's height on the panel", minimum=-1.0, maximum=1.0)
    score_z: float = tuning("the score line's height", minimum=-1.0, maximum=1.0)
    table_top_z: float = tuning("the column headings' height; the rows go down from there",
                                minimum=-1.0, maximum=1.0)
    row_spacing: float = tuning("from one row of the table to the next", minimum=0.02,
                                maximum=0.3)
    label_column_x: float = tuning("the left edge of the statistics' names", minimum=-2.0,
                                   maximum=2.0)
    sides_span_x: tuple[float, ...] = tuning("the sides' columns share this span, left and "
                                             "right edge", minimum=-2.0, maximum=2.0,
                                             length=(2, 2))
    buttons_z: float = tuning("the buttons' height", minimum=-1.0, maximum=1.0)
    buttons_x: tuple[float, ...] = tuning("Rematch's and Menu's centres", minimum=-2.0,
                                          maximum=2.0, length=(2, 2))
    button_frame: tuple[float, ...] = tuning("a button's left, right, bottom and top edges "
                                             "round its text's origin", minimum=-1.0,
                                             maximum=1.0, length=(4, 4))


def title_for(winner: str, player_side: str) -> str:
    """What the match was for the player's side."""
    if winner == DRAW:
        return "Draw"
    return "Victory" if winner == player_side else "Defeat"


def figure_text(key: str, value) -> str:
    """One figure as the table shows it: counts whole, accuracy in per cent, damage to the
    nearest point."""
    if value is None:
        return NO_FIGURE
    if key == "accuracy":
        return f"{value * PERCENT:.0f} %"
    return f"{value:.0f}"


def side_heading(side: str, player_side: str) -> str:
    """A side's name on the screen: "Your side" and "Bots" against the bots; free for all,
    "You" for the player and the others' names."""
    if side == player_side and side not in SIDE_NAMES:
        return "You"
    return SIDE_NAMES.get(side, side)


class MatchEndScreen:
    """The panel, hidden until :meth:`show`; ``buttons`` by label ("Rematch", "Menu")."""

    def __init__(self, parent, spec: MatchEndSpec, send: Send, *,
                 sounds: SoundPlayer | None = None):
        self.spec = spec
        self.sounds = sounds
        self.veil = DirectFrame(parent=parent, frameColor=spec.dim_colour,
                                frameSize=(-4, 4, -2, 2), state=DGG.NORMAL)  # eats clicks
        keep_alpha(self.veil)
        half_width, half_height = spec.panel_half_size
        self.panel = DirectFrame(parent=self.veil, frameColor=spec.panel_colour,
                                 frameSize=(-half_width, half_width, -half_height, half_height))
        plain = dict(frameColor=(0, 0, 0, 0), text_fg=spec.text_colour)
        self.title = DirectLabel(parent=self.panel, text="", text_scale=spec.title_scale,
                                 pos=(0, 0, spec.title_z), **plain)
        self.score_line = DirectLabel(parent=self.panel, text="", text_scale=spec.text_scale,
                                      pos=(0, 0, spec.score_z), **plain)
        self.buttons: dict[str, DirectButton] = {}
        """Rematch and Menu by label: tests press them."""
        requests = (lambda: send(Restart()), lambda: send(ToTitle()))
        for label, command, x in zip(BUTTONS, requests, spec.buttons_x):
            self.buttons[label] = DirectButton(
                parent=self.panel, text=label, command=self._clicked(command),
                pos=(x, 0, spec.buttons_z), text_scale=spec.text_scale,
                text_fg=spec.text_colour, frameColor=spec.button_colour, relief=DGG.FLAT,
                frameSize=tuple(spec.button_frame))
        self._cells: list[list[DirectLabel]] = []
        self.is_open = False
        self.hide()

    def _clicked(self, command):
        return with_click(self.sounds, command)

    def show(self, event: MatchEnd, player_side: str) -> None:
        """Open on ``event``'s result, seen by ``player_side`` ("player", or free for all
        the player's name): the player's side's column first."""
        sides = sorted(event.sides, key=lambda side: side != player_side)
        self.title["text"] = title_for(event.winner, player_side)
        self.title["text_fg"] = {"Victory": self.spec.victory_colour,
                                 "Defeat": self.spec.defeat_colour,
                                 "Draw": self.spec.draw_colour}[self.title["text"]]
        scores = [f"{side_heading(side, player_side)} {event.score.get(side, 0)}"
                  for side in sides]
        self.score_line["text"] = (f"{event.rounds} round{'s' if event.rounds != 1 else ''}"
                                   f"    " + "  :  ".join(scores))
        self._build_table(event, sides, player_side)
        self.is_open = True
        self.veil.show()

    def _build_table(self, event: MatchEnd, sides: list[str], player_side: str) -> None:
        """A row per statistic, a column per side (the old table, if any, goes)."""
        self._clear_table()
        spec = self.spec
        left, right = spec.sides_span_x
        width = (right - left) / max(1, len(sides))
        columns_x = [left + (index + 0.5) * width for index in range(len(sides))]
        cell = dict(parent=self.panel, frameColor=(0, 0, 0, 0), text_scale=spec.text_scale)
        headings = [DirectLabel(text="", pos=(spec.label_column_x, 0, spec.table_top_z),
                                text_fg=spec.heading_colour, **cell)]
        headings += [DirectLabel(text=side_heading(side, player_side),
                                 pos=(x, 0, spec.table_top_z), text_fg=spec.heading_colour,
                                 **cell) for side, x in zip(sides, columns_x)]
        self._cells.append(headings)
        for number, (label, key) in enumerate(ROWS, start=1):
            z = spec.table_top_z - number * spec.row_spacing
            row = [DirectLabel(text=label, pos=(spec.label_column_x, 0, z),
                               text_align=TextNode.ALeft, text_fg=spec.text_colour, **cell)]
            row += [DirectLabel(text=figure_text(key, event.sides[side].get(key)),
                                pos=(x, 0, z), text_fg=spec.text_colour, **cell)
                    for side, x in zip(sides, columns_x)]
            self._cells.append(row)

    def rows(self) -> list[list[str]]:
        """The table as shown: the headings, then a row per statistic."""
        return [[label["text"] for label in row] for row in self._cells]

    def _clear_table(self) -> None:
        for row in self._cells:
            for label in row:
                label.destroy()
        self._cells = []

    def hide(self) -> None:
        self.is_open = False
        self.veil.hide()

    def destroy(self) -> None:
        self._clear_table()
        self.veil.destroy()
