"""The three tank classes (config/tanks/) driven through the handling scenarios, each by
its own figures: it settles on its springs, pivots, plateaus at each gear's top speed, and
the light one gets away quickest, the heavy one slowest."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from game.config import load_config
from game.sim.controls import Controls
from game.sim.simulation import Simulation
from physics.model.terrain import MapChoice

KMH = 3.6
CLASSES = ("light", "medium", "heavy")
PLATEAU_WITHIN = 0.05
"""A gear's plateau is its top speed within this share (DESIGN.md: +-5 %)."""
STEADY_KMH_S = 0.1
"""Speed within this over the last second: the plateau is reached."""
GEAR_MOST_S = 60.0
"""The longest any gear may take to plateau from the one below."""


@pytest.fixture(scope="module")
def config():
    return load_config()


def class_specs(config, name: str, **spawn_changes):
    """The world's specs with ``name`` the player's tank class."""
    spawn = dataclasses.replace(config.game.spawn, tank=name, **spawn_changes)
    game = dataclasses.replace(config.game, spawn=spawn)
    return dataclasses.replace(config, game=game).world


def run(simulation: Simulation, seconds: float, controls: Controls = Controls()) -> list:
    states = []
    for _ in range(round(seconds / simulation.step_s)):
        simulation.step(controls)
        states.append(simulation.player.current)
    return states


def rest_lift_m(tank) -> float:
    """Centre of mass above flat ground at ride height."""
    return tank.suspension.ride_height_m - float(np.mean([a.z_m for a in tank.suspension.anchors]))


@pytest.mark.parametrize("name", CLASSES)
def test_each_class_settles_at_its_ride_height_after_a_drop(config, name):
    tank = config.tanks[name]
    simulation = Simulation(class_specs(config, name, drop_height_m=1.0), MapChoice("flat"), 1)
    assert simulation.player.tank_class == name and simulation.player.spec is tank
    heights = np.array([state.position_ws[2] for state in run(simulation, 4.0)])
    offset = heights - rest_lift_m(tank)
    settled = next(i for i in range(len(offset)) if np.all(np.abs(offset[i:]) < 0.02))
    assert settled * simulation.step_s <= 2.0
    rebounds = [i for i in range(1, len(offset) - 1) if offset[i] > 0.01
                and offset[i] > offset[i - 1] and offset[i] >= offset[i + 1]]
    assert len(rebounds) <= 1
    loads = sum(anchor["load"] for anchor in simulation.player.anchor_reports())
    assert loads == pytest.approx(tank.hull.mass_kg * config.game.simulation.gravity_m_s2,
                                  rel=0.01)
    simulation.destroy()


def pivot_rate_deg_s(config, name: str) -> float:
    """How fast the tank turns on the spot at full stick, no throttle (and it stays put)."""
    simulation = Simulation(class_specs(config, name), MapChoice("flat"), 1)
    run(simulation, 1.0)
    start = simulation.player.current
    states = run(simulation, 5.0, Controls(steer=1.0))
    headings = np.unwrap(np.radians([start.heading_pitch_roll_deg()[0]]
                                    + [state.heading_pitch_roll_deg()[0] for state in states]))
    moved_m = float(np.linalg.norm(states[-1].position_ws[:2] - start.position_ws[:2]))
    simulation.destroy()
    assert moved_m < 1.5
    return math.degrees(headings[-1] - headings[0]) / 5.0


def test_every_class_pivots_on_the_spot_the_light_quickest(config):
    rates = {name: pivot_rate_deg_s(config, name) for name in CLASSES}
    assert all(rate > 15.0 for rate in rates.values()), rates  # a quarter turn in 6 s
    assert rates["light"] > rates["medium"] > rates["heavy"], rates


