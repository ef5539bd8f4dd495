"""A car's wheels spin on their own inertia, whichever tyre model holds the ground: in the
air the engine spins the driven ones up over time, engine braking and the bearings slow
them again, and a hard brake stops a wheel until it locks."""

from __future__ import annotations

import numpy as np
import pytest

from game.sim.controls import Controls
from tests.test_car_scenarios import KMH, car_simulation

DROP_M = 50.0
"""Dropped from this high, the car is in the air for three seconds."""
FIRST_STEP_SHARE = 0.3
"""On the first step of throttle a wheel has not got near the asked speed."""
SPUN_UP_SHARE = 0.9
SPIN_UP_GEAR = "3"
"""The engine revs the wheels up with it, through the gear: 3rd shows it step by step."""
SPIN_UP_WITHIN_S = 2.0
"""The engine's own inertia takes about a second from idle to the redline."""
BRAKE_TEST_KMH = 60.0
LOCKED_RAD_S = 0.5
"""A wheel turning slower than this (its rim at walking pace's tenth) is locked."""


def _driven(simulation) -> np.ndarray:
    """Which anchors the engine drives."""
    return simulation.player.fleet.drive.drive_share > 0.0


def _spin_rad_s(simulation) -> np.ndarray:
    vehicle = simulation.player
    return vehicle.fleet.model.spin_speed_rad_s[vehicle.index].copy()


def _in_the_air(simulation) -> bool:
    return not simulation.player.anchors().on_ground.any()


def _asked_rad_s(config, gear: str) -> float:
    """The rim speed full throttle asks of the driven wheels in ``gear``, as a spin."""
    top_kmh = next(g.top_speed_kmh for g in config.car_gearbox.gears if g.name == gear)
    return top_kmh / KMH / config.car.suspension.wheel_radius_m


@pytest.mark.parametrize("tyres", ["grip", "slip"])
def test_in_the_air_the_engine_spins_the_wheels_up_over_time_and_they_slow_again(config,
                                                                                 tyres):
    simulation = car_simulation(config, tyres, SPIN_UP_GEAR, drop_height_m=DROP_M)
    driven, asked = _driven(simulation), _asked_rad_s(config, SPIN_UP_GEAR)
    gearbox, index = simulation.player.fleet.gearbox, simulation.player.index
    while gearbox.shifting[index]:  # the start gear going in: no drive yet
        simulation.step(Controls())
    assert _in_the_air(simulation)

    spins = []
    while len(spins) * simulation.step_s < SPIN_UP_WITHIN_S:
        simulation.step(Controls(throttle=1.0))
        spins.append(_spin_rad_s(simulation)[driven].mean())
        if spins[-1] >= SPUN_UP_SHARE * asked:
            break
    assert _in_the_air(simulation)
    assert spins[0] < FIRST_STEP_SHARE * asked  # not the whole speed at once
    spun_up = next(step for step, spin in enumerate(spins) if spin >= SPUN_UP_SHARE * asked)
    spin_up_s = (spun_up + 1) * simulation.step_s
    assert 2 * simulation.step_s < spin_up_s < SPIN_UP_WITHIN_S
    assert not _spin_rad_s(simulation)[~driven].any()  # the front wheels are not driven

    # Off the throttle in gear, engine braking slows the driven wheels, over time too.
    before = _spin_rad_s(simulation)[driven].mean()
    simulation.step(Controls())
    assert 0.5 * before < _spin_rad_s(simulation)[driven].mean() < before

    # In neutral nothing drives them: the bearings' drag slows them, slowly.
    simulation.step(Controls(gear="N"))
    coasting = _spin_rad_s(simulation)[driven].mean()
    steps = round(0.5 / simulation.step_s)
    for _ in range(steps):
        simulation.step(Controls())
    assert _in_the_air(simulation)
    spin = config.car.wheel_spin
    expected_drop = spin.bearing_drag_n_m / spin.wheel_inertia_kg_m2 * steps * simulation.step_s
    assert coasting - _spin_rad_s(simulation)[driven].mean() == pytest.approx(expected_drop,
                                                                              rel=0.05)
    simulation.destroy()


@pytest.mark.parametrize("tyres", ["grip", "slip"])
def test_braked_hard_a_wheel_locks(config, tyres):
    simulation = car_simulation(config, tyres, "3")
    for _ in range(round(20.0 / simulation.step_s)):
        if simulation.player.current.forward_speed_mps() * KMH >= BRAKE_TEST_KMH:
            break
        simulation.step(Controls(throttle=1.0))
    assert simulation.player.current.forward_speed_mps() * KMH >= BRAKE_TEST_KMH
    locked_at = speed_at_lock_mps = None
    for step in range(round(1.0 / simulation.step_s)):
        simulation.step(Controls(brake=1.0, gear="N"))
        if (np.abs(_spin_rad_s(simulation)) < LOCKED_RAD_S).any():
            locked_at = step
            speed_at_lock_mps = simulation.player.current.forward_speed_mps()
            break
    assert locked_at is not None
    assert locked_at > 0  # the brake stops the wheel over a few steps, not at once
    assert speed_at_lock_mps > BRAKE_TEST_KMH / KMH / 2.0  # the car still slides on
    for _ in range(round(0.2 / simulation.step_s)):
        simulation.step(Controls(brake=1.0, gear="N"))
    assert (np.abs(_spin_rad_s(simulation)) < LOCKED_RAD_S).any()  # and it stays locked
    simulation.destroy()
