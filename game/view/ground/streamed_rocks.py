"""A big desert's rocks (``desert:SIZE``) drawn tile by tile, only near the cameras.

Each tile within ``rocks_draw_distance_m`` of a camera has its rocks drawn as one mesh (the
same faceted mesh as the 512 m desert's rocks, from
:meth:`~physics.model.tiled_terrain.TiledTerrain.tile_rocks`: the rocks the colliders are
made of, standing on the untouched ground); a tile's rocks go once it is
``switch_margin_m`` further than that, so a camera at the border does not make them come
and go. At most ``builds_per_frame`` tiles' rocks are built a frame, nearest first (all of
them on the first frame). Drawing never makes a physics tile: a tile's rocks come from
its own seeded stream and the desert's field.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from panda3d.core import NodePath

from game.view.ground.streamed_terrain_view import cameras_moved
from physics.model.tile_grid import TileKey, rect_distances_m
from physics.model.tiled_terrain import TiledTerrain


class StreamedRocks:
    """Draws a :class:`TiledTerrain`'s rocks under ``parent`` round the points
    :meth:`update` is given; ``spec`` is the
    :class:`~game.view.ground.streamed_terrain_view.StreamedTerrainSpec`; ``mesh_for`` makes one
    node of a list of rocks (None for none)."""

    def __init__(self, parent: NodePath, terrain: TiledTerrain, spec,
                 mesh_for: Callable[[list], object | None]):
        self.root = parent.attachNewNode("streamed-rocks")
        self.terrain, self.spec, self._mesh_for = terrain, spec, mesh_for
        self.tiles: dict[TileKey, NodePath | None] = {}
        """The tiles whose rocks are drawn, each one's node (None: it has no rocks)."""
        self._planned_xy: np.ndarray | None = None
        self._jobs: list[TileKey] = []
        """Tiles whose rocks are to be built, nearest first."""

    def update(self, cameras_xy) -> None:
        """Once a frame, with where the cameras are ((2,) or (N, 2), metres)."""
        points = np.asarray(cameras_xy, dtype=float).reshape(-1, 2)
        planned = self._planned_xy
        if cameras_moved(planned, points, self.spec.replan_after_m):
            self._plan(points)
        count = len(self._jobs) if planned is None else self.spec.builds_per_frame
        for key in self._jobs[:count]:
            mesh = self._mesh_for(self.terrain.tile_rocks(key))
            self.tiles[key] = self.root.attachNewNode(mesh) if mesh is not None else None
        del self._jobs[:count]

    def _plan(self, points: np.ndarray) -> None:
        """Drop the tiles gone out of range; list the ones come into it, nearest first."""
        self._planned_xy = points
        terrain, distance_m = self.terrain, self.spec.rocks_draw_distance_m
        kept = set(terrain.tiles_near(points, distance_m + self.spec.switch_margin_m))
        for key in [key for key in self.tiles if key not in kept]:
            path = self.tiles.pop(key)
            if path is not None:
                path.removeNode()
        missing = [key for key in terrain.tiles_near(points, distance_m)
                   if key not in self.tiles]
        if not missing:
            self._jobs = []
            return
        centres = np.array([terrain.tile_centre(key) for key in missing])
        order = np.argsort(rect_distances_m(centres, terrain.tile_size_m / 2, points),
                           kind="stable")
        self._jobs = [missing[index] for index in order.tolist()]

    def destroy(self) -> None:
        self.tiles.clear()
        self._jobs.clear()
        self.root.removeNode()
