"""Keyboard and pad focus on a menu page: one item at a time has the focus, drawn with an
outline round it; up and down move it, left and right change the focused choice or
slider, activate presses it (:mod:`game.input.menu_input` turns keys and pad buttons into
those actions).

Each DirectGui widget on a page is wrapped by :func:`focusable` in an adapter that knows
how that kind of widget is pressed or stepped; a page's items are handed over in their
order on the page with :meth:`MenuFocus.set_items`.
"""

from __future__ import annotations

from typing import Callable, Protocol

from direct.gui.DirectGui import (DirectButton, DirectCheckButton, DirectEntry, DirectOptionMenu,
                                  DirectSlider)
from panda3d.core import LineSegs, NodePath


class Focusable(Protocol):
    widget: NodePath

    def press(self) -> None: ...
    def step(self, direction: int) -> None: ...
    def focus(self, on: bool) -> None: ...


class ButtonItem:
    """A button or check box: activate clicks it (its sound, its command)."""

    def __init__(self, widget):
        self.widget = widget

    def press(self) -> None:
        self.widget.commandFunc(None)

    def step(self, direction: int) -> None:
        pass

    def focus(self, on: bool) -> None:
        pass


class SliderItem:
    """A slider: left and right move it a page at a time."""

    def __init__(self, widget: DirectSlider):
        self.widget = widget

    def press(self) -> None:
        pass

    def step(self, direction: int) -> None:
        low, high = self.widget["range"]
        value = float(self.widget["value"]) + direction * float(self.widget["pageSize"])
        self.widget["value"] = min(max(value, min(low, high)), max(low, high))
        command = self.widget["command"]
        if command is not None:
            command(*(self.widget["extraArgs"] or []))

    def focus(self, on: bool) -> None:
        pass


class OptionItem:
    """A drop-down list: left and right pick the item before or after; activate the next."""

    def __init__(self, widget: DirectOptionMenu):
        self.widget = widget

    def press(self) -> None:
        self.step(1)

    def step(self, direction: int) -> None:
        items = self.widget["items"]
        index = (self.widget.selectedIndex + direction) % len(items)
        self.widget.set(index)  # calls the widget's command

    def focus(self, on: bool) -> None:
        pass


class EntryItem:
    """A text field: focused, it takes the keyboard's typing."""

    def __init__(self, widget: DirectEntry):
        self.widget = widget

    def press(self) -> None:
        pass

    def step(self, direction: int) -> None:
        pass

    def focus(self, on: bool) -> None:
        self.widget["focus"] = 1 if on else 0


def focusable(widget) -> Focusable:
    """The adapter for ``widget``'s kind (anything with ``press``/``step``/``focus`` of
    its own, such as :class:`ChoiceRow`, is its own)."""
    if hasattr(widget, "press") and hasattr(widget, "step"):
        return widget
    if isinstance(widget, DirectSlider):
        return SliderItem(widget)
    if isinstance(widget, DirectOptionMenu):
        return OptionItem(widget)
    if isinstance(widget, DirectEntry):
        return EntryItem(widget)
    if isinstance(widget, (DirectButton, DirectCheckButton)):
        return ButtonItem(widget)
    raise TypeError(f"no menu focus for a {type(widget).__name__}")


class MenuFocus:
    """Which item of the page shown has the focus, with an outline of ``colour`` round it.
    ``on_change()`` is told each move (a click sound)."""

    def __init__(self, colour, thickness_px: float, on_change: Callable[[], None] = lambda: None):
        self.colour = colour
        self.thickness_px = thickness_px
        self.on_change = on_change
        self.items: list[Focusable] = []
        self.index = 0
        self._outline: NodePath | None = None

    @property
    def current(self) -> Focusable | None:
        return self.items[self.index] if self.items else None

    def set_items(self, widgets: list) -> None:
        """A page's items, top to bottom; the first gets the focus."""
        self._focus(False)
        self.items = [focusable(widget) for widget in widgets]
        self.index = 0
        self._focus(True)

    def act(self, action: str) -> bool:
        """Do a menu action on the focused item; False for one it does not handle ("back",
        or nothing to focus)."""
        item = self.current
        if item is None or action not in ("up", "down", "left", "right", "activate"):
            return False
        if action in ("up", "down"):
            self._focus(False)
            self.index = (self.index + (1 if action == "down" else -1)) % len(self.items)
            self._focus(True)
            self.on_change()
        elif action == "activate":
            item.press()
        else:
            item.step(1 if action == "right" else -1)
        return True

    def _focus(self, on: bool) -> None:
        item = self.current
        if self._outline is not None:
            self._outline.removeNode()
            self._outline = None
        if item is None:
            return
        item.focus(on)
        if on:
            self._outline = _outline(item.widget, self.colour, self.thickness_px)

    def destroy(self) -> None:
        self._focus(False)
        self.items = []


def _outline(widget: NodePath, colour, thickness_px: float) -> NodePath | None:
    """A rectangle round ``widget``'s frame, drawn on top of it."""
    try:
        bounds = widget["frameSize"] or widget.getBounds()
    except (KeyError, TypeError, AttributeError):  # not a DirectGui widget
        return None
    if not bounds or len(bounds) < 4:
        return None
    left, right, bottom, top = bounds[:4]
    lines = LineSegs("menu-focus")
    lines.setColor(*colour)
    lines.setThickness(thickness_px)
    lines.moveTo(left, 0, bottom)
    for x, z in ((right, bottom), (right, top), (left, top), (left, bottom)):
        lines.drawTo(x, 0, z)
    outline = widget.attachNewNode(lines.create())
    outline.setBin("gui-popup", 0)
    return outline
