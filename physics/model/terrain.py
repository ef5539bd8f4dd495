"""Terrain: one numpy height array that is both the Bullet collider and the drawn mesh.

Sample ``heights[j, i]`` sits at world ``x = (i - (nx - 1) / 2) * spacing_m``,
``y = (j - (ny - 1) / 2) * spacing_m``: the grid is centred on the origin, as
Bullet centres its heightfield shape. Heights are quantised once to the 16 bits
the collider is built from, so the array, the collider and the mesh agree to
float precision, and :meth:`Terrain.height_at` splits each cell along the same
diagonal as Bullet (from sample (i+1, j) to (i, j+1)).

:func:`build_terrain` makes the terrain a ``--map`` choice names; the maps' tuning and
the tables compiled loops read live in :mod:`physics.model.terrain_base`, and are
found here too.
"""

from __future__ import annotations

import math

import numpy as np

from physics.model.craters import DugGrid, sample_window
from physics.model.desert_field import DesertField
from physics.model.height_grid import ground_by_sample, quantised, triangle_planes
from physics.model.map_choice import MapChoice
from physics.model.terrain_base import (MISSING_HEIGHT_M, REFERENCE_SURFACE, SURFACE_NAMES,
                                        DesertSpec, SurfaceSpec, TerrainBase, TerrainSpec,
                                        TerrainTables, TestMapSpec, ground_sample, plane_under,
                                        planes_under, sample_height)
from physics.model.tiled_terrain import TiledTerrain

__all__ = ["MISSING_HEIGHT_M", "REFERENCE_SURFACE", "SURFACE_NAMES", "DesertSpec", "MapChoice",
           "SurfaceSpec", "Terrain", "TerrainBase", "TerrainSpec", "TerrainTables",
           "TestMapSpec", "build_terrain", "desert_heights", "ground_sample", "plane_under",
           "sample_height"]


