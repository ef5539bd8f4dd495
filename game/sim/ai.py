"""Enemy tanks: bots that see the simulation's state and answer with the same Controls a
player makes, so they go through the same drive, gearbox, turret and gun as anyone.

A bot looks round ``think_hz`` times a second (bots take turns, so a side's thinking is
spread over the steps): it notes what to keep clear of, chooses where to point the gun
(where the target will be when a shell gets there, leading a moving target by the
flight time; the elevation from the ballistic arc) and fires only when the predicted
impact point of a shot fired now lands on the target, and only at a target it sees
(:mod:`game.sim.spotting`: in range, no ground between its gun and the hull) and has
seen for its reaction time. Its aim errs, more far off and on the move, less the longer
it holds the target in sight; how much is its difficulty's. Every step it steers toward a
point that keeps it at fighting distance from its target (closing in from afar,
circling inside the band, backing off when too close), pushed away from what it saw
nearby, and turns the turret and raises the gun toward the direction it chose.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from game.sim.controls import AUTOMATIC, Controls
from physics.model.ballistics import gun_axes
from physics.model.compiled import compiled
from game.sim.spotting import SpottingSpec, spotted
from physics.model.spec import Spec, SpecError, tuning

DIFFICULTIES = ("easy", "normal", "hard")
LOOK_AHEAD_FLIGHTS = 2.0
"""The fire check follows a shot's arc for this many times the straight-line flight time."""
_FIRE_CHECK_REACHES = 3.0
"""A shot whose line passes further than this many of the target's reaches (its hull's
half diagonal plus the fire margin) from the aiming line at the target's distance cannot
land on it: the bot skips following its arc (gravity and the ground only bend the arc
away from that line by much less, since the aiming line already allows for the drop)."""
_TINY = np.finfo(float).tiny


@dataclass(frozen=True)
class DifficultySpec(Spec):
    aim_noise_mrad: float = tuning("the bot's aiming error (standard deviation) at close "
                                   "range, both still, just after it has the target in sight; "
                                   "drawn anew each reload time", minimum=0.0, maximum=200.0)
    aim_noise_per_km: float = tuning("the error grows by this share of itself per km to the "
                                     "target", minimum=0.0, maximum=20.0)
    aim_noise_per_mps: float = tuning("... and by this share per m/s of its own speed and the "
                                      "target's", minimum=0.0, maximum=5.0)
    aim_settle_s: float = tuning("holding the target in sight, the error shrinks with this "
                                 "time constant ...", minimum=0.05, maximum=60.0)
    aim_settled_share: float = tuning("... to this share of itself", minimum=0.0, maximum=1.0)
    reaction_s: float = tuning("it fires only once it has had the target in sight this long",
                               minimum=0.0, maximum=10.0)
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
    think_hz: float = tuning("how often a bot looks round for what to avoid and checks "
                             "whether a shot would hit; between, it steers and aims on what "
                             "it saw last", minimum=1.0, maximum=1000.0)
    spotting: SpottingSpec = tuning("who can see whom (the bots fire only at what they see)")

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.far_distance_m <= self.near_distance_m:
            raise SpecError("far_distance_m", self.far_distance_m,
                            f"more than near_distance_m ({self.near_distance_m})")

    @property
    def level(self) -> DifficultySpec:
        return getattr(self, self.difficulty)


def _signed_angle(forward, wanted) -> float:
    """Angle from ``forward`` to ``wanted`` on the ground plane, + to the right."""
    return math.atan2(forward[1] * wanted[0] - forward[0] * wanted[1],
                      forward[0] * wanted[0] + forward[1] * wanted[1])


def ballistic_elevation(distance_m: float, rise_m: float, speed_mps: float,
                        gravity_m_s2: float) -> float | None:
    """The low-arc elevation that carries a shell ``distance_m`` across and ``rise_m`` up."""
    if distance_m <= 0.0:
        return math.copysign(math.pi / 2, rise_m)
    v2 = speed_mps * speed_mps
    discriminant = v2 * v2 - gravity_m_s2 * (gravity_m_s2 * distance_m ** 2 + 2 * rise_m * v2)
    if discriminant < 0.0:
        return None  # out of range
    return math.atan((v2 - math.sqrt(discriminant)) / (gravity_m_s2 * distance_m))


class Bot:
    """One enemy tank's driver and gunner."""

    def __init__(self, spec: AISpec, rng: np.random.Generator, phase: int = 0):
        """``phase``: bots numbered in turn think on different steps, so the thinking of
        a whole side is spread over the steps rather than all on one."""
        self.spec = spec
        self.rng = rng
        self._phase = phase
        self._steps_between: int | None = None
        """Fixed steps from one look round to the next."""
        self._push = (0.0, 0.0)
        """The push away from obstacles, from the last look round."""
        self._aim_unit = np.zeros(2)
        """This reload's misjudgement, in standard deviations (scaled by the moment's error)."""
        self._offset_age_s = math.inf
        self._seen_since_s: float | None = None
        """Since when the target has been in sight (None: it is not)."""
        self._looked = False
        self._wanted_ws: np.ndarray | None = None
        """The gun's direction chosen at the last look (None: the target is out of range)."""
        self._rocks_xy: np.ndarray | None = None
        self._circling = 1.0 if rng.random() < 0.5 else -1.0
        """Which way round the target this bot circles (kept, so it does not dither)."""

    def controls(self, simulation, me, target) -> Controls:
        if target is None or target.destroyed:
            return Controls(brake=1.0, gear=AUTOMATIC)
        if self._steps_between is None:  # the step never changes in a simulation
            self._steps_between = max(1, round(1.0 / (self.spec.think_hz * simulation.step_s)))
        thinking = (simulation.world.step_count + self._phase) % self._steps_between == 0
        if thinking:
            self._push = self._avoidance(simulation, me, me.current.position_ws[:2])
        drive = self._drive(me, target)
        turret, elevation, fire = self._gun(simulation, me, target, thinking)
        return Controls(throttle=drive[0], steer=drive[1], gear=AUTOMATIC, turret=turret,
                        elevation=elevation, fire=fire)

    def _drive(self, me, target) -> tuple[float, float]:
        spec = self.spec
        here = me.current.position_ws[:2]
        to_x, to_y = (target.current.position_ws[:2] - here).tolist()
        distance = math.hypot(to_x, to_y)
        scale = 1.0 / max(distance, _TINY)
        toward_x, toward_y = to_x * scale, to_y * scale
        if distance > spec.far_distance_m:
            wanted_x, wanted_y = toward_x, toward_y
        elif distance < spec.near_distance_m:
            wanted_x, wanted_y = -toward_x, -toward_y
        else:  # inside the band: circle the target
            wanted_x, wanted_y = self._circling * toward_y, -self._circling * toward_x
        push_x, push_y = self._push
        forward = me.current.axes_ws()[1]
        error = _signed_angle(forward, (wanted_x + push_x, wanted_y + push_y))
        steer = _clamp(error * spec.steer_per_rad)
        aligned = abs(error) < math.radians(spec.full_throttle_within_deg)
        return (1.0 if aligned else spec.turning_throttle), steer

    def _avoidance(self, simulation, me, here: np.ndarray) -> tuple[float, float]:
        """A push away from everything solid nearby (the map's edges too), stronger the
        closer it is."""
        radius = self.spec.avoid_radius_m
        if self._rocks_xy is None:  # rocks never move: gather them once
            self._rocks_xy = np.array([rock.position_ws[:2] for rock in simulation.rocks]
                                      ).reshape(-1, 2)
        here_x, here_y = here.tolist()
        edge_x, edge_y = simulation.terrain.half_extent_x_m, simulation.terrain.half_extent_y_m
        edges = np.array([[edge_x, here_y], [-edge_x, here_y], [here_x, edge_y],
                          [here_x, -edge_y]])  # the nearest point of each edge
        # Every vehicle, this one too: its own gap is zero, which pushes nowhere.
        rocks_x, rocks_y = _push_from_points(here_x, here_y, self._rocks_xy, radius)
        vehicles_x, vehicles_y = _push_from_points(here_x, here_y,
                                                   simulation.vehicle_positions_xy(), radius)
        edges_x, edges_y = _push_from_points(here_x, here_y, edges, radius)
        return rocks_x + vehicles_x + edges_x, rocks_y + vehicles_y + edges_y

    def _gun(self, simulation, me, target, thinking: bool) -> tuple[float, float, bool]:
        """Turret and gun sticks toward the direction chosen at the last look (every step,
        as the hull turns under them), and whether to fire (only on a look)."""
        spec = self.spec
        self._offset_age_s += simulation.step_s
        fire = False
        if thinking or not self._looked:
            fire = self._look(simulation, me, target)
        if self._wanted_ws is None:  # out of range
            return 0.0, 0.0, False
        wanted_x, wanted_y, wanted_z = (me.current.axes_ws() @ self._wanted_ws).tolist()
        turret_error = math.remainder(math.atan2(wanted_x, wanted_y)
                                      - me.aim.turret_heading_rad, math.tau)
        elevation_error = math.asin(_clamp(wanted_z)) - me.aim.elevation_rad
        turret = _clamp(turret_error * spec.turret_per_rad)
        elevation = _clamp(elevation_error * spec.elevation_per_rad)
        return turret, elevation, fire

    def _sight(self, simulation, me, target, eye_ws) -> float | None:
        """How long the target has been in sight, from the gun (None: it is not now)."""
        now_s = simulation.time_s
        if not spotted(self.spec.spotting, simulation.terrain, eye_ws, target, now_s):
            self._seen_since_s = None
            return None
        if self._seen_since_s is None:
            self._seen_since_s = now_s
        return now_s - self._seen_since_s

    def _look(self, simulation, me, target) -> bool:
        """Choose where to point the gun (leading the target, with this reload's
        misjudgement); return whether a shot fired now would land on the target."""
        level = self.spec.level
        self._looked = True
        gun = me.spec.gun
        gravity = simulation.gravity_m_s2
        muzzle, barrel = gun_axes(me.current, gun, me.aim)
        aim_point = target.current.position_ws
        distance = _length(aim_point - muzzle)
        if level.leads_target:
            aim_point = aim_point + target.current.velocity_ws * distance / gun.muzzle_velocity_mps
        offset_x, offset_y, offset_z = (aim_point - muzzle).tolist()
        flat = math.hypot(offset_x, offset_y)
        elevation_ws = ballistic_elevation(flat, offset_z, gun.muzzle_velocity_mps, gravity)
        if elevation_ws is None:
            self._wanted_ws = None
            return False
        heading_ws = math.atan2(offset_x, offset_y)
        held_s = self._sight(simulation, me, target, muzzle)
        if self._offset_age_s >= gun.reload_s:  # a fresh misjudgement every reload time
            self._aim_unit = self.rng.normal(0.0, 1.0, 2)
            self._offset_age_s = 0.0
        offset = self._aim_unit * aim_error_rad(level, distance, me, target, held_s)
        self._wanted_ws = _direction(heading_ws + offset[0], elevation_ws + offset[1])
        if me.aim.reload_left_s > 0.0 or held_s is None or held_s < level.reaction_s:
            return False  # loading, not seen, or seen too lately to have reacted
        reach_m = _length(target.spec.hull.half_extents_m) + level.fire_margin_m
        shell_mps = me.current.velocity_ws + barrel * gun.muzzle_velocity_mps
        # The arc is followed only for a shot that could land near the target: one whose
        # line is within a few of the target's sizes of the aiming line there.
        if _angle_between(shell_mps, _direction(heading_ws, elevation_ws)) * distance \
                >= _FIRE_CHECK_REACHES * reach_m:
            return False
        flight_s = distance / gun.muzzle_velocity_mps
        impact = simulation.predicted_impact(me, LOOK_AHEAD_FLIGHTS * flight_s
                                             + simulation.step_s)
        return impact is not None and _length(impact - target.current.position_ws) < reach_m


