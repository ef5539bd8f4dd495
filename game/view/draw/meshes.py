"""Geometry built in code from numpy arrays: grids of triangles and simple solids.

Solids are convex pieces (prisms, lofts between rings, cylinders, tubes); each is
returned as a ``GeomNode`` with per-vertex normals and colours, built from one numpy
array written straight into the vertex buffer. Front faces wind counter-clockwise seen
from outside. :func:`merged_node` joins many pieces into one node.
"""

from __future__ import annotations

import math

import numpy as np
from panda3d.core import (Geom, GeomNode, GeomTriangles, GeomVertexArrayFormat, GeomVertexData,
                          GeomVertexFormat, NodePath)


def _vertex_format(with_uv: bool) -> GeomVertexFormat:
    """Position, normal, RGBA colour (and UV), all float32: one row is 10 (12) floats."""
    array = GeomVertexArrayFormat()
    array.addColumn("vertex", 3, Geom.NT_float32, Geom.C_point)
    array.addColumn("normal", 3, Geom.NT_float32, Geom.C_normal)
    array.addColumn("color", 4, Geom.NT_float32, Geom.C_color)
    if with_uv:
        array.addColumn("texcoord", 2, Geom.NT_float32, Geom.C_texcoord)
    return GeomVertexFormat.registerFormat(GeomVertexFormat(array))


VERTEX_FORMAT = _vertex_format(False)
VERTEX_FORMAT_UV = _vertex_format(True)


def _colour_vertex_format() -> GeomVertexFormat:
    """Position and RGBA colour, float32: one row is 7 floats (tracers, debug lines)."""
    array = GeomVertexArrayFormat()
    array.addColumn("vertex", 3, Geom.NT_float32, Geom.C_point)
    array.addColumn("color", 4, Geom.NT_float32, Geom.C_color)
    return GeomVertexFormat.registerFormat(GeomVertexFormat(array))


COLOUR_VERTEX_FORMAT = _colour_vertex_format()


def write_rows(vertex_data: GeomVertexData, rows: np.ndarray) -> None:
    """Overwrite a vertex buffer with float32 rows (same row count, same layout)."""
    memoryview(vertex_data.modifyArray(0)).cast("B")[:] = rows.astype(np.float32).tobytes()


def triangle_primitive(triangles: np.ndarray, usage) -> GeomTriangles:
    """Triangles (M x 3 vertex indices) as one uint32 GeomTriangles, written from numpy."""
    primitive = GeomTriangles(usage)
    primitive.setIndexType(Geom.NT_uint32)
    index_array = primitive.modifyVertices()
    index_array.uncleanSetNumRows(triangles.size)
    memoryview(index_array).cast("B")[:] = triangles.astype(np.uint32).tobytes()
    return primitive


def make_mesh(name: str, positions: np.ndarray, normals: np.ndarray, colours: np.ndarray,
              triangles: np.ndarray, uvs: np.ndarray | None = None,
              dynamic: bool = False) -> GeomNode:
    """One GeomNode from per-vertex arrays (N x 3, N x 3, N x 4[, N x 2]) and triangles
    (M x 3). ``dynamic``: the vertices will be rewritten (see :func:`write_rows`)."""
    columns = [positions, normals, colours] + ([uvs] if uvs is not None else [])
    rows = np.hstack(columns).astype(np.float32)
    usage = Geom.UH_dynamic if dynamic else Geom.UH_static
    vertex_data = GeomVertexData(name, VERTEX_FORMAT_UV if uvs is not None else VERTEX_FORMAT,
                                 usage)
    vertex_data.uncleanSetNumRows(len(rows))
    write_rows(vertex_data, rows)
    geom = Geom(vertex_data)
    geom.addPrimitive(triangle_primitive(triangles, Geom.UH_static))
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


def _rgba(colour, count: int) -> np.ndarray:
    colour = np.asarray(colour, dtype=np.float64)
    if colour.shape[-1] == 3:
        colour = np.append(colour, 1.0)
    return np.tile(colour, (count, 1))


def _outward(triangles: np.ndarray, points: np.ndarray, centre: np.ndarray) -> np.ndarray:
    """Flip triangles of a convex solid so each winds counter-clockwise seen from outside."""
    a, b, c = points[triangles[:, 0]], points[triangles[:, 1]], points[triangles[:, 2]]
    normal = np.cross(b - a, c - a)
    inward = np.einsum("ij,ij->i", normal, (a + b + c) / 3.0 - centre) < 0.0
    fixed = triangles.copy()
    fixed[inward] = fixed[inward][:, [0, 2, 1]]
    return fixed


