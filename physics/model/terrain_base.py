"""What every terrain is built from and answers: the maps' tuning, the tables compiled
loops read a terrain through (tiles of triangle planes and per-sample surfaces, a
directory, a look-up), and the look-ups every terrain gives from its planes.

A whole-map :class:`~physics.model.terrain.Terrain` and a big desert's
:class:`~physics.model.tiled_terrain.TiledTerrain` both build on this module.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from common.compiled import compiled_loop, compiled_stage
from common.spec import Spec, SpecError, tuning
from physics.model.craters import CraterBook, CraterSpec
from physics.model.desert_field import TileSpec


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
"""The surface a vehicle's own grip and rolling resistance are stated on (config/tanks/*.toml,
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
    range_size_m: float = tuning("side of the firing range (flat too, and long enough for "
                                 "its farthest plate)", minimum=32.0, maximum=8192.0)
    range_spacing_m: float = tuning("distance between the range's height samples",
                                    minimum=0.5, maximum=16.0)


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


@compiled_stage
def _cell_under(lookup, x_m, y_m):
    """The collider's cell under a point (column, row) and the point's place in it (0 to 1
    in x and y); points off the map are on its edge."""
    cell_u = np.minimum(np.maximum((x_m + lookup[0]) / lookup[2], 0.0), lookup[3])
    cell_v = np.minimum(np.maximum((y_m + lookup[1]) / lookup[2], 0.0), lookup[4])
    i, j = min(int(cell_u), int(lookup[3]) - 1), min(int(cell_v), int(lookup[4]) - 1)
    return i, j, cell_u - i, cell_v - j


@compiled_loop
def plane_under(planes, directory, lookup, x_m, y_m):
    """Height, and unit normal (x, y, z), of the collider's triangle under one point: what
    :meth:`Terrain.planes_at` gives, for compiled loops (the arrays are
    :class:`TerrainTables`'); points off the map read its edge."""
    i, j, fu, fv = _cell_under(lookup, x_m, y_m)
    tile_cells_x, tile_cells_y = int(lookup[5]), int(lookup[6])
    tile_i, tile_j = i // tile_cells_x, j // tile_cells_y
    slot = directory[tile_j, tile_i]
    if slot < 0:
        return MISSING_HEIGHT_M, 0.0, 0.0, 1.0
    row = (2 * (i - tile_i * tile_cells_x) + 2 * tile_cells_x * (j - tile_j * tile_cells_y)
           + (1 if fu + fv > 1.0 else 0))
    height = planes[slot, row, 0] + fu * planes[slot, row, 1] + fv * planes[slot, row, 2]
    return height, planes[slot, row, 3], planes[slot, row, 4], planes[slot, row, 5]


@compiled_loop
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


@compiled_loop
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


@compiled_loop
def planes_under(planes, directory, lookup, xy_m):
    """:func:`plane_under` at each of N points, rows (2, N) of x and y: heights (N,) and
    unit normals (3, N); NaN for a point that is not finite (it is under nothing)."""
    count = xy_m.shape[1]
    heights = np.empty(count)
    normals = np.empty((3, count))
    for index in range(count):
        x_m, y_m = xy_m[0, index], xy_m[1, index]
        if not (np.isfinite(x_m) and np.isfinite(y_m)):
            heights[index] = normals[0, index] = normals[1, index] = normals[2, index] = np.nan
            continue
        heights[index], normals[0, index], normals[1, index], normals[2, index] = \
            plane_under(planes, directory, lookup, x_m, y_m)
    return heights, normals


@compiled_loop
def tiles_marked(directory, lookup, xy_m, used, epoch):
    """Mark in ``used`` (laid out as ``directory``) the tile under each finite point of N,
    rows (2, N) of x and y, as used in ``epoch`` (the tile :func:`plane_under` reads);
    whether every one of those tiles is made."""
    tile_cells_x, tile_cells_y = int(lookup[5]), int(lookup[6])
    made = True
    for index in range(xy_m.shape[1]):
        x_m, y_m = xy_m[0, index], xy_m[1, index]
        if not (np.isfinite(x_m) and np.isfinite(y_m)):
            continue
        i, j, _, _ = _cell_under(lookup, x_m, y_m)
        tile_i, tile_j = i // tile_cells_x, j // tile_cells_y
        used[tile_j, tile_i] = epoch
        made = made and directory[tile_j, tile_i] >= 0
    return made


