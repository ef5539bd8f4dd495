"""The pure anchor model against a fake flat ground: no Bullet, no simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from common.spec import SpecError, build_spec
from game.config import load_config
from physics.model.anchor_model import AnchorModel
from physics.model.anchors import (AnchorCommand, BodyStates, GroundHits, SuspensionSpec,
                                   derive_constants, static_mass_shares)

GRAVITY = 9.81
STEP = 1.0 / 120.0


class FlatGround:
    """A horizontal plane at ``height_m`` that moves with ``velocity_ws``."""

    def __init__(self, height_m=0.0, velocity_ws=(0.0, 0.0, 0.0)):
        self.height_m = height_m
        self.velocity_ws = np.asarray(velocity_ws, dtype=float)

    def cast(self, origins_ws, directions_ws, length_m, min_ground_up, rays):
        down = -directions_ws[:, 2]
        distance = (origins_ws[:, 2] - self.height_m) / np.maximum(down, 1e-9)
        hit = (distance <= length_m) & (down >= min_ground_up)
        point = origins_ws + distance[:, None] * directions_ws
        normal = np.tile([0.0, 0.0, 1.0], (len(origins_ws), 1))
        return GroundHits(hit, distance, point, normal,
                          np.tile(self.velocity_ws, (len(origins_ws), 1)),
                          np.ones(len(origins_ws)), np.zeros(len(origins_ws)))


@pytest.fixture(scope="module")
def tank():
    return load_config().tank


@pytest.fixture(scope="module")
def constants(tank):
    return derive_constants(tank.suspension, tank.grip, tank.hull.mass_kg, GRAVITY, tracked=True)


def level_states(height_m, count=1, velocity=(0.0, 0.0, 0.0), angular=(0.0, 0.0, 0.0)):
    return BodyStates(np.tile([0.0, 0.0, height_m], (count, 1)), np.tile(np.eye(3), (count, 1, 1)),
                      np.tile(np.asarray(velocity, float), (count, 1)),
                      np.tile(np.asarray(angular, float), (count, 1)))


def rest_height(constants, tank):
    """Centre-of-mass height with every spring at its static compression."""
    return tank.suspension.ride_height_m - constants.position_bs[:, 2].mean()


def idle(count=1):
    return AnchorCommand.idle(count, 4)


def tracks(speed, limit):
    """The same surface speed and force limit (V, 2 tracks) on both anchors of each track."""
    left = np.array([True, False, True, False])
    columns = np.where(left, 0, 1)
    speed, limit = np.asarray(speed, float), np.asarray(limit, float)
    return AnchorCommand(speed[:, columns], limit[:, columns] / 2,
                         np.zeros((len(speed), 4)), np.ones((len(speed), 4)))


def test_springs_are_derived_from_frequency_and_damping_ratio(tank, constants):
    mass = tank.hull.mass_kg / len(tank.suspension.anchors)
    omega = 2 * math.pi * tank.suspension.natural_frequency_hz
    np.testing.assert_allclose(constants.mass_share_kg, mass)
    np.testing.assert_allclose(constants.stiffness_n_m, mass * omega ** 2)
    np.testing.assert_allclose(constants.damping_n_s_m,
                               2 * tank.suspension.damping_ratio * math.sqrt(mass ** 2 * omega ** 2))
    assert constants.rest_length_m == pytest.approx(tank.suspension.ride_height_m + GRAVITY / omega ** 2)


def test_mass_shares_balance_weight_and_moments_for_uneven_anchors():
    positions = np.array([[-1.0, 2.0, 0], [1.0, 2.0, 0], [-1.2, -0.5, 0], [1.2, -0.5, 0],
                          [-1.0, -3.0, 0], [1.0, -3.0, 0]])
    shares = static_mass_shares(positions, 1000.0)
    assert shares.sum() == pytest.approx(1000.0)
    assert shares @ positions[:, 0] == pytest.approx(0.0, abs=1e-9)
    assert shares @ positions[:, 1] == pytest.approx(0.0, abs=1e-9)
    assert np.all(shares > 0)


def test_patch_centres_split_each_track_between_its_anchors(constants):
    # Four anchors at +-2.6 m: each carries half a track, grip acts at +-1.3 m.
    np.testing.assert_allclose(constants.position_bs[:, 1] + constants.patch_offset_m,
                               constants.position_bs[:, 1] / 2)


def test_at_ride_height_the_springs_carry_the_weight_exactly(tank, constants):
    model = AnchorModel(constants, tank.grip)
    model.resize(1)
    impulses = model.step(level_states(rest_height(constants, tank)), idle(), STEP,
                          query=FlatGround())
    assert impulses.linear_ws[0, 2] == pytest.approx(tank.hull.mass_kg * GRAVITY * STEP, rel=1e-9)
    np.testing.assert_allclose(impulses.linear_ws[0, :2], 0.0, atol=1e-6)
    np.testing.assert_allclose(impulses.angular_ws[0], 0.0, atol=1e-6)
    assert model.report.on_ground.all() and not model.report.sliding.any()


def test_a_spring_never_pulls_the_hull_down(tank, constants):
    model = AnchorModel(constants, tank.grip)
    model.resize(1)
    # Just inside the ray's reach but rising fast: the damper would pull; the load stays >= 0.
    height = rest_height(constants, tank) + constants.rest_length_m - tank.suspension.ride_height_m - 0.01
    impulses = model.step(level_states(height, velocity=(0, 0, 3.0)), idle(), STEP,
                          query=FlatGround())
    assert np.all(model.report.load_n >= 0.0)
    assert impulses.linear_ws[0, 2] >= 0.0
    # Out of reach: no contact, no force.
    impulses = model.step(level_states(height + 0.5), idle(), STEP, query=FlatGround())
    assert not model.report.on_ground.any()
    np.testing.assert_allclose(impulses.linear_ws, 0.0)


def test_damping_uses_each_anchors_own_velocity(tank, constants):
    model = AnchorModel(constants, tank.grip)
    model.resize(1)
    # Pure pitch, nose going up: the front anchors rise, the rear ones sink.
    model.step(level_states(rest_height(constants, tank), angular=(0.5, 0.0, 0.0)), idle(),
               STEP, query=FlatGround())
    load = model.report.load_n[0]
    front = constants.position_bs[:, 1] > 0
    weight = tank.hull.mass_kg * GRAVITY / 4
    assert np.all(load[front] < weight) and np.all(load[~front] > weight)


def test_bump_stop_stiffens_past_full_travel(tank, constants):
    model = AnchorModel(constants, tank.grip)
    model.resize(1)
    base = rest_height(constants, tank) - tank.suspension.ride_height_m
    within = base + constants.rest_length_m - constants.travel_m + 0.01
    beyond = base + constants.rest_length_m - constants.travel_m - 0.01
    model.step(level_states(within), idle(), STEP, query=FlatGround())
    load_within = model.report.load_n[0, 0]
    model.step(level_states(beyond), idle(), STEP, query=FlatGround())
    spring_only = constants.stiffness_n_m[0] * (constants.travel_m + 0.01)
    assert model.report.load_n[0, 0] > spring_only + 0.5 * constants.bump_stiffness_n_m[0] * 0.01
    assert load_within < spring_only


def test_sideways_grip_holds_then_slides_past_the_friction_circle(tank, constants):
    model = AnchorModel(constants, tank.grip)
    model.resize(1)
    height = rest_height(constants, tank)
    impulses = model.step(level_states(height, velocity=(0.01, 0, 0)), idle(), STEP,
                          query=FlatGround())
    assert impulses.linear_ws[0, 0] < 0.0 and not model.report.sliding.any()

    model.resize(0)
    model.resize(1)
    impulses = model.step(level_states(height, velocity=(5.0, 0, 0)), idle(), STEP,
                          query=FlatGround())
    assert model.report.sliding.all()
    sideways = -impulses.anchor_ws[0, :, 0] / STEP
    np.testing.assert_allclose(sideways, tank.grip.sliding_grip * model.report.load_n[0], rtol=1e-6)


def test_drive_pulls_toward_the_belt_speed_within_the_engine_limit(tank, constants):
    model = AnchorModel(constants, tank.grip)
    model.resize(1)
    limit = 20000.0
    command = tracks([[2.0, 2.0]], [[limit, limit]])
    impulses = model.step(level_states(rest_height(constants, tank)), command, STEP,
                          query=FlatGround())
    along = impulses.anchor_ws[0, :, 1] / STEP
    assert np.all(along > 0.0)
    assert along.sum() == pytest.approx(2 * limit, rel=1e-6)  # both tracks at their limit


def test_ground_moving_under_the_tank_drags_it_along(tank, constants):
    model = AnchorModel(constants, tank.grip)
    model.resize(1)
    ground = FlatGround(velocity_ws=(0.0, 0.05, 0.0))
    impulses = model.step(level_states(rest_height(constants, tank)), idle(), STEP, query=ground)
    assert impulses.linear_ws[0, 1] > 0.0


@pytest.mark.slow
def test_many_vehicles_in_one_pass_match_each_alone(tank, constants):
    rng = np.random.default_rng(3)
    count = 7
    states = level_states(rest_height(constants, tank), count)
    states.velocity_ws[:] = rng.normal(0, 2, (count, 3))
    states.angular_velocity_ws[:] = rng.normal(0, 0.3, (count, 3))
    command = tracks(rng.uniform(-3, 3, (count, 2)), rng.uniform(0, 9e4, (count, 2)))
    together = AnchorModel(constants, tank.grip)
    together.resize(count)
    batch = together.step(states, command, STEP, query=FlatGround())
    for v in range(count):
        alone = AnchorModel(constants, tank.grip)
        alone.resize(1)
        one = BodyStates(states.position_ws[v:v + 1], states.axes_ws[v:v + 1],
                         states.velocity_ws[v:v + 1], states.angular_velocity_ws[v:v + 1])
        result = alone.step(one, AnchorCommand(
            command.surface_speed_mps[v:v + 1], command.force_limit_n[v:v + 1],
            command.steer_rad[v:v + 1], command.grip_scale[v:v + 1]), STEP, query=FlatGround())
        np.testing.assert_allclose(result.linear_ws[0], batch.linear_ws[v], rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(result.angular_ws[0], batch.angular_ws[v], rtol=1e-9, atol=1e-9)


def test_suspension_spec_rejects_anchors_on_one_side_and_on_the_centre_line(tank):
    table = {"anchors": [{"x_m": 1.0, "y_m": 2.0, "z_m": 0.0}, {"x_m": 1.0, "y_m": -2.0, "z_m": 0.0},
                         {"x_m": 2.0, "y_m": 0.0, "z_m": 0.0}],
             "ride_height_m": 0.4, "travel_m": 0.2, "natural_frequency_hz": 1.5,
             "damping_ratio": 0.5, "bump_stop_stiffness_ratio": 10.0, "max_ground_angle_deg": 70.0}
    with pytest.raises(SpecError, match="both sides"):
        build_spec(SuspensionSpec, table)
    table["anchors"][0]["x_m"] = 0.0
    with pytest.raises(SpecError, match="centre line"):
        build_spec(SuspensionSpec, table)


def test_the_rays_a_query_casts_are_the_models_own_rays(tank, constants):
    """Rays cast beforehand (here every ray: no terrain) reach the query as the model makes
    them (:meth:`AnchorModel.rays`), to the bit, each with its vehicle's length."""
    cast = []

    class Recording(FlatGround):
        def cast(self, origins_ws, directions_ws, length_m, min_ground_up, rays):
            cast.append((origins_ws.copy(), directions_ws.copy(), np.array(length_m),
                         np.array(min_ground_up), np.array(rays)))
            return super().cast(origins_ws, directions_ws, length_m, min_ground_up, rays)

    rng = np.random.default_rng(5)
    model = AnchorModel(constants, tank.grip)
    model.resize(3)
    axes = np.linalg.qr(rng.normal(size=(3, 3, 3)))[0].transpose(0, 2, 1)
    axes[:, 2] *= np.sign(np.linalg.det(axes))[:, None]
    states = BodyStates(rng.uniform(-50.0, 50.0, (3, 3)), axes, np.zeros((3, 3)),
                        np.zeros((3, 3)))
    model.step(states, idle(3), STEP, query=Recording())
    [(origins, directions, length_m, min_up, rays)] = cast
    expected_origins, expected_directions = model.rays(states.position_ws, states.axes_ws)
    assert rays.tolist() == list(range(3 * model.anchors))
    assert origins.tobytes() == expected_origins.reshape(-1, 3).tobytes()
    assert directions.tobytes() == expected_directions.reshape(-1, 3).tobytes()
    assert length_m.tolist() == [constants.ray_length_m] * len(rays)
    assert len(set(min_up.tolist())) == 1 and 0.0 < min_up[0] <= 1.0
