"""Rebinding the keyboard from the pause menu's Controls page: the rule, and the player's file
(the gamepad's rules are :mod:`game.input.pad_rebinding`'s).

The rule (:func:`assign_key`, :mod:`game.input.binding_rule`): the key pressed becomes the
action's only key. Another action that had that key loses it; if that would leave the
other action with no key at all, nothing changes and the player is told to give that
action another key first. Esc is never bound here (it cancels the wait for a key), so an
action that has Esc keeps it beside its new key: the pause menu always answers Esc.
Shift, Ctrl, Alt and Meta are
refused: while one is held Panda3D puts its name before every other key's ("shift-w"),
so bound to an action they would stop the other keys.

The player's bindings are saved as ``bindings.toml`` beside their ``settings.toml``
(:func:`common.settings.user_folder`), written atomically by ``tomli_w`` (which escapes
every key name TOML needs) under a comment header: a ``[keyboard]`` and a ``[gamepad]``
table naming only the actions that differ from config/controls.toml (the rest follow that
file). A file that cannot be read (bad TOML, another table, an unknown action, a key or
button that is not a string, an empty key list, an axis the config does not allow or one
two actions share) gives one warning (through :mod:`logging`) and the defaults for both
tables, and is left as it is until the player changes a binding.
"""

from __future__ import annotations

import dataclasses
import logging
import tomllib
from dataclasses import dataclass
from pathlib import Path

import tomli_w

from common.settings import toml_comment, user_folder, write_atomically
from common.spec import SpecError, build_spec
from game.input.binding_rule import take
from game.input.bindings import keys_in_words
from game.input.gamepad import GamepadSpec
from game.input.keyboard import KeyboardSpec
from game.input.pad_rebinding import PadAssignment, assign_pad_button, next_axis
from game.input.pad_rebinding import binding_actions as pad_binding_actions

FILE_NAME = "bindings.toml"
KEYBOARD_TABLE, GAMEPAD_TABLE = "keyboard", "gamepad"
TABLES = (KEYBOARD_TABLE, GAMEPAD_TABLE)
CANCEL_KEY = "escape"
"""Ends the wait for a key without binding anything; never bound from the menu."""
MODIFIERS = ("shift", "control", "alt", "meta")
"""Panda3D's modifier buttons (ShowBase's ButtonThrower prefixes them to other keys)."""
HEADER = ("Tank Battle: your bindings (written by the pause menu's Controls page).",
          "Only the actions you changed; the rest follow config/controls.toml.")

log = logging.getLogger(__name__)


def bindings_path(environ=None, platform: str | None = None, home: Path | None = None) -> Path:
    """Where this user's key bindings live: beside their settings."""
    return user_folder("config", environ, platform, home) / FILE_NAME


def actions() -> tuple[str, ...]:
    """Every keyboard action, in config/controls.toml's order."""
    return tuple(field.name for field in dataclasses.fields(KeyboardSpec))


def action_words(action: str) -> str:
    return action.replace("_", " ")


def is_modifier(key: str) -> bool:
    """A modifier itself (either side's) or a key pressed while one was held."""
    names = {side + modifier for modifier in MODIFIERS for side in ("", "l", "r")}
    return key in names or any(key.startswith(modifier + "-") for modifier in MODIFIERS)


@dataclass(frozen=True)
class Assignment:
    """What asking for a key did: the bindings after it (the same when refused) and one
    line for the player."""

    keyboard: KeyboardSpec
    message: str
    changed: bool


def assign_key(keyboard: KeyboardSpec, action: str, key: str) -> Assignment:
    """``key`` as ``action``'s only key (Esc kept where it was), taken from any other
    action that had it, under the rule above. Never raises."""
    def refused(message: str) -> Assignment:
        return Assignment(keyboard, message, changed=False)

    if action not in actions():
        return refused(f"There is no action called {action!r}.")
    if not isinstance(key, str) or not key:
        return refused("That key has no name: try another.")
    if key == CANCEL_KEY:
        return refused("Esc cancels: it cannot be bound.")
    if is_modifier(key):
        return refused("Shift, Ctrl, Alt and Meta cannot be bound: held, they change the "
                       "other keys.")
    taken = take(keyboard, action, key, actions(), CANCEL_KEY, keys_in_words, action_words,
                 "key")
    if taken.refusal is not None:
        return refused(taken.refusal)
    message = f"{action_words(action).capitalize()}: {keys_in_words(taken.controls)}"
    if taken.taken_from:
        message += f" (taken from {', '.join(taken.taken_from)})"
    return Assignment(taken.bindings, message, changed=True)


def _section(table: dict, name: str, allowed: tuple[str, ...]) -> dict:
    """One table of the file (empty when it has none); a SpecError for anything in it that
    is not one of ``allowed``'s actions."""
    section = table.get(name, {})
    if not isinstance(section, dict):
        raise SpecError(name, section, "a table of actions")
    for action, value in section.items():
        if action not in allowed:
            raise SpecError(f"{name}.{action}", value,
                            f"an action of config/controls.toml [{name}]")
    return section


