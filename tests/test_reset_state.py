"""A vehicle set down afresh (a reset, a round's restart, a recovery) keeps nothing of
before: its grip springs' stretch, its wheels' spin and a car's steering start from rest,
so its next step is the step of a new vehicle placed there."""

from __future__ import annotations

import numpy as np
import pytest

from game.sim.controls import Controls
from game.sim.simulation import Simulation
from physics.model.terrain import MapChoice

DRIVE = Controls(throttle=1.0, steer=0.8)
DRIVE_STEPS = 150
HEADING_DEG = 30.0
AWAY_M = 60.0
"""Where the driven vehicles start, well clear of the world's own player at its spawn."""
SAME_TOLERANCE = 1e-6
"""Two Bullet worlds stepping the same body from the same pose agree to rounding."""


def _stepped_after(simulation: Simulation, vehicle, steps: int) -> np.ndarray:
    for _ in range(steps):
        simulation.step(others={vehicle.name: DRIVE})
    return np.concatenate([vehicle.current.position_ws, vehicle.current.velocity_ws])


def _fresh(config, kind: str, x_m: float, y_m: float) -> tuple[Simulation, object]:
    """A world (whose own player stands at its spawn, well away) and a vehicle in it."""
    simulation = Simulation(config.world, MapChoice.parse("flat"), 1)
    return simulation, simulation.spawn(kind, "driven", x_m, y_m, HEADING_DEG, start_gear="1")


@pytest.mark.parametrize("kind", ["car", "tank"])
def test_a_reset_vehicle_steps_as_a_new_one_placed_there(config, kind):
    driven_world, driven = _fresh(config, kind, AWAY_M, AWAY_M)
    _stepped_after(driven_world, driven, DRIVE_STEPS)
    model = driven.fleet.model
    assert np.abs(model.deflection_m[driven.index]).max() > 0.0  # it had state to carry
    x_m, y_m = driven.current.position_ws[:2]
    driven_world.place(driven, float(x_m), float(y_m), HEADING_DEG)

    assert not model.deflection_m[driven.index].any()
    assert not model.spin_speed_rad_s[driven.index].any()
    if kind == "car":
        assert driven.fleet.drive.steer_rad[driven.index] == 0.0

    new_world, new = _fresh(config, kind, float(x_m), float(y_m))
    # The gearbox is the driver's (the lever stays where it was): the same in both.
    new.fleet.gearbox.set_vehicle_state(new.index,
                                        driven.fleet.gearbox.vehicle_state(driven.index))
    after_reset = _stepped_after(driven_world, driven, 1)
    after_new = _stepped_after(new_world, new, 1)
    assert np.allclose(after_reset, after_new, atol=SAME_TOLERANCE)
    driven_world.destroy()
    new_world.destroy()


def test_a_new_car_starts_with_its_wheels_straight(config):
    simulation, first = _fresh(config, "car", AWAY_M, AWAY_M)
    _stepped_after(simulation, first, 30)
    assert abs(first.fleet.drive.steer_rad[first.index]) > 0.0
    second = simulation.spawn("car", "second", -AWAY_M, AWAY_M, 0.0, start_gear="1")
    simulation.step(others={first.name: DRIVE})
    assert second.fleet.drive.steer_rad[second.index] == 0.0
    simulation.destroy()
