"""Which hulls stay clear of the terrain for a while, so that Bullet can skip testing
their boxes against the heightfield.

A hull riding on its anchors does not touch the ground, yet Bullet pairs every body with
the heightfield (whose bounds span the map) and tests each hull against the triangles
under its bounds every substep: for 100 tanks on the dunes that was 1.3 ms of a 2.85 ms
step, and 0.1 ms of the 8-tank battle's 1 ms. The fleet leaves a hull out of that pair
while this test shows it clear, and puts it back as soon as the test does not: a tank
that rolls over still lands on its hull.

The test only ever errs toward keeping the pair. A box lies on one side of each of its
faces' planes; take the floor's (the roof's when upside down: the one facing down). The
collider is flat within each triangle, so when every height sample of the triangles that
may come under the box (its outline seen from above, grown by how far it may go sideways
and by a cell's diagonal) lies beyond that plane by more than the plane may come toward
it, no part of the terrain can meet the box in that time. (Any face would be sound; the
floor is the one a hull on its anchors keeps clear of the ground.)
"""

from __future__ import annotations

import math

import numpy as np

from physics.hull import HullSpec
from physics.terrain import Terrain
from physics.vehicle_model import BodyStates

CONTACT_SLACK_M = 0.1
"""Clearance kept beyond the plane's movement: more than Bullet's own contact distances
(0.04 m collision margins on the box and on the heightfield, a 0.02 m contact breaking
threshold). Cost only, not behaviour: more slack keeps pairs a little longer."""

SPEED_ALLOWANCE = 2.0
"""The hull's movement is taken as this many times what its velocity at the test would
carry it (the anchors and gravity change the velocity meanwhile)."""

_LEVEL_NUDGE = 1e-6
"""The outline's rectangle lies along the hull's forward axis seen from above, nudged by
this much of its right axis: a hull standing on its nose still has a direction (any
direction gives a rectangle that holds the outline, so the nudge costs nothing)."""


class HullClearance:
    """The clearance test for the hulls of one vehicle kind over one terrain."""

    def __init__(self, terrain: Terrain, hull: HullSpec):
        self.terrain = terrain
        self._half_extents_m = np.asarray(hull.half_extents_m, dtype=float)
        self._centre_lift_m = hull.centre_of_mass_drop_m
        """The box's centre lies this far up the hull's axis from the centre of mass."""
        self._box_reach_m = float(np.linalg.norm(self._half_extents_m)) + self._centre_lift_m
        """Every point of the box lies within this of the centre of mass."""

    def clear(self, states: BodyStates, within_s: float) -> np.ndarray:
        """Per vehicle (V,): no part of the terrain can come within Bullet's contact
        distance of the hull in the next ``within_s`` seconds."""
        count = len(states.position_ws)
        if count == 0:
            return np.zeros(0, dtype=bool)
        terrain, spacing = self.terrain, self.terrain.spacing_m
        axes, velocity, spin = states.axes_ws, states.velocity_ws, states.angular_velocity_ws
        # The floor's face (the roof's, upside down), and a point on it.
        normal = axes[:, 2] * -np.sign(axes[:, 2, 2])[:, None]
        centre = states.position_ws + self._centre_lift_m * axes[:, 2]
        face = centre + self._half_extents_m[2] * normal
        # The box's outline from above: a rectangle along the heading, grown by the
        # sideways travel and a cell's diagonal (a triangle under the box has all its
        # corners within that).
        stretch_s = SPEED_ALLOWANCE * within_s
        level = axes[:, 1, :2] + _LEVEL_NUDGE * axes[:, 0, :2]
        heading = level / np.hypot(level[:, 0], level[:, 1])[:, None]
        across = heading[:, ::-1] * (1.0, -1.0)
        grow_m = (np.hypot(velocity[:, 0], velocity[:, 1]) * stretch_s
                  + spacing * math.sqrt(2.0))
        extent_along = (np.abs(np.einsum("vai,vi->va", axes[:, :, :2], heading))
                        @ self._half_extents_m + grow_m)
        extent_across = (np.abs(np.einsum("vai,vi->va", axes[:, :, :2], across))
                         @ self._half_extents_m + grow_m)
        # The height samples in a square window round each hull, the same size for all.
        half_x = extent_along * np.abs(heading[:, 0]) + extent_across * np.abs(across[:, 0])
        half_y = extent_along * np.abs(heading[:, 1]) + extent_across * np.abs(across[:, 1])
        samples = min(math.ceil(2.0 * float(max(half_x.max(), half_y.max())) / spacing) + 2,
                      terrain.rows, terrain.columns)
        corner = np.where(np.isfinite(centre[:, :2]), centre[:, :2], 0.0)
        corner[:, 0] -= half_x
        corner[:, 1] -= half_y
        first = np.floor((corner + (terrain.half_extent_x_m, terrain.half_extent_y_m))
                         / spacing).astype(np.int64)
        first = np.minimum(np.maximum(first, 0), (terrain.columns - samples,
                                                  terrain.rows - samples))
        steps = np.arange(samples)
        column, row = first[:, 0, None] + steps, first[:, 1, None] + steps  # (V, S) each
        heights = terrain.heights_m.reshape(-1).take(row[:, :, None] * terrain.columns
                                                     + column[:, None, :])
        x = column * spacing - terrain.half_extent_x_m
        y = row * spacing - terrain.half_extent_y_m
        offset_x, offset_y = x - centre[:, 0, None], y - centre[:, 1, None]
        along = (heading[:, 0, None] * offset_x)[:, None, :] \
            + (heading[:, 1, None] * offset_y)[:, :, None]
        side = (across[:, 0, None] * offset_x)[:, None, :] \
            + (across[:, 1, None] * offset_y)[:, :, None]
        under = ((np.abs(along) <= extent_along[:, None, None])
                 & (np.abs(side) <= extent_across[:, None, None]))
        # Each sample's distance outside the face's plane (negative: on the box's side).
        outside = ((normal[:, 2, None] * (heights.reshape(count, -1) - face[:, 2, None]))
                   .reshape(count, samples, samples)
                   + (normal[:, 0, None] * (x - face[:, 0, None]))[:, None, :]
                   + (normal[:, 1, None] * (y - face[:, 1, None]))[:, :, None])
        nearest = np.where(under, outside, np.inf).reshape(count, -1).min(axis=1)
        # How far the plane may come toward the samples: the hull's speed along the
        # normal, and its tilting (spin about the normal turns the plane within itself).
        spin_along = np.einsum("vi,vi->v", spin, normal)
        tilting_rad_s = np.sqrt(np.maximum(np.einsum("vi,vi->v", spin, spin)
                                           - spin_along * spin_along, 0.0))
        lever_m = np.hypot(extent_along, extent_across) + self._box_reach_m
        closing_m = (np.abs(np.einsum("vi,vi->v", velocity, normal))
                     + tilting_rad_s * lever_m) * stretch_s
        return nearest > closing_m + CONTACT_SLACK_M
