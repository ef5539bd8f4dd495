"""The physics world: a Bullet world stepped in fixed steps, with hooks, rays and handles.

``PhysicsWorld.step()`` advances exactly one fixed step. Each step is split into
``substeps`` Bullet steps of equal length; before each one the registered
substep hooks run (vehicle controllers apply their impulses there), so forces
are applied at the physics rate, never once per rendered frame. Bullet is
stepped with ``doPhysics(h, 0)``: one step of exactly ``h``, which leaves node
transforms in sync with the simulation (no motion-state interpolation lag).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from panda3d.bullet import BulletRigidBodyNode, BulletWorld
from panda3d.core import BitMask32, NodePath, Point3, TransformState, Vec3

from physics.model.stepping import SimulationSpec

SubstepHook = Callable[[float], None]


@dataclass(frozen=True)
class RayHit:
    """The closest hit of a ray query, in world space."""

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
"""A ray mask that meets every body."""


class PhysicsWorld:
    """Owns the Bullet world; advances it one fixed step at a time."""

    def __init__(self, spec: SimulationSpec):
        self.spec = spec
        self.step_s = spec.step_s
        self.substep_s = spec.step_s / spec.substeps
        self.bullet = BulletWorld()
        self.bullet.setGravity(Vec3(0.0, 0.0, -spec.gravity_m_s2))
        self.root = NodePath("physics")
        self.handles = HandleMap()
        self.step_count = 0
        self._substep_hooks: list[SubstepHook] = []

    @property
    def time_s(self) -> float:
        return self.step_count / self.spec.step_hz

    def add_substep_hook(self, hook: SubstepHook) -> None:
        """Run ``hook(substep_s)`` before every Bullet substep."""
        self._substep_hooks.append(hook)

    def remove_substep_hook(self, hook: SubstepHook) -> None:
        self._substep_hooks.remove(hook)

    def add_body(self, body: BulletRigidBodyNode, owner: Any = None) -> NodePath:
        """Attach a body to the world (and to the handle map when it has an owner)."""
        path = self.root.attachNewNode(body)
        self.bullet.attachRigidBody(body)
        if owner is not None:
            self.handles.register(body, owner)
        return path

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
        self.bullet.removeRigidBody(body)
        path.removeNode()

    def step(self) -> None:
        """Advance one fixed step."""
        for _ in range(self.spec.substeps):
            for hook in self._substep_hooks:
                hook(self.substep_s)
            self.bullet.doPhysics(self.substep_s, 0)
        # Bullet's transform sync makes a new TransformState per moving body; Panda's state
        # cache frees unused ones only when collected, which rendering does and a headless
        # run never would (the cache, and memory, would grow without end).
        TransformState.garbageCollect()
        self.step_count += 1

    def ray_closest(self, from_ws, to_ws, exclude=None, mask: BitMask32 = ALL_BODIES
                    ) -> RayHit | None:
        """The closest hit between two world points on bodies whose collide mask shares a
        bit with ``mask``, ignoring the ``exclude`` node."""
        start, end = Point3(*from_ws), Point3(*to_ws)
        if exclude is None:
            result = self.bullet.rayTestClosest(start, end, mask)
            hits = [result] if result.hasHit() else []
        else:
            hits = sorted((hit for hit in self.bullet.rayTestAll(start, end, mask).getHits()
                           if hit.getNode() != exclude), key=lambda hit: hit.getHitFraction())
        if not hits:
            return None
        hit = hits[0]
        return RayHit(np.array(hit.getHitPos()), np.array(hit.getHitNormal()),
                      hit.getHitFraction(), hit.getNode())

    def destroy(self) -> None:
        for body in list(self.bullet.getRigidBodies()):
            self.bullet.removeRigidBody(body)
        self._substep_hooks.clear()
        self.root.removeNode()