class Terrain(TerrainBase):
    """A height grid centred on the origin, with exact height and normal look-ups."""

    def __init__(self, heights_m: np.ndarray, spacing_m: float,
                 surfaces: tuple[SurfaceSpec, ...], surface_index: np.ndarray | None = None):
        heights_m = np.asarray(heights_m, dtype=np.float64)
        if heights_m.ndim != 2 or min(heights_m.shape) < 2:
            raise ValueError("heights_m must be a 2-D grid of at least 2 x 2 samples")
        self.spacing_m = float(spacing_m)
        self.min_height_m = float(heights_m.min())
        # A flat map still needs a non-zero range for the 16-bit encoding.
        self.height_range_m = max(float(heights_m.max()) - self.min_height_m, 1.0)
        self.levels, self.heights_m = quantised(heights_m, self.min_height_m,
                                                self.height_range_m)
        self.rows, self.columns = self.heights_m.shape
        self.half_extent_x_m = (self.columns - 1) / 2 * self.spacing_m
        self.half_extent_y_m = (self.rows - 1) / 2 * self.spacing_m
        self.surfaces = tuple(surfaces)
        self._surface_index = (np.zeros(heights_m.shape, dtype=np.uint8)
                               if surface_index is None
                               else np.array(surface_index, dtype=np.uint8))
        self._surface_table = np.array([[surface.grip_scale, surface.rolling_resistance,
                                         surface.ripple_height_m, surface.ripple_wavelength_m]
                                        for surface in self.surfaces])
        # Look-ups work on (N, 2) arrays of (x, y) and read tables made once here, so a
        # ray's worth of them is a few numpy calls; the heights never change after this.
        self._half_extents_m = np.array([self.half_extent_x_m, self.half_extent_y_m])
        self._last_sample = np.array([self.columns - 1, self.rows - 1])
        self._planes = triangle_planes(self.heights_m, self.spacing_m)
        self._sample_ground = ground_by_sample(self._surface_table, self._surface_index)
        self._untouched: np.ndarray | None = None
        """The heights before the first crater (None: none dug yet)."""
        self._start_craters()
        self._tables = TerrainTables(
            self._planes[None], self._sample_ground[None], np.zeros((1, 1), dtype=np.int64),
            np.array([self.half_extent_x_m, self.half_extent_y_m, self.spacing_m,
                      self.columns - 1.0, self.rows - 1.0, self.columns - 1.0,
                      self.rows - 1.0]), self.heights_m[None])

    def _untouched_at(self, x_m: float, y_m: float) -> float:
        untouched = self.heights_m if self._untouched is None else self._untouched
        column = min(max(round((x_m + self.half_extent_x_m) / self.spacing_m), 0),
                     self.columns - 1)
        row = min(max(round((y_m + self.half_extent_y_m) / self.spacing_m), 0), self.rows - 1)
        return float(untouched[row, column])

    def _rework(self, box_m: tuple[float, float, float, float]) -> None:
        if self._untouched is None:
            self._untouched = self.heights_m.copy()
        window = sample_window(box_m, (self.half_extent_x_m, self.half_extent_y_m),
                               self.spacing_m, (self.columns - 1, self.rows - 1))
        first_column, last_column, first_row, last_row = window
        x_m, y_m = self.sample_positions()
        part = (slice(first_row, last_row + 1), slice(first_column, last_column + 1))
        craters = [(crater, ground) for crater, ground in self._craters
                   if crater.overlaps(box_m)]
        DugGrid(self.heights_m, self.levels, self._planes, self.spacing_m, self.min_height_m,
                self.height_range_m).rework(window, self._untouched[part], x_m[part],
                                            y_m[part], craters)

    @property
    def surface_index(self) -> np.ndarray:
        """Per sample: which of ``surfaces`` the ground there is (read-only: change it with
        :meth:`paint_surface`)."""
        view = self._surface_index.view()
        view.setflags(write=False)
        return view

    @property
    def tables(self) -> TerrainTables:
        """The whole map as one tile, for compiled loops."""
        return self._tables

    def prepare_box(self, x_min_m: float, y_min_m: float, x_max_m: float, y_max_m: float
                    ) -> None:
        """Make the tiles under a box, for compiled loops to read (every tile of this
        terrain is always made)."""

    def surface_name_at(self, x_m: float, y_m: float) -> str:
        """The surface of the sample nearest a point."""
        column = min(max(round((x_m + self.half_extent_x_m) / self.spacing_m), 0),
                     self.columns - 1)
        row = min(max(round((y_m + self.half_extent_y_m) / self.spacing_m), 0), self.rows - 1)
        return self.surfaces[int(self._surface_index[row, column])].name

    def ground_at(self, xy_m: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Ripple height, grip scale and added rolling resistance at N points, rows (2, N)
        of x and y, from the nearest sample's surface, in one look-up."""
        i, j = _clip(np.rint((xy_m + self._half_extents_m[:, None]) / self.spacing_m), 0,
                     self._last_sample[:, None]).astype(np.int64)
        half_height, wave, grip, rolling = self._sample_ground.take(j * self.columns + i,
                                                                    axis=0).T
        wave_x, wave_y = np.sin(wave * xy_m)
        return half_height * (1.0 + wave_x * wave_y), grip, rolling

    def sample_positions(self) -> tuple[np.ndarray, np.ndarray]:
        """World x and y of every sample, each shaped like ``heights_m``."""
        xs = (np.arange(self.columns) - (self.columns - 1) / 2) * self.spacing_m
        ys = (np.arange(self.rows) - (self.rows - 1) / 2) * self.spacing_m
        return np.meshgrid(xs, ys)

    def planes_at(self, xy_m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Height (N,) and unit normal (3, N) of the collider's triangle under each of N
        points, given as rows (2, N) of x and y; points off the map read its edge, points
        that are not finite read NaN. The fast form of :meth:`surface_at`, for the vehicle
        model's rays: one compiled loop (:func:`planes_under`)."""
        tables = self._tables
        return planes_under(tables.planes, tables.directory, tables.lookup,
                            np.ascontiguousarray(xy_m, dtype=float))

    def paint_surface(self, x_m: float, y_m: float, radius_m: float, name: str) -> None:
        """Make the ground within ``radius_m`` of (x, y) the named surface."""
        x_grid, y_grid = self.sample_positions()
        inside = (x_grid - x_m) ** 2 + (y_grid - y_m) ** 2 <= radius_m ** 2
        self._surface_index[inside] = self.surface_named(name)
        self._sample_ground[:] = ground_by_sample(self._surface_table, self._surface_index)


def _clip(values: np.ndarray, low, high) -> np.ndarray:
    """np.clip's numbers without its Python wrapper (a look-up is a handful of calls, so
    the wrapper's cost shows)."""
    return np.minimum(np.maximum(values, low), high)


def _grid_samples(size_m: float, spacing_m: float) -> int:
    return int(round(size_m / spacing_m)) + 1


def desert_heights(spec: DesertSpec, seed: int) -> np.ndarray:
    """Dune ridges across a seeded wind, on rolling ground, with ripples; heights[j, i]."""
    samples = _grid_samples(spec.size_m, spec.spacing_m)
    xs = (np.arange(samples) - (samples - 1) / 2) * spec.spacing_m
    x_m, y_m = np.meshgrid(xs, xs)
    return DesertField(spec, seed, float(xs[-1] - xs[0])).heights(x_m, y_m)


def build_terrain(choice: MapChoice, spec: TerrainSpec, seed: int) -> Terrain | TiledTerrain:
    """The terrain for a ``--map`` choice: a big desert's is tiled, every other one whole."""
    names = [surface.name for surface in spec.surfaces]
    if choice.kind == "desert" and choice.size_m is not None:
        return TiledTerrain(DesertField(spec.desert, seed, float(choice.size_m)), spec)
    if choice.kind == "desert":
        heights = desert_heights(spec.desert, seed)
        relief = (heights - heights.min()) / max(np.ptp(heights), np.finfo(float).eps)
        index = np.where(relief < spec.desert.hardpan_below_fraction, names.index("hardpan"),
                         names.index("sand"))
        return Terrain(heights, spec.desert.spacing_m, spec.surfaces, index)
    maps = spec.test_maps
    size_m, spacing_m = ((maps.range_size_m, maps.range_spacing_m) if choice.kind == "range"
                         else (maps.size_m, maps.spacing_m))
    samples = _grid_samples(size_m, spacing_m)
    ys = (np.arange(samples) - (samples - 1) / 2) * spacing_m
    rise_per_m = math.tan(math.radians(choice.slope_deg))  # flat: 0; uphill toward +Y
    heights = np.repeat((ys * rise_per_m)[:, None], samples, axis=1)
    index = np.full(heights.shape, names.index(maps.surface))
    return Terrain(heights, spacing_m, spec.surfaces, index)
