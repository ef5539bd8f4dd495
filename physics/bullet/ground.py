"""The ground under a vehicle's anchors where something besides the terrain may be under
them: Bullet rays.

The terrain is our own height array, so most anchors find the ground with one
vectorised look-up (:class:`~physics.model.ground.TerrainGround`), exact to the collider. Only vehicles
whose bounds come near something else that could be ground (a crate, a rock,
another vehicle) cast real Bullet rays (:class:`BulletGround`), which also find
what they stand on so the anchors push back on it (:class:`MixedGround`).
"""

from __future__ import annotations

import numpy as np
from panda3d.bullet import BulletRigidBodyNode
from panda3d.core import Point3, Vec3

from physics.bullet.bodies import TERRAIN_NAME
from physics.bullet.world import PhysicsWorld
from physics.model.anchors import GroundHits
from physics.model.ground import PARALLEL_COSINE, TerrainGround
from physics.model.terrain import Terrain


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
