"""Who sees whom: a clear line over the ground, within a range that dust and firing
stretch; and bots that fire only at what they see (never through a dune). The screens that
spare Bullet the sight lines passing by every rock, plate and wreck answer "clear" only
where Bullet would find none."""

from __future__ import annotations

import math
from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest

from game.sim.events import Shot
from game.sim.session import GameOptions, GameSession
from game.sim.spotting import (bodies_hide, clear_views, hull_middle_ws, sight_clear,
                               spotted, spotting_range_m)
from physics.bullet import groups
from physics.model.ballistics import gun_axes
from physics.model.pose import BodyState
from physics.model.terrain import MapChoice, build_terrain


class Ridge:
    """Flat ground at 0 m with a 10 m high, 20 m wide ridge across x = 100 m."""

    @staticmethod
    def height_at(x_m, y_m):
        return np.where(np.abs(np.asarray(x_m) - 100.0) < 10.0, 10.0, 0.0)


def vehicle_at(x_m: float, speed_mps: float = 0.0, fired_at_s: float = -math.inf):
    state = BodyState(np.array([x_m, 0.0, 1.0]), np.array([1.0, 0.0, 0.0, 0.0]),
                      np.array([speed_mps, 0.0, 0.0]), np.zeros(3), np.eye(3))
    return SimpleNamespace(current=state, fired_at_s=fired_at_s,
                           spec=SimpleNamespace(hull=SimpleNamespace(centre_of_mass_drop_m=0.3)))


def test_a_ridge_blocks_the_line_and_height_clears_it():
    assert not sight_clear(Ridge, (0.0, 0.0, 2.0), (200.0, 0.0, 2.0), 2.0)
    assert sight_clear(Ridge, (0.0, 0.0, 30.0), (200.0, 0.0, 30.0), 2.0)
    assert sight_clear(Ridge, (0.0, 0.0, 2.0), (80.0, 0.0, 2.0), 2.0)  # short of it
    assert not sight_clear(Ridge, (0.0, 0.0, 10.4), (200.0, 0.0, 10.4), 2.0, 0.5)  # grazing


def test_dust_and_a_shot_make_a_vehicle_seen_further(config):
    spec = config.game.ai.spotting
    still, moving = vehicle_at(0.0), vehicle_at(0.0, speed_mps=10.0)
    assert spotting_range_m(spec, still, 0.0) == spec.sight_range_m
    assert spotting_range_m(spec, moving, 0.0) == pytest.approx(
        spec.sight_range_m + 10.0 * spec.dust_range_per_mps)
    fired = vehicle_at(0.0, fired_at_s=5.0)
    assert spotting_range_m(spec, fired, 5.0 + spec.firing_seen_s / 2) == spec.firing_range_m
    assert spotting_range_m(spec, fired, 5.0 + spec.firing_seen_s * 2) == spec.sight_range_m


def test_each_tank_class_spots_a_still_vehicle_as_far_as_its_own_view_range(config):
    spec = config.game.ai.spotting
    still = vehicle_at(0.0)
    reach = {name: spotting_range_m(spec, still, 0.0, SimpleNamespace(spec=tank))
             for name, tank in config.tanks.items()}
    assert reach == {name: tank.view_range_m for name, tank in config.tanks.items()}
    assert reach["light"] > reach["medium"] > reach["heavy"]
    car = SimpleNamespace(spec=config.car)  # no view range of its own: the game's
    assert spotting_range_m(spec, still, 0.0, car) == spec.sight_range_m


def test_spotted_needs_both_range_and_a_clear_line(config):
    spec = replace(config.game.ai.spotting, sight_range_m=150.0)
    flat = SimpleNamespace(height_at=lambda x, y: np.zeros_like(np.asarray(x, dtype=float)))
    eye = (0.0, 0.0, 2.0)
    assert spotted(spec, flat, eye, vehicle_at(140.0), 0.0)
    assert not spotted(spec, flat, eye, vehicle_at(160.0), 0.0)  # too far while still
    assert spotted(spec, flat, eye, vehicle_at(160.0, speed_mps=5.0), 0.0)  # its dust
    assert not spotted(spec, Ridge, eye, vehicle_at(140.0, speed_mps=5.0), 0.0)  # the ridge


