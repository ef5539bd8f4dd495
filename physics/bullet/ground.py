"""The ground under anchors where something besides the terrain may be under them: rays
through the Bullet world.

The terrain is our own height array, which the anchor kernel casts every ray against.
Only the anchors whose rays could meet something else that could be ground (a crate, a
rock, another vehicle) cast real Bullet rays too (:class:`BulletRays`, the model's
:class:`~physics.model.anchors.GroundQuery`); those pass through Bullet's terrain collider
(the kernel keeps the nearer of their hit and the terrain's), and find the moving bodies
the anchors stand on, so the fleet pushes back on them.

Each ray is one call into Bullet (its closest hit; a second, for all of its hits, only
where that one is not ground), so the work round each call is kept to plain Python
numbers: the rays' ends go in as lists, and the hits' points and normals come back in one
pass each (:func:`physics.bullet.poses.float32s`), not row by row into numpy arrays.
"""

from __future__ import annotations

import math
from operator import methodcaller

import numpy as np
from panda3d.bullet import BulletRigidBodyNode
from panda3d.core import BitMask32, Point3, PTA_LVecBase3f, Vec3

from physics.bullet import groups
from physics.bullet.bodies import TERRAIN_NAME
from physics.bullet.poses import float32s, vector_array
from physics.bullet.world import PhysicsWorld
from physics.model.anchor_kernel import PARALLEL_COSINE
from physics.model.anchors import GroundHits
from physics.model.terrain import TerrainBase
from physics.model.tile_grid import per_point

_hit_position, _hit_normal = methodcaller("getHitPos"), methodcaller("getHitNormal")
"""A hit's point and normal, from a closest-hit result or one of all the hits alike."""


def _is_ground(hit, direction: Vec3, min_ground_up: float, own) -> bool:
    """Whether a ray's ``hit`` is ground: in front of where the ray starts (not inside),
    not its own vehicle ``own``, not a wall (its normal faces up the ray by at least
    ``min_ground_up``)."""
    return not (hit.getHitFraction() <= 0.0 or hit.getNode() == own
                or -hit.getHitNormal().dot(direction) < min_ground_up)


def _closest_ground(hits, direction: Vec3, min_ground_up: float, own):
    """The nearest of one ray's ``hits`` that is ground (None: nothing); of equally near
    ones, the first."""
    best = None
    best_fraction = 0.0
    for candidate in hits:
        fraction = candidate.getHitFraction()
        if best is not None and fraction >= best_fraction:
            continue
        if _is_ground(candidate, direction, min_ground_up, own):
            best, best_fraction = candidate, fraction
    return best


