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
numbers, and the hits go back to the kernel as one table made at once.
"""

from __future__ import annotations

import math

import numpy as np
from panda3d.bullet import BulletRigidBodyNode
from panda3d.core import BitMask32, Point3, Vec3

from physics.bullet import groups
from physics.bullet.bodies import TERRAIN_NAME
from physics.bullet.poses import vector_array
from physics.bullet.world import PhysicsWorld
from physics.model import kernel_tables as tables
from physics.model.anchor_kernel import PARALLEL_COSINE
from physics.model.anchors import GroundHits
from physics.model.scalars import float_dot
from physics.model.terrain import TerrainBase
from physics.model.tile_grid import per_point

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
        self._rock_grip = tuple(float(value) for value in terrain.surface_grip(
            terrain.surface_named("rock")))
        """The rock surface's grip scale and added rolling resistance (fixed with the map)."""
        self.pushed_bodies: dict[int, BulletRigidBodyNode] = {}
        self.pushed_points_ws: dict[int, np.ndarray] = {}

    def cast(self, origins_ws, directions_ws, length_m, min_ground_up, rays) -> GroundHits:
        """Ray by ray, in plain floats (a ray or two a substep, mostly), into one table as
        the anchor kernel reads it (:meth:`GroundHits.rows`). A ray that met no ground has
        its start for its point and the rock's grip, as the whole pass makes them."""
        count = len(origins_ws)
        rock_grip, rock_rolling = self._rock_grip
        self.pushed_bodies, self.pushed_points_ws = {}, {}
        table = []
        for start, direction, reach_m, ground_up, anchor in zip(
                origins_ws.tolist(), directions_ws.tolist(), per_point(length_m, count).tolist(),
                per_point(min_ground_up, count).tolist(), rays.tolist()):
            best = self._ground_hit(start, direction, reach_m, ground_up,
                                    self.vehicles[anchor // self.anchors])
            if best is None:
                table.append((0.0, 0.0, *[at + 0.0 * way for at, way in zip(start, direction)],
                              0.0, 0.0, 0.0, 0.0, 0.0, 0.0, rock_grip, rock_rolling))
                continue
            distance_m = best.getHitFraction() * reach_m
            normal, node = tuple(best.getHitNormal()), best.getNode()
            grip, rolling, ground_velocity = rock_grip, rock_rolling, (0.0, 0.0, 0.0)
            if node.getName() == TERRAIN_NAME:  # only where a test's mask lets a ray meet it
                # The terrain's surface and ripples, as the terrain look-up has them.
                x_m, y_m, _ = best.getHitPos()
                ripple, grips, rollings = self.terrain.ground_at(np.array([[x_m], [y_m]]))
                grip, rolling = float(grips[0]), float(rollings[0])
                facing = -float_dot(normal, direction)
                distance_m -= float(ripple[0]) / max(facing, PARALLEL_COSINE)
            elif isinstance(node, BulletRigidBodyNode) and node.getMass() > 0.0:
                ground_velocity = _body_velocity_at(node, tuple(best.getHitPos()))
                self.pushed_bodies[anchor] = node
            point = [at + distance_m * way for at, way in zip(start, direction)]
            if anchor in self.pushed_bodies:
                self.pushed_points_ws[anchor] = np.array(point)
            table.append((1.0, distance_m, *point, *normal, *ground_velocity, grip, rolling))
        return GroundHits.of_rows(np.array(table, dtype=float).reshape(count, tables.EXACT_ROWS).T)

    def _ground_hit(self, start: list[float], direction: list[float], reach_m: float,
                    ground_up: float, own):
        """One ray through Bullet, ``reach_m`` long, its ground facing up it by
        ``ground_up``: its nearest ground hit (None: none).

        Bullet's closest hit is asked for first: when it is ground (in front of the ray's
        start, not its own vehicle ``own``, not a wall) it is the nearest ground hit every
        hit would give, found by the same tests in the same order (a later hit replaces an
        earlier one only when strictly nearer, as :func:`_closest_ground` chooses), at
        less cost; only when it is not are all of the ray's hits looked through."""
        begin = Point3(*start)
        end = Point3(*[at + way * reach_m for at, way in zip(start, direction)])
        closest = self.world.bullet.rayTestClosest(begin, end, self.mask)
        if not closest.hasHit():
            return None
        facing = Vec3(*direction)
        if _is_ground(closest, facing, ground_up, own):
            return closest
        return _closest_ground(self.world.bullet.rayTestAll(begin, end, self.mask).getHits(),
                               facing, ground_up, own)

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


def _body_velocity_at(body: BulletRigidBodyNode, point_ws) -> tuple[float, float, float]:
    """The velocity of a moving ``body`` at a point: its centre's and its turning's."""
    x, y, z = point_ws
    centre_x, centre_y, centre_z = body.getTransform().getPos()
    turning = _cross(body.getAngularVelocity(), (x - centre_x, y - centre_y, z - centre_z))
    moving_x, moving_y, moving_z = body.getLinearVelocity()
    return moving_x + turning[0], moving_y + turning[1], moving_z + turning[2]


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
    length = math.sqrt(float_dot(heading, heading))
    scale = patch_m / (length if length > _TINY else _TINY)
    return _cross([scale * part for part in heading], _off_normal(push.tolist(), normal))


_TINY = float(np.finfo(float).tiny)


def _off_normal(vector, normal) -> list[float]:
    """``vector`` less its part along the unit ``normal``."""
    along = float_dot(vector, normal)
    return [part - along * unit for part, unit in zip(vector, normal)]


def _cross(a, b) -> tuple[float, float, float]:
    """a x b, of any three numbers each (the same float sums as numpy's)."""
    ax, ay, az = a
    bx, by, bz = b
    return ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx
