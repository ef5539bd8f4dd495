"""The capture zone (``--mode zone``): a circle of desert that a side wins the round by
holding alone.

The zone is a :class:`~physics.bullet.triggers.TriggerVolume` round the player's side's
spawn: the player starts on it and the bots, coming in from their ring, must take it. A
vehicle still in the fight counts as inside while its centre is within the circle. Each
step, with one side alone inside, that side's hold grows (or, if the other side held it,
the other's hold shrinks first, down to nothing, before this side's begins); with both
sides inside the zone is contested and nothing changes; empty, the hold ebbs away. A hold
of ``capture_s`` captures the zone, and the round.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from common.spec import Spec, tuning
from game.sim.events import Event, ZoneEnter, ZoneLeave
from game.sim.vehicles import Vehicle
from physics.bullet.triggers import TriggerVolume

ZONE_MODE = "zone"
MODES = ("battle", ZONE_MODE)
"""What ends a round: ``battle``, a side destroyed; ``zone``, that or the zone captured."""


@dataclass(frozen=True)
class ZoneSpec(Spec):
    radius_m: float = tuning("the capture zone's radius", minimum=5.0, maximum=200.0)
    height_m: float = tuning("how far it reaches, half above and half below the ground at "
                             "its centre", minimum=10.0, maximum=500.0)
    capture_s: float = tuning("a side holding the zone alone this long wins the round",
                              minimum=1.0, maximum=600.0)
    release_s: float = tuning("left empty, a whole hold ebbs away in this long",
                              minimum=1.0, maximum=600.0)


class CaptureZone:
    """The zone at ``centre_xy`` and who holds it; ``side_of`` names a vehicle's side (None
    for what takes no side)."""

    def __init__(self, simulation, spec: ZoneSpec, centre_xy, side_of: Callable):
        self.spec = spec
        self.side_of = side_of
        x_m, y_m = (float(value) for value in centre_xy)
        self.centre_xy = (x_m, y_m)
        ground_m = float(simulation.terrain.height_at(x_m, y_m))
        self.volume = TriggerVolume(simulation.world, "capture-zone", (x_m, y_m, ground_m),
                                    spec.radius_m, spec.height_m, admit=self._counts,
                                    key=lambda vehicle: vehicle.name)
        self.holder: str | None = None
        """The side whose hold it is (None: nobody's)."""
        self.hold_s = 0.0
        self.contested = False

    def _counts(self, owner) -> bool:
        if not isinstance(owner, Vehicle) or owner.destroyed:
            return False
        if self.side_of(owner.name) is None:
            return False
        x_m, y_m = owner.current.position_ws[:2]
        return math.hypot(x_m - self.centre_xy[0], y_m - self.centre_xy[1]) <= self.spec.radius_m

    @property
    def share(self) -> float:
        """The hold as a share of a capture (0..1)."""
        return min(self.hold_s / self.spec.capture_s, 1.0)

    def sides_inside(self) -> set[str]:
        return {self.side_of(vehicle.name) for vehicle in self.volume.inside}

    def update(self, step_s: float) -> list[Event]:
        """One step: who came in and went out, and the hold brought up to date."""
        entered, left = self.volume.update()
        events: list[Event] = [ZoneLeave(vehicle.name, self.side_of(vehicle.name) or "")
                               for vehicle in left]
        events += [ZoneEnter(vehicle.name, self.side_of(vehicle.name)) for vehicle in entered]
        sides = self.sides_inside()
        self.contested = len(sides) > 1
        if len(sides) == 1:
            self._held_by(next(iter(sides)), step_s)
        elif not sides:
            self.hold_s = max(self.hold_s - step_s * self.spec.capture_s / self.spec.release_s,
                              0.0)
            if self.hold_s == 0.0:
                self.holder = None
        return events

    def _held_by(self, side: str, step_s: float) -> None:
        if self.holder in (None, side):
            self.holder = side
            self.hold_s += step_s
            return
        self.hold_s -= step_s  # the other side's hold goes first
        if self.hold_s <= 0.0:
            self.holder, self.hold_s = side, 0.0

    def captured_by(self) -> str | None:
        """The side that has captured the zone, if one has."""
        return self.holder if self.hold_s >= self.spec.capture_s else None

    def reset(self) -> list[Event]:
        """A round restarts: nobody holds it, and everybody who was inside has left."""
        self.holder, self.hold_s, self.contested = None, 0.0, False
        return [ZoneLeave(vehicle.name, self.side_of(vehicle.name) or "")
                for vehicle in self.volume.clear()]

    def destroy(self) -> None:
        self.volume.destroy()
