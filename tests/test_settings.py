"""The player's settings file: where it lives, a save/load round trip, atomic writes, and a
bad file giving one warning and the defaults without being overwritten."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

import game.settings as settings_module
from game.settings import OVERRIDE_ENV, UserSettings, load_settings, save_settings, settings_path


@pytest.fixture
def defaults(config):
    return config.view.user_settings


def test_the_settings_file_lives_in_the_platforms_config_folder(tmp_path):
    home = tmp_path / "me"
    assert settings_path({}, "linux", home) == home / ".config/tank-battle/settings.toml"
    assert settings_path({"XDG_CONFIG_HOME": "/x"}, "linux", home) == Path(
        "/x/tank-battle/settings.toml")
    assert settings_path({"APPDATA": "/appdata"}, "win32", home) == Path(
        "/appdata/tank-battle/settings.toml")
    assert settings_path({}, "darwin", home) == (
        home / "Library/Application Support/tank-battle/settings.toml")
    assert settings_path({OVERRIDE_ENV: "/t", "XDG_CONFIG_HOME": "/x"}, "linux", home) == Path(
        "/t/settings.toml")


def test_settings_survive_a_save_and_load_round_trip(home, defaults):
    user = UserSettings(defaults)
    assert user.path == home / "settings.toml" and user.current == defaults
    changed = user.change(volume=0.25, field_of_view_deg=70.0, invert_x=True, invert_y=True,
                          quality="low")
    user.save()
    again = UserSettings(defaults)
    assert again.current == changed and again.warning is None
    assert list(home.iterdir()) == [home / "settings.toml"]  # no temporary file left


def test_keys_missing_from_the_file_keep_their_defaults(home, defaults):
    home.mkdir()
    (home / "settings.toml").write_text("volume = 0.5\n", encoding="utf-8")
    loaded = load_settings(home / "settings.toml", defaults)
    assert loaded.warning is None
    assert loaded.settings == dataclasses.replace(defaults, volume=0.5)


@pytest.mark.parametrize("text, named", [
    ("volume = 0.5\nquality = \"hig", "settings.toml"),      # cut off mid-write
    ("volume = 7.0\n", "volume"),                              # out of range
    ("colume = 0.5\n", "colume"),                              # unknown key
    ("\xff\xfe garbage", "settings.toml"),
])
def test_a_corrupt_file_gives_one_warning_line_and_the_defaults_and_is_kept(
        home, defaults, text, named):
    home.mkdir()
    path = home / "settings.toml"
    path.write_bytes(text.encode("latin-1"))
    lines = []
    user = UserSettings(defaults, warn=lines.append)
    assert user.current == defaults
    assert len(lines) == 1 and "\n" not in lines[0] and named in lines[0]
    assert str(path) in lines[0] and "default" in lines[0]
    user.change(volume=0.1)  # changed in the menu, but not saved: the file stays as it was
    assert path.read_bytes() == text.encode("latin-1")
    user.save()  # saving replaces it with good settings
    assert UserSettings(defaults, warn=lines.append).current.volume == 0.1
    assert len(lines) == 1


def test_a_save_that_dies_half_way_does_not_lose_the_old_settings(home, defaults, monkeypatch):
    user = UserSettings(defaults)
    user.change(volume=0.3)
    user.save()
    saved = (home / "settings.toml").read_text(encoding="utf-8")

    def crash(*_args):
        raise OSError(28, "No space left on device")
    user.change(volume=0.9, quality="medium")
    with monkeypatch.context() as patch:
        patch.setattr(settings_module.os, "replace", crash)
        with pytest.raises(OSError):
            user.save()
    assert (home / "settings.toml").read_text(encoding="utf-8") == saved
    assert [p.name for p in home.iterdir()] == ["settings.toml"]  # the temp file is gone
    assert UserSettings(defaults).current.volume == 0.3


def test_a_half_written_temporary_file_is_never_read(home, defaults):
    save_settings(home / "settings.toml", dataclasses.replace(defaults, volume=0.4))
    (home / "settings.toml.abc.tmp").write_text("volume = ", encoding="utf-8")
    assert load_settings(home / "settings.toml", defaults).settings.volume == 0.4
    assert os.path.exists(home / "settings.toml.abc.tmp")
