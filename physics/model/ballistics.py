"""Turret, gun and the ballistic arc: traverse and elevation, the muzzle, where a shot lands.

The pure half of shooting: where the gun points and how fast it turns, the muzzle's
position and the barrel's direction in the world, and when and where a shell's arc
first goes below the height array. The arc is the shell's flight with drag, stepped as
Bullet steps it (:mod:`physics.model.flight`); the shells themselves are Bullet bodies
(:mod:`physics.bullet.shells`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from common.compiled import compiled_loop
from common.spec import Spec, SpecError, tuning
from physics.model.ammunition import AMMUNITION_SLOTS, AmmunitionLoad, AmmunitionState
from physics.model.flight import Flight, flight_points, flight_step
from physics.model.pose import BodyState
from physics.model.scalars import float_cross, float_dot
from physics.model.terrain_base import MISSING_HEIGHT_M, TerrainBase, plane_under


@dataclass(frozen=True)
class AimingSpec(Spec):
    """The gun's aiming circle: a shot leaves along a random direction inside it. Still and
    laid, it is ``aimed_mrad`` round; the hull's speed, the hull's turning and the turret's
    traverse each widen it at once, by their share of that radius per unit; once they
    stop, it closes back with the time constant ``aim_time_s`` (after one aim time, what
    it is wider than the aimed circle is down to 1/e)."""

    aimed_mrad: float = tuning("the circle's radius with the tank still and the gun laid",
                               minimum=0.0, maximum=50.0)
    aim_time_s: float = tuning("it closes toward that with this time constant", minimum=0.05,
                               maximum=30.0)
    per_mps: float = tuning("each m/s of the hull's speed widens it by this many aimed radii",
                            minimum=0.0, maximum=20.0)
    per_turn_rad_s: float = tuning("... each rad/s of the hull's turning (about any axis: "
                                   "pitching over a crest too)", minimum=0.0, maximum=100.0)
    per_traverse_rad_s: float = tuning("... each rad/s of the turret's traverse",
                                       minimum=0.0, maximum=100.0)

    @cached_property
    def aimed_rad(self) -> float:
        return self.aimed_mrad / 1000.0


@dataclass(frozen=True)
class GunSpec(Spec):
    """A tank's turret, gun and ammunition (each shell's own numbers, its muzzle velocity,
    mass and calibre, are config/shells.toml's: :class:`~physics.model.ammunition.ShellSpec`)."""

    turret_pivot_m: tuple[float, ...] = tuning("turret ring centre in the body frame (x, y, z)",
                                               minimum=-10.0, maximum=10.0, length=(3, 3))
    gun_height_m: float = tuning("gun trunnion above the turret ring", minimum=0.0,
                                 maximum=5.0)
    gun_length_m: float = tuning("trunnion to muzzle", minimum=0.5, maximum=15.0)
    calibre_mm: float = tuning("the bore: every shell it fires is of this calibre",
                               minimum=5.0, maximum=250.0)
    traverse_rate_deg_s: float = tuning("turret turn rate at full stick", minimum=1.0,
                                        maximum=360.0)
    elevation_rate_deg_s: float = tuning("gun raise rate at full stick", minimum=1.0,
                                         maximum=180.0)
    min_elevation_deg: float = tuning("most the gun dips", minimum=-45.0, maximum=0.0)
    max_elevation_deg: float = tuning("most the gun rises", minimum=0.0, maximum=85.0)
    reload_s: float = tuning("time between shots", minimum=0.05, maximum=60.0)
    shell_lifetime_s: float = tuning("a shell that has hit nothing by then is gone",
                                     minimum=0.5, maximum=60.0)
    aiming: AimingSpec = tuning("the aiming circle shots leave inside")
    firer_pass_m: float = tuning("a shell passes through the tank that fired it until it is "
                                 "this far from the muzzle", minimum=0.0, maximum=100.0)
    ammunition: tuple[AmmunitionLoad, ...] = tuning(
        "the shells it fires (tables of config/shells.toml), the first loaded at the start, "
        "and how many of each it carries", length=(1, AMMUNITION_SLOTS))

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.max_elevation_deg <= self.min_elevation_deg:
            raise SpecError("max_elevation_deg", self.max_elevation_deg,
                            f"above min_elevation_deg ({self.min_elevation_deg})")
        names = [load.shell for load in self.ammunition]
        for index, name in enumerate(names):
            if name in names[:index]:
                raise SpecError(f"ammunition[{index}].shell", name, "each shell listed once")

    # The rates and limits in radians, worked out once: every armed vehicle reads them
    # every step.
    @cached_property
    def traverse_rate_rad_s(self) -> float:
        return math.radians(self.traverse_rate_deg_s)

    @cached_property
    def elevation_rate_rad_s(self) -> float:
        return math.radians(self.elevation_rate_deg_s)

    @cached_property
    def elevation_limits_rad(self) -> tuple[float, float]:
        return math.radians(self.min_elevation_deg), math.radians(self.max_elevation_deg)


