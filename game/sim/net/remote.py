"""Other players' (and bots') vehicles as a network client draws them: snapshot
interpolation.

Each :class:`RemoteVehicle` keeps the last second or so of its snapshots. Every client step
it is posed where the server had it at a render tick a little in the past (the client's
estimate of the server's tick, less ``interpolation_delay_snapshots`` snapshot intervals),
blended between the two snapshots either side; past the newest it carries on at its last
velocity for at most ``extrapolation_most_s``, then holds. It is a kinematic body in the
client's world, so the vehicle the client drives bumps into it, and it reads like a
:class:`~game.sim.vehicles.Vehicle` to whoever draws it (pose, turret, gun, health).
"""

from __future__ import annotations

import math
from collections import deque

import numpy as np

from game.sim.net.snapshots import VehiclePose
from physics.bullet.bodies import make_puppet_body
from physics.bullet.poses import set_state
from physics.model.pose import BodyState, blend_poses, rotation_matrix


def _state(position: np.ndarray, orientation: np.ndarray, velocity: np.ndarray) -> BodyState:
    axes = rotation_matrix(orientation).T.copy()  # rows: right, forward, up
    axes.setflags(write=False)
    return BodyState(position, orientation, velocity, np.zeros(3), axes)


def _angle_between(start: float, end: float, alpha: float) -> float:
    """``alpha`` of the way from one angle to another, the short way round."""
    turn = (end - start + math.pi) % (2.0 * math.pi) - math.pi
    return start + turn * alpha


class RemoteVehicle:
    """Another vehicle, drawn from snapshots."""

    def __init__(self, vehicle_id: int, name: str, kind: str, human: bool, fleet, world,
                 keep_snapshots: int):
        self.vehicle_id = vehicle_id
        self.name = name
        self.kind = kind
        self.human = human
        self.fleet = fleet
        """The client's fleet of that kind: its spec and constants (never steps this one)."""
        self.spec = fleet.spec
        self.world = world
        self.path = world.add_body(make_puppet_body(self.spec.hull, name), owner=self)
        self._samples: deque[tuple[int, VehiclePose]] = deque(maxlen=keep_snapshots)
        self.current: BodyState | None = None
        self.previous: BodyState | None = None
        self.shown_tick: float | None = None
        """The (fractional) server tick the drawn pose shows."""
        self.turret_heading_rad = 0.0
        self.gun_elevation_rad = 0.0
        self.health: float | None = None
        self.destroyed = False
        self.aim = None
        self.gear = "N"
        self.rpm = 0.0

    @property
    def body(self):
        return self.path.node()

    def add(self, tick: int, pose: VehiclePose) -> None:
        """A snapshot's pose of this vehicle (snapshots come in order of tick)."""
        if self._samples and tick <= self._samples[-1][0]:
            return
        self._samples.append((tick, pose))
        self.health, self.destroyed = pose.health, pose.destroyed

    def show(self, render_tick: float, step_s: float, extrapolation_most_s: float) -> None:
        """Pose it as the server had it at ``render_tick``."""
        if not self._samples:
            return
        position, orientation, velocity, tick = self._pose_at(render_tick, step_s,
                                                              extrapolation_most_s)
        self.shown_tick = tick
        state = _state(position, orientation, velocity)
        self.previous = self.current if self.current is not None else state
        self.current = state
        set_state(self.body, position, orientation, velocity, np.zeros(3))

    def _pose_at(self, render_tick: float, step_s: float, extrapolation_most_s: float):
        samples = self._samples
        newest_tick, newest = samples[-1]
        if len(samples) == 1 or render_tick <= samples[0][0]:
            tick, pose = samples[0] if render_tick <= samples[0][0] else samples[-1]
            self._aim(pose, pose, 0.0)
            return pose.position_ws, pose.orientation_ws, np.zeros(3), float(tick)
        if render_tick >= newest_tick:  # ahead of the newest: carry on, for a while
            before_tick, before = samples[-2]
            velocity = (newest.position_ws - before.position_ws) / ((newest_tick - before_tick)
                                                                    * step_s)
            ahead_s = min((render_tick - newest_tick) * step_s, extrapolation_most_s)
            self._aim(newest, newest, 0.0)
            return (newest.position_ws + velocity * ahead_s, newest.orientation_ws, velocity,
                    newest_tick + ahead_s / step_s)
        for (start_tick, start), (end_tick, end) in zip(samples, list(samples)[1:]):
            if start_tick <= render_tick <= end_tick:
                alpha = (render_tick - start_tick) / (end_tick - start_tick)
                position, orientation = blend_poses(_state(start.position_ws,
                                                           start.orientation_ws, np.zeros(3)),
                                                    _state(end.position_ws, end.orientation_ws,
                                                           np.zeros(3)), alpha)
                velocity = (end.position_ws - start.position_ws) / ((end_tick - start_tick)
                                                                    * step_s)
                self._aim(start, end, alpha)
                return position, orientation, velocity, float(render_tick)
        raise AssertionError("samples out of order")  # add() keeps them in order

    def _aim(self, start: VehiclePose, end: VehiclePose, alpha: float) -> None:
        self.turret_heading_rad = _angle_between(start.turret_heading_rad,
                                                 end.turret_heading_rad, alpha)
        self.gun_elevation_rad = (start.gun_elevation_rad
                                  + (end.gun_elevation_rad - start.gun_elevation_rad) * alpha)

    def anchors(self):
        """Another vehicle's anchors are not simulated here."""
        return None

    def track_speeds_mps(self) -> tuple[float, float]:
        if self.current is None:
            return 0.0, 0.0
        speed = self.current.forward_speed_mps()
        return speed, speed

    def destroy(self) -> None:
        self.world.remove_body(self.path)
