"""Terrain: one numpy height array that is both the Bullet collider and the drawn mesh.

Sample ``heights[j, i]`` sits at world ``x = (i - (nx - 1) / 2) * spacing_m``,
``y = (j - (ny - 1) / 2) * spacing_m``: the grid is centred on the origin, as
Bullet centres its heightfield shape. Heights are quantised once to the 16 bits
the collider is built from, so the array, the collider and the mesh agree to
float precision, and :meth:`Terrain.height_at` splits each cell along the same
diagonal as Bullet (from sample (i+1, j) to (i, j+1)).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from physics.model.compiled import compiled
from physics.model.craters import CraterBook, CraterSpec, DugGrid, sample_window
from physics.model.desert_field import DesertField, TileSpec
from physics.model.height_grid import ground_by_sample, quantised, triangle_planes
from physics.model.map_choice import MapChoice  # where build_terrain's callers find it
from physics.model.spec import Spec, SpecError, tuning



@dataclass(frozen=True)
class DesertSpec(Spec):
    """The procedural desert: long dune ridges across the wind, plus undulation and ripples."""

    size_m: float = tuning("side of the square map", minimum=128.0, maximum=4096.0)
    spacing_m: float = tuning("distance between height samples", minimum=0.5, maximum=8.0)
    dune_height_m: float = tuning("crest height of a typical dune above its trough",
                                  minimum=0.0, maximum=40.0)
    dune_wavelength_m: float = tuning("distance between dune crests along the wind",
                                      minimum=10.0, maximum=1000.0)
    lee_fraction: float = tuning("share of each dune's length taken by its steep downwind face",
                                 minimum=0.1, maximum=0.5)
    ridge_wander_m: float = tuning("how far the ridges wander sideways from straight lines",
                                   minimum=0.0, maximum=500.0)
    ridge_wander_scale_m: float = tuning("length over which a ridge wanders", minimum=10.0,
                                         maximum=2000.0)
    crest_variation: float = tuning("how much crest height changes along a ridge (0 none, 1 "
                                    "ridges break up)", minimum=0.0, maximum=1.0)
    crest_variation_scale_m: float = tuning("length over which a crest rises and falls",
                                            minimum=10.0, maximum=2000.0)
    undulation_height_m: float = tuning("amplitude of the rolling ground under the dunes",
                                        minimum=0.0, maximum=40.0)
    undulation_scale_m: float = tuning("feature size of the largest undulation",
                                       minimum=10.0, maximum=2000.0)
    undulation_octaves: int = tuning("octaves of noise in the undulation, each half the size "
                                     "and height of the last", minimum=1, maximum=8)
    ripple_height_m: float = tuning("height of the wind ripples", minimum=0.0, maximum=2.0)
    ripple_wavelength_m: float = tuning("distance between ripples", minimum=1.0, maximum=100.0)
    hardpan_below_fraction: float = tuning("ground lower than this share of the map's relief "
                                           "is packed hardpan; the rest soft sand",
                                           minimum=0.0, maximum=1.0)


SURFACE_NAMES = ("sand", "hardpan", "rock")
REFERENCE_SURFACE = "hardpan"
"""The surface a vehicle's own grip and rolling resistance are stated on (config/tank.toml,
config/car.toml): it leaves them as they are, and every other surface scales the grip and
adds its rolling resistance, the same for tracks and tyres."""


@dataclass(frozen=True)
class SurfaceSpec(Spec):
    """What the ground is like: how well it holds, how much it drags, how rough it is."""

    name: str = tuning("which surface", choices=SURFACE_NAMES)
    grip_scale: float = tuning("multiplies a tyre's or track's grip (1 on the reference "
                               "surface, hardpan)", minimum=0.05, maximum=2.0)
    rolling_resistance: float = tuning("force against rolling added to the vehicle's own, as "
                                       "a share of load (0 on hardpan)", minimum=0.0,
                                       maximum=0.5)
    ripple_height_m: float = tuning("height of small bumps too many to be geometry",
                                    minimum=0.0, maximum=0.5)
    ripple_wavelength_m: float = tuning("distance between those bumps", minimum=0.2,
                                        maximum=50.0)


@dataclass(frozen=True)
class TestMapSpec(Spec):
    """The flat and sloped maps used by scenario tests."""

    size_m: float = tuning("side of the square map", minimum=32.0, maximum=4096.0)
    spacing_m: float = tuning("distance between height samples", minimum=0.5, maximum=8.0)
    surface: str = tuning("the one surface they are made of", choices=SURFACE_NAMES)


@dataclass(frozen=True)
class TerrainSpec(Spec):
    desert: DesertSpec = tuning("the procedural desert map")
    tiles: TileSpec = tuning("how a big desert (desert:SIZE) is made and kept in tiles")
    test_maps: TestMapSpec = tuning("the flat and slope:DEG maps")
    surfaces: tuple[SurfaceSpec, ...] = tuning("each surface once", length=(3, 3))
    craters: CraterSpec = tuning("the holes shells dig in sand")

    def __post_init__(self) -> None:
        super().__post_init__()
        if sorted(surface.name for surface in self.surfaces) != sorted(SURFACE_NAMES):
            raise SpecError("surfaces", [surface.name for surface in self.surfaces],
                            "each of " + ", ".join(SURFACE_NAMES) + " once")
        for index, surface in enumerate(self.surfaces):
            if surface.name != REFERENCE_SURFACE:
                continue
            if surface.grip_scale != 1.0:
                raise SpecError(f"surfaces[{index}].grip_scale", surface.grip_scale,
                                f"1.0 on {REFERENCE_SURFACE}, the surface vehicles' grip "
                                f"is stated on")
            if surface.rolling_resistance != 0.0:
                raise SpecError(f"surfaces[{index}].rolling_resistance",
                                surface.rolling_resistance,
                                f"0.0 on {REFERENCE_SURFACE}, the surface vehicles' rolling "
                                f"resistance is stated on")


class TerrainTables(NamedTuple):
    """The terrain as compiled loops read it: the heights cut into tiles, each tile's
    triangle planes and ground in a slot of a pool, and a directory of which tile is in
    which slot. A whole-map terrain is one tile in one slot; a tiled one holds only the
    tiles made so far (:mod:`physics.model.tiled_terrain`)."""

    planes: np.ndarray
    """(slots, triangles of a tile, 6): per triangle ``(a, b, c, nx, ny, nz)`` (see
    :func:`triangle_planes`)."""
    ground: np.ndarray
    """(slots, samples of a tile, 4): per sample half the ripple height, the ripple's wave
    number, the grip scale and the added rolling resistance."""
    directory: np.ndarray
    """(tiles in y, tiles in x), int64: each tile's slot, -1 where it is not made."""
    lookup: np.ndarray
    """The map's half extents in x and y, the sample spacing, the last sample's column and
    row, and a tile's cells in x and in y."""
    heights: np.ndarray
    """(slots, samples of a tile in y, in x): the heights the planes were made from."""


