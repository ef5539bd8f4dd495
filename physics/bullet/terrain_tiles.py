"""Bullet colliders for a big desert's tiles, only near what moves.

A tile within ``collider_radius_m`` of a vehicle or a shell gets static heightfield
bodies built from its 16-bit levels (the same numbers the anchor kernel's planes come
from; in pieces, :mod:`physics.bullet.ground_pieces`, so a crater rebuilds only its
own), and its rocks' bodies, which the fleets' anchors may stand on; they are removed
once it is further than ``collider_unload_radius_m`` from all of them, so a tank at a
border does not make one come and go. Bodies are added and removed only between fixed
steps (:meth:`StreamedColliders.update`).
"""

from __future__ import annotations

import operator
from typing import Sequence

import numpy as np
from panda3d.core import NodePath

from physics.bullet.bodies import make_rock_body
from physics.bullet.fleet import VehicleFleet
from physics.bullet.ground_pieces import GroundPieces
from physics.bullet.world import PhysicsWorld
from physics.model.craters import boxes_meet
from physics.model.rocks import Rock
from physics.model.tile_grid import TileKey, per_point
from physics.model.tiled_terrain import TiledTerrain


class StreamedColliders:
    """The heightfield bodies of the tiles near the points it is given."""

    def __init__(self, world: PhysicsWorld, terrain: TiledTerrain,
                 fleets: Sequence[VehicleFleet] = (), piece_cells: int | None = None):
        """``fleets``: whose anchors may stand on the tiles' rocks; ``piece_cells``: each
        tile's ground collider is built in square pieces of this many cells a side (a
        crater builds again only the pieces under it; None: one piece a tile)."""
        self.world, self.terrain, self.fleets = world, terrain, list(fleets)
        self.piece_cells = piece_cells or terrain.tile_cells
        self._bodies: dict[TileKey, GroundPieces] = {}
        self._rock_bodies: dict[TileKey, list[NodePath]] = {}
        self.revision = 0
        """Counts the changes to the rocks in the world (they come and go with tiles)."""
        self._rocks: tuple[int, list[Rock]] = (self.revision, [])
        """The rocks in the world, gathered at a revision (asked for every step)."""
        self._near_points: tuple | None = None
        self._near: tuple[list[TileKey], set[TileKey]] = ([], set())
        """The tiles wanted and kept for the last points given (shells aside)."""
        self._followed: np.ndarray | None = None
        """Where the vehicles were when the tiles and colliders were last worked out."""
        self._shells_held = False
        """Some shell had colliders of its own at the last :meth:`follow`."""
        self._applied: tuple | None = None
        """The near tiles (:attr:`_near`, by identity) and the passing ones the colliders
        were last made for: a shell's step over the same tiles changes nothing."""

    @property
    def rocks(self) -> list[Rock]:
        """The rocks in the world now: those of the tiles with colliders (one list for as
        long as they stay the same)."""
        if self._rocks[0] != self.revision:
            self._rocks = (self.revision, [rock for key in sorted(self._bodies)
                                           for rock in self.terrain.tile_rocks(key)])
        return self._rocks[1]

    @property
    def resident(self) -> int:
        """How many tiles have a collider in the Bullet world now."""
        return len(self._bodies)

    @property
    def tiles(self) -> list[TileKey]:
        return sorted(self._bodies)

    def follow(self, vehicles_xy: np.ndarray, shells_ws: np.ndarray | None = None,
               shell_reach_m=0.0, shell_velocities_ws: np.ndarray | None = None,
               gravity_m_s2: float = 0.0) -> None:
        """Before a fixed step, with where the vehicles are (V, 2) and the shells (S, 3)
        with how far each may go in the step and their velocities (S, 3): the tiles and
        their colliders follow the vehicles, worked out again once one has moved
        ``restream_after_m`` (the spare tiles are trimmed every step); the shells have
        colliders under them for as long as they fly low, and the tiles on their way are
        made ahead (a shell that stays high meanwhile is passed over:
        :meth:`~physics.model.tile_lookahead.ShellLookahead.coming_low`)."""
        terrain = self.terrain
        terrain.take_finished()
        flying = False  # a shell that may come low enough to need a tile
        if shells_ws is not None and len(shells_ws):
            low = terrain.coming_low(shells_ws, shell_velocities_ws, shell_reach_m,
                                     gravity_m_s2)
            flying = bool(low)
            if flying and len(low) < len(shells_ws):
                count = len(shells_ws)
                shells_ws = np.asarray(shells_ws, dtype=float).reshape(-1, 3)[low]
                shell_reach_m = per_point(shell_reach_m, count)[low]
                if shell_velocities_ws is not None:
                    shell_velocities_ws = np.asarray(shell_velocities_ws,
                                                     dtype=float).reshape(-1, 3)[low]
        if shells_ws is not None and flying and shell_velocities_ws is not None:
            terrain.make_ahead(shells_ws, shell_velocities_ws, shell_reach_m, gravity_m_s2)
        followed = self._followed
        moved = (followed is None or followed.shape != vehicles_xy.shape
                 or _furthest_m(vehicles_xy, followed) >= terrain.tile_spec.restream_after_m)
        if moved or followed is None:  # (never followed yet is moved)
            followed = self._followed = np.array(vehicles_xy, dtype=float)
            terrain.stream(vehicles_xy)
        else:
            terrain.trim()
        if moved or flying or self._shells_held:
            self.update(followed, shells_ws if flying else None, shell_reach_m)
        self._shells_held = flying

    def update(self, points_xy: np.ndarray, passing_ws: np.ndarray | None = None,
               passing_reach_m=0.0) -> None:
        """Colliders for the tiles near the points (N, 2), none for the far ones; and for
        the tiles within ``passing_reach_m`` (one for all, or one each) of things passing
        through (shells: (S, 3)), only while they are there and low enough to meet the
        tile's ground or rocks."""
        wanted, keep = self._near_tiles(points_xy)
        passing: frozenset[TileKey] = frozenset()
        if passing_ws is not None and len(passing_ws):
            passing = self._passing_tiles(np.asarray(passing_ws, dtype=float).reshape(-1, 3),
                                          passing_reach_m)
        applying = (self._near, passing)
        if self._applied is not None and (self._applied[0] is applying[0]
                                          and self._applied[1] == passing):
            return
        self._applied = applying
        if passing:
            wanted, keep = sorted(set(wanted) | passing), keep | passing
        for key in [key for key in self._bodies if key not in keep]:
            self._bodies.pop(key).destroy()
            self._remove_rocks(key)
        for key in wanted:
            if key not in self._bodies:
                self._bodies[key] = self._add(key)
                self._add_rocks(key)

    def _passing_tiles(self, passing_ws: np.ndarray, reach_m) -> frozenset[TileKey]:
        """The tiles within reach of each passing thing whose top it may come down to."""
        terrain = self.terrain
        reaches = per_point(reach_m, len(passing_ws)).tolist()
        tiles: set[TileKey] = set()
        ceiling_m = terrain.ceiling_m  # no tile's top is higher
        for (x_m, y_m, z_m), reach_m in zip(passing_ws.tolist(), reaches):
            if z_m - reach_m > ceiling_m:
                continue
            tiles.update(key for key in terrain.tiles_near_point(x_m, y_m, reach_m)
                         if z_m - reach_m <= terrain.tile_top_m(key))
        return frozenset(tiles)

    def _near_tiles(self, points_xy: np.ndarray) -> tuple[list[TileKey], set[TileKey]]:
        """The tiles wanted near the points and those kept, worked out again only when the
        points are not the last ones (shells call every step; the vehicles' points change
        only once one has moved ``restream_after_m``)."""
        points = np.asarray(points_xy, dtype=float)
        identity = (points.shape, points.tobytes())
        if identity != self._near_points:
            spec = self.terrain.tile_spec
            self._near_points = identity
            self._near = (self.terrain.tiles_near(points, spec.collider_radius_m),
                          set(self.terrain.tiles_near(points, spec.collider_unload_radius_m)))
        return self._near

    def _add_rocks(self, key: TileKey) -> None:
        rocks = self.terrain.tile_rocks(key)
        paths = [self.world.add_body(make_rock_body(rock, f"rock-{key[0]}-{key[1]}-{number}"),
                                     owner=rock)
                 for number, rock in enumerate(rocks)]
        bodies, bounds = [path.node() for path in paths], [rock.bounds_bs() for rock in rocks]
        for fleet in self.fleets:
            fleet.add_obstacles(bodies, bounds)
        self._rock_bodies[key] = paths
        self.revision += 1

    def _remove_rocks(self, key: TileKey) -> None:
        paths = self._rock_bodies.pop(key, [])
        for fleet in self.fleets:
            fleet.remove_obstacles([path.node() for path in paths])
        for path in paths:
            self.world.remove_body(path)
        self.revision += 1

    def refresh(self, boxes_m) -> None:
        """Build again the colliders of the tiles' pieces under any of the boxes (the
        ground there changed: a crater)."""
        for key, pieces in self._bodies.items():
            if any(boxes_meet(self.terrain.tile_box(key), box) for box in boxes_m):
                pieces.refresh(boxes_m)

    def _add(self, key: TileKey) -> GroundPieces:
        terrain = self.terrain
        least_x_m, least_y_m, _, _ = terrain.tile_box(key)
        return GroundPieces(self.world, terrain, lambda: terrain.tile_levels(key),
                            (least_x_m, least_y_m), terrain.spacing_m, terrain.min_height_m,
                            terrain.height_range_m, self.piece_cells)

    def destroy(self) -> None:
        self._applied = None
        for key in list(self._bodies):
            self._bodies.pop(key).destroy()
            self._remove_rocks(key)


def _furthest_m(points: np.ndarray, before: np.ndarray) -> float:
    """The largest change of any coordinate between two sets of points of one shape, in
    plain floats (a few vehicles, every step)."""
    return max(map(abs, map(operator.sub, points.ravel().tolist(), before.ravel().tolist())),
               default=0.0)
