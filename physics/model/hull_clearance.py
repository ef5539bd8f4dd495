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

from physics.model.anchors import BodyStates
from physics.model.compiled import compiled
from physics.model.hull import HullSpec
from physics.model.terrain_base import MISSING_HEIGHT_M, TerrainBase, sample_height

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


def _outline(axes, hull, half_extents, grow_m):
    """The hull's outline from above: a rectangle along its heading, grown by ``grow_m``.
    Returns the heading and its right (x, y), the rectangle's half extents along and
    across, and the half extents in x and y of the window of samples round it."""
    level_x = axes[hull, 1, 0] + _LEVEL_NUDGE * axes[hull, 0, 0]
    level_y = axes[hull, 1, 1] + _LEVEL_NUDGE * axes[hull, 0, 1]
    level = np.hypot(level_x, level_y)
    heading_x, heading_y = level_x / level, level_y / level
    across_x, across_y = heading_y, -heading_x
    extent_along, extent_across = grow_m, grow_m
    for axis in range(3):
        extent_along += half_extents[axis] * abs(axes[hull, axis, 0] * heading_x
                                                  + axes[hull, axis, 1] * heading_y)
        extent_across += half_extents[axis] * abs(axes[hull, axis, 0] * across_x
                                                   + axes[hull, axis, 1] * across_y)
    window_x = extent_along * abs(heading_x) + extent_across * abs(across_x)
    window_y = extent_along * abs(heading_y) + extent_across * abs(across_y)
    return heading_x, heading_y, across_x, across_y, extent_along, extent_across, window_x, \
        window_y


def _closing_m(velocity, spin, hull, normal_x, normal_y, normal_z, lever_m, stretch_s):
    """How far the face's plane may come toward the samples: the hull's speed along the
    normal, and its tilting (spin about the normal turns the plane within itself)."""
    spin_x, spin_y, spin_z = spin[hull, 0], spin[hull, 1], spin[hull, 2]
    spin_along = spin_x * normal_x + spin_y * normal_y + spin_z * normal_z
    tilting_rad_s = np.sqrt(max(spin_x * spin_x + spin_y * spin_y + spin_z * spin_z
                                - spin_along * spin_along, 0.0))
    speed_along = abs(velocity[hull, 0] * normal_x + velocity[hull, 1] * normal_y
                      + velocity[hull, 2] * normal_z)
    return (speed_along + tilting_rad_s * lever_m) * stretch_s


def _clear_hulls(position, axes, velocity, spin, half_extents, centre_lift_m, box_reach_m,
                 within_s, heights, directory, lookup, clear):
    """Per hull, into ``clear``: the test above, a loop over the height samples round it
    (the terrain's :class:`~physics.model.terrain.TerrainTables`; a hull over a tile not
    made is not clear)."""
    map_half_x_m, map_half_y_m, spacing_m = lookup[0], lookup[1], lookup[2]
    columns, rows = int(lookup[3]) + 1, int(lookup[4]) + 1
    stretch_s = SPEED_ALLOWANCE * within_s
    for hull in range(position.shape[0]):
        up_x, up_y, up_z = axes[hull, 2, 0], axes[hull, 2, 1], axes[hull, 2, 2]
        # The floor's face (the roof's, upside down): outward normal and a point on it.
        flip = -1.0 if up_z > 0.0 else (1.0 if up_z < 0.0 else 0.0)
        normal_x, normal_y, normal_z = flip * up_x, flip * up_y, flip * up_z
        centre_x = position[hull, 0] + centre_lift_m * up_x
        centre_y = position[hull, 1] + centre_lift_m * up_y
        centre_z = position[hull, 2] + centre_lift_m * up_z
        face_x = centre_x + half_extents[2] * normal_x
        face_y = centre_y + half_extents[2] * normal_y
        face_z = centre_z + half_extents[2] * normal_z
        # The outline grows by the sideways travel and a cell's diagonal (a triangle under
        # the box has its corners within).
        grow_m = (np.hypot(velocity[hull, 0], velocity[hull, 1]) * stretch_s
                  + spacing_m * math.sqrt(2.0))
        (heading_x, heading_y, across_x, across_y, extent_along, extent_across, window_x,
         window_y) = _outline(axes, hull, half_extents, grow_m)
        if not (np.isfinite(centre_x) and np.isfinite(centre_y) and np.isfinite(window_x)
                and np.isfinite(window_y)):
            clear[hull] = False
            continue
        first_column = max(int(np.floor((centre_x - window_x + map_half_x_m) / spacing_m)), 0)
        last_column = min(int(np.ceil((centre_x + window_x + map_half_x_m) / spacing_m)),
                          columns - 1)
        first_row = max(int(np.floor((centre_y - window_y + map_half_y_m) / spacing_m)), 0)
        last_row = min(int(np.ceil((centre_y + window_y + map_half_y_m) / spacing_m)), rows - 1)
        # The nearest sample under the outline, by its distance outside the face's plane.
        nearest_m = np.inf
        for row in range(first_row, last_row + 1):
            y = row * spacing_m - map_half_y_m
            for column in range(first_column, last_column + 1):
                x = column * spacing_m - map_half_x_m
                offset_x, offset_y = x - centre_x, y - centre_y
                if (abs(heading_x * offset_x + heading_y * offset_y) <= extent_along
                        and abs(across_x * offset_x + across_y * offset_y) <= extent_across):
                    height = sample_height(heights, directory, lookup, column, row)
                    if height == MISSING_HEIGHT_M:
                        nearest_m = -np.inf
                    outside_m = (normal_z * (height - face_z)
                                 + normal_x * (x - face_x) + normal_y * (y - face_y))
                    nearest_m = min(nearest_m, outside_m)
        lever_m = np.hypot(extent_along, extent_across) + box_reach_m
        clear[hull] = nearest_m > _closing_m(velocity, spin, hull, normal_x, normal_y,
                                             normal_z, lever_m, stretch_s) + CONTACT_SLACK_M


_outline = compiled(_outline, inline=True)
_closing_m = compiled(_closing_m, inline=True)
_clear_hulls = compiled(_clear_hulls)


class HullClearance:
    """The clearance test for the hulls of one vehicle kind over one terrain (compiled:
    without numba no hull is ever called clear, and Bullet tests them all as before)."""

    def __init__(self, terrain: TerrainBase, hull: HullSpec):
        self.terrain = terrain
        self._half_extents_m = np.asarray(hull.half_extents_m, dtype=float)
        self._centre_lift_m = hull.centre_of_mass_drop_m
        """The box's centre lies this far up the hull's axis from the centre of mass."""
        self._box_reach_m = float(np.linalg.norm(self._half_extents_m)) + self._centre_lift_m
        """Every point of the box lies within this of the centre of mass."""

    def clear(self, states: BodyStates, within_s: float) -> np.ndarray:
        """Per vehicle (V,): no part of the terrain can come within Bullet's contact
        distance of the hull in the next ``within_s`` seconds."""
        clear = np.zeros(len(states.position_ws), dtype=bool)
        if _clear_hulls is None or not len(clear):
            return clear
        tables = self.terrain.tables
        _clear_hulls(states.position_ws, states.axes_ws, states.velocity_ws,
                     states.angular_velocity_ws, self._half_extents_m, self._centre_lift_m,
                     self._box_reach_m, within_s, tables.heights, tables.directory,
                     tables.lookup, clear)
        return clear
