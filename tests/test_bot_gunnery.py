"""The bots' gunnery: each level aims at its own point of the target (hard at the lower
front plate and the sides, easy at the middle of the hull), and each bot loads the shell
the target's plate and the range call for (AP where it pierces, APCR where only it does,
HE where nothing does), through the same controls and reload as a player."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from game.sim.ai import Bot
from game.sim.controls import Controls
from game.sim.events import Hit, Shot
from game.sim.gunnery import Gunnery, aim_point_bs, aim_point_ws
from game.sim.simulation import Simulation
from physics.model.terrain import MapChoice

AP, APCR, HE = 0, 1, 2
"""The shipped tank's ammunition slots (config/tanks/medium.toml [[gun.ammunition]])."""
RELOAD_S = 1.5
FIGHT_RANGE_M = 150.0
"""The bot stands this far ahead of its target, within its sight and fighting distance."""
UNHURT = 1e9
"""The target's health: it takes every shot and stands."""
HOLD = Controls(handbrake=True)


@pytest.fixture(scope="module")
def duel(config):
    """A flat map: the player's tank (the target) and one more tank (the bot's), to place
    as a test needs."""
    simulation = Simulation(config.world, MapChoice.parse("flat"), seed=1)
    simulation.spawn("tank", "bot", 0.0, FIGHT_RANGE_M, 180.0)
    yield simulation
    simulation.destroy()


def facing(simulation, target_heading_deg: float, range_m: float = FIGHT_RANGE_M):
    """The target at the origin turned to ``target_heading_deg``, the bot ``range_m`` north
    of it facing it, its gun full; both settled on their springs. (target, bot)"""
    target, bot = simulation.player, simulation.vehicle_named("bot")
    simulation.place(target, 0.0, 0.0, target_heading_deg)
    simulation.place(bot, 0.0, range_m, 180.0)
    bot.aim.ammunition.restock(bot.spec.gun.ammunition)
    for _ in range(30):
        simulation.step()
    return target, bot


# ----- where each level aims ------------------------------------------------------------------


def test_the_aim_point_follows_what_the_target_shows(config):
    hard, easy = config.game.ai.hard, config.game.ai.easy
    side_deg = config.game.ai.gunnery.side_exposed_deg
    front, side = hard.aim_front_m, hard.aim_side_m
    assert aim_point_bs(front, side, side_deg, 0.0, 100.0) == tuple(front)  # ahead of it
    assert aim_point_bs(front, side, side_deg, 10.0, -100.0) == (front[0], -front[1], front[2])
    assert aim_point_bs(front, side, side_deg, 100.0, 5.0) == tuple(side)
    assert aim_point_bs(front, side, side_deg, -100.0, 5.0) == (-side[0], side[1], side[2])
    middle = tuple(easy.aim_front_m)
    assert aim_point_bs(middle, easy.aim_side_m, side_deg, -100.0, 5.0) == middle  # no side


def bot_of(config, level: str, **changes) -> Bot:
    """A bot of ``level`` with ``changes`` to that level (its aim's noise, say)."""
    ai = config.game.ai
    ai = dataclasses.replace(ai, difficulty=level,
                             **{level: dataclasses.replace(getattr(ai, level), **changes)})
    return Bot(ai, np.random.default_rng(7))


def fight(simulation, bot: Bot, seconds: float) -> list:
    """The bot's shots and hits on the target over ``seconds``, the bot standing where it
    is (it aims, chooses and fires; it does not drive)."""
    target, me = simulation.player, simulation.vehicle_named("bot")
    target.health = UNHURT
    target.parts = None  # nor do its parts break: every shot meets a standing tank
    me.aim.reload_left_s = RELOAD_S
    happened = []
    for _ in range(round(seconds / simulation.step_s)):
        controls = dataclasses.replace(bot.controls(simulation, me, target), throttle=0.0,
                                       steer=0.0, brake=1.0)
        for event in simulation.step(HOLD, others={"bot": controls}):
            if (isinstance(event, Shot) and event.vehicle == "bot"
                    or isinstance(event, Hit) and event.shooter == "bot"):
                happened.append(event)
    return happened


def strikes(simulation, bot: Bot, shots: int) -> list[Hit]:
    """The bot's first ``shots`` hits on the target's armour."""
    hits = [event for event in fight(simulation, bot, shots * RELOAD_S + 2.0)
            if isinstance(event, Hit) and event.plate is not None]
    assert len(hits) >= shots - 1, hits
    return hits


def height_on_hull_m(target, hit: Hit) -> float:
    """How high above the target's centre of mass a hit struck, in its body frame."""
    state = target.current
    return float(state.axes_ws()[2] @ (np.asarray(hit.point) - state.position_ws))


