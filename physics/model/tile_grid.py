"""The grid of square tiles a big desert (``desert:SIZE``) is cut into: which tile a point
lies in, each tile's square, centre and samples, and the tiles near some points. Pure
geometry, shared by the tiles' terrain, colliders and views."""

from __future__ import annotations

import math

import numpy as np

from common.compiled import compiled, compiled_loop

TileKey = tuple[int, int]
"""A tile's column and row in the map's grid of tiles."""


def per_point(values, count: int) -> np.ndarray:
    """One float per point (``count``): ``values`` as they are where they are one each,
    else the one value for all; contiguous. What ``np.broadcast_to`` gives, at a tenth of
    its cost on the few points a step asks for (shells, vehicles)."""
    values = np.asarray(values, dtype=np.float64)
    if values.shape == (count,):
        return np.ascontiguousarray(values)
    return np.full(count, values, dtype=np.float64)


def rect_distances_m(centres_xy: np.ndarray, half_side_m: float, points_xy: np.ndarray
                      ) -> np.ndarray:
    """Distance from each of T squares (centres (T, 2), half side) to the nearest of N
    points (N, 2): (T,)."""
    gap = np.maximum(np.abs(centres_xy[:, None, :] - points_xy[None, :, :]) - half_side_m, 0.0)
    return np.sqrt((gap ** 2).sum(axis=-1)).min(axis=1)


