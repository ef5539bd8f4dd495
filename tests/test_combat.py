"""Combat: shells on the firing range, the handle map, damage, wrecks, bots and rounds."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from game.config import load_config
from game.sim.battle import Battle
from game.sim.combat import splash_damage, vehicle_distance
from game.sim.controls import Controls
from game.sim.events import Destroyed, Hit, Recovered, RoundEnd, RoundStart, Shot
from game.sim.simulation import Simulation
from physics.bullet.shells import splash_owners
from physics.model.ballistics import gun_axes
from physics.model.flight import elevation_to_reach
from physics.model.terrain import MapChoice


@pytest.fixture(scope="module")
def config():
    return load_config()


def quick_reload(config, reload_s=0.1, rounds=1000):
    """``config`` with a gun that reloads in ``reload_s`` and carries ``rounds`` of its
    first shell."""
    first = dataclasses.replace(config.tank.gun.ammunition[0], rounds=rounds)
    gun = dataclasses.replace(config.tank.gun, reload_s=reload_s,
                              ammunition=(first, *config.tank.gun.ammunition[1:]))
    return config.with_tank(dataclasses.replace(config.tank, gun=gun))


def lay_gun_on(simulation, vehicle, point) -> None:
    """Point the turret and gun so a shell fired now arcs onto ``point`` (the gunner's job)."""
    gun = vehicle.spec.gun
    shell = simulation.combat.loaded_shell(vehicle)
    flight = simulation.combat.flight_of(shell)
    for _ in range(3):  # the muzzle moves as the gun turns: settle in a few passes
        muzzle, _ = gun_axes(vehicle.current, gun, vehicle.aim)
        offset = np.asarray(point) - muzzle
        elevation = elevation_to_reach(float(np.linalg.norm(offset[:2])), float(offset[2]),
                                       shell.muzzle_velocity_mps, flight, gun.shell_lifetime_s)
        heading = math.atan2(offset[0], offset[1])
        wanted = np.array([math.sin(heading) * math.cos(elevation),
                           math.cos(heading) * math.cos(elevation), math.sin(elevation)])
        right, forward, up = vehicle.current.axes_ws()
        vehicle.aim.turret_heading_rad = math.atan2(wanted @ right, wanted @ forward)
        vehicle.aim.elevation_rad = math.asin(float(wanted @ up))


SETTLED_CIRCLE = 1.1
"""The plate tests fire once the aiming circle is within this many aimed radii."""


def fire_at_plate(config, plate_index: int, shots: int) -> tuple[int, list[dict]]:
    simulation = Simulation(quick_reload(config).world, MapChoice.parse("range"), seed=1)
    for _ in range(60):
        simulation.step(Controls(brake=1.0))
    plate = simulation.plates[plate_index]
    hits, fired = [], 0
    aim, aiming = simulation.player.aim, simulation.player.spec.gun.aiming
    while fired < shots or simulation.shells:
        lay_gun_on(simulation, simulation.player, plate.position_ws)
        # A gunner who waits for the aiming circle to close after the last shot's jolt.
        fire = fired < shots and aim.aim_circle_rad <= SETTLED_CIRCLE * aiming.aimed_rad
        events = simulation.step(Controls(brake=1.0, fire=fire))
        fired += sum(isinstance(event, Shot) for event in events)
        hits += [event for event in events if isinstance(event, Hit)]
    simulation.destroy()
    return fired, hits


def test_every_shell_at_the_100_m_plate_hits_it_and_none_passes_through(config):
    fired, hits = fire_at_plate(config, 0, 100)
    assert fired == 100
    assert len(hits) == 100
    assert all(hit.target == "plate-100m" for hit in hits)
    plate_face_y = -512 + config.game.range.spawn_from_edge_m + 100 - 0.05
    assert all(hit.point[1] <= plate_face_y + 1e-3 for hit in hits)  # all on the near face
    loaded = config.shells.shells[config.tank.gun.ammunition[0].shell]
    assert all(hit.speed_mps > 0.9 * loaded.muzzle_velocity_mps for hit in hits)


@pytest.mark.parametrize("plate_index", [1, 2])
def test_the_far_plates_are_hit_too(config, plate_index):
    fired, hits = fire_at_plate(config, plate_index, 20)
    name = f"plate-{config.game.range.plate_distances_m[plate_index]:g}m"
    assert sum(hit.target == name for hit in hits) >= 19


@pytest.mark.slow
def test_ten_thousand_shells_leave_the_handle_map_as_it_was(config):
    simulation = Simulation(config.world, MapChoice.parse("flat"), seed=1)
    baseline = len(simulation.world.handles)
    player = simulation.player
    gun = player.spec.gun
    shell = simulation.combat.loaded_shell(player)
    rng = np.random.default_rng(0)
    fired = 0
    while fired < 10_000:
        for _ in range(25):
            player.aim.turret_heading_rad = rng.uniform(-math.pi, math.pi)
            player.aim.elevation_rad = math.radians(gun.min_elevation_deg)
            simulation.combat.shell_system.fire(player, player.body, player.current, gun,
                                                shell, player.aim, simulation.time_s, rng)
            fired += 1
        simulation.step(Controls(brake=1.0))
    while simulation.shells:
        simulation.step(Controls(brake=1.0))
    assert len(simulation.world.handles) == baseline
    assert len(simulation.world.bullet.getRigidBodies()) == baseline
    simulation.destroy()


def test_a_shell_flies_on_and_strikes_after_the_tank_that_fired_it_has_left(config):
    """A network player leaves (their vehicle is taken out of the game) while their last
    shell is in flight: it flies on and strikes, in their name (it once stopped the
    server: the shell asked its departed owner for its body)."""
    simulation = Simulation(config.world, MapChoice.parse("flat"), seed=1)
    target = simulation.player
    x_m, y_m, _ = target.current.position_ws
    leaver = simulation.spawn("tank", "leaver", float(x_m), float(y_m) - 250.0, 0.0)
    for _ in range(60):  # both settle on their tracks
        simulation.step(Controls(brake=1.0))
    lay_gun_on(simulation, leaver, target.current.position_ws + np.array([0.0, 0.0, 0.5]))
    gun, shell = leaver.spec.gun, simulation.combat.loaded_shell(leaver)
    simulation.combat.shell_system.fire(leaver, leaver.body, leaver.current, gun, shell,
                                        leaver.aim, simulation.time_s, np.random.default_rng(0))
    simulation.step(Controls(brake=1.0))
    simulation.remove(leaver)
    events = []
    for _ in range(120):
        if not simulation.shells:
            break
        events += simulation.step(Controls(brake=1.0))
    assert not simulation.shells
    assert any(isinstance(event, Hit) and event.shooter == "leaver"
               and event.target == target.name for event in events)
    simulation.destroy()


def test_splash_falls_with_distance(config):
    simulation = Simulation(config.world, MapChoice.parse("flat"), seed=1)
    blast = np.array([30.0, 0.0, 0.0])  # on the sand, clear of the player
    near = simulation.spawn("tank", "near", 30.0, 3.6, 0.0)      # rear face 0.2 m ahead of it
    middle = simulation.spawn("tank", "middle", 30.0, -5.9, 0.0)  # front face 2.5 m behind it
    for _ in range(30):
        simulation.step(Controls(brake=1.0))
    he = config.shells.shells["he"]
    reached = splash_owners(simulation.world, blast, he.splash_radius_m)
    assert near in reached and middle in reached and simulation.player not in reached
    near_m, middle_m = vehicle_distance(near, blast), vehicle_distance(middle, blast)
    floor_m = config.tank.suspension.ride_height_m  # the hull floor rides this high
    assert near_m == pytest.approx(math.hypot(0.2, floor_m), abs=0.05)
    assert middle_m == pytest.approx(math.hypot(2.5, floor_m), abs=0.05)
    assert splash_damage(he, near_m) > splash_damage(he, middle_m) > 0.0
    assert splash_damage(he, he.splash_radius_m) == 0.0
    simulation.destroy()


def test_a_destroyed_tank_ignores_its_controls_and_stays_as_a_wreck(config):
    simulation = Simulation(config.world, MapChoice.parse("flat"), seed=1)
    shooter = simulation.spawn("tank", "shooter", 30.0, 0.0, 270.0)
    for _ in range(60):
        simulation.step(Controls())
    events = simulation.damage(simulation.player, 1e6, shooter)
    assert Destroyed("player", "shooter") in events
    start = simulation.player.current.position_ws
    shots = 0
    for _ in range(180):
        events = simulation.step(Controls(throttle=1.0, steer=1.0, fire=True, turret=1.0))
        shots += sum(isinstance(event, Shot) for event in events)
    assert shots == 0
    assert np.linalg.norm(simulation.player.current.position_ws - start) < 0.05
    assert simulation.player.turret_heading_rad == 0.0
    assert simulation.player.body in [node for node in simulation.world.bullet.getRigidBodies()]
    simulation.destroy()


def run_battle(config, bots: int, seconds: float, map_name="desert", player=lambda t: Controls()):
    simulation = Simulation(config.world, MapChoice.parse(map_name), seed=1)
    battle = Battle(simulation, config.game.battle, config.game.ai, bots)
    log = []
    for _ in range(round(seconds / simulation.step_s)):
        for event in simulation.step(player(simulation.time_s)):
            log.append((simulation.time_s, event))
    return simulation, battle, log


def test_one_bot_destroys_a_stationary_tank_in_most_deserts(config):
    """One normal bot against a player who never moves, on six deserts: it comes across
    from its side (400 m), finds the player and destroys it in most of them within 150 s
    (measured: in 4 of these 6, at 74 to 110 s; the armour turns many of its shots)."""
    destroyed = 0
    for seed in range(1, 7):
        simulation = Simulation(config.world, MapChoice.parse("desert"), seed=seed)
        battle = Battle(simulation, config.game.battle, config.game.ai, 1)
        for _ in range(round(150.0 / simulation.step_s)):
            events = simulation.step(Controls())
            ends = [event for event in events if isinstance(event, RoundEnd)]
            if ends:
                assert ends[0].winner == "bots"
                destroyed += 1
                break
        assert battle.score["player"] == 0
        simulation.destroy()
    assert destroyed >= 3


@pytest.mark.slow
def test_four_bots_fight_five_minutes_and_every_round_ends(config):
    def weave(time_s):  # the player drives in wide S-bends and fights back blindly
        return Controls(throttle=1.0, steer=math.sin(time_s / 4.0), gear="A", fire=True,
                        turret=math.sin(time_s / 3.0))
    simulation, battle, log = run_battle(config, 4, 300.0, player=weave)
    starts = [t for t, e in log if isinstance(e, RoundStart)]
    ends = [t for t, e in log if isinstance(e, RoundEnd)]
    assert len(ends) >= 2
    assert len(ends) >= len(starts)  # every round that began also ended (or is the last)
    assert battle.round == len(starts) + 1
    assert sum(battle.score.values()) == len(ends)
    assert not [e for _, e in log if isinstance(e, Recovered)]  # the guard was never needed
    simulation.destroy()


def test_a_body_that_fell_through_the_ground_is_put_back_on_top(config):
    from panda3d.core import Point3, TransformState
    simulation = Simulation(config.world, MapChoice.parse("flat"), seed=1)
    for _ in range(30):
        simulation.step(Controls())
    simulation.player.body.setTransform(TransformState.makePos(Point3(3.0, 4.0, -6.0)))
    events = simulation.step(Controls())
    assert Recovered("player", "below the ground") in events
    for _ in range(60):
        simulation.step(Controls())
    assert simulation.player.current.position_ws[2] > 0.5
    simulation.destroy()


def _nan_in_the_anchor_maths(simulation) -> None:
    model = simulation.tanks.model
    model._deflection[:, :model.anchors] = math.nan  # the player's grip springs blow up


def _motion_that_runs_away_in_bullet(simulation) -> None:
    """Bullet integrates an absurd velocity to a non-finite place, which Panda refuses
    with an assertion in the middle of the step."""
    from panda3d.core import Vec3
    body = simulation.player.body
    body.setLinearVelocity(Vec3(3e38, 0.0, 0.0))
    body.setAngularVelocity(Vec3(0.0, 3e38, 0.0))


@pytest.mark.parametrize("breaking", [_nan_in_the_anchor_maths,
                                      _motion_that_runs_away_in_bullet])
def test_a_broken_vehicle_is_recovered_and_the_world_goes_on(config, breaking):
    simulation = Simulation(config.world, MapChoice.parse("desert"), seed=1)
    other = simulation.spawn("tank", "other", 40.0, 40.0, 0.0)
    for _ in range(60):
        simulation.step(Controls(throttle=1.0))
    before = simulation.player.current.position_ws.copy()
    breaking(simulation)
    events = simulation.step(Controls(throttle=1.0))
    assert [event for event in events if isinstance(event, Recovered)] == [
        Recovered("player", "non-finite state")]  # the player, and nobody else
    for _ in range(120):
        events = simulation.step(Controls(throttle=1.0))
        assert not any(isinstance(event, Recovered) for event in events)
    for vehicle in (simulation.player, other):
        state = vehicle.current
        assert np.all(np.isfinite(state.position_ws)) and np.all(np.isfinite(state.velocity_ws))
        ground = float(simulation.terrain.height_at(*state.position_ws[:2]))
        assert ground < state.position_ws[2] < ground + 2.0
    assert np.linalg.norm(simulation.player.current.position_ws[:2] - before[:2]) < 10.0
    simulation.destroy()


def test_guns_start_loading_when_a_tank_appears_and_after_a_round(config):
    simulation = Simulation(config.world, MapChoice.parse("flat"), seed=1)
    reload_s = config.tank.gun.reload_s
    assert simulation.player.aim.reload_left_s == reload_s
    shots = []
    for _ in range(round(reload_s * 60) - 2):
        shots += [e for e in simulation.step(Controls(fire=True)) if isinstance(e, Shot)]
    assert shots == []  # no shot before the gun has loaded
    for _ in range(4):
        shots += [e for e in simulation.step(Controls(fire=True)) if isinstance(e, Shot)]
    assert len(shots) == 1
    simulation.destroy()


def test_a_shell_fired_from_a_turning_hull_leaves_with_the_muzzles_swing(config):
    """Launch velocity: the hull's velocity at the muzzle (v + w x r) plus the muzzle
    velocity along the barrel; the recoil pushes the hull back at the muzzle."""
    simulation = Simulation(config.world, MapChoice.parse("flat"), seed=1)
    player = simulation.player
    gun = player.spec.gun
    player.aim.aim_circle_rad = 0.0  # down the barrel's axis
    yaw_rate_rad_s = 0.8
    state = dataclasses.replace(player.current, velocity_ws=np.array([1.0, 2.0, 0.0]),
                                angular_velocity_ws=np.array([0.0, 0.0, yaw_rate_rad_s]))
    player.aim.turret_heading_rad = math.radians(90.0)  # the gun over the right side
    muzzle, barrel = gun_axes(state, gun, player.aim)
    loaded = simulation.combat.loaded_shell(player)
    shell = simulation.combat.shell_system.fire(player, player.body, state, gun, loaded,
                                                player.aim, simulation.time_s,
                                                np.random.default_rng(0))
    lever = muzzle - state.position_ws
    swing = np.cross(state.angular_velocity_ws, lever)
    assert np.linalg.norm(swing) == pytest.approx(yaw_rate_rad_s * np.hypot(*lever[:2]))
    assert np.allclose(shell.velocity_ws, state.velocity_ws + swing
                       + barrel * loaded.muzzle_velocity_mps)
    simulation.destroy()
