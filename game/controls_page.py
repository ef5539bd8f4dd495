"""The pause menu's Controls page: every action with its keyboard / mouse keys and its pad
controls, in the rows of the README's bindings table (:data:`game.bindings.ROWS`).

Each keyboard action's keys are a button. Click one and it says "press a key...": the
next key pressed (or mouse button clicked or wheel turned over the menu) becomes that
action's key under :mod:`game.rebinding`'s rule, and Esc cancels. "Defaults" puts
config/controls.toml's keys back. Every change is saved at once to the player's
bindings.toml and handed to ``on_bindings(keyboard)``, so the running game uses it
straight away. Pad controls are shown, not edited (config/controls.toml [gamepad]).

The keys come from ``capture`` (``listen(on_key)`` / ``stop()``: Panda3D's in the game,
:class:`game.keyboard.PandaKeyCapture`; a fake in tests); mouse buttons from the menu's
``veil``, which takes every click that misses a button.
"""

from __future__ import annotations

import re

from direct.gui.DirectGui import DGG, DirectButton, DirectLabel
from panda3d.core import MouseButton, PGButton, TextNode

from game.bindings import ROWS, help_rows, keys_in_words
from game.config import ControlsSpec, MenuSpec
from game.rebinding import CANCEL_KEY, UserBindings, action_words

WAITING_TEXT = "press a key..."
CELL_HEIGHT_TEXT = "Ag"
"""Every key button is as high as its frame round this (a cap and a descender)."""
MOUSE_PRESSES = {PGButton.getPressPrefix() + button.getName() + "-": button.getName()
                 for button in (MouseButton.one(), MouseButton.two(), MouseButton.three(),
                                MouseButton.wheelUp(), MouseButton.wheelDown())}
"""The veil's press events for each mouse button and the wheel, to the binding's name."""
EDIT_NOTE = ("Click an action's keys, then press the new key (Esc cancels). "
             "Pad: edit config/controls.toml [gamepad].")
READ_ONLY_NOTE = "To change a binding, edit config/controls.toml."
HEADINGS = ("action", "keyboard / mouse", "gamepad")
TITLE_Z, HEADING_Z = 0.8, 0.68
"""Heights of the page's title and of its column headings (the rows run down from it)."""
SHORT_DOC = 40
"""An action's description is cut to this many characters."""


def short(doc: str, most: int = SHORT_DOC) -> str:
    """An action's description without its asides in brackets, cut at its first colon or
    semicolon, and to ``most`` characters."""
    doc = re.sub(r" \([^)]*\)", "", doc)
    for mark in (":", ";"):
        doc = doc.split(mark)[0]
    return doc if len(doc) <= most else doc[:most - 1] + "…"