def _merged(spec_class, defaults, section: dict, name: str):
    """``defaults`` with ``section``'s actions over them, checked as the config is."""
    merged = {field.name: getattr(defaults, field.name)
              for field in dataclasses.fields(spec_class)}
    merged = {key: list(value) if isinstance(value, tuple) else value
              for key, value in merged.items()}
    merged.update(section)
    return build_spec(spec_class, merged, prefix=name + ".")


def bindings_from_table(table, defaults: KeyboardSpec,
                        gamepad_defaults: GamepadSpec) -> tuple[KeyboardSpec, GamepadSpec]:
    """The keyboard and pad bindings a parsed bindings file asks for, over the defaults; a
    SpecError names the first thing wrong with it."""
    if not isinstance(table, dict):
        raise SpecError("(top level)", table, "a table")
    for name, value in table.items():
        if name not in TABLES:
            raise SpecError(name, value, "only [keyboard] and [gamepad] tables")
    keyboard = _merged(KeyboardSpec, defaults, _section(table, KEYBOARD_TABLE, actions()),
                       KEYBOARD_TABLE)
    gamepad = _merged(GamepadSpec, gamepad_defaults,
                      _section(table, GAMEPAD_TABLE, pad_binding_actions()), GAMEPAD_TABLE)
    return keyboard, gamepad


@dataclass
class LoadedBindings:
    keyboard: KeyboardSpec
    gamepad: GamepadSpec
    warning: str | None = None
    """One line saying why the file was not used (None: read fine, or no file yet)."""


def load_bindings(path: Path, defaults: KeyboardSpec,
                  gamepad_defaults: GamepadSpec) -> LoadedBindings:
    """The saved bindings over the defaults; anything wrong with the file: the defaults
    and one warning line. Never raises."""
    path = Path(path)
    try:
        with open(path, "rb") as stream:
            table = tomllib.load(stream)
    except FileNotFoundError:
        return LoadedBindings(defaults, gamepad_defaults)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        reason = getattr(error, "strerror", None) or str(error) or type(error).__name__
        return LoadedBindings(defaults, gamepad_defaults,
                              f"tank-battle: {path}: not read ({reason}); "
                              "using the default bindings")
    try:
        return LoadedBindings(*bindings_from_table(table, defaults, gamepad_defaults))
    except SpecError as error:
        return LoadedBindings(defaults, gamepad_defaults,
                              f"tank-battle: {path}: {error.key} = {error.value!r}: "
                              f"expected {error.expected}; using the default bindings")


def _changed(spec, defaults) -> dict:
    """Each binding of ``spec`` that differs from ``defaults``, by action."""
    return {field.name: getattr(spec, field.name) for field in dataclasses.fields(spec)
            if getattr(spec, field.name) != getattr(defaults, field.name)}


def bindings_text(keyboard: KeyboardSpec, defaults: KeyboardSpec, gamepad: GamepadSpec,
                  gamepad_defaults: GamepadSpec) -> str:
    """The file's text: the keys and pad bindings that differ from the defaults, both
    tables always present."""
    table = {KEYBOARD_TABLE: _changed(keyboard, defaults),
             GAMEPAD_TABLE: _changed(gamepad, gamepad_defaults)}
    return "\n".join(toml_comment(line) for line in HEADER) + "\n" + tomli_w.dumps(table)


class UserBindings:
    """The keyboard and pad bindings in use, the defaults (config/controls.toml) and the
    file."""

    def __init__(self, defaults: KeyboardSpec, gamepad_defaults: GamepadSpec,
                 path: Path | None = None, warn=None):
        self.defaults = defaults
        self.gamepad_defaults = gamepad_defaults
        self.path = Path(path) if path is not None else bindings_path()
        loaded = load_bindings(self.path, defaults, gamepad_defaults)
        self.current = loaded.keyboard
        self.gamepad = loaded.gamepad
        self.warning = loaded.warning
        if loaded.warning is not None:
            (warn or log.warning)(loaded.warning)

    def assign(self, action: str, key: str) -> Assignment:
        """``key`` to ``action`` under the rule (not saved until :meth:`save`)."""
        assignment = assign_key(self.current, action, key)
        self.current = assignment.keyboard
        return assignment

    def assign_pad_button(self, action: str, button: str) -> PadAssignment:
        """``button`` to pad ``action`` under the pad's rule (not saved until :meth:`save`)."""
        assignment = assign_pad_button(self.gamepad, action, button)
        self.gamepad = assignment.gamepad
        return assignment

    def next_axis(self, action: str) -> PadAssignment:
        """Pad ``action`` on to its next axis (not saved until :meth:`save`)."""
        assignment = next_axis(self.gamepad, action)
        self.gamepad = assignment.gamepad
        return assignment

    def restore_defaults(self) -> None:
        """config/controls.toml's keys and pad bindings, both."""
        self.current = self.defaults
        self.gamepad = self.gamepad_defaults

    def save(self) -> None:
        """Write the file atomically (raises OSError when it cannot)."""
        write_atomically(self.path, bindings_text(self.current, self.defaults, self.gamepad,
                                                  self.gamepad_defaults))
        self.warning = None
