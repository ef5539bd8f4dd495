"""The command line, run as a user would: `python main.py ...` in a subprocess.

Headless runs, the telemetry contract, determinism across processes, and user errors
(one line on stderr, exit status 2, no traceback). Those end before the game starts, so
they run forked from a process that has the game imported already (``run_forked``).
"""

from __future__ import annotations

import json
import math
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from physics.model.terrain import MapChoice, build_terrain

EXIT_USAGE = 2
STEP_HZ = 60
CONTRACT_FIELDS = {"t", "pos", "vel", "speed_kmh", "heading_deg", "pitch_deg", "roll_deg",
                   "gear", "rpm", "health", "anchors", "events"}
ANCHOR_FIELDS = {"on_ground", "compression", "load", "sliding"}
DRIVE = {"events": [{"t": 0.0, "throttle": 1.0, "steer": 0.4},
                    {"t": 1.2, "steer": -0.4, "turret": 0.5},
                    {"t": 2.0, "throttle": 0.0, "brake": 1.0, "steer": 0.0}]}


def read_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


# ----- a plain headless run -------------------------------------------------------------------


@pytest.fixture(scope="module")
def plain_run(run_forked, tmp_path_factory):
    """`--headless --seconds 5 --telemetry FILE` on the desert, seed 1, no inputs."""
    path = tmp_path_factory.mktemp("plain") / "telemetry.jsonl"
    result = run_forked("--headless", "--seconds", "5", "--map", "desert", "--seed", "1",
                        "--telemetry", path)
    return result, path


def test_headless_run_exits_0_quietly(plain_run):
    result, _ = plain_run
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr


def test_telemetry_has_one_line_per_fixed_step(plain_run):
    _, path = plain_run
    records = read_lines(path)
    assert len(records) == 5 * STEP_HZ
    times = [record["t"] for record in records]
    assert times == pytest.approx([(i + 1) / STEP_HZ for i in range(len(records))], abs=2e-6)


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def test_every_line_has_every_contract_field(plain_run):
    _, path = plain_run
    for record in read_lines(path):
        assert CONTRACT_FIELDS <= set(record), CONTRACT_FIELDS - set(record)
        for vector in ("pos", "vel"):
            assert len(record[vector]) == 3 and all(map(_is_number, record[vector]))
        for angle in ("speed_kmh", "heading_deg", "pitch_deg", "roll_deg"):
            assert _is_number(record[angle]), angle
        assert 0.0 <= record["heading_deg"] < 360.0
        assert record["gear"] is None or isinstance(record["gear"], str)
        assert record["rpm"] is None or _is_number(record["rpm"])
        assert record["health"] is None or _is_number(record["health"])
        assert isinstance(record["anchors"], list)
        for anchor in record["anchors"]:
            assert ANCHOR_FIELDS <= set(anchor), ANCHOR_FIELDS - set(anchor)
            assert isinstance(anchor["on_ground"], bool) and isinstance(anchor["sliding"], bool)
            assert _is_number(anchor["compression"]) and _is_number(anchor["load"])
        assert isinstance(record["events"], list)
        assert all(isinstance(event, dict) and isinstance(event.get("type"), str)
                   for event in record["events"])


def test_the_body_ends_at_rest_on_the_terrain(plain_run, config):
    _, path = plain_run
    last = read_lines(path)[-1]
    x, y, z = last["pos"]
    terrain = build_terrain(MapChoice.parse("desert"), config.game.terrain, 1)
    ground_m = float(terrain.height_at(x, y))
    assert z > ground_m, f"centre of mass {z:.3f} m is below the ground {ground_m:.3f} m"
    assert z - ground_m < 3.0, f"floating {z - ground_m:.2f} m above the ground"
    assert np.linalg.norm(last["vel"]) < 0.05
    assert abs(last["speed_kmh"]) < 0.2
    assert abs(x) < 5.0 and abs(y) < 5.0, "it wandered off its spawn point"


# ----- determinism ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def driven_runs(run_cli, tmp_path_factory):
    """Three runs with the same inputs file: seed 1 twice and seed 2, two at a time."""
    folder = tmp_path_factory.mktemp("driven")
    inputs = folder / "drive.json"
    inputs.write_text(json.dumps(DRIVE), encoding="utf-8")
    jobs = {"a": 1, "b": 1, "c": 2}

    def run(name):
        out = folder / f"{name}.jsonl"
        result = run_cli("--headless", "--seconds", "3", "--seed", jobs[name], "--inputs",
                         inputs, "--telemetry", out)
        assert result.returncode == 0, result.stderr
        return out.read_bytes()

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(jobs, pool.map(run, jobs)))


def test_same_seed_and_inputs_give_byte_identical_telemetry(driven_runs):
    assert driven_runs["a"].count(b"\n") == 3 * STEP_HZ
    assert driven_runs["a"] == driven_runs["b"]


def test_a_different_seed_gives_different_telemetry(driven_runs):
    assert driven_runs["a"] != driven_runs["c"]
    first = [json.loads(line)["pos"] for line in driven_runs["a"].splitlines()]
    other = [json.loads(line)["pos"] for line in driven_runs["c"].splitlines()]
    assert first[-1] != other[-1]


def test_the_inputs_file_is_obeyed(driven_runs):
    """Full throttle for 2 s moves the vehicle (the plain run without inputs stays put)."""
    records = [json.loads(line) for line in driven_runs["a"].splitlines()]
    start, end = np.array(records[0]["pos"]), np.array(records[-1]["pos"])
    assert np.linalg.norm((end - start)[:2]) > 1.0


# ----- user errors --------------------------------------------------------------------------------


