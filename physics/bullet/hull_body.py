"""A vehicle's Bullet body built from its armour plates, with a turret that turns.

A tank's collider is its plates (:mod:`physics.model.plate_solids`): a compound of convex
hulls in the body frame, whose origin is the centre of mass (the plates are given in it,
so no shape is offset). The hull's plates close a convex solid and make one piece; the
turret's pieces (its body, the mantlet standing out of it) are children of the same
compound placed at the turret ring and turned to the turret's heading by
:class:`TurretCollider`, so shells, other hulls and the ground meet the turret where it
is drawn, and Bullet's contacts name the one body the handle map knows. A vehicle without
plates (the car) keeps the hull box of :func:`physics.bullet.bodies.make_hull_body`.

Mass and inertia stay those of the hull box (:class:`~physics.model.hull.HullSpec`),
whatever the pieces: Bullet would take a compound's inertia from its bounding box, turret
and all, and a tank would drive and roll differently. Every change of the compound's
children makes Panda work the inertia out afresh, so it is set back each time.

Nothing can meet the pieces of a tank that stands clear of every other body and of the
ground, with no shell near: there they are left where they stand while the turret turns,
and turned as soon as something comes near (the fleet's tests,
:meth:`~physics.bullet.fleet.VehicleFleet.in_touch` and ``within_reach``: closer where a
shell comes than where only bodies or the ground do), as the turret stops, or before a
query meets the bodies (:meth:`TurretCollider.catch_up`: the crosshair's arc).

Turning the turret: Panda cannot move a child inside a compound, so the turret's pieces
are taken out and put back at the new heading. Two sets of the pieces take turns (the new
set goes in before the old comes out), so the compound never drops to one child, which
Panda would replace by the bare child (a new root shape under a body Bullet has paired).
Removing a child fills its place with the compound's last, so the old set comes out last
first, and the children stay in the order Panda lists the shapes. This is done only on a
step where the heading changed by more than 2 cm at the turret's farthest corner, or the
turret stopped short of where they stand (:data:`TURRET_FOLLOW_M`): about 5 microseconds
a tank that turns (and Bullet then pairs that body's pieces afresh).

:func:`collider_hull` is the hull box grown to hold the collider with its turret at any
heading: the box the fleet's near tests and the hull's pair with the map's edges measure
(:mod:`physics.bullet.fleet`, :mod:`physics.bullet.hull_pairs`). Its pair with the terrain
tests :func:`collider_parts`, a box round the hull and one round the turret.
"""

from __future__ import annotations

import dataclasses
import math
from functools import lru_cache

import numpy as np
from panda3d.bullet import BulletBoxShape, BulletConvexHullShape, BulletRigidBodyNode
from panda3d.core import (PTA_LVecBase3f, LVecBase3f, NodePath, Point3, TransformState, Vec3)

from physics.bullet import groups
from physics.bullet.bodies import make_hull_body
from physics.model.armour import PlateLayout
from physics.model.hull import HullSpec
from physics.model.hull_clearance import PartBox
from physics.model.plate_solids import (collider_pieces, part_bounds, part_plates,
                                         swept_bounds)

COLLIDER_MARGIN_M = 0.04
"""Bullet's collision margin round each convex piece (its default); the pieces are moved in
by it, so their faces stand where the plates' do."""
TURRET_FOLLOW_M = 0.02
"""While the turret turns with a shell near, its pieces are turned once its farthest
corner would stand more than this far from where they are (0.6 degrees for a turret 1.9 m
round): a gun aimed to and fro by tenths of a degree leaves them be (bots' guns do, most
steps). The margin rounds the pieces' edges by more; a shell striking them is then cast
against the plates where they are (:mod:`game.sim.armour_hits`). A turret that stops
has them turned to where it stopped."""
TURRET_CONTACT_FOLLOW_M = 0.1
"""As :data:`TURRET_FOLLOW_M`, while only other bodies or the ground may touch the turret:
a contact a few centimetres off is not felt (Bullet's own margin rounds every edge by
4 cm), and every turn makes Bullet pair the pieces afresh with what is near."""


@lru_cache(maxsize=16)
def box_inertia(spec: HullSpec) -> LVecBase3f:
    """The inertia Bullet gives the hull box of ``spec`` at its mass (what
    :func:`~physics.bullet.bodies.make_hull_body`'s body has)."""
    return LVecBase3f(make_hull_body(spec, "inertia").getInertia())


def convex_shape(corners: np.ndarray, margin_m: float) -> BulletConvexHullShape:
    shape = BulletConvexHullShape()
    shape.addArray(PTA_LVecBase3f([LVecBase3f(*point) for point in corners.tolist()]))
    shape.setMargin(margin_m)
    return shape


def _plates(spec) -> PlateLayout | None:
    plates = getattr(spec, "plates", None)
    return plates if plates is not None and plates.plate else None


