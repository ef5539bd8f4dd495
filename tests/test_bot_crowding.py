"""Bots among other vehicles: two closing head on are pushed apart, never together; one
that must turn with another tank beside it first drives straight out of that tank's
turning circle; one that wants the other way than its gear drives brakes to turn back."""

from __future__ import annotations

import math

import numpy as np
import pytest
from panda3d.core import Vec3

from game.sim.ai import Bot
from game.sim.avoidance import avoidance_push, closest_within_s, pivot_radius_m, way_out_of_pivot
from game.sim.controls import AUTOMATIC, Controls
from game.sim.simulation import Simulation
from game.sim.stuck import brakes_to_turn_back
from physics.model.terrain import MapChoice

HOLD = Controls(handbrake=True)
RADIUS_M = 25.0
NO_ROCKS = np.zeros((0, 2))
FAR_EDGE_M = 1e6


def vehicle_push(here, other, other_velocity, own_velocity, ahead_s=1.5):
    """The push on a bot at ``here`` from one other vehicle (nothing else near)."""
    return np.array(avoidance_push(here[0], here[1], NO_ROCKS, np.zeros(0), 0.0, 1.0,
                                   np.array([other], dtype=float),
                                   np.array([other_velocity], dtype=float), ahead_s,
                                   own_velocity[0], own_velocity[1], FAR_EDGE_M, FAR_EDGE_M,
                                   RADIUS_M))


def test_the_closest_approach_is_within_the_time_looked_ahead():
    # 10 m ahead, closing at 14 m/s: closest in 10/14 s; 40 m ahead: at the limit, 1.5 s.
    assert closest_within_s(0.0, 10.0, 0.0, -14.0, 1.5) == pytest.approx(10.0 / 14.0)
    assert closest_within_s(0.0, 40.0, 0.0, -14.0, 1.5) == 1.5
    assert closest_within_s(0.0, 10.0, 0.0, 5.0, 1.5) == 0.0  # going away: closest now
    assert closest_within_s(3.0, 4.0, 0.0, 0.0, 1.5) == 0.0  # at rest relative to here


def test_two_tanks_about_to_meet_head_on_are_pushed_apart_not_together():
    """10 m apart, closing at 14 m/s, 1 m off each other's line: they come closest in
    0.71 s, 1 m apart side by side, so the push is straight off the line, as hard as a
    vehicle 1 m away pushes. Seen from where they would be 1.5 s on, the other would
    already be 11 m past, and the push would be back toward it."""
    push = vehicle_push((0.0, 0.0), (1.0, 10.0), (0.0, -7.0), (0.0, 7.0))
    assert push[0] == pytest.approx(-(1.0 - 1.0 / RADIUS_M))
    assert push[1] == pytest.approx(0.0, abs=1e-9)
    past = (1.0, 10.0 - 14.0 * 1.5)
    toward_past = (np.array(past) / math.hypot(*past)) * -(1.0 - math.hypot(*past) / RADIUS_M)
    assert toward_past[1] > 0.0, "the push from where it would be past points at it"


def test_a_vehicle_driving_away_pushes_from_where_it_is():
    push = vehicle_push((0.0, 0.0), (0.0, 10.0), (0.0, 5.0), (0.0, 0.0))
    assert push == pytest.approx((0.0, -(1.0 - 10.0 / RADIUS_M)))


def test_the_way_out_of_a_turning_circle_is_along_the_hull_away_from_the_nearest():
    """Facing +Y, turning within 3.8 m: a tank 3 m to the right and a little ahead (its
    circle overlaps) sends it back; one a little behind sends it ahead; of two, the
    nearer decides; one whose circle does not reach its own, and its own place, count
    for nothing."""
    radii = np.array([3.8, 3.8])

    def way(*others):
        points = np.array(others, dtype=float).reshape(-1, 2)
        return way_out_of_pivot(0.0, 0.0, 0.0, 1.0, 3.8, points, radii[:len(points)])

    assert way((3.0, 1.0)) == -1.0
    assert way((3.0, -1.0)) == 1.0
    assert way((3.0, -1.0), (-2.0, 1.0)) == -1.0
    assert way((8.0, 0.0)) == 0.0
    assert way((0.0, 0.0), (9.0, 9.0)) == 0.0


