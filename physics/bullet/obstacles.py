"""What a fleet's anchors may stand on besides the terrain and the fleet's own vehicles:
crates, rocks, wrecks, the other fleet's vehicles.

A :class:`~physics.bullet.fleet.VehicleFleet` casts an anchor's ray through Bullet only
where it could meet one of these. A static body's bounds are taken once, when it is
added: a bounding sphere and, where given, a box round its shapes (a rock's), which
spares Bullet the rays that pass near the sphere but beside the box. A moving body's
sphere is read each time the obstacles are asked for.
"""

from __future__ import annotations

import numpy as np
from panda3d.bullet import BulletRigidBodyNode
from panda3d.core import Point3

from physics.bullet.poses import body_states
from physics.model.ray_narrowing import DOP_AXES, Boxes

RAY_SLACK_M = 0.05
"""Room added to every body's bounding sphere and hull box when choosing the rays cast through
Bullet: more than Bullet's single-precision shapes and collision margins stand out of them."""

_NO_BOXES = Boxes(np.zeros((0, 3)), np.zeros((0, 3, 3)), np.zeros((0, 3)),
                  np.zeros((0, len(DOP_AXES), 3)), np.zeros((0, len(DOP_AXES), 2)))
_NO_CUTS = np.tile([-np.inf, np.inf], (len(DOP_AXES), 1))
"""A box's further faces where it has none: every ray passes between them."""


def bounding_sphere(body: BulletRigidBodyNode) -> tuple[np.ndarray, float]:
    """World centre and radius of a sphere around the body's shapes."""
    bounds = body.getShapeBounds()
    return (np.array(body.getTransform().getMat().xformPoint(bounds.getCenter())),
            bounds.getRadius())


def _static_box(body: BulletRigidBodyNode, bounds_bs) -> tuple[np.ndarray, ...]:
    """A static body's box in the world (centre, axes as rows, half extents) and its
    further faces (:data:`~physics.model.ray_narrowing.DOP_AXES` turned with it, and
    their reach from the centre), all grown by :data:`RAY_SLACK_M`, from its bounds in its
    own frame: (centre, half extents) for a box, with the faces' reach, (K, 2), for a
    k-DOP (a rock's); None: an infinite box, which leaves the body to its sphere."""
    matrix = body.getTransform().getMat()
    axes_ws = np.array(matrix.getUpper3())  # Panda's rows: the body's axes
    slab_axes_ws = DOP_AXES @ axes_ws
    if bounds_bs is None:
        return np.array(matrix.getRow3(3)), axes_ws, np.full(3, np.inf), slab_axes_ws, _NO_CUTS
    centre_bs, half_extents_m, *faces = bounds_bs
    cuts = (np.asarray(faces[0], dtype=float) + (-RAY_SLACK_M, RAY_SLACK_M) if faces
            else _NO_CUTS)
    return (np.array(matrix.xformPoint(Point3(*np.asarray(centre_bs, dtype=float)))), axes_ws,
            np.asarray(half_extents_m, dtype=float) + RAY_SLACK_M, slab_axes_ws, cuts)


class Obstacles:
    """The bodies besides the terrain that a fleet's anchors may stand on: the moving ones,
    and the static ones as bounding spheres with a box for each."""

    def __init__(self):
        self.moving: list[BulletRigidBodyNode] = []
        """Bodies with mass: their spheres are read each time."""
        self._moving_bounds_bs = np.zeros((0, 3))
        self._moving_radii = np.zeros(0)
        """Each moving body's bounding sphere in its own frame: centre (O, 3), radius (O,)
        (its shapes do not change: only its pose is read each time)."""
        self.static_bodies: list[BulletRigidBodyNode] = []
        self.static_centres = np.zeros((0, 3))
        self.static_radii = np.zeros(0)
        """The static bodies' bounding spheres, centres (S, 3) and radii (S,)."""
        self.static_boxes = _NO_BOXES
        """The static bodies' boxes (grown by the slack), one for each sphere."""

    def add(self, bodies: list[BulletRigidBodyNode], boxes_bs=None) -> bool:
        """Bodies anchors may stand on, with bounds round each one's shapes in its own
        frame: a box, (centre, half extents), or a k-DOP, with the reach along each of
        :data:`~physics.model.ray_narrowing.DOP_AXES` too (a rock's ``bounds_bs``), or None
        (its sphere alone); a body with mass is moving, and its bounds are not used.
        Whether a static one was added (a near test made before no longer holds)."""
        static, static_boxes = [], []
        for body, box_bs in zip(bodies, boxes_bs or [None] * len(bodies)):
            if body.getMass() > 0.0:
                self.moving.append(body)
                bounds = body.getShapeBounds()
                self._moving_bounds_bs = np.vstack([self._moving_bounds_bs,
                                                    np.array(bounds.getCenter())])
                self._moving_radii = np.append(self._moving_radii, bounds.getRadius())
            else:
                static.append(body)
                static_boxes.append(_static_box(body, box_bs))
        if not static:
            return False
        spheres = [bounding_sphere(body) for body in static]
        self.static_bodies.extend(static)
        self.static_centres = np.concatenate(
            [self.static_centres, np.array([centre for centre, _ in spheres])])
        self.static_radii = np.append(self.static_radii, [radius for _, radius in spheres])
        self.static_boxes = Boxes(*(np.concatenate([kept, np.array(added)]) for kept, added
                                    in zip(self.static_boxes, zip(*static_boxes))))
        return True

    def remove(self, bodies: list[BulletRigidBodyNode]) -> bool:
        """Bodies anchors could stand on are gone. Whether a static one was among them."""
        gone = set(bodies)
        moving = [index for index, body in enumerate(self.moving) if body not in gone]
        self.moving = [self.moving[index] for index in moving]
        self._moving_bounds_bs = self._moving_bounds_bs[moving]
        self._moving_radii = self._moving_radii[moving]
        kept = [index for index, body in enumerate(self.static_bodies) if body not in gone]
        if len(kept) == len(self.static_bodies):
            return False
        self.static_bodies = [self.static_bodies[index] for index in kept]
        self.static_centres = self.static_centres[kept]
        self.static_radii = self.static_radii[kept]
        self.static_boxes = Boxes(*(array[kept] for array in self.static_boxes))
        return True

    def spheres(self, within_s: float) -> tuple[np.ndarray, np.ndarray]:
        """The static bodies' bounding spheres, then the moving ones' grown by how far each
        may go in ``within_s`` at its present speed: centres (S, 3), radii (S,)."""
        if not self.moving:
            return self.static_centres, self.static_radii
        centres, radii, speeds_mps = self._moving_spheres()
        return (np.vstack([self.static_centres, centres]),
                np.concatenate([self.static_radii, radii + speeds_mps * within_s]))

    def _moving_spheres(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The moving bodies' bounding spheres now, centres (O, 3) and radii (O,), and
        their speeds (O,): every pose read in one pass (the other fleets' vehicles, a
        few dozen of them, each step)."""
        states = body_states(self.moving)
        centres = states.position_ws + np.einsum("oj,ojk->ok", self._moving_bounds_bs,
                                                 states.axes_ws)
        return (centres, self._moving_radii.copy(),
                np.sqrt(np.einsum("oj,oj->o", states.velocity_ws, states.velocity_ws)))

    def clear(self) -> None:
        self.moving.clear()
        self._moving_bounds_bs = np.zeros((0, 3))
        self._moving_radii = np.zeros(0)
        self.static_bodies = []
        self.static_centres = np.zeros((0, 3))
        self.static_radii = np.zeros(0)
        self.static_boxes = _NO_BOXES
