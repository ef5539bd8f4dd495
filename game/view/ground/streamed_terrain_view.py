"""A big desert (``desert:SIZE``) drawn in the tiles of its
:class:`~physics.model.tiled_terrain.TiledTerrain`, only round the cameras.

Each tile within ``draw_distance_m`` of a camera is drawn at a level of detail chosen by
its distance from the nearest camera: the nearest tiles draw the collider's own samples
(:meth:`~physics.model.tiled_terrain.TiledTerrain.tile_heights`, and Bullet's diagonal),
farther ones every 2nd, 4th, ... sample, read straight from the desert's field and its
craters (so a far tile never makes the physics tile). Each level's skirts hang deep enough to hide the
crack to a neighbour a level coarser. Normals are central differences across tile
borders, so tiles of one level shade seamlessly.

A tile part of which is finer than ``pieced_below_level`` is drawn in pieces of
``piece_cells`` (32 cells, 64 m), each at the level its own distance asks for, from the
tile's vertices at its finest piece's level (kept while it is drawn so); farther tiles
are drawn whole at one level (in pieces only for culling). The apron round the map is
cut into blocks, and those beyond the draw distance are not drawn.

Each frame (:meth:`StreamedTerrainView.update`) tiles that went out of range are dropped
and at most ``builds_per_frame`` tiles are built, nearest first (a tile that changes
level shows its old mesh until the new one replaces it, in one frame); only the tiles
under a camera (``immediate_radius_m``) are built at once whatever that limit, and the
first frame builds everything. A tile changes level only once its distance is
``switch_margin_m`` past the level's bounds, so a camera idling at one does not flicker;
what to draw is worked out again only once a camera has moved ``replan_after_m``.

A near tile whose collider tile is not made yet (the simulation makes them ahead of
what moves, on its worker thread) is drawn a level coarser until it is: drawing never
makes a physics tile, nor waits for one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from panda3d.core import NodePath

from common.spec import Spec, SpecError, tuning
from game.view.ground.sand_mesh import (BlendMask, apron_blocks, grid_normals, grid_pieces,
                                 sand_colours)
from physics.model.craters import boxes_meet
from physics.model.tile_grid import TileKey, rect_distances_m
from physics.model.tiled_terrain import TiledTerrain


def cameras_moved(planned_xy: np.ndarray | None, points_xy: np.ndarray,
                  replan_after_m: float) -> bool:
    """Whether the cameras (N, 2) are not the ones a plan was made for (``planned_xy``;
    None: no plan yet): one came or went, or one moved more than ``replan_after_m``."""
    return (planned_xy is None or planned_xy.shape != points_xy.shape
            or float(np.abs(points_xy - planned_xy).max()) > replan_after_m)


@dataclass(frozen=True)
class StreamedTerrainSpec(Spec):
    """How a big desert is drawn: its tiles round the cameras, finer near them."""

    level_distances_m: tuple[float, ...] = tuning(
        "a tile nearer a camera than the first distance draws every sample (the "
        "collider's), nearer than the next every 2nd, ...; beyond the last every 2^n th",
        minimum=1.0, maximum=100000.0, length=(1, 7))
    skirt_depths_m: tuple[float, ...] = tuning(
        "each level's skirts hang this far down (a level for each distance, and one more): "
        "as far as a level a step coarser strays from it", minimum=0.0, maximum=500.0,
        length=(2, 8))
    draw_distance_m: float = tuning("tiles farther than this from every camera are not "
                                    "drawn (the haze hides them)", minimum=10.0,
                                    maximum=100000.0)
    switch_margin_m: float = tuning("a tile changes level, or goes, only this far past the "
                                    "distance that decides it", minimum=0.0, maximum=1000.0)
    builds_per_frame: int = tuning("tile meshes built a frame at most, nearest first",
                                   minimum=1, maximum=64)
    immediate_radius_m: float = tuning("tiles this near a camera are built at once when "
                                       "not drawn at their level (a camera that jumped)",
                                       minimum=0.0, maximum=10000.0)
    mask_spacing_m: float = tuning("the sand shader's blend mask is worked out this far apart "
                                   "and blended between (its blotches are far larger)",
                                   minimum=0.1, maximum=1000.0)
    replan_after_m: float = tuning("what to draw is worked out again once a camera has "
                                   "moved this far", minimum=0.0, maximum=1000.0)
    piece_cells: int = tuning("a tile's mesh is cut into pieces of at most this many cells "
                              "a side, culled one by one", minimum=2, maximum=1024)
    pieced_below_level: int = tuning("a tile any part of which is at a level finer than this "
                                     "draws each of its pieces at its own level", minimum=0,
                                     maximum=8)
    rocks_draw_distance_m: float = tuning("a tile's rocks are drawn while it is this near a "
                                          "camera (switch_margin_m more to go)",
                                          minimum=0.0, maximum=100000.0)
    apron_block_m: float = tuning("the apron round the map is cut into blocks this wide, "
                                  "each culled, and dropped beyond the draw distance",
                                  minimum=64.0, maximum=100000.0)

    def __post_init__(self) -> None:
        super().__post_init__()
        distances = self.level_distances_m
        if any(near >= far for near, far in zip(distances, distances[1:])):
            raise SpecError("level_distances_m", distances, "increasing distances")
        if self.pieced_below_level > len(distances):
            raise SpecError("pieced_below_level", self.pieced_below_level,
                            f"at most {len(distances)} (the coarsest level)")
        if len(self.skirt_depths_m) != len(distances) + 1:
            raise SpecError("skirt_depths_m", self.skirt_depths_m,
                            f"{len(distances) + 1} depths (one more than "
                            "level_distances_m)")


class ShownTile(NamedTuple):
    """A tile as drawn now: its level (0: every sample), or one for each of its pieces
    (rows of pieces by y), and its node."""

    levels: tuple[int, ...]
    path: NodePath


class TileArrays(NamedTuple):
    """A tile's vertices at every ``step``-th sample, in its frame, kept while it is drawn
    in pieces: whether its heights are the collider's, positions, normals and colours."""

    step: int
    exact: bool
    positions: np.ndarray
    normals: np.ndarray
    colours: np.ndarray


class StreamedTerrainView:
    """Draws a :class:`TiledTerrain` under ``parent`` round the points :meth:`update` is
    given; ``spec`` is the :class:`~game.view.ground.terrain_view.TerrainViewSpec`."""

    def __init__(self, parent: NodePath, terrain: TiledTerrain, spec, light_colour,
                 dark_colour, mask_scale_m: float):
        self.root = parent.attachNewNode("terrain-view")
        self.terrain, self.spec = terrain, spec.streamed
        coarsest = 2 ** len(self.spec.level_distances_m)
        if (terrain.tile_cells % coarsest or self.spec.piece_cells % coarsest
                or terrain.tile_cells % self.spec.piece_cells):
            raise ValueError(f"{len(self.spec.level_distances_m) + 1} levels of detail need "
                             f"pieces of a multiple of {coarsest} cells, and tiles of a "
                             "multiple of pieces")
        self._colours = (light_colour, dark_colour)
        self._mask = BlendMask(terrain.half_extent_x_m, mask_scale_m)
        distances = np.asarray(self.spec.level_distances_m, dtype=float)
        self._lower_m = np.concatenate([[-np.inf], distances])
        self._upper_m = np.concatenate([distances, [np.inf]])
        pieces = -(-terrain.tile_cells // self.spec.piece_cells)
        piece_m = self.spec.piece_cells * terrain.spacing_m
        offsets = (np.arange(pieces) + 0.5) * piece_m - terrain.tile_size_m / 2
        self._piece_offsets_m = np.stack(np.meshgrid(offsets, offsets), axis=-1).reshape(-1, 2)
        self.tiles: dict[TileKey, ShownTile] = {}
        self._arrays: dict[TileKey, TileArrays] = {}
        self.builds = 0
        """Tile meshes built since the start (one rebuilt at other levels counts again)."""
        self.waiting = 0
        """Tiles not drawn at their levels after the last update (built in later frames)."""
        self._planned_xy: np.ndarray | None = None
        """Where the cameras were when what to draw was last worked out."""
        self._jobs: list[tuple[float, TileKey, tuple[int, ...]]] = []
        """Tiles to build: distance, key and levels, nearest first."""
        self._stand_ins: set[TileKey] = set()
        self._revision = terrain.revision
        """The terrain's revision drawn (craters dug since are drawn at the next update)."""
        self.apron = self.root.attachNewNode("terrain-apron")
        self._apron_blocks = [(self.apron.attachNewNode(node), centre) for node, centre in
                              apron_blocks(terrain, terrain.field.heights,
                                           float(terrain.overview_m.mean()), spec,
                                           light_colour, dark_colour,
                                           self.spec.apron_block_m)]

    @property
    def levels(self) -> dict[TileKey, int]:
        """Each drawn tile's finest level of detail (0: every sample)."""
        return {key: min(shown.levels) for key, shown in self.tiles.items()}

    def update(self, cameras_xy) -> None:
        """Once a frame, with where the cameras are ((2,) or (N, 2), metres): drop the
        tiles out of range and build the nearest missing ones."""
        points = np.asarray(cameras_xy, dtype=float).reshape(-1, 2)
        self._redraw_dug()
        if self._plan_is_stale(points):
            self._plan(points)
        everything = not self.tiles
        built = 0
        for distance_m, key, levels in self._jobs:
            if not (everything or distance_m <= self.spec.immediate_radius_m
                    or built < self.spec.builds_per_frame):
                break
            self._show(key, levels)
            built += 1
        del self._jobs[:built]
        self.waiting = len(self._jobs)

    def _redraw_dug(self) -> None:
        """Draw again, at once, the finest-level tiles under a crater dug or filled in
        since the last frame, or beside one (their normals read a sample beyond their
        border); coarser tiles show the craters the next time they are built."""
        terrain = self.terrain
        if terrain.revision == self._revision:
            return
        boxes = terrain.changes_since(self._revision)
        self._revision = terrain.revision
        ring_m = terrain.spacing_m
        for key, shown in list(self.tiles.items()):
            low_x, low_y, high_x, high_y = terrain.tile_box(key)
            tile = (low_x - ring_m, low_y - ring_m, high_x + ring_m, high_y + ring_m)
            if 0 in shown.levels and (boxes is None or any(
                    boxes_meet(tile, box) for box in boxes)):
                self._arrays.pop(key, None)
                self._show(key, shown.levels)

    def _plan_is_stale(self, points: np.ndarray) -> bool:
        """Whether what to draw must be worked out again: a camera moved, came or went,
        or a tile drawn coarser than its level for want of its collider samples has them
        now."""
        if cameras_moved(self._planned_xy, points, self.spec.replan_after_m):
            return True
        return bool(self._stand_ins) and not self._stand_ins.isdisjoint(
            self.terrain.resident_tiles)

    def _plan(self, points: np.ndarray) -> None:
        """Drop the tiles out of range; list the ones to build, nearest first."""
        self._planned_xy = points
        wanted = self._wanted(points)
        for key in [key for key in self.tiles if key not in wanted]:
            self.tiles.pop(key).path.removeNode()
            self._arrays.pop(key, None)
        self._jobs = sorted((distance_m, key, levels)
                            for key, (distance_m, levels) in wanted.items()
                            if key not in self.tiles or self.tiles[key].levels != levels)
        centres = np.array([centre for _, centre in self._apron_blocks]).reshape(-1, 2)
        far = rect_distances_m(centres, self.spec.apron_block_m / 2, points
                                ) > self.spec.draw_distance_m
        for (path, _), hidden in zip(self._apron_blocks, far.tolist()):
            if hidden != path.isStashed():
                (path.stash if hidden else path.unstash)()

    def _levels(self, distances: np.ndarray, shown: np.ndarray) -> np.ndarray:
        """The level for each distance, kept at the one ``shown`` (-1: none) unless the
        distance is ``switch_margin_m`` past its bounds."""
        margin = self.spec.switch_margin_m
        chosen = np.searchsorted(self._upper_m[:-1], distances, side="right")
        current = np.maximum(shown, 0)
        keep = ((shown >= 0) & (distances >= self._lower_m[current] - margin)
                & (distances <= self._upper_m[current] + margin))
        return np.where(keep, current, chosen)

    def _wanted(self, points: np.ndarray) -> dict[TileKey, tuple[float, tuple[int, ...]]]:
        """The tiles to draw round the points: each one's distance and levels (one, or
        one a piece)."""
        spec, terrain = self.spec, self.terrain
        keys = terrain.tiles_near(points, spec.draw_distance_m + spec.switch_margin_m)
        self._stand_ins = set()
        if not keys:
            return {}
        centres = np.array([terrain.tile_centre(key) for key in keys])
        distances = rect_distances_m(centres, terrain.tile_size_m / 2, points)
        shown = [self.tiles[key].levels if key in self.tiles else () for key in keys]
        tile_levels = self._levels(distances, np.array([min(levels, default=-1)
                                                        for levels in shown]))
        resident = set(terrain.resident_tiles)
        wanted = {}
        for index, key in enumerate(keys):
            if distances[index] > spec.draw_distance_m and not shown[index]:
                continue
            if tile_levels[index] < spec.pieced_below_level:
                levels = self._piece_levels(centres[index], points, shown[index])
            else:
                levels = (int(tile_levels[index]),)
            if 0 in levels and key not in resident:  # drawn coarser until it is made
                self._stand_ins.add(key)
                levels = tuple(max(level, 1) for level in levels)
            wanted[key] = (float(distances[index]), levels)
        return wanted

    def _piece_levels(self, centre: np.ndarray, points: np.ndarray,
                      shown: tuple[int, ...]) -> tuple[int, ...]:
        """Each piece's level in a tile drawn in pieces."""
        half_piece_m = self.spec.piece_cells * self.terrain.spacing_m / 2
        distances = rect_distances_m(centre + self._piece_offsets_m, half_piece_m, points)
        current = (np.array(shown) if len(shown) == len(distances)
                   else np.full(len(distances), -1))
        return tuple(self._levels(distances, current).tolist())

    def _show(self, key: TileKey, levels: tuple[int, ...]) -> None:
        """Build a tile's mesh at ``levels`` in place of the one it has."""
        path = self.root.attachNewNode(f"terrain-tile-{key[0]}-{key[1]}")
        centre = self.terrain.tile_centre(key)
        path.setPos(centre[0], centre[1], 0.0)
        if len(levels) == 1:
            self._arrays.pop(key, None)
            pieces = self._whole(key, levels[0], centre)
        else:
            pieces = self._pieces(key, levels, centre)
        for piece in pieces:
            path.attachNewNode(piece)
        old = self.tiles.get(key)
        if old is not None:
            old.path.removeNode()
        self.tiles[key] = ShownTile(levels, path)
        self.builds += 1

    def _grid(self, key: TileKey, step: int, exact: bool
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A tile's every ``step``-th sample with a ring of one more round them: x, y and
        heights, rows by y; ``exact`` (every sample): the collider's own heights."""
        terrain = self.terrain
        first_x_m, first_y_m = (terrain.tile_centre(key)[axis] - terrain.tile_size_m / 2
                                for axis in (0, 1))
        offsets_m = np.arange(-1, terrain.tile_cells // step + 2) * step * terrain.spacing_m
        x_m, y_m = np.meshgrid(first_x_m + offsets_m, first_y_m + offsets_m)
        # The ring beyond the map's edge reads the edge (far_heights clamps to the map).
        if not exact:
            return x_m, y_m, terrain.far_heights(x_m, y_m)
        heights = np.empty_like(x_m)
        heights[1:-1, 1:-1] = terrain.tile_heights(key)
        ring = np.ones(x_m.shape, dtype=bool)
        ring[1:-1, 1:-1] = False
        heights[ring] = terrain.far_heights(x_m[ring], y_m[ring])
        return x_m, y_m, heights

    def _vertices(self, key: TileKey, step: int, exact: bool, centre) -> TileArrays:
        """A tile's every ``step``-th vertex in its frame, normals across its borders."""
        x_m, y_m, heights = self._grid(key, step, exact)
        normals = grid_normals(heights, step * self.terrain.spacing_m)[1:-1, 1:-1]
        x_m, y_m, heights = x_m[1:-1, 1:-1], y_m[1:-1, 1:-1], heights[1:-1, 1:-1]
        every = int(self.spec.mask_spacing_m // (step * self.terrain.spacing_m))
        mask = self._mask.on_grid(x_m, y_m, every if every and (len(x_m) - 1) % every == 0
                                  else 1)
        colours = sand_colours(self.terrain, heights, *self._colours, mask)
        positions = np.stack([x_m - centre[0], y_m - centre[1], heights], axis=-1)
        return TileArrays(step, exact, positions, normals, colours)

    def _whole(self, key: TileKey, level: int, centre) -> list:
        """A tile's mesh at one level, in pieces of ``piece_cells`` culled one by one."""
        arrays = self._vertices(key, 2 ** level, level == 0, centre)
        return grid_pieces(f"level-{level}", arrays.positions, arrays.normals,
                           arrays.colours, self.spec.piece_cells,
                           self.spec.skirt_depths_m[level])

    def _pieces(self, key: TileKey, levels: tuple[int, ...], centre) -> list:
        """A tile's mesh as pieces of ``piece_cells``, each at its own level (its
        vertices the tile's own at its finest piece's level, and their normals), each with
        its skirt."""
        finest = min(levels)
        arrays = self._arrays.get(key)
        if arrays is None or arrays.step > 2 ** finest or (finest == 0 and not arrays.exact):
            arrays = self._arrays[key] = self._vertices(key, 2 ** finest, finest == 0, centre)
        size = self.spec.piece_cells
        firsts = range(0, self.terrain.tile_cells, size)
        nodes = []
        for (j0, i0), level in zip(((j0, i0) for j0 in firsts for i0 in firsts), levels):
            stride, first_j, first_i = (2 ** level // arrays.step, j0 // arrays.step,
                                        i0 // arrays.step)
            last = size // arrays.step + 1
            window = (slice(first_j, first_j + last, stride),
                      slice(first_i, first_i + last, stride))
            nodes += grid_pieces(f"level-{level}-piece-{i0}-{j0}", arrays.positions[window],
                                 arrays.normals[window], arrays.colours[window], size,
                                 self.spec.skirt_depths_m[level])
        return nodes

    def destroy(self) -> None:
        self.tiles.clear()
        self._arrays.clear()
        self.root.removeNode()