MISSING_HEIGHT_M = -1.0e9
"""What :func:`plane_under` reads where a tile is not made: far below anything, so a ray
or a shell meets no ground there (callers make the tiles they need first)."""


def plane_under(planes, directory, lookup, x_m, y_m):
    """Height, and unit normal (x, y, z), of the collider's triangle under one point: what
    :meth:`Terrain.planes_at` gives, for compiled loops (the arrays are
    :class:`TerrainTables`'); points off the map read its edge."""
    cell_u = np.minimum(np.maximum((x_m + lookup[0]) / lookup[2], 0.0), lookup[3])
    cell_v = np.minimum(np.maximum((y_m + lookup[1]) / lookup[2], 0.0), lookup[4])
    i, j = min(int(cell_u), int(lookup[3]) - 1), min(int(cell_v), int(lookup[4]) - 1)
    fu, fv = cell_u - i, cell_v - j
    tile_cells_x, tile_cells_y = int(lookup[5]), int(lookup[6])
    tile_i, tile_j = i // tile_cells_x, j // tile_cells_y
    slot = directory[tile_j, tile_i]
    if slot < 0:
        return MISSING_HEIGHT_M, 0.0, 0.0, 1.0
    row = (2 * (i - tile_i * tile_cells_x) + 2 * tile_cells_x * (j - tile_j * tile_cells_y)
           + (1 if fu + fv > 1.0 else 0))
    height = planes[slot, row, 0] + fu * planes[slot, row, 1] + fv * planes[slot, row, 2]
    return height, planes[slot, row, 3], planes[slot, row, 4], planes[slot, row, 5]