@pytest.mark.parametrize("name", CLASSES)
def test_each_gear_plateaus_at_its_top_speed_rising_gear_by_gear(config, name):
    """From rest in first, at full throttle, shifting up once each gear has levelled off:
    each plateau is the gear's top speed (the redline's), each higher than the last."""
    gearbox = config.tank_gearboxes[name]
    simulation = Simulation(class_specs(config, name), MapChoice("flat"), 1)
    half_m = simulation.terrain.half_extent_y_m
    simulation.place(simulation.player, 0.0, -half_m + 20.0, 0.0)  # the whole map ahead
    plateaus = []
    per_second = round(1.0 / simulation.step_s)
    for gear in [g for g in gearbox.gears if g.name != "R"]:
        speeds = []
        for _ in range(round(GEAR_MOST_S / simulation.step_s)):
            simulation.step(Controls(throttle=1.0, gear=gear.name))
            speeds.append(simulation.player.current.forward_speed_mps() * KMH)
            if (len(speeds) > per_second and simulation.player.gear == gear.name
                    and np.ptp(speeds[-per_second:]) < STEADY_KMH_S):
                break
        plateaus.append(speeds[-1])
        assert speeds[-1] == pytest.approx(gear.top_speed_kmh, rel=PLATEAU_WITHIN), gear
    assert all(later > earlier for earlier, later in zip(plateaus, plateaus[1:]))
    simulation.destroy()


def zero_to_30_kmh_s(config, name: str) -> float:
    """Seconds from standing to 30 km/h at full throttle, the automatic gearbox shifting."""
    simulation = Simulation(class_specs(config, name, start_gear="A"), MapChoice("flat"), 1)
    run(simulation, 1.0)
    started_s = simulation.time_s
    for _ in range(round(40.0 / simulation.step_s)):
        simulation.step(Controls(throttle=1.0))
        if simulation.player.current.forward_speed_mps() * KMH >= 30.0:
            break
    taken_s = simulation.time_s - started_s
    simulation.destroy()
    return taken_s


def test_the_light_tank_gets_to_30_kmh_first_and_the_heavy_one_last(config):
    """Power to weight decides it: 15.9 kW/t, 11.4 kW/t and 7.4 kW/t."""
    times = {name: zero_to_30_kmh_s(config, name) for name in CLASSES}
    assert times["light"] < times["medium"] < times["heavy"] < 40.0, times


@pytest.mark.parametrize("name", CLASSES)
def test_each_class_parks_on_20_degrees_and_climbs_25_in_first(config, name):
    simulation = Simulation(class_specs(config, name), MapChoice.parse("slope:20"), 1)
    hold = Controls(brake=1.0)
    run(simulation, 2.0, hold)
    start = simulation.player.current.position_ws
    assert np.linalg.norm(run(simulation, 10.0, hold)[-1].position_ws - start) < 0.01
    simulation.destroy()
    simulation = Simulation(class_specs(config, name), MapChoice.parse("slope:25"), 1)
    first_kmh = next(g.top_speed_kmh for g in config.tank_gearboxes[name].gears if g.name == "1")
    states = run(simulation, 15.0, Controls(throttle=1.0, gear="1"))
    assert states[-1].position_ws[2] - states[0].position_ws[2] > 2.0
    assert states[-1].forward_speed_mps() * KMH == pytest.approx(first_kmh, rel=PLATEAU_WITHIN)
    simulation.destroy()


def test_the_bots_take_the_classes_in_turn(config):
    from game.sim.battle import Battle
    simulation = Simulation(config.world, MapChoice("desert"), 1)
    battle = Battle(simulation, config.game.battle, config.game.ai, 4)
    classes = [simulation.vehicle_named(name).tank_class for name in battle.bots]
    turn = config.game.battle.bot_tanks
    assert classes == [turn[number % len(turn)] for number in range(4)]
    assert set(classes) == set(CLASSES)
    for name in battle.bots:  # each drives in the tanks' fleet, as its own class
        bot = simulation.vehicle_named(name)
        assert bot.fleet is simulation.tanks
        assert bot.fleet.kind_of(bot.index).spec == config.world.tanks[bot.tank_class]
        assert bot.spec == config.world.tanks[bot.tank_class]
    simulation.destroy()
