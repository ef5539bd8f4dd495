"""The pause menu's Controls page rebinds keys: click an action's keys, the next key (from a
fake key source) becomes its key, Esc cancels, Defaults restores, every change is saved and
handed to the running game's keyboard at once. DirectGui widgets under a bare NodePath,
no window."""

from __future__ import annotations

import pytest
from direct.showbase.MessengerGlobal import messenger
from panda3d.core import NodePath

from common.settings import UserSettings
from game.input.keyboard import ActionKeys, KeyboardInput
from game.input.rebinding import UserBindings
from game.menus.controls_page import MOUSE_PRESSES, WAITING_TEXT
from game.menus.pause_menu import PauseMenu
from tests.test_menu import rebinds_to
from tests.test_rebinding import FakeEvents


class FakeCapture:
    """The next key, as PandaKeyCapture hands it over."""

    def __init__(self):
        self.on_key = None

    def listen(self, on_key):
        self.on_key = on_key

    def stop(self):
        self.on_key = None

    def press(self, key):
        assert self.on_key is not None, "nothing is waiting for a key"
        self.on_key(key)


def user_bindings(config, **options) -> UserBindings:
    return UserBindings(config.controls.keyboard, config.controls.gamepad, **options)


@pytest.fixture
def page(home, config):
    """(the menu, its Controls page, the fake key source, the bindings handed to the game)."""
    capture, applied = FakeCapture(), []
    menu = PauseMenu(NodePath("aspect2d"), config.view.menu,
                     UserSettings(config.view.user_settings), config.controls,
                     rebinds_to(lambda request: applied.append(request.keyboard)),
                     bindings=user_bindings(config), key_capture=capture)
    menu.open()
    menu.show_page("controls")
    yield menu, menu.controls_page, capture, applied
    menu.destroy()


def _press(widget) -> None:
    widget.commandFunc(None)  # what DirectGui runs when the button is clicked


def test_clicking_an_actions_keys_waits_for_a_key(page):
    menu, controls, capture, _ = page
    assert controls.key_buttons["fire"]["text"] == "Space, left mouse button"
    _press(controls.key_buttons["fire"])
    assert menu.capturing and capture.on_key is not None
    assert controls.key_buttons["fire"]["text"] == WAITING_TEXT
    assert "Esc cancels" in controls.status["text"]


def test_the_next_key_becomes_the_actions_key_saved_and_applied(page, home, config):
    menu, controls, capture, applied = page
    _press(controls.key_buttons["fire"])
    capture.press("k")
    assert not menu.capturing and capture.on_key is None
    assert controls.key_buttons["fire"]["text"] == "K"
    assert len(applied) == 1 and applied[0].fire == ("k",)
    assert controls.status["text"] == "Fire: K; saved."
    assert user_bindings(config).current.fire == ("k",)
    assert (home / "bindings.toml").is_file()


def test_esc_cancels_and_binds_nothing(page, home, config):
    menu, controls, capture, applied = page
    _press(controls.key_buttons["handbrake"])
    capture.press("escape")
    assert not menu.capturing and applied == []
    assert controls.key_buttons["handbrake"]["text"] == "X"
    assert controls.status["text"].startswith("Cancelled")
    assert not (home / "bindings.toml").exists()


def test_a_refused_key_says_why_and_changes_nothing(page, home):
    _, controls, capture, applied = page
    _press(controls.key_buttons["gun_up"])
    capture.press("q")
    assert applied == [] and not (home / "bindings.toml").exists()
    assert "turret left's only key" in controls.status["text"]
    assert controls.key_buttons["gun_up"]["text"] == "C, Page Up"


def test_a_moved_key_leaves_the_other_actions_button(page):
    _, controls, capture, applied = page
    _press(controls.key_buttons["fire"])
    capture.press("w")
    assert controls.key_buttons["throttle"]["text"] == "Up"
    assert applied[-1].throttle == ("arrow_up",)
    assert "taken from throttle" in controls.status["text"]


def test_defaults_restore_the_config_keys(page, home, config):
    _, controls, capture, applied = page
    _press(controls.key_buttons["fire"])
    capture.press("k")
    _press(page[0].buttons["controls/Defaults"])
    assert applied[-1] == config.controls.keyboard
    assert controls.key_buttons["fire"]["text"] == "Space, left mouse button"
    assert user_bindings(config).current == config.controls.keyboard


def test_leaving_the_page_or_closing_the_menu_stops_waiting(page):
    menu, controls, capture, applied = page
    _press(controls.key_buttons["fire"])
    _press(menu.buttons["controls/Back"])
    assert not menu.capturing and capture.on_key is None
    assert controls.key_buttons["fire"]["text"] == "Space, left mouse button"
    menu.show_page("controls")
    _press(controls.key_buttons["fire"])
    menu.close()
    assert not menu.capturing and applied == []


def test_a_second_click_moves_the_wait(page):
    _, controls, capture, applied = page
    _press(controls.key_buttons["fire"])
    _press(controls.key_buttons["reset"])
    assert controls.key_buttons["fire"]["text"] == "Space, left mouse button"
    capture.press("k")
    assert applied[-1].reset == ("k",) and applied[-1].fire == ("space", "mouse1")


def test_a_mouse_button_clicked_over_the_menu_is_bound(page):
    menu, controls, _, applied = page
    _press(controls.key_buttons["camera_orbit"])
    events = {name: event for event, name in MOUSE_PRESSES.items()}
    messenger.send(events["mouse2"] + menu.veil.guiId, [None])
    assert applied[-1].camera_orbit == ("mouse2",)
    messenger.send(events["mouse1"] + menu.veil.guiId, [None])  # no longer waiting
    assert len(applied) == 1


def test_the_running_games_keyboard_uses_the_new_key(page, config):
    _, controls, capture, _ = page
    events, paused = FakeEvents(), []
    keyboard = KeyboardInput(events, config.controls.keyboard)
    action_keys = ActionKeys(events, {"pause": lambda: paused.append(True)},
                             config.controls.keyboard, blocked=lambda: controls.capturing)
    controls.on_bindings = lambda new, gamepad: (keyboard.rebind(new),
                                                 action_keys.rebind(new))
    _press(controls.key_buttons["fire"])
    events.send("p")  # the game's own keys hold off while the page waits
    capture.press("k")
    assert paused == []
    events.send("k")
    assert keyboard.controls().fire
    events.send("k-up")
    events.send("space")
    assert not keyboard.controls().fire
    _press(controls.key_buttons["pause"])
    capture.press("j")
    events.send("j")
    assert paused == [True]


def test_a_bad_bindings_file_is_reported_on_the_page(home, config):
    home.mkdir(parents=True)
    (home / "bindings.toml").write_text("[keyboard]\nfire = [1]\n", encoding="utf-8")
    menu = PauseMenu(NodePath("aspect2d"), config.view.menu,
                     UserSettings(config.view.user_settings), config.controls,
                     lambda request: None,
                     bindings=user_bindings(config, warn=lambda line: None),
                     key_capture=FakeCapture())
    assert "using the default bindings" in menu.controls_page.status["text"]
    assert menu.controls_page.key_buttons["fire"]["text"] == "Space, left mouse button"
    menu.destroy()


def test_without_a_key_source_the_page_only_shows_the_keys(home, config):
    menu = PauseMenu(NodePath("aspect2d"), config.view.menu,
                     UserSettings(config.view.user_settings), config.controls,
                     lambda request: None)
    controls = menu.controls_page
    _press(controls.key_buttons["fire"])
    assert not menu.capturing and "controls/Defaults" not in menu.buttons
    assert "G / B" in menu.controls_columns[1]
    menu.destroy()