class TurretCollider:
    """The turret's convex pieces in a hull body's compound, turned with the turret.

    ``pivot_m``: the turret ring's centre in the body frame (the turret plates' origin);
    the pieces stand at heading 0 when made. :meth:`turn` puts them at another."""

    def __init__(self, body: BulletRigidBodyNode, pieces: list[tuple[np.ndarray, float]],
                 pivot_m, inertia: LVecBase3f):
        self.body = body
        self.reach_m = max(float(np.hypot(corners[:, 0], corners[:, 1]).max() + margin)
                           for corners, margin in pieces)
        """The farthest any corner of the pieces stands from the turret ring's centre."""
        self._pivot = Point3(*pivot_m)
        self._inertia = inertia
        self._pieces = pieces
        self._sets = [[convex_shape(corners, margin) for corners, margin in pieces]
                      for _ in range(2)]
        self._in = 0
        """Which of the two sets is in the compound."""
        self.heading_rad = 0.0
        """The heading the pieces stand at (+ right, as the gun's)."""
        self._asked_rad = 0.0
        """The heading :meth:`turn` was last asked for."""
        placed = self._placed(0.0)
        for shape in self._sets[self._in]:
            body.addShape(shape, placed)

    @property
    def shapes(self) -> list[BulletConvexHullShape]:
        """The pieces in the compound now."""
        return self._sets[self._in]

    def _placed(self, heading_rad: float) -> TransformState:
        # Panda's heading turns +Y towards -X; the turret's turns it towards +X.
        return TransformState.makePosHpr(self._pivot, Vec3(-math.degrees(heading_rad), 0, 0))

    def turn(self, heading_rad: float, follow_m: float | None = TURRET_FOLLOW_M) -> bool:
        """Stand the pieces at the turret's ``heading_rad`` (asked each step); whether they
        moved. While the turret turns, only where something may touch them (``follow_m``
        not None), and not where that is within ``follow_m`` at their farthest corner of
        where they stand; once it stands (asked the same heading twice running), exactly
        there."""
        turning, self._asked_rad = heading_rad != self._asked_rad, heading_rad
        if heading_rad == self.heading_rad or (turning and (
                follow_m is None or self.lag_m(heading_rad) <= follow_m)):
            return False
        return self.place(heading_rad)

    def lag_m(self, heading_rad: float) -> float:
        """How far the pieces' farthest corner stands from where it would at
        ``heading_rad``, along its arc."""
        return abs(heading_rad - self.heading_rad) * self.reach_m

    @property
    def behind(self) -> bool:
        """Whether the pieces stand elsewhere than the heading last asked."""
        return self.heading_rad != self._asked_rad

    def catch_up(self) -> bool:
        """Stand the pieces exactly at the heading last asked (for a query that meets the
        bodies: a ray along a shell's arc); whether they moved."""
        return self.behind and self.place(self._asked_rad)

    def throw(self, name: str, mass_kg: float, heading_rad: float, velocity_ws,
              angular_velocity_ws) -> BulletRigidBodyNode:
        """Take the turret off the hull (an ammo rack went up): its pieces leave the
        hull's compound and become a loose body of their own of ``mass_kg``, where the
        turret stands at ``heading_rad`` (as it is drawn), moving at ``velocity_ws`` and
        turning at ``angular_velocity_ws`` (rad/s). The returned body is not yet in a
        world; the collider is done with (its vehicle drops it)."""
        hull_ws = NodePath(self.body).getTransform()
        thrown = BulletRigidBodyNode(name)
        for corners, margin in self._pieces:
            thrown.addShape(convex_shape(corners, margin))
        for shape in reversed(self._sets[self._in]):
            self.body.removeShape(shape)
        self.body.setInertia(self._inertia)
        self._sets = [[], []]
        thrown.setMass(mass_kg)
        thrown.setTransform(hull_ws.compose(self._placed(heading_rad)))
        thrown.setLinearVelocity(Vec3(*velocity_ws))
        thrown.setAngularVelocity(Vec3(*angular_velocity_ws))
        thrown.setDeactivationEnabled(False)
        thrown.setIntoCollideMask(groups.mask_of(groups.DEBRIS))
        return thrown

    def place(self, heading_rad: float) -> bool:
        """Stand the pieces at ``heading_rad``, now."""
        placed, body = self._placed(heading_rad), self.body
        old, new = self._sets[self._in], self._sets[1 - self._in]
        for shape in new:
            body.addShape(shape, placed)
        for shape in reversed(old):  # Bullet fills a child's place with the last: the
            body.removeShape(shape)    # compound's order stays Panda's list's
        body.setInertia(self._inertia)  # each change above worked it out from the shapes
        self._in = 1 - self._in
        self.heading_rad = heading_rad
        return True


