"""The capture zone (``--mode zone``): a side holding it alone for ``capture_s`` wins the
round; with both sides in it nobody gains; left empty the hold ebbs away; entering and
leaving are events, mapped from the trigger volume's bodies to vehicles."""

from __future__ import annotations

import dataclasses
import json

import pytest
from panda3d.core import NodePath

from common.errors import UserError
from game.menus.front_door import options_for, setup_from
from game.menus.title_menu import MatchSetup
from game.sim.controls import Controls
from game.sim.events import RoundEnd, RoundStart, ZoneCaptured, ZoneEnter, ZoneLeave
from game.sim.replay import ReplayHeader, ReplayRecorder, game_version, load_replay
from game.sim.session import GameOptions, GameSession
from game.view.ground.zone_view import ZoneBand, zone_colour
from game.view.hud.hud import Hud
from game.view.hud.hud_state import read_hud_state
from physics.model.terrain import MapChoice
from tests.test_match import HOLD
from tests.test_match import run as run_match

CAPTURE_S = 3.0
RELEASE_S = 2.0


@pytest.fixture
def session(config):
    zone = dataclasses.replace(config.game.battle.zone, capture_s=CAPTURE_S,
                               release_s=RELEASE_S)
    battle = dataclasses.replace(config.game.battle, zone=zone, restart_delay_s=1.0)
    specs = dataclasses.replace(config.session, battle=battle)
    session = GameSession(specs, GameOptions(MapChoice("flat"), 1, "tank", 1, rounds=3,
                                             mode="zone"))
    into_the_zone(session, "player", 0.0)  # the zone is the middle; the sides start apart
    yield session
    session.destroy()


def run(session, seconds: float) -> list:
    """Every vehicle held where it stands for ``seconds``; the events."""
    return run_match(session.simulation, seconds, player=lambda simulation: HOLD)


def into_the_zone(session, name: str, offset_m: float = 8.0) -> None:
    simulation = session.simulation
    x_m, y_m = session.battle.zone.centre_xy
    simulation.place(simulation.vehicle_named(name), x_m + offset_m, y_m, 0.0)


def out_of_the_zone(session, name: str) -> None:
    simulation = session.simulation
    x_m, y_m = session.battle.zone.centre_xy
    away_m = 3.0 * session.battle.zone.spec.radius_m
    simulation.place(simulation.vehicle_named(name), x_m, y_m - away_m, 0.0)


def of_type(events, kind) -> list:
    return [event for event in events if isinstance(event, kind)]


def test_the_player_holding_the_zone_alone_captures_it_and_wins_the_round(session):
    events = run(session, CAPTURE_S + 0.5)
    assert of_type(events, ZoneEnter) == [ZoneEnter("player", "player")]
    assert of_type(events, ZoneCaptured) == [ZoneCaptured(1, "player")]
    (end,) = of_type(events, RoundEnd)
    assert end.winner == "player" and end.score["player"] == 1
    assert events.index(of_type(events, ZoneCaptured)[0]) < events.index(end)
    held_s = session.battle.zone.hold_s
    assert held_s == pytest.approx(CAPTURE_S, abs=2.0 * session.simulation.step_s)


def test_both_sides_in_the_zone_contest_it_and_nobody_gains(session):
    run(session, 1.0)
    into_the_zone(session, "bot-1")
    events = run(session, CAPTURE_S + 1.0)
    zone = session.battle.zone
    assert ZoneEnter("bot-1", "bots") in events
    assert zone.contested and zone.holder == "player"
    assert zone.hold_s == pytest.approx(1.0, abs=2.0 * session.simulation.step_s)
    assert not of_type(events, ZoneCaptured) and not of_type(events, RoundEnd)


def test_left_empty_the_hold_ebbs_and_a_side_alone_takes_it_over(session):
    run(session, 1.0)
    out_of_the_zone(session, "player")
    events = run(session, 0.5)
    zone = session.battle.zone
    assert ZoneLeave("player", "player") in events
    assert zone.hold_s == pytest.approx(1.0 - 0.5 * CAPTURE_S / RELEASE_S,
                                        abs=2.0 * session.simulation.step_s)
    into_the_zone(session, "bot-1")
    events = run(session, CAPTURE_S + 1.0)
    assert zone.holder == "bots" or of_type(events, ZoneCaptured)
    assert of_type(events, ZoneCaptured) == [ZoneCaptured(1, "bots")]
    assert of_type(events, RoundEnd)[0].winner == "bots"


def test_a_new_round_empties_the_zone(session):
    events = run(session, CAPTURE_S + 0.5)
    assert of_type(events, RoundEnd)
    events = run(session, 1.5)
    assert of_type(events, RoundStart)
    left = of_type(events, ZoneLeave)
    assert left == [ZoneLeave("player", "player")]
    assert events.index(left[0]) < events.index(of_type(events, RoundStart)[0])
    assert session.battle.zone.holder in (None, "player")
    assert session.battle.zone.hold_s < 1.0


def test_a_destroyed_vehicle_leaves_the_zone(session):
    run(session, 1.0)
    player = session.simulation.player
    player.health, player.destroyed = 0.0, True
    events = run(session, 0.1)
    assert ZoneLeave("player", "player") in events


