"""A match has an end: ``rounds`` rounds, then a ``match_end`` event with each side's
kills, shots, hits, accuracy and damage; no round after it (a server starts a new match
itself); the event survives JSON, telemetry and replays keep the match's length; and the
end-of-match screen shows the figures and calls back (built under a bare NodePath; its
Rematch in the real app: tests/test_rematch.py)."""

from __future__ import annotations

import json

import pytest
from panda3d.core import NodePath

from common.errors import UserError
from game.menus.match_end_screen import MatchEndScreen
from game.menus.requests import Restart, ToTitle
from game.sim.controls import Controls
from game.sim.events import (Damage, Destroyed, Hit, MatchEnd, RoundEnd, RoundStart, Shot,
                             event_from_json)
from game.sim.match_stats import FIGURES, MatchStats
from game.sim.net.protocol import Events, decode_server
from game.sim.replay import ReplayHeader, ReplayRecorder, game_version, load_replay
from game.sim.session import GameOptions, GameSession
from game.sim.spotting import hull_middle_ws
from game.sim.step_loop import StepLoop
from game.sim.telemetry import TelemetryWriter
from physics.model.terrain import MapChoice
from tests.test_combat import lay_gun_on, quick_reload

HOLD = Controls(handbrake=True)


def session_of(config, rounds: int, bots: int = 1, **options) -> GameSession:
    return GameSession(config.session, GameOptions(MapChoice("flat"), 1, "tank", bots,
                                                   rounds=rounds, **options))


def held_bots(simulation) -> dict[str, Controls]:
    """Every vehicle but the player held still (a bot would fight back)."""
    return {vehicle.name: HOLD for vehicle in simulation.vehicles
            if vehicle is not simulation.player}


def run(simulation, seconds: float, player=lambda simulation: Controls(brake=1.0)) -> list:
    events = []
    for _ in range(round(seconds / simulation.step_s)):
        events += simulation.step(player(simulation), held_bots(simulation))
    return events


def wreck(vehicle) -> None:
    """Destroyed where it stands, as a killing shot would leave it."""
    vehicle.health, vehicle.destroyed = 0.0, True


def seconds_to_match_end(config) -> float:
    """From a round's end to the match's: the restart pause and a step or two."""
    return config.game.battle.restart_delay_s + 0.5


# ----- the battle ---------------------------------------------------------------------


def test_the_player_shoots_the_bot_dead_and_the_one_round_match_ends_with_the_figures(config):
    session = session_of(quick_reload(config, reload_s=0.5), rounds=1)
    simulation = session.simulation
    player, bot = simulation.player, simulation.vehicle_named("bot-1")
    bot.parts = None  # no part breaks: the round ends when its health is gone
    try:
        events = run(simulation, 1.0)

        def gunner(simulation):
            lay_gun_on(simulation, player, hull_middle_ws(bot))
            return Controls(brake=1.0, fire=not bot.destroyed)
        for _ in range(round(30.0 / simulation.step_s)):
            events += simulation.step(gunner(simulation), held_bots(simulation))
            if any(isinstance(event, MatchEnd) for event in events):
                break
        events += run(simulation, seconds_to_match_end(config) + 5.0)
    finally:
        session.destroy()
    assert bot.destroyed and not player.destroyed
    ends = [event for event in events if isinstance(event, MatchEnd)]
    assert len(ends) == 1
    end = ends[0]
    assert [type(event) for event in events if isinstance(event, (RoundEnd, RoundStart,
                                                                  MatchEnd))] == [RoundEnd,
                                                                                  MatchEnd]
    assert (end.rounds, end.winner, end.score) == (1, "player", {"player": 1, "bots": 0})
    shots = sum(isinstance(event, Shot) and event.vehicle == player.name for event in events)
    hits = sum(isinstance(event, Hit) and event.target == bot.name for event in events)
    ours, theirs = end.sides["player"], end.sides["bots"]
    assert shots >= 1 and hits >= 1
    assert (ours["kills"], ours["shots"], ours["hits"]) == (1, shots, hits)
    assert ours["accuracy"] == pytest.approx(hits / shots)
    health = bot.spec.armour.health
    dealt = sum(event.amount for event in events if isinstance(event, Damage))
    assert dealt > health  # the killing shot did more than the health left ...
    assert ours["damage_dealt"] == pytest.approx(health, abs=0.01)  # ... only that counts
    assert theirs["damage_taken"] == pytest.approx(health, abs=0.01)
    assert (theirs["kills"], theirs["shots"], theirs["hits"], theirs["damage_dealt"],
            ours["damage_taken"]) == (0, 0, 0, 0.0, 0.0)
    assert theirs["accuracy"] is None  # no shot, nothing to measure


