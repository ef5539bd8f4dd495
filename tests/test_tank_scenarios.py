"""The tank driven through the whole headless simulation: what a player would feel."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from panda3d.bullet import BulletBoxShape, BulletRigidBodyNode
from panda3d.core import Point3, TransformState, Vec3

from game.config import load_config
from game.sim.controls import AUTOMATIC, Controls, ScriptedInputs
from game.sim.events import Recovered, ShiftRefused
from game.sim.simulation import Simulation
from game.sim.telemetry import telemetry_record
from physics.bullet.ground import BulletRays
from physics.bullet.world import ALL_BODIES
from physics.model.anchor_model import AnchorModel
from physics.model.anchors import AnchorCommand, AnchorReport, BodyStates, GroundHits
from physics.model.pose import BodyState
from physics.model.stepping import FixedStepClock
from physics.model.terrain import MapChoice

KMH = 3.6


@pytest.fixture(scope="module")
def config():
    return load_config()


def with_spawn(config, **changes):
    spawn = dataclasses.replace(config.game.spawn, **changes)
    return dataclasses.replace(config, game=dataclasses.replace(config.game, spawn=spawn))


def run(simulation: Simulation, seconds: float, controls=lambda t: Controls()) -> list[BodyState]:
    """Step for ``seconds``; the player's state after each step."""
    states = []
    for _ in range(round(seconds / simulation.step_s)):
        simulation.step(controls(simulation.time_s))
        states.append(simulation.player.current)
    return states


def rest_lift(config) -> float:
    """Centre of mass above the ground at ride height."""
    anchor_depth = -np.mean([anchor.z_m for anchor in config.tank.suspension.anchors])
    return config.tank.suspension.ride_height_m + anchor_depth


def test_settles_at_ride_height_with_the_weight_on_the_springs(config):
    simulation = Simulation(config.world, MapChoice.parse("flat"), seed=1)
    state = run(simulation, 3.0)[-1]
    assert state.position_ws[2] == pytest.approx(rest_lift(config), abs=0.02)
    loads = [anchor["load"] for anchor in simulation.player.anchor_reports()]
    weight = config.tank.hull.mass_kg * config.game.simulation.gravity_m_s2
    assert sum(loads) == pytest.approx(weight, rel=0.01)
    simulation.destroy()


def test_a_one_metre_drop_settles_within_two_seconds_with_at_most_one_rebound(config):
    simulation = Simulation(with_spawn(config, drop_height_m=1.0).world, MapChoice.parse("flat"), seed=1)
    heights = np.array([state.position_ws[2] for state in run(simulation, 4.0)])
    offset = heights - rest_lift(config)
    times = np.arange(1, len(heights) + 1) * simulation.step_s
    settled_from = next(i for i in range(len(offset)) if np.all(np.abs(offset[i:]) < 0.01))
    assert times[settled_from] <= 2.0
    peaks = [i for i in range(1, len(offset) - 1)
             if offset[i] > offset[i - 1] and offset[i] >= offset[i + 1] and offset[i] > 0.01]
    assert len(peaks) <= 1
    assert offset.min() < -0.05  # it really did land hard on its springs
    simulation.destroy()


@pytest.mark.parametrize("gear", ["R", "1", "2", "3", "4", "5"])
def test_top_speed_in_each_gear(config, gear):
    simulation = Simulation(with_spawn(config, start_gear=gear).world, MapChoice.parse("flat"), seed=1)
    top_kmh = next(g.top_speed_kmh for g in config.tank_gearbox.gears if g.name == gear)
    states = run(simulation, 24.0, lambda t: Controls(throttle=1.0))  # fifth from rest: 20 s
    speeds = np.array([state.forward_speed_mps() * KMH for state in states[-60:]])
    expected = -top_kmh if gear == "R" else top_kmh
    assert speeds.mean() == pytest.approx(expected, rel=0.05)
    assert np.ptp(speeds) < 0.05 * top_kmh  # steady: the engine limits, it does not surge
    simulation.destroy()


def test_pivots_on_the_spot(config):
    simulation = Simulation(config.world, MapChoice.parse("flat"), seed=1)
    run(simulation, 1.0)
    start = simulation.player.current
    states = run(simulation, 5.0, lambda t: Controls(steer=1.0))
    headings = np.unwrap(np.radians([start.heading_pitch_roll_deg()[0]]
                                    + [s.heading_pitch_roll_deg()[0] for s in states]))
    turned_deg = math.degrees(headings[-1] - headings[0])
    moved = np.linalg.norm(states[-1].position_ws[:2] - start.position_ws[:2])
    assert turned_deg > 90.0  # steer right turns clockwise: compass heading grows
    assert moved < 1.5
    simulation.destroy()