def test_bots_never_fire_with_the_ground_between_gun_and_target(config):
    """Three bots against an idle player on the dunes: at every shot, the line from the
    bot's gun to the player's hull was clear of the ground."""
    session = GameSession(config.session, GameOptions(MapChoice("desert"), 1, "tank", 3))
    simulation = session.simulation
    shots = 0
    try:
        for _ in range(round(80.0 / simulation.step_s)):  # the approach, then the fight
            player_before = simulation.player.current
            guns = {name: gun_axes(simulation.vehicle_named(name).current,
                                   simulation.vehicle_named(name).spec.gun,
                                   simulation.vehicle_named(name).aim)[0]
                    for name in session.battle.bots}
            for event in simulation.step():
                if isinstance(event, Shot) and event.vehicle in guns:
                    shots += 1
                    middle = hull_middle_ws(simulation.player, player_before)
                    assert sight_clear(simulation.terrain, guns[event.vehicle], middle,
                                       config.game.ai.spotting.sight_step_m)
    finally:
        session.destroy()
    assert shots > 0


def test_aim_errs_more_far_off_and_moving_less_when_held_and_by_level(config):
    from game.sim.ai import aim_error_rad
    ai = config.game.ai
    me, near, far = vehicle_at(0.0), vehicle_at(100.0), vehicle_at(1000.0)
    level = ai.normal
    assert aim_error_rad(level, 1000.0, me, far, 0.0) > aim_error_rad(level, 100.0, me, near, 0.0)
    assert aim_error_rad(level, 100.0, me, vehicle_at(100.0, speed_mps=10.0), 0.0) > \
        aim_error_rad(level, 100.0, me, near, 0.0)
    held = [aim_error_rad(level, 100.0, me, near, held_s) for held_s in (0.0, 1.0, 5.0, 60.0)]
    assert held == sorted(held, reverse=True)
    assert held[-1] == pytest.approx(held[0] * level.aim_settled_share, rel=1e-3)
    by_level = [aim_error_rad(getattr(ai, name), 300.0, me, near, 1.0)
                for name in ("easy", "normal", "hard")]
    assert by_level == sorted(by_level, reverse=True)
    assert ai.easy.reaction_s > ai.normal.reaction_s > ai.hard.reaction_s


def test_on_the_dunes_the_compiled_line_answers_as_the_array_does_to_the_last_bit(config):
    """The line test on a Terrain (a compiled loop over its triangles) against the array
    form (any terrain with ``height_at``): the same answer for every line, even with the
    clearance set to exactly the closest sample's margin (not clear) or a hair under it."""
    terrain = build_terrain(MapChoice.parse("desert"), config.game.terrain, 2)
    arrays = SimpleNamespace(height_at=terrain.height_at)
    rng = np.random.default_rng(5)
    step_m = config.game.ai.spotting.sight_step_m
    checked = 0
    for _ in range(200):
        ends_xy = rng.uniform(-250.0, 250.0, (2, 2))
        ends = np.column_stack([ends_xy, terrain.height_at(ends_xy[:, 0], ends_xy[:, 1])
                                + rng.uniform(0.5, 6.0, 2)])
        length = math.dist(ends[0].tolist(), ends[1].tolist())
        samples = max(1, math.ceil(length / step_m))
        shares = (np.arange(1, samples) / samples)[:, None]
        if not len(shares):
            continue
        points = ends[0] + (ends[1] - ends[0]) * shares
        margin = float(np.min(points[:, 2] - terrain.height_at(points[:, 0], points[:, 1])))
        for clearance_m in (0.0, 0.5, margin, np.nextafter(margin, -np.inf)):
            assert (sight_clear(terrain, ends[0], ends[1], step_m, clearance_m)
                    == sight_clear(arrays, ends[0], ends[1], step_m, clearance_m))
        checked += 1
    assert checked > 150


