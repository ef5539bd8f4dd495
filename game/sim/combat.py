"""Combat rules: firing, what a hit does, splash, wrecks, and the firing range's plates.

The physics of a shot (the shell's flight, its first contact) is
:mod:`physics.model.ballistics`; here a hit becomes damage. A direct hit on a tank does the
gun's impact damage, scaled by how squarely it met the armour (past the
ricochet angle it glances off); every hit also blasts a sphere whose bodies are
found with a Bullet overlap query, each taking splash damage that falls with
its distance from the blast. A tank at zero health is destroyed: it ignores its
controls and stays where it is as a wreck.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from panda3d.bullet import BulletBoxShape, BulletRigidBodyNode, BulletSphereShape
from panda3d.core import Point3, TransformState, Vec3

from physics.bullet.shells import Hit
from physics.model.ballistics import GunSpec
from physics.model.spec import Spec, SpecError, tuning
from physics.bullet.world import PhysicsWorld


@dataclass(frozen=True)
class RangeSpec(Spec):
    """The firing range: steel plates straight ahead of the spawn."""

    plate_distances_m: tuple[float, ...] = tuning("how far ahead of the spawn each plate "
                                                  "stands", minimum=10.0, maximum=3000.0,
                                                  length=(1, 10))
    plate_offsets_m: tuple[float, ...] = tuning("each plate's sideways offset (+ right), so "
                                                "no plate hides another", minimum=-500.0,
                                                maximum=500.0, length=(1, 10))
    plate_half_extents_m: tuple[float, ...] = tuning("half width, half thickness, half height",
                                                     minimum=0.01, maximum=20.0, length=(3, 3))
    plate_clearance_m: float = tuning("gap under each plate", minimum=0.0, maximum=10.0)
    spawn_from_edge_m: float = tuning("the spawn's distance from the map's near edge",
                                      minimum=10.0, maximum=1000.0)

    def __post_init__(self) -> None:
        super().__post_init__()
        if len(self.plate_offsets_m) != len(self.plate_distances_m):
            raise SpecError("plate_offsets_m", self.plate_offsets_m,
                            f"one offset per plate distance ({len(self.plate_distances_m)})")


@dataclass(frozen=True, eq=False)  # owners in the handle map: hashed by identity
class Plate:
    """A static steel target."""

    name: str
    position_ws: np.ndarray
    half_extents_m: tuple[float, ...]
    heading_deg: float = 0.0


def build_plates(world: PhysicsWorld, spec: RangeSpec, spawn_xy, ground_m: float) -> list[Plate]:
    """Plates straight ahead (+Y) of the spawn, facing it, registered in the handle map."""
    plates = []
    half = spec.plate_half_extents_m
    for distance, offset in zip(spec.plate_distances_m, spec.plate_offsets_m):
        centre = np.array([spawn_xy[0] + offset, spawn_xy[1] + distance,
                           ground_m + spec.plate_clearance_m + half[2]])
        plate = Plate(f"plate-{distance:g}m", centre, half)
        body = BulletRigidBodyNode(plate.name)
        body.addShape(BulletBoxShape(Vec3(*half)))
        body.setTransform(TransformState.makePos(Point3(*centre)))
        world.add_body(body, owner=plate)
        plates.append(plate)
    return plates


def target_name(target) -> str:
    """What a hit struck, in words for the event log."""
    name = getattr(target, "name", None)
    if name is not None:
        return name
    return type(target).__name__.lower() if target is not None else "nothing"


def angle_factor(normal_ws: np.ndarray, velocity_ws: np.ndarray, ricochet_angle_deg: float
                 ) -> float:
    """Share of impact damage by how squarely the shell met the face (0: it glanced off)."""
    speed = np.linalg.norm(velocity_ws)
    if speed == 0.0:
        return 1.0
    square = abs(float(normal_ws @ velocity_ws)) / speed  # cosine of the angle from square
    return square if square >= math.cos(math.radians(ricochet_angle_deg)) else 0.0


def splash_victims(world: PhysicsWorld, centre_ws: np.ndarray, radius_m: float) -> list:
    """The owners of every body a blast of ``radius_m`` reaches (a Bullet overlap query with
    a sphere). Only which bodies overlap is read: Panda's manifold points from a contact
    test are not reliable to read back, so distances are measured by the caller."""
    probe = BulletRigidBodyNode("blast")
    probe.addShape(BulletSphereShape(radius_m))
    probe.setTransform(TransformState.makePos(Point3(*centre_ws)))
    result = world.bullet.contactTest(probe)
    owners = []
    for contact in result.getContacts():
        other = contact.getNode1() if contact.getNode0() == probe else contact.getNode0()
        owner = world.handles.owner_of(other)
        if owner is not None and owner not in owners:
            owners.append(owner)
    return owners


def distance_to_box(point_ws: np.ndarray, centre_ws: np.ndarray, axes_ws: np.ndarray,
                    half_extents_m) -> float:
    """Distance from a point to an oriented box (0 inside). ``axes_ws`` rows: box axes."""
    local = axes_ws @ (np.asarray(point_ws) - centre_ws)
    outside = np.maximum(np.abs(local) - np.asarray(half_extents_m), 0.0)
    return float(np.linalg.norm(outside))


def splash_damage(gun: GunSpec, distance_m: float) -> float:
    """Blast damage at a distance: full at the centre, nothing at the radius."""
    return gun.splash_damage * max(0.0, 1.0 - distance_m / gun.splash_radius_m)


def hit_event(hit: Hit, shooter_name: str) -> dict:
    return {"type": "hit", "shooter": shooter_name, "target": target_name(hit.target),
            "point": [round(float(v), 3) for v in hit.position_ws],
            "normal": [round(float(v), 4) for v in hit.normal_ws],
            "speed_ms": round(float(np.linalg.norm(hit.velocity_ws)), 2)}
