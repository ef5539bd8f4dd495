"""Bots on the player's side (:meth:`game.sim.battle.Battle.add_ally`): an ally of the class
asked for starts on the players' line, counts as the player's side (the round goes on
while it lives), fights the bots, which fight it too, and starts every round at its
place."""

from __future__ import annotations

import json

import numpy as np
import pytest

from game.sim.battle import Battle
from game.sim.controls import Controls
from game.sim.events import RoundEnd, RoundStart, Shot
from game.sim.simulation import Simulation
from physics.model.terrain import MapChoice

SEED = 2
MEETING_SEED = 4
"""A battle of 2 bots against 2 allies (and the player) whose sides meet and fire within its
first 40 s: each ally fired 3 or 4 shots by then (seed 2's sides meet near the end of it or
after, as the bots' ways round the rocks go)."""


ALLY_FIGHT_SEED = 4
"""A battle of one bot against the idle player and an ally where the ally and the bot both
fire within the first 30 s (seed 2's bot fires after 80 s, or not in 90 s, as its ways
go; seed 1's ally destroys it before it fires)."""


def _battle(config, seed: int) -> Battle:
    simulation = Simulation(config.world, MapChoice.parse("desert"), seed)
    return Battle(simulation, config.game.battle, config.game.ai, 1)


@pytest.fixture
def battle(config):
    battle = _battle(config, SEED)
    yield battle
    battle.simulation.destroy()


@pytest.fixture
def fight(config):
    battle = _battle(config, ALLY_FIGHT_SEED)
    yield battle
    battle.simulation.destroy()


def _xy(vehicle) -> np.ndarray:
    return np.asarray(vehicle.current.position_ws[:2], dtype=float)


def test_an_ally_of_its_class_starts_on_the_players_line_on_the_players_side(battle, config):
    simulation = battle.simulation
    name = battle.add_ally("heavy", config.game.ai)
    ally, player = simulation.vehicle_named(name), simulation.player
    [bot] = [simulation.vehicle_named(bot_name) for bot_name in battle.bots]
    assert ally.tank_class == "heavy" and battle.side_of(name) == "player"
    line_gap_m = np.linalg.norm(_xy(ally) - _xy(player))
    assert 0.0 < line_gap_m < np.linalg.norm(_xy(bot) - _xy(player)) / 4.0
    assert battle.spawns[name] == pytest.approx((*_xy(ally), battle.spawns[name][2]), abs=0.5)
    second = battle.add_ally("light", config.game.ai)
    assert second != name and battle.spawns[second][:2] != battle.spawns[name][:2]


def test_the_round_goes_on_while_an_ally_lives_and_every_tank_starts_again(battle, config):
    simulation = battle.simulation
    ally = simulation.vehicle_named(battle.add_ally("light", config.game.ai))
    simulation.player.destroyed = True
    events = simulation.step(Controls())
    assert not any(isinstance(event, RoundEnd) for event in events)
    ally.destroyed = True
    events = simulation.step(Controls())
    assert [event.winner for event in events if isinstance(event, RoundEnd)] == ["bots"]
    for _ in range(round(config.game.battle.restart_delay_s / simulation.step_s) + 2):
        events += simulation.step(Controls())
    assert any(isinstance(event, RoundStart) for event in events)
    assert not ally.destroyed and not simulation.player.destroyed
    assert _xy(ally) == pytest.approx(battle.spawns[ally.name][:2], abs=1.0)


@pytest.mark.slow
def test_an_ally_goes_and_fights_the_bots_while_the_player_stands_idle(fight, config):
    """The player never moves; the ally drives off to find the bot and fires at it, and the
    bot, finding the ally nearer than the player, fires at the ally too."""
    battle, simulation = fight, fight.simulation
    name = battle.add_ally("medium", config.game.ai)
    ally = simulation.vehicle_named(name)
    start = _xy(ally)
    shooters = set()
    for _ in range(round(90.0 / simulation.step_s)):
        events = simulation.step(Controls())
        shooters |= {event.vehicle for event in events if isinstance(event, Shot)}
        if {name, "bot-1"} <= shooters:
            break
    assert np.linalg.norm(_xy(ally) - start) > 20.0
    assert {name, "bot-1"} <= shooters


@pytest.mark.slow
def test_the_tournament_plays_mixed_teams_and_counts_each_class_exchanges(config):
    """``bench ai``'s mixed teams: a tank of every class a side, the player's and its
    allies driven by brains; every tank destroyed is one exchange, won by its killer's
    class and lost by its own, so the classes' wins and losses add up alike."""
    from bench import ai
    teams, shots, blind = ai.mixed_teams(config, 1, 60.0)
    assert teams["tanks_a_side"] == len(config.tanks) and teams["rounds"] == 1
    assert sum(teams["winners"].values()) == 1
    won, lost = teams["exchanges_won"], teams["exchanges_lost"]
    assert set(won) == set(lost) == set(teams["win_share"]) == set(config.tanks)
    assert sum(won.values()) == sum(lost.values())
    for name, share in teams["win_share"].items():
        assert share == pytest.approx(won[name] / max(1, won[name] + lost[name]), abs=0.001)
    assert shots > 0 and blind == 0


def test_a_game_with_allies_gives_them_the_bots_classes_in_turn(config):
    from game.sim.session import GameOptions, GameSession
    session = GameSession(config.session, GameOptions(MapChoice.parse("desert"), SEED, bots=1,
                                                      allies=3, difficulty="hard"))
    try:
        classes = config.game.battle.bot_tanks
        allies = [session.simulation.vehicle_named(f"ally-{number}") for number in (1, 2, 3)]
        assert [ally.tank_class for ally in allies] == [classes[number % len(classes)]
                                                        for number in range(3)]
        assert {session.battle.side_of(ally.name) for ally in allies} == {"player"}
    finally:
        session.destroy()


@pytest.mark.slow
def test_allies_on_the_command_line_fight_and_play_back_from_a_replay(run_cli, tmp_path):
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    replay = tmp_path / "game.replay"
    played = run_cli("--headless", "--bots", "2", "--allies", "2", "--seed",
                     str(MEETING_SEED), "--seconds", "40", "--record", replay,
                     "--telemetry", first)
    assert played.returncode == 0, played.stderr
    assert json.loads(replay.read_text())["allies"] == 2
    shooters = {event["vehicle"] for line in first.read_text().splitlines()
                for event in json.loads(line)["events"] if event["type"] == "shot"}
    assert shooters & {"ally-1", "ally-2"}, shooters  # the allies fight
    again = run_cli("--headless", "--replay", replay, "--telemetry", second)
    assert again.returncode == 0, again.stderr
    assert second.read_bytes() == first.read_bytes()


@pytest.mark.parametrize("args", [("--allies", "2"), ("--allies", "1", "--serve"),
                                  ("--allies", "1", "--bots", "1", "--connect", "x:1")])
def test_allies_without_bots_or_online_are_one_line_and_exit_2(run_forked, args):
    done = run_forked("--headless", *args)
    assert done.returncode == 2
    [line] = done.stderr.strip().splitlines()
    assert "--allies" in line
