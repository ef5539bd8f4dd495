"""The gun's aiming circle: the hull's speed and turning and the turret's traverse widen it
at once; laid and still, it closes toward its aimed size over the aim time; a shot leaves
at a seeded random point inside it (the same seed, the same shots); the crosshair draws it;
the hard bots wait for it to close."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from panda3d.core import NodePath

from game.sim.battle import Battle
from game.sim.controls import Controls
from game.sim.events import Shot
from game.sim.simulation import Simulation
from game.sim.telemetry import telemetry_record
from game.view.hud.hud import Hud
from physics.model.ballistics import GunState, gun_axes, shot_direction, widen_or_close
from physics.model.terrain import MapChoice


@pytest.fixture
def aiming(config):
    return config.tank.gun.aiming


def test_motion_widens_the_circle_at_once_and_it_closes_over_the_aim_time(aiming):
    aim, step_s = GunState(), 1.0 / 60.0
    widen_or_close(aim, aiming, 0.0, 0.0, 0.0, step_s)
    assert aim.aim_circle_rad == pytest.approx(aiming.aimed_rad)  # laid from the start
    widen_or_close(aim, aiming, 10.0, 0.2, 0.5, step_s)
    wide = aiming.aimed_rad * (1.0 + 10.0 * aiming.per_mps + 0.2 * aiming.per_turn_rad_s
                               + 0.5 * aiming.per_traverse_rad_s)
    assert aim.aim_circle_rad == pytest.approx(wide)  # one step: all of it
    for motion in ((10.0, 0.0, 0.0), (0.0, 0.2, 0.0), (0.0, 0.0, 0.5)):
        alone = GunState(aim_circle_rad=aiming.aimed_rad)
        widen_or_close(alone, aiming, *motion, step_s)
        assert aiming.aimed_rad < alone.aim_circle_rad < wide  # each widens it
    steps = round(aiming.aim_time_s / step_s)
    for _ in range(steps):
        widen_or_close(aim, aiming, 0.0, 0.0, 0.0, step_s)
    assert aim.aim_circle_rad - aiming.aimed_rad == pytest.approx(
        (wide - aiming.aimed_rad) * math.exp(-steps * step_s / aiming.aim_time_s))
    assert aim.aim_circle_rad - aiming.aimed_rad == pytest.approx(
        (wide - aiming.aimed_rad) / math.e, rel=0.01)  # one aim time: down to 1/e
    for _ in range(10 * steps):
        widen_or_close(aim, aiming, 0.0, 0.0, 0.0, step_s)
    assert aim.aim_circle_rad == pytest.approx(aiming.aimed_rad, rel=1e-3)


def test_shots_leave_evenly_over_the_circle_and_the_same_seed_gives_the_same(aiming):
    barrel = np.array([0.3, 0.9, 0.1])
    barrel /= np.linalg.norm(barrel)
    circle_rad = 0.004
    rng = np.random.default_rng(3)
    directions = np.array([shot_direction(barrel, circle_rad, rng) for _ in range(4000)])
    assert np.linalg.norm(directions, axis=1) == pytest.approx(1.0)
    off_rad = np.arccos(np.clip(directions @ barrel, -1.0, 1.0))
    assert off_rad.max() <= circle_rad * (1.0 + 1e-6)
    assert off_rad.max() > 0.98 * circle_rad  # out to its edge
    # Even over the disc: half the shots within 1/sqrt(2) of its radius, any way round.
    assert np.mean(off_rad < circle_rad / math.sqrt(2.0)) == pytest.approx(0.5, abs=0.03)
    sideways = directions - np.outer(directions @ barrel, barrel)
    assert np.linalg.norm(sideways.mean(axis=0)) < 0.05 * circle_rad
    again = np.random.default_rng(3)
    assert np.array_equal(directions[:50],
                          [shot_direction(barrel, circle_rad, again) for _ in range(50)])
    straight_up = shot_direction(np.array([0.0, 0.0, 1.0]), circle_rad, rng)
    assert np.arccos(min(straight_up[2], 1.0)) <= circle_rad * (1.0 + 1e-6)


def test_a_fired_shell_leaves_inside_the_guns_circle_in_the_simulation(config):
    """A tank standing still, its circle opened by hand: the shell's velocity (the muzzle
    velocity along the shot's direction) is within that circle of the barrel."""
    simulation = Simulation(config.world, MapChoice.parse("flat"), seed=2)
    player = simulation.player
    for _ in range(60):
        simulation.step(Controls(brake=1.0))
    system, gun = simulation.combat.shell_system, player.spec.gun
    shell = simulation.combat.loaded_shell(player)
    offs = []
    for _ in range(200):
        player.aim.aim_circle_rad = 0.01
        _, barrel = gun_axes(player.current, gun, player.aim)
        flying = system.fire(player, player.body, player.current, gun, shell, player.aim,
                             simulation.time_s, simulation.combat.rng)
        velocity = np.asarray(flying.velocity_ws) - player.current.velocity_ws
        offs.append(math.acos(min(1.0, float(velocity @ barrel / np.linalg.norm(velocity)))))
    assert max(offs) <= 0.01 * 1.01 and max(offs) > 0.009
    simulation.destroy()


