"""The ground under anchors where something besides the terrain may be under them: rays
through the Bullet world.

The terrain is our own height array, which the anchor kernel casts every ray against.
Only the anchors of vehicles whose bounds come near something else that could be ground
(a crate, a rock, another vehicle) cast real Bullet rays too (:class:`BulletRays`, the
model's :class:`~physics.model.anchors.GroundQuery`); those also find the moving bodies
the anchors stand on, so the fleet pushes back on them.
"""

from __future__ import annotations

import numpy as np
from panda3d.bullet import BulletRigidBodyNode
from panda3d.core import Point3, Vec3

from physics.bullet.bodies import TERRAIN_NAME
from physics.bullet.world import PhysicsWorld
from physics.model.anchor_kernel import PARALLEL_COSINE
from physics.model.anchors import GroundHits
from physics.model.terrain import Terrain


class BulletRays:
    """Rays through the Bullet world for the anchors of a fleet's vehicles, one call each,
    each skipping its own vehicle.

    Hits on the terrain read its surface map; anything else (rocks, crates, hulls) is
    hard ground: the "rock" surface. ``pushed_bodies`` holds, by anchor index, the moving
    bodies the last cast's rays stand on.
    """

    def __init__(self, world: PhysicsWorld, terrain: Terrain,
                 vehicles: list[BulletRigidBodyNode], anchors: int):
        """Anchor ``n`` belongs to ``vehicles[n // anchors]``, which its ray must not meet."""
        self.world = world
        self.terrain = terrain
        self.vehicles, self.anchors = vehicles, anchors
        self._rock = terrain.surface_named("rock")
        self.pushed_bodies: dict[int, BulletRigidBodyNode] = {}

    def cast(self, origins_ws, directions_ws, length_m, min_ground_up, rays) -> GroundHits:
        count = len(origins_ws)
        hit = np.zeros(count, dtype=bool)
        distance = np.zeros(count)
        point = np.zeros((count, 3))
        normal = np.zeros((count, 3))
        ground_velocity = np.zeros((count, 3))
        on_terrain = np.zeros(count, dtype=bool)
        self.pushed_bodies = {}
        ends = origins_ws + directions_ws * length_m
        for ray, (start, end, anchor) in enumerate(zip(origins_ws.tolist(), ends.tolist(),
                                                       rays.tolist())):
            best = self._closest_ground(start, end, directions_ws[ray], min_ground_up,
                                        self.vehicles[anchor // self.anchors])
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
                self.pushed_bodies[anchor] = node
        # The terrain's surface and ripples, as the terrain look-up has them.
        ripple, grip, rolling = self.terrain.ground_at(point[:, :2].T)
        rock_grip, rock_rolling = self.terrain.surface_grip(self._rock)
        grip = np.where(on_terrain, grip, rock_grip)
        rolling = np.where(on_terrain, rolling, rock_rolling)
        facing = -np.einsum("ni,ni->n", normal, directions_ws)
        distance -= np.where(on_terrain, ripple, 0.0) / np.maximum(facing, PARALLEL_COSINE)
        point = origins_ws + distance[:, None] * directions_ws
        return GroundHits(hit, distance, point, normal, ground_velocity, grip, rolling)

    def _closest_ground(self, start, end, direction, min_ground_up, own):
        """The nearest hit along one ray that is ground: not its own vehicle, not where the
        ray starts inside, not a wall (None: nothing)."""
        best = None
        for candidate in self.world.bullet.rayTestAll(Point3(*start), Point3(*end)).getHits():
            fraction = candidate.getHitFraction()
            if candidate.getNode() == own or fraction <= 0.0:  # itself; starts inside
                continue
            if best is not None and fraction >= best.getHitFraction():
                continue
            if -candidate.getHitNormal().dot(Vec3(*direction)) < min_ground_up:
                continue  # a wall, not ground
            best = candidate
        return best
