"""Rebinding the gamepad from the pause menu's Controls page: the rules for its buttons and
its axes (the keyboard's are :mod:`game.input.rebinding`'s).

Buttons (:func:`assign_pad_button`), as for keys: the button pressed becomes the action's
only button. Another action that had it loses it; if that would leave the other action
with no button at all, nothing changes and the player is told to give that action another
button first. Start is never bound here (it cancels the wait for a button, as Esc does for
keys), so pause keeps Start beside its new button: the pause menu always answers Start.

Axes (:func:`next_axis`): each click moves the action to the next of the axes
config/controls.toml allows (its ``choices``, in that order, round again after the last).
When another action drives with that axis the two swap: the other action takes the axis
this one left, so no two actions ever share an axis (the config refuses that too). The
gate stick has no such partner: it takes turns between the left and right sticks.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from game.input.binding_rule import take
from game.input.bindings import pad_in_words
from game.input.gamepad import AXES, DRIVING_AXES, STICKS, GamepadSpec

CANCEL_BUTTON = "start"
"""Ends the wait for a pad button without binding anything; never bound from the menu."""
AXIS_CHOICES = {**{action: AXES for action in DRIVING_AXES}, "gate_stick": STICKS}
"""The axis actions and the values each may take (the config's ``choices``)."""


def button_actions() -> tuple[str, ...]:
    """Every pad action bound to buttons, in config/controls.toml's order."""
    return tuple(field.name for field in dataclasses.fields(GamepadSpec)
                 if field.type == "tuple[str, ...]")


def axis_actions() -> tuple[str, ...]:
    """Every pad action that takes an axis (or a stick), in config/controls.toml's order."""
    return tuple(AXIS_CHOICES)


def binding_actions() -> tuple[str, ...]:
    """Every pad action the Controls page edits (and bindings.toml may hold)."""
    return axis_actions() + button_actions()


def action_words(action: str) -> str:
    return action.removesuffix("_axis").replace("_", " ")


@dataclass(frozen=True)
class PadAssignment:
    """What a pad button or a click did: the pad's bindings after it (the same when
    refused) and one line for the player."""

    gamepad: GamepadSpec
    message: str
    changed: bool


def assign_pad_button(gamepad: GamepadSpec, action: str, button: str) -> PadAssignment:
    """``button`` as ``action``'s only button (Start kept where it was), taken from any
    other action that had it, under the rule above. Never raises."""
    def refused(message: str) -> PadAssignment:
        return PadAssignment(gamepad, message, changed=False)

    if action not in button_actions():
        return refused(f"There is no pad button action called {action!r}.")
    if not isinstance(button, str) or not button:
        return refused("That button has no name: try another.")
    if button == CANCEL_BUTTON:
        return refused("Start cancels: it cannot be bound.")
    taken = take(gamepad, action, button, button_actions(), CANCEL_BUTTON, pad_in_words,
                 action_words, "button")
    if taken.refusal is not None:
        return refused(taken.refusal)
    message = f"Pad {action_words(action)}: {pad_in_words(taken.controls)}"
    if taken.taken_from:
        message += f" (taken from {', '.join(taken.taken_from)})"
    return PadAssignment(taken.bindings, message, changed=True)


def next_axis(gamepad: GamepadSpec, action: str) -> PadAssignment:
    """``action`` moved to the next axis it may take, swapping with the action that had
    that axis (see above). Never raises."""
    if action not in AXIS_CHOICES:
        return PadAssignment(gamepad, f"There is no pad axis action called {action!r}.",
                             changed=False)
    choices = AXIS_CHOICES[action]
    current = getattr(gamepad, action)
    index = choices.index(current) if current in choices else -1
    axis = choices[(index + 1) % len(choices)]
    changes = {action: axis}
    message = f"Pad {action_words(action)}: {pad_in_words(axis)}"
    if action in DRIVING_AXES:
        for other in DRIVING_AXES:
            if other != action and getattr(gamepad, other) == axis:
                changes[other] = current
                message += f" (swapped: {action_words(other)} now {pad_in_words(current)})"
    return PadAssignment(dataclasses.replace(gamepad, **changes), message, changed=True)
