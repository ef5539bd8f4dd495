"""Rebinding the gamepad: a button pressed becomes the action's only button (taken from
another action unless it is that one's only button; Start cancels and pause keeps it),
an axis click moves the action on to its next axis swapping with the action that had it
(no two actions ever share one), the [gamepad] table of bindings.toml (saved, reloaded,
a bad one giving one warning and the defaults), the next-button capture over a fake pad
source, and the running game's pads taking new bindings at once. No window, no pad."""

from __future__ import annotations

import random
import tomllib
from dataclasses import replace
from types import SimpleNamespace

import pytest

from game.input.gamepad import AXES, DRIVING_AXES, GamepadMapper
from game.input.pad_input import GamepadInput, PadButtonCapture
from game.input.pad_rebinding import (AXIS_CHOICES, CANCEL_BUTTON, assign_pad_button,
                                      binding_actions, button_actions, next_axis)
from game.input.player_input import LocalInputs
from game.input.rebinding import UserBindings, load_bindings
from game.sim.local_players import SECOND_PLAYER
from tests.test_player_input import FakeEvents, FakePads, FakeView, _simulation

# ----- the button rule --------------------------------------------------------------------

def test_the_actions_are_the_configs_button_and_axis_bindings(pads):
    assert set(button_actions()) == set(pads.button_actions())
    assert set(binding_actions()) == set(pads.button_actions()) | set(AXIS_CHOICES)
    assert "stick_dead_zone" not in binding_actions()


def test_a_rebound_pad_button_changes_what_the_mapper_reads(pads):
    assignment = assign_pad_button(pads, "fire", "ltrigger")
    assert assignment.changed and assignment.gamepad.fire == ("ltrigger",)
    assert assignment.message == "Pad fire: left trigger click"
    mapper = GamepadMapper(assignment.gamepad)
    assert mapper.update({}, {"ltrigger"}).fire
    assert not mapper.update({}, {"face_a"}).fire


def test_a_button_another_action_shares_moves_to_the_new_action(pads):
    shared = replace(pads, handbrake=("face_b", "ltrigger"))
    assignment = assign_pad_button(shared, "fire", "face_b")
    assert assignment.changed
    assert assignment.gamepad.fire == ("face_b",) and assignment.gamepad.handbrake == (
        "ltrigger",)
    assert "taken from handbrake" in assignment.message
    controls = GamepadMapper(assignment.gamepad).update({}, {"face_b"})
    assert controls.fire and not controls.handbrake


def test_a_button_that_is_another_actions_only_button_is_refused(pads):
    assignment = assign_pad_button(pads, "fire", "face_b")
    assert not assignment.changed and assignment.gamepad is pads
    assert assignment.message == ("B is handbrake's only button: give handbrake another "
                                  "button first.")


@pytest.mark.parametrize("button, words", [(CANCEL_BUTTON, "Start cancels"),
                                           ("", "no name"), (None, "no name")])
def test_start_and_nameless_buttons_are_never_bound(pads, button, words):
    assignment = assign_pad_button(pads, "fire", button)
    assert not assignment.changed and words in assignment.message


def test_pause_keeps_start_beside_its_new_button(pads):
    assert assign_pad_button(pads, "pause", "ltrigger").gamepad.pause == ("start",
                                                                          "ltrigger")


def test_unknown_and_already_bound_are_refused_not_raised(pads):
    assert not assign_pad_button(pads, "teleport", "face_a").changed
    assert not assign_pad_button(pads, "throttle_axis", "face_a").changed
    already = assign_pad_button(pads, "fire", "face_a")
    assert not already.changed and "already" in already.message


# ----- the axis rule ----------------------------------------------------------------------

def test_an_axis_click_moves_on_to_the_next_axis_and_swaps_with_its_owner(pads):
    assignment = next_axis(pads, "throttle_axis")  # right_trigger, round to left_x
    assert assignment.changed
    assert assignment.gamepad.throttle_axis == "left_x"
    assert assignment.gamepad.steer_axis == "right_trigger"
    assert "swapped: steer now right trigger" in assignment.message
    free = next_axis(pads, "gun_axis")  # right_y to left_trigger: brake's, swapped
    assert free.gamepad.gun_axis == "left_trigger" and free.gamepad.brake_axis == "right_y"
    controls = GamepadMapper(assignment.gamepad).update({"left_x": 1.0}, set())
    assert controls.throttle == 1.0 and controls.steer == 0.0