class TerrainBase(CraterBook):
    """What every terrain answers from its :meth:`planes_at`: heights, normals, whether a
    point is on the map, and its surfaces' grip; and the craters dug into it. A subclass
    sets ``half_extent_x_m``, ``half_extent_y_m``, ``spacing_m``, ``min_height_m``,
    ``height_range_m``, ``surfaces`` and ``_surface_table``, and gives the compiled loops
    its :attr:`tables`."""

    name = "terrain"
    """What a hit on it is called in the event log, whatever kind of terrain it is."""
    tiles_on_demand = False
    """Whether its tiles are made only when asked for (:meth:`prepare_box`) before compiled
    loops may read them: a big desert's. Every other terrain's one tile is always made."""
    half_extent_x_m: float
    half_extent_y_m: float
    spacing_m: float
    """Between neighbouring height samples."""
    min_height_m: float
    height_range_m: float
    surfaces: tuple[SurfaceSpec, ...]
    _surface_table: np.ndarray

    def planes_at(self, xy_m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    @property
    def tables(self) -> TerrainTables:
        """The terrain as compiled loops read it (only the tiles made so far: see
        :meth:`prepare_box`)."""
        raise NotImplementedError

    def prepare_box(self, x_min_m: float, y_min_m: float, x_max_m: float, y_max_m: float
                    ) -> None:
        """Make the tiles under a box, for compiled loops to read."""
        raise NotImplementedError

    def ground_at(self, xy_m: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Ripple height, grip scale and added rolling resistance at N points, rows (2, N)
        of x and y, from the nearest sample's surface."""
        raise NotImplementedError

    def surface_name_at(self, x_m: float, y_m: float) -> str:
        """The surface of the sample nearest a point."""
        raise NotImplementedError

    @property
    def max_height_m(self) -> float:
        return self.min_height_m + self.height_range_m

    @property
    def ceiling_m(self) -> float:
        """Nothing of the ground reaches above this (a big desert's counts its rocks too)."""
        return self.max_height_m

    def contains(self, x_m, y_m) -> np.ndarray:
        return (np.abs(x_m) <= self.half_extent_x_m) & (np.abs(y_m) <= self.half_extent_y_m)

    def contains_rows(self, xy_m: np.ndarray) -> np.ndarray:
        """:meth:`contains` for N points, rows (2, N) of x and y."""
        return (np.abs(xy_m[0]) <= self.half_extent_x_m) & (np.abs(xy_m[1])
                                                             <= self.half_extent_y_m)

    def height_at(self, x_m, y_m) -> np.ndarray:
        """Ground height under (x, y), exactly as the collider has it (clamped to the map)."""
        return self.surface_at(x_m, y_m)[0]

    def far_heights(self, x_m: np.ndarray, y_m: np.ndarray) -> np.ndarray:
        """Heights for a far look that must not make anything (a view's): on a whole map
        its own heights; a big desert reads its field where no tile is made."""
        return self.height_at(x_m, y_m)

    def normal_at(self, x_m, y_m) -> np.ndarray:
        """Unit normal of the collider's triangle under (x, y); shape (..., 3)."""
        return self.surface_at(x_m, y_m)[1]

    def surface_at(self, x_m, y_m) -> tuple[np.ndarray, np.ndarray]:
        """Height and unit normal under (x, y) in one look-up."""
        if isinstance(x_m, float) and isinstance(y_m, float):  # one point (np.float64 too)
            height, normal = self.planes_at(np.array([[x_m], [y_m]]))
            return height.reshape(()), normal.reshape(3)
        x_m, y_m = np.asarray(x_m, dtype=np.float64), np.asarray(y_m, dtype=np.float64)
        if x_m.shape != y_m.shape:  # (broadcast_arrays and stack go through Python)
            x_m, y_m = np.broadcast_arrays(x_m, y_m)
        rows = np.empty((2, x_m.size))
        rows[0], rows[1] = x_m.ravel(), y_m.ravel()
        height, normal = self.planes_at(rows)
        return height.reshape(x_m.shape), normal.T.reshape(x_m.shape + (3,))

    def surface_named(self, name: str) -> int:
        return next(i for i, surface in enumerate(self.surfaces) if surface.name == name)

    def surface_grip(self, index) -> tuple[np.ndarray, np.ndarray]:
        """Grip scale and added rolling resistance of the surfaces numbered ``index``."""
        row = self._surface_table[index]
        return row[..., 0], row[..., 1]
