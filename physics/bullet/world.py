"""The physics world: a Bullet world stepped in fixed steps, with hooks, rays and handles.

``PhysicsWorld.step()`` advances exactly one fixed step. Each step is split into
``substeps`` Bullet steps of equal length; before each one the registered
substep hooks run (vehicle controllers apply their impulses there), so forces
are applied at the physics rate, never once per rendered frame. Bullet is
stepped with ``doPhysics(h, 0)``: one step of exactly ``h``, which leaves node
transforms in sync with the simulation (no motion-state interpolation lag).

A body whose motion runs away in a substep (Bullet integrates it to a non-finite place,
which Panda refuses with an assertion as it syncs the node) stops no step: it is held
still where Panda last had it and named in ``runaway`` until the next step, where the
simulation's guard sees it as broken and sets its vehicle down afresh.

Queries: the closest hit of a ray, every hit of a ray (nearest first), the closest hit of
a swept sphere or box, and the bodies a sphere or a box overlaps. Each takes a filter, a
mask of collision groups (:mod:`physics.bullet.groups`): it meets only the bodies whose
group is in it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from panda3d.bullet import (BulletBoxShape, BulletRayHit, BulletRigidBodyNode, BulletShape,
                            BulletSphereShape, BulletWorld)
from panda3d.core import (BitMask32, LMatrix3f, LQuaternionf, NodePath, Point3, TransformState,
                          Vec3, loadPrcFileData)

from physics.bullet import groups
from physics.bullet.overlap import Solid, body_solid, overlaps, probe_solid
from physics.bullet.poses import vector_array
from physics.model.stepping import SimulationSpec

SubstepHook = Callable[[float], None]

# Bullet's sync gives every moving body a new TransformState each substep (Panda's
# set_pos_quat), and each lives one substep. By default Panda enters every state into its
# global table of unique states and takes it out when it is freed (a lock and a hash each
# way, in a table as big as the bodies), and caches its compositions with others: work
# that grows faster than the bodies and buys nothing for states that short-lived. Both are
# off for the whole process, drawing included (a frame composes its few hundred transforms
# afresh). They go together: Panda asserts that a state left out of the table holds no
# cached compositions when it is freed.
loadPrcFileData("physics.bullet.world", "uniquify-transforms false\ntransform-cache false")


@dataclass(frozen=True)
class RayHit:
    """One hit of a ray or a sweep, in world space: the point met, the normal there, and
    the share of the way gone."""

    position_ws: np.ndarray
    normal_ws: np.ndarray
    fraction: float
    node: Any


class HandleMap:
    """Maps Bullet nodes back to the game objects they belong to.

    Keys are the nodes themselves: Panda3D hands out a new Python wrapper for a
    node on each call, but wrappers of one node compare and hash equal.
    """

    def __init__(self):
        self._objects: dict[Any, Any] = {}

    def register(self, node, owner) -> None:
        self._objects[node] = owner

    def unregister(self, node) -> None:
        self._objects.pop(node, None)

    def owner_of(self, node) -> Any:
        return self._objects.get(node)

    def __len__(self) -> int:
        return len(self._objects)


ALL_BODIES = BitMask32.allOn()
"""A query filter that meets every body."""
NO_GROUPS = BitMask32()
"""The mask of a body no query meets."""
_UNBOUNDED = groups.mask_of(groups.TERRAIN, groups.EDGE).getWord()
"""The groups whose bodies :meth:`PhysicsWorld.top_m` leaves aside: a heightfield's or a
plane's bounding sphere bounds nothing useful."""


def sphere_shape(radius_m: float) -> BulletSphereShape:
    """A sphere to sweep."""
    return BulletSphereShape(radius_m)


def box_shape(half_extents_m) -> BulletBoxShape:
    """A box to sweep or test, by its half extents along its own axes."""
    return BulletBoxShape(Vec3(*half_extents_m))


def _placed(position_ws, axes_ws) -> TransformState:
    """A shape's transform: at ``position_ws``, its axes the rows of ``axes_ws`` (None:
    the world's)."""
    if axes_ws is None:
        return TransformState.makePos(Point3(*position_ws))
    rotation = LMatrix3f(*np.asarray(axes_ws, dtype=float).ravel().tolist())
    return TransformState.makePosQuatScale(Point3(*position_ws), _quaternion(rotation),
                                           Vec3(1.0, 1.0, 1.0))