def aim_error_rad(level: DifficultySpec, distance_m: float, me, target,
                  held_s: float | None) -> float:
    """A bot's aiming error (one standard deviation) now: larger far off and on the move,
    smaller the longer it has held the target in sight."""
    speeds = _length(me.current.velocity_ws) + _length(target.current.velocity_ws)
    settle = level.aim_settled_share + (1.0 - level.aim_settled_share) * math.exp(
        -(held_s or 0.0) / level.aim_settle_s)
    return (level.aim_noise_mrad / 1000.0 * (1.0 + distance_m / 1000.0 * level.aim_noise_per_km)
            * (1.0 + speeds * level.aim_noise_per_mps) * settle)


def _push_from_points(here_x: float, here_y: float, points_xy: np.ndarray, radius_m: float
                      ) -> tuple[float, float]:
    """The avoidance push from every point (N, 2) closer than ``radius_m``: away from
    each, stronger the closer it is (a point right here pushes nowhere)."""
    push_x = push_y = 0.0
    for point in range(points_xy.shape[0]):
        away_x, away_y = here_x - points_xy[point, 0], here_y - points_xy[point, 1]
        gap_m = np.hypot(away_x, away_y)
        if 0.0 < gap_m < radius_m:
            weight = (1.0 - gap_m / radius_m) / gap_m
            push_x += away_x * weight
            push_y += away_y * weight
    return push_x, push_y


_push_from_points = compiled(_push_from_points) or _push_from_points


def _clamp(value: float) -> float:
    """A stick value: ``value`` kept within -1..1."""
    return min(1.0, max(-1.0, value))


def _length(vector) -> float:
    return math.hypot(*vector)


def _direction(heading_rad: float, elevation_rad: float) -> np.ndarray:
    """Unit vector at a compass heading (from +Y, + toward +X) and an elevation."""
    return np.array([math.sin(heading_rad) * math.cos(elevation_rad),
                     math.cos(heading_rad) * math.cos(elevation_rad),
                     math.sin(elevation_rad)])


def _angle_between(a: np.ndarray, b: np.ndarray) -> float:
    """Angle between two vectors (either may be any length but zero)."""
    (a_x, a_y, a_z), (b_x, b_y, b_z) = a.tolist(), b.tolist()
    across = math.hypot(a_y * b_z - a_z * b_y, a_z * b_x - a_x * b_z, a_x * b_y - a_y * b_x)
    return math.atan2(across, a_x * b_x + a_y * b_y + a_z * b_z)