@pytest.mark.parametrize("hold", [Controls(brake=1.0), Controls(handbrake=True)],
                         ids=["brake", "handbrake"])
def test_parked_on_a_20_degree_slope_it_does_not_creep(config, hold):
    simulation = Simulation(config.world, MapChoice.parse("slope:20"), seed=1)
    run(simulation, 2.0, lambda t: hold)
    start = simulation.player.current.position_ws
    end = run(simulation, 10.0, lambda t: hold)[-1].position_ws
    assert np.linalg.norm(end - start) < 0.01
    assert simulation.player.current.heading_pitch_roll_deg()[1] == pytest.approx(20.0, abs=1.0)
    simulation.destroy()


def test_in_neutral_without_brakes_it_rolls_down_the_slope(config):
    simulation = Simulation(with_spawn(config, start_gear="N").world, MapChoice.parse("slope:20"), seed=1)
    states = run(simulation, 5.0)
    assert states[-1].position_ws[1] < states[0].position_ws[1] - 5.0
    simulation.destroy()


def test_climbs_a_25_degree_slope_in_first_gear(config):
    simulation = Simulation(config.world, MapChoice.parse("slope:25"), seed=1)
    states = run(simulation, 15.0, lambda t: Controls(throttle=1.0, gear="1"))
    climbed = states[-1].position_ws[2] - states[0].position_ws[2]
    assert climbed > 8.0  # 15 s at 8 km/h up 25 degrees is 14 m, less the start and shift
    assert states[-1].forward_speed_mps() * KMH == pytest.approx(8.0, rel=0.05)
    simulation.destroy()


def test_squats_under_power(config):
    simulation = Simulation(config.world, MapChoice.parse("flat"), seed=1)
    run(simulation, 1.0)
    states = run(simulation, 0.5, lambda t: Controls(throttle=1.0))
    assert max(s.heading_pitch_roll_deg()[1] for s in states) > 0.05  # nose up, tail down
    simulation.destroy()


def test_reverse_is_refused_while_moving_and_the_refusal_is_an_event(config):
    simulation = Simulation(with_spawn(config, start_gear="3").world, MapChoice.parse("flat"), seed=1)
    run(simulation, 4.0, lambda t: Controls(throttle=1.0))
    events = simulation.step(Controls(throttle=1.0, gear="R"))
    assert ShiftRefused("player", "R", "moving") in events
    assert simulation.player.gear == "3"
    simulation.destroy()


def test_anchors_standing_on_a_crate_press_it_into_the_ground(config):
    simulation = Simulation(config.world, MapChoice.parse("flat"), seed=1)
    crate = BulletRigidBodyNode("crate")
    crate.addShape(BulletBoxShape(Vec3(0.6, 0.6, 0.05)))  # a 10 cm steel pallet under one corner
    crate.setMass(1000.0)
    crate.setDeactivationEnabled(False)
    front_left = simulation.tanks.constants.position_bs[0]
    crate.setTransform(TransformState.makePos(Point3(front_left[0], front_left[1], 0.05)))
    simulation.world.add_body(crate, owner="crate")
    simulation.tanks.add_obstacle(crate)
    run(simulation, 3.0)

    reports = simulation.player.anchor_reports()
    # The raised corner (and, as on any four-legged table, its diagonal) carries more.
    assert reports[0]["on_ground"]
    assert reports[0]["compression"] > max(reports[1]["compression"], reports[2]["compression"])
    # The ground holds the crate up with its own weight plus what the anchor pushes on it.
    ground_impulse = sum(
        manifold.getManifoldPoint(i).getAppliedImpulse()
        for manifold in simulation.world.bullet.getManifolds()
        if crate in (manifold.getNode0(), manifold.getNode1())
        for i in range(manifold.getNumManifoldPoints()))
    gravity = config.game.simulation.gravity_m_s2
    ground_force = ground_impulse / simulation.world.substep_s
    assert ground_force > 1000.0 * gravity + 0.5 * reports[0]["load"]
    assert crate.getTransform().getPos().z == pytest.approx(0.05, abs=0.02)
    simulation.destroy()


