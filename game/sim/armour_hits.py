"""A shell meeting a vehicle's armour: which plate it struck, at what angle, and what came
of it (penetrated, blocked, ricochet, overmatch).

Bullet finds that a shell touched a hull; the plates (:mod:`physics.model.armour`, the
tank's ``[plates]``) say what it touched. The shell's path is followed back out of the
hull and cast again in the hull's frame against every plate (the turret's turned with
the turret): the first plate it enters is the one struck, and its face's normal gives
the angle. The penetration model (:mod:`physics.model.penetration`) decides the rest.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from game.sim.vehicles import Vehicle
from physics.model.ammunition import ShellSpec
from physics.model.armour import PlateHit, first_plate, impact_angle_deg
from physics.model.broadphase import points_near_path
from physics.model.penetration import RICOCHET, PenetrationSpec, Strike, strike

BACK_OUT_M = 12.0
"""How far back along its path a struck shell's ray starts: outside any hull's plates."""


@dataclass(frozen=True)
class ArmourHit:
    """The plate a shell struck and what came of it; ``normal_ws`` the face's outward
    normal in the world (a ricochet leaves along it)."""

    plate: str
    strike: Strike
    normal_ws: np.ndarray
    point_bs: np.ndarray | None = None
    """Where it met the plate, in the struck vehicle's body frame (None: a range plate)."""
    direction_bs: np.ndarray | None = None
    """The shell's unit direction there, in the same frame."""


def armour_hit(vehicle: Vehicle, position_ws: np.ndarray, velocity_ws: np.ndarray,
               shell: ShellSpec, spec: PenetrationSpec) -> ArmourHit | None:
    """What ``shell``, arriving at ``velocity_ws`` where Bullet found it touching the hull
    (``position_ws``), struck of ``vehicle``'s armour; None where its path meets no plate
    (a vehicle without plates, or a graze along an edge the plates leave open)."""
    speed_mps = float(np.linalg.norm(velocity_ws))
    if speed_mps == 0.0 or not vehicle.spec.plates.plate:
        return None
    point_bs, direction_bs = hull_frame(vehicle, position_ws,
                                        np.asarray(velocity_ws, dtype=float) / speed_mps)
    met = plate_on_line(vehicle, point_bs - direction_bs * BACK_OUT_M, direction_bs)
    if met is None:
        return None
    angle_deg = impact_angle_deg(direction_bs, met.normal_bs)
    result = strike(shell, speed_mps, angle_deg, met.plate.thickness_mm, spec)
    return ArmourHit(met.plate.name, result, met.normal_bs @ vehicle.current.axes_ws(),
                     met.point_bs, direction_bs)


def hull_frame(vehicle: Vehicle, point_ws, vector_ws) -> tuple[np.ndarray, np.ndarray]:
    """A point and a vector in the world, in ``vehicle``'s body frame (at its last step)."""
    return vehicle.current.in_body_frame(point_ws, vector_ws)


def plate_on_line(vehicle: Vehicle, origin_bs: np.ndarray, direction_bs: np.ndarray,
                  turret_heading_rad: float | None = None) -> PlateHit | None:
    """The first of ``vehicle``'s plates a line in its body frame enters (its turret's
    turned to ``turret_heading_rad``; None: as the turret stands), or None."""
    if turret_heading_rad is None:
        turret_heading_rad = vehicle.aim.turret_heading_rad if vehicle.aim is not None else 0.0
    return first_plate(vehicle.spec.plates, origin_bs, direction_bs, turret_heading_rad,
                       vehicle.spec.gun.turret_pivot_m)


