"""A shell's flight through the air: gravity and drag, stepped as Bullet steps the shell.

Bullet moves a body in steps of the world's substep, by semi-implicit Euler: the velocity
takes the step's share of gravity, then the position moves on by that velocity for the
whole step. Before each substep the shells' drag (:class:`physics.bullet.shells.ShellSystem`)
takes ``k |v| v`` of the step off each shell's velocity, ``k`` being
:meth:`ShellSpec.drag_per_m <physics.model.ammunition.ShellSpec.drag_per_m>`
(½ ρ C_d A / m). Stepping the same three updates in the same order, the flight here goes
where the Bullet shell goes (to its single-precision rounding), so the crosshair's predicted
impact is where the shell lands. Between two substeps a shell moves in a straight line.

The marching of an arc over the ground (:mod:`physics.model.ballistics`), the bots' aim and
``python -m bench penetration`` fly the shell through these functions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from common.compiled import compiled_loop, compiled_stage

ELEVATION_PASSES = 2
"""Newton passes of :func:`elevation_to_reach` from the airless elevation: each takes the
height error to a small share of the last (from 100 m to 3 km, a drag twice the 75 mm
shells': 4 cm after one, 0.1 mm after two)."""


@dataclass(frozen=True)
class Flight:
    """How one shell flies: gravity, its drag, and the step its flight is worked out in
    (the physics world's substep, the step Bullet moves it in)."""

    gravity_m_s2: float
    drag_per_m: float
    """k in the drag deceleration k v² (ShellSpec.drag_per_m at the air's density)."""
    step_s: float

    def __post_init__(self) -> None:
        if not self.step_s > 0.0:
            raise ValueError(f"a flight's step_s must be above 0, not {self.step_s}")
        if not self.drag_per_m >= 0.0:
            raise ValueError(f"a flight's drag_per_m must be 0 or more, not {self.drag_per_m}")

    def time_to_m(self, distance_m: float, speed_mps: float) -> float:
        """How long a shell leaving at ``speed_mps`` takes to fly ``distance_m`` along a
        flat path: drag alone slows it, ``v = v0 exp(-k x)``, so ``t = (exp(k d) - 1) /
        (k v0)`` (``d / v0`` without drag). A bot's lead: gravity bends a flat shot's path
        by too little to change its time."""
        drag = self.drag_per_m * distance_m
        if drag == 0.0:
            return distance_m / speed_mps
        return math.expm1(drag) / (self.drag_per_m * speed_mps)


@compiled_stage
def flight_step(x, y, z, vx, vy, vz, gravity, drag, step_s):
    """One step of flight from a position and the velocity it flew the last step with: the
    velocity for this step (drag, then gravity) and where it takes the shell."""
    slowed = 1.0 - drag * math.sqrt(vx * vx + vy * vy + vz * vz) * step_s
    vx, vy, vz = vx * slowed, vy * slowed, vz * slowed - gravity * step_s
    return x + vx * step_s, y + vy * step_s, z + vz * step_s, vx, vy, vz


@compiled_loop
def _points(muzzle, velocity, gravity, drag, step_s, times_s, out):
    """The flight's position at each time (any order; in order is cheapest) into ``out``
    (T, 3), and its velocity at the last time into ``out``'s row T (as it flies there)."""
    last = times_s.shape[0]
    out[last, 0], out[last, 1], out[last, 2] = velocity[0], velocity[1], velocity[2]
    steps = 0
    x, y, z = muzzle[0], muzzle[1], muzzle[2]
    ahead = flight_step(x, y, z, velocity[0], velocity[1], velocity[2], gravity, drag, step_s)
    for index in range(times_s.shape[0]):
        time_s = times_s[index]
        if time_s < steps * step_s:  # back to the start
            steps = 0
            x, y, z = muzzle[0], muzzle[1], muzzle[2]
            ahead = flight_step(x, y, z, velocity[0], velocity[1], velocity[2], gravity, drag,
                             step_s)
        while (steps + 1) * step_s <= time_s:
            x, y, z = ahead[0], ahead[1], ahead[2]
            ahead = flight_step(x, y, z, ahead[3], ahead[4], ahead[5], gravity, drag, step_s)
            steps += 1
        into_s = time_s - steps * step_s
        out[index, 0] = x + ahead[3] * into_s
        out[index, 1] = y + ahead[4] * into_s
        out[index, 2] = z + ahead[5] * into_s
        out[last, 0], out[last, 1], out[last, 2] = ahead[3], ahead[4], ahead[5]


def flight_points(muzzle_ws, velocity_ws, flight: Flight, times_s: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Where the shell is at each time (T, 3), and its velocity at the last of them."""
    times = np.ascontiguousarray(times_s, dtype=float).reshape(-1)
    out = np.empty((len(times) + 1, 3))
    _points(np.asarray(muzzle_ws, dtype=float), np.asarray(velocity_ws, dtype=float),
            flight.gravity_m_s2, flight.drag_per_m, flight.step_s, times, out)
    return out[:-1], out[-1]


@compiled_stage
def _fly_to(x, y, z, vx, vy, vz, gravity, drag, step_s, distance_m, max_time_s):
    """Fly from (x, y, z) at (vx, vy, vz) until the shell is ``distance_m`` across the
    ground from there: the time, the position (3) and the velocity (3) then; the time is
    -1 where it does not get so far within ``max_time_s``. (The path over the ground is a
    straight line: drag works along the velocity and gravity straight down.)"""
    start_x, start_y = x, y
    across_before, time_s = 0.0, 0.0
    while time_s < max_time_s:
        step = flight_step(x, y, z, vx, vy, vz, gravity, drag, step_s)
        across_x, across_y = step[0] - start_x, step[1] - start_y
        across = math.sqrt(across_x * across_x + across_y * across_y)
        if across >= distance_m:
            share = (distance_m - across_before) / (across - across_before)
            return (time_s + share * step_s, x + share * (step[0] - x),
                    y + share * (step[1] - y), z + share * (step[2] - z),
                    step[3], step[4], step[5])
        x, y, z, vx, vy, vz = step
        across_before = across
        time_s += step_s
    return -1.0, x, y, z, vx, vy, vz


@compiled_loop
def _to_distance(muzzle, velocity, gravity, drag, step_s, distance_m, max_time_s):
    """:func:`_fly_to` from the muzzle."""
    return _fly_to(muzzle[0], muzzle[1], muzzle[2], velocity[0], velocity[1], velocity[2],
                   gravity, drag, step_s, distance_m, max_time_s)


def flight_to_distance(muzzle_ws, velocity_ws, flight: Flight, distance_m: float,
                       max_time_s: float) -> tuple[float, np.ndarray, np.ndarray] | None:
    """When the shell is ``distance_m`` across the ground from the muzzle, where it is then
    and its velocity; None where it does not get so far within ``max_time_s``."""
    (time_s, x_m, y_m, z_m, x_mps, y_mps, z_mps) = _to_distance(
        np.asarray(muzzle_ws, dtype=float), np.asarray(velocity_ws, dtype=float),
        flight.gravity_m_s2, flight.drag_per_m, flight.step_s, float(distance_m),
        float(max_time_s))
    if time_s < 0.0:
        return None
    return time_s, np.array([x_m, y_m, z_m]), np.array([x_mps, y_mps, z_mps])


def _airless_formula(distance_m, rise_m, speed_mps, gravity_m_s2):
    """:func:`airless_elevation`, NaN for out of reach."""
    if distance_m <= 0.0:
        return math.copysign(math.pi / 2, rise_m)
    v2 = speed_mps * speed_mps
    discriminant = v2 * v2 - gravity_m_s2 * (gravity_m_s2 * distance_m ** 2 + 2 * rise_m * v2)
    if discriminant < 0.0:
        return math.nan  # out of range
    return math.atan((v2 - math.sqrt(discriminant)) / (gravity_m_s2 * distance_m))


_airless = compiled_stage(_airless_formula)


@compiled_loop
def _elevation(distance_m, rise_m, speed_mps, gravity, drag, step_s, max_time_s):
    """:func:`elevation_to_reach`, NaN where it cannot."""
    elevation = _airless(distance_m, rise_m, speed_mps, gravity)
    if math.isnan(elevation) or distance_m <= 0.0:
        return elevation
    for _ in range(ELEVATION_PASSES):
        cos_elevation = math.cos(elevation)
        there = _fly_to(0.0, 0.0, 0.0, 0.0, cos_elevation * speed_mps,
                        math.sin(elevation) * speed_mps, gravity, drag, step_s, distance_m,
                        max_time_s)
        if there[0] < 0.0:
            return math.nan
        elevation += (rise_m - there[3]) * cos_elevation * cos_elevation / distance_m
        if not -math.pi / 2 < elevation < math.pi / 2:
            return math.nan
    return elevation


def airless_elevation(distance_m: float, rise_m: float, speed_mps: float,
                      gravity_m_s2: float) -> float | None:
    """The low-arc elevation that carries a shell ``distance_m`` across and ``rise_m`` up
    with no air (None: out of reach)."""
    elevation = _airless_formula(distance_m, rise_m, speed_mps, gravity_m_s2)
    return None if math.isnan(elevation) else elevation


def elevation_to_reach(distance_m: float, rise_m: float, speed_mps: float, flight: Flight,
                       max_time_s: float) -> float | None:
    """The low-arc elevation that carries a shell fired at ``speed_mps`` ``distance_m``
    across and ``rise_m`` up on ``flight`` (drag and all), within ``max_time_s``; None
    where it cannot (out of reach, or no elevation below straight up gets there).

    From the airless elevation, Newton's steps on the height the flight has at that
    distance (it rises ``distance / cos² elevation`` per radian, nearly)."""
    elevation = _elevation(float(distance_m), float(rise_m), float(speed_mps),
                           flight.gravity_m_s2, flight.drag_per_m, flight.step_s,
                           float(max_time_s))
    return None if math.isnan(elevation) else elevation
