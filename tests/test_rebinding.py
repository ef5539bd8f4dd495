"""Rebinding keys: the rule (the key pressed becomes the action's only key, taken from any
other action unless that would leave it with none; Esc cancels and is never bound), the
player's bindings.toml (saved, reloaded, a bad file giving one warning and the defaults),
and the keyboard input taking new bindings at once. No window: keys come through fakes."""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path
from types import SimpleNamespace

import pytest

from common.settings import OVERRIDE_ENV, settings_path
from game.input.keyboard import ActionKeys, KeyboardInput, KeyboardMapper, PandaKeyCapture
from game.input.pad_input import CombinedInput
from game.input.rebinding import (UserBindings, assign_key, bindings_path, bindings_text,
                                  load_bindings)


class FakeEvents:
    """accept / ignore like a DirectObject; ``send`` runs the handler as the messenger would."""

    def __init__(self):
        self.handlers = {}

    def accept(self, event, handler, extra_arguments=()):
        self.handlers[event] = (handler, list(extra_arguments))

    def ignore(self, event):
        self.handlers.pop(event, None)

    def send(self, event, *sent):
        if event in self.handlers:
            handler, extra = self.handlers[event]
            handler(*extra, *sent)


# ----- the rule ---------------------------------------------------------------------------

def test_a_rebound_action_answers_the_new_key_and_not_the_old(keys):
    assignment = assign_key(keys, "fire", "k")
    assert assignment.changed and assignment.keyboard.fire == ("k",)
    mapper = KeyboardMapper(assignment.keyboard)
    assert mapper.controls({"k"}).fire
    assert not mapper.controls({"space"}).fire and not mapper.controls({"mouse1"}).fire
    assert assignment.message == "Fire: K"


def test_a_key_another_action_shares_moves_to_the_new_action(keys):
    assignment = assign_key(keys, "fire", "w")
    assert assignment.changed
    assert assignment.keyboard.fire == ("w",) and assignment.keyboard.throttle == ("arrow_up",)
    assert "taken from throttle" in assignment.message
    mapper = KeyboardMapper(assignment.keyboard)
    assert mapper.controls({"w"}).fire and mapper.controls({"w"}).throttle == 0.0


def test_a_key_that_is_another_actions_only_key_is_refused(keys):
    assignment = assign_key(keys, "gun_up", "q")
    assert not assignment.changed and assignment.keyboard is keys
    assert assignment.message == ("Q is turret left's only key: give turret left another "
                                  "key first.")


@pytest.mark.parametrize("key, words", [
    ("escape", "Esc cancels"), ("lshift", "Shift, Ctrl"), ("shift", "Shift, Ctrl"),
    ("rcontrol", "Shift, Ctrl"), ("shift-g", "Shift, Ctrl"), ("alt-x", "Shift, Ctrl"),
    ("", "no name"), (None, "no name")])
def test_esc_modifiers_and_nameless_keys_are_never_bound(keys, key, words):
    assignment = assign_key(keys, "fire", key)
    assert not assignment.changed and words in assignment.message


def test_unknown_actions_are_refused_not_raised(keys):
    assignment = assign_key(keys, "teleport", "k")
    assert not assignment.changed and "teleport" in assignment.message


def test_minus_is_a_key_not_a_modifier(keys):
    assignment = assign_key(keys, "camera_zoom_in", "-")
    assert assignment.changed and assignment.keyboard.camera_zoom_out == ("wheel_down",)


def test_pause_keeps_esc_beside_its_new_key(keys):
    assignment = assign_key(keys, "pause", "k")
    assert assignment.keyboard.pause == ("escape", "k")


def test_the_key_an_action_already_has_alone_changes_nothing(keys):
    assignment = assign_key(keys, "handbrake", "x")
    assert not assignment.changed and "already" in assignment.message
    # An action with two keys given one of them keeps just that one.
    assert assign_key(keys, "throttle", "w").keyboard.throttle == ("w",)


def test_no_key_is_left_bound_twice(keys):
    keyboard = keys
    for action, key in [("fire", "w"), ("throttle", "i"), ("gear_up", "arrow_up"),
                        ("brake", "space"), ("reset", "mouse1")]:
        keyboard = assign_key(keyboard, action, key).keyboard
    every = [key for field in dataclasses.fields(keyboard)
             for key in getattr(keyboard, field.name)]
    assert len(every) == len(set(every))


