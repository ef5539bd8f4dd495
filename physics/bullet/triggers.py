"""Trigger volumes: Bullet ghost objects that say which bodies came in and which went out.

A ghost pushes nothing and is pushed by nothing; Bullet keeps the bodies whose bounds
overlap it. After each world step :meth:`TriggerVolume.update` reads them, maps each to
its owner through the world's handle map (as a shell's contacts are), keeps those the
caller's test admits (a vehicle whose centre is inside, say: the bounds are a broad
first cut), and compares them with the step before: who entered and who left, each in
the order of the owners' keys, so the same game gives the same events.
"""

from __future__ import annotations

from typing import Any, Callable

from panda3d.bullet import BulletCylinderShape, BulletGhostNode, ZUp
from panda3d.core import BitMask32, NodePath, Point3, TransformState

from physics.bullet import groups
from physics.bullet.world import PhysicsWorld

Admit = Callable[[Any], bool]
"""Whether an owner found in the volume's bounds counts as inside it."""
Key = Callable[[Any], str]
"""An owner's key (a vehicle's name): unique among the owners, and the order their comings
and goings are told in."""


class TriggerVolume:
    """An upright cylinder of ``radius_m`` and ``height_m`` centred at ``centre_ws``,
    reporting the owners ``admit`` accepts (``key`` orders them) as they enter and leave.
    ``mask``: its collision group (:mod:`physics.bullet.groups`: the trigger group meets
    the hulls only)."""

    def __init__(self, world: PhysicsWorld, name: str, centre_ws, radius_m: float,
                 height_m: float, admit: Admit, key: Key,
                 mask: BitMask32 = groups.mask_of(groups.TRIGGER), owner: Any = None):
        self.world = world
        self.admit = admit
        self.key = key
        self.ghost = BulletGhostNode(name)
        self.ghost.add_shape(BulletCylinderShape(radius_m, height_m, ZUp))
        self.ghost.set_transform(TransformState.make_pos(Point3(*map(float, centre_ws))))
        self.ghost.set_into_collide_mask(mask)
        self.path = NodePath(self.ghost)
        world.bullet.attach(self.ghost)
        world.handles.register(self.ghost, owner if owner is not None else self)
        self.inside: list = []
        """The owners inside after the last update, in key order."""

    def update(self) -> tuple[list, list]:
        """Who is inside now: the owners that entered and those that left since the last
        update, each in key order."""
        found = {}
        for node in self.ghost.get_overlapping_nodes():
            owner = self.world.handles.owner_of(node)
            if owner is not None and owner is not self and self.admit(owner):
                found[self.key(owner)] = owner
        before = {self.key(owner): owner for owner in self.inside}
        entered = [found[key] for key in sorted(found.keys() - before.keys())]
        left = [before[key] for key in sorted(before.keys() - found.keys())]
        self.inside = [found[key] for key in sorted(found)]
        return entered, left

    def clear(self) -> list:
        """Forget who was inside (a round restarts with everybody back at their spawn);
        returns them, in key order, as having left."""
        left, self.inside = self.inside, []
        return left

    def destroy(self) -> None:
        self.world.handles.unregister(self.ghost)
        self.world.bullet.remove(self.ghost)
        self.path.remove_node()