def ground_sample(directory, lookup, x_m, y_m):
    """The slot and the row in it of the sample nearest a point (its surface), for
    compiled loops; slot 0, row 0 where the tile is not made."""
    column = min(max(round((x_m + lookup[0]) / lookup[2]), 0), int(lookup[3]))
    row = min(max(round((y_m + lookup[1]) / lookup[2]), 0), int(lookup[4]))
    tile_cells_x, tile_cells_y = int(lookup[5]), int(lookup[6])
    tile_i = min(column // tile_cells_x, directory.shape[1] - 1)
    tile_j = min(row // tile_cells_y, directory.shape[0] - 1)
    slot = directory[tile_j, tile_i]
    if slot < 0:
        return 0, 0
    return slot, ((row - tile_j * tile_cells_y) * (tile_cells_x + 1)
                  + column - tile_i * tile_cells_x)


def sample_height(heights, directory, lookup, column, row):
    """The height of the map's sample at (column, row), for compiled loops;
    :data:`MISSING_HEIGHT_M` where its tile is not made."""
    tile_cells_x, tile_cells_y = int(lookup[5]), int(lookup[6])
    tile_i = min(column // tile_cells_x, directory.shape[1] - 1)
    tile_j = min(row // tile_cells_y, directory.shape[0] - 1)
    slot = directory[tile_j, tile_i]
    if slot < 0:
        return MISSING_HEIGHT_M
    return heights[slot, row - tile_j * tile_cells_y, column - tile_i * tile_cells_x]


plane_under = compiled(plane_under) or plane_under
ground_sample = compiled(ground_sample) or ground_sample
sample_height = compiled(sample_height) or sample_height


class TerrainBase(CraterBook):
    """What every terrain answers from its :meth:`planes_at`: heights, normals, whether a
    point is on the map, and its surfaces' grip; and the craters dug into it. A subclass sets ``half_extent_x_m``,
    ``half_extent_y_m``, ``min_height_m``, ``height_range_m``, ``surfaces`` and
    ``_surface_table``."""

    name = "terrain"
    """What a hit on it is called in the event log, whatever kind of terrain it is."""
    half_extent_x_m: float
    half_extent_y_m: float
    min_height_m: float
    height_range_m: float
    surfaces: tuple[SurfaceSpec, ...]
    _surface_table: np.ndarray

    def planes_at(self, xy_m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    @property
    def max_height_m(self) -> float:
        return self.min_height_m + self.height_range_m

    def contains(self, x_m, y_m) -> np.ndarray:
        return (np.abs(x_m) <= self.half_extent_x_m) & (np.abs(y_m) <= self.half_extent_y_m)

    def contains_rows(self, xy_m: np.ndarray) -> np.ndarray:
        """:meth:`contains` for N points, rows (2, N) of x and y."""
        return (np.abs(xy_m[0]) <= self.half_extent_x_m) & (np.abs(xy_m[1])
                                                             <= self.half_extent_y_m)

    def height_at(self, x_m, y_m) -> np.ndarray:
        """Ground height under (x, y), exactly as the collider has it (clamped to the map)."""
        return self.surface_at(x_m, y_m)[0]

    def normal_at(self, x_m, y_m) -> np.ndarray:
        """Unit normal of the collider's triangle under (x, y); shape (..., 3)."""
        return self.surface_at(x_m, y_m)[1]

    def surface_at(self, x_m, y_m) -> tuple[np.ndarray, np.ndarray]:
        """Height and unit normal under (x, y) in one look-up."""
        x_m, y_m = np.broadcast_arrays(np.asarray(x_m, dtype=np.float64),
                                       np.asarray(y_m, dtype=np.float64))
        height, normal = self.planes_at(np.stack([x_m.ravel(), y_m.ravel()]))
        return height.reshape(x_m.shape), normal.T.reshape(x_m.shape + (3,))

    def surface_named(self, name: str) -> int:
        return next(i for i, surface in enumerate(self.surfaces) if surface.name == name)

    def surface_grip(self, index) -> tuple[np.ndarray, np.ndarray]:
        """Grip scale and added rolling resistance of the surfaces numbered ``index``."""
        row = self._surface_table[index]
        return row[..., 0], row[..., 1]


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
        self._last_cell = self._last_sample - 1
        self._planes = triangle_planes(self.heights_m, self.spacing_m)
        self._plane_strides = np.array([2, 2 * (self.columns - 1)])
        """Row of ``_planes`` per cell step in i and j (each cell has two triangles)."""
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
        points, given as rows (2, N) of x and y; points off the map read its edge. The
        fast form of :meth:`surface_at`, for the vehicle model's rays."""
        uv = _clip((xy_m + self._half_extents_m[:, None]) / self.spacing_m, 0.0,
                   self._last_sample[:, None])
        cell = np.minimum(uv.astype(np.int64), self._last_cell[:, None])
        fraction = uv - cell
        upper = fraction[0] + fraction[1] > 1.0
        row = self._planes.take(self._plane_strides @ cell + upper, axis=0)
        return row[:, 0] + fraction[0] * row[:, 1] + fraction[1] * row[:, 2], row[:, 3:].T

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


def build_terrain(choice: MapChoice, spec: TerrainSpec, seed: int) -> TerrainBase:
    """The terrain for a ``--map`` choice."""
    names = [surface.name for surface in spec.surfaces]
    if choice.kind == "desert" and choice.size_m is not None:
        # Imported here: the tiled terrain is built on this module's tables.
        from physics.model.tiled_terrain import TiledTerrain
        return TiledTerrain(DesertField(spec.desert, seed, float(choice.size_m)), spec)
    if choice.kind == "desert":
        heights = desert_heights(spec.desert, seed)
        relief = (heights - heights.min()) / max(np.ptp(heights), np.finfo(float).eps)
        index = np.where(relief < spec.desert.hardpan_below_fraction, names.index("hardpan"),
                         names.index("sand"))
        return Terrain(heights, spec.desert.spacing_m, spec.surfaces, index)
    samples = _grid_samples(spec.test_maps.size_m, spec.test_maps.spacing_m)
    ys = (np.arange(samples) - (samples - 1) / 2) * spec.test_maps.spacing_m
    rise_per_m = math.tan(math.radians(choice.slope_deg))  # flat: 0; uphill toward +Y
    heights = np.repeat((ys * rise_per_m)[:, None], samples, axis=1)
    index = np.full(heights.shape, names.index(spec.test_maps.surface))
    return Terrain(heights, spec.test_maps.spacing_m, spec.surfaces, index)
