"""A bot's gunnery: where on its target it aims, which shell it has loaded next, how far
its aim errs (:func:`aim_error_rad`) and how it turns its turret and gun toward its
aim, against the hull's turning (:func:`gun_sticks`).

Where it aims is a point in the target's body frame (from its centre of mass: +X right,
+Y forward, +Z up) by the bot's level (config/game.toml ``[ai.LEVEL]``): ``aim_front_m``
while the target shows it its front, the same point mirrored front to back while it shows
its rear, and ``aim_side_m`` (given on the right side, mirrored to the left) while it
shows a side, for a level that has one (``[]``: the front or rear point then too). The
target shows its side where the bot stands further than ``side_exposed_deg`` from both
its front and its rear (``[ai.gunnery]``). Where the ground hides that point from the
bot's gun (a low plate behind a dune's crest), it aims at the middle of the hull.

Which shell: the bot weighs the plate its shot would strike (its line from the muzzle to
that point, cast against the target's plates as they stand) with each shell it has rounds
of, at the striking velocity the shell keeps over the range (:mod:`physics.model.flight`)
and by the penetration model (:mod:`physics.model.penetration`, the angle and ricochet
too). A shell pierces where it gets through with ``pierce_margin`` times the armour to
spare. Of the shells that pierce it loads the one that does the most damage (AP before
APCR: APCR is kept for the thick plates AP cannot pierce, and it loses its speed sooner
far off); where none pierces, HE (its blast harms what it cannot pierce); without HE, the
one that pierces most. Against a target without armour (a car) it loads the shell that
does the most damage. The choice goes to the gun as ``Controls.shell`` and, like a
player's, takes effect at the next reload.

A bot weighs its shot (whether the ground hides its point, which shell) only on the looks
when a shot may follow, its gun loaded and the target in sight; and what it weighed is
remembered per kind of target, range band (``range_band_m``), its bearing from the target
and the target's turret heading (``aspect_band_deg`` each), and which shells it still has,
so it casts against the plates only when one of them changes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from common.spec import Spec, tuning
from game.sim.spotting import SpottingSpec, sight_clear
from physics.model.ammunition import HE, AmmunitionState, ShellSpec
from physics.model.armour import first_plate, impact_angle_deg
from physics.model.flight import Flight, flight_to_distance
from physics.model.penetration import PenetrationSpec, strike
from physics.model.scalars import float_dot

AIM_POINT_LENGTH = 3
"""An aim point: x, y, z."""


@dataclass(frozen=True)
class GunnerySpec(Spec):
    """How the bots pick where to aim and what to load."""

    side_exposed_deg: float = tuning("a target shows its side to a bot standing further "
                                     "than this from its front and from its rear",
                                     minimum=5.0, maximum=85.0)
    pierce_margin: float = tuning("a shell counts as piercing where its penetration is this "
                                  "many times the armour on its path", minimum=1.0,
                                  maximum=3.0)
    range_band_m: float = tuning("the range is judged in bands this wide", minimum=1.0,
                                 maximum=1000.0)
    aspect_band_deg: float = tuning("the bot's bearing from the target and the target's "
                                    "turret heading are judged in bands this wide",
                                    minimum=1.0, maximum=90.0)


def aim_point_bs(front_m, side_m, side_exposed_deg: float, bearing_x: float,
                 bearing_y: float) -> tuple[float, float, float]:
    """The point a bot aims at in the target's body frame, the bot standing at
    (``bearing_x``, ``bearing_y``) from the target in its frame (+Y ahead of it): the
    level's ``front_m``, mirrored front to back from behind; from the side ``side_m``
    mirrored to that side (none: the front or rear point)."""
    x_m, y_m, z_m = front_m
    off_front_deg = math.degrees(math.atan2(abs(bearing_x), bearing_y))  # 0 ahead, 180 behind
    if side_m and side_exposed_deg < off_front_deg < 180.0 - side_exposed_deg:
        side_x, side_y, side_z = side_m
        return (math.copysign(side_x, bearing_x), side_y, side_z)
    return (x_m, y_m if off_front_deg <= 90.0 else -y_m, z_m)


def aim_point_ws(front_m, side_m, side_exposed_deg: float, here_ws, target
                 ) -> tuple[float, float, float]:
    """The world point a bot at ``here_ws`` aims at on ``target`` (:func:`aim_point_bs`),
    in plain floats summed in numpy's order."""
    state = target.current
    right, forward, up = state.axes_ws().tolist()
    position_x, position_y, position_z = state.position_ws.tolist()
    here_x, here_y, here_z = here_ws
    offset = (here_x - position_x, here_y - position_y, here_z - position_z)
    x_m, y_m, z_m = aim_point_bs(front_m, side_m, side_exposed_deg,
                                 float_dot(right, offset), float_dot(forward, offset))
    return (position_x + (x_m * right[0] + y_m * forward[0] + z_m * up[0]),
            position_y + (x_m * right[1] + y_m * forward[1] + z_m * up[1]),
            position_z + (x_m * right[2] + y_m * forward[2] + z_m * up[2]))


