"""The bots' sums in plain floats are the numpy forms they stand for, to rounding. Each
sum is taken in numpy's element order, so where numpy's small products add in that order
the bits are the very same (a replay made before the bots left numpy plays the same); a
CPU whose BLAS adds with fused multiply-adds rounds a few bits apart, so the check is to
within a few units in the last place of the terms' sizes. Checked on random states laid
out as the fleet lays them out (axes a view of 4x4 matrices, vectors slices of one row)."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from game.sim.gunnery import gun_sticks
from game.sim.spotting import hull_middle_ws, spotting_range_m
from physics.model.ballistics import GunState, gun_axes, muzzle_ws
from physics.model.pose import BodyState, rotation_matrix
from physics.model.scalars import float_dot

CASES = 3000
ROUNDING = 16.0 * np.finfo(float).eps
"""Allowed difference, as a share of the summed sizes of a result's terms."""


def assert_rounded_alike(actual, expected, terms_size) -> None:
    """``actual`` is ``expected`` but for rounding in sums whose terms' sizes add up to
    ``terms_size`` (per element)."""
    difference = np.abs(np.asarray(actual, dtype=float) - np.asarray(expected, dtype=float))
    assert np.all(difference <= ROUNDING * np.asarray(terms_size, dtype=float)), \
        f"{actual} against {expected}"


def random_states(seed: int):
    """BodyStates as :func:`physics.bullet.poses.fleet_poses` makes them."""
    rng = np.random.default_rng(seed)
    for _ in range(CASES):
        quaternion = rng.normal(size=4)
        quaternion /= np.linalg.norm(quaternion)
        matrices = np.zeros((3, 4, 4))
        matrices[1, :3, :3] = rotation_matrix(quaternion).T
        rows = rng.normal(size=(2, 13)) * 10.0 ** rng.uniform(-2.0, 3.0)
        yield rng, BodyState(rows[1, 0:3], quaternion, rows[1, 7:10], rows[1, 10:13],
                             matrices[:, :3, :3][1])


def test_gun_axes_are_the_matrix_products():
    for rng, state in random_states(1):
        aim = GunState(float(rng.uniform(-math.pi, math.pi)), float(rng.uniform(-0.3, 0.8)))
        gun = SimpleNamespace(turret_pivot_m=tuple(rng.normal(size=3).tolist()),
                              gun_height_m=float(rng.uniform(0.0, 1.0)),
                              gun_length_m=float(rng.uniform(1.0, 8.0)))
        muzzle, barrel = gun_axes(state, gun, aim)
        assert muzzle_ws(state, gun, aim).tolist() == muzzle.tolist()  # the very bits
        heading, elevation = aim.turret_heading_rad, aim.elevation_rad
        barrel_bs = np.array([math.sin(heading) * math.cos(elevation),
                              math.cos(heading) * math.cos(elevation), math.sin(elevation)])
        trunnion_bs = np.array([gun.turret_pivot_m[0], gun.turret_pivot_m[1],
                                gun.turret_pivot_m[2] + gun.gun_height_m])
        axes = state.axes_ws()
        reach_bs = trunnion_bs + barrel_bs * gun.gun_length_m
        assert_rounded_alike(muzzle, state.position_ws + reach_bs @ axes,
                             np.abs(state.position_ws) + np.abs(reach_bs) @ np.abs(axes))
        assert_rounded_alike(barrel, barrel_bs @ axes, np.abs(barrel_bs) @ np.abs(axes))


def test_gun_sticks_and_dots_are_numpy_s():
    """The sticks a bot turns its turret and gun by, against the same sums in numpy: the
    error toward the wanted direction in the hull's frame, and the hull's turning about
    its up axis and pitching along the gun's line (small gains, so few clamp)."""
    turret_per_rad, elevation_per_rad, traverse_rad_s, elevation_rad_s = 0.2, 0.3, 0.5, 0.5
    clamped = 0
    for rng, state in random_states(2):
        right, forward, up = axes = state.axes_ws()
        heading = float(rng.uniform(-math.pi, math.pi))
        elevation = float(rng.uniform(-0.2, 0.4))
        wanted = rng.normal(size=3)
        wanted /= np.linalg.norm(wanted)
        spin = state.angular_velocity_ws
        spin = 0.1 * spin / (1.0 + np.linalg.norm(spin))
        local = axes @ wanted
        gun_right = right * math.cos(heading) - forward * math.sin(heading)
        expected = np.clip([
            math.remainder(math.atan2(local[0], local[1]) - heading, math.tau) * turret_per_rad
            + spin @ up / traverse_rad_s,
            (math.asin(np.clip(local[2], -1.0, 1.0)) - elevation) * elevation_per_rad
            - spin @ gun_right / elevation_rad_s], -1.0, 1.0)
        sticks = gun_sticks(wanted.tolist(), axes.tolist(), spin.tolist(), heading, elevation,
                            turret_per_rad, elevation_per_rad, traverse_rad_s, elevation_rad_s)
        clamped += int(np.any(np.abs(expected) == 1.0))
        assert np.abs(np.subtract(sticks, expected)).max() <= 1e-12, (sticks, expected)
        assert_rounded_alike(float_dot(state.velocity_ws.tolist(), forward.tolist()),
                             state.forward_speed_mps(),
                             np.abs(state.velocity_ws) @ np.abs(forward))
    assert clamped < CASES / 2  # most cases test the sums, not the clamp


@pytest.mark.parametrize("seed", [3, 4])
def test_hull_middle_and_spotting_range_are_numpy_s(seed):
    spotting = SimpleNamespace(sight_range_m=500.0, dust_range_per_mps=7.0,
                               firing_range_m=900.0, firing_seen_s=3.0)
    for rng, state in random_states(seed):
        drop_m = float(rng.uniform(-1.0, 1.0))
        vehicle = SimpleNamespace(current=state, fired_at_s=-math.inf, spec=SimpleNamespace(
            hull=SimpleNamespace(centre_of_mass_drop_m=drop_m)))
        up_m = state.axes_ws()[2] * drop_m
        assert_rounded_alike(hull_middle_ws(vehicle), state.position_ws + up_m,
                             np.abs(state.position_ws) + np.abs(up_m))
        speed = float(np.linalg.norm(state.velocity_ws))
        assert_rounded_alike(spotting_range_m(spotting, vehicle, 0.0), 500.0 + 7.0 * speed,
                             500.0 + 7.0 * speed)
