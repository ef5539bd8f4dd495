"""The step loop: controls, one fixed step, telemetry, then the listeners, step after step.

Headless runs, the benchmarks and the soak call :meth:`StepLoop.run` (as fast as the
machine steps, no listeners); the window calls :meth:`StepLoop.advance` once a frame and
the fixed-step clock says how many steps are due, with the views, effects and sounds
listening to each step's events. Either way every step is the same:

1. the player's controls (a script, a replay, the devices, a bot brain) and any other
   local player's;
2. the replay recorder keeps the player's controls;
3. :meth:`Simulation.step`;
4. the telemetry writer writes the step's record;
5. every listener gets the step's events.
"""

from __future__ import annotations

from typing import Callable

from game.sim.controls import Controls
from game.sim.events import Event
from game.sim.session import GameSession
from game.sim.simulation import IDLE, Simulation
from game.sim.telemetry import TelemetryWriter, telemetry_record
from physics.model.stepping import FixedStepClock

PlayerControls = Callable[[Simulation], Controls]
"""The player's controls for the step about to be taken."""
OtherControls = Callable[[Simulation], dict[str, Controls]]
"""Other people's controls by vehicle name (local player 2)."""
Listener = Callable[[list[Event]], None]


def idle(_simulation: Simulation) -> Controls:
    """No hands on the controls."""
    return IDLE


class StepLoop:
    """Steps one session's simulation and hands each step's events on
    (:class:`~game.sim.interfaces.FrameLoop`)."""

    def __init__(self, session: GameSession, player: PlayerControls = idle, *,
                 others: OtherControls | None = None, telemetry: TelemetryWriter | None = None):
        self.session = session
        self.simulation = session.simulation
        self._player = player
        self._others = others
        self.telemetry = telemetry
        self._listeners: list[Listener] = []
        self.clock = FixedStepClock(self.simulation.step_s,
                                    session.specs.world.simulation.max_steps_per_frame)
        self.last_controls = IDLE
        """The player's controls in the last step taken."""

    def subscribe(self, listener: Listener) -> None:
        """Call ``listener(events)`` after every step."""
        self._listeners.append(listener)

    def step(self) -> list[Event]:
        """Take one fixed step; return its events."""
        simulation = self.simulation
        controls = self._player(simulation)
        others = self._others(simulation) if self._others is not None else None
        recorder = self.session.recorder
        if recorder is not None:
            recorder.record(simulation.world.step_count, controls)
        events = simulation.step(controls, others)
        self.last_controls = controls
        if self.telemetry is not None:
            self.telemetry.write(telemetry_record(simulation, events))
        for listener in self._listeners:
            listener(events)
        return events

    def run(self, steps: int) -> None:
        """Take ``steps`` steps one after another (a headless run)."""
        for _ in range(steps):
            self.step()

    def run_for(self, seconds: float) -> None:
        """Take the steps of ``seconds`` of simulated time."""
        self.run(round(seconds * self.simulation.world.spec.step_hz))

    def advance(self, frame_s: float) -> int:
        """A rendered frame of ``frame_s`` went by: take the steps due; return how many."""
        steps = self.clock.advance(frame_s)
        for _ in range(steps):
            self.step()
        return steps

    @property
    def elapsed_s(self) -> float:
        """Simulated time since the game began."""
        return self.simulation.time_s

    @property
    def alpha(self) -> float:
        """How far the present lies between the last step and the next, in [0, 1)."""
        return self.clock.alpha

    @property
    def gone(self) -> None:
        """A local game has no server to lose (a network client's loop says why its game
        ended)."""
        return None
