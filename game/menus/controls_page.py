"""The pause menu's Controls page: every action with its keyboard / mouse keys and its pad
controls, in the rows of the bindings table of docs/controls.md (:data:`game.input.bindings.ROWS`).

Each keyboard action's keys are a button. Click one and it says "press a key...": the
next key pressed (or mouse button clicked or wheel turned over the menu) becomes that
action's key under :mod:`game.input.rebinding`'s rule, and Esc cancels. Each pad action is a
button too. A pad button action's: click, it says "press a pad button...", and the next
button pressed on any connected pad becomes its button under
:mod:`game.input.pad_rebinding`'s rule; Esc or the pad's Start cancels, and with no pad
connected the page says to connect one instead of waiting. A pad axis action's: each
click moves it to its next axis (swapping with the action that had it). "Defaults" puts
config/controls.toml's keys and pad bindings back. Every change is saved at once to the
player's bindings.toml and handed to ``on_bindings(keyboard, gamepad)``, so the running
game uses it straight away.

The keys come from ``capture`` (``listen(on_key)`` / ``stop()``: Panda3D's in the game,
:class:`game.input.keyboard.PandaKeyCapture`; a fake in tests); mouse buttons from the menu's
``veil``, which takes every click that misses a button; pad buttons from ``pad_capture``
(:class:`game.input.pad_input.PadButtonCapture` over the game's pads or a fake's, read by
:meth:`ControlsPage.poll_pads` once a frame; None: no pad can be read).
"""

from __future__ import annotations

import re

from direct.gui.DirectGui import DGG, DirectButton, DirectLabel
from panda3d.core import MouseButton, PGButton, TextNode

from game.input.bindings import ROWS, ControlsSpec, help_rows, keys_in_words, pad_in_words
from game.input.pad_rebinding import AXIS_CHOICES, CANCEL_BUTTON
from game.input.pad_rebinding import action_words as pad_action_words
from game.input.rebinding import CANCEL_KEY, UserBindings, action_words
from game.menus.menu_spec import MenuSpec

WAITING_TEXT = "press a key..."
PAD_WAITING_TEXT = "press a pad button..."
KEYBOARD, PAD = "keyboard", "pad"
"""The two columns of bindings: what :attr:`ControlsPage.waiting` waits on."""
NO_PAD_TEXT = "No gamepad connected: connect a gamepad to bind its buttons."
CELL_HEIGHT_TEXT = "Ag"
"""Every key button is as high as its frame round this (a cap and a descender)."""
MOUSE_PRESSES = {PGButton.getPressPrefix() + button.getName() + "-": button.getName()
                 for button in (MouseButton.one(), MouseButton.two(), MouseButton.three(),
                                MouseButton.wheelUp(), MouseButton.wheelDown())}
