"""Shells in flight feel air drag (physics/model/flight.py, physics/bullet/shells.py): the
Bullet shell flies the pure flight the crosshair and the bots fly, a gun fires the shell
it has loaded (its speed, mass and calibre), and the crosshair's predicted impact is where
the shell lands, a kilometre off too."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from game.sim.combat import Plate
from game.sim.controls import Controls
from game.sim.events import Hit
from game.sim.simulation import Simulation
from physics.bullet.bodies import make_plate_body
from physics.model.ballistics import gun_axes, launch_velocity_ws
from physics.model.flight import (Flight, airless_elevation, elevation_to_reach,
                                  flight_points, flight_to_distance)
from physics.model.terrain import MapChoice

GUNNER = "gunner"
FAR_M = 1000.0
"""How far off the crosshair is checked."""
CROSSHAIR_WITHIN_M = 0.5


def steady_config(config):
    """The shipped config with a gun that puts every shell down its axis."""
    gun = dataclasses.replace(config.tank.gun, aiming=dataclasses.replace(
        config.tank.gun.aiming, aimed_mrad=0.0))
    return config.world.with_tank(dataclasses.replace(config.tank, gun=gun))


def loaded_as(specs, name: str):
    """``specs`` with the gun's first (loaded) shell replaced by the shell ``name``."""
    shells = dict(specs.shells.shells)
    shells[specs.tank.gun.ammunition[0].shell] = specs.shells.shells[name]
    return dataclasses.replace(specs, shells=dataclasses.replace(specs.shells, shells=shells))


def gunner_on_flat(specs, heading_deg: float = 40.0) -> tuple[Simulation, object]:
    """A tank near a corner of the flat map facing across it, settled and loaded."""
    simulation = Simulation(specs, MapChoice.parse("flat"), seed=1, player_vehicle=None)
    tank = simulation.spawn("tank", GUNNER, -400.0, -400.0, heading_deg)
    for _ in range(math.ceil(specs.tank.gun.reload_s * 60.0) + 30):
        simulation.step(others={GUNNER: Controls(brake=1.0)})
    return simulation, tank


def lay_for(simulation, tank, distance_m: float, rise_m: float) -> None:
    """Raise the gun (turret straight ahead) so the loaded shell reaches ``distance_m``
    across and ``rise_m`` up from the muzzle."""
    gun, combat = tank.spec.gun, simulation.combat
    shell = combat.loaded_shell(tank)
    elevation = elevation_to_reach(distance_m, rise_m, shell.muzzle_velocity_mps,
                                   combat.flight_of(shell), gun.shell_lifetime_s)
    assert elevation is not None
    pitch_deg = tank.current.heading_pitch_roll_deg()[1]
    tank.aim.turret_heading_rad = 0.0
    tank.aim.elevation_rad = elevation - math.radians(pitch_deg)


def fire_and_land(simulation) -> Hit:
    hits = [event for event in simulation.step(others={GUNNER: Controls(brake=1.0, fire=True)})
            if isinstance(event, Hit)]
    while simulation.shells:
        hits += [event for event in simulation.step(others={GUNNER: Controls(brake=1.0)})
                 if isinstance(event, Hit)]
    assert len(hits) == 1
    return hits[0]


# ----- the pure flight ----------------------------------------------------------------------

def test_drag_slows_a_shell_with_range_as_k_v_squared():
    """Flying level with no gravity, v(x) = v0 exp(-k x): the stepped flight keeps to it."""
    drag_per_m, speed_mps = 1.6e-4, 900.0
    flight = Flight(gravity_m_s2=0.0, drag_per_m=drag_per_m, step_s=1.0 / 120.0)
    speeds = []
    for distance_m in (100.0, 1000.0, 2000.0):
        _, _, velocity = flight_to_distance(np.zeros(3), (0.0, speed_mps, 0.0), flight,
                                            distance_m, 10.0)
        speeds.append(float(np.linalg.norm(velocity)))
        assert speeds[-1] == pytest.approx(speed_mps * math.exp(-drag_per_m * distance_m),
                                           rel=2e-3)
    assert speeds == sorted(speeds, reverse=True)
    airless = Flight(gravity_m_s2=0.0, drag_per_m=0.0, step_s=1.0 / 120.0)
    assert np.linalg.norm(flight_to_distance(np.zeros(3), (0.0, speed_mps, 0.0), airless,
                                             2000.0, 10.0)[2]) == pytest.approx(speed_mps)


