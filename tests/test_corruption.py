"""The corruption matrix: every file the game reads, every way it can be wrong.

Each case runs the command line in-process: it must exit 2 with exactly one
line on stderr that names the file (and the key, where there is one), print no
traceback, and write nothing (no telemetry, no replay, the bad file untouched).
Settings files are the menus' own matrix (tests/test_settings.py); replays
have theirs in tests/test_replay.py as well.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from game.cli import main

CONFIG_DIR = Path(__file__).resolve().parent.parent / "config"

# For each config file: one line to break, and the key the message must name.
TARGETS = {
    "game.toml": ("step_hz = 60", "simulation.step_hz", "step_hz = {}"),
    "tanks/medium.toml": ("mass_kg = 45000.0", "hull.mass_kg", "mass_kg = {}"),
    "car.toml": ("mass_kg = 1200.0", "hull.mass_kg", "mass_kg = {}"),
    "gearboxes.toml": ("idle_rpm = 700.0", "medium_tank.idle_rpm", "idle_rpm = {}"),
    "controls.toml": ('throttle = ["w", "arrow_up"]', "keyboard.throttle", "throttle = {}"),
    "view.toml": ("width_px = 1280", "window.width_px", "width_px = {}"),
}
WINDOW_ONLY = ("controls.toml", "view.toml")
"""Files only a game in a window reads: broken, they stop it before the window opens."""

VALUE_FAULTS = {  # fault -> the TOML value written in place of the good one
    "wrong type": '"lots"',
    "out of range": "-5",
    "not a number": "nan",
    "huge": "1e300",
}
FILE_FAULTS = ("missing file", "empty", "binary garbage", "bad syntax", "missing key",
               "unknown key")


def break_config(folder: Path, name: str, fault: str) -> str | None:
    """Break config file ``name`` in ``folder``; return the key the error must name."""
    path = folder / name
    good_line, key, pattern = TARGETS[name]
    text = path.read_text()
    if fault == "missing file":
        path.unlink()
        return None
    if fault == "empty":
        path.write_text("")
        return None
    if fault == "binary garbage":
        path.write_bytes(b"\x00\x9f\x92\x96 \xff\xfe not toml \x89PNG")
        return None
    if fault == "bad syntax":
        path.write_text(text.replace(good_line, good_line.split("=")[0] + "= = 3", 1))
        return None
    if fault == "missing key":
        path.write_text(text.replace(good_line, "", 1))
        return key
    if fault == "unknown key":
        path.write_text(text.replace(good_line, good_line + "\nsurplus_key = 1", 1))
        return key.rsplit(".", 1)[0] + ".surplus_key"
    value = VALUE_FAULTS[fault]
    if name == "controls.toml" and fault in ("out of range", "huge"):
        value = "[]" if fault == "out of range" else json.dumps(["k"] * 20)
    path.write_text(text.replace(good_line, pattern.format(value), 1))
    return key


def run_and_check(args: list[str], capsys, bad_file: Path, key: str | None,
                  outputs: list[Path]) -> None:
    before = bad_file.read_bytes() if bad_file.exists() else None
    assert main(args) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert bad_file.name in lines[0]
    if key is not None:
        assert key in lines[0], lines[0]
    assert "Traceback" not in captured.err
    for output in outputs:
        assert not output.exists(), f"{output.name} was written"
    after = bad_file.read_bytes() if bad_file.exists() else None
    assert after == before


@pytest.mark.parametrize("fault", FILE_FAULTS + tuple(VALUE_FAULTS))
@pytest.mark.parametrize("name", sorted(TARGETS))
def test_every_config_file_and_fault(tmp_path, capsys, name, fault):
    folder = tmp_path / "config"
    shutil.copytree(CONFIG_DIR, folder)
    key = break_config(folder, name, fault)
    telemetry, replay = tmp_path / "t.jsonl", tmp_path / "r.replay"
    run = "--offscreen" if name in WINDOW_ONLY else "--headless"
    run_and_check([run, "--seconds", "0.1", "--config", str(folder),
                   "--telemetry", str(telemetry), "--record", str(replay)],
                  capsys, folder / name, key, [telemetry, replay])


INPUT_FAULTS = {
    "missing file": None,
    "empty": "",
    "binary garbage": b"\x00\xff garbage",
    "bad syntax": '{"events": [{"t": 0.0, "throttle": 1.0,]}',
    "missing key": '{"events": [{"throttle": 1.0}]}',
    "wrong type": '{"events": [{"t": 0.0, "throttle": "full"}]}',
    "out of range": '{"events": [{"t": 0.0, "throttle": 2.0}]}',
    "not a number": '{"events": [{"t": 0.0, "throttle": NaN}]}',
    "huge": '{"events": [{"t": 0.0, "throttle": 1e308}]}',
    "unknown key": '{"events": [{"t": 0.0, "nitro": true}]}',
}
INPUT_KEYS = {"missing key": "events[0].t", "wrong type": "events[0].throttle",
              "out of range": "events[0].throttle", "not a number": "events[0].throttle",
              "huge": "events[0].throttle", "unknown key": "events[0].nitro"}


@pytest.mark.parametrize("fault", sorted(INPUT_FAULTS))
def test_every_inputs_file_fault(tmp_path, capsys, fault):
    inputs = tmp_path / "inputs.json"
    content = INPUT_FAULTS[fault]
    if content is not None:
        inputs.write_bytes(content if isinstance(content, bytes) else content.encode())
    telemetry = tmp_path / "t.jsonl"
    run_and_check(["--headless", "--seconds", "0.1", "--inputs", str(inputs),
                   "--telemetry", str(telemetry)], capsys, inputs, INPUT_KEYS.get(fault),
                  [telemetry])
