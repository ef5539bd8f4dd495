"""What the server keeps of each connected client, and where a joining player starts."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from game.sim.controls import Controls
from game.sim.net.protocol import NO_TICK
from game.sim.vehicles import Vehicle

JOIN_SPOTS = 24
"""Places tried round the join ring."""


class RateMeter:
    """Bytes over the last second, counted per step."""

    def __init__(self, steps_per_second: int):
        self._counts = np.zeros(steps_per_second, dtype=np.int64)
        self._slot = 0

    def add(self, count: int) -> None:
        self._counts[self._slot] += count

    def next_step(self) -> None:
        self._slot = (self._slot + 1) % len(self._counts)
        self._counts[self._slot] = 0

    @property
    def per_second(self) -> int:
        return int(self._counts.sum())


@dataclass
class ClientSlot:
    """One connected peer: before its hello, only when it connected; after, its player."""

    peer: int
    heard_s: float
    name: str | None = None
    vehicle: Vehicle | None = None
    vehicle_id: int = -1
    inputs: dict[int, Controls] = field(default_factory=dict)
    """Controls by the step they are for, not yet taken."""
    last_controls: Controls = field(default_factory=Controls)
    ack_tick: int = NO_TICK
    echo: tuple[int, float] | None = None
    """The newest inputs' ``sent_ms`` and when they arrived (for the client's ping)."""
    ping_ms: int = 0
    margin: int | None = None
    """How many steps early inputs arrived, at worst, since the last snapshot."""
    malformed: int = 0
    messages: float = 0.0
    """A leaky bucket of messages: drains by ``messages_per_step_most`` a step."""
    bytes_in: RateMeter | None = None
    bytes_out: RateMeter | None = None


def join_spot(simulation, ring_m: float) -> tuple[float, float, float]:
    """Where a player joins (x, y, heading): on a ring round the map's spawn point, as far
    as it allows from every vehicle and rock, facing the centre."""
    centre_x, centre_y = simulation.arena.spawn_points[0]
    terrain = simulation.terrain
    margin = simulation.specs.rocks.edge_clearance_m
    radius = min(ring_m, min(terrain.half_extent_x_m, terrain.half_extent_y_m) - margin)
    others = [vehicle.current.position_ws[:2] for vehicle in simulation.vehicles]
    others += [rock.position_ws[:2] for rock in simulation.rocks]
    best, best_gap = np.array([centre_x, centre_y]), -1.0
    for number in range(JOIN_SPOTS):
        angle = 2.0 * math.pi * number / JOIN_SPOTS
        spot = np.array([centre_x + radius * math.sin(angle),
                         centre_y + radius * math.cos(angle)])
        gap = min((float(np.linalg.norm(spot - other)) for other in others),
                  default=math.inf)
        if gap > best_gap:
            best, best_gap = spot, gap
    heading = math.degrees(math.atan2(centre_x - best[0], centre_y - best[1]))
    return float(best[0]), float(best[1]), heading
