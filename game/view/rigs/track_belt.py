"""A tank's track belt: a closed band round one side's road wheels, sprocket and idler.

The belt runs along the top from the rear sprocket to the front idler, down round the
idler, back along the bottom under the road wheels (which rise and fall with the
ground) and up round the sprocket. Its vertices are rewritten in place each frame
(:func:`belt_rows_batch`, for many belts at once, into the node :func:`belts_node` made);
the links' texture scrolls by the metres the track has run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from panda3d.core import GeomNode

from game.view.draw.meshes import make_mesh
from game.view.rigs.belt_kernel import belt_rows_loop, strip_table

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


@dataclass(frozen=True)
class BeltTemplate:
    """What never changes of a set of belts' paths, stacked over belts (leading axis B),
    for :func:`belt_rows_batch`. Only the points under the road wheels move: the two
    where the belt leaves the end road wheels and one under each road wheel."""

    path_y: np.ndarray
    """(B, N) every path point's y (:func:`belt_path`'s order)."""
    path_z: np.ndarray
    """(B, N) every path point's z, the moving ones' left at zero."""
    wheel_radius_m: np.ndarray
    wrap_dz_m: np.ndarray
    """(B,) how far below a road wheel's centre the belt leaves the end ones."""
    x_m: np.ndarray
    """(B, 2) the belt's outer (-X) and inner (+X) edges across the hull."""
    thickness_m: np.ndarray
    link_length_m: np.ndarray
    first_moving: int
    """Index of the first moving point (where the belt leaves the front road wheel)."""

    @staticmethod
    def of(shapes: list[BeltShape]) -> BeltTemplate:
        """The template of ``shapes`` (all with as many road wheels and arc segments)."""
        paths = np.array([belt_path(shape, np.zeros(len(shape.stations_y)))
                          for shape in shapes])
        wheels = np.array([shape.road_wheel_radius_m for shape in shapes])
        first = shapes[0].arc_segments + 1
        moving = slice(first, first + len(shapes[0].stations_y) + 2)
        path_z = paths[:, :, 1].copy()
        path_z[:, moving] = 0.0
        return BeltTemplate(
            path_y=paths[:, :, 0], path_z=path_z, wheel_radius_m=wheels,
            wrap_dz_m=wheels * math.sin(ROAD_WHEEL_WRAP_RAD),
            x_m=np.array([(s.track_x_m - s.half_width_m, s.track_x_m + s.half_width_m)
                          for s in shapes]),
            thickness_m=np.array([s.thickness_m for s in shapes]),
            link_length_m=np.array([s.link_length_m for s in shapes]), first_moving=first)

    @staticmethod
    def stack(templates: list[BeltTemplate]) -> BeltTemplate:
        """One template of the belts of all ``templates`` (of the same layout), in order."""
        first = templates[0]
        return BeltTemplate(**{
            name: (np.concatenate([getattr(t, name) for t in templates])
                   if name != "first_moving" else first.first_moving)
            for name in BeltTemplate.__dataclass_fields__})

    def take(self, belts: np.ndarray) -> BeltTemplate:
        """The template of the belts ``belts`` (indices) of this one."""
        return BeltTemplate(**{
            name: (getattr(self, name)[belts] if name != "first_moving" else self.first_moving)
            for name in BeltTemplate.__dataclass_fields__})


def belt_paths(template: BeltTemplate, centre_z: np.ndarray) -> np.ndarray:
    """(B, N, 2) each belt's :func:`belt_path`, its road wheels' centres at heights
    ``centre_z`` (B, W), rear to front."""
    count = centre_z.shape[1]
    first = template.first_moving
    path_z = template.path_z.copy()
    path_z[:, first] = centre_z[:, -1] + template.wrap_dz_m
    path_z[:, first + 1:first + 1 + count] = centre_z[:, ::-1] - template.wheel_radius_m[:, None]
    path_z[:, first + 1 + count] = centre_z[:, 0] + template.wrap_dz_m
    return np.stack([template.path_y, path_z], axis=2)


STRIPS = (
    # (x edge and surface at the strip's first line, then at its second; the normal:
    # "out" (the outward of the outer face) or "side" (+X), with its sign; v at each line)
    ((0, "outer"), (1, "outer"), ("out", 1.0), (0.0, 1.0)),
    ((1, "inner"), (0, "inner"), ("out", -1.0), (1.0, 0.0)),
    ((1, "inner"), (1, "outer"), ("side", 1.0), (0.0, EDGE_TEXTURE_V)),
    ((0, "outer"), (0, "inner"), ("side", -1.0), (EDGE_TEXTURE_V, 0.0)),
)
"""The band's four faces, each a quad strip between two lines along the belt: outer, inner
and the two edges (:data:`BELT_STRIPS`)."""


_STRIP_TABLE = strip_table(STRIPS)


