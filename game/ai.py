"""Enemy tanks: bots that see the simulation's state and answer with the same Controls a
player makes, so they go through the same drive, gearbox, turret and gun as anyone.

Each step a bot steers toward a point that keeps it at fighting distance from its
target (closing in from afar, circling inside the band, backing off when too
close), pushed away from other vehicles, wrecks and rocks nearby. It turns the
turret and raises the gun toward where the target will be when a shell gets
there (leading a moving target by the flight time; the elevation from the
ballistic arc), and fires only when the predicted impact point of a shot fired
now lands on the target.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from game.controls import AUTOMATIC, Controls
from physics.gun import gun_axes
from physics.spec import Spec, SpecError, tuning

DIFFICULTIES = ("easy", "normal", "hard")
LOOK_AHEAD_FLIGHTS = 2.0
"""The fire check follows a shot's arc for this many times the straight-line flight time."""


@dataclass(frozen=True)
class DifficultySpec(Spec):
    aim_noise_mrad: float = tuning("the bot's aiming error (standard deviation), drawn anew "
                                   "each reload time", minimum=0.0, maximum=200.0)
    leads_target: bool = tuning("aims where a moving target will be, not where it is")
    fire_margin_m: float = tuning("fires when the predicted impact is within this of the "
                                  "target's hull", minimum=0.0, maximum=20.0)


@dataclass(frozen=True)
class AISpec(Spec):
    difficulty: str = tuning("how good the bots are", choices=DIFFICULTIES)
    easy: DifficultySpec = tuning("easy bots")
    normal: DifficultySpec = tuning("normal bots")
    hard: DifficultySpec = tuning("hard bots")
    near_distance_m: float = tuning("closer than this a bot backs away", minimum=5.0,
                                    maximum=2000.0)
    far_distance_m: float = tuning("further than this a bot closes in", minimum=10.0,
                                   maximum=3000.0)
    avoid_radius_m: float = tuning("vehicles, wrecks and rocks closer than this push a bot "
                                   "aside", minimum=1.0, maximum=200.0)
    steer_per_rad: float = tuning("stick per radian of heading error", minimum=0.1,
                                  maximum=50.0)
    turret_per_rad: float = tuning("traverse stick per radian of aim error", minimum=0.1,
                                   maximum=500.0)
    elevation_per_rad: float = tuning("elevation stick per radian of aim error", minimum=0.1,
                                      maximum=500.0)
    full_throttle_within_deg: float = tuning("drives at full throttle when the heading error "
                                             "is below this; slower otherwise",
                                             minimum=1.0, maximum=180.0)
    turning_throttle: float = tuning("throttle while turning toward a heading", minimum=0.0,
                                     maximum=1.0)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.far_distance_m <= self.near_distance_m:
            raise SpecError("far_distance_m", self.far_distance_m,
                            f"more than near_distance_m ({self.near_distance_m})")

    @property
    def level(self) -> DifficultySpec:
        return getattr(self, self.difficulty)


def _signed_angle(forward: np.ndarray, wanted: np.ndarray) -> float:
    """Angle from ``forward`` to ``wanted`` on the ground plane, + to the right."""
    return math.atan2(forward[1] * wanted[0] - forward[0] * wanted[1],
                      forward[0] * wanted[0] + forward[1] * wanted[1])


def ballistic_elevation(distance_m: float, rise_m: float, speed_ms: float,
                        gravity_m_s2: float) -> float | None:
    """The low-arc elevation that carries a shell ``distance_m`` across and ``rise_m`` up."""
    if distance_m <= 0.0:
        return math.copysign(math.pi / 2, rise_m)
    v2 = speed_ms * speed_ms
    discriminant = v2 * v2 - gravity_m_s2 * (gravity_m_s2 * distance_m ** 2 + 2 * rise_m * v2)
    if discriminant < 0.0:
        return None  # out of range
    return math.atan((v2 - math.sqrt(discriminant)) / (gravity_m_s2 * distance_m))