def test_without_drag_the_flight_is_the_parabola_to_a_step_of_gravity():
    flight = Flight(gravity_m_s2=9.81, drag_per_m=0.0, step_s=1.0 / 120.0)
    times_s = np.array([0.5, 1.0, 2.0])
    points, _ = flight_points(np.zeros(3), (0.0, 500.0, 100.0), flight, times_s)
    assert np.allclose(points[:, 1], 500.0 * times_s)
    parabola = 100.0 * times_s - 0.5 * 9.81 * times_s ** 2
    # Semi-implicit Euler (as Bullet steps) falls half a step's gravity further a second.
    assert np.allclose(points[:, 2], parabola - 0.5 * 9.81 * flight.step_s * times_s,
                       atol=1e-9)


@pytest.mark.parametrize("name", ["ap", "apcr", "he"])
def test_a_bots_lead_time_is_the_flights_own_time_to_the_range(config, name):
    """The closed form a leading bot uses (drag alone along a flat path) against the
    stepped flight, for every shipped shell out to 2 km (distance over muzzle velocity
    falls 15 to 21 % short there)."""
    shell = config.shells.shells[name]
    flight = Flight(9.81, shell.drag_per_m(config.shells.air.density_kg_m3), 1.0 / 120.0)
    speed_mps = shell.muzzle_velocity_mps
    for distance_m in (100.0, 500.0, 1000.0, 1500.0, 2000.0):
        flown = flight_to_distance(np.zeros(3), np.array([0.0, speed_mps, 0.0]), flight,
                                   distance_m, 30.0)
        assert flown is not None
        assert flight.time_to_m(distance_m, speed_mps) == pytest.approx(flown[0], rel=0.01)
    assert Flight(9.81, 0.0, 0.01).time_to_m(900.0, 900.0) == 1.0


def test_the_elevation_to_reach_lands_there_with_drag_and_above_the_airless_one():
    flight = Flight(gravity_m_s2=9.81, drag_per_m=1.6e-4, step_s=1.0 / 120.0)
    for distance_m, rise_m in ((300.0, 0.0), (1000.0, -2.5), (2000.0, 10.0)):
        elevation = elevation_to_reach(distance_m, rise_m, 925.0, flight, 10.0)
        assert elevation > airless_elevation(distance_m, rise_m, 925.0, 9.81)
        velocity = 925.0 * np.array([0.0, math.cos(elevation), math.sin(elevation)])
        _, there, _ = flight_to_distance(np.zeros(3), velocity, flight, distance_m, 10.0)
        assert there[2] == pytest.approx(rise_m, abs=0.01)
    assert elevation_to_reach(50_000.0, 0.0, 925.0, flight, 10.0) is None


# ----- the shells in Bullet ---------------------------------------------------------------