def test_a_bot_beside_a_tank_drives_out_of_its_circle_before_it_turns(config):
    """A bot 4 m beside a held tank, both facing +Y, its target far off to its left (it
    must turn on the spot): it first drives straight (no steer) along its hull until the
    two turning circles part, then turns toward the target (halting now and then to fire
    at it), and the hulls never touch."""
    simulation = Simulation(config.world, MapChoice.parse("flat"), seed=1)
    simulation.place(simulation.player, -400.0, 0.0, 0.0)
    me = simulation.spawn("tank", "bot", 0.0, 0.0, 0.0)
    beside = simulation.spawn("tank", "beside", 4.0, 0.5, 0.0)
    for _ in range(30):
        simulation.step(HOLD, others={"bot": HOLD, "beside": HOLD})
    clear_m = pivot_radius_m(me.spec.hull) + pivot_radius_m(beside.spec.hull)
    bot = Bot(config.game.ai, np.random.default_rng(1))
    target = simulation.player
    target.health = me.health = beside.health = 1e9
    straight_until_m = None
    for _ in range(round(10.0 / simulation.step_s)):
        controls = bot.controls(simulation, me, target)
        gap_m = float(np.hypot(*(me.current.position_ws - beside.current.position_ws)[:2]))
        if controls.steer != 0.0 and straight_until_m is None:
            straight_until_m = gap_m
        simulation.step(HOLD, others={"bot": controls, "beside": HOLD})
        assert not _touching(simulation, me, beside)
    assert straight_until_m is not None and straight_until_m >= clear_m - 0.5
    turned_deg = math.degrees(math.atan2(-me.current.axes_ws()[1][0],
                                         me.current.axes_ws()[1][1]))
    assert turned_deg > 20.0, "it did not turn toward the target on its left"
    simulation.destroy()


def _touching(simulation, first, second) -> bool:
    """Whether Bullet finds the two bodies in contact now (asked of the pair: the world's
    manifolds may still name a shell removed in the step)."""
    return simulation.world.bullet.contactTestPair(first.body,
                                                   second.body).getNumContacts() > 0


class _Rolling:
    """What :func:`brakes_to_turn_back` reads of a vehicle."""

    turn_back_below_mps = 1.0

    def __init__(self, gear_direction: float):
        self.gear_direction = gear_direction


@pytest.mark.parametrize("throttle, speed_mps, gear, brakes", [
    (1.0, -3.0, -1.0, True),    # rolling back in R, wanting ahead: the pedal is closed
    (-1.0, 3.0, 1.0, True),     # rolling ahead in first, wanting back
    (1.0, -0.5, -1.0, False),   # slow enough: the box turns back now
    (1.0, -3.0, 1.0, False),    # sliding back in first: the engine drives it ahead
    (1.0, 3.0, 1.0, False),     # going the way it wants
    (0.0, -3.0, -1.0, False),   # off the throttle: nothing asked
    (1.0, -3.0, 0.0, False),    # shifting: no gear to fight
])
def test_a_bot_brakes_only_where_its_gear_drives_the_other_way(throttle, speed_mps, gear,
                                                                brakes):
    assert brakes_to_turn_back(throttle, speed_mps, _Rolling(gear)) is brakes


def test_a_bot_rolling_back_in_reverse_brakes_and_then_drives_ahead(config):
    """A bot backing at 4 m/s in R, its target far ahead: it brakes (the box would coast
    in R until slow), stops sooner than the same tank coasting, and drives ahead."""
    stopped_s = {}
    for braking in (True, False):
        simulation = Simulation(config.world, MapChoice.parse("flat"), seed=1)
        simulation.place(simulation.player, 0.0, 500.0, 0.0)
        me = simulation.spawn("tank", "bot", 0.0, 0.0, 0.0)
        for _ in range(round(1.5 / simulation.step_s)):  # into R, and backing
            simulation.step(HOLD, others={"bot": Controls(gear=AUTOMATIC, throttle=-1.0)})
        me.body.setLinearVelocity(Vec3(*(me.current.axes_ws()[1] * -4.0)))
        me.record_state()
        assert me.gear == "R"
        bot = Bot(config.game.ai, np.random.default_rng(1))
        simulation.player.health = me.health = 1e9
        for step in range(round(8.0 / simulation.step_s)):
            controls = bot.controls(simulation, me, simulation.player)
            if not braking:
                controls = Controls(throttle=controls.throttle, steer=controls.steer,
                                    gear=controls.gear)
            elif step == 0:
                assert controls.brake == 1.0 and controls.throttle > 0.0
            simulation.step(HOLD, others={"bot": controls})
            along = float(np.dot(me.current.velocity_ws, me.current.axes_ws()[1]))
            if along >= 0.0 and braking not in stopped_s:
                stopped_s[braking] = simulation.time_s
        assert me.gear not in ("R", "N") and along > 1.0, "it did not drive ahead"
        simulation.destroy()
    assert stopped_s[True] < stopped_s[False]