def test_clicks_visit_every_axis_and_never_put_two_actions_on_one(pads):
    seen, gamepad = set(), pads
    for _ in AXES:
        gamepad = next_axis(gamepad, "brake_axis").gamepad
        seen.add(gamepad.brake_axis)
    assert seen == set(AXES)
    chooser = random.Random(7)
    for _ in range(200):
        gamepad = next_axis(gamepad, chooser.choice(list(AXIS_CHOICES))).gamepad
        axes = [getattr(gamepad, action) for action in DRIVING_AXES]
        assert len(set(axes)) == len(axes) and set(axes) <= set(AXES)


def test_the_gate_stick_takes_turns_between_the_sticks(pads):
    once = next_axis(pads, "gate_stick").gamepad
    assert once.gate_stick == "right" and next_axis(once, "gate_stick").gamepad.gate_stick == (
        "left")
    assert not next_axis(pads, "fire").changed


# ----- bindings.toml's [gamepad] ----------------------------------------------------------

def test_pad_bindings_survive_a_save_and_a_fresh_load(home, keys, pads):
    user = UserBindings(keys, pads)
    user.assign_pad_button("fire", "ltrigger")
    user.next_axis("throttle_axis")
    user.assign("fire", "k")
    user.save()
    again = UserBindings(keys, pads)
    assert again.warning is None
    assert again.gamepad == user.gamepad and again.current == user.current
    assert again.gamepad.fire == ("ltrigger",) and again.gamepad.steer_axis == "right_trigger"
    table = tomllib.loads((home / "bindings.toml").read_text(encoding="utf-8"))
    assert table["gamepad"] == {"throttle_axis": "left_x", "steer_axis": "right_trigger",
                                "fire": ["ltrigger"]}  # only what changed


def test_defaults_restore_both_tables(home, keys, pads):
    user = UserBindings(keys, pads)
    user.assign_pad_button("fire", "ltrigger")
    user.assign("fire", "k")
    user.restore_defaults()
    user.save()
    again = UserBindings(keys, pads)
    assert again.current == keys and again.gamepad == pads


def test_a_file_without_a_gamepad_table_keeps_the_pad_defaults(home, keys, pads):
    home.mkdir()
    (home / "bindings.toml").write_text("[keyboard]\nfire = [\"k\"]\n", encoding="utf-8")
    loaded = load_bindings(home / "bindings.toml", keys, pads)
    assert loaded.warning is None and loaded.gamepad == pads
    assert loaded.keyboard.fire == ("k",)


# ----- the next pad button ----------------------------------------------------------------

class CaptureSource(FakePads):
    """Fake pads whose reads can fail."""

    def __init__(self, *pads):
        super().__init__(*pads)
        self.broken = set()

    def read(self, pad):
        if pad in self.broken:
            raise RuntimeError("device gone")
        return super().read(pad)


def _capture(source):
    pressed, gone = [], []
    capture = PadButtonCapture(source)
    capture.listen(pressed.append, lambda: gone.append(True))
    return capture, pressed, gone


def test_the_capture_hands_over_the_next_button_newly_pressed_on_any_pad():
    source = CaptureSource("pad1", "pad2")
    source.state["pad1"] = ({}, {"face_a"})  # held before the click: not a press
    capture, pressed, gone = _capture(source)
    capture.poll()
    assert pressed == [] and capture.listening
    source.state["pad2"] = ({"left_x": 1.0}, {"dpad_up"})
    capture.poll()
    assert pressed == ["dpad_up"] and not capture.listening and gone == []
    source.state["pad1"] = ({}, {"face_a", "face_b"})
    capture.poll()
    assert pressed == ["dpad_up"], "one button a wait"


def test_a_pad_plugged_in_while_waiting_counts_from_its_first_reading():
    source = CaptureSource("pad1")
    capture, pressed, _ = _capture(source)
    source.connected.append("pad2")
    source.state["pad2"] = ({}, {"face_y"})
    source.broken.add("pad1")
    capture.poll()
    assert pressed == []
    source.state["pad2"] = ({}, {"face_y", "back"})
    capture.poll()
    assert pressed == ["back"]


def test_the_capture_says_when_no_pad_is_left():
    source = CaptureSource("pad1")
    assert PadButtonCapture(source).connected()
    capture, pressed, gone = _capture(source)
    source.connected.clear()
    capture.poll()
    assert gone == [True] and pressed == [] and not capture.listening
    assert not capture.connected()
    capture.poll()
    assert gone == [True]