HULLS = 50
"""Hulls over the dunes in the ray tests: 200 anchor rays."""


def _hulls_over_the_dunes(terrain, rng, tanks) -> BodyStates:
    """Tanks anywhere on the dunes, lying along the ground under them and tilted a little
    more, their anchors 5 to 50 cm above the ground (about: the dunes curve under a hull)."""
    xy = rng.uniform(-200, 200, (HULLS, 2))
    ground_m, normals = terrain.surface_at(xy[:, 0], xy[:, 1])
    anchor_drop_m = -float(np.mean(tanks.constants.position_bs[:, 2]))
    heights = ground_m + anchor_drop_m + rng.uniform(0.05, 0.5, HULLS)
    axes = []
    for normal, tilt in zip(normals, rng.normal(0.0, 0.03, (HULLS, 2))):
        up = normal + np.array([tilt[0], tilt[1], 0.0])
        up /= np.linalg.norm(up)
        right = np.cross([0.0, 1.0, 0.0], up)
        right /= np.linalg.norm(right)
        axes.append([right, np.cross(up, right), up])
    return BodyStates(np.column_stack([xy, heights]), np.array(axes), np.zeros((HULLS, 3)),
                      np.zeros((HULLS, 3)))


def _anchor_casts(simulation, states: BodyStates, model: AnchorModel) -> AnchorReport:
    """Where the anchor kernel's rays met the terrain, for hulls at ``states``."""
    model.step(states, AnchorCommand.idle(HULLS, model.anchors), simulation.world.substep_s,
               simulation.terrain)
    return model.report


def _assert_same_as_bullet(simulation, report: AnchorReport, model: AnchorModel
                           ) -> tuple[GroundHits, np.ndarray]:
    """Hits and distances of the kernel's terrain rays equal Bullet's; returns Bullet's,
    and which rays were compared."""
    origins, directions = report.origin_ws.reshape(-1, 3), report.direction_ws.reshape(-1, 3)
    rays = len(origins)
    # Bullet's rays reach further: a ray meets the collider, then the ripples above it
    # are taken off, so one just out of reach of the collider may still meet the ripples.
    reach_m = model.constants.ray_length_m
    bullets = BulletRays(simulation.world, simulation.terrain, [None] * rays, 1,
                         ALL_BODIES).cast(
        origins, directions, reach_m + 0.5, model.constants.min_ground_up, np.arange(rays))
    bullets.hit &= bullets.distance_m <= reach_m
    # A ray that starts under the ground (the dunes curve under a hull) meets it behind
    # its start, where Bullet's ray cannot: only rays starting above it are compared.
    above = origins[:, 2] > simulation.terrain.height_at(origins[:, 0], origins[:, 1]) + 0.01
    assert above.sum() > 180
    hit = report.on_ground.reshape(-1)
    np.testing.assert_array_equal(hit[above], bullets.hit[above])
    assert hit[above].sum() > 150
    ours_m = np.einsum("ni,ni->n", report.contact_point_ws.reshape(-1, 3) - origins, directions)
    both = hit & above
    np.testing.assert_allclose(ours_m[both], bullets.distance_m[both], atol=2e-3)
    return bullets, above


def test_terrain_rays_match_bullet_rays_on_the_dunes(config):
    simulation = Simulation(config.world, MapChoice.parse("desert"), seed=4)
    model = simulation.tanks.spec.make_model(simulation.tanks.constants)
    model.resize(HULLS)
    states = _hulls_over_the_dunes(simulation.terrain, np.random.default_rng(0), simulation.tanks)
    report = _anchor_casts(simulation, states, model)
    bullets, above = _assert_same_as_bullet(simulation, report, model)
    both = report.on_ground.reshape(-1) & above
    # Normals agree inside triangles; on an edge either neighbour's normal is right.
    terrain = simulation.terrain
    points = report.contact_point_ws.reshape(-1, 3)
    cell_x = (points[:, 0] + terrain.half_extent_x_m) / terrain.spacing_m % 1.0
    cell_y = (points[:, 1] + terrain.half_extent_y_m) / terrain.spacing_m % 1.0
    margin = 1e-3
    inside = ((np.minimum(cell_x, 1 - cell_x) > margin) & (np.minimum(cell_y, 1 - cell_y) > margin)
              & (np.abs(cell_x + cell_y - 1.0) > margin))
    np.testing.assert_allclose(report.contact_normal_ws.reshape(-1, 3)[both & inside],
                               bullets.normal_ws[both & inside], atol=2e-3)
    simulation.destroy()


