"""Exact overlap of a query's sphere or box with a body made of one sphere or one box.

Bullet's contact test (what :meth:`physics.bullet.world.PhysicsWorld.overlapping` asks
first) reports every body a shape overlaps, and also bodies
near it: a turned box or a convex hull a good share of the shape's size away (its
collision margins count as closest-point distance). Panda cannot read the distances
back from a contact test, so for the bodies whose shape is one sphere or one box (a
car's hull, plates, shells) the answer is decided here, from the body's shape and
transform: the centre-to-box distance for a sphere, the separating-axis test for two
boxes. Other shapes (a tank's hull of armour plates, rock hulls, the terrain, the map's
edges) keep the contact test's answer.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from panda3d.bullet import BulletBoxShape, BulletSphereShape

_PARALLEL_AXIS = 1e-9
"""Squared length under which a cross product of two box axes is taken as no axis (the
edges are parallel and a face axis already separates them if anything does)."""


@dataclass(frozen=True)
class Solid:
    """A sphere (``half_m`` None) or a box (``axes_ws`` rows: its axes in world space)."""

    centre_ws: np.ndarray
    radius_m: float = 0.0
    half_m: np.ndarray | None = None
    axes_ws: np.ndarray | None = None


def probe_solid(centre_ws, radius_m: float | None = None, half_extents_m=None,
                axes_ws=None) -> Solid:
    """A query's shape: a sphere of ``radius_m`` or a box of ``half_extents_m``."""
    centre = np.asarray(centre_ws, dtype=float)
    if half_extents_m is None:
        if radius_m is None:
            raise ValueError("a probe is a sphere (radius_m) or a box (half_extents_m)")
        return Solid(centre, float(radius_m))
    axes = np.eye(3) if axes_ws is None else np.asarray(axes_ws, dtype=float)
    return Solid(centre, 0.0, np.asarray(half_extents_m, dtype=float), axes)


def body_solid(node) -> Solid | None:
    """A body's one sphere or one box, placed in the world; None for anything else."""
    if node.getNumShapes() != 1:
        return None
    shape = node.getShape(0)
    matrix = node.getShapeTransform(0).getMat() * node.getTransform().getMat()
    centre = np.array(matrix.getRow3(3))
    if isinstance(shape, BulletSphereShape):
        return Solid(centre, shape.getRadius())
    if isinstance(shape, BulletBoxShape):
        axes = np.array([matrix.getRow3(row) for row in range(3)])
        return Solid(centre, 0.0, np.array(shape.getHalfExtentsWithMargin()), axes)
    return None


def overlaps(first: Solid, second: Solid) -> bool:
    """Whether two solids share a point (touching counts)."""
    if first.half_m is None and second.half_m is None:
        gap = first.centre_ws - second.centre_ws
        return float(gap @ gap) <= (first.radius_m + second.radius_m) ** 2
    if first.half_m is None:
        return _sphere_meets_box(first, second)
    if second.half_m is None:
        return _sphere_meets_box(second, first)
    return _boxes_overlap(first, second)


def _box_of(solid: Solid) -> tuple[np.ndarray, np.ndarray]:
    """A box's half extents and axes (rows, world space)."""
    if solid.half_m is None or solid.axes_ws is None:
        raise ValueError("a sphere where a box was expected")
    return solid.half_m, solid.axes_ws


def _sphere_meets_box(sphere: Solid, box: Solid) -> bool:
    half, axes = _box_of(box)
    local = axes @ (sphere.centre_ws - box.centre_ws)
    outside = np.maximum(np.abs(local) - half, 0.0)
    return float(outside @ outside) <= sphere.radius_m ** 2


def _boxes_overlap(first: Solid, second: Solid) -> bool:
    """The separating-axis test: two boxes are apart when their shadows on one of the 15
    axes (each box's three, and the crosses of one's with the other's) do not meet."""
    (first_half, first_axes), (second_half, second_axes) = _box_of(first), _box_of(second)
    crosses = np.cross(first_axes[:, None, :], second_axes[None, :, :]).reshape(9, 3)
    crosses = crosses[np.einsum("ni,ni->n", crosses, crosses) > _PARALLEL_AXIS]
    axes = np.vstack([first_axes, second_axes, crosses])
    reach_first = np.abs(axes @ first_axes.T) @ first_half
    reach_second = np.abs(axes @ second_axes.T) @ second_half
    apart = np.abs(axes @ (second.centre_ws - first.centre_ws))
    return bool(np.all(apart <= reach_first + reach_second))
