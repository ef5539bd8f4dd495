"""A tank's track belt: a closed band round one side's road wheels, sprocket and idler.

The belt runs along the top from the rear sprocket to the front idler, down round the
idler, back along the bottom under the road wheels (which rise and fall with the
ground) and up round the sprocket. Its vertices are rewritten in place each frame
(:func:`belt_rows` into the node :func:`belt_node` made); the links' texture scrolls
by the metres the track has run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from panda3d.core import GeomNode

from game.view.meshes import make_mesh

BELT_STRIPS = 4
"""The band's faces, each a strip of quads along the belt: outer, inner and two edges."""
ROW_POSITION, ROW_NORMAL, ROW_COLOUR, ROW_UV = (slice(0, 3), slice(3, 6), slice(6, 10),
                                                slice(10, 12))
"""Columns of a belt's vertex row, in :func:`make_mesh`'s layout: position, normal, RGBA
colour, texture coordinates."""
IDLER_WRAP_END_RAD = -math.pi / 3
"""The belt leaves the idler 60° below the level of its centre, heading down and back to
the front road wheel (angles from the front, + up)."""
SPROCKET_WRAP_START_RAD = -2 * math.pi / 3
"""It meets the sprocket at the mirror image of that, 60° below level at its front."""
SPROCKET_TOP_RAD = -3 * math.pi / 2
"""The sprocket's top, reached by going on clockwise round its back."""
ROAD_WHEEL_WRAP_RAD = -math.pi / 4
"""The belt touches the end road wheels 45° below level: ahead of the front one, behind
the rear one."""
MIN_TANGENT_LENGTH_M = 1e-9
"""Floor under a tangent's length before it is normalised: two points that coincide give
a zero tangent, not a NaN."""
EDGE_TEXTURE_V = 0.1
"""The belt's edges take this much of the link texture across the track (its dark
border), so a link's end shows on its side."""


def wheel_stations(anchor_y: np.ndarray, count: int) -> np.ndarray:
    """Wheel positions along one track: every anchor's, then midpoints of the largest gaps
    until there are ``count`` (sorted rear to front)."""
    stations = sorted(set(float(y) for y in anchor_y))
    while len(stations) < count:
        gaps = np.diff(stations)
        widest = int(np.argmax(gaps))
        stations.insert(widest + 1, (stations[widest] + stations[widest + 1]) / 2.0)
    return np.array(stations)


@dataclass(frozen=True)
class BeltShape:
    """Where one side's belt runs, in the body frame (+X right, +Y forward, +Z up)."""

    track_x_m: float
    """The track's middle across the hull."""
    half_width_m: float
    stations_y: np.ndarray
    """The road wheels' centres along the track, rear to front."""
    rear_y_m: float
    """The sprocket's centre along the track."""
    front_y_m: float
    """The idler's centre along the track."""
    drive_z_m: float
    """The sprocket's and the idler's centres' height."""
    road_wheel_radius_m: float
    drive_wheel_radius_m: float
    thickness_m: float
    link_length_m: float
    arc_segments: int
    """Segments round each end of the belt."""


def belt_path(shape: BeltShape, centre_z: np.ndarray) -> np.ndarray:
    """The belt's inner surface round one side, (N, 2) points (y, z), clockwise seen from
    the right, the road wheels' centres at heights ``centre_z``."""
    r, rd = shape.road_wheel_radius_m, shape.drive_wheel_radius_m
    front_y, rear_y, drive_z = shape.front_y_m, shape.rear_y_m, shape.drive_z_m
    stations = shape.stations_y
    n = shape.arc_segments
    points = []
    for angle in np.linspace(math.pi / 2, IDLER_WRAP_END_RAD, n + 1):
        points.append((front_y + rd * math.cos(angle), drive_z + rd * math.sin(angle)))
    points.append((stations[-1] + r * math.cos(ROAD_WHEEL_WRAP_RAD),
                   centre_z[-1] + r * math.sin(ROAD_WHEEL_WRAP_RAD)))
    for y, z in zip(stations[::-1], centre_z[::-1]):
        points.append((y, z - r))
    points.append((stations[0] - r * math.cos(ROAD_WHEEL_WRAP_RAD),
                   centre_z[0] + r * math.sin(ROAD_WHEEL_WRAP_RAD)))
    for angle in np.linspace(SPROCKET_WRAP_START_RAD, SPROCKET_TOP_RAD, n + 1):
        points.append((rear_y + rd * math.cos(angle), drive_z + rd * math.sin(angle)))
    return np.array(points)