@dataclass(frozen=True)
class ArmourSpec(Spec):
    """How much a tank takes."""

    health: float = tuning("damage it takes to destroy", minimum=1.0, maximum=100000.0)


@dataclass
class GunState:
    """Where one gun points, when it may fire again, and what it has loaded and carries."""

    turret_heading_rad: float = 0.0   # from the hull's forward, + to the right
    elevation_rad: float = 0.0
    reload_left_s: float = 0.0
    aim_circle_rad: float = 0.0
    """The aiming circle's radius now (:func:`widen_or_close`; 0 before the first step)."""
    ammunition: AmmunitionState = field(default_factory=AmmunitionState)
    """Rounds left per slot, the slot loaded and the slot selected (none: a gun known
    only by its pose, another player's online)."""


def gun_axes(state: BodyState, gun: GunSpec, aim: GunState) -> tuple[np.ndarray, np.ndarray]:
    """Muzzle position and unit barrel direction in world space."""
    barrel_bs, muzzle_bs = _gun_bs(gun, aim)
    right, forward, up = state.axes_ws().tolist()
    return (_placed_ws(state.position_ws.tolist(), muzzle_bs, right, forward, up),
            np.array(_turned_ws(barrel_bs, right, forward, up)))


def muzzle_ws(state: BodyState, gun: GunSpec, aim: GunState) -> np.ndarray:
    """Muzzle position in world space (:func:`gun_axes`' first, without the barrel)."""
    _, muzzle_bs = _gun_bs(gun, aim)
    return _placed_ws(state.position_ws.tolist(), muzzle_bs, *state.axes_ws().tolist())


def _gun_bs(gun: GunSpec, aim: GunState) -> tuple[tuple, tuple]:
    """In the body frame: the barrel's unit direction, and the muzzle from the centre of
    mass."""
    heading, elevation = aim.turret_heading_rad, aim.elevation_rad
    cos_elevation = math.cos(elevation)
    barrel_bs = (math.sin(heading) * cos_elevation, math.cos(heading) * cos_elevation,
                 math.sin(elevation))
    pivot_x, pivot_y, pivot_z = gun.turret_pivot_m
    length_m = gun.gun_length_m
    muzzle_bs = (pivot_x + barrel_bs[0] * length_m, pivot_y + barrel_bs[1] * length_m,
                 (pivot_z + gun.gun_height_m) + barrel_bs[2] * length_m)
    return barrel_bs, muzzle_bs


def _turned_ws(vector_bs, right, forward, up) -> tuple[float, float, float]:
    """A body-frame vector in the world frame's directions, in plain floats, summed as
    numpy's vector-matrix product sums (written out: a comprehension over the three axes
    costs more than its arithmetic)."""
    x_bs, y_bs, z_bs = vector_bs
    return (x_bs * right[0] + y_bs * forward[0] + z_bs * up[0],
            x_bs * right[1] + y_bs * forward[1] + z_bs * up[1],
            x_bs * right[2] + y_bs * forward[2] + z_bs * up[2])


def _placed_ws(position, point_bs, right, forward, up) -> np.ndarray:
    """A body-frame point in the world frame (:func:`_turned_ws` from ``position``)."""
    turned_x, turned_y, turned_z = _turned_ws(point_bs, right, forward, up)
    return np.array([position[0] + turned_x, position[1] + turned_y, position[2] + turned_z])


def launch_velocity_ws(state: BodyState, muzzle_ws: np.ndarray, direction_ws: np.ndarray,
                       muzzle_velocity_mps: float) -> np.ndarray:
    """A shell's velocity as it leaves the muzzle: the muzzle's own (the hull's velocity
    there, ``v + w x r``: a turning hull swings its gun) plus the muzzle velocity along
    ``direction_ws``."""
    lever_x, lever_y, lever_z = (np.asarray(muzzle_ws, dtype=float)
                                 - state.position_ws).tolist()
    spin_x, spin_y, spin_z = state.angular_velocity_ws.tolist()
    # In plain floats: np.cross costs tens of times its arithmetic on one vector, and the
    # bots ask for this at every shot they weigh.
    swing = float_cross(spin_x, spin_y, spin_z, lever_x, lever_y, lever_z)
    direction = np.asarray(direction_ws, dtype=float).tolist()
    return np.array([velocity + turning + along * muzzle_velocity_mps for velocity, turning, along
                     in zip(state.velocity_ws.tolist(), swing, direction)])


