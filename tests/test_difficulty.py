"""`--difficulty` sets the bots' level, `--player-ai` lets the bot brain drive the player,
and a replay keeps the level it was played at; a bot that has lost sight of its target
goes looking for it (a vantage point over the dunes), and one held by a rock backs off."""

from __future__ import annotations

import json
import math
from dataclasses import replace

import numpy as np
import pytest

from game.sim.events import Destroyed, Shot
from game.sim.search import ring_points, vantage_costs, viewing_points
from game.sim.session import GameOptions, GameSession
from game.sim.spotting import spotted
from game.sim.step_loop import StepLoop
from game.sim.stuck import StuckSpec, Unsticker
from physics.model.ballistics import gun_axes
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


SEEDS = range(1, 13)
"""Every behaviour below is judged over the first twelve seeds, none picked: each seed is
another desert, other spawns and other dunes between the tanks."""
FIGHT_S = 120.0  # the sides start 400 m apart: an approach, then the fight
DROVE_OFF_M = 10.0  # a fight in which the player's tank went farther than this drove off


def _fight(config, seed: int) -> dict:
    """The bot brain at hard drives the player against one easy bot for ``FIGHT_S``: how
    far it went from its spawn, its shots and the bot tanks it destroyed. The battle ends
    early once it has driven off, shot and destroyed: what the test asks of a
    fight (each more than a threshold, and none of them ever falls) is then decided."""
    session = GameSession(config.session, GameOptions(MapChoice("desert"), seed, "tank", 1,
                                                      difficulty="easy", player_ai="hard"))
    loop = StepLoop(session, session.player_brain())
    player = session.simulation.player
    start_xy = player.current.position_ws[:2].copy()
    farthest_m, shots, kills = 0.0, 0, 0
    try:
        for _ in range(round(FIGHT_S / session.simulation.step_s)):
            for event in loop.step():
                shots += isinstance(event, Shot) and event.vehicle == player.name
                kills += isinstance(event, Destroyed) and event.by == player.name
            farthest_m = max(farthest_m, math.dist(start_xy, player.current.position_ws[:2]))
            if shots and kills and farthest_m > DROVE_OFF_M:
                break
    finally:
        session.destroy()
    return {"seed": seed, "farthest_m": farthest_m, "shots": shots, "kills": kills}


@pytest.mark.slow
def test_the_bot_brain_drives_and_fights_for_the_player_in_most_battles(config):
    fights = [_fight(config, seed) for seed in SEEDS]
    # Measured on seeds 1-24 (the sides starting 400 m apart, its gun waiting for its
    # aiming circle, the medium tank on the Panther's 515 kW, a cupola on each turret): in
    # 120 s it fired in 22, drove off in all and destroyed the bot in 17; on these twelve,
    # 10, 12 and 7.
    assert sum(fight["shots"] > 0 for fight in fights) >= 9, fights
    assert sum(fight["farthest_m"] > DROVE_OFF_M for fight in fights) >= 10, fights
    assert sum(fight["kills"] > 0 for fight in fights) >= 6, fights


def test_player_ai_on_the_command_line_drives_the_player(run_forked, tmp_path):
    telemetry = tmp_path / "watch.jsonl"
    result = run_forked("--headless", "--bots", "1", "--player-ai", "hard", "--difficulty",
                        "easy", "--seconds", "10", "--seed", "2", "--telemetry", telemetry)
    assert result.returncode == 0, result.stderr
    rows = read(telemetry)
    assert max(abs(row["speed_kmh"]) for row in rows) > 5.0  # nobody touched the keys


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
def test_bad_levels_are_one_line_and_exit_2(run_forked, args, said):
    result = run_forked("--headless", *args)
    assert result.returncode == EXIT_USAGE
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and said in lines[0]


class Ridge:
    """Flat ground at 0 m with a 10 m high, 20 m wide ridge across x = 100 m."""

    half_extent_x_m = half_extent_y_m = 500.0

    @staticmethod
    def height_at(x_m, y_m):
        return np.where(np.abs(np.asarray(x_m) - 100.0) < 10.0, 10.0, 0.0)


