"""The belts' vertex rows in one compiled loop (numba, see :mod:`common.compiled`):
the same rows as :func:`game.view.rigs.track_belt.belt_rows_batch` works out with numpy, whose
many small operations cost more than the arithmetic where there are few belts. Where
numba is not available :data:`belt_rows_loop` is None and the numpy path runs.
"""

from __future__ import annotations

import numpy as np

from common.compiled import compiled

_SURFACE_INNER, _SURFACE_OUTER = 0, 1


def strip_table(strips) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:data:`game.view.rigs.track_belt.STRIPS` as arrays for the loop: each strip's (edge,
    surface) at its two lines (4, 2) each, its normal's sign on the outward normal (0: on
    +X instead) and on +X (4, 2), and its v at the two lines (4, 2)."""
    edges = np.array([[first[0], second[0]] for first, second, _, _ in strips], np.int64)
    surfaces = np.array([[_SURFACE_OUTER if line[1] == "outer" else _SURFACE_INNER
                          for line in (first, second)] for first, second, _, _ in strips],
                        np.int64)
    normals = np.array([(sign, 0.0) if normal == "out" else (0.0, sign)
                        for _, _, (normal, sign), _ in strips], np.float64)
    v = np.array([v_pair for _, _, _, v_pair in strips], np.float64)
    return edges, surfaces, normals, v


def _belt_rows(path_y, path_z, first_moving, centre_z, wheel_radius_m, wrap_dz_m, x_m,
               thickness_m, link_length_m, travelled_m, colour, edges, surfaces, normals, v,
               min_tangent_m, rows):
    """Fill ``rows`` (B, strips, N + 1, 2, 12) float32: see ``belt_rows_batch``."""
    belts, count = path_y.shape
    wheels = centre_z.shape[1]
    strips = edges.shape[0]
    z = np.empty(count)
    yz = np.empty((count + 1, 2, 2))  # per point: inner (y, z), outer (y, z)
    out = np.empty((count + 1, 2))
    u = np.empty(count + 1)
    for b in range(belts):
        z[:] = path_z[b]
        z[first_moving] = centre_z[b, wheels - 1] + wrap_dz_m[b]
        for k in range(wheels):
            z[first_moving + 1 + k] = centre_z[b, wheels - 1 - k] - wheel_radius_m[b]
        z[first_moving + 1 + wheels] = centre_z[b, 0] + wrap_dz_m[b]
        for i in range(count + 1):
            point = i % count
            after, before = (point + 1) % count, (point - 1) % count
            ty = path_y[b, after] - path_y[b, before]
            tz = z[after] - z[before]
            length = max(np.sqrt(ty * ty + tz * tz), min_tangent_m)
            ty, tz = ty / length, tz / length
            out[i, 0], out[i, 1] = -tz, ty
            yz[i, 0, 0], yz[i, 0, 1] = path_y[b, point], z[point]
            yz[i, 1, 0] = path_y[b, point] + out[i, 0] * thickness_m[b]
            yz[i, 1, 1] = z[point] + out[i, 1] * thickness_m[b]
        u[0] = 0.0
        for i in range(1, count + 1):
            dy, dz = yz[i, 0, 0] - yz[i - 1, 0, 0], yz[i, 0, 1] - yz[i - 1, 0, 1]
            u[i] = u[i - 1] + np.sqrt(dy * dy + dz * dz)
        total = u[count]
        links = max(np.round(total / link_length_m[b]), 1.0)
        for i in range(count + 1):
            u[i] = (u[i] - travelled_m[b]) * links / total
        for s in range(strips):
            for i in range(count + 1):
                for line in range(2):
                    row = rows[b, s, i, line]
                    row[0] = x_m[b, edges[s, line]]
                    row[1] = yz[i, surfaces[s, line], 0]
                    row[2] = yz[i, surfaces[s, line], 1]
                    row[3] = normals[s, 1]
                    row[4] = normals[s, 0] * out[i, 0]
                    row[5] = normals[s, 0] * out[i, 1]
                    row[6], row[7], row[8] = colour[b, 0], colour[b, 1], colour[b, 2]
                    row[9] = 1.0
                    row[10] = u[i]
                    row[11] = v[s, line]


belt_rows_loop = compiled(_belt_rows)
"""The compiled loop, or None where numba is not available."""