def test_after_the_last_round_the_match_ends_a_draw_and_no_round_starts(config):
    session = session_of(config, rounds=2)
    simulation, battle = session.simulation, session.battle
    player, bot = simulation.player, simulation.vehicle_named("bot-1")
    try:
        run(simulation, 0.5)
        wreck(bot)
        first = run(simulation, seconds_to_match_end(config))
        assert RoundEnd(1, "player", {"player": 1, "bots": 0}) in first
        assert RoundStart(2, {"player": 1, "bots": 0}) in first
        assert not bot.destroyed  # whole again for round 2
        wreck(player)
        last = run(simulation, seconds_to_match_end(config) + 10.0)
    finally:
        session.destroy()
    kinds = [type(event) for event in last if isinstance(event, (RoundEnd, RoundStart,
                                                                 MatchEnd))]
    assert kinds == [RoundEnd, MatchEnd]
    end = next(event for event in last if isinstance(event, MatchEnd))
    assert (end.rounds, end.winner, end.score) == (2, "draw", {"player": 1, "bots": 1})
    assert set(end.sides) == {"player", "bots"}
    assert all(list(figures) == list(FIGURES) for figures in end.sides.values())
    assert battle.over and battle.round == 2
    assert player.destroyed  # left as it was: no restart


def test_a_server_style_battle_starts_a_fresh_match_after_the_pause(config):
    session = session_of(config, rounds=1, next_match_automatically=True)
    simulation, battle = session.simulation, session.battle
    bot = simulation.vehicle_named("bot-1")
    try:
        run(simulation, 0.5)
        wreck(bot)
        ended = run(simulation, seconds_to_match_end(config))
        assert any(isinstance(event, MatchEnd) for event in ended)
        assert battle.over and bot.destroyed
        fresh = run(simulation, seconds_to_match_end(config))
    finally:
        session.destroy()
    assert RoundStart(1, {"player": 0, "bots": 0}) in fresh
    assert not battle.over and battle.round == 1 and not bot.destroyed
    assert battle.stats.by_side(["player", "bots"])["player"]["kills"] == 0


def test_the_options_rounds_override_the_configs_and_are_checked(config):
    assert config.game.battle.rounds == session_of(config, None).battle.rounds
    assert session_of(config, 3).battle.rounds == 3
    with pytest.raises(ValueError):
        session_of(config, 0)


def test_headless_telemetry_writes_the_match_end(config, tmp_path):
    session = session_of(config, rounds=1, bots=3)
    path = tmp_path / "out.jsonl"
    writer = TelemetryWriter(path)
    loop = StepLoop(session, lambda simulation: Controls(brake=1.0), telemetry=writer)
    try:
        loop.run(2)
        for vehicle in session.simulation.vehicles:
            if vehicle is not session.simulation.player:
                wreck(vehicle)
        loop.run_for(seconds_to_match_end(config))
    finally:
        writer.close()
        session.destroy()
    written = [event for line in path.read_text(encoding="utf-8").splitlines()
               for event in json.loads(line)["events"] if event["type"] == "match_end"]
    assert len(written) == 1
    assert written[0]["winner"] == "player" and written[0]["rounds"] == 1
    assert set(written[0]["sides"]) == {"player", "bots"}


# ----- the figures --------------------------------------------------------------------


def test_figures_count_enemies_only_and_damage_as_health_taken():
    sides = {"me": "player", "friend": "player", "bot-1": "bots"}
    stats = MatchStats(sides.get, lambda name: 100.0 if name in sides else None)
    stats.record([Shot("me"), Shot("me"), Shot("me"), Shot("plate-100m"),
                  Hit("me", "bot-1", (0, 0, 0), (0, 0, 1), 900.0),
                  Hit("me", "friend", (0, 0, 0), (0, 0, 1), 900.0),  # friendly: no hit
                  Hit("me", "plate-100m", (0, 0, 0), (0, 0, 1), 900.0),
                  Damage("bot-1", "me", 65.0, 35.0), Damage("friend", "me", 10.0, 90.0),
                  Damage("me", "me", 5.0, 95.0),  # its own splash: taken, not dealt
                  Damage("bot-1", "me", 65.0, 0.0), Destroyed("bot-1", "me")])
    me, bot = stats.vehicle("me"), stats.vehicle("bot-1")
    assert (me.shots, me.hits, me.kills) == (3, 1, 1)
    assert me.accuracy == pytest.approx(1 / 3)
    assert me.damage_dealt == pytest.approx(100.0)  # 65 + the 35 that were left
    assert me.damage_taken == pytest.approx(5.0)
    assert bot.damage_taken == pytest.approx(100.0) and bot.accuracy is None
    side = stats.by_side(["player", "bots"])
    assert side["player"]["damage_taken"] == pytest.approx(15.0)
    assert side["player"]["kills"] == 1 and side["bots"]["shots"] == 0
    stats.new_round()  # whole again: a fresh round's first blow counts in full
    stats.record([Damage("bot-1", "me", 65.0, 35.0)])
    assert stats.vehicle("me").damage_dealt == pytest.approx(165.0)


