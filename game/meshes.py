"""Geometry built in code from numpy arrays: the terrain mesh and simple solids."""

from __future__ import annotations

import numpy as np
from panda3d.core import (Geom, GeomNode, GeomTriangles, GeomVertexArrayFormat, GeomVertexData,
                          GeomVertexFormat)

from physics.terrain import Terrain


def _vertex_format() -> GeomVertexFormat:
    """Position, normal and RGBA colour, all float32: one row is 10 floats."""
    array = GeomVertexArrayFormat()
    array.addColumn("vertex", 3, Geom.NT_float32, Geom.C_point)
    array.addColumn("normal", 3, Geom.NT_float32, Geom.C_normal)
    array.addColumn("color", 4, Geom.NT_float32, Geom.C_color)
    return GeomVertexFormat.registerFormat(GeomVertexFormat(array))


VERTEX_FORMAT = _vertex_format()


def make_mesh(name: str, positions: np.ndarray, normals: np.ndarray, colours: np.ndarray,
              triangles: np.ndarray) -> GeomNode:
    """One GeomNode from per-vertex arrays (N x 3, N x 3, N x 4) and triangles (M x 3)."""
    rows = np.hstack([positions, normals, colours]).astype(np.float32)
    vertex_data = GeomVertexData(name, VERTEX_FORMAT, Geom.UH_static)
    vertex_data.uncleanSetNumRows(len(rows))
    memoryview(vertex_data.modifyArray(0)).cast("B")[:] = rows.tobytes()
    primitive = GeomTriangles(Geom.UH_static)
    primitive.setIndexType(Geom.NT_uint32)
    index_array = primitive.modifyVertices()
    index_array.uncleanSetNumRows(triangles.size)
    memoryview(index_array).cast("B")[:] = triangles.astype(np.uint32).tobytes()
    geom = Geom(vertex_data)
    geom.addPrimitive(primitive)
    node = GeomNode(name)
    node.addGeom(geom)
    return node


def grid_triangles(columns: int, rows: int) -> np.ndarray:
    """Two triangles per cell, split along the diagonal from (i+1, j) to (i, j+1) as Bullet does."""
    i, j = np.meshgrid(np.arange(columns - 1), np.arange(rows - 1))
    corner = (j * columns + i).ravel()
    right, up = corner + 1, corner + columns
    return np.concatenate([np.stack([corner, right, up], axis=1),
                           np.stack([right, up + 1, up], axis=1)])


def terrain_mesh(terrain: Terrain, light_colour, dark_colour) -> GeomNode:
    """The terrain drawn from the same height array as its collider, shaded by height."""
    x_m, y_m = terrain.sample_positions()
    heights = terrain.heights_m
    slope_y, slope_x = np.gradient(heights, terrain.spacing_m)
    normals = np.stack([-slope_x, -slope_y, np.ones_like(heights)], axis=-1)
    normals /= np.linalg.norm(normals, axis=-1, keepdims=True)
    # Troughs darker, crests lighter: the dune pattern reads even in flat light.
    lightness = (heights - terrain.min_height_m) / terrain.height_range_m
    colours = (np.asarray(dark_colour) + lightness[..., None]
               * (np.asarray(light_colour) - np.asarray(dark_colour)))
    colours = np.concatenate([colours, np.ones_like(heights)[..., None]], axis=-1)
    positions = np.stack([x_m, y_m, heights], axis=-1)
    return make_mesh("terrain", positions.reshape(-1, 3), normals.reshape(-1, 3),
                     colours.reshape(-1, 4), grid_triangles(terrain.columns, terrain.rows))


_BOX_FACES = np.array([  # (normal axis, sign)
    (0, 1), (0, -1), (1, 1), (1, -1), (2, 1), (2, -1)])


def box_mesh(name: str, half_extents, colour, centre=(0.0, 0.0, 0.0)) -> GeomNode:
    """An axis-aligned box with flat-shaded faces (4 vertices each, outward normals)."""
    half = np.asarray(half_extents, dtype=np.float64)
    positions, normals = [], []
    for axis, sign in _BOX_FACES:
        u, v = (axis + 1) % 3, (axis + 2) % 3
        normal = np.zeros(3)
        normal[axis] = sign
        for du, dv in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
            corner = np.zeros(3)
            corner[axis] = sign * half[axis]
            corner[u] = du * sign * half[u]
            corner[v] = dv * half[v]
            positions.append(corner + np.asarray(centre))
            normals.append(normal)
    base = np.arange(0, 24, 4)[:, None]
    triangles = np.concatenate([base + [0, 1, 2], base + [0, 2, 3]])
    colours = np.tile(np.append(np.asarray(colour, dtype=np.float64), 1.0), (24, 1))
    return make_mesh(name, np.array(positions), np.array(normals), colours, triangles)
