"""Getting a bot off what holds it: a tank that asks to drive but neither moves nor turns
(wedged on a rock, its side against the map's edge, bogged on a dune's face) tries
something else for a while, steering as it wanted, and then drives as it wants again:
first the other way (off a rock, down a dune), the next time at full throttle the way it
wanted (a tank pivoting against a wall gets off it by driving round), and so on in turn.
Turning on the spot is slow, not stuck.

A bot that wants the other way than its gear drives brakes until its automatic gearbox
may change between R and the forward gears (:func:`brakes_to_turn_back`): the box holds
the pedal closed until then, and coasting, a tank backing off rolls on for seconds, into
whatever is behind it. In a gear that drives the way it wants (a tank sliding back down
a dune's face in first) it drives on."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

from common.spec import Spec, tuning


@dataclass(frozen=True)
class StuckSpec(Spec):
    below_mps: float = tuning("a bot that asks to drive but moves slower than this ...",
                              minimum=0.0, maximum=20.0)
    turning_below_deg_s: float = tuning("... and turns slower than this ...", minimum=0.0,
                                        maximum=360.0)
    after_s: float = tuning("... for this long is stuck", minimum=0.1, maximum=60.0)
    back_off_s: float = tuning("a stuck bot tries something else for this long",
                               minimum=0.1, maximum=60.0)

    @cached_property
    def turning_below_rad_s(self) -> float:
        return math.radians(self.turning_below_deg_s)


class Unsticker:
    """Watches one bot's drive and turns it round when it has been stuck."""

    def __init__(self, spec: StuckSpec):
        self.spec = spec
        self._slow_since_s: float | None = None
        """Since when the bot has asked to drive and neither moved nor turned (None: it
        moves or turns, or rests)."""
        self._back_off: tuple[float, float] | None = None
        """Until when it tries something else, and the throttle it tries."""
        self._times_stuck = 0

    def drive(self, time_s: float, speed_mps: float, turning_rad_s: float, throttle: float,
              steer: float) -> tuple[float, float]:
        """The throttle and steer to use: the wanted ones, or another throttle while getting
        off what holds it. ``speed_mps`` and ``turning_rad_s``: how fast it moves and turns
        now."""
        spec = self.spec
        if self._back_off is not None:
            until_s, direction = self._back_off
            if time_s < until_s:
                return direction, steer
            self._back_off = None
        if (throttle == 0.0 or abs(speed_mps) >= spec.below_mps
                or abs(turning_rad_s) >= spec.turning_below_rad_s):
            self._slow_since_s = None
            return throttle, steer
        if self._slow_since_s is None:
            self._slow_since_s = time_s
        if time_s - self._slow_since_s < spec.after_s:
            return throttle, steer
        self._slow_since_s = None
        wanted_way = math.copysign(1.0, throttle)
        self._back_off = (time_s + spec.back_off_s,
                          -wanted_way if self._times_stuck % 2 == 0 else wanted_way)
        self._times_stuck += 1
        return self._back_off[1], steer


def brakes_to_turn_back(throttle: float, speed_mps: float, vehicle) -> bool:
    """Whether a bot asking for ``throttle`` (+ forward) in ``vehicle`` moving at
    ``speed_mps`` along its hull brakes: it rolls as fast as its gearbox turns back at
    or faster, in a gear that drives the other way than it asks."""
    return (throttle != 0.0 and abs(speed_mps) >= vehicle.turn_back_below_mps
            and throttle * vehicle.gear_direction < 0.0)
