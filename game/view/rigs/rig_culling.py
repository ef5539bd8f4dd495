"""Which rigs a camera may see, tested for all rigs at once.

Each rig gets, once when it is built, a *reach*: the radius of a sphere about its root's
origin that holds all of its geometry however its moving parts turn (turret, gun,
wheels) or travel (wheels and belts, up to ``margin_m``). Each frame that sphere, at the
rig's drawn position, is tested against each camera's frustum in one pass over the
rigs (compiled, :mod:`game.view.rigs.rig_kernel`, or in numpy): the same plane test as Panda's
``BoundingHexahedron`` against a sphere, but with no bounding volume to recompute (a rig's
bounds change whenever its parts move, and asking Panda for them walks and rebuilds them,
rig after rig).

The reach is conservative: a rig it calls seen may lie just outside the frustum (its
parts are posed for nothing), never the other way round.
"""

from __future__ import annotations

import numpy as np
from panda3d.core import BoundingBox, BoundingHexahedron, BoundingSphere, GeomNode, NodePath

from game.view.rigs.rig_kernel import spheres_in_frustum_loop


def geometry_reach_m(node) -> float:
    """How far from the origin of a GeomNode's own frame its geometry reaches."""
    if not isinstance(node, GeomNode) or node.getNumGeoms() == 0:
        return 0.0
    bounds = node.getInternalBounds()
    if bounds.isEmpty() or bounds.isInfinite():
        return 0.0
    if isinstance(bounds, BoundingSphere):
        return float(np.linalg.norm(bounds.getCenter())) + float(bounds.getRadius())
    if isinstance(bounds, BoundingBox):
        corners = np.array([bounds.getMin(), bounds.getMax()])
        return float(np.linalg.norm(np.abs(corners).max(axis=0)))
    raise TypeError(f"no reach for a {type(bounds).__name__}")


def reach_m(path: NodePath) -> float:
    """Radius of a sphere about ``path``'s origin (in its own frame) that holds everything
    under it, whichever way each of its descendants is turned about its own origin."""
    reach = geometry_reach_m(path.node())
    for child in path.getChildren():
        scale = float(np.abs(np.array(child.getScale())).max())
        reach = max(reach, float(child.getPos().length()) + scale * reach_m(child))
    return reach


def _planes(frustum) -> np.ndarray | None:
    """(P, 4) a hexahedron's planes (a point inside is on their negative side), or None for
    a bounding volume of another kind."""
    if not isinstance(frustum, BoundingHexahedron):
        return None
    return np.array([tuple(frustum.getPlane(i)) for i in range(frustum.getNumPlanes())])


def spheres_seen(parent: NodePath, centres: np.ndarray, radii_m: np.ndarray,
                 frustums) -> np.ndarray:
    """(N,) whether each sphere (``centres`` (N, 3) in ``parent``'s frame, ``radii_m``
    (N,)) meets any of ``frustums``: (camera NodePath, its lens's bounds in the camera's
    frame) pairs; a sphere meets a frustum unless it lies wholly outside one of its planes."""
    seen = np.zeros(len(centres), dtype=bool)
    for camera, frustum in frustums:
        planes = _planes(frustum)
        if planes is None:
            seen |= [_sphere_seen_by_panda(parent, centre, radius, camera, frustum)
                     for centre, radius in zip(centres, radii_m)]
            continue
        matrix = np.array(parent.getMat(camera))  # row vectors: p_camera = p @ matrix
        if spheres_in_frustum_loop is not None:
            spheres_in_frustum_loop(centres, radii_m, matrix, planes, seen)
            continue
        linear = matrix[:3, :3]
        scale = float(np.sqrt(np.einsum("ij,ij->i", linear, linear)).max())
        in_camera = centres @ linear + matrix[3, :3]
        distances = in_camera @ planes[:, :3].T + planes[:, 3]
        seen |= (distances <= (radii_m * scale)[:, None]).all(axis=1)
    return seen


def _sphere_seen_by_panda(parent: NodePath, centre, radius: float, camera: NodePath,
                          frustum) -> bool:
    sphere = BoundingSphere(tuple(centre), float(radius))
    sphere.xform(parent.getMat(camera))
    return bool(frustum.contains(sphere))
