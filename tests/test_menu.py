"""The pause menu clicks: every button, check box and choice plays the synthesised UI click
through the game's sound player (a fake here: no sound device, no window; DirectGui
widgets are made under a bare NodePath). Its Settings page: each widget changes its
setting at once, the restart note, Save."""

from __future__ import annotations

import pytest
from panda3d.core import NodePath

from assets.make_sounds import LENGTHS_S
from common.settings import OVERRIDE_ENV, UserSettings
from game.audio.sounds import SOUND_NAMES, UI_CLICK, UI_SOUNDS
from game.menus.pause_menu import PauseMenu
from game.menus.requests import ChangeSettings, Quit, Rebind, Restart, Resume


class FakeSounds:
    def __init__(self):
        self.played = []

    def play(self, name, position):
        self.played.append((name, position))

    def engine(self, play_rate, volume, position):
        pass

    def destroy(self):
        pass


def only(kind, then):
    """A menu's ``send`` that hands ``then`` the requests of ``kind`` and drops the rest."""
    return lambda request: then(request) if isinstance(request, kind) else None


def settings_to(then):
    return only(ChangeSettings, lambda request: then(request.settings))


def rebinds_to(then):
    return only(Rebind, then)


@pytest.fixture
def menu(config, tmp_path, monkeypatch):
    monkeypatch.setenv(OVERRIDE_ENV, str(tmp_path))
    calls, sounds = [], FakeSounds()
    pause_menu = PauseMenu(NodePath("aspect2d"), config.view.menu,
                           UserSettings(config.view.user_settings), config.controls,
                           calls.append, sounds=sounds)
    yield pause_menu, calls, sounds
    pause_menu.destroy()


def _press(widget) -> None:
    widget.commandFunc(None)  # what DirectGui runs when the button is clicked


def test_the_click_is_a_synthesised_interface_sound():
    assert UI_CLICK in SOUND_NAMES and UI_CLICK in LENGTHS_S and UI_CLICK in UI_SOUNDS


@pytest.mark.parametrize("button, call", [("main/Resume", Resume()),
                                          ("main/Restart", Restart()),
                                          ("main/Quit", Quit())])
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
    page = pause_menu.settings_page
    _press(page.invert_x)
    page.quality.set(0)  # choosing an item runs the menu's command
    assert sounds.played == [(UI_CLICK, None)] * 2
    assert [type(request) for request in calls] == [ChangeSettings, ChangeSettings]
    assert calls[0].settings.invert_x != calls[0].settings.invert_y  # the box turned over


def test_without_a_sound_player_the_menu_still_works(config, tmp_path, monkeypatch):
    monkeypatch.setenv(OVERRIDE_ENV, str(tmp_path))
    calls = []
    silent = PauseMenu(NodePath("aspect2d"), config.view.menu,
                       UserSettings(config.view.user_settings), config.controls,
                       calls.append)
    _press(silent.buttons["main/Resume"])
    assert calls == [Resume()]
    silent.destroy()


def test_the_controls_page_lists_keyboard_and_gamepad_bindings(menu, config):
    pause_menu, _, _ = menu
    text = "\n".join(pause_menu.controls_columns)
    for words in ("keyboard / mouse", "gamepad", "reverse / neutral", "right trigger",
                  "left stick sideways", "Backspace", "D-pad up"):
        assert words in text
    assert not any(arrow in text for arrow in "←→↑↓")  # the default font has no arrows


class FakeDisplay:
    """What the Settings page asks of :class:`game.view.display.Display`."""

    def __init__(self, opened_with_vsync=True):
        self.opened_with_vsync = opened_with_vsync

    def resolutions(self):
        return ["1280x720", "1920x1080"]

    def needs_restart(self, settings):
        return ["vsync"] if settings.vsync != self.opened_with_vsync else []


