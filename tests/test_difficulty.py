"""`--difficulty` sets the bots' level, `--player-ai` lets the bot brain drive the player,
and a replay keeps the level it was played at."""

from __future__ import annotations

import json
import math

import pytest

from game.sim.session import GameOptions, GameSession
from physics.model.terrain import MapChoice

EXIT_USAGE = 2


@pytest.mark.parametrize("level", ["easy", "hard"])
def test_the_difficulty_option_sets_every_bots_level(config, level):
    session = GameSession(config.session, GameOptions(MapChoice("flat"), 1, "tank", 2,
                                                      difficulty=level))
    try:
        assert {bot.spec.difficulty for bot in session.battle.bots.values()} == {level}
        assert session.player_brain() is None  # a person drives
    finally:
        session.destroy()


def read(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_the_bot_brain_drives_and_fights_for_the_player(run_cli, tmp_path):
    telemetry = tmp_path / "watch.jsonl"
    result = run_cli("--headless", "--bots", "1", "--player-ai", "hard", "--difficulty",
                     "easy", "--seconds", "45", "--seed", "2", "--telemetry", telemetry)
    assert result.returncode == 0, result.stderr
    rows = read(telemetry)
    start = rows[0]["pos"]
    assert max(math.dist(start[:2], row["pos"][:2]) for row in rows) > 10.0  # it drove
    shots = [event for row in rows for event in row["events"]
             if event["type"] == "shot" and event["vehicle"] == "player"]
    assert shots  # and fired at it


def test_a_replay_plays_back_at_the_level_it_was_played(run_cli, tmp_path):
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    replay = tmp_path / "game.replay"
    played = run_cli("--headless", "--bots", "2", "--difficulty", "hard", "--seconds", "8",
                     "--record", replay, "--telemetry", first)
    assert played.returncode == 0, played.stderr
    assert json.loads(replay.read_text())["difficulty"] == "hard"
    again = run_cli("--headless", "--replay", replay, "--telemetry", second)
    assert again.returncode == 0, again.stderr
    assert second.read_bytes() == first.read_bytes()


@pytest.mark.parametrize("args, said", [
    (("--difficulty", "nightmare"), "--difficulty"),
    (("--player-ai", "expert"), "--player-ai"),
    (("--player-ai", "hard", "--replay", "x.replay"), "--player-ai"),
])
def test_bad_levels_are_one_line_and_exit_2(run_cli, args, said):
    result = run_cli("--headless", *args)
    assert result.returncode == EXIT_USAGE
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and said in lines[0]
