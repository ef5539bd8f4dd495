"""The rule the Controls page rebinds by, the same for the keyboard's keys
(:mod:`game.input.rebinding`) and the pad's buttons (:mod:`game.input.pad_rebinding`).

The control pressed becomes the action's only one, but for the cancelling control (Esc,
Start) where the action had it: that one is never bound from the menu and never taken
away, so the pause menu always answers it. Another action that had the control loses
it; if that would leave the other action with none at all, nothing changes and the
player is told to give that action another one first.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Taken:
    """What the rule made of a control pressed for an action."""

    bindings: object
    """The bindings after it (the same when refused)."""
    controls: tuple[str, ...]
    """The action's controls after it."""
    taken_from: tuple[str, ...]
    """The other actions that lost the control, in words."""
    refusal: str | None
    """Why nothing changed, in one line for the player; None when it did."""


def take(bindings, action: str, control: str, actions: tuple[str, ...], cancel: str,
         control_words: Callable[[tuple[str, ...]], str],
         action_words: Callable[[str], str], noun: str) -> Taken:
    """``control`` as ``action``'s only ``noun`` (key, button) besides ``cancel``, taken
    from any other of ``actions`` that had it, under the rule above."""
    def refused(message: str) -> Taken:
        return Taken(bindings, getattr(bindings, action), (), message)

    controls = tuple(kept for kept in getattr(bindings, action) if kept == cancel) + (control,)
    if controls == getattr(bindings, action):
        return refused(f"{control_words((control,))} is already {action_words(action)}'s "
                       f"{noun}.")
    changes, taken_from = {action: controls}, []
    for other in actions:
        other_controls = getattr(bindings, other)
        if other == action or control not in other_controls:
            continue
        left = tuple(kept for kept in other_controls if kept != control)
        if not left:
            return refused(f"{control_words((control,))} is {action_words(other)}'s only "
                           f"{noun}: give {action_words(other)} another {noun} first.")
        changes[other] = left
        taken_from.append(action_words(other))
    return Taken(dataclasses.replace(bindings, **changes), controls, tuple(taken_from), None)
