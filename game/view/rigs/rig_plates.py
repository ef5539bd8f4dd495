"""The drawn tank's armour: its hull and turret drawn from the same plates Bullet collides
(:mod:`physics.model.plate_solids`), so a shell strikes what the player sees.

Each plate is a convex piece; each of its faces is drawn as a fan of triangles over its
own corners (:func:`~physics.model.plate_solids.face_loops`), flat shaded by the face's
outward normal. The hull's plates are one node in the body frame; the turret's are one
node in the turret's frame (origin at the ring's centre, turning with it). Faces where two
plates meet lie inside the solid and are hidden by the depth test.
"""

from __future__ import annotations

import numpy as np
from panda3d.core import GeomNode, NodePath

from game.view.draw.meshes import make_mesh
from physics.model.armour import PlateLayout, PlateSpec
from physics.model.plate_solids import face_loops, part_plates


def plate_faces(plates: list[PlateSpec]) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                   np.ndarray]:
    """Every face of every plate as triangles: positions (N, 3) and normals (N, 3), the
    triangles (M, 3) over them (counter-clockwise seen from outside), and each triangle's
    plate (M,), by its index in ``plates``. Each face has its own vertices (flat shading)."""
    positions, normals, triangles, owners = [], [], [], []
    count = 0
    for index, plate in enumerate(plates):
        for loop, normal in zip(face_loops(plate), plate.faces[0]):
            corners = len(loop)
            positions.append(loop)
            normals.append(np.tile(normal, (corners, 1)))
            fan = np.array([(0, k, k + 1) for k in range(1, corners - 1)]) + count
            triangles.append(fan)
            owners.append(np.full(len(fan), index))
            count += corners
    if not positions:
        return np.zeros((0, 3)), np.zeros((0, 3)), np.zeros((0, 3), dtype=np.int64), \
            np.zeros(0, dtype=np.int64)
    return (np.concatenate(positions), np.concatenate(normals),
            np.concatenate(triangles).astype(np.int64), np.concatenate(owners))


def plates_node(name: str, plates: list[PlateSpec], colour) -> GeomNode:
    """The plates as one flat-shaded mesh of one colour (RGB or RGBA)."""
    positions, normals, triangles, _ = plate_faces(plates)
    rgba = np.asarray(colour, dtype=np.float64)
    if rgba.shape[-1] == 3:
        rgba = np.append(rgba, 1.0)
    return make_mesh(name, positions, normals, np.tile(rgba, (len(positions), 1)), triangles)


PLATES_DEPTH_OFFSET = 1
"""The hull's plates are drawn this much nearer in the depth test than they are (polygon
offset units): where a track's outer face runs in a side plate's plane, the plate shows."""


def attach_plates(parent: NodePath, name: str, plates: list[PlateSpec], colour) -> NodePath:
    """:func:`plates_node` under ``parent``, winning the depth test against faces that lie
    in its own (:data:`PLATES_DEPTH_OFFSET`)."""
    path = parent.attachNewNode(plates_node(name, plates, colour))
    path.setDepthOffset(PLATES_DEPTH_OFFSET)
    return path


def drawn_plates(layout: PlateLayout | None, part: str) -> list[PlateSpec]:
    """The plates of ``part`` a tank is drawn with (none: it has no plates, and is drawn
    from its hull box)."""
    return [] if layout is None else part_plates(layout, part)