@pytest.fixture(scope="module")
def quick(config):
    gun = dataclasses.replace(config.tank.gun, reload_s=RELOAD_S)
    return config.with_tank(dataclasses.replace(config.tank, gun=gun))


@pytest.fixture(scope="module")
def quick_duel(quick):
    simulation = Simulation(quick.world, MapChoice.parse("flat"), seed=1)
    simulation.spawn("tank", "bot", 0.0, FIGHT_RANGE_M, 180.0)
    yield simulation
    simulation.destroy()


def test_hard_bots_strike_the_lower_front_plate_and_easy_ones_the_middle(config, quick_duel):
    steady = dict(aim_noise_mrad=0.0, reaction_s=0.0)  # where each aims, not how well
    target, _ = facing(quick_duel, 0.0)
    hard = strikes(quick_duel, bot_of(config, "hard", **steady), 6)
    assert sum(hit.plate == "lower_front" for hit in hard) >= 0.8 * len(hard)
    target, _ = facing(quick_duel, 0.0)
    easy = strikes(quick_duel, bot_of(config, "easy", **steady), 6)
    hull_middle_m = config.tank.hull.centre_of_mass_drop_m
    easy_height_m = np.mean([height_on_hull_m(target, hit) for hit in easy])
    hard_height_m = np.mean([height_on_hull_m(target, hit) for hit in hard])
    assert abs(easy_height_m - hull_middle_m) < 0.15
    assert easy_height_m - hard_height_m > 0.2


def test_hard_bots_strike_the_side_of_a_target_that_shows_it(config, quick_duel):
    facing(quick_duel, 90.0)  # the target faces east: its left side to the bot
    hits = strikes(quick_duel, bot_of(config, "hard", aim_noise_mrad=0.0, reaction_s=0.0), 4)
    assert all(hit.plate == "left_side" for hit in hits)


# ----- which shell -----------------------------------------------------------------------------


def choice(simulation, config, level: str, range_m: float, target_heading_deg: float = 0.0,
           rounds: tuple[int, ...] | None = None) -> int | None:
    """The slot a bot of ``level`` chooses against the target seen from ``range_m`` to its
    north (the bot's gun carrying ``rounds``; None: full)."""
    target, bot = facing(simulation, target_heading_deg)
    if rounds is not None:
        bot.aim.ammunition.rounds = list(rounds)
    ai = config.game.ai
    spec = getattr(ai, level)
    muzzle = target.current.position_ws + np.array([0.0, range_m, 1.5])
    aim = aim_point_ws(spec.aim_front_m, spec.aim_side_m, ai.gunnery.side_exposed_deg,
                       muzzle.tolist(), target)
    gunnery = Gunnery(ai.gunnery, simulation.combat.shells_config.penetration)
    return gunnery.choose(simulation.combat, bot, target, muzzle, aim,
                          math.dist(muzzle.tolist(), aim))


def test_apcr_against_the_glacis_close_in_and_he_far_off(duel, config):
    assert choice(duel, config, "normal", 150.0) == APCR  # AP glances off the 60 degrees
    assert choice(duel, config, "normal", 1100.0) == HE  # APCR too slow to pierce it there


def test_ap_where_it_pierces_and_apcr_only_where_it_alone_does(duel, config):
    assert choice(duel, config, "hard", 500.0) == AP  # the lower front plate
    assert choice(duel, config, "hard", 1500.0) == APCR  # AP too slow there, APCR not
    assert choice(duel, config, "hard", 300.0, target_heading_deg=90.0) == AP  # the side
    assert choice(duel, config, "hard", 500.0, rounds=(0, 10, 20)) == APCR  # AP all gone


def test_a_bots_choice_is_loaded_at_its_next_reload(config, quick_duel):
    facing(quick_duel, 0.0)  # the glacis toward a normal bot: it wants APCR
    shells = [event.shell for event in fight(quick_duel, bot_of(config, "normal",
                                                                  reaction_s=0.0),
                                               3 * RELOAD_S + 2.0)
              if isinstance(event, Shot)]
    assert shells[:3] == ["ap", "apcr", "apcr"]  # AP was in the breech already


@pytest.mark.parametrize("old, new, key", [
    ("aim_side_m = [1.7, 0.0, 0.3]", "aim_side_m = [1.7, 0.0]", "aim_side_m"),
    ("pierce_margin = 1.1", "pierce_margin = 0.5", "pierce_margin"),
])
def test_a_bad_gunnery_value_is_one_line_naming_the_key(run_forked, config_copy, edit_file,
                                                         old, new, key):
    edit_file(config_copy / "game.toml", old, new)
    result = run_forked("--headless", "--seconds", "0.1", "--config", config_copy)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and key in lines[0] and "game.toml" in lines[0], result.stderr
