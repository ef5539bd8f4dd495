"""Which of Bullet's pairs each hull of a fleet is in: with the terrain, with the map's
edges.

Both the heightfield and the four edge planes have bounds that span the map, so Bullet
would test every hull's box against them every substep. A hull riding clear of the
ground (:class:`~physics.model.hull_clearance.HullClearance`) leaves the terrain's pair,
and one far from every edge leaves the edges'; each goes back as soon as its test no
longer holds. A hull's pairs are its collision group
(:func:`physics.bullet.groups.hull_group`).
"""

from __future__ import annotations

import numpy as np
from panda3d.bullet import BulletRigidBodyNode

from physics.bullet import groups
from physics.bullet.world import PhysicsWorld
from physics.model.anchors import BodyStates
from physics.model.hull import HullSpec
from physics.model.hull_clearance import HullClearance, PartBox
from physics.model.terrain import TerrainBase

_MASKS = {(meets_terrain, meets_edges): groups.mask_of(groups.hull_group(meets_terrain,
                                                                       meets_edges))
          for meets_terrain in (False, True) for meets_edges in (False, True)}
"""A hull's mask by whether it is in the terrain's pair and the edges'."""


class HullPairs:
    """The pairs of the hulls of one fleet (rows by vehicle index); a new hull is in both.
    The fleet's vehicles may be of several kinds (tank classes: other hull and turret
    boxes), each tested with its own boxes."""

    def __init__(self, world: PhysicsWorld, terrain: TerrainBase, hull: HullSpec,
                 parts: tuple[PartBox, ...] = ()):
        """Kind 0's boxes: ``hull``, the box round each hull's whole collider; ``parts``,
        boxes round its parts, tested against the ground one by one (default: that box)."""
        self.world = world
        self.clearance = HullClearance(terrain, hull, parts)
        self.kind = np.zeros(0, dtype=np.int64)
        """Per vehicle: its kind (a number :meth:`add_kind` returned, 0 for the first)."""
        self.meets_terrain = np.zeros(0, dtype=bool)
        """Per vehicle: its hull is in Bullet's pair with the terrain."""
        self.meets_edges = np.zeros(0, dtype=bool)
        """Per vehicle: its hull is in Bullet's pair with the map's edges."""

    def add_kind(self, hull: HullSpec, parts: tuple[PartBox, ...] = ()) -> int:
        """Another kind of vehicle, with its boxes (as the first kind's); returns its
        number, for :meth:`add`."""
        return self.clearance.add_kind(hull, parts)

    def add(self, kind: int = 0) -> None:
        """A hull of kind ``kind`` after the others, in both pairs."""
        if not 0 <= kind < self.clearance.kind_count:
            raise ValueError(f"kind must lie in 0..{self.clearance.kind_count - 1}, got {kind}")
        self.kind = np.append(self.kind, np.int64(kind))
        self.meets_terrain = np.append(self.meets_terrain, True)
        self.meets_edges = np.append(self.meets_edges, True)

    def remove(self, index: int) -> None:
        """Forget the hull at ``index``; those after it move down one."""
        self.kind = np.delete(self.kind, index)
        self.meets_terrain = np.delete(self.meets_terrain, index)
        self.meets_edges = np.delete(self.meets_edges, index)

    def update(self, bodies: list[BulletRigidBodyNode], states: BodyStates,
               within_s: float) -> None:
        """Pair each hull for the next ``within_s`` seconds: with the terrain unless it stays
        clear of the ground, with the edges unless it stays far from them."""
        clear, near_edges = self.clearance.test(states, within_s, self.kind)
        self.set(bodies, ~clear, near_edges)

    def set(self, bodies: list[BulletRigidBodyNode], meets_terrain: np.ndarray,
            meets_edges: np.ndarray) -> None:
        """Put each hull in the pairs marked, moving only those whose pairs change."""
        changed = (meets_terrain != self.meets_terrain) | (meets_edges != self.meets_edges)
        for index in changed.nonzero()[0].tolist():
            self.world.set_collide_mask(bodies[index], _MASKS[bool(meets_terrain[index]),
                                                              bool(meets_edges[index])])
        self.meets_terrain, self.meets_edges = meets_terrain, meets_edges
