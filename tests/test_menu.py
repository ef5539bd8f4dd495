"""The pause menu clicks: every button, check box and choice plays the synthesised UI click
through the game's sound player (a fake here: no sound device, no window; DirectGui
widgets are made under a bare NodePath)."""

from __future__ import annotations

import pytest
from panda3d.core import NodePath

from assets.make_sounds import LENGTHS_S
from game.audio.sounds import SOUND_NAMES, UI_CLICK, UI_SOUNDS
from game.settings import OVERRIDE_ENV, UserSettings
from game.view.menu import PauseMenu


class FakeSounds:
    def __init__(self):
        self.played = []

    def play(self, name, position):
        self.played.append((name, position))

    def engine(self, play_rate, volume, position):
        pass

    def destroy(self):
        pass


@pytest.fixture
def menu(config, tmp_path, monkeypatch):
    monkeypatch.setenv(OVERRIDE_ENV, str(tmp_path))
    calls, sounds = [], FakeSounds()
    pause_menu = PauseMenu(NodePath("aspect2d"), config.view.menu,
                           UserSettings(config.view.user_settings), config.controls,
                           on_resume=lambda: calls.append("resume"),
                           on_restart=lambda: calls.append("restart"),
                           on_quit=lambda: calls.append("quit"),
                           on_settings=lambda settings: calls.append("settings"),
                           sounds=sounds)
    yield pause_menu, calls, sounds
    pause_menu.destroy()


def _press(widget) -> None:
    widget.commandFunc(None)  # what DirectGui runs when the button is clicked


def test_the_click_is_a_synthesised_interface_sound():
    assert UI_CLICK in SOUND_NAMES and UI_CLICK in LENGTHS_S and UI_CLICK in UI_SOUNDS


@pytest.mark.parametrize("button, call", [("main/Resume", "resume"),
                                          ("main/Restart", "restart"),
                                          ("main/Quit", "quit")])
def test_a_button_clicks_then_does_its_job(menu, button, call):
    pause_menu, calls, sounds = menu
    _press(pause_menu.buttons[button])
    assert sounds.played == [(UI_CLICK, None)]
    assert calls == [call]


def test_every_button_on_every_page_clicks(menu):
    pause_menu, _, sounds = menu
    for name in ["main/Settings", "settings/Back", "main/Controls", "controls/Back"]:
        _press(pause_menu.buttons[name])
    assert pause_menu.page == "main"
    assert sounds.played == [(UI_CLICK, None)] * 4
    assert len(pause_menu.buttons) >= 8


def test_check_boxes_and_the_quality_choice_click_and_apply(menu):
    pause_menu, calls, sounds = menu
    _press(pause_menu.invert_x)
    pause_menu.quality.set(0)  # choosing an item runs the menu's command
    assert sounds.played == [(UI_CLICK, None)] * 2
    assert calls == ["settings", "settings"]


def test_without_a_sound_player_the_menu_still_works(config, tmp_path, monkeypatch):
    monkeypatch.setenv(OVERRIDE_ENV, str(tmp_path))
    calls = []
    silent = PauseMenu(NodePath("aspect2d"), config.view.menu,
                       UserSettings(config.view.user_settings), config.controls,
                       on_resume=lambda: calls.append("resume"), on_restart=lambda: None,
                       on_quit=lambda: None, on_settings=lambda settings: None)
    _press(silent.buttons["main/Resume"])
    assert calls == ["resume"]
    silent.destroy()


def test_the_controls_page_lists_keyboard_and_gamepad_bindings(menu, config):
    pause_menu, _, _ = menu
    text = "\n".join(pause_menu.controls_columns)
    for words in ("keyboard / mouse", "gamepad", "reverse / neutral", "right trigger",
                  "left stick sideways", "Backspace", "D-pad up"):
        assert words in text
    assert not any(arrow in text for arrow in "←→↑↓")  # the default font has no arrows
