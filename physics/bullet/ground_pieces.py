"""A ground collider in square pieces, so a crater rebuilds only the pieces under it.

Panda builds a heightfield from an image sample by sample (the 512 m desert's 257 x 257
samples take over a millisecond, a big desert's 129 x 129 tile a third of that), and a
crater changes a few metres of it. Each piece is a static heightfield body of
``piece_cells`` cells a side (the last row and column of pieces as many as are left),
built from the ground's own 16-bit levels with the same height range as the whole:
pieces share their edge samples, and Bullet splits every cell along the same diagonal,
so together they are the one surface, to the sample. A crater
(:meth:`GroundPieces.refresh`) builds again the pieces under the boxes that changed.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
from panda3d.core import NodePath

from physics.bullet.bodies import heightfield_body
from physics.bullet.world import PhysicsWorld
from physics.model.craters import boxes_meet
from physics.model.terrain import Terrain

PieceKey = tuple[int, int]
"""A piece's first column and first row of samples."""


class GroundPieces:
    """The heightfield bodies of one grid of ground samples (a whole map's, a big desert
    tile's), a piece at a time."""

    def __init__(self, world: PhysicsWorld, owner: Any, levels: Callable[[], np.ndarray],
                 least_xy_m: tuple[float, float], spacing_m: float, min_height_m: float,
                 height_range_m: float, piece_cells: int):
        """``levels``: the ground's 16-bit levels as they are now (rows by y), over
        ``[min_height_m, min_height_m + height_range_m]``, sample (0, 0) at ``least_xy_m``;
        ``owner``: the pieces' owner in the world's handle map (the terrain)."""
        if piece_cells < 1:
            raise ValueError(f"piece_cells must be at least 1, got {piece_cells}")
        self.world, self.owner, self.levels = world, owner, levels
        self.least_xy_m, self.spacing_m, self.piece_cells = least_xy_m, spacing_m, piece_cells
        self.min_height_m, self.height_range_m = min_height_m, height_range_m
        now = levels()
        self.rows, self.columns = now.shape
        self._bodies: dict[PieceKey, NodePath] = {
            key: self._add(key, now)
            for key in [(column, row) for row in range(0, max(self.rows - 1, 1), piece_cells)
                        for column in range(0, max(self.columns - 1, 1), piece_cells)]}

    @classmethod
    def of_map(cls, world: PhysicsWorld, terrain: Terrain, piece_cells: int) -> GroundPieces:
        """A whole map's ground (a :class:`~physics.model.terrain.Terrain`'s)."""
        return cls(world, terrain, lambda: terrain.levels,
                   (-terrain.half_extent_x_m, -terrain.half_extent_y_m), terrain.spacing_m,
                   terrain.min_height_m, terrain.height_range_m, piece_cells)

    @property
    def count(self) -> int:
        """How many pieces are in the world."""
        return len(self._bodies)

    def box_m(self, key: PieceKey) -> tuple[float, float, float, float]:
        """The ground a piece covers: least x and y, greatest x and y."""
        (first_column, last_column), (first_row, last_row) = self._span(key)
        least_x_m, least_y_m = self.least_xy_m
        spacing_m = self.spacing_m
        return (least_x_m + first_column * spacing_m, least_y_m + first_row * spacing_m,
                least_x_m + last_column * spacing_m, least_y_m + last_row * spacing_m)

    def refresh(self, boxes_m) -> None:
        """Build again the pieces under any of the boxes (least x and y, greatest x and y:
        the ground there changed)."""
        changed = [key for key in self._bodies
                   if any(boxes_meet(self.box_m(key), box) for box in boxes_m)]
        if not changed:
            return
        now = self.levels()
        for key in changed:
            self.world.remove_body(self._bodies[key])
            self._bodies[key] = self._add(key, now)

    def destroy(self) -> None:
        for path in self._bodies.values():
            self.world.remove_body(path)
        self._bodies.clear()

    def _span(self, key: PieceKey) -> tuple[tuple[int, int], tuple[int, int]]:
        """A piece's first and last column of samples, and its first and last row."""
        column, row = key
        return ((column, min(column + self.piece_cells, self.columns - 1)),
                (row, min(row + self.piece_cells, self.rows - 1)))

    def _add(self, key: PieceKey, levels: np.ndarray) -> NodePath:
        (first_column, last_column), (first_row, last_row) = self._span(key)
        least_x_m, least_y_m, most_x_m, most_y_m = self.box_m(key)
        body = heightfield_body(levels[first_row:last_row + 1, first_column:last_column + 1],
                                self.min_height_m, self.height_range_m, self.spacing_m,
                                ((least_x_m + most_x_m) / 2.0, (least_y_m + most_y_m) / 2.0))
        return self.world.add_body(body, owner=self.owner)