def test_a_gun_fires_its_loaded_shell_and_bullet_flies_the_pure_flight(config):
    specs = steady_config(config)
    simulation, tank = gunner_on_flat(specs)
    lay_for(simulation, tank, 600.0, 0.0)
    combat = simulation.combat
    loaded = combat.loaded_shell(tank)
    assert loaded is config.shells.shells[config.tank.gun.ammunition[0].shell]
    muzzle, barrel = gun_axes(tank.current, tank.spec.gun, tank.aim)
    launch = launch_velocity_ws(tank.current, muzzle, barrel, loaded.muzzle_velocity_mps)
    simulation.step(others={GUNNER: Controls(brake=1.0, fire=True)})
    (shell,) = simulation.shells
    assert shell.spec is loaded and shell.radius_m == pytest.approx(loaded.calibre_mm / 2000.0)
    assert shell.body.getMass() == pytest.approx(loaded.mass_kg)
    flight = combat.flight_of(loaded)
    assert flight.drag_per_m == pytest.approx(
        loaded.drag_per_m(config.shells.air.density_kg_m3))
    for step in range(1, 45):
        expected, _ = flight_points(muzzle, launch, flight, np.array([step / 60.0]))
        assert np.linalg.norm(shell.position_ws - expected[0]) < 1e-3, step
        simulation.step(others={GUNNER: Controls(brake=1.0)})
    speed_mps = float(np.linalg.norm(shell.velocity_ws))
    assert speed_mps < loaded.muzzle_velocity_mps * 0.95  # it slowed over 700 m
    simulation.destroy()


@pytest.mark.parametrize("shell_name", ["ap", "apcr", "he"])
def test_with_drag_the_crosshair_is_within_half_a_metre_of_the_landing_at_1000_m(config,
                                                                                  shell_name):
    """Fired across the flat map at the ground 1 km off: at that grazing angle a shell
    lands metres from where its centre would meet the ground, so this holds only as the
    crosshair flies the shell's drag and its radius as the shell does."""
    simulation, tank = gunner_on_flat(loaded_as(steady_config(config), shell_name))
    muzzle = gun_axes(tank.current, tank.spec.gun, tank.aim)[0]
    lay_for(simulation, tank, FAR_M, float(simulation.terrain.height_at(0.0, 0.0)) - muzzle[2])
    predicted = simulation.predicted_impact(tank)
    assert predicted is not None
    assert np.linalg.norm(predicted[:2] - muzzle[:2]) == pytest.approx(FAR_M, abs=10.0)
    hit = fire_and_land(simulation)
    assert hit.target == "terrain"
    assert np.linalg.norm(np.array(hit.point) - predicted) < CROSSHAIR_WITHIN_M
    simulation.destroy()


def test_the_crosshair_on_a_plate_1000_m_off_is_where_the_shell_strikes_it(config):
    simulation, tank = gunner_on_flat(steady_config(config))
    muzzle, barrel = gun_axes(tank.current, tank.spec.gun, tank.aim)
    across = barrel[:2] / np.linalg.norm(barrel[:2])
    centre = np.array([*(muzzle[:2] + across * FAR_M), muzzle[2]])
    plate = Plate("far-plate", centre, (3.0, 0.05, 3.0))
    simulation.world.add_body(make_plate_body(plate.name, centre, plate.half_extents_m),
                              owner=plate)
    lay_for(simulation, tank, FAR_M, 0.0)
    predicted = simulation.predicted_impact(tank)
    hit = fire_and_land(simulation)
    assert hit.target == plate.name
    assert np.linalg.norm(np.array(hit.point) - predicted) < CROSSHAIR_WITHIN_M
    assert hit.point[2] == pytest.approx(muzzle[2], abs=0.1)  # laid on it, drag and all
    simulation.destroy()


class _Recoiling:
    """A firing body that notes the impulses it is given."""

    def __init__(self):
        self.impulses = []

    def applyImpulse(self, impulse, point) -> None:  # noqa: N802 (Bullet's name)
        self.impulses.append(np.array(impulse))


def test_the_recoil_is_the_loaded_shells_momentum(config):
    simulation, tank = gunner_on_flat(steady_config(config))
    combat = simulation.combat
    for name, shell in config.shells.shells.items():
        body = _Recoiling()
        combat.shell_system.fire(tank, body, tank.current, tank.spec.gun, shell, tank.aim,
                                 simulation.time_s, np.random.default_rng(0))
        (impulse,) = body.impulses
        assert np.linalg.norm(impulse) == pytest.approx(shell.mass_kg
                                                        * shell.muzzle_velocity_mps), name
        assert combat.shells[-1].spec is shell
    simulation.destroy()
