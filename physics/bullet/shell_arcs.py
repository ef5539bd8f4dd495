"""Where a shell fired now would land: on the terrain, where its arc meets the height
array (:func:`physics.model.ballistics.arc_meets_terrain`), or on the first body its arc
meets before that, found by rays along chords of the arc. The crosshair's predicted impact
and the bots' judging of a shot both ask it."""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from physics.bullet import groups
from physics.bullet.world import PhysicsWorld
from physics.model.ballistics import arc_meets_terrain, arc_points
from physics.model.flight import Flight
from physics.model.terrain import TerrainBase


def predicted_impact(world: PhysicsWorld, terrain: TerrainBase, muzzle_ws, velocity_ws,
                     flight: Flight, exclude, max_time_s: float, radius_m: float,
                     make_tiles: bool = True,
                     before_rays: Callable[[np.ndarray], object] | None = None
                     ) -> np.ndarray | None:
    """Where a shell of ``radius_m`` fired now on ``flight`` would land within
    ``max_time_s``: on the terrain (where its surface meets it), or on the first body
    (``exclude`` aside) its arc meets before that, looked for along chords that stray at
    most its radius from its path (``make_tiles``: see
    :func:`~physics.model.ballistics.arc_meets_terrain`). ``before_rays`` is given the
    chords' ends, (C + 1, 3), before they are cast (to bring bodies up to date near them)."""
    velocity = np.asarray(velocity_ws, dtype=float)
    ground_s, ground_ws = arc_meets_terrain(terrain, np.asarray(muzzle_ws, dtype=float),
                                             velocity, flight, max_time_s, make_tiles,
                                             radius_m)
    hit_ws = _arc_meets_body(world, np.asarray(muzzle_ws, dtype=float), velocity,
                             flight, exclude, ground_s, radius_m, before_rays)
    return hit_ws if hit_ws is not None else ground_ws


def _arc_meets_body(world: PhysicsWorld, muzzle_ws, velocity_ws, flight: Flight,
                    exclude, until_s: float, tolerance_m: float,
                    before_rays: Callable[[np.ndarray], object] | None = None
                    ) -> np.ndarray | None:
    """Where the arc first meets a body other than the terrain before ``until_s``: rays
    along chords that stray at most ``tolerance_m`` from it.

    Over a time t a chord of the arc sags at most g t^2 / 8 below it at its middle (drag
    works along the path and does not bend it), so chords of t = sqrt(8 tolerance / g) are
    the longest that keep within the tolerance: a few rays for a whole flight.
    """
    chords = 1
    gravity_m_s2 = flight.gravity_m_s2
    if gravity_m_s2 > 0.0:
        chords = max(1, math.ceil(until_s / math.sqrt(8.0 * tolerance_m / gravity_m_s2)))
    ends = arc_points(muzzle_ws, velocity_ws, flight,
                       np.arange(chords + 1) * (until_s / chords))
    if before_rays is not None:
        before_rays(ends)
    for start, end in zip(ends[:-1], ends[1:]):
        hit = world.ray_closest(start, end, exclude=exclude, mask=groups.ARC_BLOCKERS)
        if hit is not None:
            return hit.position_ws
    return None