def make_vehicle_body(spec, name: str) -> tuple[BulletRigidBodyNode, TurretCollider | None]:
    """The dynamic body of a vehicle of ``spec`` (a tank's or a car's): its plates' convex
    pieces where it has plates (with the turret's, turned by the returned collider, where
    it has a gun), else the hull box. Mass and inertia are the hull box's either way."""
    hull: HullSpec = spec.hull
    plates = _plates(spec)
    if plates is None:
        return make_hull_body(hull, name), None
    body = BulletRigidBodyNode(name)
    for piece in collider_pieces(plates, "hull", COLLIDER_MARGIN_M):
        body.addShape(convex_shape(piece.corners, piece.margin_m))
    if part_plates(plates, "turret") and not body.getNumShapes():  # no hull plates: the
        body.addShape(BulletBoxShape(Vec3(hull.half_extents_m[0], hull.half_extents_m[1],  # box
                                          hull.half_extents_m[2])),        # stands for them
                      TransformState.makePos(Point3(0.0, 0.0, hull.centre_of_mass_drop_m)))
    turret = fit_turret(spec, body)
    body.setMass(hull.mass_kg)
    body.setInertia(box_inertia(hull))
    body.setFriction(hull.friction)
    body.setAngularDamping(hull.angular_damping)
    body.setDeactivationEnabled(False)
    body.setIntoCollideMask(groups.mask_of(groups.HULL))
    return body, turret


def fit_turret(spec, body: BulletRigidBodyNode) -> TurretCollider | None:
    """The turret's pieces of a vehicle of ``spec`` put into ``body``'s compound at heading
    0, and the collider that turns them (None: no turret plates): a new tank's, or one whose
    turret was thrown off (:meth:`TurretCollider.throw`), made whole for a new round."""
    plates = _plates(spec)
    pieces = [] if plates is None else [
        (piece.corners, piece.margin_m)
        for piece in collider_pieces(plates, "turret", COLLIDER_MARGIN_M)]
    return (TurretCollider(body, pieces, _turret_pivot_m(spec), box_inertia(spec.hull))
            if pieces else None)


def collider_hull(spec) -> HullSpec:
    """``spec.hull`` with its box grown to hold the whole collider: the hull's plates and
    the turret's at any heading (the box itself where the vehicle has no plates)."""
    plates = _plates(spec)
    bounds = None if plates is None else swept_bounds(plates, _turret_pivot_m(spec))
    if bounds is None:
        return spec.hull
    box = _box_holding(spec.hull, *bounds)
    return dataclasses.replace(spec.hull, half_extents_m=box.half_extents_m,
                               centre_of_mass_drop_m=box.centre_lift_m)


def collider_parts(spec) -> tuple[PartBox, ...]:
    """Boxes that between them hold the whole collider, each as tight as a box round one
    part can be: the hull's (its plates and its box) and, above it, the turret's at any
    heading; the hull box alone where the vehicle has no plates. What the clearance test
    tests against the ground (:mod:`physics.bullet.hull_pairs`): one box round both would
    stand the turret's floor as low as the hull's."""
    plates = _plates(spec)
    if plates is None:
        return (PartBox.of_hull(spec.hull),)
    pivot_m = _turret_pivot_m(spec)
    hull_bounds = part_bounds(plates, "hull", pivot_m)
    turret_bounds = part_bounds(plates, "turret", pivot_m)
    parts = [_box_holding(spec.hull, *(hull_bounds or _no_bounds()))]
    if turret_bounds is not None:
        parts.append(_box_holding(None, *turret_bounds))
    return tuple(parts)


def _turret_pivot_m(spec) -> tuple[float, float, float]:
    """The turret ring's centre in the body frame (the origin for a vehicle without a gun)."""
    gun = getattr(spec, "gun", None)
    return gun.turret_pivot_m if gun is not None else (0.0, 0.0, 0.0)


def _no_bounds() -> tuple[np.ndarray, np.ndarray]:
    """Bounds that hold nothing: the least box round them and a hull's box is that box."""
    return np.full(3, np.inf), np.full(3, -np.inf)


def _box_holding(hull: HullSpec | None, low: np.ndarray, high: np.ndarray) -> PartBox:
    """The least box round the body's vertical axis that holds ``low``..``high`` and
    ``hull``'s own box (where given), its centre no lower than the centre of mass."""
    if hull is not None:
        half = np.asarray(hull.half_extents_m, dtype=float)
        drop = hull.centre_of_mass_drop_m
        low = np.minimum(low, -half + (0.0, 0.0, drop))
        high = np.maximum(high, half + (0.0, 0.0, drop))
    reach = np.maximum(-low, high)
    high_z = max(high[2], -low[2])
    return PartBox((float(reach[0]), float(reach[1]), float((high_z - low[2]) / 2)),
                   float((high_z + low[2]) / 2))
