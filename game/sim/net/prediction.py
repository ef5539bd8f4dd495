"""Client-side prediction of the player's own vehicle, reconciled with the server's.

The client steps its own vehicle at once with its own controls, in its own copy of the
world (the same model, map and seed as the server's), a few steps ahead of the server.
After every step it keeps what it predicted (:class:`Moment`: the body's state and what
the fleet carries over). When a snapshot brings the server's state of that vehicle after
some step, it is compared with the prediction for the same step; if they differ by more
than ``correction_m`` (or ``correction_mps``) the client rewinds: it sets that step's
moment back with the server's body state, and replays its controls of every step since.

The replayed present usually differs a little from what was drawn: the difference is
kept as an offset of the drawn pose that halves every ``smoothing_half_life_s``, so a
correction shows as a glide, not a jump (one beyond ``snap_m`` is shown at once).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from game.sim.controls import Controls
from game.sim.events import Event
from game.sim.net.snapshots import OwnState
from game.sim.net.spec import NetSpec
from game.sim.simulation import Simulation
from physics.bullet.poses import set_state
from physics.model.pose import BodyState


@dataclass(frozen=True)
class Moment:
    """The own vehicle after one step: its body and what its fleet carries over."""

    state: BodyState
    fleet_state: tuple
    lever: str | None
    turret_heading_rad: float
    gun_elevation_rad: float
    aim_circle_rad: float


class OwnPrediction:
    """Steps, remembers, rewinds and replays the player's vehicle."""

    def __init__(self, simulation: Simulation, net: NetSpec, step_hz: int):
        self.simulation = simulation
        self.net = net
        self.keep_steps = round(net.history_s * step_hz)
        self._moments: OrderedDict[int, Moment] = OrderedDict()
        self._controls: OrderedDict[int, Controls] = OrderedDict()
        self.offset_ws = np.zeros(3)
        """Added to the predicted position where the vehicle is drawn; fades to zero."""
        self._fade = 0.5 ** (1.0 / (net.smoothing_half_life_s * step_hz))

    @property
    def vehicle(self):
        return self.simulation.player

    def place(self, server: OwnState) -> None:
        """Put the vehicle where the server has it (joining)."""
        vehicle = self.vehicle
        self._set_body(server)
        vehicle.fleet.recover(vehicle.index)
        self.offset_ws = np.zeros(3)

    def _set_body(self, server: OwnState) -> None:
        """The vehicle's body moving as the server has it, with no step between to blend."""
        vehicle = self.vehicle
        set_state(vehicle.body, server.position_ws, server.orientation_ws, server.velocity_ws,
                  server.angular_velocity_ws)
        vehicle.fleet.disturbed()
        vehicle.record_state()
        vehicle.previous = vehicle.current

    def start(self, tick: int) -> None:
        """Begin at ``tick`` (the world's step count follows the server's ticks)."""
        self._moments.clear()
        self._controls.clear()
        self.simulation.world.step_count = tick
        self._remember(tick)

    def step(self, tick: int, controls: Controls) -> list[Event]:
        """Predict step ``tick`` (the one after the last) with the player's controls."""
        self._controls[tick] = controls
        events = self.simulation.step(controls)
        self._remember(tick)
        self.offset_ws *= self._fade
        return events

    def _remember(self, tick: int) -> None:
        vehicle = self.vehicle
        aim = vehicle.aim
        self._moments[tick] = Moment(vehicle.current, vehicle.fleet.vehicle_state(vehicle.index),
                                     vehicle.lever, aim.turret_heading_rad if aim else 0.0,
                                     aim.elevation_rad if aim else 0.0,
                                     aim.aim_circle_rad if aim else 0.0)
        while len(self._moments) > self.keep_steps:
            self._moments.popitem(last=False)
        while len(self._controls) > self.keep_steps:
            self._controls.popitem(last=False)

    def reconcile(self, tick: int, server: OwnState) -> bool:
        """The server's state of the own vehicle after step ``tick``: rewind and replay if
        the prediction for that step is off. True when it was."""
        moment = self._moments.get(tick)
        if moment is None:
            return False
        position = np.array(server.position_ws)
        velocity = np.array(server.velocity_ws)
        if (np.linalg.norm(position - moment.state.position_ws) <= self.net.correction_m
                and np.linalg.norm(velocity - moment.state.velocity_ws)
                <= self.net.correction_mps):
            return False
        self._replay_from(tick, moment, server)
        return True

    def _replay_from(self, tick: int, moment: Moment, server: OwnState) -> None:
        vehicle = self.vehicle
        drawn_before = vehicle.current.position_ws + self.offset_ws
        latest = next(reversed(self._moments))
        self._restore(moment, server)
        self.simulation.world.step_count = tick
        self._trim_after(tick)
        self._remember(tick)
        for step in range(tick + 1, latest + 1):
            self.simulation.step(self._controls[step])  # its events were had the first time
            self._remember(step)
        offset = drawn_before - vehicle.current.position_ws
        self.offset_ws = offset if np.linalg.norm(offset) < self.net.snap_m else np.zeros(3)

    def _restore(self, moment: Moment, server: OwnState) -> None:
        vehicle = self.vehicle
        vehicle.fleet.set_vehicle_state(vehicle.index, moment.fleet_state)
        vehicle.lever = moment.lever
        if vehicle.aim is not None:
            vehicle.aim.turret_heading_rad = moment.turret_heading_rad
            vehicle.aim.elevation_rad = moment.gun_elevation_rad
            vehicle.aim.aim_circle_rad = moment.aim_circle_rad
        self._set_body(server)
        gearbox, index = vehicle.fleet.gearbox, vehicle.index
        if gearbox.gear_index[index] != server.gear_index:  # a shift the server refused
            gearbox.gear_index[index] = gearbox.target_index[index] = server.gear_index
            gearbox.shift_left_s[index] = 0.0

    def _trim_after(self, tick: int) -> None:
        for later in [step for step in self._moments if step > tick]:
            del self._moments[later]

    @property
    def drawn_position_ws(self) -> np.ndarray:
        return self.vehicle.current.position_ws + self.offset_ws