def test_terrain_rays_cast_again_from_where_they_met_the_ground_still_match_bullet(config):
    # Every substep the same rays are cast again a little further on: the second cast
    # starts from where each met the ground the first time and refines once.
    simulation = Simulation(config.world, MapChoice.parse("desert"), seed=4)
    model = simulation.tanks.spec.make_model(simulation.tanks.constants)
    model.resize(HULLS)
    rng = np.random.default_rng(1)
    states = _hulls_over_the_dunes(simulation.terrain, rng, simulation.tanks)
    _anchor_casts(simulation, states, model)
    moved = states.position_ws.copy()  # a substep's travel at speed
    moved[:, :2] += rng.normal(0.0, 0.1, (HULLS, 2))
    moved[:, 2] += simulation.terrain.height_at(moved[:, 0], moved[:, 1]) - \
        simulation.terrain.height_at(states.position_ws[:, 0], states.position_ws[:, 1])
    report = _anchor_casts(simulation, BodyStates(moved, states.axes_ws, states.velocity_ws,
                                                  states.angular_velocity_ws), model)
    _assert_same_as_bullet(simulation, report, model)
    simulation.destroy()


def test_faces_steeper_than_the_limit_are_not_ground(config):
    simulation = Simulation(config.world, MapChoice.parse("flat"), seed=1)
    ramp = BulletRigidBodyNode("steep-ramp")
    ramp.addShape(BulletBoxShape(Vec3(1.0, 1.0, 0.05)))
    # Its top face leans 75 degrees from up: more than the 70 allowed, so a wall.
    ramp.setTransform(TransformState.makePosHpr(Point3(20.0, 0.0, 1.0), Vec3(0.0, 0.0, 75.0)))
    simulation.world.add_body(ramp)
    ground = BulletRays(simulation.world, simulation.terrain, [None], 1, ALL_BODIES)
    down = np.array([[0.0, 0.0, -1.0]])
    limit = math.cos(math.radians(config.tank.suspension.max_ground_angle_deg))
    # As the fleet casts them, past the terrain's collider: the wall alone is no ground.
    above_terrain = BulletRays(simulation.world, simulation.terrain, [None], 1)
    assert not above_terrain.cast(np.array([[20.1, 0.0, 2.0]]), down, 3.0, limit,
                                  np.array([0])).hit[0]
    hits = ground.cast(np.array([[20.1, 0.0, 2.0]]), down, 3.0, limit, np.array([0]))
    assert hits.hit[0]
    assert hits.point_ws[0, 2] == pytest.approx(0.0, abs=1e-3)  # it found the sand below
    np.testing.assert_allclose(hits.normal_ws[0], [0.0, 0.0, 1.0], atol=1e-4)
    gentle = ground.cast(np.array([[20.1, 0.0, 2.0]]), down, 3.0, math.cos(math.radians(80)),
                         np.array([0]))
    assert gentle.point_ws[0, 2] > 0.5  # with an 80 degree limit the ramp is ground
    simulation.destroy()


def test_the_same_run_at_any_rendered_frame_rate(config, tmp_path):
    inputs_file = tmp_path / "inputs.json"
    inputs_file.write_text('{"events": [{"t": 0.2, "throttle": 1.0, "gear": "2"},'
                           ' {"t": 1.5, "steer": 0.7}, {"t": 3.0, "throttle": 0.0, "brake": 1.0}]}')

    def telemetry(frame_times):
        simulation = Simulation(config.world, MapChoice.parse("desert"), seed=2)
        inputs = ScriptedInputs.load(inputs_file)
        clock = FixedStepClock(simulation.step_s, config.game.simulation.max_steps_per_frame)
        records = []
        for frame_s in frame_times:
            for _ in range(clock.advance(frame_s)):
                events = simulation.step(inputs.controls_at(simulation.time_s))
                records.append(telemetry_record(simulation, events))
        simulation.destroy()
        return records

    rng = np.random.default_rng(5)
    steady = telemetry([1 / 60] * 240)
    fast = telemetry([1 / 144] * 600)
    jittery = telemetry(list(rng.uniform(0.002, 0.05, 200)))
    shared = min(len(steady), len(fast), len(jittery))
    assert shared >= 200
    assert steady[:shared] == fast[:shared] == jittery[:shared]


