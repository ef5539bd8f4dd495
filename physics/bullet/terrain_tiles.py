"""Bullet colliders for a big desert's tiles, only near what moves.

A tile within ``collider_radius_m`` of a vehicle or a shell gets a static heightfield
body built from its 16-bit levels (the same numbers the anchor kernel's planes come
from); it is removed once it is further than ``collider_unload_radius_m`` from all of
them, so a tank at a border does not make one come and go. Bodies are added and removed
only between fixed steps (:meth:`StreamedColliders.update`).
"""

from __future__ import annotations

import numpy as np
from panda3d.core import NodePath

from physics.bullet.bodies import heightfield_body
from physics.bullet.world import PhysicsWorld
from physics.model.tiled_terrain import TiledTerrain, TileKey


def _meets(first, second) -> bool:
    return not (first[2] < second[0] or first[0] > second[2] or first[3] < second[1]
                or first[1] > second[3])


class StreamedColliders:
    """The heightfield bodies of the tiles near the points it is given."""

    def __init__(self, world: PhysicsWorld, terrain: TiledTerrain):
        self.world, self.terrain = world, terrain
        self._bodies: dict[TileKey, NodePath] = {}

    @property
    def resident(self) -> int:
        """How many tiles have a collider in the Bullet world now."""
        return len(self._bodies)

    @property
    def tiles(self) -> list[TileKey]:
        return sorted(self._bodies)

    def update(self, points_xy: np.ndarray) -> None:
        """Colliders for the tiles near the points (N, 2), none for the far ones."""
        spec = self.terrain.tile_spec
        keep = set(self.terrain.tiles_near(points_xy, spec.collider_unload_radius_m))
        for key in [key for key in self._bodies if key not in keep]:
            self.world.remove_body(self._bodies.pop(key))
        for key in self.terrain.tiles_near(points_xy, spec.collider_radius_m):
            if key not in self._bodies:
                self._bodies[key] = self._add(key)

    def refresh(self, boxes_m) -> None:
        """Build again the colliders of the tiles under any of the boxes (the ground there
        changed: a crater)."""
        for key in [key for key in self._bodies
                    if any(_meets(self.terrain.tile_box(key), box) for box in boxes_m)]:
            self.world.remove_body(self._bodies.pop(key))
            self._bodies[key] = self._add(key)

    def _add(self, key: TileKey) -> NodePath:
        terrain = self.terrain
        body = heightfield_body(terrain.tile_levels(key), terrain.min_height_m,
                                terrain.height_range_m, terrain.spacing_m,
                                terrain.tile_centre(key))
        return self.world.add_body(body, owner=terrain)

    def destroy(self) -> None:
        for path in self._bodies.values():
            self.world.remove_body(path)
        self._bodies.clear()
