"""The ground under a vehicle's anchors from the terrain's height array: every ray at once.

The terrain is our own height array, so most anchors find the ground with one
vectorised look-up, exact to the collider. Vehicles near something else that could
be ground cast Bullet rays instead (:mod:`physics.bullet.ground`).
"""

from __future__ import annotations

import numpy as np

from physics.model.anchors import GroundHits, _dot, _rows
from physics.model.terrain import Terrain

PARALLEL_COSINE = 1e-6
"""Below this, a ray runs along (or away from) the terrain's face: no meeting point."""

_TERRAIN_ITERATIONS = 2
"""Ray-plane refinements against the height grid, for rays cast the first time: each lands
exactly on the plane of the triangle under the last guess. The first guess is the ray's
start, straight above its hit but for the hull's tilt, so the second lands on the right
triangle unless the hit is within a few centimetres of an edge, where both triangles'
planes agree to within millimetres. The same rays cast again start from where they met
the ground last time, a substep ago (millimetres away), and need one refinement."""


class TerrainGround:
    """Rays against the terrain's height array, all at once."""

    def __init__(self, terrain: Terrain):
        self.terrain = terrain
        self._last_distance_m: np.ndarray | None = None
        """How far along each ray the collider was at the last cast (the same rays, in
        the same order, are cast every substep)."""

    def carried_distances(self, rays: int) -> tuple[np.ndarray, bool]:
        """How far along each of the same ``rays`` rays the collider was at the last cast,
        for a compiled cast to start from and bring up to date in place; False: no such
        cast yet (zeros, to start cold)."""
        last = self._last_distance_m
        if last is not None and last.shape == (rays,):
            return last, True
        self._last_distance_m = np.zeros(rays)
        return self._last_distance_m, False

    def cast(self, origins_ws, directions_ws, length_m, min_ground_up) -> GroundHits:
        terrain = self.terrain
        # Vectors as rows (3, N), as the anchor model computes (free when handed its rows).
        origins, directions = _rows(origins_ws), _rows(directions_ws)
        last = self._last_distance_m
        if last is not None and last.shape == (origins.shape[1],):
            # Within the ray: a ray that missed, or a vehicle set down elsewhere, still
            # looks under its own start.
            distance, iterations = np.minimum(np.maximum(last, 0.0), length_m), 1
        else:
            distance, iterations = 0.0, _TERRAIN_ITERATIONS
        for _ in range(iterations):
            guess = origins + distance * directions
            height, normal = terrain.planes_at(guess[:2])
            facing = _dot(normal, directions)  # < 0: the ray meets the face
            distance = distance + normal[2] * (height - guess[2]) / np.minimum(facing,
                                                                                -PARALLEL_COSINE)
        self._last_distance_m = distance
        point = origins + distance * directions
        # The surface's ripples stand a little above the collider.
        ripple, grip, rolling = terrain.ground_at(point[:2])
        distance = distance - ripple / np.maximum(-facing, PARALLEL_COSINE)
        point = origins + distance * directions
        hit = ((distance <= length_m) & (-facing >= min_ground_up)
               & terrain.contains_rows(point[:2]))
        return GroundHits(hit, distance, point.T, np.ascontiguousarray(normal).T,
                          np.zeros(point.T.shape), grip, rolling)
