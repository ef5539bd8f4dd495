"""Two local players, headless: player 2's vehicle beside player 1's, idle without a pad,
driven (and reset) by its own controls, put back with everybody at a new round, never
taken by player 1's hop between vehicles; player 2's HUD reads player 2's vehicle; the
split of the window into views; the [local_players] config."""

from __future__ import annotations

import numpy as np
import pytest

from common.errors import UserError
from game.sim.battle import Battle
from game.sim.controls import Controls
from game.sim.events import Reset, RoundEnd, RoundStart
from game.sim.local_players import SECOND_PLAYER, add_second_player
from game.sim.simulation import Simulation
from game.view.hud.hud_state import read_hud_state
from game.view.player_view import FULL_WINDOW, SPLIT_REGIONS, player_regions, region_point
from game.window_config import load_window_config
from physics.model.terrain import MapChoice

SETTLE_STEPS = 60


@pytest.fixture
def two_players(config):
    simulation = Simulation(config.world, MapChoice.parse("flat"), 3)
    battle = Battle(simulation, config.game.battle, config.game.ai, 0)
    second = add_second_player(simulation, battle, config.game.local_players)
    for _ in range(SETTLE_STEPS):
        simulation.step(Controls())
    yield simulation, battle, second
    simulation.destroy()


def _flat(vector) -> np.ndarray:
    return np.asarray(vector, dtype=float)[:2]


def test_player_two_starts_beside_player_one_facing_the_same_way(two_players, config):
    simulation, battle, second = two_players
    first = simulation.player
    assert second is simulation.vehicle_named(SECOND_PLAYER)
    assert second.kind == first.kind and second is not first
    offset = _flat(second.current.position_ws) - _flat(first.current.position_ws)
    right = _flat(first.current.axes_ws()[0])
    assert np.linalg.norm(offset) == pytest.approx(config.game.local_players.second_offset_m,
                                                   abs=0.1)
    assert offset @ right / np.linalg.norm(right) > 0.99 * np.linalg.norm(offset)
    headings = [v.current.heading_pitch_roll_deg()[0] for v in (first, second)]
    assert headings[0] == pytest.approx(headings[1], abs=0.5)
    assert SECOND_PLAYER in battle.spawns


def test_without_a_pad_player_two_stands_still_while_player_one_drives(two_players):
    simulation, _, second = two_players
    start = _flat(second.current.position_ws)
    first_start = _flat(simulation.player.current.position_ws)
    for _ in range(180):
        simulation.step(Controls(throttle=1.0))
    assert np.linalg.norm(_flat(second.current.position_ws) - start) < 0.05
    assert np.linalg.norm(_flat(simulation.player.current.position_ws) - first_start) > 2.0


def test_player_twos_controls_drive_player_twos_vehicle_only(two_players):
    simulation, _, second = two_players
    start = _flat(second.current.position_ws)
    first_start = _flat(simulation.player.current.position_ws)
    for _ in range(180):
        simulation.step(Controls(), {SECOND_PLAYER: Controls(throttle=1.0)})
    forward = _flat(second.current.axes_ws()[1])
    assert (_flat(second.current.position_ws) - start) @ forward > 2.0
    assert np.linalg.norm(_flat(simulation.player.current.position_ws) - first_start) < 0.05


def test_player_two_resets_once_per_press(two_players):
    simulation, _, _ = two_players

    def resets(controls: Controls) -> list[dict]:
        events = simulation.step(Controls(), {SECOND_PLAYER: controls})
        return [event for event in events if isinstance(event, Reset)]

    assert resets(Controls(reset=True)) == [Reset(SECOND_PLAYER)]
    assert resets(Controls(reset=True)) == []  # still held
    assert resets(Controls()) == []
    assert resets(Controls(reset=True)) == [Reset(SECOND_PLAYER)]


def test_a_new_round_puts_player_two_back_at_its_start_whole(config):
    simulation = Simulation(config.world, MapChoice.parse("flat"), 3)
    battle = Battle(simulation, config.game.battle, config.game.ai, 1)
    second = add_second_player(simulation, battle, config.game.local_players)
    idle = {"bot-1": Controls(handbrake=True)}
    start = np.array(battle.spawns[SECOND_PLAYER][:2])
    for _ in range(120):
        simulation.step(Controls(), {**idle, SECOND_PLAYER: Controls(throttle=1.0)})
    assert np.linalg.norm(_flat(second.current.position_ws) - start) > 1.0
    bot = simulation.vehicle_named("bot-1")
    simulation.damage(second, second.health, bot)
    simulation.damage(simulation.player, simulation.player.health, bot)
    assert second.destroyed
    started = False
    for _ in range(round((config.game.battle.restart_delay_s + 1.0) / simulation.step_s)):
        events = simulation.step(Controls(), idle)
        started = started or any(isinstance(event, RoundStart) for event in events)
    assert started
    assert not second.destroyed and second.health == second.spec.armour.health
    assert np.linalg.norm(_flat(second.current.position_ws) - start) < 0.5
    simulation.destroy()


def test_hopping_between_vehicles_never_takes_player_twos(two_players):
    simulation, _, second = two_players
    original = simulation.player
    simulation.step(Controls(swap_vehicle=True))
    simulation.step(Controls())
    assert simulation.player.kind == "car"
    car = simulation.player.current.position_ws
    # The car appeared between the two tanks, nearer player 2's than player 1's old one.
    assert (np.linalg.norm(_flat(second.current.position_ws) - _flat(car))
            < np.linalg.norm(_flat(original.current.position_ws) - _flat(car)))
    simulation.step(Controls(swap_vehicle=True))
    assert simulation.player is original


