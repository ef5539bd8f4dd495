"""The drawn terrain: the height array cut into tiles with distance LODs, plus an apron.

Every tile draws exactly the collider's samples (and Bullet's diagonal) at full detail;
far tiles switch to every 2nd, 4th... sample. Skirts hang from each tile's edges so
no crack shows where detail levels meet. Tiles are separate nodes, so the view
frustum culls what is behind the camera.

Beyond the map a coarse apron continues the edge heights, fading to the mean level,
so the map's edge never shows against the sky.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from panda3d.core import LODNode, NodePath, Point3

from game.view.meshes import grid_triangles, make_mesh
from physics.model.spec import Spec, tuning
from physics.model.desert_field import fractal_noise
from physics.model.terrain import Terrain


@dataclass(frozen=True)
class TerrainViewSpec(Spec):
    """How the terrain is drawn: tiles, detail levels and the apron round the map."""

    tile_cells: int = tuning("height-sample cells along a tile's side", minimum=2,
                             maximum=1024)
    lod_distances_m: tuple[float, ...] = tuning(
        "beyond each distance a tile draws every 2nd, 4th, ... sample", minimum=1.0,
        maximum=100000.0, length=(0, 6))
    lod_far_m: float = tuning("tiles farther than this are not drawn", minimum=10.0,
                              maximum=100000.0)
    skirt_depth_m: float = tuning("tile skirts hang this far down (hides cracks between "
                                  "detail levels)", minimum=0.0, maximum=50.0)
    apron_extent_m: float = tuning("how far the apron reaches beyond the map's edge",
                                   minimum=0.0, maximum=20000.0)
    apron_spacing_m: float = tuning("spacing of the apron's coarse grid", minimum=1.0,
                                    maximum=2000.0)
    apron_fade_m: float = tuning("beyond the edge the apron levels out over this distance",
                                 minimum=1.0, maximum=20000.0)


MASK_OCTAVES = 2
"""Octaves of the large-scale mask that blends the sand shader's two detail scales."""


def _normals(heights: np.ndarray, spacing_m: float) -> np.ndarray:
    slope_y, slope_x = np.gradient(heights, spacing_m)
    normals = np.stack([-slope_x, -slope_y, np.ones_like(heights)], axis=-1)
    return normals / np.linalg.norm(normals, axis=-1, keepdims=True)


def sand_colours(terrain: Terrain, heights: np.ndarray, light_colour, dark_colour,
                 mask: np.ndarray) -> np.ndarray:
    """Troughs darker, crests lighter, so the dune pattern reads even in flat light; the
    alpha channel carries ``mask`` (0..1) for the sand shader."""
    lightness = np.clip((heights - terrain.min_height_m) / terrain.height_range_m, 0.0, 1.0)
    light, dark = np.asarray(light_colour), np.asarray(dark_colour)
    colours = dark + lightness[..., None] * (light - dark)
    return np.concatenate([colours, mask[..., None]], axis=-1)


def blend_mask(x_m: np.ndarray, y_m: np.ndarray, scale_m: float, seed: int) -> np.ndarray:
    """Large, soft blotches in 0..1 (world space, so the tiles and the apron agree)."""
    rng = np.random.default_rng([seed, 0xB1E0])
    noise = fractal_noise(x_m, y_m, scale_m, MASK_OCTAVES, rng)
    return np.clip(0.5 + noise, 0.0, 1.0)


def _skirt(positions: np.ndarray, normals: np.ndarray, colours: np.ndarray, rows: int,
           columns: int, depth_m: float):
    """Vertices and outward-facing triangles hanging ``depth_m`` below a grid's border."""
    grid = np.arange(rows * columns).reshape(rows, columns)
    # Border walked counter-clockwise seen from above: outward is to the right.
    border = np.concatenate([grid[0, :-1], grid[:-1, -1], grid[-1, :0:-1], grid[:0:-1, 0]])
    top = positions[border]
    bottom = top - np.array([0.0, 0.0, depth_m])
    count = len(border)
    base = len(positions)
    k = np.arange(count)
    k2 = (k + 1) % count
    upper_a, upper_b = base + k, base + k2
    lower_a, lower_b = base + count + k, base + count + k2
    triangles = np.concatenate([np.stack([upper_a, lower_b, upper_b], axis=1),
                                np.stack([upper_a, lower_a, lower_b], axis=1)])
    return (np.concatenate([top, bottom]), np.concatenate([normals[border]] * 2),
            np.concatenate([colours[border]] * 2), triangles)


