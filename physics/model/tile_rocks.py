"""A big desert's rocks, tile by tile: each tile's from its own seeded stream, as many on
average per square metre as the 512 m desert has, so a tile's rocks are the same
whichever order tiles are made in. Their bare rock ground is painted into the tile they
stand on and into its neighbours wherever it reaches across a border."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from physics.model.desert_field import DesertField
from physics.model.rocks import Rock, RockSpec, icosphere

ROCK_STREAM = 0x70C5
"""Seeds the rocks' random streams apart from the terrain's (the 512 m desert's too)."""

Box = tuple[float, float, float, float]
_TILES_KEPT = 256
"""Tiles whose rocks are kept once worked out."""


class TileRocks:
    """Where a big desert's rocks are, tile by tile."""

    def __init__(self, field: DesertField, spec: RockSpec, seed: int, per_m2: float,
                 keep_clear_xy: list[tuple[float, float]]):
        """``per_m2``: rocks per square metre on average; ``keep_clear_xy``: spawn points no
        rock comes near."""
        self.field, self.spec, self.seed, self.per_m2 = field, spec, seed, per_m2
        self._clear = np.asarray(keep_clear_xy, dtype=float).reshape(-1, 2)
        self._unit_points, self._triangles = icosphere()
        self._limit_m = field.size_m / 2.0 - spec.edge_clearance_m
        self._cached = lru_cache(maxsize=_TILES_KEPT)(self._scatter)
        """Thread-safe: the worker thread paints rock ground as it makes tiles."""

    def rocks(self, key: tuple[int, int], box_m: Box) -> list[Rock]:
        """The rocks standing in a tile (its square ``box_m``); the last few hundred tiles'
        are kept (a tile's neighbours ask for its rocks too)."""
        return self._cached(key, box_m)

    def reserve(self, tiles: list[tuple[tuple[int, int], Box]]) -> None:
        """Work out now the rocks of as many tiles as are kept, the first of ``tiles``
        (keys and squares): what a battle that roams the map would fill the cache with as
        it goes (for a measure of memory over time, :meth:`TiledTerrain.reserve`)."""
        for key, box_m in tiles[:_TILES_KEPT]:
            self.rocks(key, box_m)

    def _scatter(self, key: tuple[int, int], box_m: Box) -> list[Rock]:
        spec = self.spec
        rng = np.random.default_rng([self.seed, ROCK_STREAM, key[0], key[1]])
        area_m2 = (box_m[2] - box_m[0]) * (box_m[3] - box_m[1])
        count = int(rng.poisson(self.per_m2 * area_m2))
        xy = rng.uniform(box_m[:2], box_m[2:], (count, 2))
        radii = rng.uniform(spec.min_radius_m, spec.max_radius_m, count)
        lumps = 1.0 + spec.lumpiness * rng.uniform(-1.0, 1.0, (count, len(self._unit_points)))
        headings_deg = rng.uniform(0.0, 360.0, count)
        kept = np.abs(xy).max(axis=1, initial=0.0) <= self._limit_m
        if self._clear.size:
            gaps = np.linalg.norm(xy[:, None, :] - self._clear[None, :, :], axis=2)
            kept &= gaps.min(axis=1, initial=np.inf) >= spec.spawn_clearance_m
        xy, radii, lumps, headings_deg = xy[kept], radii[kept], lumps[kept], headings_deg[kept]
        points = self._unit_points[None, :, :] * (lumps * radii[:, None])[:, :, None]
        points[:, :, 2] *= spec.flattening
        low, high = points[:, :, 2].min(axis=1), points[:, :, 2].max(axis=1)
        sinks = low + spec.buried_fraction * (high - low)
        ground_m = self.field.heights(xy[:, 0], xy[:, 1]) if len(xy) else np.zeros(0)
        return [Rock(np.array([x_m, y_m, ground - sink]), heading_deg, shape, self._triangles,
                     radius)
                for (x_m, y_m), ground, sink, heading_deg, shape, radius in zip(
                    xy.tolist(), ground_m.tolist(), sinks.tolist(), headings_deg.tolist(),
                    points, radii.tolist())]

    @property
    def highest_rise_m(self) -> float:
        """How far above the ground at its centre a rock may reach at most: its unburied
        share of the tallest, lumpiest rock's height."""
        spec = self.spec
        tallest_m = 2.0 * spec.max_radius_m * (1.0 + spec.lumpiness) * spec.flattening
        return (1.0 - spec.buried_fraction) * tallest_m

    def rock_ground(self, key: tuple[int, int], box_m: Box, tile_size_m: float
                    ) -> list[tuple[float, float, float, float]]:
        """The rocks that reach into a tile, its own and its eight neighbours', with their
        bare rock discs: x, y and the disc's radius, and the rock's top (:attr:`Rock.top_m`;
        a rock over the tile whose disc does not reach it has a disc that paints none of
        its samples)."""
        discs = []
        scale, widest = self.spec.rock_ground_scale, 1.0 + self.spec.lumpiness
        tiles_per_side = round(self.field.size_m / tile_size_m)
        for d_column in (-1, 0, 1):
            for d_row in (-1, 0, 1):
                if not (0 <= key[0] + d_column < tiles_per_side
                        and 0 <= key[1] + d_row < tiles_per_side):
                    continue  # beyond the map's edge: no tile, no rocks
                neighbour_box = (box_m[0] + d_column * tile_size_m, box_m[1] + d_row * tile_size_m,
                                 box_m[2] + d_column * tile_size_m, box_m[3] + d_row * tile_size_m)
                for rock in self.rocks((key[0] + d_column, key[1] + d_row), neighbour_box):
                    reach_m = rock.radius_m * scale
                    near_m = max(reach_m, rock.radius_m * widest)
                    x_m, y_m = float(rock.position_ws[0]), float(rock.position_ws[1])
                    if (box_m[0] - near_m <= x_m <= box_m[2] + near_m
                            and box_m[1] - near_m <= y_m <= box_m[3] + near_m):
                        discs.append((x_m, y_m, reach_m, rock.top_m))
        return discs