class ControlsPage:
    """Draws the page on ``frame``; rebinds when both ``bindings`` and ``capture`` are
    given (otherwise the keys are shown like the pad's). ``clicked(command)`` wraps a
    widget's command with the menu's click; ``button(label, command)`` makes one of the
    menu's own buttons on this page (beside its Back)."""

    def __init__(self, frame, spec: MenuSpec, controls: ControlsSpec,
                 bindings: UserBindings | None, capture, veil, *, clicked, button,
                 on_bindings):
        self.spec = spec
        self.bindings = bindings
        self.capture = capture
        self.veil = veil
        self.on_bindings = on_bindings
        self.editable = bindings is not None and capture is not None
        self.keyboard = bindings.current if bindings is not None else controls.keyboard
        self.waiting: str | None = None
        """The action waiting for its new key (None: none)."""
        s = spec
        DirectLabel(parent=frame, text="Controls", text_scale=s.text_scale * 1.2,
                    text_fg=s.text_colour, frameColor=(0, 0, 0, 0), pos=(0, 0, TITLE_Z))
        text = dict(text_scale=s.controls_text_scale, frameColor=(0, 0, 0, 0),
                    text_align=TextNode.ALeft)
        action_x, self._keys_x, pad_x = s.controls_columns_x
        for x, heading, colour in zip(s.controls_columns_x, HEADINGS,
                                      (s.text_colour, s.key_colour, s.key_colour)):
            DirectLabel(parent=frame, text=heading, text_fg=colour, pos=(x, 0, HEADING_Z),
                        **text)
        self.key_buttons: dict[str, DirectButton] = {}
        """Each keyboard action's button, by action name: tests press them."""
        self._rows: list[tuple[str, ...]] = []
        self._texts: list[tuple[str, str]] = []
        for index, ((doc, keys_text, pad_text), (_, actions, _)) in enumerate(
                zip(help_rows(controls), ROWS)):
            z = HEADING_Z - (index + 1) * s.controls_row_spacing
            DirectLabel(parent=frame, text=short(doc), text_fg=s.text_colour,
                        pos=(action_x, 0, z), **text)
            DirectLabel(parent=frame, text=short(pad_text), text_fg=s.key_colour,
                        pos=(pad_x, 0, z), **text)
            if not actions:
                DirectLabel(parent=frame, text=keys_text, text_fg=s.key_colour,
                            pos=(self._keys_x, 0, z), **text)
            for action in actions:
                self.key_buttons[action] = DirectButton(
                    parent=frame, text="", text_fg=s.key_colour, text_align=TextNode.ALeft,
                    text_scale=s.controls_text_scale, frameColor=s.key_cell_colour,
                    relief=DGG.FLAT, pad=s.key_cell_padding, pos=(self._keys_x, 0, z),
                    command=clicked(self.start), extraArgs=[action],
                    state=DGG.NORMAL if self.editable else DGG.DISABLED)
            self._rows.append(actions)
            self._texts.append((short(doc), short(pad_text)))
        self._cell_height = self._measure_height(CELL_HEIGHT_TEXT)
        below = HEADING_Z - (len(ROWS) + 1.5) * s.controls_row_spacing
        note = dict(text_scale=s.note_text_scale, text_fg=s.text_colour,
                    frameColor=(0, 0, 0, 0))
        DirectLabel(parent=frame, text=EDIT_NOTE if self.editable else READ_ONLY_NOTE,
                    pos=(0, 0, below), **note)
        self.status = DirectLabel(parent=frame, text="",
                                  pos=(0, 0, below - s.controls_row_spacing), **note)
        """One line: what the last key did, or why the player's file was not used."""
        if bindings is not None and bindings.warning:
            self.status["text"] = bindings.warning
        if self.editable:
            button("Defaults", self.restore_defaults)
        self.refresh()

    # ----- drawing -----------------------------------------------------------------------

    def refresh(self) -> None:
        """Each key button shows its action's keys (the one waiting says so), the buttons
        of a row side by side."""
        for actions in self._rows:
            x = self._keys_x
            for action in actions:
                cell = self.key_buttons[action]
                waiting = action == self.waiting
                cell["text"] = WAITING_TEXT if waiting else keys_in_words(
                    getattr(self.keyboard, action))
                cell["frameColor"] = (self.spec.capture_colour if waiting
                                      else self.spec.key_cell_colour)
                cell["frameSize"] = None
                cell.resetFrameSize()  # as wide as the new text, as high as every other
                left, right, _, _ = cell.getBounds()
                cell["frameSize"] = (left, right, *self._cell_height)
                cell.setX(x - left)
                x += right - left + self.spec.key_cell_gap

    def _measure_height(self, text: str) -> tuple[float, float]:
        """The bottom and top of a key button's frame round ``text``."""
        probe = next(iter(self.key_buttons.values()))
        probe["text"] = text
        probe.resetFrameSize()
        _, _, bottom, top = probe.getBounds()
        return bottom, top

    def columns(self) -> list[str]:
        """The page's three columns as shown, one line per row under each heading."""
        keys = [" / ".join(self.key_buttons[action]["text"] for action in actions) or "—"
                for actions in self._rows]
        columns = [[heading] for heading in HEADINGS]
        for (doc, pad), cell in zip(self._texts, keys):
            for column, text in zip(columns, (doc, cell, pad)):
                column.append(text)
        return ["\n".join(column) for column in columns]

    # ----- rebinding ---------------------------------------------------------------------

    @property
    def capturing(self) -> bool:
        return self.waiting is not None

    def start(self, action: str) -> None:
        """Wait for ``action``'s new key (a second click elsewhere moves the wait there)."""
        if not self.editable:
            return
        self._stop_listening()
        self.waiting = action
        self.capture.listen(self.take_key)
        for event, name in MOUSE_PRESSES.items():
            self.veil.bind(event, self._mouse_pressed, [name])
        self.status["text"] = (f"{action_words(action)}: press a key, a mouse button or the "
                               "wheel (Esc cancels)")
        self.refresh()

    def _mouse_pressed(self, name: str, *_watcher_parameter) -> None:
        self.take_key(name)

    def take_key(self, key: str) -> None:
        """The key pressed while waiting: Esc cancels; any other goes to the action under
        the rebinding rule, and a change is saved and applied at once."""
        action = self.waiting
        if action is None:
            return
        self._stop_listening()
        if key == CANCEL_KEY:
            self.status["text"] = (f"Cancelled: {action_words(action)} keeps "
                                   f"{keys_in_words(getattr(self.keyboard, action))}.")
        else:
            assignment = self.bindings.assign(action, key)
            if assignment.changed:
                self._apply(assignment.message)
            else:
                self.status["text"] = assignment.message
        self.refresh()

    def restore_defaults(self) -> None:
        """config/controls.toml's keys for every action, saved and applied."""
        self.cancel()
        self.bindings.restore_defaults()
        self._apply("Default keys back")
        self.refresh()

    def cancel(self) -> None:
        """Stop waiting for a key, binding nothing (leaving the page does this)."""
        if self.waiting is not None:
            self._stop_listening()
            self.status["text"] = ""
            self.refresh()

    def _stop_listening(self) -> None:
        if self.waiting is None:
            return
        self.waiting = None
        self.capture.stop()
        for event in MOUSE_PRESSES:
            self.veil.unbind(event)

    def _apply(self, message: str) -> None:
        self.keyboard = self.bindings.current
        try:
            self.bindings.save()
            saved = "saved"
        except OSError as error:
            saved = f"not saved ({error.strerror or error})"
        self.status["text"] = f"{message}; {saved}."
        self.on_bindings(self.keyboard)

    def destroy(self) -> None:
        self._stop_listening()
