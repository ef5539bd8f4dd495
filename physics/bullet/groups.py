"""Collision groups: which kind of body each Bullet body is, which kinds collide, and the
filters the world's queries take. Declared here once; every body and every query takes
its group or filter from here.

Bullet runs Panda's ``groups-mask`` filter: a body's into-collide mask holds the bit of
its group (one bit, so a mask says what the body *is*), and a table of group pairs
(:data:`COLLIDING`, set on each world by :func:`configure`) says which groups collide.
A query's filter is a mask of groups (a ray, a sweep or an overlap meets the bodies
whose group bit is in it), independent of the table. The filter algorithm is read when
a Bullet world is made, so it is set when this module is imported, before any
:class:`~physics.bullet.world.PhysicsWorld` exists; the pair table is one fixed set of
flags, so collisions stay the same run to run.

The hull's pair with the terrain is made only where the hull is near the ground (the
anchors stand on our own height array; Bullet's terrain matters only for hull contact):
a hull clear of the ground is put in :data:`RAISED_HULL`, which collides with all that a
hull does except the terrain. Likewise its pair with the four planes at the map's edges
(whose bounds span everything, so Bullet would test every hull against them every
substep) is made only where the hull is near an edge: :data:`INLAND_HULL` leaves them out,
and :data:`RAISED_INLAND_HULL` both. Queries that look for hulls take all four
(:data:`HULLS`).
"""

from __future__ import annotations

from panda3d.core import BitMask32, loadPrcFileData

loadPrcFileData("physics.bullet.groups", "bullet-filter-algorithm groups-mask")

TERRAIN = 0
"""The heightfield."""
EDGE = 1
"""The four planes at the map's edges."""
HULL = 2
"""Vehicle hulls in Bullet's pair with the terrain (wrecks too: they stay on their anchors)."""
RAISED_HULL = 3
"""Vehicle hulls clear of the ground, left out of the terrain's pairs."""
PROP = 4
"""Wheel-less props: the firing range's plates, crates."""
ROCK = 5
"""The desert's rocks."""
SHELL = 6
"""Shells in flight."""
FRESH_SHELL = 7
"""Shells still within their first metres (the gun's ``firer_pass_m``): they pass through
hulls, so through the tank that fired them; the shell's swept path finds every other
hull they meet (:mod:`physics.bullet.shells`)."""
DEBRIS = 8
"""Loose pieces: they land on things and shells strike them; nothing stands on them."""
TRIGGER = 9
"""Trigger volumes: they notice hulls and stop nothing."""
INLAND_HULL = 10
"""Vehicle hulls near the ground but far from the map's edges, left out of the edges'
pairs."""
RAISED_INLAND_HULL = 11
"""Vehicle hulls clear of the ground and far from the edges: out of both pairs."""

GROUP_NAMES = {TERRAIN: "terrain", EDGE: "edge", HULL: "hull", RAISED_HULL: "raised hull",
               PROP: "prop", ROCK: "rock", SHELL: "shell", FRESH_SHELL: "fresh shell",
               DEBRIS: "debris", TRIGGER: "trigger", INLAND_HULL: "inland hull",
               RAISED_INLAND_HULL: "raised inland hull"}

HULL_GROUPS = (HULL, RAISED_HULL, INLAND_HULL, RAISED_INLAND_HULL)
"""Every group a vehicle hull may be in."""

_SOLID = (*HULL_GROUPS, PROP, ROCK)
"""Bodies that stand in the way of a vehicle."""

COLLIDING: frozenset[frozenset[int]] = frozenset(frozenset(pair) for pair in (
    *((ground, solid) for ground in (TERRAIN, EDGE) for solid in (PROP, ROCK, DEBRIS)),
    (TERRAIN, HULL), (TERRAIN, INLAND_HULL), (EDGE, HULL), (EDGE, RAISED_HULL),
    *((first, second) for first in _SOLID for second in _SOLID),
    *((SHELL, other) for other in (TERRAIN, EDGE, *_SOLID, SHELL, DEBRIS)),
    *((FRESH_SHELL, other) for other in (TERRAIN, EDGE, PROP, ROCK, SHELL, FRESH_SHELL,
                                         DEBRIS)),
    *((DEBRIS, other) for other in (*_SOLID, DEBRIS)),
    *((TRIGGER, hull) for hull in HULL_GROUPS),
))
"""The group pairs whose bodies collide (a one-group pair: bodies of that group meet
each other). Static bodies (terrain, edges, rocks, plates) never meet one another
whatever the table says. Bullet's CCD (the swept sphere that stops a fast shell at a face)
heeds no groups: a group a shell passes through must be one its CCD cannot see, so
shells with CCD on meet every group it could stop them at (the fresh shell flies
without CCD, see :mod:`physics.bullet.shells`)."""


def mask_of(*groups: int) -> BitMask32:
    """The mask of the given groups: a body's (one group) or a query's filter."""
    mask = BitMask32()
    for group in groups:
        mask.setBit(group)
    return mask


def configure(bullet_world) -> None:
    """Set the pair table on a Bullet world (every pair, so nothing is left at Panda's
    default, which lets each group meet itself)."""
    for first in GROUP_NAMES:
        for second in GROUP_NAMES:
            bullet_world.setGroupCollisionFlag(first, second,
                                               frozenset((first, second)) in COLLIDING)


def collide(first: int, second: int) -> bool:
    """Whether bodies of the two groups collide."""
    return frozenset((first, second)) in COLLIDING


HULLS = mask_of(*HULL_GROUPS)
"""Every vehicle hull, whichever pairs it is in."""
ALL_GROUPS = mask_of(*GROUP_NAMES)
"""Every body of every group."""
ANCHOR_GROUND = mask_of(EDGE, *HULL_GROUPS, PROP, ROCK)
"""What an anchor's Bullet ray may stand on: solid bodies, not the terrain (the anchors
cast against our own height array), not shells, debris or triggers."""
SHELL_PATH = mask_of(TERRAIN, EDGE, *HULL_GROUPS, PROP, ROCK, DEBRIS)
"""What a shell's swept path strikes (a shell meeting a shell is Bullet's contact)."""
ARC_BLOCKERS = mask_of(EDGE, *HULL_GROUPS, PROP, ROCK)
"""What a predicted arc may meet besides the terrain (the arc meets the height array)."""
BLAST = HULLS
"""What a blast harms."""
SIGHT_BLOCKERS = mask_of(*HULL_GROUPS, PROP, ROCK)
"""Bodies that may hide one vehicle from another (besides the terrain, tested on our own
height array); the caller says which hulls do (wrecks, not the living)."""


def hull_group(meets_terrain: bool, meets_edges: bool) -> int:
    """The group of a hull that is (or is not) in the terrain's pair and the edges'."""
    if meets_terrain:
        return HULL if meets_edges else INLAND_HULL
    return RAISED_HULL if meets_edges else RAISED_INLAND_HULL
