"""Other players' (and bots') vehicles as a network client draws them: snapshot
interpolation.

Each :class:`RemoteVehicle` keeps the last second or so of its snapshots. Every client step
it is posed where the server had it at a render tick a little in the past (the client's
estimate of the server's tick, less ``interpolation_delay_snapshots`` snapshot intervals),
blended between the two snapshots either side; past the newest it carries on at its last
velocity for at most ``extrapolation_most_s``, then holds. It has no body in the client's
world: whether vehicles bump is the server's to say, and the correction glides in (a
kinematic stand-in, set down each step where it is drawn, lands overlapping one's own
vehicle now and then and flings it off, far worse). It reads like a
:class:`~game.sim.vehicles.Vehicle` to whoever draws it (pose, turret, gun, health).
"""

from __future__ import annotations

import bisect
import math
from typing import NamedTuple, Sequence

import numpy as np

from game.sim.net.snapshots import VehiclePose
from game.sim.part_damage import TankParts
from game.sim.vehicles import AnchorView
from physics.model.ballistics import GunState
from physics.model.pose import BodyState


def _state(position: Sequence[float], orientation: Sequence[float],
           velocity: Sequence[float]) -> BodyState:
    """A drawn state from plain numbers (the rows of its axes worked out here: numpy is
    slow on arrays this small)."""
    w, x, y, z = orientation
    axes = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y)],
                     [2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x)],
                     [2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)]])
    axes.setflags(write=False)
    return BodyState(np.array(position), np.array(orientation), np.array(velocity), _STILL, axes)


_STILL = np.zeros(3)
_STILL.setflags(write=False)
WHEEL_STATE_ROWS = 4
"""A wheel state's rows: compression, steer, spin angle and spin speed."""


def _angle_between(start: float, end: float, alpha: float) -> float:
    """``alpha`` of the way from one angle to another, the short way round."""
    turn = (end - start + math.pi) % (2.0 * math.pi) - math.pi
    return start + turn * alpha


def _blend(start: Sequence[float], end: Sequence[float], alpha: float) -> list[float]:
    return [a + (b - a) * alpha for a, b in zip(start, end)]


def _blend_orientation(start: Sequence[float], end: Sequence[float], alpha: float
                       ) -> list[float]:
    """Normalised linear blend of two unit quaternions, the short way round."""
    if sum(a * b for a, b in zip(start, end)) < 0.0:
        end = [-value for value in end]
    blended = _blend(start, end, alpha)
    scale = 1.0 / math.sqrt(sum(value * value for value in blended))
    return [value * scale for value in blended]


class _Shown(NamedTuple):
    """How a remote vehicle is drawn: its last two drawn states and the server tick the
    current one shows (fractional: between two snapshots, or carried on past the newest)."""

    previous: BodyState
    current: BodyState
    tick: float


