"""The drawn terrain: the height array cut into tiles with distance LODs, plus an apron.

Every tile draws exactly the collider's samples (and Bullet's diagonal) at full detail;
far tiles switch to every 2nd, 4th... sample. Skirts hang from each tile's edges so
no crack shows where detail levels meet. Tiles are separate nodes, so the view
frustum culls what is behind the camera.

Beyond the map a coarse apron continues the edge heights, fading to the mean level,
so the map's edge never shows against the sky.

A big desert (``desert:SIZE``) is never held whole: :func:`terrain_view_for` draws it
with :class:`~game.view.ground.streamed_terrain_view.StreamedTerrainView` instead.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from panda3d.core import LODNode, NodePath, Point3

from common.spec import Spec, tuning
from game.view.ground.sand_mesh import apron_node, blend_mask, grid_node, grid_normals, sand_colours
from game.view.ground.streamed_terrain_view import StreamedTerrainSpec, StreamedTerrainView
from physics.model.craters import boxes_meet
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
        self.terrain, self.spec = terrain, spec
        self._colours = (light_colour, dark_colour)
        x_m, y_m = terrain.sample_positions()
        self._mask = blend_mask(x_m, y_m, mask_scale_m)
        self._positions = np.stack([x_m, y_m, terrain.heights_m], axis=-1)
        self._normals, self._vertex_colours = self._shading()
        self._revision = terrain.revision
        self.tiles: dict[tuple[int, int], NodePath] = {}
        cells = spec.tile_cells
        for j0 in range(0, terrain.rows - 1, cells):
            for i0 in range(0, terrain.columns - 1, cells):
                self.tiles[(i0, j0)] = self._tile(i0, j0)
        self.apron = self.root.attachNewNode(apron_node(
            terrain, terrain.height_at, float(terrain.heights_m.mean()), spec, light_colour,
            dark_colour))

    def _shading(self) -> tuple[np.ndarray, np.ndarray]:
        heights = self.terrain.heights_m
        light, dark = self._colours
        return (grid_normals(heights, self.terrain.spacing_m),
                sand_colours(self.terrain, heights, light, dark, self._mask))

    def _tile(self, i0: int, j0: int) -> NodePath:
        """The tile whose first cell is (i0, j0), at every level of detail."""
        terrain, cells = self.terrain, self.spec.tile_cells
        j1, i1 = min(j0 + cells, terrain.rows - 1), min(i0 + cells, terrain.columns - 1)
        centre = self._positions[(j0 + j1) // 2, (i0 + i1) // 2]
        lod = LODNode(f"terrain-tile-{i0}-{j0}")
        lod.setCenter(Point3(*centre))
        tile = self.root.attachNewNode(lod)
        switches = [0.0, *self.spec.lod_distances_m, self.spec.lod_far_m]
        for level, node in enumerate(self._level_nodes(i0, j0)):
            lod.addSwitch(switches[level + 1], switches[level])
            tile.attachNewNode(node)
        return tile

    def _level_nodes(self, i0: int, j0: int) -> list:
        """The tile's mesh at each level of detail, from the arrays as they are now."""
        spec, terrain, positions = self.spec, self.terrain, self._positions
        cells = spec.tile_cells
        levels = [2 ** level for level in range(len(spec.lod_distances_m) + 1)]
        j1, i1 = min(j0 + cells, terrain.rows - 1), min(i0 + cells, terrain.columns - 1)
        nodes = []
        for level, step in enumerate(levels):
            if (j1 - j0) % step or (i1 - i0) % step:
                step = 1  # an odd-sized edge tile keeps full detail
            window = (slice(j0, j1 + 1, step), slice(i0, i1 + 1, step))
            rows, columns = positions[window].shape[:2]
            skirt = spec.skirt_depth_m if level > 0 or len(levels) > 1 else 0.0
            nodes.append(grid_node(f"level-{level}", positions[window], self._normals[window],
                                   self._vertex_colours[window], rows, columns, skirt))
        return nodes

    def _redraw(self, i0: int, j0: int) -> None:
        """The tile's meshes made again in the nodes it has (a crater is no reason to make
        or destroy nodes)."""
        for old, new in zip(self.tiles[(i0, j0)].getChildren(), self._level_nodes(i0, j0)):
            node = old.node()
            node.removeAllGeoms()
            for index in range(new.getNumGeoms()):
                node.addGeom(new.modifyGeom(index), new.getGeomState(index))

    def update(self, cameras_xy: np.ndarray) -> None:
        """Once a frame, with where the cameras are: the whole map is drawn already; the
        tiles under a crater dug (or filled in) since the last frame are drawn again."""
        terrain = self.terrain
        if terrain.revision == self._revision:
            return
        boxes = terrain.changes_since(self._revision)
        self._revision = terrain.revision
        self._positions[..., 2] = terrain.heights_m
        self._normals, self._vertex_colours = self._shading()
        spacing, cells = terrain.spacing_m, self.spec.tile_cells
        for i0, j0 in self.tiles:
            low_x = i0 * spacing - terrain.half_extent_x_m
            low_y = j0 * spacing - terrain.half_extent_y_m
            square = (low_x - spacing, low_y - spacing, low_x + (cells + 1) * spacing,
                      low_y + (cells + 1) * spacing)
            if boxes is None or any(boxes_meet(square, box) for box in boxes):
                self._redraw(i0, j0)

    def destroy(self) -> None:
        self.root.removeNode()