def flat_mesh(name: str, points: np.ndarray, triangles: np.ndarray, colour,
              centre=None) -> GeomNode:
    """Faceted: each triangle gets its own three vertices and its face normal.

    With ``centre``, triangles are first turned to face away from it (convex solids).
    """
    points = np.asarray(points, dtype=np.float64)
    triangles = np.asarray(triangles, dtype=np.int64)
    if centre is not None:
        triangles = _outward(triangles, points, np.asarray(centre, dtype=np.float64))
    corners = points[triangles.reshape(-1)]
    a, b, c = corners[0::3], corners[1::3], corners[2::3]
    normal = np.cross(b - a, c - a)
    normal /= np.maximum(np.linalg.norm(normal, axis=1, keepdims=True), 1e-12)
    normals = np.repeat(normal, 3, axis=0)
    if np.ndim(colour) == 1:
        colours = _rgba(colour, len(corners))
    else:  # one colour per triangle
        per_triangle = np.asarray(colour, dtype=np.float64)
        if per_triangle.shape[1] == 3:
            per_triangle = np.hstack([per_triangle, np.ones((len(per_triangle), 1))])
        colours = np.repeat(per_triangle, 3, axis=0)
    return make_mesh(name, corners, normals, colours, np.arange(len(corners)).reshape(-1, 3))


def loft_triangles(rings: int, sides: int, caps: bool = True) -> np.ndarray:
    """Triangles joining ``rings`` consecutive rings of ``sides`` points each (closed
    around), with fan caps over the first and last ring."""
    triangles = []
    for r in range(rings - 1):
        for k in range(sides):
            a, b = r * sides + k, r * sides + (k + 1) % sides
            c, d = a + sides, b + sides
            triangles += [(a, b, d), (a, d, c)]
    if caps:
        last = (rings - 1) * sides
        for k in range(1, sides - 1):
            triangles += [(0, k, k + 1), (last, last + k, last + k + 1)]
    return np.array(triangles, dtype=np.int64)


def loft_mesh(name: str, rings: list, colour) -> GeomNode:
    """A faceted convex solid through rings of points (each K x 3, same K, same order)."""
    points = np.concatenate([np.asarray(ring, dtype=np.float64) for ring in rings])
    triangles = loft_triangles(len(rings), len(rings[0]))
    return flat_mesh(name, points, triangles, colour, centre=points.mean(axis=0))


def prism_x(name: str, profile_yz, x_min: float, x_max: float, colour) -> GeomNode:
    """A convex side profile (points (y, z) in order round it) extruded across x."""
    profile = np.asarray(profile_yz, dtype=np.float64)
    ones = np.ones((len(profile), 1))
    rings = [np.hstack([ones * x, profile]) for x in (x_min, x_max)]
    return loft_mesh(name, rings, colour)


def circle(radius: float, sides: int, phase: float = 0.0) -> np.ndarray:
    """Points (sides x 2) round a circle."""
    angle = phase + np.arange(sides) * 2.0 * np.pi / sides
    return radius * np.stack([np.cos(angle), np.sin(angle)], axis=1)


def _ring(axis: int, station: float, radius: float, unit: np.ndarray) -> np.ndarray:
    """Points (sides x 3) round body ``axis`` at ``station`` along it, ``radius`` out;
    ``unit``: the unit circle's points (sides x 2)."""
    u, v = (axis + 1) % 3, (axis + 2) % 3
    points = np.zeros((len(unit), 3))
    points[:, axis] = station
    points[:, u], points[:, v] = unit[:, 0] * radius, unit[:, 1] * radius
    return points


def _smooth_band(rings: list, unit: np.ndarray, axis: int, along: float):
    """A band between two rings, shaded round: one normal per ring point, ``along`` the
    axis by the band's slope. Returns its points, normals and triangles."""
    sides = len(unit)
    u, v = (axis + 1) % 3, (axis + 2) % 3
    n = np.zeros((sides, 3))
    n[:, u], n[:, v] = unit[:, 0], unit[:, 1]
    n[:, axis] = along
    n /= np.linalg.norm(n, axis=1, keepdims=True)
    faces = [(k, (k + 1) % sides, sides + (k + 1) % sides) for k in range(sides)]
    faces += [(k, sides + (k + 1) % sides, sides + k) for k in range(sides)]
    return np.concatenate(rings), np.concatenate([n, n]), faces


