"""All of a rig's wheels in one mesh, posed by the ``WHEELS`` shader (see
:mod:`game.view.draw.shaders`).

Each wheel's mesh is built about its own centre (its axle along X); the set keeps their
vertices in one vertex buffer with a ``wheel`` column naming each vertex's wheel, and a
``wheel_pose`` array (a shader input, one row per wheel: centre xyz in the rig's frame and
spin about X in radians) that :meth:`WheelSet.write` rewrites in place: posing every wheel
of a rig is one copy, however many wheels, and makes no node transforms.

The shadow pass draws the set with the ``WHEELS`` depth shader: the shadow camera finds
it by its tag (:data:`game.view.draw.shaders.WHEELS_SHADOW_TAG_KEY`).
"""

from __future__ import annotations

import numpy as np
from panda3d.core import (BoundingSphere, Geom, GeomNode, GeomVertexArrayFormat,
                          GeomVertexData, GeomVertexFormat, NodePath, Point3, PTA_LVecBase4f)

from game.view.draw.meshes import triangle_primitive
from game.view.draw.shaders import (WHEEL_SLOTS, WHEELS_SHADOW_TAG_KEY, WHEELS_SHADOW_TAG_VALUE,
                               lit_shader)

POSE_COLUMNS = 4
"""A wheel's pose: centre x, y, z and spin (radians)."""
_MESH_FLOATS = 10
"""A piece's vertex row: position, normal, RGBA colour (:data:`game.view.draw.meshes.VERTEX_FORMAT`)."""


def _wheel_vertex_format() -> GeomVertexFormat:
    """Position, normal, RGBA colour and the wheel's index, float32: 11 floats a row."""
    array = GeomVertexArrayFormat()
    array.addColumn("vertex", 3, Geom.NT_float32, Geom.C_point)
    array.addColumn("normal", 3, Geom.NT_float32, Geom.C_normal)
    array.addColumn("color", 4, Geom.NT_float32, Geom.C_color)
    array.addColumn("wheel", 1, Geom.NT_float32, Geom.C_other)
    return GeomVertexFormat.registerFormat(GeomVertexFormat(array))


WHEEL_VERTEX_FORMAT = _wheel_vertex_format()


def _rows_and_triangles(piece: GeomNode) -> tuple[np.ndarray, np.ndarray]:
    """A one-geom mesh's vertex rows (N, 10) and triangles (M, 3) as numpy arrays."""
    geom = piece.getGeom(0)
    rows = np.frombuffer(memoryview(geom.getVertexData().getArray(0)).cast("B"),
                         dtype=np.float32).reshape(-1, _MESH_FLOATS)
    primitive = geom.getPrimitive(0)
    if primitive.getIndexType() != Geom.NT_uint32:
        primitive = primitive.makeCopy()
        primitive.setIndexType(Geom.NT_uint32)
    triangles = np.frombuffer(memoryview(primitive.getVertices()).cast("B"),
                              dtype=np.uint32).reshape(-1, 3)
    return rows.copy(), triangles.astype(np.int64)


class WheelSet:
    """The wheels ``pieces`` (each a one-geom mesh about its own centre) under ``parent``,
    at ``centres_m`` (W, 3) in ``parent``'s frame, not spun; ``reach_m``: every wheel stays
    within this far of ``parent``'s origin, however it is posed (its bounds for culling)."""

    def __init__(self, parent: NodePath, pieces: list[GeomNode], centres_m: np.ndarray,
                 reach_m: float):
        if not 0 < len(pieces) <= WHEEL_SLOTS:
            raise ValueError(f"a wheel set holds 1 to {WHEEL_SLOTS} wheels, not {len(pieces)}")
        rows, triangles, first = [], [], 0
        for index, piece in enumerate(pieces):
            piece_rows, piece_triangles = _rows_and_triangles(piece)
            rows.append(np.column_stack([piece_rows, np.full(len(piece_rows), index)]))
            triangles.append(piece_triangles + first)
            first += len(piece_rows)
        data = GeomVertexData("wheels", WHEEL_VERTEX_FORMAT, Geom.UH_static)
        vertex_rows = np.concatenate(rows).astype(np.float32)
        data.uncleanSetNumRows(len(vertex_rows))
        memoryview(data.modifyArray(0)).cast("B")[:] = vertex_rows.tobytes()
        geom = Geom(data)
        geom.addPrimitive(triangle_primitive(np.concatenate(triangles), Geom.UH_static))
        node = GeomNode("wheels")
        node.addGeom(geom)
        # The vertices lie about the origin, the wheels about the rig: bounds of the posed set.
        node.setBounds(BoundingSphere(Point3(0.0, 0.0, 0.0), float(reach_m)))
        self.path = parent.attachNewNode(node)
        self.path.setShader(lit_shader("WHEELS"))
        self.path.setTag(WHEELS_SHADOW_TAG_KEY, WHEELS_SHADOW_TAG_VALUE)
        self.pose_input = PTA_LVecBase4f.emptyArray(WHEEL_SLOTS)
        self.path.setShaderInput("wheel_pose", self.pose_input)
        self.count = len(pieces)
        self.poses = np.frombuffer(memoryview(self.pose_input).cast("B"),
                                   dtype=np.float32).reshape(WHEEL_SLOTS, POSE_COLUMNS)
        """The poses the shader reads (a view of :attr:`pose_input`'s memory)."""
        self.poses[:] = 0.0  # the array comes uninitialised; the slots past the wheels too
        self.poses[:self.count, :3] = centres_m

    def write(self, poses: np.ndarray) -> None:
        """Every wheel's pose at once: (W, 4) centre xyz and spin (radians)."""
        self.poses[:self.count] = poses
