"""Height grids as the collider and the compiled loops take them: 16-bit levels over a
height range, each cell's two triangle planes (Bullet's split), and each sample's surface
in one row.

Shared by the whole-map terrain (:mod:`physics.model.terrain`), a big desert's tiles
(:mod:`physics.model.tiled_terrain`) and the craters dug into either
(:mod:`physics.model.craters`).
"""

from __future__ import annotations

import math

import numpy as np

HEIGHT_LEVELS = 65535
"""The collider is built from a 16-bit image: heights take this many steps over their range."""


def triangle_planes(heights_m: np.ndarray, spacing_m: float) -> np.ndarray:
    """Per cell and triangle of a height grid, row ``(cell_j * (columns - 1) + cell_i) * 2
    + upper``: the plane's height as ``a + fu * b + fv * c`` at fractions (fu, fv) of the
    cell, and its unit normal: ``(a, b, c, nx, ny, nz)``.

    A point lies in the lower triangle when fu + fv <= 1, which spans corners (i, j),
    (i+1, j) and (i, j+1); else in the upper one, spanning (i+1, j+1), (i, j+1) and
    (i+1, j): Bullet's split of the cell.
    """
    h = heights_m
    h00, h10, h01, h11 = h[:-1, :-1], h[:-1, 1:], h[1:, :-1], h[1:, 1:]
    planes = np.empty(h00.shape + (2, 6))
    for upper, (base, along_u, along_v) in enumerate((
            (h00, h10 - h00, h01 - h00),
            (h01 + h10 - h11, h11 - h01, h11 - h10))):
        slope_x, slope_y = along_u / spacing_m, along_v / spacing_m
        normal = np.stack([-slope_x, -slope_y, np.ones_like(slope_x)], axis=-1)
        planes[:, :, upper, 0] = base
        planes[:, :, upper, 1] = along_u
        planes[:, :, upper, 2] = along_v
        planes[:, :, upper, 3:] = normal / np.linalg.norm(normal, axis=-1, keepdims=True)
    return planes.reshape(-1, 6)


def ground_rows(surface_table: np.ndarray) -> np.ndarray:
    """Per surface, what a sample of it holds: half the ripple height, the ripple's wave
    number, the grip scale and the added rolling resistance (``surface_table``'s rows:
    grip scale, rolling resistance, ripple height, ripple wavelength)."""
    return np.column_stack([surface_table[:, 2] * 0.5, 2.0 * math.pi / surface_table[:, 3],
                            surface_table[:, :2]])


def ground_by_sample(surface_table: np.ndarray, surface_index: np.ndarray) -> np.ndarray:
    """Per sample, flat: its surface's :func:`ground_rows` row."""
    return ground_rows(surface_table).take(surface_index.reshape(-1), axis=0)


def quantised(heights_m: np.ndarray, min_height_m: float, height_range_m: float
              ) -> tuple[np.ndarray, np.ndarray]:
    """Heights as the collider's 16-bit levels over a range, and the heights those levels
    stand for."""
    levels = np.rint((heights_m - min_height_m) / height_range_m * HEIGHT_LEVELS
                     ).astype(np.uint16)
    return levels, min_height_m + levels * (height_range_m / HEIGHT_LEVELS)


def _clip(values: np.ndarray, low, high) -> np.ndarray:
    """np.clip's numbers without its Python wrapper (a look-up is a handful of calls, so
    the wrapper's cost shows)."""
    return np.minimum(np.maximum(values, low), high)