# ----- the running game's pads ------------------------------------------------------------

def test_the_running_games_pads_use_the_new_binding(config, pads):
    source = FakePads()
    inputs = LocalInputs(FakeEvents(), config.controls, [FakeView(), FakeView()],
                         pad_source=source, mouse=lambda: None,
                         user=lambda: config.view.user_settings, on_unplug=lambda: None)
    source.plug("pad1")  # player 2's
    source.plug("pad2")  # player 1's
    rebound = assign_pad_button(next_axis(pads, "throttle_axis").gamepad, "fire",
                                "ltrigger").gamepad
    inputs.rebind_pads(rebound)
    source.state["pad1"] = ({"left_x": 1.0}, {"ltrigger"})
    second = inputs.others(_simulation())[SECOND_PLAYER]
    assert second.fire and second.throttle == 1.0
    source.state["pad2"] = ({"left_x": 1.0}, {"ltrigger"})
    first = inputs.player_one("1")
    assert first.fire and first.throttle == 1.0
    source.state["pad1"] = ({"right_trigger": 1.0}, {"face_a"})
    second = inputs.others(_simulation())[SECOND_PLAYER]
    assert not second.fire and second.throttle == 0.0
    assert inputs.spec.gamepad is rebound
    inputs.destroy()


def test_a_button_held_through_a_rebind_is_not_a_fresh_press(pads):
    source = FakePads("pad1")
    pad = GamepadInput(source, pads)
    source.state["pad1"] = ({}, {"ltrigger"})
    pad.controls()
    pad.rebind(assign_pad_button(pads, "pause", "ltrigger").gamepad)
    pad.controls()
    assert not pad.take_pause_press()
    source.state["pad1"] = ({}, set())
    pad.controls()
    source.state["pad1"] = ({}, {"ltrigger"})
    pad.controls()
    assert pad.take_pause_press()


def test_start_does_not_resume_the_game_while_the_menu_waits_for_a_button():
    from game.app import TankBattleApp
    from game.app_states import PAUSED
    from game.menus.requests import Resume

    calls = []
    menu = SimpleNamespace(capturing=True, poll_pads=lambda: calls.append("poll"))
    menus = SimpleNamespace(pause_menu=menu, poll=lambda frame_s: None, capturing=True)
    app = SimpleNamespace(clock=SimpleNamespace(getDt=lambda: 0.016), paused=True, state=PAUSED,
                          player_inputs=SimpleNamespace(poll_pads=lambda: None,
                                                        pause_pressed=lambda: True),
                          menus=menus, title_open=False, send=calls.append,
                          run_options=SimpleNamespace(seconds=None),
                          _draw=lambda frame_s: None, online=False,
                          loop=SimpleNamespace(advance=lambda frame_s: calls.append("step")))
    task = SimpleNamespace(cont="again")
    assert TankBattleApp._frame(app, task) == "again"
    assert calls == ["poll"]  # paused: no step
    menu.capturing = menus.capturing = False
    TankBattleApp._frame(app, task)
    assert calls == ["poll", Resume(), "poll"]
    calls.clear()
    menu.capturing = menus.capturing = True
    app.online = True  # a server's game goes on under the menu
    TankBattleApp._frame(app, task)
    assert calls == ["poll", "step"]


def test_f12_saves_a_screenshot_in_the_data_folder_and_says_where(tmp_path, monkeypatch):
    import game.app
    from game.app import TankBattleApp

    shot = tmp_path / "data" / "screenshots" / "tank-battle-1.png"
    monkeypatch.setattr(game.app, "screenshot_path", lambda: shot)
    said = []
    app = SimpleNamespace(save_screenshot=lambda path: path.write_bytes(b"png"),
                          views=[SimpleNamespace(message=said.append)])
    assert TankBattleApp.screenshot_to_data_folder(app) == shot
    assert shot.read_bytes() == b"png" and said == [f"Screenshot saved: {shot}"]
    (tmp_path / "blocked").write_text("a file where the folder should be")
    monkeypatch.setattr(game.app, "screenshot_path", lambda: tmp_path / "blocked" / "x.png")
    assert TankBattleApp.screenshot_to_data_folder(app) is None  # the game goes on
    assert said[-1].startswith("Screenshot not saved:")
