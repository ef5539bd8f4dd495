"""Widgets the title menu's pages share: a labelled choice stepped with arrows (the mouse
clicks them, the keyboard and pad step it: :mod:`game.menus.focus`) and a labelled
text field.
"""

from __future__ import annotations

from typing import Callable, Sequence

from direct.gui.DirectGui import DGG, DirectButton, DirectEntry, DirectLabel
from panda3d.core import TextNode

from game.audio.sounds import UI_CLICK
from game.menus.menu_spec import MenuSpec

ARROW_HALF_WIDTH = 0.06
"""An arrow button's half width, in shares of the window's half height."""


def play_click(sounds) -> None:
    """The menus' click through ``sounds`` (None: no sound player)."""
    if sounds is not None:
        sounds.play(UI_CLICK, None)


def with_click(sounds, command):
    """``command`` with a click first (it takes whatever the widget passes)."""
    def click_then(*args):
        play_click(sounds)
        command(*args)
    return click_then


def label_style(spec: MenuSpec, scale: float = 0.8) -> dict:
    return dict(text_scale=spec.text_scale * scale, text_fg=spec.text_colour,
                frameColor=(0, 0, 0, 0), text_align=TextNode.ALeft)


class ChoiceRow:
    """``label``, then ``< value >``: one of ``values`` (shown by ``show(value)``);
    ``on_change(value)`` after each step."""

    def __init__(self, parent, spec: MenuSpec, label: str, values: Sequence, current,
                 pos: tuple[float, float], clicked: Callable, on_change=lambda value: None,
                 show: Callable[[object], str] = str, value_x: float = 0.45):
        self.values = list(values)
        self.index = self.values.index(current) if current in self.values else 0
        self._show = show
        self._on_change = on_change
        x, z = pos
        self.caption = DirectLabel(parent=parent, text=label, pos=(x, 0, z),
                                   **label_style(spec))
        arrow = dict(text_scale=spec.text_scale, text_fg=spec.text_colour,
                     frameColor=spec.button_colour, relief=DGG.FLAT,
                     frameSize=(-ARROW_HALF_WIDTH, ARROW_HALF_WIDTH, -0.035, 0.065))
        self.less = DirectButton(parent=parent, text="<", pos=(value_x - 0.3, 0, z),
                                 command=clicked(lambda: self.step(-1)), **arrow)
        self.more = DirectButton(parent=parent, text=">", pos=(value_x + 0.3, 0, z),
                                 command=clicked(lambda: self.step(1)), **arrow)
        self.shown = DirectLabel(parent=parent, text="", pos=(value_x, 0, z),
                                 **{**label_style(spec), "text_align": TextNode.ACenter})
        self.widget = self.caption
        """What the focus outline is drawn round (the label: the row's left end)."""
        self._update()

    @property
    def value(self):
        return self.values[self.index]

    def step(self, direction: int) -> None:
        self.index = (self.index + direction) % len(self.values)
        self._update()
        self._on_change(self.value)

    def press(self) -> None:
        self.step(1)

    def focus(self, on: bool) -> None:
        pass

    def _update(self) -> None:
        self.shown["text"] = self._show(self.value)

    def destroy(self) -> None:
        for widget in (self.caption, self.less, self.more, self.shown):
            widget.destroy()


class TextRow:
    """``label``, then a one-line text field holding ``initial``."""

    def __init__(self, parent, spec: MenuSpec, label: str, initial: str,
                 pos: tuple[float, float], width_chars: int, value_x: float = 0.15):
        x, z = pos
        self.caption = DirectLabel(parent=parent, text=label, pos=(x, 0, z),
                                   **label_style(spec))
        self.entry = DirectEntry(parent=parent, initialText=initial, pos=(value_x, 0, z),
                                 scale=spec.text_scale * 0.8, width=width_chars,
                                 text_fg=spec.text_colour, frameColor=spec.button_colour,
                                 numLines=1, focus=0)

    @property
    def value(self) -> str:
        return self.entry.get().strip()

    def destroy(self) -> None:
        self.caption.destroy()
        self.entry.destroy()
