"""The shells a network client draws: each shot the server tells of, flown from the firing
vehicle's drawn muzzle until it reaches the point its hit names (the client fires nothing
itself: whether a shell hits is the server's to say)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from game.sim.combat import Combat
from game.sim.events import Event, Hit, Shot
from game.sim.vehicles import DrawnVehicle
from physics.model.ballistics import gun_axes


class TracedWorld(Protocol):
    """What the traces read of the world a client draws."""

    @property
    def time_s(self) -> float: ...

    def vehicle_named(self, name: str) -> DrawnVehicle | None: ...


@dataclass(eq=False)
class ShellTrace:
    """A shell the server fired, as a client draws it: from the firing vehicle's drawn
    muzzle, on its arc, until it reaches the point its hit names (or its life ends)."""

    shooter: str
    position_ws: np.ndarray
    velocity_ws: np.ndarray
    fired_at_s: float
    lifetime_s: float
    ends_at_ws: np.ndarray | None = None
    drag_per_m: float = 0.0
    """k in its drag deceleration k v² (the loaded shell's)."""


class ShellTraces:
    """The shells in flight a client draws: made from shot events, ended by hit events.
    (The client fires nothing itself: whether a shell hits is the server's to say.)"""

    def __init__(self, world: TracedWorld, combat: Combat):
        """``combat``: the client's own, for the shell each gun has loaded and its flight."""
        self._world = world
        self._combat = combat
        self._gravity_ws = np.array([0.0, 0.0, -combat.gravity_m_s2])
        self.shells: list[ShellTrace] = []

    def on_events(self, events: list[Event]) -> None:
        for event in events:
            if isinstance(event, Shot):
                self._fired(event.vehicle, event.shell)
            elif isinstance(event, Hit):
                flying = [shell for shell in self.shells
                          if shell.shooter == event.shooter and shell.ends_at_ws is None]
                if flying:  # the oldest of its shells still without an end
                    flying[0].ends_at_ws = np.asarray(event.point, dtype=float)

    def _fired(self, name: str, shell_name: str | None) -> None:
        """A shell ``name`` fired: the one its shot names (or, not named, its gun's)."""
        vehicle = self._world.vehicle_named(name)
        if vehicle is None or vehicle.aim is None:
            return
        gun = vehicle.spec.gun
        shell = self._combat.shells_config.shells.get(shell_name or "") \
            or self._combat.loaded_shell(vehicle)
        muzzle, barrel = gun_axes(vehicle.current, gun, vehicle.aim)
        self.shells.append(ShellTrace(name, muzzle, vehicle.current.velocity_ws
                                      + barrel * shell.muzzle_velocity_mps,
                                      self._world.time_s, gun.shell_lifetime_s,
                                      drag_per_m=self._combat.flight_of(shell).drag_per_m))

    def advance(self, step_s: float) -> None:
        """A step of flight; shells past their end or their life are gone."""
        now_s = self._world.time_s
        kept = []
        for shell in self.shells:
            slowed = 1.0 - shell.drag_per_m * float(np.linalg.norm(shell.velocity_ws)) * step_s
            shell.velocity_ws = shell.velocity_ws * slowed + self._gravity_ws * step_s
            moved = shell.velocity_ws * step_s
            end = shell.ends_at_ws
            if end is not None and float((end - shell.position_ws) @ moved) <= float(moved @ moved):
                continue  # it reaches its hit within this step
            shell.position_ws = shell.position_ws + moved
            if now_s - shell.fired_at_s < shell.lifetime_s:
                kept.append(shell)
        self.shells = kept