def aim_error_rad(level, distance_m: float, me, target,
                  held_s: float | None) -> float:
    """A bot's aiming error (one standard deviation) now: larger far off and on the move,
    smaller the longer it has held the target in sight."""
    speeds = (math.hypot(*me.current.velocity_ws.tolist())
              + math.hypot(*target.current.velocity_ws.tolist()))
    settle = level.aim_settled_share + (1.0 - level.aim_settled_share) * math.exp(
        -(held_s or 0.0) / level.aim_settle_s)
    return (level.aim_noise_mrad / 1000.0 * (1.0 + distance_m / 1000.0 * level.aim_noise_per_km)
            * (1.0 + speeds * level.aim_noise_per_mps) * settle)


def gun_sticks(wanted_ws, rows, spin, heading_rad: float, elevation_rad: float,
               turret_per_rad: float, elevation_per_rad: float, traverse_rate_rad_s: float,
               elevation_rate_rad_s: float) -> tuple[float, float]:
    """The turret's and the gun's sticks (-1..1) toward the unit direction ``wanted_ws``,
    the hull's axes being ``rows`` and its angular velocity ``spin`` (plain floats), the
    turret at ``heading_rad`` and the gun at ``elevation_rad``: each stick is its error
    times its gain, plus what holds it against the hull's turning (left, about its up
    axis) and pitching (up, along the gun's line), so the gun keeps its direction while the
    hull moves under it. Every bot asks every step: the sums are written out, each in
    numpy's order (its vector dot gives these very bits), with no call but the maths'."""
    (right_x, right_y, right_z), (forward_x, forward_y, forward_z), (up_x, up_y, up_z) = rows
    wanted_x, wanted_y, wanted_z = wanted_ws
    spin_x, spin_y, spin_z = spin
    # The wanted direction in the hull's frame.
    across = right_x * wanted_x + right_y * wanted_y + right_z * wanted_z
    ahead = forward_x * wanted_x + forward_y * wanted_y + forward_z * wanted_z
    rise = up_x * wanted_x + up_y * wanted_y + up_z * wanted_z
    rise = 1.0 if rise > 1.0 else (rise if rise > -1.0 else -1.0)
    turret_error = math.remainder(math.atan2(across, ahead) - heading_rad, math.tau)
    elevation_error = math.asin(rise) - elevation_rad
    # The hull's turning and pitching along the gun's line.
    cos_heading, sin_heading = math.cos(heading_rad), math.sin(heading_rad)
    gun_right_x = right_x * cos_heading - forward_x * sin_heading
    gun_right_y = right_y * cos_heading - forward_y * sin_heading
    gun_right_z = right_z * cos_heading - forward_z * sin_heading
    turning_rad_s = spin_x * up_x + spin_y * up_y + spin_z * up_z
    pitching_rad_s = spin_x * gun_right_x + spin_y * gun_right_y + spin_z * gun_right_z
    turret = turret_error * turret_per_rad + turning_rad_s / traverse_rate_rad_s
    elevation = elevation_error * elevation_per_rad - pitching_rad_s / elevation_rate_rad_s
    # Clamped as min(1, max(-1, x)) is, NaN to -1, without calling them.
    return (1.0 if turret > 1.0 else (turret if turret > -1.0 else -1.0),
            1.0 if elevation > 1.0 else (elevation if elevation > -1.0 else -1.0))


def direction(heading_rad: float, elevation_rad: float) -> tuple[float, float, float]:
    """Unit vector at a compass heading (from +Y, + toward +X) and an elevation."""
    return (math.sin(heading_rad) * math.cos(elevation_rad),
            math.cos(heading_rad) * math.cos(elevation_rad), math.sin(elevation_rad))


