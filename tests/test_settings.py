"""The player's settings file: where it lives, a save/load round trip, atomic writes, a
bad file giving one warning and the defaults without being overwritten, and a file from
an older version (one ``volume``) still read."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

import common.settings as settings_module
from common.settings import OVERRIDE_ENV, UserSettings, load_settings, save_settings, settings_path


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
    changed = user.change(master_volume=0.25, effects_volume=0.5, engine_volume=0.75,
                          field_of_view_deg=70.0, invert_x=True, invert_y=True, quality="low",
                          fullscreen=True, resolution="1920x1080", vsync=False,
                          hud_compact=True, help_seen=True)
    user.save()
    again = UserSettings(defaults)
    assert again.current == changed and again.warning is None
    assert list(home.iterdir()) == [home / "settings.toml"]  # no temporary file left


def test_keys_missing_from_the_file_keep_their_defaults(home, defaults):
    home.mkdir()
    (home / "settings.toml").write_text("engine_volume = 0.5\n", encoding="utf-8")
    loaded = load_settings(home / "settings.toml", defaults)
    assert loaded.warning is None
    assert loaded.settings == dataclasses.replace(defaults, engine_volume=0.5)


@pytest.mark.parametrize("text, named", [
    ("master_volume = 0.5\nquality = \"hig", "settings.toml"),  # cut off mid-write
    ("master_volume = 7.0\n", "master_volume"),               # out of range
    ("volume = 7.0\n", "master_volume"),                      # an old key, out of range
    ("resolution = \"big\"\n", "resolution"),                 # not WIDTHxHEIGHT
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
    user.change(master_volume=0.1)  # changed in the menu, not saved: the file stays as it was
    assert path.read_bytes() == text.encode("latin-1")
    user.save()  # saving replaces it with good settings
    assert UserSettings(defaults, warn=lines.append).current.master_volume == 0.1
    assert len(lines) == 1


def test_a_save_that_dies_half_way_does_not_lose_the_old_settings(home, defaults, monkeypatch):
    user = UserSettings(defaults)
    user.change(master_volume=0.3)
    user.save()
    saved = (home / "settings.toml").read_text(encoding="utf-8")

    def crash(*_args):
        raise OSError(28, "No space left on device")
    user.change(master_volume=0.9, quality="medium")
    with monkeypatch.context() as patch:
        patch.setattr(settings_module.os, "replace", crash)
        with pytest.raises(OSError):
            user.save()
    assert (home / "settings.toml").read_text(encoding="utf-8") == saved
    assert [p.name for p in home.iterdir()] == ["settings.toml"]  # the temp file is gone
    assert UserSettings(defaults).current.master_volume == 0.3


def test_a_half_written_temporary_file_is_never_read(home, defaults):
    save_settings(home / "settings.toml", dataclasses.replace(defaults, master_volume=0.4))
    (home / "settings.toml.abc.tmp").write_text("master_volume = ", encoding="utf-8")
    assert load_settings(home / "settings.toml", defaults).settings.master_volume == 0.4
    assert os.path.exists(home / "settings.toml.abc.tmp")


OLD_FILE = """# Tank Battle: your settings (written by the game's settings menu).
volume = 0.35  # sound volume, 0..1
field_of_view_deg = 62.0  # the chase view's vertical field of view
invert_x = false  # mouse left/right reversed (look round and gun-sight aim)
invert_y = true  # mouse up/down reversed (look round and gun-sight aim)
quality = "medium"  # graphics quality (particle counts)
"""


def test_a_file_from_before_the_separate_volumes_still_loads(home, defaults):
    home.mkdir()
    path = home / "settings.toml"
    path.write_text(OLD_FILE, encoding="utf-8")
    lines = []
    user = UserSettings(defaults, warn=lines.append)
    assert lines == [] and user.warning is None
    assert user.current == dataclasses.replace(defaults, master_volume=0.35,
                                               field_of_view_deg=62.0, invert_y=True,
                                               quality="medium")
    assert path.read_text(encoding="utf-8") == OLD_FILE  # kept until the player saves
    user.save()  # then written with the new names, and read back the same
    text = path.read_text(encoding="utf-8")
    assert "master_volume = 0.35" in text and "\nvolume" not in text
    assert UserSettings(defaults).current == user.current


def test_a_new_name_beside_its_old_one_wins(home, defaults):
    home.mkdir()
    (home / "settings.toml").write_text("volume = 0.2\nmaster_volume = 0.6\n",
                                        encoding="utf-8")
    assert load_settings(home / "settings.toml", defaults).settings.master_volume == 0.6


@pytest.mark.parametrize("resolution, size", [("auto", None), ("1920x1080", (1920, 1080)),
                                              ("800x600", (800, 600))])
def test_resolutions_are_auto_or_width_by_height(resolution, size):
    assert settings_module.parse_resolution(resolution) == size


@pytest.mark.parametrize("resolution", ["", "1920", "1920x", "x1080", "1920X1080", "0x0",
                                        "1920x1080x2", " 1920x1080", "-1x600"])
def test_other_resolutions_are_refused(defaults, resolution):
    with pytest.raises(settings_module.SpecError):
        dataclasses.replace(defaults, resolution=resolution)