def _faceted_band(rings: list, unit: np.ndarray, axis: int, along: float):
    """A band between two rings, one flat quad (its own four points) per side."""
    sides = len(unit)
    u, v = (axis + 1) % 3, (axis + 2) % 3
    points, point_normals, faces = [], [], []
    for k in range(sides):
        k2 = (k + 1) % sides
        quad = np.array([rings[0][k], rings[0][k2], rings[1][k2], rings[1][k]])
        mid = np.zeros(3)
        mid[u] = (unit[k, 0] + unit[k2, 0]) / 2
        mid[v] = (unit[k, 1] + unit[k2, 1]) / 2
        mid[axis] = along * np.linalg.norm(mid)
        mid /= np.linalg.norm(mid)
        base = 4 * k
        points.append(quad)
        point_normals.append(np.tile(mid, (4, 1)))
        faces += [(base, base + 1, base + 2), (base, base + 2, base + 3)]
    return np.concatenate(points), np.concatenate(point_normals), faces


def _end_cap(axis: int, stations: np.ndarray, end: int, sign: float, radius: float,
             unit: np.ndarray):
    """A flat fan over the ring at ``stations[end]``, facing out of the solid (``sign``:
    -1 at the first station, +1 at the last). Returns its points, normals and triangles."""
    direction = sign * np.sign(stations[-1] - stations[0])
    points = _ring(axis, stations[end], radius, unit)
    normals = np.zeros((len(unit), 3))
    normals[:, axis] = direction
    faces = np.array([(0, k, k + 1) for k in range(1, len(unit) - 1)])
    inside = np.zeros(3)
    inside[axis] = stations[end] - direction
    return points, normals, _outward(faces, points, inside)


def cylinder_mesh(name: str, axis: int, stations, radii, sides: int, colours,
                  smooth: bool = True) -> GeomNode:
    """A solid of revolution about body ``axis`` (0 x, 1 y, 2 z): ``radii[i]`` at
    ``stations[i]`` along the axis, each band coloured ``colours[i]`` (one per band),
    capped at both ends. ``smooth`` shades the bands round, else faceted."""
    stations = np.asarray(stations, dtype=np.float64)
    unit = circle(1.0, sides)
    band_shape = _smooth_band if smooth else _faceted_band
    parts = []  # (points, normals, colour, triangles) of each band and cap
    for band in range(len(stations) - 1):
        rings = [_ring(axis, stations[s], radii[s], unit) for s in (band, band + 1)]
        run = stations[band + 1] - stations[band]
        slope = (radii[band] - radii[band + 1]) / max(abs(run), 1e-9)
        points, point_normals, faces = band_shape(rings, unit, axis, slope * np.sign(run))
        centre = np.zeros(3)
        centre[axis] = (stations[band] + stations[band + 1]) / 2
        parts.append((points, point_normals, colours[band],
                      _outward(np.array(faces), points, centre)))
    for end, sign in ((0, -1.0), (len(stations) - 1, 1.0)):
        if radii[end] > 0.0:
            points, normals, faces = _end_cap(axis, stations, end, sign, radii[end], unit)
            parts.append((points, normals, colours[0 if end == 0 else -1], faces))
    offsets = np.cumsum([0] + [len(part[0]) for part in parts])
    return make_mesh(name, np.concatenate([part[0] for part in parts]),
                     np.concatenate([part[1] for part in parts]),
                     np.concatenate([_rgba(part[2], len(part[0])) for part in parts]),
                     np.concatenate([np.asarray(part[3]) + offset
                                     for part, offset in zip(parts, offsets)]))


NEARLY_VERTICAL_COSINE = 0.9
"""A tube whose axis is at least this near to +-Z builds its ring round X instead: the
cross product with a helper nearly along the axis would be too short to trust."""


def tube_mesh(name: str, start, end, radius: float, colour, sides: int) -> GeomNode:
    """A straight faceted tube from ``start`` to ``end``."""
    start, end = np.asarray(start, dtype=np.float64), np.asarray(end, dtype=np.float64)
    axis = end - start
    axis /= np.linalg.norm(axis)
    helper = (np.array([0.0, 0.0, 1.0]) if abs(axis[2]) < NEARLY_VERTICAL_COSINE
              else np.array([1.0, 0.0, 0.0]))
    u = np.cross(axis, helper)
    u /= np.linalg.norm(u)
    v = np.cross(axis, u)
    angle = np.arange(sides) * math.tau / sides
    ring = radius * (np.cos(angle)[:, None] * u + np.sin(angle)[:, None] * v)
    return loft_mesh(name, [start + ring, end + ring], colour)


def merged_node(name: str, nodes: list) -> GeomNode:
    """One GeomNode holding every piece (each a GeomNode, or a NodePath already placed),
    flattened: one node to cull and draw instead of many."""
    holder = NodePath(name)
    for node in nodes:
        if isinstance(node, NodePath):
            node.reparentTo(holder)
        else:
            holder.attachNewNode(node)
    holder.flattenStrong()
    merged = GeomNode(name)
    for path in holder.findAllMatches("**/+GeomNode"):
        merged.addGeomsFrom(path.node())
    holder.removeNode()
    return merged