class RemoteVehicle:
    """Another vehicle, drawn from snapshots."""

    def __init__(self, vehicle_id: int, name: str, kind: str, human: bool, fleet, terrain,
                 step_s: float, keep_snapshots: int, jump_mps: float = math.inf,
                 tank_class: str | None = None, parts: TankParts | None = None,
                 fleet_kind: int = 0):
        self.vehicle_id = vehicle_id
        self.name = name
        self.kind = kind
        self.tank_class = tank_class
        """A tank's class (its fleet here), None for the car."""
        self.human = human
        self.fleet = fleet
        """The client's fleet of that kind (never steps this one), in which it is of
        ``fleet_kind``: its spec and constants."""
        self.spec = fleet.kinds[fleet_kind].spec
        self.constants = fleet.kinds[fleet_kind].constants
        self.collider_reach_m = fleet.kinds[fleet_kind].collider_reach_m
        self._keep = keep_snapshots
        self._ticks: list[int] = []
        self._samples: list[VehiclePose] = []
        self._terrain = terrain
        self._anchors: tuple[BodyState, AnchorView] | None = None
        self._spin_angle_rad = 0.0
        self._step_s = step_s
        self.jump_mps = jump_mps
        """Between two snapshots faster than this, it was set down elsewhere (a round's
        start): shown where it was until the later one, then there, never slid between."""
        self._shown: _Shown | None = None
        """How it is drawn (None: not shown yet)."""
        self.aim = GunState() if hasattr(self.spec, "gun") else None
        """Where its gun points, as drawn (None: unarmed)."""
        self.health: float | None = None
        self.destroyed = False
        self.parts = parts
        """A tank's parts as the server last told (None: the car)."""
        self.gear = "N"
        self.rpm = 0.0

    def add(self, tick: int, pose: VehiclePose) -> None:
        """A snapshot's pose of this vehicle (snapshots come in order of tick)."""
        if self._ticks and tick <= self._ticks[-1]:
            return
        self._ticks.append(tick)
        self._samples.append(pose)
        if len(self._ticks) > self._keep:
            del self._ticks[0], self._samples[0]
        self.health, self.destroyed = pose.health, pose.destroyed
        if self.parts is not None and pose.parts and (
                pose.parts != self.parts.codes() or pose.on_fire != self.parts.on_fire):
            self.parts.show(pose.parts, self.parts.repair_left_s, pose.on_fire)

    def show(self, render_tick: float, step_s: float, extrapolation_most_s: float) -> None:
        """Pose it as the server had it at ``render_tick``."""
        if not self._ticks:
            return
        position, orientation, velocity, tick = self._pose_at(render_tick, step_s,
                                                              extrapolation_most_s)
        state = _state(position, orientation, velocity)
        previous = self._shown.current if self._shown is not None else state
        self._shown = _Shown(previous, state, tick)

    @property
    def posed(self) -> bool:
        """Whether it has been shown yet: only then is it drawn, and has a pose to read."""
        return self._shown is not None

    @property
    def current(self) -> BodyState:
        """Where it is drawn now (once :attr:`posed`)."""
        return self._shown_once().current

    @property
    def previous(self) -> BodyState:
        """Where it was drawn the step before (once :attr:`posed`)."""
        return self._shown_once().previous

    @property
    def shown_tick(self) -> float:
        """The (fractional) server tick the drawn pose shows (once :attr:`posed`)."""
        return self._shown_once().tick

    def _shown_once(self) -> _Shown:
        if self._shown is None:
            raise LookupError(f"{self.name} has not been shown yet: it has no pose")
        return self._shown

    def _pose_at(self, render_tick: float, step_s: float, extrapolation_most_s: float
                 ) -> tuple[Sequence[float], Sequence[float], Sequence[float], float]:
        """Position, orientation and velocity at ``render_tick``, and the (fractional)
        server tick they show: between the snapshots either side, or carried on past the
        newest; sets the gun's aim."""
        ticks, samples = self._ticks, self._samples
        later = bisect.bisect_right(ticks, render_tick)
        if later == 0 or len(ticks) == 1:  # before the oldest kept (or only one): hold it
            sample = samples[0] if later == 0 else samples[-1]
            self._aim(sample, sample, 0.0)
            return (sample.position_ws, sample.orientation_ws, [0.0, 0.0, 0.0],
                    float(ticks[0] if later == 0 else ticks[-1]))
        if later == len(ticks):  # past the newest: carry on at its speed, for a while
            start, end = samples[-2], samples[-1]
            span_s = (ticks[-1] - ticks[-2]) * step_s
            velocity = [(b - a) / span_s
                        for a, b in zip(start.position_ws, end.position_ws)]
            ahead_s = min((render_tick - ticks[-1]) * step_s, extrapolation_most_s)
            self._aim(end, end, 0.0)
            return ([a + v * ahead_s for a, v in zip(end.position_ws, velocity)],
                    end.orientation_ws, velocity, ticks[-1] + ahead_s / step_s)
        start, end = samples[later - 1], samples[later]
        span = ticks[later] - ticks[later - 1]
        alpha = (render_tick - ticks[later - 1]) / span
        velocity = [(b - a) / (span * step_s)
                    for a, b in zip(start.position_ws, end.position_ws)]
        if math.hypot(*velocity) > self.jump_mps:  # set down elsewhere: no slide across
            self._aim(start, start, 0.0)
            return (start.position_ws, start.orientation_ws, [0.0, 0.0, 0.0],
                    float(ticks[later - 1]))
        self._aim(start, end, alpha)
        return (_blend(start.position_ws, end.position_ws, alpha),
                _blend_orientation(start.orientation_ws, end.orientation_ws, alpha), velocity,
                float(render_tick))

    def _aim(self, start: VehiclePose, end: VehiclePose, alpha: float) -> None:
        if self.aim is None:
            return
        self.aim.turret_heading_rad = _angle_between(start.turret_heading_rad,
                                                     end.turret_heading_rad, alpha)
        self.aim.elevation_rad = (start.gun_elevation_rad
                                  + (end.gun_elevation_rad - start.gun_elevation_rad) * alpha)

    @property
    def turret_heading_rad(self) -> float:
        return self.aim.turret_heading_rad if self.aim else 0.0

    @property
    def gun_elevation_rad(self) -> float:
        return self.aim.elevation_rad if self.aim else 0.0

    def anchors(self) -> AnchorView | None:
        """Its anchors as drawn: each ray down from the drawn hull to the terrain under it
        (not simulated here: only where its wheels and tracks meet the ground, and the
        dust they raise)."""
        if self._shown is None:
            return None
        if self._anchors is None or self._anchors[0] is not self.current:
            self._anchors = (self.current, self._cast_anchors(self.current))
        return self._anchors[1]

    def _cast_anchors(self, state: BodyState) -> AnchorView:
        constants = self.constants
        axes = state.axes_ws()
        origins = state.position_ws + constants.position_bs @ axes
        down = -axes[2]
        count = len(origins)
        ground = self._terrain.height_at(origins[:, 0], origins[:, 1])
        reach = (origins[:, 2] - ground) / max(-float(down[2]), 1e-3)
        ray_m = constants.ray_length_m  # the spring's rest length and the wheel's radius
        on_ground = reach <= ray_m
        along = np.minimum(reach, ray_m)
        contacts = origins + down[None, :] * along[:, None]
        normals = self._terrain.normal_at(contacts[:, 0], contacts[:, 1]).reshape(count, 3)
        return AnchorView(origins, np.tile(down, (count, 1)), contacts, normals, on_ground,
                          np.where(on_ground, ray_m - along, 0.0), np.zeros(count),
                          np.zeros(count, dtype=bool), constants.rest_length_m)

    def wheel_state(self) -> np.ndarray:
        """Rows (compression, steer, spin angle, spin speed) per anchor: the wheels roll at
        the drawn speed, straight ahead."""
        anchors = self.anchors()
        count = len(self.constants.position_bs)
        if anchors is None:
            return np.zeros((WHEEL_STATE_ROWS, count))
        radius_m = max(float(self.constants.wheel_radius_m), 1e-3)
        spin_rad_s = self.current.forward_speed_mps() / radius_m
        self._spin_angle_rad = (self._spin_angle_rad + spin_rad_s * self._step_s) % math.tau
        return np.array([anchors.compression_m, np.zeros(count),
                         np.full(count, self._spin_angle_rad), np.full(count, spin_rad_s)])

    def track_speeds_mps(self) -> tuple[float, float]:
        if self._shown is None:
            return 0.0, 0.0
        speed = self.current.forward_speed_mps()
        return speed, speed