# ----- the player's file ------------------------------------------------------------------

def test_the_bindings_file_lives_beside_the_settings(tmp_path):
    home = tmp_path / "me"
    assert bindings_path({}, "linux", home) == settings_path({}, "linux", home).parent / (
        "bindings.toml")
    assert bindings_path({OVERRIDE_ENV: "/t"}, "linux", home) == Path("/t/bindings.toml")


def test_bindings_survive_a_save_and_a_fresh_load(home, keys, pads):
    user = UserBindings(keys, pads)
    assert user.path == home / "bindings.toml" and user.current == keys
    user.assign("fire", "k")
    user.assign("gear_up", "arrow_up")
    user.save()
    again = UserBindings(keys, pads)
    assert again.warning is None and again.current == user.current
    assert again.current.fire == ("k",) and again.current.throttle == ("w",)
    assert list(home.iterdir()) == [home / "bindings.toml"]  # no temporary file left
    table = tomllib.loads((home / "bindings.toml").read_text(encoding="utf-8"))
    assert table == {"keyboard": {"throttle": ["w"], "gear_up": ["arrow_up"], "fire": ["k"]},
                     "gamepad": {}}  # only what changed


def test_odd_key_names_round_trip(home, keys, pads):
    user = UserBindings(keys, pads)
    user.assign("fire", 'quote"and\\backslash')
    user.save()
    assert UserBindings(keys, pads).current.fire == ('quote"and\\backslash',)


def test_defaults_are_restored_and_saved_as_nothing_changed(home, keys, pads):
    user = UserBindings(keys, pads)
    user.assign("fire", "k")
    user.restore_defaults()
    user.save()
    assert user.current == keys and UserBindings(keys, pads).current == keys
    text = bindings_text(keys, keys, pads, pads)
    assert tomllib.loads(text) == {"keyboard": {}, "gamepad": {}}
    assert [line for line in text.splitlines() if line and not line.startswith("#")] == [
        "[keyboard]", "[gamepad]"]


@pytest.mark.parametrize("text, words", [
    ("[keyboard\nfire = 1", "not read"),
    ("[keyboard]\nteleport = [\"k\"]\n", "keyboard.teleport"),
    ("[keyboard]\nfire = [3]\n", "keyboard.fire[0] = 3: expected a string"),
    ("[keyboard]\nfire = \"k\"\n", "keyboard.fire"),
    ("[keyboard]\nfire = []\n", "keyboard.fire"),
    ("keyboard = 3\n", "keyboard = 3"),
    ("[mouse]\ndead_zone = 0.2\n", "mouse"),
    ("[gamepad]\nteleport = [\"face_a\"]\n", "gamepad.teleport"),
    ("[gamepad]\nstick_dead_zone = 0.3\n", "gamepad.stick_dead_zone"),
    ("[gamepad]\nfire = [3]\n", "gamepad.fire[0] = 3: expected a string"),
    ("[gamepad]\nfire = \"face_a\"\n", "gamepad.fire"),
    ("[gamepad]\nthrottle_axis = \"left_z\"\n", "gamepad.throttle_axis"),
    ("[gamepad]\nthrottle_axis = \"left_trigger\"\n", "not already used by throttle_axis"),
    ("[gamepad]\ngate_stick = \"middle\"\n", "gamepad.gate_stick"),
    ("gamepad = 3\n", "gamepad = 3"),
    ("[keyboard]\nfire = [\"k\"]\n[gamepad]\nfire = [1]\n", "gamepad.fire"),
])
def test_a_bad_file_gives_one_warning_and_the_defaults_and_is_left_alone(home, keys, pads, text,
                                                                          words):
    home.mkdir()
    path = home / "bindings.toml"
    path.write_text(text, encoding="utf-8")
    warnings = []
    user = UserBindings(keys, pads, warn=warnings.append)
    assert user.current == keys and user.gamepad == pads
    assert len(warnings) == 1 and warnings[0] == user.warning
    assert words in warnings[0] and "using the default bindings" in warnings[0]
    assert "\n" not in warnings[0] and warnings[0].startswith(f"tank-battle: {path}: ")
    assert path.read_text(encoding="utf-8") == text


