"""Headless runs: no window, no audio, as fast as the machine steps, then exit."""

from __future__ import annotations

from game.sim.controls import Controls, ScriptedInputs
from game.sim.simulation import Simulation
from game.sim.telemetry import TelemetryWriter, telemetry_record


def run_headless(simulation: Simulation, seconds: float, inputs: ScriptedInputs | None,
                 telemetry: TelemetryWriter | None) -> None:
    """Step ``simulation`` for ``seconds`` of simulated time."""
    steps = round(seconds * simulation.world.spec.step_hz)
    idle = Controls()
    for _ in range(steps):
        controls = inputs.controls_at(simulation.time_s) if inputs else idle
        events = simulation.step(controls)
        if telemetry is not None:
            telemetry.write(telemetry_record(simulation, events))
