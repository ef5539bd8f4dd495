"""A round opens with an approach: the sides start on opposite sides of the map's middle,
each in a line abreast facing the other, with the ground hiding them from each other, clear
of the rocks and on the map however many there are; the player is not shot in the back
before seeing anyone."""

from __future__ import annotations

import math

import numpy as np
import pytest

from game.sim.events import Shot
from game.sim.opening import _in_sight, _opening_along, side_places
from game.sim.session import GameOptions, GameSession
from game.sim.step_loop import StepLoop
from physics.model.terrain import MapChoice


def _battle(config, map_name: str, seed: int, bots: int) -> GameSession:
    return GameSession(config.session, GameOptions(MapChoice.parse(map_name), seed, bots=bots))


def _unit(heading_deg: float) -> np.ndarray:
    heading = math.radians(heading_deg)
    return np.array([math.sin(heading), math.cos(heading)])


@pytest.mark.parametrize("map_name,seed", [("desert", 1), ("desert", 2), ("desert", 5),
                                           ("desert:4096", 3)])
def test_the_sides_start_opposite_each_other_facing_across_the_middle(config, map_name,
                                                                       seed):
    session = _battle(config, map_name, seed, 5)
    try:
        battle, spec = session.battle, config.game.battle.opening
        middle = np.asarray(battle.opening.middle_xy)
        toward_bots = _unit(battle.opening.players.heading_deg)
        player_x, player_y, player_heading = battle.spawns[session.simulation.player.name]
        player = np.array([player_x, player_y])
        assert (player - middle) @ toward_bots == pytest.approx(-spec.sides_apart_m / 2)
        assert player_heading == battle.opening.players.heading_deg
        for name in battle.bots:
            x, y, heading = battle.spawns[name]
            bot = np.array([x, y])
            assert (bot - middle) @ toward_bots == pytest.approx(spec.sides_apart_m / 2)
            assert _unit(heading) @ toward_bots == pytest.approx(-1.0)  # facing the players
            vehicle = session.simulation.vehicle_named(name)
            assert np.hypot(*(vehicle.current.position_ws[:2] - bot)) < 0.5  # stands there
        bots = np.array([battle.spawns[name][:2] for name in battle.bots])
        gaps = np.hypot(*(bots[:, None] - bots[None]).transpose(2, 0, 1))
        assert gaps[~np.eye(len(bots), dtype=bool)].min() == pytest.approx(spec.spacing_m)
    finally:
        session.destroy()


@pytest.mark.parametrize("seed,hidden", [(1, 4), (2, 4), (6, 4), (9, 4), (10, 4), (11, 1)])
def test_the_ground_hides_the_sides_from_each_other_at_the_start(config, seed, hidden):
    """Along the bearing taken, the ground hides at least as many of the bots' places from
    the player's as along any other: all 4 on most dunes (with the bots always to the
    north, 2 or 3 of the 4 would be in the player's sight in seeds 1, 6, 9 and 10), and as
    many as it can on open ground (seed 11: one, where other bearings hide none)."""
    session = _battle(config, "desert", seed, 4)
    try:
        battle, spec = session.battle, config.game.battle.opening
        terrain, rock_gap = session.simulation.terrain, session.simulation.arena.rock_gap_m
        player = battle.spawns[session.simulation.player.name][:2]
        blocked = sum(not _in_sight(spec, terrain, player, battle.spawns[name][:2])
                      for name in battle.bots)
        assert blocked == hidden
        limit = terrain.half_extent_x_m - config.game.rocks.edge_clearance_m
        for bearing in range(spec.bearings):
            other = _opening_along(spec, 360.0 * bearing / spec.bearings,
                                   battle.opening.middle_xy, limit, limit)
            places = side_places(spec, other.bots, limit, limit, rock_gap)
            there = next(side_places(spec, other.players, limit, limit, rock_gap))
            assert sum(not _in_sight(spec, terrain, there, next(places))
                       for _ in range(4)) <= blocked
    finally:
        session.destroy()


def test_a_side_too_big_for_one_line_stands_in_rows_on_the_map_clear_of_rocks(config):
    session = _battle(config, "desert", 2, 31)
    try:
        battle, spec = session.battle, config.game.battle.opening
        terrain = session.simulation.terrain
        limit = terrain.half_extent_x_m - config.game.rocks.edge_clearance_m
        places = np.array([battle.spawns[name][:2] for name in battle.bots])
        assert np.abs(places).max() <= limit + 1e-9
        gaps = np.hypot(*(places[:, None] - places[None]).transpose(2, 0, 1))
        assert gaps[~np.eye(len(places), dtype=bool)].min() >= spec.spacing_m - 1e-6
        toward_bots = _unit(battle.opening.players.heading_deg)
        depths = np.round((places - battle.opening.middle_xy) @ toward_bots, 6)
        assert len(set(depths.tolist())) >= 2  # rows behind the front line
        rocks = session.simulation.rocks
        assert rocks
        for x, y in places.tolist():
            assert session.simulation.arena.rock_gap_m(x, y) >= spec.rock_clearance_m
            nearest = min(math.hypot(x - rock.position_ws[0], y - rock.position_ws[1])
                          - rock.radius_m for rock in rocks)
            assert nearest >= spec.rock_clearance_m
    finally:
        session.destroy()


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 3])
def test_a_player_who_stands_still_is_first_shot_at_from_in_front(config, seed):
    """Play with 3 normal bots, as a new player might, and stand idle: nobody fires for the
    first 20 s (the approach), and the first shot comes from ahead of the player's hull
    (the ring used to put a bot behind the player, who was shot from behind at 15 s)."""
    session = _battle(config, "desert", seed, 3)
    loop = StepLoop(session)
    try:
        simulation = session.simulation
        player = simulation.player
        for _ in range(round(90.0 / simulation.step_s)):
            shots = [event for event in loop.step()
                     if isinstance(event, Shot) and event.vehicle != player.name]
            if shots:
                break
        assert shots, "no bot fired in 90 s"
        assert simulation.time_s >= 20.0
        shooter = simulation.vehicle_named(shots[0].vehicle)
        offset = shooter.current.position_ws[:2] - player.current.position_ws[:2]
        forward = player.current.axes_ws()[1][:2]
        assert offset @ forward > 0.5 * np.hypot(*offset)  # within 60 degrees of the nose
    finally:
        session.destroy()


def test_people_who_join_a_battle_take_the_players_line(config):
    """A dedicated server's battle: the bots on their line, and each player who joins on
    the players' line, each on a place of their own."""
    session = GameSession(config.session, GameOptions(MapChoice("desert"), 2, None, 3))
    try:
        battle, spec = session.battle, config.game.battle.opening
        places = []
        for number in range(3):
            x, y, heading = battle.join_place()
            battle.add_player(f"player-{number}", (x, y, heading))
            places.append((x, y))
            assert heading == battle.opening.players.heading_deg
        toward_bots = _unit(battle.opening.players.heading_deg)
        middle = np.asarray(battle.opening.middle_xy)
        for place in places:
            assert (np.asarray(place) - middle) @ toward_bots == pytest.approx(
                -spec.sides_apart_m / 2)
        assert len(set(places)) == 3
    finally:
        session.destroy()