# ----- drawn ------------------------------------------------------------------------------

def test_the_hud_shows_the_zone_whose_it_is_and_the_hold(session, config):
    simulation, battle = session.simulation, session.battle
    run(session, 1.5)
    state = read_hud_state(simulation, battle)
    zone = state.zone
    assert zone.holder == "yours" and zone.inside and not zone.contested
    assert zone.share == pytest.approx(1.5 / CAPTURE_S, abs=0.02)
    assert zone.line == f"Zone yours: {round(zone.share * 100)} %"

    root = NodePath("aspect2d")
    hud = Hud({"center": root, "top_center": root.attachNewNode("top"),
               "top_right": root.attachNewNode("right")}, config.view.hud)
    hud.update(state, 1.0 / 60.0)
    assert not hud.zone_bar.root.isHidden()
    assert hud.zone_bar.text.node().getText() == zone.line
    assert hud.minimap.shapes.node.getGeom(2).getVertexData().getNumRows() > 0
    band = ZoneBand(NodePath("render"), simulation.terrain, battle.zone, config.view.hud.zone)
    band.update(zone)
    assert tuple(band.path.getColor()) == pytest.approx(
        zone_colour(config.view.hud.zone, "yours", False), abs=1e-3)

    into_the_zone(session, "bot-1")
    run(session, 0.2)
    contested = read_hud_state(simulation, battle).zone
    assert contested.contested and contested.line == "Zone contested"
    band.update(contested)
    assert tuple(band.path.getColor()) == pytest.approx(config.view.hud.zone.contested_colour,
                                                        abs=1e-3)
    band.destroy()
    hud.destroy()


def test_a_game_without_a_zone_shows_none(config):
    session = GameSession(config.session, GameOptions(MapChoice("flat"), 1, "tank", 1))
    assert session.battle.zone is None
    assert read_hud_state(session.simulation, session.battle).zone is None
    session.destroy()


def test_a_replay_keeps_the_mode_and_old_replays_are_battles(tmp_path):
    digest = "d" * 64
    header = ReplayHeader(game_version(), digest, 1, "desert", "tank", 2, 0, mode="zone")
    recorder = ReplayRecorder(header)
    recorder.record(0, Controls(throttle=1.0))
    path = tmp_path / "game.replay"
    recorder.save(path)
    assert load_replay(path, digest, 60.0).header.mode == "zone"
    document = json.loads(path.read_text())
    del document["mode"]  # a replay made before the mode was recorded
    path.write_text(json.dumps(document))
    assert load_replay(path, digest, 60.0).header.mode == "battle"
    document["mode"] = "capture-the-flag"
    path.write_text(json.dumps(document))
    with pytest.raises(UserError, match="mode"):
        load_replay(path, digest, 60.0)


def test_mode_zone_on_the_command_line_writes_the_zone_events(run_forked, tmp_path):
    """The zone is the middle of the map: a player alone there (no bots, no sides) starts
    in it, and telemetry has them entering."""
    telemetry = tmp_path / "zone.jsonl"
    done = run_forked("--headless", "--mode", "zone", "--map", "flat", "--seconds", "1",
                      "--telemetry", telemetry)
    assert done.returncode == 0, done.stderr
    kinds = [event["type"] for line in telemetry.read_text().splitlines()
             for event in json.loads(line)["events"]]
    assert kinds[:1] == ["zone_enter"]


def test_mode_zone_online_is_refused_in_one_line(run_forked):
    done = run_forked("--serve", "--mode", "zone")
    assert done.returncode == 2
    assert "--mode zone" in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_match_setup_offers_the_mode_and_starts_that_game():
    setup = setup_from(GameOptions(bots=2, mode="zone"), "normal", 3, 3)
    assert setup.mode == "zone"
    chosen = options_for(MatchSetup("desert", "tank", 2, "normal", "automatic", 3, "zone"),
                         GameOptions())
    assert chosen.mode == "zone" and chosen.bots == 2


def test_the_bots_drive_into_the_zone_and_stand_in_it(config):
    zone = dataclasses.replace(config.game.battle.zone, capture_s=600.0)
    battle = dataclasses.replace(config.game.battle, zone=zone)
    specs = dataclasses.replace(config.session, battle=battle)
    session = GameSession(specs, GameOptions(MapChoice("flat"), 1, "tank", 1, mode="zone"))
    simulation = session.simulation
    bot = simulation.vehicle_named("bot-1")
    entered_s = None
    for _ in range(round(120.0 / simulation.step_s)):
        bot.aim.reload_left_s = bot.spec.gun.reload_s  # it may not fire: the player stays
        events = simulation.step(HOLD)
        if ZoneEnter("bot-1", "bots") in events:
            entered_s = simulation.time_s
            break
    assert entered_s is not None
    for _ in range(round(10.0 / simulation.step_s)):
        bot.aim.reload_left_s = bot.spec.gun.reload_s
        assert ZoneLeave("bot-1", "bots") not in simulation.step(HOLD)
    session.destroy()