def test_player_twos_hud_reads_player_twos_vehicle(two_players):
    simulation, battle, second = two_players
    for _ in range(30):
        simulation.step(Controls(), {SECOND_PLAYER: Controls(throttle=1.0)})
    mine = read_hud_state(simulation, battle, second)
    theirs = read_hud_state(simulation, battle)
    assert mine.position_xy == pytest.approx(tuple(_flat(second.current.position_ws)))
    assert mine.speed_kmh > 1.0 and abs(theirs.speed_kmh) < 0.5
    first_xy = tuple(_flat(simulation.player.current.position_ws))
    assert [(x, y) for x, y, _ in mine.contacts] == [pytest.approx(first_xy)]


def test_one_player_has_the_window_and_two_share_it():
    assert player_regions(1, "side_by_side") == (FULL_WINDOW,)
    left, right = player_regions(2, "side_by_side")
    assert left == (0.0, 0.5, 0.0, 1.0) and right == (0.5, 1.0, 0.0, 1.0)
    top, bottom = player_regions(2, "stacked")
    assert top == (0.0, 1.0, 0.5, 1.0) and bottom == (0.0, 1.0, 0.0, 0.5)
    for first, second in SPLIT_REGIONS.values():  # halves that meet and cover the window
        area = [(r - l) * (t - b) for l, r, b, t in (first, second)]
        assert area == [0.5, 0.5]


def test_a_window_point_in_a_views_own_coordinates():
    right_half = (0.5, 1.0, 0.0, 1.0)
    assert region_point(right_half, 0.5, 0.0) == pytest.approx((0.0, 0.0))
    assert region_point(right_half, 0.0, 1.0) == pytest.approx((-1.0, 1.0))
    assert region_point(right_half, 1.0, -1.0) == pytest.approx((1.0, -1.0))
    assert region_point(FULL_WINDOW, 0.3, -0.2) == pytest.approx((0.3, -0.2))


@pytest.mark.parametrize("file_name, old, new, key", [
    ("view.toml", 'split = "side_by_side"', 'split = "diagonal"', "split_screen.split"),
    ("game.toml", "second_offset_m = 10.0", "second_offset_m = 500.0",
     "local_players.second_offset_m"),
])
def test_a_bad_local_players_value_is_one_line_naming_it(config_copy, edit_file, file_name,
                                                         old, new, key):
    edit_file(config_copy / file_name, old, new)
    with pytest.raises(UserError) as caught:
        load_window_config(config_copy)
    assert key in str(caught.value) and "\n" not in str(caught.value)


def test_the_round_goes_on_while_player_two_fights(config):
    simulation = Simulation(config.world, MapChoice.parse("flat"), 3)
    battle = Battle(simulation, config.game.battle, config.game.ai, 1)
    second = add_second_player(simulation, battle, config.game.local_players)
    bot = simulation.vehicle_named("bot-1")
    idle = {"bot-1": Controls(handbrake=True)}
    simulation.damage(simulation.player, simulation.player.health, bot)
    events = simulation.step(Controls(), idle)
    assert not any(isinstance(event, RoundEnd) for event in events)
    simulation.damage(second, second.health, bot)
    events = simulation.step(Controls(), idle)
    assert [event.winner for event in events if isinstance(event, RoundEnd)] == ["bots"]
    simulation.destroy()


def test_bots_fight_thetarget_of_still_in_the_fight(config):
    simulation = Simulation(config.world, MapChoice.parse("flat"), 3)
    battle = Battle(simulation, config.game.battle, config.game.ai, 1)
    second = add_second_player(simulation, battle, config.game.local_players)
    bot = simulation.vehicle_named("bot-1")
    bot_xy = _flat(bot.current.position_ws)
    nearer = min((simulation.player, second),
                 key=lambda v: np.linalg.norm(_flat(v.current.position_ws) - bot_xy))
    farther = second if nearer is simulation.player else simulation.player
    assert battle.target_of(bot) is nearer
    simulation.damage(nearer, nearer.health, bot)
    assert battle.target_of(bot) is farther
    simulation.destroy()


def test_the_bots_target_follows_the_players_side_as_it_changes(config):
    """Who the bots fight is worked out anew when the player hops into another vehicle
    (one already there: nothing is spawned), another player joins or leaves, or their
    vehicle is taken out."""
    simulation = Simulation(config.world, MapChoice.parse("flat"), 3)
    battle = Battle(simulation, config.game.battle, config.game.ai, 1)
    bot = simulation.vehicle_named("bot-1")
    bot_x, bot_y = _flat(bot.current.position_ws).tolist()
    car = simulation.spawn("car", "rover", 0.0, 8.0, 0.0)
    tank = simulation.player
    assert battle.target_of(bot) is tank
    simulation.step(Controls(swap_vehicle=True))
    assert simulation.player is car and battle.target_of(bot) is car
    friend = simulation.spawn("tank", "friend", bot_x + 20.0, bot_y, 0.0)
    assert battle.target_of(bot) is car  # not on the player's side yet
    battle.add_player("friend", (bot_x + 20.0, bot_y, 0.0))
    assert battle.target_of(bot) is friend  # nearer the bot than the car
    battle.remove_player("friend")
    assert battle.target_of(bot) is car
    battle.add_player("friend", (bot_x + 20.0, bot_y, 0.0))
    assert battle.target_of(bot) is friend
    simulation.remove(friend)
    assert battle.target_of(bot) is car
    simulation.destroy()