class TileGrid:
    """A square map of ``tiles_per_side`` tiles a side, each ``tile_cells`` cells of
    ``spacing_m``, centred on the origin (a subclass sets these and the half extents)."""

    tile_size_m: float
    tile_cells: int
    tiles_per_side: int
    spacing_m: float
    columns: int
    half_extent_x_m: float
    half_extent_y_m: float

    def tile_sample_positions(self, key: TileKey) -> tuple[np.ndarray, np.ndarray]:
        """World x and y of a tile's samples, (cells + 1) square, rows by y: the map's own
        sample positions, so a border sample is the same point in both its tiles."""
        cells = self.tile_cells
        offset = (self.columns - 1) / 2
        xs = (key[0] * cells + np.arange(cells + 1) - offset) * self.spacing_m
        ys = (key[1] * cells + np.arange(cells + 1) - offset) * self.spacing_m
        return np.meshgrid(xs, ys)

    def tile_centre(self, key: TileKey) -> tuple[float, float]:
        return ((key[0] + 0.5) * self.tile_size_m - self.half_extent_x_m,
                (key[1] + 0.5) * self.tile_size_m - self.half_extent_y_m)

    def _tile_range(self, low_m: float, high_m: float) -> range:
        """The columns (or rows) of tiles from one coordinate to another, clamped to the
        map."""
        arguments = (self.half_extent_x_m, self.tile_size_m, self.tiles_per_side - 1)
        return range(_tile_index(low_m, *arguments), _tile_index(high_m, *arguments) + 1)

    def tile_box(self, key: TileKey) -> tuple[float, float, float, float]:
        """A tile's square: least x and y, greatest x and y."""
        centre_x, centre_y = self.tile_centre(key)
        half = self.tile_size_m / 2
        return centre_x - half, centre_y - half, centre_x + half, centre_y + half

    def tiles_near(self, points_xy: np.ndarray, radius_m, ordered: bool = False
                   ) -> list[TileKey]:
        """The tiles any part of which lies within ``radius_m`` (one for all, or one per
        point) of one of the points (N, 2): sorted, or ``ordered`` by the first point each
        is near."""
        points = np.ascontiguousarray(points_xy, dtype=np.float64).reshape(-1, 2)
        radii = per_point(radius_m, len(points))
        side = self.tiles_per_side
        codes = _near_tile_codes(points, radii, self.half_extent_x_m, float(self.tile_size_m),
                                 side)
        if not ordered:
            codes = np.sort(codes)
        return list(zip((codes // side).tolist(), (codes % side).tolist()))

    def tiles_near_point(self, x_m: float, y_m: float, radius_m: float) -> list[TileKey]:
        """:meth:`tiles_near` of one point, in plain floats (a shell's few tiles, every
        step it flies low, where the compiled call's arrays cost more): the same tiles,
        column by column, row by row."""
        size_m = float(self.tile_size_m)
        half_tile = size_m / 2
        offset = half_tile - self.half_extent_x_m
        rows = self._tile_range(y_m - radius_m, y_m + radius_m)
        near = []
        for column in self._tile_range(x_m - radius_m, x_m + radius_m):
            gap_x = max(abs(column * size_m + offset - x_m) - half_tile, 0.0)
            for row in rows:
                gap_y = max(abs(row * size_m + offset - y_m) - half_tile, 0.0)
                if gap_x * gap_x + gap_y * gap_y <= radius_m * radius_m:
                    near.append((column, row))
        return near


def _tile_index(coordinate_m, half_extent_m, tile_size_m, last):
    """The column (or row) of the tile at a coordinate, clamped to the map's 0..``last``."""
    return min(max(math.floor((coordinate_m + half_extent_m) / tile_size_m), 0), last)


_tile_index_compiled = compiled(_tile_index, inline=True) or _tile_index
"""The same, compiled into the loop below (:meth:`TileGrid._tile_range` calls the plain one
from Python, where a compiled call would cost more than it saves)."""


@compiled_loop
def box_marked(directory, used, epoch, low_x_m, low_y_m, high_x_m, high_y_m, half_extent_m,
               tile_size_m, tiles_per_side):
    """Mark in ``used`` (laid out as ``directory``, by row and column) every tile under a
    box (clamped to the map, as :meth:`TileGrid._tile_range` clamps it) as used in
    ``epoch``; whether every one of them is made (its ``directory`` slot set)."""
    last = tiles_per_side - 1
    first_column = _tile_index_compiled(low_x_m, half_extent_m, tile_size_m, last)
    last_column = _tile_index_compiled(high_x_m, half_extent_m, tile_size_m, last)
    made = True
    for row in range(_tile_index_compiled(low_y_m, half_extent_m, tile_size_m, last),
                     _tile_index_compiled(high_y_m, half_extent_m, tile_size_m, last) + 1):
        for column in range(first_column, last_column + 1):
            used[row, column] = epoch
            made = made and directory[row, column] >= 0
    return made


@compiled_loop
def _near_tile_codes(points, radii, half_extent_m, tile_size_m, tiles_per_side):
    """:meth:`TileGrid.tiles_near`'s tiles as codes (column * tiles_per_side + row), each
    once, in the order first met: point by point, column by column, row by row. A tile is
    near a point when the gap from the point to its square is within the point's radius;
    only the tiles of the box round the point (clamped to the map) are tried."""
    half_tile = tile_size_m / 2
    offset = half_tile - half_extent_m
    last = tiles_per_side - 1
    seen = np.zeros(tiles_per_side * tiles_per_side, dtype=np.bool_)
    codes = np.empty(tiles_per_side * tiles_per_side, dtype=np.int64)
    count = 0
    for point in range(points.shape[0]):
        x_m, y_m, radius_m = points[point, 0], points[point, 1], radii[point]
        first_row = _tile_index_compiled(y_m - radius_m, half_extent_m, tile_size_m, last)
        last_row = _tile_index_compiled(y_m + radius_m, half_extent_m, tile_size_m, last)
        for column in range(_tile_index_compiled(x_m - radius_m, half_extent_m, tile_size_m,
                                                 last),
                            _tile_index_compiled(x_m + radius_m, half_extent_m, tile_size_m,
                                                 last) + 1):
            gap_x = max(abs(column * tile_size_m + offset - x_m) - half_tile, 0.0)
            for row in range(first_row, last_row + 1):
                gap_y = max(abs(row * tile_size_m + offset - y_m) - half_tile, 0.0)
                code = column * tiles_per_side + row
                if gap_x * gap_x + gap_y * gap_y <= radius_m * radius_m and not seen[code]:
                    seen[code] = True
                    codes[count] = code
                    count += 1
    return codes[:count]


