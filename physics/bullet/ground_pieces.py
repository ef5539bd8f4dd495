"""A whole map's ground collider in square pieces, so a crater rebuilds only its own.

Panda builds a heightfield from an image sample by sample (the 512 m desert's 257 x 257
samples take over a millisecond), and a crater changes a few metres of it. Each piece is
a static heightfield body of ``piece_cells`` cells a side (the last row and column of
pieces as many as are left), built from the terrain's own 16-bit levels with the same
height range as the whole: pieces share their edge samples, and Bullet splits every cell
along the same diagonal, so together they are the one surface, to the sample. A crater
(:meth:`GroundPieces.refresh`) builds again the pieces under the boxes that changed.
"""

from __future__ import annotations

from panda3d.core import NodePath

from physics.bullet.bodies import heightfield_body
from physics.bullet.world import PhysicsWorld
from physics.model.craters import boxes_meet
from physics.model.terrain import Terrain

PieceKey = tuple[int, int]
"""A piece's first column and first row of samples."""


class GroundPieces:
    """The heightfield bodies of a whole map's ground, a piece at a time."""

    def __init__(self, world: PhysicsWorld, terrain: Terrain, piece_cells: int):
        if piece_cells < 1:
            raise ValueError(f"piece_cells must be at least 1, got {piece_cells}")
        self.world, self.terrain, self.piece_cells = world, terrain, piece_cells
        rows, columns = terrain.levels.shape
        self._bodies: dict[PieceKey, NodePath] = {
            key: self._add(key) for key in [(column, row)
                                            for row in range(0, max(rows - 1, 1), piece_cells)
                                            for column in range(0, max(columns - 1, 1),
                                                                piece_cells)]}

    @property
    def count(self) -> int:
        """How many pieces are in the world."""
        return len(self._bodies)

    def box_m(self, key: PieceKey) -> tuple[float, float, float, float]:
        """The ground a piece covers: least x and y, greatest x and y."""
        (first_column, last_column), (first_row, last_row) = self._span(key)
        terrain = self.terrain
        spacing_m = terrain.spacing_m
        return (first_column * spacing_m - terrain.half_extent_x_m,
                first_row * spacing_m - terrain.half_extent_y_m,
                last_column * spacing_m - terrain.half_extent_x_m,
                last_row * spacing_m - terrain.half_extent_y_m)

    def refresh(self, boxes_m) -> None:
        """Build again the pieces under any of the boxes (least x and y, greatest x and y:
        the ground there changed)."""
        for key in [key for key in self._bodies
                    if any(boxes_meet(self.box_m(key), box) for box in boxes_m)]:
            self.world.remove_body(self._bodies[key])
            self._bodies[key] = self._add(key)

    def destroy(self) -> None:
        for path in self._bodies.values():
            self.world.remove_body(path)
        self._bodies.clear()

    def _span(self, key: PieceKey) -> tuple[tuple[int, int], tuple[int, int]]:
        """A piece's first and last column of samples, and its first and last row."""
        rows, columns = self.terrain.levels.shape
        column, row = key
        return ((column, min(column + self.piece_cells, columns - 1)),
                (row, min(row + self.piece_cells, rows - 1)))

    def _add(self, key: PieceKey) -> NodePath:
        terrain = self.terrain
        (first_column, last_column), (first_row, last_row) = self._span(key)
        least_x, least_y, most_x, most_y = self.box_m(key)
        body = heightfield_body(terrain.levels[first_row:last_row + 1,
                                               first_column:last_column + 1],
                                terrain.min_height_m, terrain.height_range_m,
                                terrain.spacing_m, ((least_x + most_x) / 2.0,
                                                    (least_y + most_y) / 2.0))
        return self.world.add_body(body, owner=terrain)