class Gunnery:
    """One bot's aim point and shell choice (with what it has weighed before)."""

    def __init__(self, spec: GunnerySpec, penetration: PenetrationSpec):
        self.spec = spec
        self.penetration = penetration
        self._choices: dict[tuple, int | None] = {}
        self._speeds: dict[tuple[int, int], float] = {}
        self._shells: list[ShellSpec] | None = None
        """The bot's gun's shells and how each flies, by slot (known at the first look)."""
        self._flights: list[Flight] = []
        self.slot: int | None = None
        """The ammunition slot chosen for the next reload (None: none yet)."""

    def aim(self, level, simulation, me, target, muzzle_ws: tuple[float, float, float],
            middle_ws, spotting: SpottingSpec, weigh: bool) -> tuple[float, float, float]:
        """The world point ``level`` aims at on ``target`` from ``muzzle_ws`` (plain floats;
        :func:`aim_point_ws`). With ``weigh`` (the gun is loaded and the target in sight:
        a shot may follow) the straight line to it must also clear the ground as a sight
        line must (``spotting``), else the bot aims at the hull's middle (``middle_ws``),
        and the shell for the next reload is chosen (:meth:`choose`)."""
        aimed = aim_point_ws(level.aim_front_m, level.aim_side_m, self.spec.side_exposed_deg,
                             muzzle_ws, target)
        if not weigh:
            return aimed
        if not sight_clear(simulation.terrain, muzzle_ws, aimed, spotting.sight_step_m,
                           spotting.sight_clearance_m):
            middle_x, middle_y, middle_z = np.asarray(middle_ws).tolist()
            aimed = (middle_x, middle_y, middle_z)
        self.choose(simulation.combat, me, target, muzzle_ws, aimed,
                    math.dist(muzzle_ws, aimed))
        return aimed

    def choose(self, combat, me, target, muzzle_ws, aim_ws, range_m: float) -> int | None:
        """The slot ``me`` loads next against ``target`` from ``muzzle_ws``, aiming at
        ``aim_ws`` ``range_m`` away (``combat``: the shells and how they fly)."""
        gun = me.spec.gun
        if self._shells is None:
            self._shells = [combat.shells_config.shells[load.shell] for load in gun.ammunition]
            self._flights = [combat.flight_of(shell) for shell in self._shells]
        spec = self.spec
        state = target.current
        right, forward, _ = state.axes_ws().tolist()
        position_x, position_y, position_z = state.position_ws.tolist()
        muzzle_x, muzzle_y, muzzle_z = muzzle_ws
        offset = (muzzle_x - position_x, muzzle_y - position_y, muzzle_z - position_z)
        bearing_deg = math.degrees(math.atan2(float_dot(right, offset),
                                              float_dot(forward, offset)))
        turret_deg = (math.degrees(target.aim.turret_heading_rad) if target.aim is not None
                      else 0.0)
        band = int(range_m // spec.range_band_m)
        ammunition = me.aim.ammunition
        key = (id(target.spec), band, round(bearing_deg / spec.aspect_band_deg),
               round(turret_deg / spec.aspect_band_deg),
               tuple(count > 0 for count in ammunition.rounds))
        if key not in self._choices:
            axes = state.axes_ws()
            muzzle = np.array([muzzle_x, muzzle_y, muzzle_z])
            self._choices[key] = self._weigh(
                self._shells, self._flights, ammunition, gun.shell_lifetime_s, target,
                axes @ (muzzle - state.position_ws), axes @ (np.asarray(aim_ws) - muzzle),
                (band + 0.5) * spec.range_band_m)
        self.slot = self._choices[key]
        return self.slot

    def _weigh(self, shells: list[ShellSpec], flights: list[Flight],
               ammunition: AmmunitionState, lifetime_s: float, target, origin_bs,
               direction_bs, range_m: float) -> int | None:
        """The rule above, for a shot from ``origin_bs`` along ``direction_bs`` (the
        target's body frame) ``range_m`` away."""
        spec = target.spec
        carried = [slot for slot, count in enumerate(ammunition.rounds) if count > 0]
        if not carried:
            return None
        if target.aim is None:  # unarmoured (a car): the shell that does the most harm
            return max(carried, key=lambda slot: (shells[slot].damage, -slot))
        met = first_plate(spec.plates, origin_bs, direction_bs, target.aim.turret_heading_rad,
                          spec.gun.turret_pivot_m)
        if met is None:  # its line misses every plate: the gun's first shell
            return carried[0]
        angle_deg = impact_angle_deg(direction_bs, met.normal_bs)
        piercing, most, best_mm = [], None, -1.0
        for slot in carried:
            shell = shells[slot]
            speed_mps = self._striking_mps(slot, shell, flights[slot], range_m, lifetime_s)
            struck = strike(shell, speed_mps, angle_deg, met.plate.thickness_mm,
                            self.penetration)
            if struck.pierced and struck.penetration_mm >= (self.spec.pierce_margin
                                                            * struck.effective_mm):
                piercing.append(slot)
            if struck.penetration_mm > best_mm:
                most, best_mm = slot, struck.penetration_mm
        if piercing:
            return max(piercing, key=lambda slot: (shells[slot].damage, -slot))
        blast = [slot for slot in carried if shells[slot].kind == HE]
        return blast[0] if blast else most

    def _striking_mps(self, slot: int, shell: ShellSpec, flight: Flight, range_m: float,
                      lifetime_s: float) -> float:
        """The speed ``shell`` strikes at ``range_m`` away, fired level (0 out of reach)."""
        key = (slot, round(range_m))
        if key not in self._speeds:
            there = flight_to_distance(np.zeros(3), np.array([0.0, shell.muzzle_velocity_mps,
                                                              0.0]), flight, range_m,
                                       lifetime_s)
            self._speeds[key] = 0.0 if there is None else float(np.linalg.norm(there[2]))
        return self._speeds[key]