def _strip(yz_a, x_a: float, yz_b, x_b: float, normal, u, v_a: float, v_b: float):
    """One face of the band: a quad strip from the line (``x_a``, ``yz_a``) to the line
    (``x_b``, ``yz_b``); returns its positions, normals and texture coordinates."""
    count = len(yz_a)
    positions = np.empty((2 * count, 3))
    positions[0::2] = np.column_stack([np.full(count, x_a), yz_a])
    positions[1::2] = np.column_stack([np.full(count, x_b), yz_b])
    uv = np.empty((2 * count, 2))
    uv[:, 0] = np.repeat(u, 2)
    uv[0::2, 1], uv[1::2, 1] = v_a, v_b
    return positions, np.repeat(normal, 2, axis=0), uv


def belt_rows(shape: BeltShape, centre_z: np.ndarray, travelled_m: float,
              colour) -> np.ndarray:
    """The belt's vertex rows (see :data:`ROW_POSITION` ...): its four strips, the links'
    texture moved on by the ``travelled_m`` metres the track has run."""
    inner = belt_path(shape, centre_z)
    inner = np.vstack([inner, inner[:1]])  # closed: the first point again at the end
    tangent = np.roll(inner[:-1], -1, axis=0) - np.roll(inner[:-1], 1, axis=0)
    tangent /= np.maximum(np.linalg.norm(tangent, axis=1, keepdims=True),
                          MIN_TANGENT_LENGTH_M)
    tangent = np.vstack([tangent, tangent[:1]])
    outward = np.stack([-tangent[:, 1], tangent[:, 0]], axis=1)
    outer = inner + outward * shape.thickness_m
    arc = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(inner, axis=0), axis=1))])
    links = max(round(arc[-1] / shape.link_length_m), 1)
    u = (arc - travelled_m) * links / arc[-1]
    x0 = shape.track_x_m - shape.half_width_m
    x1 = shape.track_x_m + shape.half_width_m
    count = len(inner)
    out_n = np.hstack([np.zeros((count, 1)), outward])
    side_n = np.tile([1.0, 0.0, 0.0], (count, 1))
    parts = [_strip(outer, x0, outer, x1, out_n, u, 0.0, 1.0),
             _strip(inner, x1, inner, x0, -out_n, u, 1.0, 0.0),
             _strip(inner, x1, outer, x1, side_n, u, 0.0, EDGE_TEXTURE_V),
             _strip(outer, x0, inner, x0, -side_n, u, EDGE_TEXTURE_V, 0.0)]
    positions = np.concatenate([p[0] for p in parts])
    normals = np.concatenate([p[1] for p in parts])
    uvs = np.concatenate([p[2] for p in parts])
    colours = np.tile(np.append(np.asarray(colour, dtype=np.float64), 1.0),
                      (len(positions), 1))
    return np.hstack([positions, normals, colours, uvs])


def _belt_triangles(rows: np.ndarray) -> np.ndarray:
    """Two triangles for each quad of each strip, wound to face along the quad's normal."""
    count = len(rows) // (2 * BELT_STRIPS)
    triangles = []
    for strip_index in range(BELT_STRIPS):
        base = strip_index * 2 * count
        for k in range(count - 1):
            a, b = base + 2 * k, base + 2 * k + 1
            c, d = a + 2, b + 2
            triangles += [(a, c, d), (a, d, b)]
    triangles = np.array(triangles)
    p = rows[:, ROW_POSITION]
    n = rows[:, ROW_NORMAL]
    face = np.einsum("ij,ij->i", np.cross(p[triangles[:, 1]] - p[triangles[:, 0]],
                                          p[triangles[:, 2]] - p[triangles[:, 0]]),
                     n[triangles[:, 0]])
    triangles[face < 0] = triangles[face < 0][:, [0, 2, 1]]
    return triangles


def belt_node(name: str, shape: BeltShape, centre_z: np.ndarray, colour) -> GeomNode:
    """The belt as one dynamic mesh (its rows rewritten each frame), not yet run."""
    rows = belt_rows(shape, centre_z, 0.0, colour)
    return make_mesh(name, rows[:, ROW_POSITION], rows[:, ROW_NORMAL], rows[:, ROW_COLOUR],
                     _belt_triangles(rows), uvs=rows[:, ROW_UV], dynamic=True)