def _quaternion(rotation: LMatrix3f):
    quaternion = LQuaternionf()
    quaternion.setFromMatrix(rotation)
    return quaternion


def _nodes(exclude) -> tuple:
    """A query's ``exclude``: nothing, one node, or several."""
    if exclude is None:
        return ()
    if isinstance(exclude, (tuple, list, set, frozenset)):
        return tuple(exclude)
    return (exclude,)


_hit_node = BulletRayHit.getNode


def _ray_hit(result) -> RayHit:
    return RayHit(vector_array(result.getHitPos()), vector_array(result.getHitNormal()),
                  result.getHitFraction(), result.getNode())


class PhysicsWorld:
    """Owns the Bullet world; advances it one fixed step at a time."""

    def __init__(self, spec: SimulationSpec):
        self.spec = spec
        self.step_s = spec.step_s
        self.substep_s = spec.step_s / spec.substeps
        self.bullet = BulletWorld()
        groups.configure(self.bullet)
        self.bullet.setGravity(Vec3(0.0, 0.0, -spec.gravity_m_s2))
        # Bullet sleeps a static body as it is added and, with this off, leaves its box in
        # the broadphase alone until it moves (Panda wakes a body whose transform is set):
        # a big desert's hundreds of resident rocks cost nothing a step.
        self.bullet.setForceUpdateAllAabbs(False)
        self.handles = HandleMap()
        self.step_count = 0
        self._substep_hooks: list[SubstepHook] = []
        self.runaway: set[BulletRigidBodyNode] = set()
        """The bodies whose motion ran away in the last step, held still since."""
        self._static_tops: dict[int, dict[BulletRigidBodyNode, float]] = {}
        """Each static body's highest point (of its bounding sphere), by its groups' mask
        (static bodies keep theirs), the terrain's and the map's edges aside
        (:meth:`top_m`); and the highest of each mask's."""
        self._static_highest: dict[int, float] = {}
        self._moving_reach: dict[BulletRigidBodyNode, float] = {}
        """How far each moving body's bounding sphere reaches from its origin."""

    @property
    def time_s(self) -> float:
        return self.step_count / self.spec.step_hz

    def add_substep_hook(self, hook: SubstepHook) -> None:
        """Run ``hook(substep_s)`` before every Bullet substep."""
        self._substep_hooks.append(hook)

    def remove_substep_hook(self, hook: SubstepHook) -> None:
        self._substep_hooks.remove(hook)

    def add_body(self, body: BulletRigidBodyNode, owner: Any = None) -> NodePath:
        """Attach a body to the world (and to the handle map when it has an owner). The
        body's node is a scene-graph root of its own: after every substep Panda sets the
        node transform of each body that moved, which costs less on a node with no parent
        (nothing above it to mark stale)."""
        path = NodePath(body)
        self.bullet.attachRigidBody(body)
        if owner is not None:
            self.handles.register(body, owner)
        bounds = body.getShapeBounds()
        if body.getMass() > 0.0:
            self._moving_reach[body] = bounds.getCenter().length() + bounds.getRadius()
        elif not body.getIntoCollideMask().getWord() & _UNBOUNDED:
            mask = body.getIntoCollideMask().getWord()
            top_m = (body.getTransform().getMat().xformPoint(bounds.getCenter()).z
                     + bounds.getRadius())
            self._static_tops.setdefault(mask, {})[body] = top_m
            self._static_highest[mask] = max(self._static_highest.get(mask, -math.inf), top_m)
        return path

    def top_m(self, mask: BitMask32) -> float:
        """The highest point any body whose group is in ``mask`` reaches now, by its
        bounding sphere (-inf: none), the terrain and the map's edges aside (a heightfield's
        or a plane's sphere says nothing: the terrain has its own ceiling). The static
        bodies' were taken as they were added; the moving ones' are read now."""
        word = mask.getWord()
        top_m = max((highest for groups_met, highest in self._static_highest.items()
                     if groups_met & word), default=-math.inf)
        moving_m = max((body.getTransform().getPos().z + reach_m
                        for body, reach_m in self._moving_reach.items()
                        if body.getIntoCollideMask().getWord() & word), default=-math.inf)
        return top_m if top_m > moving_m else moving_m

    def body_count(self) -> int:
        """How many rigid bodies are in the world (a leak shows as a count that grows)."""
        return self.bullet.getNumRigidBodies()

    def set_collide_mask(self, body: BulletRigidBodyNode, mask: BitMask32) -> None:
        """Change which bodies ``body`` meets. Bullet keeps the pairs it has already made
        when only the mask changes, so the body leaves the world and comes back (its
        state stays; pairs it should keep are made again at the next step)."""
        if body.getIntoCollideMask() == mask:
            return
        body.setIntoCollideMask(mask)
        self.bullet.removeRigidBody(body)
        self.bullet.attachRigidBody(body)

    def remove_body(self, path: NodePath) -> None:
        body = path.node()
        self.handles.unregister(body)
        self._moving_reach.pop(body, None)
        for mask, tops in self._static_tops.items():
            if tops.pop(body, None) is not None:
                self._static_highest[mask] = max(tops.values(), default=-math.inf)
        self.bullet.removeRigidBody(body)
        path.removeNode()

    def step(self) -> None:
        """Advance one fixed step (a body that runs away is held: ``runaway``)."""
        if self.runaway:
            self.runaway.clear()
        for _ in range(self.spec.substeps):
            for hook in self._substep_hooks:
                hook(self.substep_s)
            try:
                self.bullet.doPhysics(self.substep_s, 0)
            except AssertionError:  # Panda refused a body's non-finite transform
                if not self._hold_runaways():
                    raise
        self.step_count += 1

    def _hold_runaways(self) -> bool:
        """Hold still every body whose velocity went non-finite, where Panda last had it
        (it kept the last finite transform it was given); whether there was one."""
        held = False
        for body in self.bullet.getRigidBodies():
            linear, angular = body.getLinearVelocity(), body.getAngularVelocity()
            if math.isfinite(linear.x + linear.y + linear.z + angular.x + angular.y
                             + angular.z):
                continue
            placed = body.getTransform()
            # Bullet takes a node's transform when it changes: through another and back,
            # so that the last finite one replaces Bullet's own.
            body.setTransform(TransformState.makeIdentity())
            body.setTransform(placed)
            body.setLinearVelocity(Vec3.zero())
            body.setAngularVelocity(Vec3.zero())
            body.clearForces()
            self.runaway.add(body)
            held = True
        return held

    def ray_closest(self, from_ws, to_ws, exclude=None, mask: BitMask32 = ALL_BODIES
                    ) -> RayHit | None:
        """The closest hit between two world points on bodies whose group is in ``mask``,
        ignoring the ``exclude`` node (or nodes)."""
        result = self.bullet.rayTestClosest(Point3(*from_ws), Point3(*to_ws), mask)
        if not result.hasHit():
            return None
        if result.getNode() not in _nodes(exclude):  # the nearest of all is not left out
            return _ray_hit(result)
        hits = self.ray_all(from_ws, to_ws, mask, exclude)
        return hits[0] if hits else None

    def ray_all(self, from_ws, to_ws, mask: BitMask32 = ALL_BODIES, exclude=None
                ) -> list[RayHit]:
        """Every hit between two world points on bodies whose group is in ``mask``, the
        ``exclude`` node (or nodes) aside, nearest first (equally near ones in Bullet's
        order)."""
        excluded = _nodes(exclude)
        hits = self.bullet.rayTestAll(Point3(*from_ws), Point3(*to_ws), mask).getHits()
        return [_ray_hit(hit) for hit in sorted(
            (hit for hit in hits if hit.getNode() not in excluded),
            key=lambda hit: hit.getHitFraction())]

    def nodes_on_line(self, from_ws, to_ws, mask: BitMask32 = ALL_BODIES, exclude=None
                      ) -> list:
        """The nodes of every body whose group is in ``mask`` that the line between two
        world points crosses, the ``exclude`` node (or nodes) aside, in no order: what
        :meth:`ray_all` finds, without the points, normals and sorting it makes."""
        excluded = _nodes(exclude)
        nodes = map(_hit_node, self.bullet.rayTestAll(Point3(*from_ws), Point3(*to_ws),
                                                      mask).getHits())
        return [node for node in nodes if node not in excluded]

    def sweep_closest(self, shape: BulletShape, from_ws, to_ws, mask: BitMask32 = ALL_BODIES,
                      exclude=None, axes_ws=None) -> RayHit | None:
        """Where a convex ``shape`` (:func:`sphere_shape`, :func:`box_shape`), moved without
        turning from ``from_ws`` to ``to_ws``, first touches a body whose group is in
        ``mask``, the ``exclude`` node (or nodes) aside: the point of contact on that body,
        its normal, and the share of the way the shape had gone. ``axes_ws``: the shape's
        axes in world space, one a row (default: the world's).

        Bullet's sweep reports only the closest body, so an excluded one is taken out of
        every group for the length of the query (its pairs and state are untouched)."""
        hidden = self._hide(exclude, mask)
        try:
            result = self.bullet.sweepTestClosest(shape, _placed(from_ws, axes_ws),
                                                  _placed(to_ws, axes_ws), mask, 0.0)
        finally:
            for node, own_mask in hidden:
                node.setIntoCollideMask(own_mask)
        return _ray_hit(result) if result.hasHit() else None

    def overlap_sphere(self, centre_ws, radius_m: float, mask: BitMask32 = ALL_BODIES,
                       exclude=None) -> list:
        """The owners (in the handle map) of the bodies whose group is in ``mask`` that a
        sphere overlaps, the ``exclude`` node (or nodes) aside; each once, in Bullet's
        order. See :meth:`overlapping` for how exact it is."""
        return self.overlapping(probe_solid(centre_ws, radius_m), mask, exclude)

    def overlapping(self, probe: Solid, mask: BitMask32 = ALL_BODIES, exclude=None) -> list:
        """The owners of the bodies whose group is in ``mask`` that ``probe`` overlaps (a
        sphere or a turned box: :func:`~physics.bullet.overlap.probe_solid`), as
        :meth:`overlap_sphere`.

        Exact for bodies of one sphere or one box (a car's hull, plates, shells: touching
        counts); for other shapes (a tank's plates, rocks, the terrain) Bullet's contact
        test decides, which also counts some bodies near the shape
        (:mod:`physics.bullet.overlap`).
        Only which bodies overlap is answered; a caller measures distances."""
        if probe.half_m is None:
            shape, placed = sphere_shape(probe.radius_m), _placed(probe.centre_ws, None)
        else:
            shape, placed = box_shape(probe.half_m), _placed(probe.centre_ws, probe.axes_ws)
        node = BulletRigidBodyNode("overlap-probe")
        node.addShape(shape)
        node.setTransform(placed)
        excluded = _nodes(exclude)
        owners, seen = [], []
        for contact in self.bullet.contactTest(node).getContacts():
            other = contact.getNode1() if contact.getNode0() == node else contact.getNode0()
            if (other.getIntoCollideMask() & mask).isZero() or other in excluded \
                    or other in seen:
                continue
            seen.append(other)
            solid = body_solid(other)
            if solid is not None and not overlaps(probe, solid):
                continue
            owner = self.handles.owner_of(other)
            if owner is not None and owner not in owners:
                owners.append(owner)
        return owners

    @staticmethod
    def _hide(exclude, mask: BitMask32) -> list:
        """Take the ``exclude`` nodes a query with ``mask`` could meet out of every group;
        returns them with their masks, to be put back."""
        hidden = [(node, node.getIntoCollideMask()) for node in _nodes(exclude)
                  if not (node.getIntoCollideMask() & mask).isZero()]
        for node, _ in hidden:
            node.setIntoCollideMask(NO_GROUPS)
        return hidden

    def destroy(self) -> None:
        for body in list(self.bullet.getRigidBodies()):
            self.bullet.removeRigidBody(body)
        self._substep_hooks.clear()
        self._static_tops.clear()
        self._static_highest.clear()
        self._moving_reach.clear()
