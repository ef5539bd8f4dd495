"""The player's settings.toml and bindings.toml writers (``tomli_w``): awkward strings (quotes,
backslashes, line breaks, control characters, unicode, TOML's own punctuation, empty, very
long) read back with ``tomllib`` as written; files the older hand-written writers produced
still load; and a file that cannot be read is reported through ``logging``."""

from __future__ import annotations

import dataclasses
import logging
import subprocess
import sys
import tomllib

import pytest

from common.settings import (UserSettings, commented_toml, load_settings, settings_text,
                           toml_comment)
from game.input.rebinding import (UserBindings, assign_key, bindings_text, load_bindings,
                                  next_axis)

LONG_STRING = "tank " * 2000
AWKWARD = [
    'say "hi"', "back\\slash", "trailing\\", "line\nbreak", "cr\rlf\r\n", "tab\there",
    "ctrl\x01\x02\x1f", "del\x7f", "nul\x00", "bell\x07 form\x0c back\x08",
    "é ß 中文 🎉 👍🏽", "\u05e9\u05dc\u05d5\u05dd \u202eRTL\u202c", "\u200b zero width",
    "# not a comment", "a = b", "[table]", "[[array]]", "'single'", '"""triple"""',
    "'''", "\\u0041 literal escape", "${dollar} %s {}", "", " ", LONG_STRING,
]
"""Strings TOML needs escaped (or that look like TOML syntax)."""

AWKWARD_KEYS = [key for key in AWKWARD if key] + ["", "dotted.key", "with space", "1234",
                                                   "-dash_under"]
"""Table keys: TOML needs these quoted (and escaped) unless bare-key characters only."""


@pytest.fixture
def defaults(config):
    return config.view.user_settings


# ----- the shared writer --------------------------------------------------------------------

@pytest.mark.parametrize("text", AWKWARD, ids=range(len(AWKWARD)))
def test_an_awkward_value_under_an_awkward_doc_reads_back_as_written(text):
    rows = [("value", text, text), ("values", [text, text, "plain"], text),
            ("number", 0.25, "")]
    written = commented_toml(f"header {text}", rows)
    assert tomllib.loads(written) == {"value": text, "values": [text, text, "plain"],
                                      "number": 0.25}


def test_awkward_keys_read_back_as_written():
    rows = [(key, key, "doc") for key in AWKWARD_KEYS]
    assert tomllib.loads(commented_toml("keys", rows)) == {key: key for key in AWKWARD_KEYS}


@pytest.mark.parametrize("text", AWKWARD, ids=range(len(AWKWARD)))
def test_a_comment_is_one_line_toml_accepts(text):
    comment = toml_comment(text)
    assert comment.startswith("# ") and len(comment.splitlines()) == 1
    assert tomllib.loads(f"{comment}\nkey = 1\n") == {"key": 1}


# ----- settings.toml --------------------------------------------------------------------------

def test_the_settings_file_keeps_one_commented_line_per_setting(defaults):
    text = settings_text(defaults)
    assert tomllib.loads(text) == dataclasses.asdict(defaults)
    lines = text.splitlines()
    assert lines[0].startswith("# Tank Battle")
    for field, line in zip(dataclasses.fields(defaults), lines[1:], strict=True):
        assert line.startswith(f"{field.name} = ")
        assert line.endswith("  # " + field.metadata["doc"])


@pytest.mark.parametrize("text", AWKWARD, ids=range(len(AWKWARD)))
def test_settings_with_awkward_strings_read_back_as_written(defaults, text):
    # The spec admits no such resolution or quality: set them past its check, to see
    # that the writer escapes whatever strings a setting could ever hold.
    settings = dataclasses.replace(defaults)
    object.__setattr__(settings, "resolution", text)
    object.__setattr__(settings, "quality", text[::-1])
    table = tomllib.loads(settings_text(settings))
    assert table == {**dataclasses.asdict(defaults), "resolution": text, "quality": text[::-1]}


def test_every_setting_survives_the_writer_and_the_reader(home, defaults):
    changed = dataclasses.replace(defaults, master_volume=0.1, effects_volume=0.0,
                                  engine_volume=1.0, field_of_view_deg=119.5, invert_x=True,
                                  quality="high", resolution="800x600", vsync=False,
                                  help_seen=True)
    user = UserSettings(defaults)
    user.current = changed
    user.save()
    assert load_settings(user.path, defaults).settings == changed


OLD_WRITER_SETTINGS = """\
# Tank Battle: your settings (written by the game's settings menu).
master_volume = 0.25  # every sound's volume, 0..1
effects_volume = 1.0  # shots, hits, explosions and the menus' click, 0..1 (times the master volume)
engine_volume = 1.0  # the engine, tracks and tyres, 0..1 (times the master volume)
field_of_view_deg = 55.0  # the chase view's vertical field of view
invert_x = false  # mouse left/right reversed (look round and gun-sight aim)
invert_y = true  # mouse up/down reversed (look round and gun-sight aim)
quality = "low"  # graphics quality (particles, sun shadows, antialiasing)
fullscreen = false  # the game fills the screen (F11 toggles)
resolution = "1920x1080"  # window size, "WIDTHxHEIGHT" or "auto" (the configured window size \
in a window, the desktop's in fullscreen)
vsync = true  # frames wait for the display's refresh (applies on the next start)
hud_compact = false  # the smaller heads-up display
help_seen = false  # the first-run help card was dismissed
"""
"""What the hand-written writer before ``tomli_w`` saved (players have such files)."""