def assert_user_error(result, *phrases: str) -> str:
    assert result.returncode == EXIT_USAGE, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("tank-battle: "), lines[0]
    for phrase in phrases:
        assert phrase in lines[0], f"{phrase!r} not in {lines[0]!r}"
    assert result.stdout == ""
    return lines[0]


BAD_FLAGS = [
    (["--bogus"], ["--bogus"]),
    (["--seconds", "-1"], ["--seconds", "-1"]),
    (["--seconds", "0"], ["--seconds"]),
    (["--seconds", "nan"], ["--seconds"]),
    (["--seconds", "soon"], ["--seconds", "soon"]),
    (["--map", "mountains"], ["--map", "mountains", "desert"]),
    (["--map", "slope:abc"], ["--map", "slope:abc", "slope:DEG"]),
    (["--map", "slope:90"], ["--map", "slope:90"]),
    (["--seed", "-1"], ["--seed"]),
    (["--seed", "x"], ["--seed"]),
    (["--vehicle", "bicycle"], ["--vehicle", "bicycle"]),
    (["--players", "0"], ["--players", "[1, 2]"]),
    (["--players", "3"], ["--players", "[1, 2]"]),
    (["--players", "two"], ["--players", "two"]),
]


@pytest.mark.parametrize("args, phrases", BAD_FLAGS, ids=[" ".join(a) for a, _ in BAD_FLAGS])
def test_bad_flags(run_forked, args, phrases):
    assert_user_error(run_forked("--headless", "--seconds", "0.1", *args), *phrases)


BAD_INPUTS = {
    "bad-json": ('{"events": [{"t": 0, "throttle": 1.0,}]}', ["JSON", "line 1"]),
    "unknown-control": ('{"events": [{"t": 0, "thrust": 1.0}]}', ["events[0].thrust"]),
    "throttle-2": ('{"events": [{"t": 0, "throttle": 2}]}', ["events[0].throttle", "[-1, 1]"]),
    "t-backwards": ('{"events": [{"t": 1, "throttle": 1}, {"t": 0.5, "throttle": 0}]}',
                    ["events[1].t", "time order"]),
    "non-object-event": ('{"events": [{"t": 0}, 42]}', ["events[1]", "object"]),
    "bad-gear": ('{"events": [{"t": 0, "gear": "7"}]}', ["events[0].gear"]),
    "shell-9": ('{"events": [{"t": 0, "shell": 9}]}', ["events[0].shell", "0 to 7"]),
    "shell-named": ('{"events": [{"t": 0, "fire": true}, {"t": 1, "shell": "apcr"}]}',
                    ["events[1].shell", "ammunition slot"]),
    "next-shell-1": ('{"events": [{"t": 0, "next_shell": 1}]}',
                     ["events[0].next_shell", "true or false"]),
}


@pytest.mark.parametrize("name", BAD_INPUTS)
def test_bad_inputs_files(run_forked, tmp_path, name):
    text, phrases = BAD_INPUTS[name]
    path = tmp_path / f"{name}.json"
    path.write_text(text, encoding="utf-8")
    line = assert_user_error(run_forked("--headless", "--seconds", "0.1", "--inputs", path),
                             *phrases)
    assert str(path) in line


def test_a_missing_inputs_file(run_forked, tmp_path):
    path = tmp_path / "nowhere.json"
    line = assert_user_error(run_forked("--headless", "--seconds", "0.1", "--inputs", path),
                             "no such file")
    assert str(path) in line


def test_headless_screenshot_is_refused(run_forked, tmp_path):
    assert_user_error(run_forked("--headless", "--seconds", "0.1", "--screenshot",
                                 tmp_path / "x.png"), "--headless", "--screenshot")
    assert not (tmp_path / "x.png").exists()


def test_screenshot_into_a_missing_folder_is_refused(run_forked, tmp_path):
    target = tmp_path / "no-such-folder" / "x.png"
    assert_user_error(run_forked("--offscreen", "--seconds", "0.1", "--screenshot", target),
                      "--screenshot", "folder")


def test_screenshot_must_be_a_png(run_forked, tmp_path):
    assert_user_error(run_forked("--offscreen", "--seconds", "0.1", "--screenshot",
                                 tmp_path / "x.jpg"), "--screenshot", ".png")


def test_telemetry_into_a_missing_folder_is_refused(run_forked, tmp_path):
    target = tmp_path / "no-such-folder" / "t.jsonl"
    line = assert_user_error(run_forked("--headless", "--seconds", "0.1", "--telemetry", target),
                             "telemetry")
    assert str(target) in line


def test_a_config_folder_that_does_not_exist(run_forked, tmp_path):
    line = assert_user_error(run_forked("--headless", "--seconds", "0.1", "--config",
                                        tmp_path / "nothing"), "no such file")
    assert str(tmp_path / "nothing") in line


@pytest.mark.parametrize("flag", ["--record", "--replay"])
def test_two_players_and_replays_are_refused(run_forked, tmp_path, flag):
    target = tmp_path / "game.replay"
    target.write_text("", encoding="utf-8")
    assert_user_error(run_forked("--headless", "--seconds", "0.1", "--players", "2", flag, target),
                      "--players 2", flag)


def test_two_players_run_headless_with_player_two_standing_still(run_forked, tmp_path):
    path = tmp_path / "telemetry.jsonl"
    result = run_forked("--headless", "--seconds", "1", "--map", "flat", "--players", "2",
                        "--telemetry", path, "--inputs", _drive_file(tmp_path))
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    lines = read_lines(path)
    assert len(lines) == STEP_HZ  # player 1's telemetry, as with one player
    assert lines[-1]["speed_kmh"] > 1.0


def _drive_file(folder: Path) -> Path:
    path = folder / "drive.json"
    path.write_text(json.dumps(DRIVE), encoding="utf-8")
    return path
