"""The drawn terrain: the height array cut into tiles with distance LODs, plus an apron.

Every tile draws exactly the collider's samples (and Bullet's diagonal) at full detail;
far tiles switch to every 2nd, 4th... sample. Skirts hang from each tile's edges so
no crack shows where detail levels meet. Tiles are separate nodes, so the view
frustum culls what is behind the camera.

Beyond the map a coarse apron continues the edge heights, fading to the mean level,
so the map's edge never shows against the sky.

A big desert (``desert:SIZE``) is never held whole: :func:`terrain_view_for` draws it
with :class:`~game.view.streamed_terrain_view.StreamedTerrainView` instead.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from panda3d.core import LODNode, NodePath, Point3

from game.view.sand_mesh import apron_node, blend_mask, grid_node, grid_normals, sand_colours
from game.view.streamed_terrain_view import StreamedTerrainSpec, StreamedTerrainView
from physics.model.spec import Spec, tuning
from physics.model.terrain import Terrain
from physics.model.tiled_terrain import TiledTerrain

__all__ = ["TerrainView", "TerrainViewSpec", "blend_mask", "sand_colours",
           "terrain_view_for"]


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
    streamed: StreamedTerrainSpec = tuning("a big desert (desert:SIZE): its tiles drawn "
                                           "round the cameras, finer near them")


def terrain_view_for(parent: NodePath, terrain, spec: TerrainViewSpec, light_colour,
                     dark_colour, mask_scale_m: float):
    """The view that draws ``terrain``: a big desert's streamed, any other map whole."""
    if isinstance(terrain, TiledTerrain):
        return StreamedTerrainView(parent, terrain, spec, light_colour, dark_colour,
                                   mask_scale_m)
    return TerrainView(parent, terrain, spec, light_colour, dark_colour, mask_scale_m)


class TerrainView:
    """Builds the tiled terrain and the apron under ``parent``."""

    def __init__(self, parent: NodePath, terrain: Terrain, spec, light_colour, dark_colour,
                 mask_scale_m: float):
        self.root = parent.attachNewNode("terrain-view")
        x_m, y_m = terrain.sample_positions()
        heights = terrain.heights_m
        normals = grid_normals(heights, terrain.spacing_m)
        colours = sand_colours(terrain, heights, light_colour, dark_colour,
                               blend_mask(x_m, y_m, mask_scale_m))
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
                    node = grid_node(f"level-{level}", positions[window], normals[window],
                                     colours[window], rows, columns, skirt)
                    lod.addSwitch(switches[level + 1], switches[level])
                    tile.attachNewNode(node)
                self.tiles.append(tile)
        self.apron = self.root.attachNewNode(apron_node(
            terrain, terrain.height_at, float(terrain.heights_m.mean()), spec, light_colour,
            dark_colour))

    def update(self, cameras_xy: np.ndarray) -> None:
        """Once a frame, with where the cameras are: the whole map is drawn already."""

    def destroy(self) -> None:
        self.root.removeNode()