def _grid_node(name: str, positions, normals, colours, rows: int, columns: int,
               skirt_m: float):
    triangles = grid_triangles(columns, rows)
    flat_p, flat_n, flat_c = (positions.reshape(-1, 3), normals.reshape(-1, 3),
                              colours.reshape(-1, 4))
    if skirt_m > 0.0:
        sp, sn, sc, st = _skirt(flat_p, flat_n, flat_c, rows, columns, skirt_m)
        triangles = np.concatenate([triangles, st])
        flat_p, flat_n, flat_c = (np.concatenate([flat_p, sp]), np.concatenate([flat_n, sn]),
                                  np.concatenate([flat_c, sc]))
    return make_mesh(name, flat_p, flat_n, flat_c, triangles)


class TerrainView:
    """Builds the tiled terrain and the apron under ``parent``."""

    def __init__(self, parent: NodePath, terrain: Terrain, spec, light_colour, dark_colour,
                 mask_scale_m: float):
        self.root = parent.attachNewNode("terrain-view")
        x_m, y_m = terrain.sample_positions()
        heights = terrain.heights_m
        normals = _normals(heights, terrain.spacing_m)
        colours = sand_colours(terrain, heights, light_colour, dark_colour,
                               blend_mask(x_m, y_m, mask_scale_m, 0))
        positions = np.stack([x_m, y_m, heights], axis=-1)
        cells = spec.tile_cells
        self.tiles: list[NodePath] = []
        levels = [2 ** level for level in range(len(spec.lod_distances_m) + 1)]
        switches = [0.0, *spec.lod_distances_m, spec.lod_far_m]
        for j0 in range(0, terrain.rows - 1, cells):
            for i0 in range(0, terrain.columns - 1, cells):
                j1, i1 = min(j0 + cells, terrain.rows - 1), min(i0 + cells, terrain.columns - 1)
                centre = positions[(j0 + j1) // 2, (i0 + i1) // 2]
                lod = LODNode(f"terrain-tile-{i0}-{j0}")
                lod.setCenter(Point3(*centre))
                tile = self.root.attachNewNode(lod)
                for level, step in enumerate(levels):
                    if (j1 - j0) % step or (i1 - i0) % step:
                        step = 1  # an odd-sized edge tile keeps full detail
                    window = (slice(j0, j1 + 1, step), slice(i0, i1 + 1, step))
                    rows, columns = positions[window].shape[:2]
                    skirt = spec.skirt_depth_m if level > 0 or len(levels) > 1 else 0.0
                    node = _grid_node(f"level-{level}", positions[window], normals[window],
                                      colours[window], rows, columns, skirt)
                    lod.addSwitch(switches[level + 1], switches[level])
                    tile.attachNewNode(node)
                self.tiles.append(tile)
        self.apron = self.root.attachNewNode(self._apron(terrain, spec, light_colour,
                                                         dark_colour, mask_scale_m))

    @staticmethod
    def _apron(terrain: Terrain, spec, light_colour, dark_colour, mask_scale_m: float):
        """A coarse grid round the map (its inside cut away), edge heights fading out."""
        spacing = spec.apron_spacing_m
        reach = max(terrain.half_extent_x_m, terrain.half_extent_y_m) + spec.apron_extent_m
        count = int(np.ceil(reach / spacing))
        axis = np.arange(-count, count + 1) * spacing
        x_m, y_m = np.meshgrid(axis, axis)
        # Distance outside the map; inside it the apron sinks below the real terrain.
        outside = np.maximum(np.abs(x_m) - terrain.half_extent_x_m,
                             np.abs(y_m) - terrain.half_extent_y_m)
        edge = terrain.height_at(np.clip(x_m, -terrain.half_extent_x_m, terrain.half_extent_x_m),
                                 np.clip(y_m, -terrain.half_extent_y_m, terrain.half_extent_y_m))
        mean = float(terrain.heights_m.mean())
        fade = np.clip(outside / spec.apron_fade_m, 0.0, 1.0)
        heights = edge + (mean - edge) * fade - spec.skirt_depth_m * (outside <= 0.0)
        positions = np.stack([x_m, y_m, heights], axis=-1)
        normals = _normals(heights, spacing)
        colours = sand_colours(terrain, heights, light_colour, dark_colour,
                               np.full(heights.shape, 0.5))
        rows = columns = len(axis)
        triangles = grid_triangles(columns, rows)
        # Drop cells wholly inside the map.
        centre_x = (x_m[:-1, :-1] + spacing / 2).ravel()
        centre_y = (y_m[:-1, :-1] + spacing / 2).ravel()
        inside = ((np.abs(centre_x) + spacing / 2 <= terrain.half_extent_x_m)
                  & (np.abs(centre_y) + spacing / 2 <= terrain.half_extent_y_m))
        keep = np.concatenate([~inside, ~inside])
        return make_mesh("terrain-apron", positions.reshape(-1, 3), normals.reshape(-1, 3),
                         colours.reshape(-1, 4), triangles[keep])

    def destroy(self) -> None:
        self.root.removeNode()