def belt_rows_batch(template: BeltTemplate, centre_z: np.ndarray, travelled_m: np.ndarray,
                    colour: np.ndarray) -> np.ndarray:
    """(B, rows, 12) float32: each belt's vertex rows (see :data:`ROW_POSITION` ...), its
    road wheels' centres at ``centre_z`` (B, W), its links' texture moved on by
    ``travelled_m`` (B,), coloured ``colour`` (B, 3). Compiled where numba is, else numpy
    (:func:`belt_rows_numpy`): the same rows."""
    if belt_rows_loop is None:
        return belt_rows_numpy(template, centre_z, travelled_m, colour)
    belts, count = template.path_y.shape
    rows = np.empty((belts, BELT_STRIPS, count + 1, 2, 12), dtype=np.float32)
    floats = [np.ascontiguousarray(values, dtype=np.float64) for values in (  # one signature
        template.path_y, template.path_z, centre_z, template.wheel_radius_m,
        template.wrap_dz_m, template.x_m, template.thickness_m, template.link_length_m,
        travelled_m, colour)]
    belt_rows_loop(*floats[:2], int(template.first_moving), *floats[2:], *_STRIP_TABLE,
                   MIN_TANGENT_LENGTH_M, rows)
    return rows.reshape(belts, BELT_STRIPS * (count + 1) * 2, 12)


def belt_rows_numpy(template: BeltTemplate, centre_z: np.ndarray, travelled_m: np.ndarray,
                    colour: np.ndarray) -> np.ndarray:
    """:func:`belt_rows_batch` in numpy operations over all the belts at once."""
    path = belt_paths(template, centre_z)
    inner = np.concatenate([path, path[:, :1]], axis=1)  # closed: the first point again
    tangent = np.roll(path, -1, axis=1) - np.roll(path, 1, axis=1)
    tangent /= np.maximum(np.sqrt(np.einsum("bnk,bnk->bn", tangent, tangent))[:, :, None],
                          MIN_TANGENT_LENGTH_M)
    tangent = np.concatenate([tangent, tangent[:, :1]], axis=1)
    outward = np.stack([-tangent[:, :, 1], tangent[:, :, 0]], axis=2)
    surfaces = {"inner": inner,
                "outer": inner + outward * template.thickness_m[:, None, None]}
    step = np.diff(inner, axis=1)
    arc = np.zeros(inner.shape[:2])
    np.cumsum(np.sqrt(np.einsum("bnk,bnk->bn", step, step)), axis=1, out=arc[:, 1:])
    total = arc[:, -1:]
    links = np.maximum(np.round(total / template.link_length_m[:, None]), 1.0)
    u = (arc - travelled_m[:, None]) * links / total
    belts, count = inner.shape[:2]
    rows = np.zeros((belts, BELT_STRIPS, count, 2, 12), dtype=np.float32)
    rows[:, :, :, :, ROW_COLOUR.start:ROW_COLOUR.start + 3] = colour[:, None, None, None, :]
    rows[:, :, :, :, ROW_COLOUR.stop - 1] = 1.0
    rows[:, :, :, :, ROW_UV.start] = u[:, None, :, None]
    for strip, (first, second, (normal, sign), v) in enumerate(STRIPS):
        for line, (edge, surface) in enumerate((first, second)):
            rows[:, strip, :, line, 0] = template.x_m[:, edge, None]
            rows[:, strip, :, line, 1:3] = surfaces[surface]
            rows[:, strip, :, line, ROW_UV.start + 1] = v[line]
        if normal == "out":
            rows[:, strip, :, :, 4:6] = sign * outward[:, :, None, :]
        else:
            rows[:, strip, :, :, 3] = sign
    return rows.reshape(belts, BELT_STRIPS * count * 2, 12)


def belt_rows(shape: BeltShape, centre_z: np.ndarray, travelled_m: float,
              colour) -> np.ndarray:
    """One belt's vertex rows (see :func:`belt_rows_batch`)."""
    return belt_rows_batch(BeltTemplate.of([shape]), np.asarray(centre_z)[None, :],
                           np.array([travelled_m]),
                           np.asarray(colour, dtype=np.float64)[None, :3])[0]


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


def belts_node(name: str, shapes: list[BeltShape], centre_z: np.ndarray, colour) -> GeomNode:
    """The belts of ``shapes`` (their road wheels' centres at heights ``centre_z``, one row
    per belt) as one dynamic mesh, not yet run: each belt's rows after the one before's
    (:func:`belt_rows_batch`'s order), so that one copy rewrites them all."""
    rows = [belt_rows(shape, heights, 0.0, colour) for shape, heights in zip(shapes, centre_z)]
    starts = np.cumsum([0] + [len(belt) for belt in rows[:-1]])
    triangles = np.concatenate([_belt_triangles(belt) + start
                                for belt, start in zip(rows, starts)])
    rows = np.concatenate(rows)
    return make_mesh(name, rows[:, ROW_POSITION], rows[:, ROW_NORMAL], rows[:, ROW_COLOUR],
                     triangles, uvs=rows[:, ROW_UV], dynamic=True)
