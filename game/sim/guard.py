"""The physics guard: one bad step must not take the world down.

After every step each vehicle keeps its state (each fleet's read in one pass). A body
whose state went non-finite, whose anchor maths faulted, or that fell through the
ground is set back on the ground where it last was well, and a ``recovered`` event says
so.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from game.sim.events import Event, Recovered
from game.sim.vehicles import Vehicle
from physics.bullet.fleet import VehicleFleet
from physics.model.terrain import TerrainBase

Place = Callable[[Vehicle, float, float, float], None]
"""Sets a vehicle upright on the ground at (x, y), still, facing a heading."""

NON_FINITE = "non-finite state"
BELOW_GROUND = "below the ground"
"""The reasons a :class:`Recovered` event gives."""


class PhysicsGuard:
    """Reads every vehicle's state after a step and recovers the broken ones."""

    def __init__(self, terrain: TerrainBase, below_ground_limit_m: float, place: Place):
        self.terrain = terrain
        self.below_ground_limit_m = below_ground_limit_m
        self.place = place

    def record_and_guard(self, vehicles: list[Vehicle], fleets: list[VehicleFleet]
                         ) -> list[Event]:
        """Every vehicle keeps its state at the end of the step; broken ones are recovered."""
        read = {}
        for fleet in fleets:
            if len(fleet):
                poses = fleet.poses()
                where_xy = poses.rows[:, :2].T
                if np.count_nonzero(poses.finite) < len(poses.finite):
                    # A broken body's ground is not read.
                    where_xy = np.where(poses.finite, where_xy, 0.0)
                ground_m, _ = self.terrain.planes_at(where_xy)
                well = poses.finite & ~fleet.faulted
                below = poses.rows[:, 2] < ground_m - self.below_ground_limit_m
                read[fleet] = poses.states(), well.tolist(), below.tolist()
        events: list[Event] = []
        for vehicle in vehicles:
            states, well, below = read[vehicle.fleet]
            index = vehicle.index
            vehicle.record_state(states[index])
            if not well[index]:
                events.append(self.recover(vehicle, NON_FINITE))
            elif below[index]:
                events.append(self.recover(vehicle, BELOW_GROUND))
            else:
                vehicle.last_good = vehicle.current
        return events

    def recover(self, vehicle: Vehicle, reason: str) -> Recovered:
        """Set a vehicle back on the ground where it last was well."""
        good = vehicle.last_good
        heading = good.heading_pitch_roll_deg()[0] if np.all(np.isfinite(
            good.orientation_ws)) else 0.0
        x_m, y_m = np.clip(good.position_ws[:2], -self.terrain.half_extent_x_m,
                           self.terrain.half_extent_x_m)
        self.place(vehicle, float(x_m), float(y_m), heading)
        vehicle.last_good = vehicle.current
        return Recovered(vehicle.name, reason)