@pytest.mark.slow
def test_ten_minutes_of_random_driving_on_the_dunes_stays_finite_and_above_ground(config):
    """Finite and above the ground by itself: the physics guard, which would set a broken
    tank back, never had to."""
    simulation = Simulation(config.world, MapChoice.parse("desert"), seed=7)
    rng = np.random.default_rng(11)
    gears = ["R", "N", "1", "2", "3", "4", "5"]
    controls = Controls()
    lowest_clearance = math.inf
    for step in range(round(600.0 / simulation.step_s)):
        if step % 90 == 0:  # a new random input every 1.5 s
            controls = Controls(throttle=float(rng.uniform(-1, 1)), steer=float(rng.uniform(-1, 1)),
                                brake=float(rng.choice([0.0, 0.0, 0.0, 1.0])),
                                handbrake=bool(rng.random() < 0.05), gear=str(rng.choice(gears)))
        rescued = [event for event in simulation.step(controls) if isinstance(event, Recovered)]
        assert not rescued, f"the guard rescued at step {step}: {rescued}"
        state = simulation.player.current
        values = np.concatenate([state.position_ws, state.velocity_ws, state.orientation_ws,
                                 state.angular_velocity_ws])
        assert np.all(np.isfinite(values)), f"non-finite state at step {step}"
        ground = float(simulation.terrain.height_at(*state.position_ws[:2]))
        lowest_clearance = min(lowest_clearance, state.position_ws[2] - ground)
    assert lowest_clearance > 0.0
    simulation.destroy()


def test_the_automatic_gearbox_shifts_up_by_itself(config):
    simulation = Simulation(with_spawn(config, start_gear="A").world, MapChoice.parse("flat"), seed=1)
    states = run(simulation, 20.0, lambda t: Controls(throttle=1.0))
    assert simulation.player.gear in ("4", "5")
    assert states[-1].forward_speed_mps() * KMH > 30.0
    events = simulation.step(Controls(throttle=1.0, gear="2"))  # a gear key: manual again
    assert not simulation.tanks.gearbox.automatic[simulation.player.index]
    assert any(isinstance(event, ShiftRefused) for event in events)  # 2nd would over-rev
    simulation.destroy()


def test_six_road_wheel_stations_settle_at_ride_height_and_drive(config):
    from physics.model.anchors import AnchorSpec
    stations = tuple(AnchorSpec(x_m=x, y_m=y, z_m=-0.3) for y in (2.6, 0.0, -2.6) for x in (-1.45, 1.45))
    suspension = dataclasses.replace(config.tank.suspension, anchors=stations)
    six = config.with_tank(dataclasses.replace(config.tank, suspension=suspension))
    simulation = Simulation(six.world, MapChoice.parse("flat"), seed=1)
    state = run(simulation, 3.0)[-1]
    assert state.position_ws[2] == pytest.approx(rest_lift(config), abs=0.02)
    assert len(simulation.player.anchor_reports()) == 6
    states = run(simulation, 6.0, lambda t: Controls(throttle=1.0))
    assert states[-1].forward_speed_mps() * KMH == pytest.approx(8.0, rel=0.05)
    simulation.destroy()


def test_an_anchor_over_a_rock_stands_on_the_rock(config):
    from physics.bullet.bodies import make_rock_body
    from physics.model.rocks import RockSpec, scatter_rocks
    simulation = Simulation(config.world, MapChoice.parse("flat"), seed=1)
    spec = RockSpec(count=1, min_radius_m=0.8, max_radius_m=0.8, flattening=0.3, lumpiness=0.0,
                    buried_fraction=0.5, spawn_clearance_m=0.0, edge_clearance_m=0.0,
                    rock_ground_scale=1.5)
    rock = scatter_rocks(simulation.terrain, spec, seed=3, keep_clear_xy=[])[0]
    front_left = simulation.tanks.constants.position_bs[0]
    rock = dataclasses.replace(rock, position_ws=np.array([front_left[0], front_left[1],
                                                           rock.position_ws[2]]))
    body = make_rock_body(rock, "rock")
    simulation.world.add_body(body, owner=rock)
    simulation.tanks.add_obstacle(body)
    run(simulation, 3.0)
    reports = simulation.player.anchor_reports()
    assert reports[0]["compression"] > max(reports[1]["compression"], reports[2]["compression"]) + 0.02
    simulation.destroy()