def test_a_searching_bot_looks_for_a_view_over_the_ridge(config):
    spotting = config.game.ai.spotting
    here, target = (60.0, 0.0), (200.0, 0.0, 1.0)
    eye_height_m = 2.0
    assert not viewing_points(Ridge, np.array([here]), eye_height_m, target, 400.0, spotting)[0]
    candidates = ring_points(here, (25.0, 50.0, 75.0, 100.0), 16)
    seeing = viewing_points(Ridge, candidates, eye_height_m, target, 400.0, spotting)
    assert seeing.any()
    assert np.all(candidates[seeing][:, 0] > 90.0)  # on the ridge or past it: none behind it
    assert not viewing_points(Ridge, candidates, eye_height_m, target, 30.0, spotting).any()


def test_a_vantage_costs_the_way_there_and_the_distance_outside_fighting_distance():
    points = np.array([[10.0, 0.0], [50.0, 0.0], [150.0, 0.0]])
    costs = vantage_costs(points, (0.0, 0.0), (200.0, 0.0), near_m=120.0, far_m=300.0)
    assert costs.tolist() == pytest.approx([10.0, 50.0, 150.0 + 70.0])


def test_a_stuck_bot_tries_the_other_way_then_full_throttle_then_its_own_way_again():
    spec = StuckSpec(below_mps=0.5, turning_below_deg_s=5.0, after_s=2.0, back_off_s=1.5)
    unsticker = Unsticker(spec)
    step_s = 0.1
    drives = [unsticker.drive(step * step_s, 0.0, 0.0, 0.4, 0.3) for step in range(80)]
    assert drives[:20] == [(0.4, 0.3)] * 20  # trying for after_s
    assert drives[21:35] == [(-1.0, 0.3)] * 14  # backing off for back_off_s
    assert drives[36:55] == [(0.4, 0.3)] * 19  # its own way again, and still stuck ...
    assert drives[56:70] == [(1.0, 0.3)] * 14  # ... so full throttle its own way
    assert drives[-1] == (0.4, 0.3)
    resting, turning, moving = (Unsticker(spec) for _ in range(3))
    assert all(resting.drive(step * step_s, 0.0, 0.0, 0.0, 0.0) == (0.0, 0.0)
               for step in range(50))
    assert all(turning.drive(step * step_s, 0.2, 0.5, 0.4, 1.0) == (0.4, 1.0)
               for step in range(50))
    assert all(moving.drive(step * step_s, 3.0, 0.0, 1.0, 0.0) == (1.0, 0.0)
               for step in range(50))


SEARCH_SEEDS = range(1, 17)
"""The hidden player is judged over the first sixteen seeds, none picked: a few more than
the fights, as only some seeds hide the player."""
SEARCH_AFTER_S = 10.0
"""The search starts this soon here (config/game.toml waits longer), so that each battle
is short; when it starts does not change how the bot searches."""
FIND_WITHIN_S = 50.0


def _first_sighting_s(config, seed: int, search_after_s: float) -> float | None:
    """An idle player and one bot: when the bot first sees the player (None: not within
    FIND_WITHIN_S)."""
    ai = config.session.ai
    specs = replace(config.session, ai=replace(ai, search=replace(ai.search,
                                                                  after_s=search_after_s)))
    session = GameSession(specs, GameOptions(MapChoice("desert"), seed, "tank", 1))
    simulation = session.simulation
    bot, player = simulation.vehicle_named("bot-1"), simulation.player
    try:
        for _ in range(round(FIND_WITHIN_S / simulation.step_s)):
            eye = gun_axes(bot.current, bot.spec.gun, bot.aim)[0]
            if spotted(ai.spotting, simulation.terrain, eye, player, simulation.time_s):
                return simulation.time_s
            simulation.step()
        return None
    finally:
        session.destroy()


@pytest.mark.slow
def test_a_bot_that_has_not_seen_its_target_for_a_while_goes_and_finds_it(config):
    """Where the player stays hidden until the search starts, searching finds it far more
    often than circling it does (the same battle with the search put off past the end)."""
    searching, circling = {}, {}
    for seed in SEARCH_SEEDS:
        found_s = _first_sighting_s(config, seed, SEARCH_AFTER_S)
        if found_s is not None and found_s <= SEARCH_AFTER_S:
            continue  # seen before the search began: not a hidden player
        searching[seed] = found_s
        circling[seed] = _first_sighting_s(config, seed, 600.0)
    found = sum(when is not None for when in searching.values())
    found_circling = sum(when is not None for when in circling.values())
    # Measured on seeds 1-24: 19 hid the player; searching found it in 14, circling in 6.
    assert len(searching) >= 6, searching  # enough hidden players to judge by
    assert found >= 0.4 * len(searching), (searching, circling)
    assert found > found_circling, (searching, circling)