def plates_on_path(path_ws: np.ndarray, vehicles) -> tuple[float, np.ndarray] | None:
    """Where a path (its points, (C + 1, 3), straight between them: a shell's arc in
    chords) first enters the plates of one of ``vehicles`` (armed ones, as they stand or
    are drawn): how far along the path, and the point; None where it enters none."""
    armed = [vehicle for vehicle in vehicles
             if vehicle.aim is not None and vehicle.spec.plates.plate]
    if not armed or len(path_ws) < 2:
        return None
    centres = np.array([vehicle.current.position_ws for vehicle in armed])
    reach_m = np.array([vehicle.collider_reach_m for vehicle in armed])
    near = points_near_path(centres, path_ws, reach_m)
    candidates = [vehicle for vehicle, close in zip(armed, near.tolist()) if close]
    flown_m = 0.0
    for start, end in zip(path_ws[:-1], path_ws[1:]):
        chord = end - start
        length_m = float(np.linalg.norm(chord))
        if length_m == 0.0:
            continue
        nearest: tuple[float, np.ndarray] | None = None
        for vehicle in candidates:
            origin_bs, direction_bs = hull_frame(vehicle, start, chord / length_m)
            met = plate_on_line(vehicle, origin_bs, direction_bs)
            if met is not None and met.distance_m <= length_m and (
                    nearest is None or met.distance_m < nearest[0]):
                nearest = (met.distance_m, start + chord * (met.distance_m / length_m))
        if nearest is not None:
            return flown_m + nearest[0], nearest[1]
        flown_m += length_m
    return None


RANGE_PLATE_FACE = "face"
"""What a firing-range plate's hit names as the plate struck: it has the one."""


def plate_hit(thickness_mm: float, normal_ws: np.ndarray, velocity_ws: np.ndarray,
              shell: ShellSpec, spec: PenetrationSpec) -> ArmourHit:
    """What ``shell`` did to a firing-range plate ``thickness_mm`` thick, meeting its face
    (outward ``normal_ws``, as Bullet found it) at ``velocity_ws``."""
    velocity = np.asarray(velocity_ws, dtype=float)
    speed_mps = float(np.linalg.norm(velocity))
    normal = np.asarray(normal_ws, dtype=float)
    if float(normal @ velocity) > 0.0:  # the face's normal as the shell meets it
        normal = -normal
    angle_deg = impact_angle_deg(velocity, normal) if speed_mps else 0.0
    return ArmourHit(RANGE_PLATE_FACE, strike(shell, speed_mps, angle_deg, thickness_mm, spec),
                     normal)


PIERCES, MAY_PIERCE, WILL_NOT_PIERCE = "pierces", "may pierce", "will not pierce"
"""The crosshair's three verdicts on the plate it is on, for the loaded shell."""


def aim_verdict(target: Vehicle, point_ws: np.ndarray, arrival_velocity_ws: np.ndarray,
                shell: ShellSpec, spec: PenetrationSpec) -> str | None:
    """Whether ``shell``, arriving at ``arrival_velocity_ws`` where the crosshair meets
    ``target`` (``point_ws``, on its collider), would pierce the plate there: one of
    :data:`PIERCES`, :data:`MAY_PIERCE` (within ``uncertain_share`` either way) and
    :data:`WILL_NOT_PIERCE` (a ricochet too); None where it meets no plate."""
    met = armour_hit(target, point_ws, arrival_velocity_ws, shell, spec)
    if met is None:
        return None
    result = met.strike
    if result.result == RICOCHET:
        return WILL_NOT_PIERCE
    armour_mm = result.effective_mm
    if result.penetration_mm >= armour_mm * (1.0 + spec.uncertain_share):
        return PIERCES
    if result.penetration_mm <= armour_mm * (1.0 - spec.uncertain_share):
        return WILL_NOT_PIERCE
    return MAY_PIERCE


def ricochet_velocity_ws(velocity_ws: np.ndarray, normal_ws: np.ndarray,
                         speed_share: float) -> np.ndarray:
    """A glancing shell's velocity leaving the plate: mirrored in its face, slowed."""
    velocity = np.asarray(velocity_ws, dtype=float)
    mirrored = velocity - 2.0 * float(velocity @ normal_ws) * normal_ws
    return mirrored * speed_share