def test_a_settings_file_from_the_old_writer_still_loads_and_is_rewritten_the_same(
        home, defaults):
    home.mkdir()
    path = home / "settings.toml"
    path.write_text(OLD_WRITER_SETTINGS, encoding="utf-8")
    lines = []
    user = UserSettings(defaults, warn=lines.append)
    expected = dataclasses.replace(defaults, master_volume=0.25, field_of_view_deg=55.0,
                                   invert_y=True, quality="low", resolution="1920x1080")
    assert lines == [] and user.current == expected
    user.save()
    assert UserSettings(defaults).current == expected


# ----- bindings.toml --------------------------------------------------------------------------

BINDABLE = [text for text in AWKWARD if text and not text.startswith(" ")] + [
    " leading space", "shiftless-w", "escape2"]
"""Awkward key names the rule lets a player bind (it refuses empty names, Esc and modifiers)."""


@pytest.mark.parametrize("key", BINDABLE, ids=range(len(BINDABLE)))
def test_an_awkward_key_name_survives_save_and_load(home, keys, pads, key):
    user = UserBindings(keys, pads)
    assert user.assign("fire", key).changed
    user.save()
    again = UserBindings(keys, pads)
    assert again.warning is None and again.current == user.current
    assert again.current.fire == (key,)


def test_many_awkward_key_names_on_every_action_read_back(keys, pads):
    names = [field.name for field in dataclasses.fields(keys)]
    most = min(field.metadata["length"][1] for field in dataclasses.fields(keys))
    per_action = {name: tuple(BINDABLE[(index + step) % len(BINDABLE)]
                              for step in range(most))
                  for index, name in enumerate(names)}
    awkward = dataclasses.replace(keys, **per_action)
    pad = next_axis(pads, "throttle_axis").gamepad
    table = tomllib.loads(bindings_text(awkward, keys, pad, pads))
    assert table["keyboard"] == {name: list(value) for name, value in per_action.items()}
    assert table["gamepad"] == {name: getattr(pad, name) for name in table["gamepad"]}
    assert table["gamepad"]["throttle_axis"] == pad.throttle_axis


OLD_WRITER_BINDINGS = r"""# Tank Battle: your bindings (written by the pause menu's Controls page).
# Only the actions you changed; the rest follow config/controls.toml.
[keyboard]
throttle = ["w"]
gear_up = ["arrow_up"]
fire = ["\u00e9\"q\\"]
[gamepad]
throttle_axis = "left_x"
steer_axis = "right_trigger"
"""
"""What the hand-written writer before ``tomli_w`` saved (JSON strings, one line each)."""


def test_a_bindings_file_from_the_old_writer_still_loads(home, keys, pads):
    home.mkdir()
    path = home / "bindings.toml"
    path.write_text(OLD_WRITER_BINDINGS, encoding="utf-8")
    loaded = load_bindings(path, keys, pads)
    assert loaded.warning is None
    expected = assign_key(assign_key(keys, "fire", 'é"q\\').keyboard, "gear_up",
                          "arrow_up").keyboard
    assert loaded.keyboard == expected
    assert loaded.gamepad == next_axis(pads, "throttle_axis").gamepad
    user = UserBindings(keys, pads)
    user.save()
    again = UserBindings(keys, pads)
    assert again.current == expected and again.gamepad == loaded.gamepad


# ----- a file that cannot be read ---------------------------------------------------------------

def test_an_unreadable_settings_file_is_a_logged_warning(home, defaults, caplog):
    home.mkdir()
    (home / "settings.toml").write_text("master_volume = ", encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        user = UserSettings(defaults)
    assert [(record.name, record.levelno, record.getMessage()) for record in caplog.records] == [
        ("common.settings", logging.WARNING, user.warning)]


def test_an_unreadable_bindings_file_is_a_logged_warning(home, keys, pads, caplog):
    home.mkdir()
    (home / "bindings.toml").write_text("[keyboard]\nfire = 3\n", encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        user = UserBindings(keys, pads)
    assert [(record.name, record.levelno, record.getMessage()) for record in caplog.records] == [
        ("game.input.rebinding", logging.WARNING, user.warning)]


def test_with_no_logging_set_up_the_warning_is_the_line_alone_on_stderr(tmp_path, repo_root,
                                                                      defaults):
    path = tmp_path / "settings.toml"
    path.write_text("master_volume = 7.0\n", encoding="utf-8")
    script = ("import sys; from pathlib import Path; from common.settings import UserSettings; "
              "from game.window_config import load_window_config; "
              "UserSettings(load_window_config(Path('config')).view.user_settings, "
              "Path(sys.argv[1]) / 'settings.toml')")
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path)], cwd=repo_root,
                          capture_output=True, text=True, check=True)
    assert done.stdout == ""
    line = load_settings(path, defaults).warning
    assert "master_volume" in line and done.stderr == line + "\n"