class BulletRays:
    """Rays through the Bullet world for the anchors of a fleet's vehicles, one call each,
    each skipping its own vehicle and meeting only the groups in ``mask``: by default
    :data:`~physics.bullet.groups.ANCHOR_GROUND` (not the terrain's collider, not shells,
    debris or triggers; a test may pass :data:`~physics.bullet.world.ALL_BODIES`).

    Hits on the terrain read its surface map; anything else (rocks, crates, hulls) is
    hard ground: the "rock" surface. ``pushed_bodies`` holds, by anchor index, the moving
    bodies the last cast's rays met, and ``pushed_points_ws`` where (the kernel may stand
    the anchor on the terrain instead, where that is nearer).
    """

    def __init__(self, world: PhysicsWorld, terrain: TerrainBase,
                 vehicles: list[BulletRigidBodyNode], anchors: int,
                 mask: BitMask32 = groups.ANCHOR_GROUND):
        """Anchor ``n`` belongs to ``vehicles[n // anchors]``, which its ray must not meet."""
        self.mask = mask
        self.world = world
        self.terrain = terrain
        self.vehicles, self.anchors = vehicles, anchors
        self._rock = terrain.surface_named("rock")
        self.pushed_bodies: dict[int, BulletRigidBodyNode] = {}
        self.pushed_points_ws: dict[int, np.ndarray] = {}

    def cast(self, origins_ws, directions_ws, length_m, min_ground_up, rays) -> GroundHits:
        count = len(origins_ws)
        length_m = per_point(length_m, count)
        met, best_hits = self._closest_hits(origins_ws, directions_ws, length_m,
                                            min_ground_up, rays)
        if not met:
            return self._none_met(origins_ws, directions_ws)
        hit = np.zeros(count, dtype=bool)
        distance = np.zeros(count)
        point = np.zeros((count, 3))
        normal = np.zeros((count, 3))
        ground_velocity = np.zeros((count, 3))
        hit[met] = True
        distance[met] = (np.array([best.getHitFraction() for best in best_hits])
                         * length_m[met])
        point[met] = float32s(PTA_LVecBase3f, map(_hit_position, best_hits)).reshape(-1, 3)
        normal[met] = float32s(PTA_LVecBase3f, map(_hit_normal, best_hits)).reshape(-1, 3)
        nodes = [best.getNode() for best in best_hits]
        on_terrain = [ray for ray, node in zip(met, nodes) if node.getName() == TERRAIN_NAME]
        self.pushed_bodies = {}
        pushed = self._moving_ground([(ray, node) for ray, node in zip(met, nodes)
                                      if node.getName() != TERRAIN_NAME], rays, point,
                                     ground_velocity)
        rock_grip, rock_rolling = self.terrain.surface_grip(self._rock)
        grip, rolling = np.full(count, rock_grip), np.full(count, rock_rolling)
        if on_terrain:  # (only where a test's mask lets the rays meet the terrain's collider)
            # The terrain's surface and ripples, as the terrain look-up has them.
            ripple, grip[on_terrain], rolling[on_terrain] = self.terrain.ground_at(
                point[on_terrain, :2].T)
            facing = -np.einsum("ni,ni->n", normal[on_terrain], directions_ws[on_terrain])
            distance[on_terrain] -= ripple / np.maximum(facing, PARALLEL_COSINE)
        point = origins_ws + distance[:, None] * directions_ws
        self.pushed_points_ws = {int(rays[ray]): point[ray] for ray in pushed}
        return GroundHits(hit, distance, point, normal, ground_velocity, grip, rolling)

    def _none_met(self, origins_ws, directions_ws) -> GroundHits:
        """What :meth:`cast` gives where no ray met anything (most casts: a ray passing
        near a rock's bounds but beside the rock): no hit, each ray's point its start and
        the rock's grip, the numbers the whole pass makes, without its look-ups into the
        terrain, which no hit needs."""
        count = len(origins_ws)
        self.pushed_bodies, self.pushed_points_ws = {}, {}
        distance = np.zeros(count)
        rock_grip, rock_rolling = self.terrain.surface_grip(self._rock)
        return GroundHits(np.zeros(count, dtype=bool), distance,
                          origins_ws + distance[:, None] * directions_ws, np.zeros((count, 3)),
                          np.zeros((count, 3)), np.full(count, rock_grip, dtype=float),
                          np.full(count, rock_rolling, dtype=float))

    def _closest_hits(self, origins_ws, directions_ws, length_m, min_ground_up, rays
                      ) -> tuple[list[int], list]:
        """Each ray through Bullet (each ``length_m`` long, its ground facing up it by
        ``min_ground_up``: per ray, or one for all): the rays that met ground, and their
        nearest ground hits.

        Bullet's closest hit is asked for first: when it is ground (in front of the ray's
        start, not its own vehicle, not a wall) it is the nearest ground hit every hit
        would give, found by the same tests in the same order (a later hit replaces an
        earlier one only when strictly nearer, as :func:`_closest_ground` chooses), at
        less cost; only when it is not are all of the ray's hits looked through."""
        bullet = self.world.bullet
        ray_test_closest, ray_test_all = bullet.rayTestClosest, bullet.rayTestAll
        vehicles, anchors, mask = self.vehicles, self.anchors, self.mask
        length_m = per_point(length_m, len(rays))
        ends = origins_ws + directions_ws * length_m[:, None]
        least_up = per_point(min_ground_up, len(rays))
        met, best_hits = [], []
        for ray, (start, end, direction, anchor, ground_up) in enumerate(zip(
                origins_ws.tolist(), ends.tolist(), directions_ws.tolist(), rays.tolist(),
                least_up.tolist())):
            start, end = Point3(*start), Point3(*end)
            closest = ray_test_closest(start, end, mask)
            if not closest.hasHit():
                continue
            direction, own = Vec3(*direction), vehicles[anchor // anchors]
            best = closest
            if not _is_ground(closest, direction, ground_up, own):
                best = _closest_ground(ray_test_all(start, end, mask).getHits(), direction,
                                       ground_up, own)
            if best is not None:
                met.append(ray)
                best_hits.append(best)
        return met, best_hits

    def _moving_ground(self, hits_off_terrain, rays, point, ground_velocity) -> list[int]:
        """The velocity of the ground at the hits (ray, node) on moving bodies, and those
        bodies by anchor (``pushed_bodies``); returns those hits' rays."""
        pushed = []
        for ray, node in hits_off_terrain:
            if isinstance(node, BulletRigidBodyNode) and node.getMass() > 0.0:
                x, y, z = point[ray].tolist()
                centre_x, centre_y, centre_z = node.getTransform().getPos()
                turning = _cross(node.getAngularVelocity(),
                                 (x - centre_x, y - centre_y, z - centre_z))
                ground_velocity[ray] = [moving + spun for moving, spun
                                        in zip(node.getLinearVelocity(), turning)]
                self.pushed_bodies[int(rays[ray])] = node
                pushed.append(ray)
        return pushed

    def push_back(self, impulses_ws: np.ndarray, report, axes_ws: np.ndarray,
                  patch_offset_m: np.ndarray) -> None:
        """The moving bodies the last cast's anchors stand on take each anchor's impulse
        (``impulses_ws``, a row an anchor) back, equal and opposite in force and in torque:
        the whole of it at the contact point, and the couple of the grip's lever, which
        acts on the vehicle at the centre of the stretch of track the anchor carries (the
        patch, ``patch_offset_m`` (V, A) ahead of the contact for each vehicle's anchors),
        not at the contact. ``report``: the substep's anchor report; ``axes_ws``: the
        vehicles' axes (V, 3, 3)."""
        points_ws = report.contact_point_ws.reshape(-1, 3)
        for anchor, ground_body in self.pushed_bodies.items():
            if not np.array_equal(points_ws[anchor], self.pushed_points_ws[anchor]):
                continue  # the terrain was nearer: the anchor stands on it instead
            push = -impulses_ws[anchor]
            if not np.isfinite(push).all():
                continue
            offset = points_ws[anchor] - vector_array(ground_body.getTransform().getPos())
            ground_body.applyImpulse(Vec3(*push), Point3(*offset))
            couple = _grip_couple(anchor, push, report, axes_ws, patch_offset_m)
            if couple is not None:
                ground_body.applyTorqueImpulse(Vec3(*couple))


def _grip_couple(anchor: int, push: np.ndarray, report, axes_ws: np.ndarray,
                 patch_offset_m: np.ndarray) -> tuple[float, float, float] | None:
    """The torque impulse that, with ``push`` at the contact, gives the ground body the
    opposite of what anchor ``anchor`` gave its vehicle: the patch's lever crossed with
    the grip's part of the push (None where the patch is the contact: a wheel's). In plain
    floats: a few anchors a substep, where numpy's calls on 3-vectors cost more than
    their arithmetic."""
    patch_m = float(patch_offset_m.reshape(-1)[anchor])
    if patch_m == 0.0:
        return None
    vehicle = anchor // patch_offset_m.shape[1]
    normal = report.contact_normal_ws.reshape(-1, 3)[anchor].tolist()
    steer = float(report.steer_rad.reshape(-1)[anchor])
    (right, forward, _), along, across = axes_ws[vehicle].tolist(), math.cos(steer), \
        math.sin(steer)
    heading = [along * ahead + across * aside for ahead, aside in zip(forward, right)]
    heading = _off_normal(heading, normal)
    length = math.sqrt(_dot(heading, heading))
    scale = patch_m / (length if length > _TINY else _TINY)
    return _cross([scale * part for part in heading], _off_normal(push.tolist(), normal))


_TINY = float(np.finfo(float).tiny)


def _dot(a, b) -> float:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _off_normal(vector, normal) -> list[float]:
    """``vector`` less its part along the unit ``normal``."""
    along = _dot(vector, normal)
    return [part - along * unit for part, unit in zip(vector, normal)]


def _cross(a, b) -> tuple[float, float, float]:
    """a x b, of any three numbers each (the same float sums as numpy's)."""
    ax, ay, az = a
    bx, by, bz = b
    return ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx
