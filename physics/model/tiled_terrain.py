"""A big desert (``desert:SIZE``), made in square tiles as they are needed and dropped
behind what moves.

A tile is ``tile_size_m`` square: its samples are the map's samples over it, its last
row and column the first of its neighbours', so two tiles agree along their border to
the bit (each sample's height is the :class:`~physics.model.desert_field.DesertField`'s
at that sample's world position, whichever tile computes it). Heights are quantised to
the 16 bits a collider is built from over the field's whole possible range, the same
for every tile.

Tiles live in slots of a pool (:class:`~physics.model.terrain.TerrainTables`): the
compiled loops read a point's tile through the directory. A tile is made:

- at once, when something needs it now: :meth:`TiledTerrain.prepare_box` (the anchor
  model before each substep, a shell's path, a sight line), or a look-up on it;
- ahead of need, within ``load_radius_m`` of a vehicle or a shell: at each fixed step
  (:meth:`TiledTerrain.stream`) the nearest missing ones go to a worker thread, a few at
  a time, and the ones it has finished are put in their slots.

Tiles further than ``unload_radius_m`` from everything that moves become spares, of
which the ``spare_tiles`` most lately used are kept. Whatever the order tiles are made
and dropped in, their contents are the same: a simulation is as deterministic as on a
whole map.
"""

from __future__ import annotations

import math
from concurrent.futures import Future, ThreadPoolExecutor
from typing import NamedTuple

import numpy as np

from physics.model.craters import DugGrid, boxes_meet, dug_heights_m, sample_window
from physics.model.desert_field import DesertField
from physics.model.height_grid import quantised
from physics.model.rocks import Rock
from physics.model.terrain_base import (TerrainBase, TerrainSpec, TerrainTables,
                                        planes_under, tiles_marked)
from physics.model.tile_contents import TileContents
from physics.model.tile_grid import TileKey, box_marked, rect_distances_m
from physics.model.tile_lookahead import ShellLookahead
from physics.model.tile_rocks import TileRocks


class _Queued(NamedTuple):
    """A tile the worker is making: the slot set aside for it, the pools it writes it
    into, and the future of its contents."""

    slot: int
    pools: tuple[np.ndarray, ...]
    future: Future


class TiledTerrain(ShellLookahead, TerrainBase):
    """A ``DesertField`` map kept as the tiles near what moves."""

    tiles_on_demand = True

    def __init__(self, field: DesertField, spec: TerrainSpec):
        self.field, self.tile_spec = field, spec.tiles
        self.spacing_m = spec.desert.spacing_m
        self.tile_size_m = spec.tiles.tile_size_m
        self.tile_cells = int(round(self.tile_size_m / self.spacing_m))
        self.tiles_per_side = int(round(field.size_m / self.tile_size_m))
        self.columns = self.rows = self.tiles_per_side * self.tile_cells + 1
        self.half_extent_x_m = self.half_extent_y_m = (self.columns - 1) / 2 * self.spacing_m
        low_m, high_m = field.bounds_m
        low_m -= spec.craters.deepest_m  # room for a crater at the lowest point
        self.min_height_m, self.height_range_m = low_m, high_m - low_m
        self.surfaces = tuple(spec.surfaces)
        self._surface_table = np.array([[surface.grip_scale, surface.rolling_resistance,
                                         surface.ripple_height_m, surface.ripple_wavelength_m]
                                        for surface in self.surfaces])
        self._rocks: dict[TileKey, list[Rock]] = {}
        self.overview_m = self._overview(spec.tiles.overview_samples)
        """Heights on a coarse grid over the whole map (rows by y, columns by x), straight
        from the field: the relief hardpan is judged by, and what a minimap draws."""
        relief_low_m = float(self.overview_m.min())
        hardpan_below_m = relief_low_m + spec.desert.hardpan_below_fraction * max(
            float(self.overview_m.max()) - relief_low_m, np.finfo(float).eps)
        self._contents = TileContents(self, field, self._surface_table,
                                      [surface.name for surface in self.surfaces],
                                      (self.min_height_m, self.height_range_m, hardpan_below_m))
        self._slots: dict[TileKey, int] = {}
        self._free: list[int] = []
        self._used = np.full((self.tiles_per_side, self.tiles_per_side), -1, dtype=np.int64)
        """Each tile's last epoch of use, by row and column (-1: not made); an epoch is one
        fixed step (:meth:`trim`). An array, so that a look-up marks its tiles at once."""
        self._near: set[TileKey] = set()
        """The tiles within ``unload_radius_m`` of something moving at the last stream."""
        self._spares: int | None = 0
        """How many tiles made are not :attr:`_near` (None: to be counted again)."""
        self._epoch = 0
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="terrain-tiles")
        """Makes tiles ahead of need, beside the steps (the compiled fill holds no lock)."""
        self._pending: dict[TileKey, _Queued] = {}
        self.tiles_made = 0
        """How many tiles were made since the start (one made again counts again)."""
        self._directory = np.full((self.tiles_per_side, self.tiles_per_side), -1,
                                  dtype=np.int64)
        self._lookup = np.array([self.half_extent_x_m, self.half_extent_y_m, self.spacing_m,
                                 self.columns - 1.0, self.rows - 1.0, float(self.tile_cells),
                                 float(self.tile_cells)])
        self._start_craters()
        self._grow(spec.tiles.pool_tiles)

    # ----- the pool ---------------------------------------------------------------------

    def _grow(self, slots: int) -> None:
        """Make room for ``slots`` more tiles (the tables are new arrays afterwards)."""
        old = len(self._free) + len(self._slots) + len(self._pending)
        pools: list[np.ndarray] = [np.zeros((old + slots,) + shape, dtype=kind)
                 for shape, kind in self._contents.pool_layout()]
        if old:
            for pool, existing in zip(pools, self._pools()):
                pool[:old] = existing
        self._planes, self._ground, self._heights, self._levels, self._surface, self._tops = \
            pools
        self._free.extend(range(old + slots - 1, old - 1, -1))
        self._tables = TerrainTables(self._planes, self._ground, self._directory,
                                     self._lookup, self._heights)

    def _pools(self) -> tuple[np.ndarray, ...]:
        return (self._planes, self._ground, self._heights, self._levels, self._surface,
                self._tops)

    def reserve(self) -> None:
        """Take now the memory that its bounded caches take as a battle goes on, for a
        measure of memory over time (the soak reserves it first), which would read their
        filling as growth: every slot of the pool, free ones too (zeros written over them:
        no tile's contents change), whose memory is otherwise taken a page at a time as
        slots are first written, as the vehicles spread over more tiles at once; and the
        rocks of as many tiles as their cache keeps, the nearest the middle first.
        Growth past their room still shows: a full pool doubles into new memory."""
        for pool in self._pools():
            pool[self._free] = 0
        if self._contents.rocks is not None:
            keys = sorted(((column, row) for row in range(self.tiles_per_side)
                           for column in range(self.tiles_per_side)),
                          key=lambda key: (math.hypot(*self.tile_centre(key)), key))
            self._contents.rocks.reserve([(key, self.tile_box(key)) for key in keys])

    def _free_slot(self) -> int:
        if not self._free:
            self._grow(len(self._planes))  # double the pool
        return self._free.pop()

    def _queue(self, key: TileKey) -> None:
        """Have the worker make a tile and write it into a slot set aside for it: the first
        touch of fresh pool memory (page faults, milliseconds) is the worker's, not a
        step's."""
        slot, pools = self._free_slot(), self._pools()
        self._pending[key] = _Queued(slot, pools,
                                     self._worker.submit(self._contents.fill, key, slot,
                                                         pools))

    def _slot(self, key: TileKey) -> int:
        """The slot of a tile, made now if it is not; it counts as used this epoch."""
        self._used[key[1], key[0]] = self._epoch
        slot = self._slots.get(key)
        if slot is None:
            slot = self._make(key)
        return slot

    def _make(self, key: TileKey) -> int:
        """Put a tile in a slot: the worker's, if it has made it, else made now."""
        queued = self._pending.pop(key, None)
        if queued is None:
            slot = self._free_slot()
            self._contents.fill(key, slot, self._pools())
        else:
            slot = queued.slot
            queued.future.result()
            if queued.pools[0] is not self._planes:  # the pool grew since: copy it over
                for pool, written in zip(self._pools(), queued.pools):
                    pool[slot] = written[slot]
        self._slots[key] = slot
        self._spares = None
        self._directory[key[1], key[0]] = slot
        self.tiles_made += 1
        box = self.tile_box(key)
        if any(crater.overlaps(box) for crater, _ in self._craters):
            self._rework_tile(key, slot, box)
        return slot

    def _drop(self, key: TileKey) -> None:
        self._spares = None
        self._rocks.pop(key, None)
        slot = self._slots.pop(key)
        self._used[key[1], key[0]] = -1
        self._directory[key[1], key[0]] = -1
        self._free.append(slot)

    # ----- tiles ------------------------------------------------------------------------

    @property
    def tables(self) -> TerrainTables:
        """The tiles made so far, for compiled loops (make the ones they need first:
        :meth:`prepare_box`)."""
        return self._tables

    def scatter_rocks(self, tile_rocks: TileRocks) -> None:
        """Rocks on every tile from now on (before any tile is made: their bare rock ground
        is part of the tiles)."""
        if self._slots or self._pending:
            raise RuntimeError("rocks are scattered before the first tile is made")
        self._contents.rocks = tile_rocks

    def tile_rocks(self, key: TileKey) -> list[Rock]:
        """The rocks standing in a tile (none without :meth:`scatter_rocks`): while the
        tile is made, the same objects every time (the colliders' owners); for any other
        tile (a view drawing it from afar) the same rocks, not kept here."""
        tile_rocks = self._contents.rocks
        if tile_rocks is None:
            return []
        rocks = self._rocks.get(key)
        if rocks is None:
            rocks = tile_rocks.rocks(key, self.tile_box(key))
            if key in self._slots:
                self._rocks[key] = rocks
        return rocks

    @property
    def ceiling_m(self) -> float:
        """Nothing of the ground or of a rock on it reaches above this, on any tile."""
        return self.max_height_m + self._contents.highest_rise_m

    def tile_top_m(self, key: TileKey) -> float:
        """The highest point of a tile's ground and of the rocks over it; a tile not made
        yet: :attr:`ceiling_m`."""
        slot = self._slots.get(key)
        return self.ceiling_m if slot is None else float(self._tops[slot])

    @property
    def resident_tiles(self) -> list[TileKey]:
        """The tiles made and kept now, in order."""
        return sorted(self._slots)

    def tile_heights(self, key: TileKey) -> np.ndarray:
        """A tile's heights (cells + 1 square, rows by y), made if need be (read-only)."""
        slot = self._slot(key)  # first: making it may give the pools new arrays
        view = self._heights[slot].view()
        view.setflags(write=False)
        return view

    def tile_levels(self, key: TileKey) -> np.ndarray:
        """A tile's 16-bit collider levels over ``[min_height_m, max_height_m]``."""
        slot = self._slot(key)
        return self._levels[slot].copy()

    def prepare_box(self, x_min_m: float, y_min_m: float, x_max_m: float, y_max_m: float
                    ) -> None:
        """Make every tile under a box (clamped to the map) now. Asked several times a step
        (each bot's sight line, the anchors' reach), mostly for tiles already made: those
        are marked used in one compiled call (:func:`box_marked`), and only a box with a
        missing tile goes on tile by tile."""
        if box_marked(self._directory, self._used, self._epoch, x_min_m, y_min_m, x_max_m,
                      y_max_m, self.half_extent_x_m, float(self.tile_size_m),
                      self.tiles_per_side):
            return
        columns = self._tile_range(x_min_m, x_max_m)
        for row in self._tile_range(y_min_m, y_max_m):
            for column in columns:
                self._slot((column, row))

    def stream(self, points_xy: np.ndarray) -> None:
        """Once per fixed step, with where the vehicles and shells are (N, 2): make a few
        of the tiles near them ahead of need, and drop what is far from all of them."""
        spec = self.tile_spec
        self._near = set(self.tiles_near(points_xy, spec.unload_radius_m))
        self._spares = None
        loading = self.tiles_near(points_xy, spec.load_radius_m)
        missing = [key for key in loading if key not in self._slots]
        if missing:
            centres = np.array([self.tile_centre(key) for key in missing])
            order = np.argsort(rect_distances_m(centres, self.tile_size_m / 2,
                                                 np.asarray(points_xy, dtype=float)
                                                 .reshape(-1, 2)), kind="stable")
            for index in order.tolist():
                if len(self._pending) >= spec.tiles_queued_ahead:
                    break
                if missing[index] not in self._pending:
                    self._queue(missing[index])
        self.trim()

    def trim(self) -> None:
        """Once per fixed step (:meth:`stream` does it): of the tiles far from what moves
        (as of the last stream), keep the ``spare_tiles`` most lately used and drop the
        rest. Cheap enough for every step, so the tiles a shell's path made go soon after
        it, while the ones the bots' sight lines keep using stay."""
        self._epoch += 1
        limit = self.tile_spec.spare_tiles
        if self._spares is None:  # counted again only when the tiles or the near ones change
            self._spares = len(self._slots) - len(self._near & self._slots.keys())
        if self._spares <= limit:
            return  # no more spares than are kept, even counting those used this epoch
        used = self._used
        spares = sorted((key for key in self._slots if key not in self._near
                         and used[key[1], key[0]] < self._epoch),
                        key=lambda key: (int(used[key[1], key[0]]), key))
        for key in spares[:max(len(spares) - limit, 0)]:
            self._drop(key)

    # ----- craters ----------------------------------------------------------------------

    def _untouched_at(self, x_m: float, y_m: float) -> float:
        last = self.columns - 1
        column = min(max(round((x_m + self.half_extent_x_m) / self.spacing_m), 0), last)
        row = min(max(round((y_m + self.half_extent_y_m) / self.spacing_m), 0), last)
        offset = last / 2
        raw_m = self.field.heights(np.array([(column - offset) * self.spacing_m]),
                                   np.array([(row - offset) * self.spacing_m]))
        return float(quantised(raw_m, self.min_height_m, self.height_range_m)[1][0])

    def _rework(self, box_m: tuple[float, float, float, float]) -> None:
        """Rework the made tiles under a box (the others get the craters when made)."""
        for key, slot in sorted(self._slots.items()):
            if boxes_meet(self.tile_box(key), box_m):
                self._rework_tile(key, slot, box_m)

    def _rework_tile(self, key: TileKey, slot: int, box_m) -> None:
        origin_x, origin_y = key[0] * self.tile_cells, key[1] * self.tile_cells
        last = self.columns - 1
        first_column, last_column, first_row, last_row = sample_window(
            box_m, (self.half_extent_x_m, self.half_extent_y_m), self.spacing_m, (last, last))
        cells = self.tile_cells
        window = (max(first_column - origin_x, 0), min(last_column - origin_x, cells),
                  max(first_row - origin_y, 0), min(last_row - origin_y, cells))
        if window[0] > window[1] or window[2] > window[3]:
            return  # the box only touches this tile's square beyond its samples
        x_m, y_m = self.tile_sample_positions(key)
        part = (slice(window[2], window[3] + 1), slice(window[0], window[1] + 1))
        untouched_m = quantised(self.field.heights(x_m[part], y_m[part]), self.min_height_m,
                                self.height_range_m)[1]
        craters = [(crater, ground) for crater, ground in self._craters
                   if crater.overlaps(box_m)]
        DugGrid(self._heights[slot], self._levels[slot], self._planes[slot], self.spacing_m,
                self.min_height_m, self.height_range_m).rework(window, untouched_m, x_m[part],
                                                               y_m[part], craters)

    def take_finished(self) -> None:
        """Put the tiles the worker has finished in their slots (between steps)."""
        for key in [key for key, queued in self._pending.items() if queued.future.done()]:
            self._slot(key)

    def destroy(self) -> None:
        """Stop the worker (tiles it was making are dropped)."""
        for queued in self._pending.values():
            queued.future.cancel()
        self._pending.clear()
        self._worker.shutdown(wait=True)

    def _overview(self, samples: int) -> np.ndarray:
        positions = np.linspace(-self.half_extent_x_m, self.half_extent_x_m, samples)
        x_m, y_m = np.meshgrid(positions, positions)
        return self.field.heights(x_m, y_m)

    # ----- look-ups ---------------------------------------------------------------------

    def _slots_of_cells(self, cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For cells or samples (2, N) of the map's grid: the slot of the tile each lies
        in (made now if need be) and its place in that tile (2, N)."""
        tiles = np.minimum(cells // self.tile_cells, self.tiles_per_side - 1)
        return self._slots_of_tiles(tiles), cells - tiles * self.tile_cells

    def _slots_of_tiles(self, tiles: np.ndarray) -> np.ndarray:
        """The slots of tiles (2, N), columns then rows, each made now if it is not and
        counted as used this epoch: in a few array operations where all are made (most
        look-ups), tile by tile only for the missing ones."""
        columns, rows = tiles
        self._used[rows, columns] = self._epoch
        slots = self._directory[rows, columns]
        if slots.size and slots.min() < 0:
            missing = slots < 0
            for column, row in set(zip(columns[missing].tolist(), rows[missing].tolist())):
                self._slot((column, row))
            slots = self._directory[rows, columns]
        return slots

    def planes_at(self, xy_m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Height (N,) and unit normal (3, N) of the collider's triangle under each of N
        points, rows (2, N) of x and y; points off the map read its edge."""
        xy_m = np.asarray(xy_m, dtype=float)
        if not tiles_marked(self._directory, self._lookup, xy_m, self._used, self._epoch):
            finite = xy_m[:, np.isfinite(xy_m).all(axis=0)]  # a point under nothing needs none
            tiles = np.minimum(np.maximum((finite + self.half_extent_x_m) // self.tile_size_m,
                                          0), self.tiles_per_side - 1).astype(np.int64)
            self._slots_of_tiles(tiles)
        return planes_under(self._planes, self._directory, self._lookup, xy_m)

    def far_heights(self, x_m: np.ndarray, y_m: np.ndarray) -> np.ndarray:
        """Heights straight from the field and the craters, clamped to the map: what a far
        look or a drawing reads without making a tile (within the 16-bit levels' step of
        the tiles' own)."""
        limit_m = self.half_extent_x_m
        x_m = np.clip(np.asarray(x_m, dtype=float), -limit_m, limit_m)
        y_m = np.clip(np.asarray(y_m, dtype=float), -limit_m, limit_m)
        heights = self.field.heights(x_m, y_m)
        if self._craters and heights.size:
            box = (float(x_m.min()), float(y_m.min()), float(x_m.max()), float(y_m.max()))
            heights = dug_heights_m(heights, x_m, y_m, [
                (crater, ground) for crater, ground in self._craters if crater.overlaps(box)])
        return heights

    def surface_name_at(self, x_m: float, y_m: float) -> str:
        """The surface of the sample nearest a point."""
        sample = np.minimum(np.maximum(np.rint((np.array([[x_m], [y_m]]) + self.half_extent_x_m)
                                               / self.spacing_m), 0), self.columns - 1)
        slot, local = self._slots_of_cells(sample.astype(np.int64))
        return self.surfaces[int(self._surface[slot[0], local[1, 0], local[0, 0]])].name

    def ground_at(self, xy_m: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Ripple height, grip scale and added rolling resistance at N points, rows (2, N)
        of x and y, from the nearest sample's surface."""
        sample = np.minimum(np.maximum(np.rint((xy_m + self.half_extent_x_m) / self.spacing_m),
                                       0), self.columns - 1).astype(np.int64)
        slot, local = self._slots_of_cells(sample)
        half_height, wave, grip, rolling = self._ground[
            slot, local[1] * (self.tile_cells + 1) + local[0]].T
        wave_x, wave_y = np.sin(wave * xy_m)
        return half_height * (1.0 + wave_x * wave_y), grip, rolling

    @property
    def memory_bytes(self) -> int:
        """What the tiles made hold (the pool's other slots are address space only)."""
        return len(self._slots) * sum(pool[0].nbytes for pool in self._pools())

    def __repr__(self) -> str:
        return (f"TiledTerrain({self.field.size_m:g} m, {len(self._slots)} tiles made of "
                f"{self.tiles_per_side ** 2}, {math.ceil(self.memory_bytes / 2 ** 20)} MiB)")
