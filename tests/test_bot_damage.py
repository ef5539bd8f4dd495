"""Bots with broken parts: a track off or the engine gone, the crew stands and fights where
it is; the turret ring jammed, it lays the gun with the hull."""

from __future__ import annotations

import math

import numpy as np
import pytest

from game.sim.ai import Bot
from game.sim.controls import Controls
from game.sim.crippled import STAND, crippled_drive
from game.sim.simulation import Simulation
from physics.model.parts import WHOLE_TANK
from physics.model.terrain import MapChoice
from tests.part_losses import losses

HOLD = Controls(handbrake=True)
DESTROYED = 1e9
"""Hit points enough to destroy any part."""


def with_bot(config, bot_x_m: float, bot_y_m: float, heading_deg: float):
    """A flat map: the player's tank at the origin, held, and a bot's tank at (x, y)
    facing ``heading_deg``; both settled on their springs. (simulation, target, me)"""
    simulation = Simulation(config.world, MapChoice.parse("flat"), seed=1)
    me = simulation.spawn("tank", "bot", bot_x_m, bot_y_m, heading_deg)
    for _ in range(30):
        simulation.step(HOLD)
    return simulation, simulation.player, me


def drive(simulation, bot: Bot, seconds: float) -> None:
    target, me = simulation.player, simulation.vehicle_named("bot")
    target.health = me.health = 1e9  # nobody dies: the test watches the driving
    for _ in range(round(seconds / simulation.step_s)):
        simulation.step(HOLD, others={"bot": bot.controls(simulation, me, target)})


def gun_bearing_error_deg(me, target) -> float:
    """Between where the gun points across the ground and the way to the target."""
    state = me.current
    forward, right = state.axes_ws()[1], state.axes_ws()[0]
    heading = me.turret_heading_rad
    gun = math.cos(heading) * forward + math.sin(heading) * right
    to_target = target.current.position_ws - state.position_ws
    return math.degrees(abs(math.atan2(gun[0] * to_target[1] - gun[1] * to_target[0],
                                       gun[0] * to_target[0] + gun[1] * to_target[1])))


def test_whole_parts_leave_the_driving_to_the_bot():
    assert crippled_drive(WHOLE_TANK, (0.0, 1.0, 0.0), 0.0, (1.0, 0.0, 0.0), 2.0) is None


@pytest.mark.parametrize("part", ["left_track", "engine"])
def test_a_bot_that_cannot_drive_stands_where_it_is(config, part):
    """450 m off (beyond its fighting distance) a whole bot closes in; with a track off or
    its engine destroyed it stands."""
    moved_m = {}
    for broken in (None, part):
        simulation, target, me = with_bot(config, 0.0, 450.0, 180.0)
        if broken is not None:
            simulation.combat.parts.strike(me, losses(**{broken: DESTROYED}), target)
        start = me.current.position_ws.copy()
        drive(simulation, Bot(config.game.ai, np.random.default_rng(3)), 8.0)
        moved_m[broken] = float(np.linalg.norm(me.current.position_ws - start))
        simulation.destroy()
    assert moved_m[None] > 20.0
    assert moved_m[part] < 1.0, moved_m


def test_a_bot_with_its_turret_jammed_turns_its_hull_to_bring_the_gun_to_bear(config):
    """The target stands off the bot's right side, its turret jammed straight ahead: the
    bot pivots where it stands until its gun points at the target."""
    simulation, target, me = with_bot(config, 0.0, 300.0, 90.0)
    simulation.combat.parts.strike(me, losses(turret_ring=DESTROYED), target)
    assert me.parts.effects.traverse == 0.0
    start = me.current.position_ws.copy()
    assert gun_bearing_error_deg(me, target) > 80.0
    drive(simulation, Bot(config.game.ai, np.random.default_rng(3)), 9.0)  # mended at 10 s
    assert me.parts.effects.traverse == 0.0
    assert me.turret_heading_rad == pytest.approx(0.0, abs=1e-6)
    assert gun_bearing_error_deg(me, target) < 1.0
    assert np.linalg.norm(me.current.position_ws - start) < 5.0
    simulation.destroy()


def test_a_jammed_bot_with_no_target_in_range_stands():
    jammed = WHOLE_TANK._replace(traverse=0.0)
    assert crippled_drive(jammed, (0.0, 1.0, 0.0), 0.0, None, 2.0) == STAND
    # The gun off to the left of the way wanted: the hull pivots right, at full stick ...
    assert crippled_drive(jammed, (0.0, 1.0, 0.0), -0.5, (0.0, 1.0, 0.0), 0.01) == (0.0, 1.0,
                                                                                   0.0)
    assert crippled_drive(jammed, (0.0, 1.0, 0.0), 0.5, (0.0, 1.0, 0.0), 0.01) == (0.0, -1.0,
                                                                                  0.0)
    # ... and stands once the gun bears.
    assert crippled_drive(jammed, (0.0, 1.0, 0.0), 0.005, (0.0, 1.0, 0.0), 0.01) == STAND