"""The veil's press events for each mouse button and the wheel, to the binding's name."""
EDIT_NOTE = ("Click an action's keys or pad button, then press the new one (Esc or Start "
             "cancels); click a pad axis to move it to the next.")
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
    given (otherwise the keys and pad controls are only shown). ``clicked(command)`` wraps
    a widget's command with the menu's click; ``button(label, command)`` makes one of the
    menu's own buttons on this page (beside its Back)."""

    def __init__(self, frame, spec: MenuSpec, controls: ControlsSpec,
                 bindings: UserBindings | None, capture, veil, *, clicked, button,
                 on_bindings, pad_capture=None):
        self.spec = spec
        self.bindings = bindings
        self.capture = capture
        self.pad_capture = pad_capture
        self.veil = veil
        self.on_bindings = on_bindings
        self.editable = bindings is not None and capture is not None
        self.keyboard = bindings.current if bindings is not None else controls.keyboard
        self.gamepad = bindings.gamepad if bindings is not None else controls.gamepad
        self.waiting: tuple[str, str] | None = None
        """(KEYBOARD or PAD, the action) waiting for its new key or pad button (None:
        none)."""
        self.key_buttons: dict[str, DirectButton] = {}
        """Each keyboard action's button, by action name: tests press them."""
        self.pad_buttons: dict[str, DirectButton] = {}
        """Each pad action's button (its buttons, or its axis), by action name."""
        self._rows: list[tuple[tuple[str, ...], tuple[str, ...]]] = []
        self._texts: list[str] = []
        text = dict(text_scale=spec.controls_text_scale, frameColor=(0, 0, 0, 0),
                    text_align=TextNode.ALeft)
        self._build_headings(frame, text)
        self._build_rows(frame, controls, clicked, text)
        self._cell_height = self._measure_height(CELL_HEIGHT_TEXT)
        self._build_notes(frame, button)
        self.refresh()

    def _build_headings(self, frame, text: dict) -> None:
        """The page's title and its columns' headings."""
        s = self.spec
        DirectLabel(parent=frame, text="Controls", text_scale=s.text_scale * 1.2,
                    text_fg=s.text_colour, frameColor=(0, 0, 0, 0), pos=(0, 0, TITLE_Z))
        for x, heading, colour in zip(s.controls_columns_x, HEADINGS,
                                      (s.text_colour, s.key_colour, s.key_colour)):
            DirectLabel(parent=frame, text=heading, text_fg=colour, pos=(x, 0, HEADING_Z),
                        **text)

    def _build_rows(self, frame, controls: ControlsSpec, clicked, text: dict) -> None:
        """One row per line of the bindings table: the action's words, then a button for
        each of its keyboard and pad actions (plain text where it has none)."""
        s = self.spec
        action_x, self._keys_x, self._pad_x = s.controls_columns_x
        for index, ((doc, keys_text, pad_text), (_, key_actions, pad_actions)) in enumerate(
                zip(help_rows(controls), ROWS)):
            z = HEADING_Z - (index + 1) * s.controls_row_spacing
            DirectLabel(parent=frame, text=short(doc), text_fg=s.text_colour,
                        pos=(action_x, 0, z), **text)
            for x, shown, actions, cells, command in (
                    (self._keys_x, keys_text, key_actions, self.key_buttons, self.start),
                    (self._pad_x, pad_text, pad_actions, self.pad_buttons, self.start_pad)):
                if not actions:
                    DirectLabel(parent=frame, text=shown, text_fg=s.key_colour,
                                pos=(x, 0, z), **text)
                for action in actions:
                    cells[action] = DirectButton(
                        parent=frame, text="", text_fg=s.key_colour,
                        text_align=TextNode.ALeft, text_scale=s.controls_text_scale,
                        frameColor=s.key_cell_colour, relief=DGG.FLAT,
                        pad=s.key_cell_padding, pos=(x, 0, z), command=clicked(command),
                        extraArgs=[action], state=DGG.NORMAL if self.editable else DGG.DISABLED)
            self._rows.append((key_actions, pad_actions))
            self._texts.append(short(doc))

    def _build_notes(self, frame, button) -> None:
        """Under the table: how to rebind (or where to), a status line, and Defaults."""
        s = self.spec
        below = HEADING_Z - (len(ROWS) + 1.5) * s.controls_row_spacing
        note = dict(text_scale=s.note_text_scale, text_fg=s.text_colour,
                    frameColor=(0, 0, 0, 0))
        DirectLabel(parent=frame, text=EDIT_NOTE if self.editable else READ_ONLY_NOTE,
                    pos=(0, 0, below), **note)
        self.status = DirectLabel(parent=frame, text="",
                                  pos=(0, 0, below - s.controls_row_spacing), **note)
        """One line: what the last change did, or why the player's file was not used."""
        if self.bindings is not None and self.bindings.warning:
            self.status["text"] = self.bindings.warning
        if self.editable:
            button("Defaults", self.restore_defaults)

    # ----- drawing -----------------------------------------------------------------------

    def _cell_text(self, column: str, action: str) -> str:
        if self.waiting == (column, action):
            return WAITING_TEXT if column == KEYBOARD else PAD_WAITING_TEXT
        if column == KEYBOARD:
            return keys_in_words(getattr(self.keyboard, action))
        return pad_in_words(getattr(self.gamepad, action))

    def refresh(self) -> None:
        """Each button shows its action's keys or pad controls (the one waiting says so),
        the buttons of a row side by side."""
        for key_actions, pad_actions in self._rows:
            for column, actions, cells, x in ((KEYBOARD, key_actions, self.key_buttons,
                                               self._keys_x),
                                              (PAD, pad_actions, self.pad_buttons,
                                               self._pad_x)):
                for action in actions:
                    cell = cells[action]
                    cell["text"] = self._cell_text(column, action)
                    cell["frameColor"] = (self.spec.capture_colour
                                          if self.waiting == (column, action)
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

    def focus_items(self) -> list:
        """Its key and pad buttons, row by row (keyboard first): what the keys and pads
        move through (the page's own buttons follow)."""
        return [*self.key_buttons.values(), *self.pad_buttons.values()]

    def columns(self) -> list[str]:
        """The page's three columns as shown, one line per row under each heading."""
        columns = [[heading] for heading in HEADINGS]
        for doc, (key_actions, pad_actions) in zip(self._texts, self._rows):
            keys, pad = (" / ".join(cells[action]["text"] for action in actions) or "—"
                         for actions, cells in ((key_actions, self.key_buttons),
                                                (pad_actions, self.pad_buttons)))
            for column, text in zip(columns, (doc, keys, pad)):
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
        self.waiting = (KEYBOARD, action)
        self.capture.listen(self.take_key)
        for event, name in MOUSE_PRESSES.items():
            self.veil.bind(event, self._mouse_pressed, [name])
        self.status["text"] = (f"{action_words(action)}: press a key, a mouse button or the "
                               "wheel (Esc cancels)")
        self.refresh()

    def start_pad(self, action: str) -> None:
        """A pad axis action: on to its next axis at once. A pad button action: wait for
        its new button on any connected pad (with none, say so and wait for nothing)."""
        if not self.editable:
            return
        self._stop_listening()
        if action in AXIS_CHOICES:
            self._settle(self.bindings.next_axis(action))
        elif self.pad_capture is None or not self.pad_capture.connected():
            self.status["text"] = NO_PAD_TEXT
        else:
            self.waiting = (PAD, action)
            self.capture.listen(self._key_while_waiting_for_pad)
            self.pad_capture.listen(self.take_pad_button, self._pad_gone)
            self.status["text"] = (f"pad {pad_action_words(action)}: press a button on the "
                                   "gamepad (Esc or Start cancels)")
        self.refresh()

    def poll_pads(self) -> None:
        """Once a frame while the menu is open: a pad button pressed while one is awaited."""
        if self.waiting is not None and self.waiting[0] == PAD:
            self.pad_capture.poll()

    def _mouse_pressed(self, name: str, *_watcher_parameter) -> None:
        self.take_key(name)

    def take_key(self, key: str) -> None:
        """The key pressed while waiting: Esc cancels; any other goes to the action under
        the rebinding rule, and a change is saved and applied at once."""
        if self.waiting is None or self.waiting[0] != KEYBOARD:
            return
        action = self.waiting[1]
        self._stop_listening()
        if key == CANCEL_KEY:
            self.status["text"] = (f"Cancelled: {action_words(action)} keeps "
                                   f"{keys_in_words(getattr(self.keyboard, action))}.")
        else:
            self._settle(self.bindings.assign(action, key))
        self.refresh()

    def _key_while_waiting_for_pad(self, key: str) -> None:
        """Esc cancels the wait for a pad button; other keys are not what it waits for."""
        if key == CANCEL_KEY:
            self.take_pad_button(CANCEL_BUTTON)
        elif self.waiting is not None:
            self.status["text"] = ("Waiting for a button on the gamepad (Esc or Start "
                                   "cancels).")

    def take_pad_button(self, button: str) -> None:
        """The pad button pressed while waiting: Start cancels; any other goes to the
        action under the pad's rule, and a change is saved and applied at once."""
        if self.waiting is None or self.waiting[0] != PAD:
            return
        action = self.waiting[1]
        self._stop_listening()
        if button == CANCEL_BUTTON:
            self.status["text"] = (f"Cancelled: pad {pad_action_words(action)} keeps "
                                   f"{pad_in_words(getattr(self.gamepad, action))}.")
        else:
            self._settle(self.bindings.assign_pad_button(action, button))
        self.refresh()

    def _pad_gone(self) -> None:
        self._stop_listening()
        self.status["text"] = NO_PAD_TEXT
        self.refresh()

    def restore_defaults(self) -> None:
        """config/controls.toml's keys and pad bindings for every action, saved and
        applied."""
        self.cancel()
        self.bindings.restore_defaults()
        self._apply("Default keys and pad bindings back")
        self.refresh()

    def cancel(self) -> None:
        """Stop waiting for a key or pad button, binding nothing (leaving the page does
        this)."""
        if self.waiting is not None:
            self._stop_listening()
            self.status["text"] = ""
            self.refresh()

    def _stop_listening(self) -> None:
        if self.waiting is None:
            return
        column, self.waiting = self.waiting[0], None
        self.capture.stop()
        if column == PAD:
            self.pad_capture.stop()
        else:
            for event in MOUSE_PRESSES:
                self.veil.unbind(event)

    def _settle(self, assignment) -> None:
        """A change saved and applied; a refusal said."""
        if assignment.changed:
            self._apply(assignment.message)
        else:
            self.status["text"] = assignment.message

    def _apply(self, message: str) -> None:
        self.keyboard, self.gamepad = self.bindings.current, self.bindings.gamepad
        try:
            self.bindings.save()
            saved = "saved"
        except OSError as error:
            saved = f"not saved ({error.strerror or error})"
        self.status["text"] = f"{message}; {saved}."
        self.on_bindings(self.keyboard, self.gamepad)

    def destroy(self) -> None:
        self._stop_listening()
