"""Moving through a menu without the mouse: the keyboard's keys and a pad's buttons and
left stick as six menu actions (up, down, left, right, activate, back).

:class:`MenuKeys` listens for the keys (config/controls.toml ``[menu_navigation]``) and
hands each press to a callback; :class:`PadMenuReader` reads every connected pad once a
frame and turns newly pressed buttons, and the left stick pushed past its threshold (held:
repeating after a delay), into the same actions. Which widget an action moves or presses
is the menus' business (:mod:`game.menus.focus`).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Callable

from common.spec import Spec, tuning

MENU_ACTIONS = ("up", "down", "left", "right", "activate", "back")


def _keys(doc: str):
    return tuning(doc, length=(1, 8))


def _buttons(doc: str):
    return tuning(doc, length=(0, 8))


@dataclass(frozen=True)
class MenuNavigationSpec(Spec):
    """The keys and pad buttons that move through the menus, and the left stick's feel."""

    up: tuple[str, ...] = _keys("keys: the item above")
    down: tuple[str, ...] = _keys("keys: the item below")
    left: tuple[str, ...] = _keys("keys: the previous choice, or a slider down")
    right: tuple[str, ...] = _keys("keys: the next choice, or a slider up")
    activate: tuple[str, ...] = _keys("keys: press the item (a button, a check box)")
    back: tuple[str, ...] = _keys("keys: back to the page before")
    pad_up: tuple[str, ...] = _buttons("pad buttons: the item above")
    pad_down: tuple[str, ...] = _buttons("pad buttons: the item below")
    pad_left: tuple[str, ...] = _buttons("pad buttons: the previous choice")
    pad_right: tuple[str, ...] = _buttons("pad buttons: the next choice")
    pad_activate: tuple[str, ...] = _buttons("pad buttons: press the item")
    pad_back: tuple[str, ...] = _buttons("pad buttons: back")
    stick_threshold: float = tuning("the left stick pushed this far (0..1) moves once",
                                    minimum=0.2, maximum=0.95)
    repeat_delay_s: float = tuning("held that way, it moves again after this long ...",
                                   minimum=0.05, maximum=2.0)
    repeat_every_s: float = tuning("... and then this often", minimum=0.02, maximum=1.0)

    def keys_of(self, action: str) -> tuple[str, ...]:
        return getattr(self, action)

    def buttons_of(self, action: str) -> tuple[str, ...]:
        return getattr(self, "pad_" + action)

    def keys(self) -> set[str]:
        return {key for item in fields(self) if item.name in MENU_ACTIONS
                for key in getattr(self, item.name)}


class MenuKeys:
    """Each menu key pressed, as its action, to ``on_action(action)`` (through ``events``,
    a DirectObject of its own) while ``active()``."""

    def __init__(self, events, spec: MenuNavigationSpec, on_action: Callable[[str], None],
                 active: Callable[[], bool] = lambda: True):
        self.events = events
        self._on_action = on_action
        self._active = active
        for action in MENU_ACTIONS:
            for key in spec.keys_of(action):
                events.accept(key, self._press, [action])
                events.accept(key + "-repeat", self._press, [action])

    def _press(self, action: str) -> None:
        if self._active():
            self._on_action(action)

    def destroy(self) -> None:
        self.events.ignoreAll()


STICK_DIRECTIONS = (("left_x", -1.0, "left"), ("left_x", 1.0, "right"),
                    ("left_y", 1.0, "up"), ("left_y", -1.0, "down"))
"""(axis, sign, action): the left stick's four ways (its y axis is + up)."""


class PadMenuReader:
    """Menu actions from every connected pad (``source``: a
    :class:`~game.input.pad_input.PadSource`): :meth:`poll` once a frame with the frame's
    length returns the actions since the last poll. A button counts when newly held; the
    stick when pushed past the threshold, then again while held, after the repeat delay."""

    def __init__(self, source, spec: MenuNavigationSpec):
        self.source = source
        self.spec = spec
        self._held: dict[int, set[str]] = {}
        self._stick: str | None = None
        self._stick_wait_s = 0.0

    def _readings(self) -> list[tuple[dict[str, float], set[str]]]:
        try:
            pads = list(self.source.pads())
        except Exception:  # the device manager gone with the window
            return []
        readings = []
        for pad in pads:
            try:
                readings.append(self.source.read(pad))
            except Exception:  # a pad gone between the listing and the read
                continue
        return readings

    def poll(self, frame_s: float) -> list[str]:
        readings = self._readings()
        actions: list[str] = []
        for index, (_axes, held) in enumerate(readings):
            before = self._held.get(index, held)
            pressed = held - before
            self._held[index] = held
            for action in MENU_ACTIONS:
                if pressed & set(self.spec.buttons_of(action)):
                    actions.append(action)
        for index in [key for key in self._held if key >= len(readings)]:
            del self._held[index]
        stick = self._stick_action([axes for axes, _held in readings])
        actions.extend(self._stick_repeat(stick, frame_s))
        return actions

    def _stick_action(self, axes_of_pads: list[dict[str, float]]) -> str | None:
        """The way the first pad's left stick leans past the threshold (None: none)."""
        threshold = self.spec.stick_threshold
        for axes in axes_of_pads:
            best, lean = None, threshold
            for axis, sign, action in STICK_DIRECTIONS:
                value = axes.get(axis, 0.0) * sign
                if value >= lean:
                    best, lean = action, value
            if best is not None:
                return best
        return None

    def _stick_repeat(self, stick: str | None, frame_s: float) -> list[str]:
        if stick is None or stick != self._stick:
            self._stick = stick
            self._stick_wait_s = self.spec.repeat_delay_s
            return [stick] if stick is not None else []
        self._stick_wait_s -= max(frame_s, 0.0)
        if self._stick_wait_s > 0.0:
            return []
        self._stick_wait_s += self.spec.repeat_every_s
        return [stick]