@pytest.mark.parametrize("map_name", ["desert", "desert:2048"])
def test_many_eyes_see_as_the_arrays_do_to_the_last_bit(config, map_name):
    """A search's question (which of some sixty eyes on rings see a target), asked of a
    terrain's tables (line by line, each left at its first sample under the ground)
    against the array form (every sample of every line): the same answer for every eye,
    with the clearance at exactly the closest eye's margin (not clear) and a hair under."""
    terrain = build_terrain(MapChoice.parse(map_name), config.game.terrain, 3)
    arrays = SimpleNamespace(height_at=terrain.height_at)
    rng = np.random.default_rng(8)
    step_m = config.game.ai.spotting.sight_step_m
    answers = set()
    for _ in range(40):
        eyes_xy = rng.uniform(-200.0, 200.0, 2) + rng.uniform(-100.0, 100.0, (64, 2))
        eyes = np.column_stack([eyes_xy, terrain.height_at(eyes_xy[:, 0], eyes_xy[:, 1])
                                + rng.uniform(0.5, 4.0, 64)])
        target_xy = rng.uniform(-250.0, 250.0, 2)
        target = np.array([*target_xy, float(terrain.height_at(*target_xy)) + 1.5])
        longest = float(np.max(np.linalg.norm(target - eyes, axis=1)))
        samples = max(1, math.ceil(longest / step_m))
        points = eyes[:, None] + (target - eyes)[:, None] * (np.arange(1, samples)
                                                              / samples)[None, :, None]
        margins = np.min(points[..., 2] - terrain.height_at(points[..., 0], points[..., 1]),
                         axis=1)
        for clearance_m in (0.0, 0.5, float(np.max(margins)),
                            float(np.nextafter(np.max(margins), -np.inf))):
            seen = clear_views(terrain, eyes, target, step_m, clearance_m)
            np.testing.assert_array_equal(seen, clear_views(arrays, eyes, target, step_m,
                                                            clearance_m))
            answers.update(seen.tolist())
    assert answers == {True, False}


@pytest.mark.parametrize("map_name", ["desert", "range", "desert:1024"])
def test_a_line_that_passes_by_every_screen_meets_no_body_that_hides(config, map_name):
    """Lines from every living vehicle through and past every body that hides (rocks,
    plates, a wreck) and beyond: wherever Bullet's ray meets one, the screens say the
    line is near one of theirs, so they never spare Bullet a line it would find hidden."""
    session = GameSession(config.session, GameOptions(MapChoice.parse(map_name), 1, "tank", 3))
    simulation = session.simulation
    try:
        wreck = simulation.vehicle_named(next(iter(session.battle.bots)))
        simulation.damage(wreck, 1e9, simulation.player)
        for _ in range(30):
            simulation.step()
        world, screens = simulation.world, simulation.sight_screens
        hiding = [node for node in world.bullet.getRigidBodies()
                  if not (node.getIntoCollideMask() & groups.SIGHT_BLOCKERS).isZero()
                  and getattr(world.handles.owner_of(node), "destroyed", True)]
        assert wreck.body in hiding and len(hiding) > 1
        random = np.random.default_rng(7)
        eyes = [hull_middle_ws(vehicle) + (0.0, 0.0, 1.0) for vehicle in simulation.vehicles
                if not vehicle.destroyed]
        hidden = 0
        for node in hiding:
            centre = np.array(node.getTransform().getMat().xformPoint(
                node.getShapeBounds().getCenter()))
            for eye in eyes:
                for offset in random.normal(0.0, 1.5, (4, 3)):
                    end = eye + (centre + offset - eye) * random.uniform(0.9, 2.0)
                    if bodies_hide(world, eye, end, ()):
                        hidden += 1
                        assert screens.near_line(eye, end), (node.getName(), eye, end)
        assert hidden > 0
        assert not screens.near_line(eyes[0] + (0.0, 0.0, 500.0), eyes[0] + (50.0, 0.0, 500.0))
    finally:
        session.destroy()