class Bot:
    """One enemy tank's driver and gunner."""

    def __init__(self, spec: AISpec, rng: np.random.Generator):
        self.spec = spec
        self.rng = rng
        self._aim_offset = np.zeros(2)
        self._offset_age_s = math.inf
        self._rocks_xy: np.ndarray | None = None
        self._circling = 1.0 if rng.random() < 0.5 else -1.0
        """Which way round the target this bot circles (kept, so it does not dither)."""

    def controls(self, simulation, me, target) -> Controls:
        if target is None or target.destroyed:
            return Controls(brake=1.0, gear=AUTOMATIC)
        drive = self._drive(simulation, me, target)
        turret, elevation, fire = self._gun(simulation, me, target)
        return Controls(throttle=drive[0], steer=drive[1], gear=AUTOMATIC, turret=turret,
                        elevation=elevation, fire=fire)

    def _drive(self, simulation, me, target) -> tuple[float, float]:
        spec = self.spec
        here, there = me.current.position_ws[:2], target.current.position_ws[:2]
        to_target = there - here
        distance = float(np.linalg.norm(to_target))
        toward = to_target / max(distance, np.finfo(float).tiny)
        if distance > spec.far_distance_m:
            wanted = toward
        elif distance < spec.near_distance_m:
            wanted = -toward
        else:  # inside the band: circle the target
            wanted = self._circling * np.array([toward[1], -toward[0]])
        wanted = wanted + self._avoidance(simulation, me, here)
        forward = me.current.axes_ws()[1][:2]
        error = _signed_angle(forward, wanted)
        steer = float(np.clip(error * spec.steer_per_rad, -1.0, 1.0))
        aligned = abs(error) < math.radians(spec.full_throttle_within_deg)
        return (1.0 if aligned else spec.turning_throttle), steer

    def _avoidance(self, simulation, me, here: np.ndarray) -> np.ndarray:
        """A push away from everything solid nearby (the map's edges too), stronger the
        closer it is."""
        radius = self.spec.avoid_radius_m
        if self._rocks_xy is None:  # rocks never move: gather them once
            self._rocks_xy = np.array([rock.position_ws[:2] for rock in simulation.rocks]
                                      ).reshape(-1, 2)
        terrain = simulation.terrain
        edge_x, edge_y = terrain.half_extent_x_m, terrain.half_extent_y_m
        vehicles = [v.current.position_ws[:2] for v in simulation.vehicles if v is not me]
        edges = [(edge_x, here[1]), (-edge_x, here[1]), (here[0], edge_y), (here[0], -edge_y)]
        obstacles = np.vstack([self._rocks_xy, np.array(vehicles).reshape(-1, 2), edges])
        away = here - obstacles
        gap = np.hypot(away[:, 0], away[:, 1])
        near = (gap > 0.0) & (gap < radius)
        weight = (1.0 - gap[near] / radius) / gap[near]
        return (away[near] * weight[:, None]).sum(axis=0)

    def _gun(self, simulation, me, target) -> tuple[float, float, bool]:
        spec, level = self.spec, self.spec.level
        gun = me.spec.gun
        gravity = simulation.config.game.simulation.gravity_m_s2
        muzzle, barrel = gun_axes(me.current, gun, me.aim)
        aim_point = target.current.position_ws.copy()
        distance = float(np.linalg.norm(aim_point - muzzle))
        if level.leads_target:
            aim_point = aim_point + target.current.velocity_ws * distance / gun.muzzle_velocity_ms
        offset = aim_point - muzzle
        flat = float(np.linalg.norm(offset[:2]))
        elevation_ws = ballistic_elevation(flat, float(offset[2]), gun.muzzle_velocity_ms, gravity)
        if elevation_ws is None:
            return 0.0, 0.0, False
        self._offset_age_s += simulation.step_s
        if self._offset_age_s >= gun.reload_s:  # a fresh misjudgement every reload time
            self._aim_offset = self.rng.normal(0.0, level.aim_noise_mrad / 1000.0, 2)
            self._offset_age_s = 0.0
        heading_ws = math.atan2(offset[0], offset[1]) + self._aim_offset[0]
        elevation_ws += self._aim_offset[1]
        wanted_ws = np.array([math.sin(heading_ws) * math.cos(elevation_ws),
                              math.cos(heading_ws) * math.cos(elevation_ws),
                              math.sin(elevation_ws)])
        right, forward, up = me.current.axes_ws()
        wanted_bs = np.array([wanted_ws @ right, wanted_ws @ forward, wanted_ws @ up])
        turret_error = math.remainder(math.atan2(wanted_bs[0], wanted_bs[1])
                                      - me.aim.turret_heading_rad, math.tau)
        elevation_error = (math.asin(float(np.clip(wanted_bs[2], -1.0, 1.0)))
                           - me.aim.elevation_rad)
        turret = float(np.clip(turret_error * spec.turret_per_rad, -1.0, 1.0))
        elevation = float(np.clip(elevation_error * spec.elevation_per_rad, -1.0, 1.0))
        fire = False
        if me.aim.reload_left_s == 0.0:
            flight_s = distance / gun.muzzle_velocity_ms
            impact = simulation.predicted_impact(me, LOOK_AHEAD_FLIGHTS * flight_s
                                                 + simulation.step_s)
            hull = float(np.linalg.norm(target.spec.hull.half_extents_m))
            if impact is not None:
                miss = float(np.linalg.norm(impact - target.current.position_ws))
                fire = miss < hull + level.fire_margin_m
        return turret, elevation, fire
