"""What one tile of a big desert holds, made from the desert's field: its heights (the
16-bit levels a collider is built from and the heights they stand for), each sample's
surface (hardpan in the low relief, sand above it, bare rock round the rocks) and ground
row, each cell's two triangle planes, and its top.

A tile's contents are a pure function of the field, its key and the rocks near it, so
they are the same whichever tile, order or thread makes them. They are written by one
compiled call that lets go of the interpreter (:mod:`physics.model.field_kernel`), or by
numpy where numba is missing.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from physics.model import field_kernel
from physics.model.desert_field import DesertField
from physics.model.height_grid import ground_by_sample, ground_rows, quantised, triangle_planes
from physics.model.tile_grid import TileGrid, TileKey
from physics.model.tile_rocks import TileRocks


class TileData(NamedTuple):
    """One tile's contents, in the order of the pools (its top aside)."""

    planes: np.ndarray
    ground: np.ndarray
    heights_m: np.ndarray
    levels: np.ndarray
    surface: np.ndarray


class TileContents:
    """Makes tiles' contents for a grid of tiles over a field."""

    def __init__(self, grid: TileGrid, field: DesertField, surface_table: np.ndarray,
                 surface_names: list[str], heights_m: tuple[float, float, float]):
        """``surface_table``: the surfaces' grip scale, rolling resistance, ripple height
        and wavelength, one row each, in the order of ``surface_names``; ``heights_m``:
        the levels' least height and range, and the raw height hardpan lies below."""
        self.grid, self.field = grid, field
        self.hardpan, self.sand = surface_names.index("hardpan"), surface_names.index("sand")
        self.rock = surface_names.index("rock")
        self._surface_table = surface_table
        self._surface_indices = np.array([self.hardpan, self.sand, self.rock])
        self._ground_rows = ground_rows(surface_table)
        self.min_height_m, self.height_range_m, self.hardpan_below_m = heights_m
        self._quantising = np.array([*heights_m, grid.spacing_m])
        self.rocks: TileRocks | None = None
        """Where the rocks stand (none until a desert scatters them)."""

    def pool_layout(self) -> list[tuple[tuple[int, ...], type]]:
        """Each pool's shape per tile and its type: the planes, ground rows, heights,
        levels, surfaces and tops of the tiles."""
        cells, samples = self.grid.tile_cells, self.grid.tile_cells + 1
        return [((2 * cells * cells, 6), np.float32), ((samples * samples, 4), np.float32),
                ((samples, samples), np.float64), ((samples, samples), np.uint16),
                ((samples, samples), np.uint8), ((), np.float64)]

    def fill(self, key: TileKey, slot: int, pools: tuple[np.ndarray, ...]) -> None:
        """A tile's contents written into its slot of ``pools``; its top is the highest
        of its ground and the rocks over it (craters only ever lower the ground, so it
        stays above everything in the tile)."""
        discs = self.rock_discs(key)
        if field_kernel.AVAILABLE:
            x_m, y_m = self.grid.tile_sample_positions(key)
            planes, ground, heights_m, levels, surface = (pool[slot] for pool in pools[:5])
            field_kernel.fill_tile(*self.field.compiled_form, x_m, y_m, self._quantising,
                                   self._surface_indices, discs, self._ground_rows, planes,
                                   ground, heights_m, levels, surface)
        else:
            for pool, values in zip(pools, self.compute(key, discs)):
                pool[slot] = values
        pools[5][slot] = max(float(pools[2][slot].max()), float(discs[:, 3].max(initial=-np.inf)))

    def compute(self, key: TileKey, discs: np.ndarray) -> TileData:
        """A tile's contents by numpy, from its :meth:`rock_discs`."""
        x_m, y_m = self.grid.tile_sample_positions(key)
        raw_m = self.field.heights(x_m, y_m)
        levels, heights_m = quantised(raw_m, self.min_height_m, self.height_range_m)
        surface = np.where(raw_m < self.hardpan_below_m, self.hardpan, self.sand
                           ).astype(np.uint8)
        for rock_x, rock_y, reach_m, _ in discs.tolist():
            surface[(x_m - rock_x) ** 2 + (y_m - rock_y) ** 2 <= reach_m ** 2] = self.rock
        return TileData(triangle_planes(heights_m, self.grid.spacing_m),
                        ground_by_sample(self._surface_table, surface), heights_m, levels,
                        surface)

    def rock_discs(self, key: TileKey) -> np.ndarray:
        """The rocks reaching into a tile, (D, 4): their bare rock discs' x, y and reach,
        the reach at least half a cell's diagonal (the sample nearest a small rock is rock
        too), and their tops."""
        if self.rocks is None:
            return np.zeros((0, 4))
        grid = self.grid
        discs = np.array(self.rocks.rock_ground(key, grid.tile_box(key), grid.tile_size_m)
                         ).reshape(-1, 4)
        discs[:, 2] = np.maximum(discs[:, 2], grid.spacing_m * math.sqrt(0.5))
        return discs

    @property
    def highest_rise_m(self) -> float:
        """How far above the ground a rock may reach (0 without rocks)."""
        return 0.0 if self.rocks is None else self.rocks.highest_rise_m
