"""The tiles a shell will fly over, made ahead of it: a big desert's tiles along each
low shell's path for the next ``shell_lookahead_s``, queued on the terrain's worker before
the shell gets there (a tile made in a step is a hitch in that frame)."""

from __future__ import annotations

import math

import numpy as np

from physics.model.desert_field import TileSpec
from physics.model.tile_grid import TileGrid, TileKey, per_point


class ShellLookahead(TileGrid):
    """:meth:`make_ahead` for :class:`~physics.model.tiled_terrain.TiledTerrain`, which
    holds the tiles made (``_slots``) and queued (``_pending``) and queues one
    (``_queue``)."""

    tile_spec: TileSpec
    _slots: dict[TileKey, int]
    _pending: dict

    @property
    def ceiling_m(self) -> float:  # the terrain's
        raise NotImplementedError

    def _queue(self, key: TileKey) -> None:  # the terrain's
        raise NotImplementedError

    def coming_low(self, positions_ws: np.ndarray, velocities_ws: np.ndarray | None, reach_m,
                   gravity_m_s2: float) -> list[int]:
        """Which of these things (positions and velocities (N, 3), each reaching
        ``reach_m``, one for all or one each) may come within reach of the ground or a rock
        now or in the next ``shell_lookahead_s`` (without velocities: now), falling freely:
        the rest need no tile and no collider (:meth:`make_ahead`, the colliders' passing
        tiles). In plain floats: a shell or two, every step they fly, mostly high."""
        seconds = max(self.tile_spec.shell_lookahead_s, 0.0) if velocities_ws is not None \
            else 0.0
        positions = np.asarray(positions_ws, dtype=float).reshape(-1, 3)
        climbs = (np.asarray(velocities_ws, dtype=float).reshape(-1, 3)[:, 2].tolist()
                  if velocities_ws is not None else [0.0] * len(positions))
        ceiling_m = self.ceiling_m
        low = []
        for index, (z_m, z_mps, reach) in enumerate(zip(
                positions[:, 2].tolist(), climbs,
                per_point(reach_m, len(positions)).tolist())):
            end_z_m = z_m + seconds * (z_mps - 0.5 * gravity_m_s2 * seconds)
            if min(z_m, end_z_m) - reach <= ceiling_m:  # a falling arc is lowest at an end
                low.append(index)
        return low

    def make_ahead(self, positions_ws: np.ndarray, velocities_ws: np.ndarray, reach_m,
                   gravity_m_s2: float) -> None:
        """Queue on the worker the tiles within ``reach_m`` (one for all, or one each) of
        the straight paths things at these positions (N, 3) and velocities (N, 3) follow
        for ``shell_lookahead_s``: a shell's tiles are ready when it gets there. A shell
        that stays above :attr:`ceiling_m` meanwhile (falling freely) needs none
        (:meth:`coming_low`)."""
        seconds = self.tile_spec.shell_lookahead_s
        if seconds <= 0.0:
            return
        low = self.coming_low(positions_ws, velocities_ws, reach_m, gravity_m_s2)
        if not low:
            return
        every = np.asarray(positions_ws, dtype=float).reshape(-1, 3)
        positions = every[low, :2]
        velocities = np.asarray(velocities_ws, dtype=float).reshape(-1, 3)[low, :2]
        reaches = per_point(reach_m, len(every))[low]
        if self._far_ends_ready(positions, velocities, reaches, seconds):
            return
        # Points along each path no further apart than half a tile, nearest in time first.
        longest_m = float(np.linalg.norm(velocities, axis=1).max()) * seconds
        count = max(int(math.ceil(2.0 * longest_m / self.tile_size_m)), 1)
        times = np.arange(1, count + 1) * (seconds / count)
        points = positions[None, :, :] + times[:, None, None] * velocities[None, :, :]
        for key in self.tiles_near(points.reshape(-1, 2), np.tile(reaches, count),
                                   ordered=True):
            if key not in self._slots and key not in self._pending:
                self._queue(key)

    def _far_ends_ready(self, positions: np.ndarray, velocities: np.ndarray,
                        reaches: np.ndarray, seconds: float) -> bool:
        """Whether every tile within reach of the far end of each path (x and y, (N, 2);
        the low ones: see :meth:`make_ahead`) is made or queued: then so are those on the
        way, queued by an earlier call (the far ends move into new tiles only now and then).
        Shell by shell in plain floats (a few shells, every step they fly); each end's
        square of tiles, which holds its round reach."""
        for (x_m, y_m), (x_mps, y_mps), reach_m in zip(
                positions.tolist(), velocities.tolist(), reaches.tolist()):
            end_x_m, end_y_m = x_m + x_mps * seconds, y_m + y_mps * seconds
            for column in self._tile_range(end_x_m - reach_m, end_x_m + reach_m):
                for row in self._tile_range(end_y_m - reach_m, end_y_m + reach_m):
                    if (column, row) not in self._slots and (column, row) not in self._pending:
                        return False
        return True