def test_free_for_all_each_player_is_a_side():
    stats = MatchStats(lambda name: name, lambda name: 100.0)
    stats.record([Shot("alpha"), Hit("alpha", "beta", (0, 0, 0), (0, 0, 1), 900.0),
                  Damage("beta", "alpha", 40.0, 60.0)])
    sides = stats.by_side(["alpha", "beta"])
    assert (sides["alpha"]["hits"], sides["alpha"]["damage_dealt"]) == (1, 40.0)
    assert sides["beta"]["damage_taken"] == 40.0


# ----- the event on the wire, the replay ---------------------------------------------

END = MatchEnd(5, "player", {"player": 3, "bots": 2},
               {"player": {"kills": 4, "shots": 20, "hits": 9, "accuracy": 0.45,
                           "damage_dealt": 400.0, "damage_taken": 230.5},
                "bots": {"kills": 2, "shots": 31, "hits": 6, "accuracy": None,
                         "damage_dealt": 230.5, "damage_taken": 400.0}})


def test_the_match_end_round_trips_through_json_and_the_network():
    record = END.to_json()
    assert list(record) == ["type", "rounds", "winner", "score", "sides"]
    assert record["type"] == "match_end"
    assert event_from_json(json.loads(json.dumps(record))) == END
    record["sides"]["player"]["kills"] = 99  # a record written is a copy
    assert END.sides["player"]["kills"] == 4
    message = Events(7, (END,))
    assert decode_server(message.encode()) == message


def test_a_replay_keeps_the_rounds_and_old_replays_play_the_configs(tmp_path):
    digest = "d" * 64
    header = ReplayHeader(game_version(), digest, 1, "flat", "tank", 2, 0, "", 3)
    recorder = ReplayRecorder(header)
    recorder.record(0, Controls(throttle=1.0))
    path = tmp_path / "game.replay"
    recorder.save(path)
    loaded = load_replay(path, digest, 60.0).header
    assert loaded.rounds == 3 and loaded.rounds_option() == 3
    document = json.loads(path.read_text())
    del document["rounds"]  # a replay made before rounds were recorded
    path.write_text(json.dumps(document))
    assert load_replay(path, digest, 60.0).header.rounds_option() is None
    document["rounds"] = 1000
    path.write_text(json.dumps(document))
    with pytest.raises(UserError, match="rounds"):
        load_replay(path, digest, 60.0)


# ----- the screen ---------------------------------------------------------------------


@pytest.fixture
def screen(config):
    calls = []
    made = MatchEndScreen(NodePath("aspect2d"), config.view.match_end,
                          calls.append)
    yield made, calls
    made.destroy()


def test_the_screen_shows_the_result_and_each_sides_figures(screen):
    made, _ = screen
    assert not made.is_open and made.veil.isHidden()
    made.show(END, "player")
    assert made.is_open and not made.veil.isHidden()
    assert made.title["text"] == "Victory"
    assert made.score_line["text"] == "5 rounds    Your side 3  :  Bots 2"
    assert made.rows() == [["", "Your side", "Bots"], ["Kills", "4", "2"],
                           ["Shots", "20", "31"], ["Hits", "9", "6"],
                           ["Accuracy", "45 %", "-"], ["Damage dealt", "400", "230"],
                           ["Damage taken", "230", "400"]]
    made.hide()
    assert not made.is_open and made.veil.isHidden()


@pytest.mark.parametrize("winner, seen_by, title, first_column", [
    ("bots", "player", "Defeat", "Your side"), ("draw", "player", "Draw", "Your side"),
    ("alpha", "alpha", "Victory", "You"), ("alpha", "beta", "Defeat", "You")])
def test_the_title_is_the_result_for_the_players_side(screen, winner, seen_by, title,
                                                      first_column):
    made, _ = screen
    names = ("player", "bots") if seen_by == "player" else ("alpha", "beta")  # free for all
    sides = dict(zip(names, END.sides.values()))
    made.show(MatchEnd(3, winner, dict(zip(names, (1, 1))), sides), seen_by)
    assert made.title["text"] == title
    assert made.rows()[0][1] == first_column  # the player's own side's column first


@pytest.mark.parametrize("label, call", [("Rematch", Restart()), ("Menu", ToTitle())])
def test_the_buttons_send_their_requests(screen, label, call):
    made, calls = screen
    made.show(END, "player")
    made.buttons[label].commandFunc(None)  # what DirectGui runs when it is clicked
    assert calls == [call]