def test_a_file_that_is_not_text_or_not_a_file_gives_the_defaults(home, keys, pads):
    home.mkdir()
    (home / "bindings.toml").write_bytes(b"\xff\xfe\x00junk")
    assert load_bindings(home / "bindings.toml", keys, pads).keyboard == keys
    folder = home / "folder.toml"
    folder.mkdir()
    loaded = load_bindings(folder, keys, pads)
    assert loaded.keyboard == keys and "not read" in loaded.warning


def test_a_save_that_cannot_write_raises_oserror_and_keeps_the_bindings(home, keys, pads):
    home.mkdir()
    (home / "bindings.toml").mkdir()  # a folder where the file should be
    user = UserBindings(keys, pads, warn=lambda line: None)
    user.assign("fire", "k")
    with pytest.raises(OSError):
        user.save()
    assert user.current.fire == ("k",)


# ----- the keyboard takes new bindings at once --------------------------------------------

def test_keyboard_input_listens_to_the_new_keys_after_a_rebind(keys):
    events = FakeEvents()
    keyboard = KeyboardInput(events, keys)
    events.send("w")
    assert keyboard.controls().throttle == 1.0
    keyboard.rebind(assign_key(keys, "fire", "k").keyboard)
    assert keyboard.controls().throttle == 0.0, "keys held before a rebind are let go"
    events.send("k")
    assert keyboard.controls().fire
    events.send("k-up")
    events.send("space")
    events.send("mouse1")
    assert not keyboard.controls().fire and "space" not in events.handlers


def test_keyboard_shift_presses_reach_the_lever_through_the_combined_input(keys):
    events = FakeEvents()
    combined = CombinedInput(KeyboardInput(events, keys), None)
    events.send("g")
    assert combined.controls(None, "2").gear == "3"
    assert combined.controls(None, "3").gear == "3"
    events.send("g-up")
    events.send("b")
    assert combined.controls(None, "3").gear == "2"


def test_the_apps_own_keys_follow_a_rebind_and_hold_off_while_blocked(keys):
    events, calls, blocked = FakeEvents(), [], [False]
    action_keys = ActionKeys(events, {"pause": lambda: calls.append("pause"),
                                      "quit": lambda: calls.append("quit")},
                             keys, blocked=lambda: blocked[0])
    events.send("p")
    events.send("f10")
    assert calls == ["pause", "quit"]
    blocked[0] = True
    events.send("escape")
    assert calls == ["pause", "quit"]
    blocked[0] = False
    action_keys.rebind(assign_key(keys, "pause", "k").keyboard)
    events.send("p")
    events.send("k")
    events.send("escape")
    assert calls == ["pause", "quit", "pause", "pause"]
    action_keys.destroy()
    assert events.handlers == {}


def test_the_app_hands_new_bindings_to_both_listeners_and_the_pads(keys, pads):
    from game.app import TankBattleApp

    class Listener:
        keyboard = None

        def rebind(self, keyboard):
            self.keyboard = keyboard

    rebound_pads = []
    app = SimpleNamespace(player_inputs=SimpleNamespace(keyboard=Listener(),
                                                        rebind_pads=rebound_pads.append),
                          action_keys=Listener())
    new = assign_key(keys, "fire", "k").keyboard
    TankBattleApp.apply_bindings(app, new, pads)
    assert app.player_inputs.keyboard.keyboard is new and app.action_keys.keyboard is new
    assert rebound_pads == [pads]


def test_the_panda_capture_asks_the_thrower_for_a_button_down_event_and_stops():
    class Thrower:
        event = ""

        def setButtonDownEvent(self, name):
            self.event = name

    thrower, events, pressed = Thrower(), FakeEvents(), []
    capture = PandaKeyCapture(thrower, events)
    capture.listen(pressed.append)
    assert thrower.event
    events.send(thrower.event, "k")
    assert pressed == ["k"]
    capture.stop()
    assert thrower.event == "" and events.handlers == {}
