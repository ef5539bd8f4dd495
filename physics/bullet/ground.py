"""The ground under a vehicle's anchors: rays against the terrain's height array, all at
once, and Bullet rays where something else might be under them.

The terrain is our own height array, so most anchors find the ground with one
vectorised look-up (:class:`TerrainGround`), exact to the collider. Only vehicles
whose bounds come near something else that could be ground (a crate, a rock,
another vehicle) cast real Bullet rays (:class:`BulletGround`), which also find
what they stand on so the anchors push back on it (:class:`MixedGround`).
"""

from __future__ import annotations

import numpy as np
from panda3d.bullet import BulletRigidBodyNode
from panda3d.core import Point3, Vec3

from physics.model.terrain import TERRAIN_NAME, Terrain
from physics.model.anchors import GroundHits, _dot, _rows
from physics.bullet.world import PhysicsWorld

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


class BulletGround:
    """Rays through the Bullet world, one call each, skipping each ray's own vehicle.

    Hits on the terrain read its surface map; anything else (rocks, crates, hulls)
    is hard ground: the "rock" surface.
    """

    def __init__(self, world: PhysicsWorld, terrain: Terrain):
        self.world = world
        self.terrain = terrain
        self._rock = terrain.surface_named("rock")

    def cast(self, origins_ws, directions_ws, length_m, min_ground_up, exclude
             ) -> tuple[GroundHits, list]:
        count = len(origins_ws)
        hit = np.zeros(count, dtype=bool)
        distance = np.zeros(count)
        point = np.zeros((count, 3))
        normal = np.zeros((count, 3))
        ground_velocity = np.zeros((count, 3))
        on_terrain = np.zeros(count, dtype=bool)
        bodies = [None] * count
        ends = origins_ws + directions_ws * length_m
        for ray, (start, end, own) in enumerate(zip(origins_ws.tolist(), ends.tolist(), exclude)):
            best = None
            for candidate in self.world.bullet.rayTestAll(Point3(*start), Point3(*end)).getHits():
                fraction = candidate.getHitFraction()
                if candidate.getNode() == own or fraction <= 0.0:  # itself; starts inside
                    continue
                if best is not None and fraction >= best.getHitFraction():
                    continue
                if -candidate.getHitNormal().dot(Vec3(*directions_ws[ray])) < min_ground_up:
                    continue  # a wall, not ground
                best = candidate
            if best is None:
                continue
            hit[ray] = True
            distance[ray] = best.getHitFraction() * length_m
            point[ray] = best.getHitPos()
            normal[ray] = best.getHitNormal()
            node = best.getNode()
            on_terrain[ray] = node.getName() == TERRAIN_NAME
            if isinstance(node, BulletRigidBodyNode) and node.getMass() > 0.0:
                offset = point[ray] - np.array(node.getTransform().getPos())
                ground_velocity[ray] = (np.array(node.getLinearVelocity())
                                        + np.cross(node.getAngularVelocity(), offset))
                bodies[ray] = node
        # The terrain's surface and ripples, as the terrain look-up has them.
        ripple, grip, rolling = self.terrain.ground_at(point[:, :2].T)
        rock_grip, rock_rolling = self.terrain.surface_grip(self._rock)
        grip = np.where(on_terrain, grip, rock_grip)
        rolling = np.where(on_terrain, rolling, rock_rolling)
        facing = -np.einsum("ni,ni->n", normal, directions_ws)
        distance -= np.where(on_terrain, ripple, 0.0) / np.maximum(facing, PARALLEL_COSINE)
        point = origins_ws + distance[:, None] * directions_ws
        return GroundHits(hit, distance, point, normal, ground_velocity, grip, rolling), bodies


class MixedGround:
    """Terrain look-ups for every ray, replaced by Bullet rays where ``use_bullet`` is set."""

    def __init__(self, terrain: TerrainGround, bullet: BulletGround, use_bullet: np.ndarray,
                 vehicles: list, anchors: int):
        """Ray ``r`` belongs to ``vehicles[r // anchors]``, which it must not meet."""
        self.terrain, self.bullet = terrain, bullet
        self.use_bullet, self.vehicles, self.anchors = use_bullet, vehicles, anchors
        self.pushed_bodies: dict[int, object] = {}

    def cast(self, origins_ws, directions_ws, length_m, min_ground_up) -> GroundHits:
        hits = self.terrain.cast(origins_ws, directions_ws, length_m, min_ground_up)
        rays = np.flatnonzero(self.use_bullet)
        if rays.size:
            exclude = [self.vehicles[r // self.anchors] for r in rays.tolist()]
            exact, bodies = self.bullet.cast(origins_ws[rays], directions_ws[rays], length_m,
                                             min_ground_up, exclude)
            for field in ("hit", "distance_m", "point_ws", "normal_ws", "ground_velocity_ws",
                          "grip_scale", "rolling_resistance"):
                getattr(hits, field)[rays] = getattr(exact, field)
            self.pushed_bodies = {int(r): body for r, body in zip(rays, bodies) if body}
        return hits