def aim_gun(aim: GunState, gun: GunSpec, turret: float, elevation: float, step_s: float) -> None:
    """Turn the turret and raise the gun at their rates (controls -1..1)."""
    aim.turret_heading_rad = math.remainder(
        aim.turret_heading_rad + turret * gun.traverse_rate_rad_s * step_s, math.tau)
    lowest, highest = gun.elevation_limits_rad
    # min(max(raised, lowest), highest) and max(0.0, left), NaN and all, without the cost
    # of calling min and max (every armed vehicle, every step).
    raised = aim.elevation_rad + elevation * gun.elevation_rate_rad_s * step_s
    raised = lowest if lowest > raised else raised
    aim.elevation_rad = highest if highest < raised else raised
    left_s = aim.reload_left_s - step_s
    aim.reload_left_s = left_s if left_s > 0.0 else 0.0


def widen_or_close(aim: GunState, aiming: AimingSpec, speed_mps: float, turn_rad_s: float,
                   traverse_rad_s: float, step_s: float, spread_factor: float = 1.0,
                   aim_time_factor: float = 1.0) -> None:
    """The aiming circle after a step of ``step_s`` in which the hull moved at
    ``speed_mps`` and turned at ``turn_rad_s`` and the turret traversed at
    ``traverse_rad_s``: as wide as that motion makes it, at once, or closing toward it
    (:class:`AimingSpec`). A damaged gun spreads ``spread_factor`` times as wide; a hurt
    gunner takes ``aim_time_factor`` times as long to close it."""
    wanted = spread_factor * aiming.aimed_rad * (1.0 + aiming.per_mps * speed_mps
                                                 + aiming.per_turn_rad_s * turn_rad_s
                                                 + aiming.per_traverse_rad_s * traverse_rad_s)
    now = aim.aim_circle_rad
    aim.aim_circle_rad = (wanted if wanted >= now else wanted + (now - wanted) * math.exp(
        -step_s / (aiming.aim_time_s * aim_time_factor)))


def shot_direction(barrel_ws: np.ndarray, circle_rad: float, rng: np.random.Generator
                   ) -> np.ndarray:
    """A shot's unit direction: a point drawn evenly over the aiming circle of
    ``circle_rad`` round the barrel's axis (the angle off it, and the bearing round it,
    from ``rng``). In plain floats, each sum as numpy's cross, dot and norm make it."""
    barrel_x, barrel_y, barrel_z = np.asarray(barrel_ws, dtype=float).tolist()
    off_rad = circle_rad * math.sqrt(rng.random())  # even over the disc's area
    around_rad = math.tau * rng.random()
    across = float_cross(barrel_x, barrel_y, barrel_z, 0.0, 0.0, 1.0)
    length = math.sqrt(float_dot(across, across))
    if length < 1e-9:  # straight up or down: any side will do
        across = float_cross(barrel_x, barrel_y, barrel_z, 1.0, 0.0, 0.0)
        length = math.sqrt(float_dot(across, across))
    across_x, across_y, across_z = across[0] / length, across[1] / length, across[2] / length
    over_x, over_y, over_z = float_cross(across_x, across_y, across_z,
                                         barrel_x, barrel_y, barrel_z)
    cos_around, sin_around = math.cos(around_rad), math.sin(around_rad)
    cos_off, sin_off = math.cos(off_rad), math.sin(off_rad)
    return np.array([barrel_x * cos_off + (across_x * cos_around + over_x * sin_around) * sin_off,
                     barrel_y * cos_off + (across_y * cos_around + over_y * sin_around) * sin_off,
                     barrel_z * cos_off + (across_z * cos_around + over_z * sin_around) * sin_off])


def arc_points(muzzle_ws, velocity_ws, flight: Flight, times_s: np.ndarray) -> np.ndarray:
    """Points of the shell's flight at each time, (T, 3)."""
    return flight_points(muzzle_ws, velocity_ws, flight, times_s)[0]