def test_driving_opens_the_circle_and_standing_closes_it(config):
    simulation = Simulation(config.world, MapChoice.parse("flat"), seed=1)
    player, aiming = simulation.player, config.tank.gun.aiming
    for _ in range(round(8.0 / simulation.step_s)):
        simulation.step(Controls(throttle=1.0, gear="A"))
    speed_mps = float(np.linalg.norm(player.previous.velocity_ws))  # as the last step began
    assert speed_mps > 5.0
    assert player.aim.aim_circle_rad >= aiming.aimed_rad * (1.0 + aiming.per_mps * speed_mps)
    for _ in range(round(8.0 / simulation.step_s)):  # stop, and let it settle
        simulation.step(Controls(brake=1.0, gear="A"))
    assert player.aim.aim_circle_rad < 1.2 * aiming.aimed_rad
    assert telemetry_record(simulation, [])["aim_circle_mrad"] == pytest.approx(
        player.aim.aim_circle_rad * 1000.0, abs=1e-6)
    for _ in range(round(0.5 / simulation.step_s)):  # traversing the turret opens it again
        simulation.step(Controls(brake=1.0, gear="A", turret=1.0))
    assert player.aim.aim_circle_rad >= aiming.aimed_rad * (
        1.0 + aiming.per_traverse_rad_s * config.tank.gun.traverse_rate_rad_s)
    simulation.destroy()


def test_hard_bots_fire_only_once_the_circle_has_closed(config):
    """Three hard bots against a player who stands: at every one of their shots, the
    circle they fired through was within their level's bound (and the bots do fire)."""
    simulation = Simulation(config.world, MapChoice.parse("desert"), seed=3)
    ai = dataclasses.replace(config.game.ai, difficulty="hard")
    battle = Battle(simulation, config.game.battle, ai, 3)
    bots = [simulation.vehicle_named(name) for name in battle.bots]
    assert len({bot.tank_class for bot in bots}) == 3  # each with its own gun's circle
    bounds = {bot.name: ai.hard.fires_within_circle * bot.spec.gun.aiming.aimed_rad
              for bot in bots}
    shots = 0
    for _ in range(round(120.0 / simulation.step_s)):
        before = {bot.name: bot.aim.aim_circle_rad for bot in bots}
        for event in simulation.step(Controls()):
            if isinstance(event, Shot) and event.vehicle in before:
                shots += 1
                assert before[event.vehicle] <= bounds[event.vehicle]
        if battle.score["bots"]:
            break
    assert shots >= 2
    simulation.destroy()


def test_the_crosshair_draws_the_circle_as_wide_as_asked(config):
    root = NodePath("aspect2d")
    hud = Hud({"center": root, "top_center": root.attachNewNode("top")}, config.view.hud)
    hud.set_view_height(720)
    hud.set_aim_circle(None)
    assert hud.aim_circle.isHidden()
    least = config.view.hud.aim_circle_least
    assert least > config.view.hud.crosshair_size  # a closed circle shows round it
    for radius, drawn in ((0.001, least), (0.2, 0.2), (0.3, 0.3)):
        hud.set_aim_circle(radius)
        assert not hud.aim_circle.isHidden()
        low, high = hud.aim_circle.getTightBounds(root)
        assert (high[0] - low[0]) / 2.0 == pytest.approx(drawn, rel=0.01)
    hud.destroy()
