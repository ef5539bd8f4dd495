"""The "Default bindings" table of docs/controls.md is the one made from
config/controls.toml, and it names every action of that file, so it cannot go stale."""

from __future__ import annotations

import dataclasses
import re

import pytest

from game.input.bindings import ROWS, bindings_table, key_words, pad_words
from game.input.gamepad import DRIVING_AXES
from tools.bindings_table import main


def _actions(spec) -> set[str]:
    return {field.name for field in dataclasses.fields(spec)}


def _pad_actions(gamepad) -> set[str]:
    """The gamepad's bindings: its button lists, its axes and the H gate's stick."""
    return set(gamepad.button_actions()) | set(DRIVING_AXES) | {"gate_stick"}


@pytest.fixture(scope="module")
def controls_table(repo_root) -> str:
    text = (repo_root / "docs" / "controls.md").read_text(encoding="utf-8")
    section = text.split("## Default bindings", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    assert rows, "no table under ## Default bindings"
    return "\n".join(rows) + "\n"


def test_the_controls_table_is_the_one_made_from_the_config(controls_table, config):
    assert controls_table == bindings_table(config.controls), (
        "docs/controls.md's Default bindings table is stale: "
        "paste `python -m tools.bindings_table`")


def test_every_action_in_controls_toml_is_in_the_controls_table(controls_table, config):
    named = set(re.findall(r"`([a-z0-9_]+)`", controls_table))
    keyboard = _actions(config.controls.keyboard)
    gamepad = _pad_actions(config.controls.gamepad)
    assert keyboard - named == set(), "keyboard actions missing from the bindings table"
    assert gamepad - named == set(), "gamepad actions missing from the bindings table"


def test_every_row_names_real_actions_and_each_action_has_one_row(config):
    keyboard = [action for _, actions, _ in ROWS for action in actions]
    gamepad = [action for _, _, actions in ROWS for action in actions]
    assert sorted(keyboard) == sorted(_actions(config.controls.keyboard))
    assert sorted(gamepad) == sorted(_pad_actions(config.controls.gamepad))


def test_every_key_and_pad_control_reads_as_words(config):
    for action in _actions(config.controls.keyboard):
        for key in getattr(config.controls.keyboard, action):
            assert "_" not in key_words(key), key
    gamepad = config.controls.gamepad
    for action in _pad_actions(gamepad):
        value = getattr(gamepad, action)
        for name in value if isinstance(value, tuple) else (value,):
            assert "_" not in pad_words(name), name
    assert key_words("f10") == "F10" and key_words("w") == "W" and key_words("arrow_up") == "↑"


def test_a_rebinding_shows_in_the_table(config):
    keyboard = dataclasses.replace(config.controls.keyboard, fire=("enter",))
    gamepad = dataclasses.replace(config.controls.gamepad, fire=("rtrigger",),
                                  throttle_axis="left_y", steer_axis="left_x")
    table = bindings_table(dataclasses.replace(config.controls, keyboard=keyboard,
                                               gamepad=gamepad))
    assert "| Enter (`fire`) | right trigger click (`fire`) |" in table
    assert "left stick ↑↓ (`throttle_axis`)" in table


def test_the_command_prints_the_table(capsys, config):
    assert main([]) == 0
    assert capsys.readouterr().out == bindings_table(config.controls)


def test_the_command_reports_a_bad_config_in_one_line(capsys, tmp_path):
    assert main(["--config", str(tmp_path)]) == 2
    error = capsys.readouterr().err
    assert error.startswith("tank-battle: ") and error.count("\n") == 1