def arc_meets_terrain(terrain: TerrainBase, muzzle_ws, velocity_ws, flight: Flight,
                      max_time_s: float, make_tiles: bool = True, radius_m: float = 0.0
                      ) -> tuple[float, np.ndarray | None]:
    """When and where the arc first goes below the ground, from the height array: samples
    half a terrain cell apart along the arc, and a straight line between the two around
    the crossing (exact to well under a centimetre: the ground is planar in each
    triangle and the arc nearly straight over a metre). ``(max_time_s, None)`` if never.

    A shell of ``radius_m`` meets the ground where its centre comes within its radius of
    the ground's plane (at a grazing 1 degree, a 37.5 mm shell lands 2 m short of where its
    centre would): then the point is the ground under its centre.

    On a big desert the tiles the arc passes over are made as it gets to them, up to where
    it meets the ground; with ``make_tiles`` False (a view's question, which must not make
    physics tiles) the arc beyond the made tiles is read from the desert's field."""
    muzzle_ws = np.asarray(muzzle_ws, dtype=float)
    velocity_ws = np.asarray(velocity_ws, dtype=float)
    # Drag only slows a shell, and gravity speeds it at most g a second.
    fastest_mps = math.hypot(*velocity_ws) + flight.gravity_m_s2 * max_time_s
    samples = max(2, math.ceil(fastest_mps * max_time_s / (terrain.spacing_m / 2.0)) + 1)
    step_s = max_time_s / (samples - 1)
    first = 0
    while True:
        tables = terrain.tables
        when_s, stopped = _march_arc(tables.planes, tables.directory, tables.lookup, muzzle_ws,
                                     velocity_ws, flight.gravity_m_s2, flight.drag_per_m,
                                     flight.step_s, radius_m, step_s, first, samples)
        if stopped < 0:
            break
        if stopped <= first and first:
            raise RuntimeError(f"the tile under the arc at sample {stopped} was not made")
        first = max(stopped - 1, 0)  # from the last sample on made ground
        if not make_tiles:
            when_s = _march_field(terrain, muzzle_ws, velocity_ws, flight, radius_m,
                                  np.arange(first, samples) * step_s)
            break
        x_m, y_m = arc_points(muzzle_ws, velocity_ws, flight,
                              np.array([stopped * step_s]))[0, :2].tolist()
        terrain.prepare_box(x_m, y_m, x_m, y_m)
    if when_s < 0.0:
        return max_time_s, None
    point = arc_points(muzzle_ws, velocity_ws, flight, np.array([when_s]))[0]
    point[2] -= radius_m
    return when_s, point


def _march_field(terrain: TerrainBase, muzzle_ws, velocity_ws, flight: Flight,
                 radius_m: float, times_s: np.ndarray) -> float:
    """:func:`_march_arc`'s crossing over the terrain's unmade ground (its
    :meth:`~TerrainBase.far_heights`), at the given sample times (-1: never)."""
    points = arc_points(muzzle_ws, velocity_ws, flight, times_s)
    clearance = points[:, 2] - terrain.far_heights(points[:, 0], points[:, 1]) - radius_m
    below = np.flatnonzero(clearance <= 0.0)
    if not below.size:
        return -1.0
    index = int(below[0])
    if index == 0:
        return float(times_s[0])
    share = clearance[index - 1] / (clearance[index - 1] - clearance[index])
    return float(times_s[index - 1] + share * (times_s[index] - times_s[index - 1]))


@compiled_loop
def _march_arc(planes, directory, lookup, muzzle_ws, velocity_ws, gravity_m_s2, drag_per_m,
               flight_step_s, radius_m, step_s, first, samples):
    """The time the arc first comes within ``radius_m`` of the ground's plane, sampled
    every ``step_s`` from sample ``first`` to the last of ``samples`` (-1: never), and -1;
    or, where it reaches a tile not made, -1 and that sample. The flight is stepped every
    ``flight_step_s`` (:mod:`physics.model.flight`). Compiled where numba is installed."""
    clearance_before, time_before = 0.0, 0.0
    steps = 0
    x_m, y_m, z_m = muzzle_ws[0], muzzle_ws[1], muzzle_ws[2]
    ahead = flight_step(x_m, y_m, z_m, velocity_ws[0], velocity_ws[1], velocity_ws[2],
                     gravity_m_s2, drag_per_m, flight_step_s)
    for sample in range(first, samples):
        time_s = sample * step_s
        while (steps + 1) * flight_step_s <= time_s:
            x_m, y_m, z_m = ahead[0], ahead[1], ahead[2]
            ahead = flight_step(x_m, y_m, z_m, ahead[3], ahead[4], ahead[5], gravity_m_s2,
                             drag_per_m, flight_step_s)
            steps += 1
        into_s = time_s - steps * flight_step_s
        x = x_m + ahead[3] * into_s
        y = y_m + ahead[4] * into_s
        z = z_m + ahead[5] * into_s
        ground, _, _, normal_z = plane_under(planes, directory, lookup, x, y)
        if ground == MISSING_HEIGHT_M:
            return -1.0, sample
        clearance = (z - ground) * normal_z - radius_m  # from the plane, square to it
        if clearance <= 0.0:
            if sample == first:
                return time_s, -1
            share = clearance_before / (clearance_before - clearance)
            return time_before + share * (time_s - time_before), -1
        clearance_before, time_before = clearance, time_s
    return -1.0, -1