@pytest.fixture
def settings_page(config, home):
    applied = []
    pause_menu = PauseMenu(NodePath("aspect2d"), config.view.menu,
                           UserSettings(config.view.user_settings), config.controls,
                           settings_to(applied.append), sounds=FakeSounds(),
                           display=FakeDisplay())
    pause_menu.open()
    pause_menu.show_page("settings")
    yield pause_menu, pause_menu.settings_page, applied
    pause_menu.destroy()


def _slide(slider, value) -> None:
    slider["value"] = value
    slider["command"]()  # what the slider runs when it is dragged


@pytest.mark.parametrize("slider, value", [("master_volume", 0.25), ("effects_volume", 0.5),
                                           ("engine_volume", 0.1), ("fov", 70.0)])
def test_each_slider_changes_its_setting_at_once(settings_page, slider, value):
    pause_menu, page, applied = settings_page
    _slide(getattr(page, slider), value)
    name = "field_of_view_deg" if slider == "fov" else slider
    assert getattr(applied[-1], name) == pytest.approx(value)
    assert pause_menu.settings.current == applied[-1]


@pytest.mark.parametrize("box", ["invert_x", "invert_y", "hud_compact", "fullscreen", "vsync"])
def test_each_check_box_turns_its_setting_over(settings_page, config, box):
    _, page, applied = settings_page
    before = getattr(config.view.user_settings, box)
    _press(getattr(page, box))
    assert getattr(applied[-1], box) is (not before)
    others = {name: value for name, value in vars(applied[-1]).items() if name != box}
    assert others == {name: value for name, value in vars(config.view.user_settings).items()
                      if name != box}


def test_the_choices_offer_the_displays_resolutions_and_the_quality_levels(settings_page):
    _, page, applied = settings_page
    assert page.resolution["items"] == ["auto", "1280x720", "1920x1080"]
    page.resolution.set(2)
    page.quality.set(1)
    assert (applied[-1].resolution, applied[-1].quality) == ("1920x1080", "medium")


def test_a_saved_resolution_the_display_does_not_list_is_still_offered(config, home):
    settings = UserSettings(config.view.user_settings)
    settings.change(resolution="1000x700")
    pause_menu = PauseMenu(NodePath("aspect2d"), config.view.menu, settings, config.controls,
                           lambda request: None, display=FakeDisplay())
    page = pause_menu.settings_page
    assert page.resolution["items"][-1] == "1000x700"
    assert page.values()["resolution"] == "1000x700"
    pause_menu.destroy()


def test_the_page_says_what_waits_for_the_next_start(settings_page):
    _, page, _ = settings_page
    assert page.restart_note["text"] == ""
    _press(page.vsync)
    assert "next start" in page.restart_note["text"] and "vsync" in page.restart_note["text"]
    _press(page.vsync)
    assert page.restart_note["text"] == ""


def test_a_setting_changed_elsewhere_shows_when_the_page_is_shown_again(settings_page):
    pause_menu, page, _ = settings_page
    pause_menu.show_page("main")
    pause_menu.settings.change(fullscreen=True, master_volume=0.3)  # F11, say
    pause_menu.show_page("settings")
    assert page.values()["fullscreen"] is True
    assert page.values()["master_volume"] == pytest.approx(0.3)


def test_save_writes_the_settings_the_page_shows(settings_page, config, home):
    pause_menu, page, _ = settings_page
    _press(page.hud_compact)
    _slide(page.engine_volume, 0.4)
    _press(pause_menu.buttons["settings/Save"])
    assert str(home / "settings.toml") in page.status["text"]
    saved = UserSettings(config.view.user_settings).current
    assert saved.hud_compact is True and saved.engine_volume == pytest.approx(0.4)


def test_the_page_hands_a_focusing_menu_every_widget_once_in_reading_order(settings_page):
    _, page, _ = settings_page
    widgets = page.widgets
    assert len(widgets) == len(set(map(id, widgets))) == len(page.values())
    assert widgets[0] is page.master_volume and widgets[-1] is page.quality
