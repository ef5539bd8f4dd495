"""Replays: recorded games play back byte for byte; a bad or foreign replay is refused."""

from __future__ import annotations

import json

import pytest

INPUTS = {"events": [{"t": 0.2, "throttle": 1.0, "gear": "A", "turret": 0.5, "shell": 1},
                     {"t": 2.0, "steer": -0.6, "fire": True, "shell": None},
                     {"t": 4.0, "throttle": 0.3, "steer": 0.4, "elevation": 0.3,
                      "next_shell": True},
                     {"t": 6.0, "fire": False, "handbrake": True, "next_shell": False}]}


@pytest.fixture(scope="module")
def recorded(tmp_path_factory, run_cli):
    """One recorded headless battle: (folder, replay path, its telemetry)."""
    folder = tmp_path_factory.mktemp("replay")
    (folder / "inputs.json").write_text(json.dumps(INPUTS))
    result = run_cli("--headless", "--seed", "3", "--bots", "2", "--seconds", "8",
                     "--inputs", str(folder / "inputs.json"),
                     "--telemetry", str(folder / "original.jsonl"),
                     "--record", str(folder / "game.replay"))
    assert result.returncode == 0, result.stderr
    return folder, folder / "game.replay", (folder / "original.jsonl").read_bytes()


def test_a_replay_gives_byte_identical_telemetry(recorded, run_cli):
    folder, replay, original = recorded
    result = run_cli("--headless", "--replay", str(replay),
                     "--telemetry", str(folder / "again.jsonl"))
    assert result.returncode == 0, result.stderr
    assert (folder / "again.jsonl").read_bytes() == original
    assert original.count(b"\n") == 8 * 60
    assert b'"type":"shot"' in original  # the recording covers a real fight
    assert b'{"type":"shot","vehicle":"player","shell":"ap"}' in original  # the one loaded


def test_the_replay_is_small_and_says_what_it_needs(recorded):
    _, replay, _ = recorded
    document = json.loads(replay.read_text())
    assert document["format"] == "tank-battle-replay" and document["steps"] == 8 * 60
    assert (document["seed"], document["bots"], document["map"]) == (3, 2, "desert")
    assert len(document["controls"]) == len(INPUTS["events"])  # changes only
    assert replay.stat().st_size < 2000


def corrupt(replay_text: str, how: str) -> str | bytes:
    document = json.loads(replay_text)
    if how == "garbage":
        return b"\x00\xff\xfe garbage \x89PNG"
    if how == "empty":
        return ""
    if how == "truncated":
        return replay_text[: len(replay_text) // 2]
    if how == "not a replay":
        document["format"] = "something-else"
    elif how == "other format version":
        document["version"] = 99
    elif how == "other game version":
        document["game_version"] = "0.0.1"
    elif how == "seed missing":
        del document["seed"]
    elif how == "seed not a number":
        document["seed"] = "three"
    elif how == "steps out of order":
        document["controls"] = document["controls"][::-1]
    elif how == "unknown control":
        document["controls"][0][1]["nitro"] = True
    elif how == "throttle out of range":
        document["controls"][0][1]["throttle"] = 7.5
    elif how == "shell out of range":
        document["controls"][0][1]["shell"] = 8
    return json.dumps(document)


@pytest.mark.parametrize("how", ["garbage", "empty", "truncated", "not a replay",
                                 "other format version", "other game version", "seed missing",
                                 "seed not a number", "steps out of order", "unknown control",
                                 "throttle out of range", "shell out of range"])
def test_a_bad_replay_is_refused_with_one_line(recorded, run_forked, tmp_path, how):
    _, replay, _ = recorded
    bad = tmp_path / "bad.replay"
    content = corrupt(replay.read_text(), how)
    bad.write_bytes(content if isinstance(content, bytes) else content.encode())
    before = bad.read_bytes()
    result = run_forked("--headless", "--replay", str(bad), "--telemetry",
                        str(tmp_path / "t.jsonl"))
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and str(bad) in lines[0] and "Traceback" not in result.stderr
    assert bad.read_bytes() == before


def test_a_replay_made_with_other_config_is_refused(recorded, run_forked, config_copy, edit_file):
    _, replay, _ = recorded
    edit_file(config_copy / "tanks" / "medium.toml", "reload_s = 4.0", "reload_s = 3.0")
    result = run_forked("--headless", "--replay", str(replay), "--config", str(config_copy))
    assert result.returncode == 2
    assert "config_digest" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_replay_and_inputs_together_are_refused(recorded, run_forked):
    folder, replay, _ = recorded
    result = run_forked("--headless", "--replay", str(replay), "--inputs",
                     str(folder / "inputs.json"))
    assert result.returncode == 2 and "--replay" in result.stderr


def test_a_game_played_by_hand_saves_its_replay_in_the_data_folder(tmp_path, monkeypatch, caplog):
    from game.runs.windowed import replay_saver
    from game.sim.controls import Controls
    from game.sim.replay import ReplayHeader, ReplayRecorder
    monkeypatch.setenv("TANK_BATTLE_DATA_HOME", str(tmp_path / "data"))
    recorder = ReplayRecorder(ReplayHeader("0.1.0", "digest", 1, "desert", "tank", 0, 0))
    recorder.record(0, Controls(throttle=1.0))
    replay_saver(None, interactive=True)(recorder)
    saved = list((tmp_path / "data" / "replays").glob("*.replay"))
    assert len(saved) == 1 and json.loads(saved[0].read_text())["steps"] == 1
    replay_saver(None, interactive=False)(recorder)  # scripted runs keep nothing
    assert len(list((tmp_path / "data" / "replays").glob("*.replay"))) == 1
    blocker = tmp_path / "blocked"
    blocker.write_text("a file where the folder should be")
    monkeypatch.setenv("TANK_BATTLE_DATA_HOME", str(blocker))
    replay_saver(None, interactive=True)(recorder)  # cannot save: one warning, no crash
    warnings = [record for record in caplog.records if record.levelname == "WARNING"]
    assert len(warnings) == 1 and "replay not saved" in warnings[0].getMessage()


def test_a_replay_plays_back_in_the_tank_class_it_was_played_in(run_cli, tmp_path, config):
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    replay = tmp_path / "game.replay"
    played = run_cli("--headless", "--tank", "light", "--bots", "1", "--seconds", "3",
                     "--inputs", str(_inputs(tmp_path)), "--record", replay,
                     "--telemetry", first)
    assert played.returncode == 0, played.stderr
    assert json.loads(replay.read_text())["tank"] == "light"
    again = run_cli("--headless", "--replay", replay, "--telemetry", second)
    assert again.returncode == 0, again.stderr
    assert second.read_bytes() == first.read_bytes()
    rows = [json.loads(line) for line in first.read_text().splitlines()]
    light, medium = config.tanks["light"].armour.health, config.tanks["medium"].armour.health
    assert light != medium and rows[0]["health"] == light  # the light tank's


def _inputs(folder):
    path = folder / "inputs.json"
    path.write_text(json.dumps(INPUTS))
    return path


def test_a_replay_naming_a_tank_class_this_config_lacks_is_refused(recorded, run_forked,
                                                                  tmp_path):
    _, replay, _ = recorded
    document = json.loads(replay.read_text())
    document["tank"] = "superheavy"
    bad = tmp_path / "bad.replay"
    bad.write_text(json.dumps(document))
    result = run_forked("--headless", "--replay", str(bad))
    assert result.returncode == 2
    line = result.stderr.strip()
    assert len(line.splitlines()) == 1 and str(bad) in line and "tank" in line, line
    assert "light, medium, heavy" in line