def test_rocks_are_scattered_on_the_desert_only_and_clear_of_the_spawn(config):
    desert = Simulation(config.world, MapChoice.parse("desert"), seed=1)
    assert len(desert.rocks) == config.game.rocks.count
    spawn = desert.player.current.position_ws[:2]
    nearest = min(np.linalg.norm(rock.position_ws[:2] - spawn) for rock in desert.rocks)
    assert nearest >= config.game.rocks.spawn_clearance_m
    again = Simulation(config.world, MapChoice.parse("desert"), seed=1)
    np.testing.assert_array_equal(desert.rocks[5].points_bs, again.rocks[5].points_bs)
    desert.destroy()
    again.destroy()
    flat = Simulation(config.world, MapChoice.parse("flat"), seed=1)
    assert flat.rocks == []
    flat.destroy()


def test_a_tank_whose_anchor_maths_go_non_finite_is_set_back_and_no_other(config):
    """One substep's impulses of one tank turn NaN (its anchor maths broke: the loop is
    handed a NaN in its velocity): it gets no impulse, and the guard sets it back on the
    ground, still, after the step; the other tank drives on."""
    simulation = Simulation(config.world, MapChoice.parse("flat"), seed=1)
    try:
        player = simulation.player
        other = simulation.spawn("tank", "other", 30.0, 0.0, 0.0)
        for _ in range(60):  # a second: rolling
            simulation.step(Controls(throttle=0.5, gear=AUTOMATIC))
        fleet = player.fleet
        model_step = fleet.model.step
        broken = {"substeps": 1}

        def breaking_step(states, *args, **kwargs):
            if broken["substeps"]:
                broken["substeps"] -= 1
                velocity_ws = states.velocity_ws.copy()
                velocity_ws[other.index, 2] = np.nan
                states = dataclasses.replace(states, velocity_ws=velocity_ws)
                impulses = model_step(states, *args, **kwargs)
                assert impulses.finite is False
                assert np.isnan(impulses.linear_ws[other.index]).any()
                return impulses
            return model_step(states, *args, **kwargs)

        fleet.model.step = breaking_step
        events = simulation.step(Controls(throttle=0.5, gear=AUTOMATIC))
        fleet.model.step = model_step
        recovered = [event for event in events if isinstance(event, Recovered)]
        assert [(event.vehicle, event.reason) for event in recovered] == [
            ("other", "non-finite state")]
        assert not fleet.faulted.any()  # cleared as it was set down
        for vehicle in (player, other):
            assert np.isfinite(vehicle.current.position_ws).all()
        assert np.linalg.norm(other.current.velocity_ws) == 0.0  # set down still
        assert player.current.forward_speed_mps() > 0.05  # the player drove on
    finally:
        simulation.destroy()


def test_a_tank_held_off_the_ground_gets_no_push_or_twist_from_its_tracks(config):
    """Tracks in the air have nothing to push against: revved up in neutral, then dropped
    into reverse while steering (the clutch's biggest kick), a tank held high above the
    flats gets from its tracks neither a push nor a twist. (Once, the engine's push went
    through the airborne anchors at their rays' far-off meeting with the ground's plane:
    a tank beached on its belly spun up and was flung at 21 km/s.)"""
    simulation = Simulation(config.world, MapChoice.parse("flat"), seed=1)
    body = simulation.player.body
    held = body.getTransform().setPos(Point3(300.0, 200.0, 10.0))
    phases = [(150, Controls(throttle=1.0, gear="N")),
              (150, Controls(throttle=-0.4, steer=0.25, gear="A"))]
    worst_spin_rad_s = worst_push_mps = 0.0
    for steps, controls in phases:
        for _ in range(steps):
            body.setTransform(held)
            body.setLinearVelocity(Vec3.zero())
            body.setAngularVelocity(Vec3.zero())
            simulation.step(controls)
            state = simulation.player.current
            worst_spin_rad_s = max(worst_spin_rad_s, float(np.linalg.norm(
                state.angular_velocity_ws)))
            worst_push_mps = max(worst_push_mps, float(np.linalg.norm(state.velocity_ws[:2])))
    assert simulation.player.fleet.gearbox.gear_name(simulation.player.index) == "R"
    assert worst_spin_rad_s < 1e-6 and worst_push_mps < 1e-6
    simulation.destroy()
