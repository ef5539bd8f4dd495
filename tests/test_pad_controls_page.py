"""The pause menu's Controls page rebinds the gamepad: click a pad button action, the next
button pressed on a (fake) pad becomes its button, Esc or Start cancels, no pad: the page
says to connect one; click a pad axis and it moves on to the next; Defaults restores both
tables; every change is saved and handed to the running game at once. DirectGui widgets
under a bare NodePath, no window."""

from __future__ import annotations

import pytest
from panda3d.core import NodePath

from common.settings import UserSettings
from game.input.pad_input import PadButtonCapture
from game.menus.controls_page import NO_PAD_TEXT, PAD_WAITING_TEXT
from game.menus.pause_menu import PauseMenu
from tests.test_controls_page import FakeCapture, user_bindings
from tests.test_menu import rebinds_to
from tests.test_player_input import FakePads


@pytest.fixture
def pad_page(home, config):
    """(the menu, its Controls page, the fake keys, the fake pads, what the game got)."""
    keys, pads, applied = FakeCapture(), FakePads("pad1"), []
    menu = PauseMenu(NodePath("aspect2d"), config.view.menu,
                     UserSettings(config.view.user_settings), config.controls,
                     rebinds_to(lambda request: applied.append(request.gamepad)),
                     bindings=user_bindings(config), key_capture=keys,
                     pad_capture=PadButtonCapture(pads))
    menu.open()
    menu.show_page("controls")
    yield menu, menu.controls_page, keys, pads, applied
    menu.destroy()


def _press(widget) -> None:
    widget.commandFunc(None)  # what DirectGui runs when the button is clicked


def _press_pad(menu, pads, *buttons) -> None:
    """``buttons`` pressed on pad1 and the menu's next frame."""
    pads.state["pad1"] = ({}, set(buttons))
    menu.poll_pads()


def test_the_pad_column_shows_each_actions_pad_controls(pad_page):
    _, controls, _, _, _ = pad_page
    assert controls.pad_buttons["fire"]["text"] == "A"
    assert controls.pad_buttons["steer_axis"]["text"] == "left stick sideways"
    assert "X / left stick" in controls.columns()[2]


def test_a_pad_button_click_waits_and_the_next_button_is_bound_saved_and_applied(
        pad_page, home, config):
    menu, controls, keys, pads, applied = pad_page
    _press(controls.pad_buttons["fire"])
    assert menu.capturing and controls.pad_buttons["fire"]["text"] == PAD_WAITING_TEXT
    assert "Esc or Start cancels" in controls.status["text"]
    menu.poll_pads()
    assert menu.capturing, "nothing pressed yet"
    _press_pad(menu, pads, "ltrigger")
    assert not menu.capturing and keys.on_key is None
    assert controls.pad_buttons["fire"]["text"] == "left trigger click"
    assert applied[-1].fire == ("ltrigger",)
    assert controls.status["text"] == "Pad fire: left trigger click; saved."
    assert user_bindings(config).gamepad.fire == ("ltrigger",)
    assert "[gamepad]" in (home / "bindings.toml").read_text(encoding="utf-8")


@pytest.mark.parametrize("cancel", ["escape", "start"])
def test_esc_or_start_cancels_the_wait_for_a_pad_button(pad_page, home, cancel):
    menu, controls, keys, pads, applied = pad_page
    _press(controls.pad_buttons["handbrake"])
    if cancel == "escape":
        keys.press("escape")
    else:
        _press_pad(menu, pads, "start")
    assert not menu.capturing and applied == []
    assert controls.pad_buttons["handbrake"]["text"] == "B"
    assert controls.status["text"] == "Cancelled: pad handbrake keeps B."
    assert not (home / "bindings.toml").exists()


def test_other_keys_do_not_end_the_wait_for_a_pad_button(pad_page):
    menu, controls, keys, pads, applied = pad_page
    _press(controls.pad_buttons["reset"])
    keys.press("k")
    assert menu.capturing and "Waiting for a button" in controls.status["text"]
    _press_pad(menu, pads, "guide")
    assert applied[-1].reset == ("guide",)


def test_a_refused_pad_button_says_why(pad_page):
    menu, controls, _, pads, applied = pad_page
    _press(controls.pad_buttons["fire"])
    _press_pad(menu, pads, "face_b")
    assert applied == [] and "handbrake's only button" in controls.status["text"]
    assert controls.pad_buttons["fire"]["text"] == "A"


def test_with_no_pad_a_button_click_says_to_connect_one(pad_page):
    menu, controls, _, pads, applied = pad_page
    pads.connected.clear()
    _press(controls.pad_buttons["fire"])
    assert not menu.capturing and controls.status["text"] == NO_PAD_TEXT
    assert controls.pad_buttons["fire"]["text"] == "A"
    _press(controls.pad_buttons["throttle_axis"])  # axes still cycle
    assert applied[-1].throttle_axis == "left_x"


def test_a_pad_unplugged_while_waiting_ends_the_wait(pad_page):
    menu, controls, _, pads, applied = pad_page
    _press(controls.pad_buttons["fire"])
    pads.connected.clear()
    menu.poll_pads()
    assert not menu.capturing and controls.status["text"] == NO_PAD_TEXT
    assert applied == []


def test_a_menu_without_pads_says_to_connect_one(home, config):
    menu = PauseMenu(NodePath("aspect2d"), config.view.menu,
                     UserSettings(config.view.user_settings), config.controls,
                     lambda request: None, bindings=user_bindings(config),
                     key_capture=FakeCapture())
    _press(menu.controls_page.pad_buttons["pause"])
    assert not menu.capturing and menu.controls_page.status["text"] == NO_PAD_TEXT
    menu.poll_pads()
    menu.destroy()


def test_an_axis_click_moves_it_on_and_swaps(pad_page, config):
    _, controls, _, _, applied = pad_page
    _press(controls.pad_buttons["throttle_axis"])
    assert applied[-1].throttle_axis == "left_x" and applied[-1].steer_axis == "right_trigger"
    assert controls.pad_buttons["throttle_axis"]["text"] == "left stick sideways"
    assert controls.pad_buttons["steer_axis"]["text"] == "right trigger"
    assert "swapped: steer now right trigger" in controls.status["text"]
    _press(controls.pad_buttons["gate_stick"])
    assert applied[-1].gate_stick == "right"
    assert user_bindings(config).gamepad == applied[-1]


def test_defaults_restore_keys_and_pad_bindings(pad_page, config):
    menu, controls, keys, pads, applied = pad_page
    _press(controls.pad_buttons["gun_axis"])
    _press(controls.key_buttons["fire"])
    keys.press("k")
    _press(menu.buttons["controls/Defaults"])
    assert applied[-1] == config.controls.gamepad
    assert controls.pad_buttons["gun_axis"]["text"] == "right stick up / down"
    assert controls.key_buttons["fire"]["text"] == "Space, left mouse button"
    again = user_bindings(config)
    assert again.gamepad == config.controls.gamepad and again.current == config.controls.keyboard


def test_a_click_elsewhere_or_leaving_the_page_ends_the_pad_wait(pad_page):
    menu, controls, keys, pads, applied = pad_page
    _press(controls.pad_buttons["fire"])
    _press(controls.key_buttons["reset"])
    assert controls.pad_buttons["fire"]["text"] == "A"
    keys.press("j")
    assert applied[-1].fire == ("face_a",)
    _press(controls.pad_buttons["fire"])
    _press(menu.buttons["controls/Back"])
    assert not menu.capturing and keys.on_key is None
    _press_pad(menu, pads, "ltrigger")
    assert applied[-1].fire == ("face_a",)
