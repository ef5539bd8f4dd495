"""The drivetrain felt through the whole simulation: the engine's speed comes back from the
tracks (a pivot revs it, tracks spinning on slick sand rev it, gripping ones hold it to the
ground speed), the clutch slips pulling away and then locks, a tank in gear slows on its
engine's drag where one in neutral rolls on, and one left in gear on a slope is held."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from game.sim.controls import Controls
from game.sim.simulation import Simulation
from physics.model.engine import RPM_PER_RAD_S
from physics.model.terrain import MapChoice

SLICK_SAND_GRIP = 0.2
"""Sand this slick cannot take a tank's first-gear pull: the tracks spin."""
SLIPPING_RPM = 300.0
"""The engine this far ahead of the speed the ground turns the tracks at: they spin, or the
clutch slips."""
LOCKED_SHARE = 0.02
"""The engine within this share of the ground speed's rpm: clutch locked, tracks gripping."""


def tank_simulation(config, surface: str = "hardpan", gear: str = "1",
                    sand_grip: float | None = None, map_name: str = "flat") -> Simulation:
    """The player's tank alone on a flat map of one ``surface``, in ``gear``."""
    game = config.game
    surfaces = tuple(dataclasses.replace(spec, grip_scale=sand_grip)
                     if spec.name == "sand" and sand_grip is not None else spec
                     for spec in game.terrain.surfaces)
    terrain = dataclasses.replace(game.terrain, surfaces=surfaces,
                                  test_maps=dataclasses.replace(game.terrain.test_maps,
                                                                surface=surface))
    game = dataclasses.replace(game, terrain=terrain,
                               spawn=dataclasses.replace(game.spawn, start_gear=gear))
    simulation = Simulation(dataclasses.replace(config, game=game).world,
                            MapChoice.parse(map_name), seed=1)
    run(simulation, 1.0, Controls())  # settled on its springs, the gear in
    return simulation


def run(simulation: Simulation, seconds: float, controls: Controls) -> list[tuple[float, float]]:
    """Step for ``seconds``; after each step the engine's rpm and the rpm the tank's ground
    speed turns it at through the engaged gear."""
    player = simulation.player
    gearbox = player.fleet.gearbox
    radius_m = player.fleet.spec.tracks.sprocket_radius_m
    rows = []
    for _ in range(round(seconds / simulation.step_s)):
        simulation.step(controls)
        ratio = gearbox.kind_of(player.index).overall_ratios[gearbox.gear_index[player.index]]
        ground_rpm = abs(player.current.forward_speed_mps()) / radius_m * ratio * RPM_PER_RAD_S
        rows.append((player.rpm, ground_rpm))
    return rows


@pytest.mark.parametrize("gear", ["N", "1"])
def test_a_pivot_at_full_stick_revs_the_engine_above_idle(config, gear):
    simulation = tank_simulation(config, gear=gear)
    idle_rpm = config.tank_gearbox.idle_rpm
    rows = run(simulation, 3.0, Controls(steer=1.0))
    engine = np.array([rpm for rpm, _ in rows[-60:]])
    assert engine.min() > idle_rpm + 500.0  # the steer unit holds it up
    assert engine.max() < config.tank_gearbox.redline_rpm
    rows = run(simulation, 3.0, Controls())
    assert rows[-1][0] == pytest.approx(idle_rpm, rel=0.05)  # stick back: idle again
    simulation.destroy()


def test_tracks_spinning_on_slick_sand_rev_the_engine_and_gripping_ones_do_not(config):
    slick = tank_simulation(config, "sand", "1", sand_grip=SLICK_SAND_GRIP)
    gripping = tank_simulation(config, "hardpan", "1")
    full = Controls(throttle=1.0)
    spun, held = run(slick, 4.0, full), run(gripping, 4.0, full)
    assert slick.player.anchors().sliding.any()
    assert all(rpm > ground + SLIPPING_RPM for rpm, ground in spun[-60:])
    assert all(rpm == pytest.approx(ground, rel=LOCKED_SHARE) for rpm, ground in held[-60:])
    for simulation in (slick, gripping):
        simulation.destroy()


def test_pulling_away_the_clutch_slips_then_locks(config):
    simulation = tank_simulation(config, gear="1")
    rows = run(simulation, 3.0, Controls(throttle=1.0))
    bite = config.tank_gearbox.clutch.bite_rpm
    slipping = [rpm > ground + SLIPPING_RPM for rpm, ground in rows]
    assert any(slipping[:30])  # the engine runs ahead of the tracks
    assert max(rpm for rpm, _ in rows[:30]) > bite
    assert all(rpm == pytest.approx(ground, rel=LOCKED_SHARE) for rpm, ground in rows[-30:])
    simulation.destroy()


def test_in_gear_the_engine_brakes_and_in_neutral_the_tank_rolls(config):
    speeds = {}
    for gear in ("3", "N"):
        simulation = tank_simulation(config, gear="3")
        run(simulation, 8.0, Controls(throttle=1.0))
        start_mps = simulation.player.current.forward_speed_mps()
        rows = run(simulation, 3.0, Controls(gear=gear))
        speeds[gear] = simulation.player.current.forward_speed_mps()
        assert speeds[gear] < start_mps
        if gear == "3":
            assert rows[-1][0] == pytest.approx(rows[-1][1], rel=LOCKED_SHARE)  # turned by the tracks
        else:
            assert rows[-1][0] == pytest.approx(config.tank_gearbox.idle_rpm, rel=0.05)
        simulation.destroy()
    assert speeds["3"] < speeds["N"] - 0.3


def test_left_in_gear_on_a_slope_the_hill_hold_keeps_it_and_the_throttle_pulls_away(config):
    simulation = tank_simulation(config, gear="1", map_name="slope:15")
    start = simulation.player.current.position_ws.copy()
    run(simulation, 5.0, Controls())
    assert np.linalg.norm(simulation.player.current.position_ws - start) < 0.05
    run(simulation, 3.0, Controls(throttle=1.0))
    assert simulation.player.current.forward_speed_mps() > 1.0
    simulation.destroy()


def _turn_at_speed(config, steer: float) -> tuple[float, float]:
    """Full throttle for 8 s, then 5 s more with ``steer``: the degrees it turned in those
    5 s and its speed at the end (km/h)."""
    simulation = tank_simulation(config, gear="A")
    run(simulation, 8.0, Controls(throttle=1.0, gear="A"))
    turned_deg, previous = 0.0, simulation.player.current.heading_pitch_roll_deg()[0]
    for _ in range(5 * 60):
        simulation.step(Controls(throttle=1.0, steer=steer, gear="A"))
        heading = simulation.player.current.heading_pitch_roll_deg()[0]
        turned_deg += (heading - previous + 180.0) % 360.0 - 180.0
        previous = heading
    speed_kmh = simulation.player.current.forward_speed_mps() * 3.6
    simulation.destroy()
    return turned_deg, speed_kmh


def test_steering_while_driving_turns_by_the_stick_and_keeps_going(config):
    """The steer unit turns the tracks apart and the engine's pull goes to both: a little
    stick a gentle curve, more a tighter one, and the tank keeps its speed (the tracks do
    not pull against each other with the engine's force)."""
    turns = {steer: _turn_at_speed(config, steer) for steer in (0.1, 0.3, -0.3)}
    gentle, firmer, left = turns[0.1], turns[0.3], turns[-0.3]
    assert 5.0 < gentle[0] < firmer[0]  # right steer turns right (heading grows)
    assert left[0] == pytest.approx(-firmer[0], rel=0.1)
    for _, speed_kmh in turns.values():
        assert speed_kmh > 30.0
