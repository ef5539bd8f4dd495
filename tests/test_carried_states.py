"""A step starts from the bodies' states as the guard read them at the last step's end
(:meth:`~physics.bullet.fleet.VehicleFleet.poses`), unless a body was moved since: the
same battle, bit for bit, as reading them afresh.

Between two steps a body is moved by a reset, a rescue, a spawn or a removal, a gun's
recoil and a network client's correction; each must make the next step read afresh
(:meth:`~physics.bullet.fleet.VehicleFleet.disturbed`). The battle here has them all
but the correction, which also winds the step count back (no step's end read later can
be taken then).
"""

from __future__ import annotations

import hashlib

import numpy as np

from bench.soak_watch import RandomDriver
from game.sim.controls import Controls
from game.sim.events import Reset, Shot
from game.sim.simulation import Simulation
from physics.bullet.fleet import VehicleFleet
from physics.model.terrain import MapChoice

STEPS = 360
SEED = 3
DRIVERS = (("tank", "east", 30.0, 10.0, 90.0), ("tank", "west", -30.0, -10.0, 270.0),
           ("car", "rover", 0.0, 40.0, 180.0))
"""Vehicles besides the player: kind, name, where (x, y) and heading."""


def battle_digest(config, seed: int) -> tuple[str, int, int]:
    """A battle's every state, step by step, and its shots and resets: drivers at random
    (firing half the time), a reset every 100 steps, a vehicle placed anew every 150, one
    spawned and one removed midway."""
    simulation = Simulation(config.world, MapChoice.parse("desert"), seed=seed)
    for kind, name, x_m, y_m, heading_deg in DRIVERS:
        simulation.spawn(kind, name, x_m, y_m, heading_deg)
    drivers = {vehicle.name: RandomDriver(seed + number, simulation.step_s)
               for number, vehicle in enumerate(simulation.vehicles)}
    digest = hashlib.sha256()
    shots = resets = 0
    for step in range(STEPS):
        if step == STEPS // 2:
            simulation.remove(simulation.vehicle_named("west"))
            simulation.spawn("tank", "late", -40.0, 20.0, 45.0)
            drivers["late"] = RandomDriver(seed + 99, simulation.step_s)
        if step % 150 == 75:
            simulation.place(simulation.vehicles[-1], 10.0 * (step // 150), -20.0, 30.0)
        controls = {vehicle.name: drivers[vehicle.name].controls_at(step)
                    for vehicle in simulation.vehicles}
        player = controls.pop(simulation.player.name)
        if step % 100 == 50:
            player = Controls(reset=True)
        events = simulation.step(player, controls)
        shots += sum(isinstance(event, Shot) for event in events)
        resets += sum(isinstance(event, Reset) for event in events)
        for vehicle in simulation.vehicles:
            state = vehicle.current
            for values in (state.position_ws, state.orientation_ws, state.velocity_ws,
                           state.angular_velocity_ws):
                digest.update(np.asarray(values, dtype=float).tobytes())
    simulation.destroy()
    return digest.hexdigest(), shots, resets


def test_a_step_starts_from_the_last_steps_read_exactly_as_from_a_fresh_one(config,
                                                                            monkeypatch):
    carried = battle_digest(config, SEED)
    assert carried[1] > 0 and carried[2] > 0  # recoil and resets between steps
    read = VehicleFleet.poses

    def forgetting(fleet):  # every step reads its bodies afresh
        poses = read(fleet)
        fleet.disturbed()
        return poses

    monkeypatch.setattr(VehicleFleet, "poses", forgetting)
    assert battle_digest(config, SEED) == carried
