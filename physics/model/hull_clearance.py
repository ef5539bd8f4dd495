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
box's outline seen from above holds the whole box, so only the ground under that outline
(grown by how far the hull may go sideways) can meet it. The collider is flat within each
triangle, so a point's distance beyond the plane is linear over a triangle, and over the
part of a triangle inside the outline it is least at a corner of that part: clipping each
triangle to the outline gives the nearest the ground comes. When that lies beyond the
plane by more than the plane may come toward it, no part of the terrain can meet the box
in that time. (Any face would be sound; the floor is the one a hull on its anchors keeps
clear of the ground.) Most triangles lie beyond that margin at all three corners and are
never clipped.

"Meet" is as Bullet's solver sees it. Bullet reports contact points out to its breaking
threshold beyond the shapes (about 0.08 m for a tank), but a point still apart pushes only
where the bodies close their gap within the substep (its speculative contact: the impulse
is the part of the closing speed beyond gap over substep, and never pulls). A hull that
cannot come within the margin of the ground in the whole step cannot close any gap within
a substep of it, so its pair would only ever carry points that push nothing, and it is left
out. A tank parked with its floor a hand's breadth over a dune's crest then costs Bullet
nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from common.compiled import compiled
from physics.model.anchors import BodyStates
from physics.model.hull import HullSpec
from physics.model.terrain_base import MISSING_HEIGHT_M, TerrainBase, sample_height

BULLET_BOX_MARGIN_M = 0.04
"""Bullet's collision margin round a box (its default for convex shapes): Bullet's
shapes touch this far outside the box's faces."""

CONTACT_SLACK_M = 0.02
"""Clearance kept beyond the margin and the plane's movement, for the collider's
single-precision arithmetic. Cost only, not behaviour: more slack keeps pairs a little
longer."""

CONTACT_M = BULLET_BOX_MARGIN_M + CONTACT_SLACK_M
"""How near the ground may come to a box's face before the hull is kept in the pair: where
a contact could push (the module's doc), and the slack."""

SPEED_ALLOWANCE = 2.0
"""The hull's movement is taken as this many times what its velocity at the test would
carry it (the anchors and gravity change the velocity meanwhile)."""

_LEVEL_NUDGE = 1e-6
"""The outline's rectangle lies along the hull's forward axis seen from above, nudged by
this much of its right axis: a hull standing on its nose still has a direction (any
direction gives a rectangle that holds the outline, so the nudge costs nothing)."""


_UNKNOWN_KIND = "a vehicle's kind is not one of the clearance test's kinds"
"""What the compiled loop says of a kind it has no boxes for."""


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


def _clipped_nearest(corners, count, extent_along, extent_across, scratch):
    """The least distance beyond the plane over the part of one triangle inside the
    outline: ``corners`` (rows of along, across, distance; ``count`` of them) clipped to
    |along| <= ``extent_along`` and |across| <= ``extent_across`` one edge of the outline
    at a time (the distance is linear along each side, so a cut point's is interpolated);
    +inf when no part is inside. ``scratch`` holds as many rows as ``corners``."""
    polygon, spare = corners, scratch
    for side in range(4):
        axis = side // 2
        sign = 1.0 if side % 2 == 0 else -1.0
        limit = extent_along if axis == 0 else extent_across
        kept = 0
        for corner in range(count):
            following = corner + 1 if corner + 1 < count else 0
            inside_m = limit - sign * polygon[corner, axis]
            next_inside_m = limit - sign * polygon[following, axis]
            if inside_m >= 0.0:
                spare[kept, 0] = polygon[corner, 0]
                spare[kept, 1] = polygon[corner, 1]
                spare[kept, 2] = polygon[corner, 2]
                kept += 1
            if (inside_m >= 0.0) != (next_inside_m >= 0.0):
                share = inside_m / (inside_m - next_inside_m)
                for column in range(3):
                    spare[kept, column] = polygon[corner, column] + share * (
                        polygon[following, column] - polygon[corner, column])
                kept += 1
        polygon, spare, count = spare, polygon, kept
        if count == 0:
            return np.inf
    nearest_m = np.inf
    for corner in range(count):
        nearest_m = min(nearest_m, polygon[corner, 2])
    return nearest_m


def _ground_clear(samples, margin_m, extent_along, extent_across, corners, scratch):
    """Whether the ground under the outline lies more than ``margin_m`` beyond the plane:
    ``samples`` (rows, columns, 3) holds each sample's along, across and distance beyond
    the plane. Each cell's two triangles split along the diagonal from (column + 1, row)
    to (column, row + 1), as the collider's do."""
    for row in range(samples.shape[0] - 1):
        for column in range(samples.shape[1] - 1):
            for triangle in range(2):
                if triangle == 0:
                    a_row, a_column, b_row, b_column = row, column, row, column + 1
                else:
                    a_row, a_column, b_row, b_column = row, column + 1, row + 1, column + 1
                c_row, c_column = row + 1, column
                if (samples[a_row, a_column, 2] > margin_m
                        and samples[b_row, b_column, 2] > margin_m
                        and samples[c_row, c_column, 2] > margin_m):
                    continue  # beyond at every corner: beyond everywhere on it
                for column_index in range(3):
                    corners[0, column_index] = samples[a_row, a_column, column_index]
                    corners[1, column_index] = samples[b_row, b_column, column_index]
                    corners[2, column_index] = samples[c_row, c_column, column_index]
                if _clipped_nearest(corners, 3, extent_along, extent_across,
                                    scratch) <= margin_m:
                    return False
    return True


def _window_samples(heights, directory, lookup, first_column, first_row, columns, rows,
                    frame, plane, margin_m):
    """The samples of a window of the map: each one's place along and across the outline
    (``frame``: its centre x, y, heading x, y and right x, y) and its distance beyond the
    floor's plane (``plane``: normal x, y, z and a point's x, y, z), rows (rows, columns,
    3); whether every one lies beyond ``margin_m``; whether any tile is not made."""
    map_half_x_m, map_half_y_m, spacing_m = lookup[0], lookup[1], lookup[2]
    centre_x, centre_y, heading_x, heading_y, across_x, across_y = frame
    normal_x, normal_y, normal_z, face_x, face_y, face_z = plane
    samples = np.empty((rows, columns, 3))
    all_beyond, missing = True, False
    for row in range(rows):
        y = (first_row + row) * spacing_m - map_half_y_m
        for column in range(columns):
            x = (first_column + column) * spacing_m - map_half_x_m
            height = sample_height(heights, directory, lookup, first_column + column,
                                   first_row + row)
            missing = missing or height == MISSING_HEIGHT_M
            offset_x, offset_y = x - centre_x, y - centre_y
            beyond_m = (normal_z * (height - face_z)
                        + normal_x * (x - face_x) + normal_y * (y - face_y))
            samples[row, column, 0] = heading_x * offset_x + heading_y * offset_y
            samples[row, column, 1] = across_x * offset_x + across_y * offset_y
            samples[row, column, 2] = beyond_m
            all_beyond = all_beyond and beyond_m > margin_m
    return samples, all_beyond, missing


def _hull_clear(position, axes, velocity, spin, hull, half_extents, centre_lift_m,
                box_reach_m, contact_m, stretch_s, heights, directory, lookup, corners,
                scratch):
    """The test above for one hull (a hull over a tile not made is not clear)."""
    map_half_x_m, map_half_y_m, spacing_m = lookup[0], lookup[1], lookup[2]
    up_x, up_y, up_z = axes[hull, 2, 0], axes[hull, 2, 1], axes[hull, 2, 2]
    # The floor's face (the roof's, upside down): outward normal and a point on it.
    flip = -1.0 if up_z > 0.0 else (1.0 if up_z < 0.0 else 0.0)
    normal_x, normal_y, normal_z = flip * up_x, flip * up_y, flip * up_z
    centre_x = position[hull, 0] + centre_lift_m * up_x
    centre_y = position[hull, 1] + centre_lift_m * up_y
    centre_z = position[hull, 2] + centre_lift_m * up_z
    plane = (normal_x, normal_y, normal_z, centre_x + half_extents[2] * normal_x,
             centre_y + half_extents[2] * normal_y, centre_z + half_extents[2] * normal_z)
    grow_m = np.hypot(velocity[hull, 0], velocity[hull, 1]) * stretch_s  # sideways travel
    (heading_x, heading_y, across_x, across_y, extent_along, extent_across, window_x,
     window_y) = _outline(axes, hull, half_extents, grow_m)
    if not (np.isfinite(centre_x) and np.isfinite(centre_y) and np.isfinite(window_x)
            and np.isfinite(window_y)):
        return False
    first_column = max(int(np.floor((centre_x - window_x + map_half_x_m) / spacing_m)), 0)
    last_column = min(int(np.ceil((centre_x + window_x + map_half_x_m) / spacing_m)),
                      int(lookup[3]))
    first_row = max(int(np.floor((centre_y - window_y + map_half_y_m) / spacing_m)), 0)
    last_row = min(int(np.ceil((centre_y + window_y + map_half_y_m) / spacing_m)),
                   int(lookup[4]))
    if last_column - first_column < 1 or last_row - first_row < 1:
        return True  # off the map: no ground under it
    lever_m = np.hypot(extent_along, extent_across) + box_reach_m
    margin_m = _closing_m(velocity, spin, hull, normal_x, normal_y, normal_z, lever_m,
                          stretch_s) + contact_m
    samples, all_beyond, missing = _window_samples(
        heights, directory, lookup, first_column, first_row, last_column - first_column + 1,
        last_row - first_row + 1, (centre_x, centre_y, heading_x, heading_y, across_x,
                                   across_y), plane, margin_m)
    if missing:
        return False
    return all_beyond or _ground_clear(samples, margin_m, extent_along, extent_across,
                                       corners, scratch)


def _clear_hulls(position, axes, velocity, spin, kind, half_extents, centre_lift_m,
                 part_reach_m, part_count, box_reach_m, contact_m, within_s, heights, directory,
                 lookup, clear, near_edges):
    """Per hull, into ``clear``: the test above for each of its kind's part boxes (kind
    ``kind[hull]``: the first ``part_count[kind]`` rows of ``half_extents[kind]``,
    ``centre_lift_m[kind]`` and ``part_reach_m[kind]``), over the height samples round it
    (the terrain's :class:`~physics.model.terrain.TerrainTables`): clear where every part
    is (a part found near the ground spares the others' tests); and into ``near_edges``:
    whether it may come within its kind's ``contact_m`` of one of the map's edges (every
    point of it within its kind's ``box_reach_m`` of its centre of mass, and the way it may
    go; not finite: near). Raises ValueError for a kind it has no row for (before reading
    past its rows)."""
    stretch_s = SPEED_ALLOWANCE * within_s
    corners, scratch = np.empty((8, 3)), np.empty((8, 3))
    for hull in range(position.shape[0]):
        hull_kind = kind[hull]
        if hull_kind < 0 or hull_kind >= part_count.shape[0]:
            raise ValueError(_UNKNOWN_KIND)
        speed_mps = np.sqrt(velocity[hull, 0] * velocity[hull, 0]
                            + velocity[hull, 1] * velocity[hull, 1]
                            + velocity[hull, 2] * velocity[hull, 2])
        edge_reach_m = box_reach_m[hull_kind] + contact_m[hull_kind] + speed_mps * stretch_s
        near_edges[hull] = not (abs(position[hull, 0]) + edge_reach_m < lookup[0]
                                and abs(position[hull, 1]) + edge_reach_m < lookup[1])
        clear[hull] = True
        for part in range(part_count[hull_kind]):
            if not _hull_clear(position, axes, velocity, spin, hull,
                               half_extents[hull_kind, part], centre_lift_m[hull_kind, part],
                               part_reach_m[hull_kind, part], contact_m[hull_kind], stretch_s,
                               heights, directory, lookup, corners, scratch):
                clear[hull] = False
                break


_outline = compiled(_outline, inline=True)
_closing_m = compiled(_closing_m, inline=True)
_clipped_nearest = compiled(_clipped_nearest)
_ground_clear = compiled(_ground_clear)
_window_samples = compiled(_window_samples, inline=True)
_hull_clear = compiled(_hull_clear, inline=True)
_clear_hulls = compiled(_clear_hulls)


@dataclass(frozen=True)
class PartBox:
    """A box round part of a vehicle's collider, square to its body's axes and centred on
    its vertical axis: its half extents, and how far up that axis from the centre of mass
    its centre stands."""

    half_extents_m: tuple[float, ...]
    centre_lift_m: float

    @staticmethod
    def of_hull(hull: HullSpec) -> PartBox:
        """The hull's box."""
        return PartBox(hull.half_extents_m, hull.centre_of_mass_drop_m)


class HullClearance:
    """The clearance test for the hulls of one or more vehicle kinds over one terrain
    (compiled: without numba no hull is ever called clear, and Bullet tests them all as
    before). Kind 0 is the one it is made with; :meth:`add_kind` adds more, and one call of
    :meth:`test` takes vehicles of any kinds in any order.

    A kind's ``hull`` is the box round the vehicle's whole collider: the reach to the map's
    edges follows from it. Its ``parts`` (default: that box alone) are boxes that between them
    hold the collider, each tested on its own floor: a tank's hull, and above it the turret
    at any heading, whose floor stands a turret ring's height above the hull's and which one
    box round both would test as low as the hull's. The collider is clear where every part
    is."""

    def __init__(self, terrain: TerrainBase, hull: HullSpec, parts: tuple[PartBox, ...] = ()):
        self.terrain = terrain
        self._kind_boxes: list[tuple[PartBox, ...]] = []
        """Each kind's part boxes, in the order the kinds were added."""
        self._kind_box_reach_m: list[float] = []
        self.add_kind(hull, parts)

    @property
    def kind_count(self) -> int:
        """How many vehicle kinds it tests (kinds are numbered from 0)."""
        return len(self._kind_boxes)

    def add_kind(self, hull: HullSpec, parts: tuple[PartBox, ...] = ()) -> int:
        """Test vehicles of another kind too: ``hull`` the box round its whole collider,
        ``parts`` the boxes round its parts (default: that box). Returns the kind's number
        (what :meth:`test` takes per vehicle)."""
        half_extents_m = np.asarray(hull.half_extents_m, dtype=float)
        # Every point of the collider lies within this of the centre of mass.
        self._kind_box_reach_m.append(float(np.linalg.norm(half_extents_m))
                                      + hull.centre_of_mass_drop_m)
        self._kind_boxes.append(tuple(parts) or (PartBox.of_hull(hull),))
        self._stack_kinds()
        return self.kind_count - 1

    def _stack_kinds(self) -> None:
        """The kinds' boxes as the compiled loop reads them: one row per kind, each kind's
        part boxes first in it (the rows past a kind's count are never read: zeros)."""
        kind_count = self.kind_count
        most_parts = max(len(boxes) for boxes in self._kind_boxes)
        self._box_reach_m = np.array(self._kind_box_reach_m, dtype=float)
        """Per kind (K,): every point of its collider lies within this of the centre of
        mass."""
        self.contact_m = np.full(kind_count, CONTACT_M)
        """Per kind (K,): how near the ground may come to a box's face before the hull is
        kept in the pair (:data:`CONTACT_M`)."""
        self._part_counts = np.array([len(boxes) for boxes in self._kind_boxes],
                                     dtype=np.int64)
        """How many part boxes each kind has (K,)."""
        self._part_half_extents_m = np.zeros((kind_count, most_parts, 3))
        """Each kind's part boxes' half extents (K, most parts, 3)."""
        self._part_lifts_m = np.zeros((kind_count, most_parts))
        """How far up the hull's axis from the centre of mass each kind's part boxes'
        centres stand (K, most parts)."""
        self._part_reach_m = np.zeros((kind_count, most_parts))
        """How far from the centre of mass each kind's part boxes' points reach (K, most
        parts)."""
        for kind, boxes in enumerate(self._kind_boxes):
            half_extents = np.array([box.half_extents_m for box in boxes], dtype=float)
            lifts_m = np.array([box.centre_lift_m for box in boxes], dtype=float)
            self._part_half_extents_m[kind, :len(boxes)] = half_extents
            self._part_lifts_m[kind, :len(boxes)] = lifts_m
            self._part_reach_m[kind, :len(boxes)] = np.linalg.norm(half_extents, axis=1) \
                + lifts_m

    def test(self, states: BodyStates, within_s: float,
             kind: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Per vehicle (V,), each of kind ``kind`` (V,) (None: all of kind 0): whether no
        part of the terrain can come within :data:`CONTACT_M` of the hull in the
        next ``within_s`` seconds (clear); and whether one of the map's edges may (near the
        edges)."""
        count = len(states.position_ws)
        kinds = self._checked_kinds(kind, count)
        if _clear_hulls is None or not count:
            return np.zeros(count, dtype=bool), np.ones(count, dtype=bool)
        clear, near_edges = np.empty(count, dtype=bool), np.empty(count, dtype=bool)
        tables = self.terrain.tables
        _clear_hulls(states.position_ws, states.axes_ws, states.velocity_ws,
                     states.angular_velocity_ws, kinds, self._part_half_extents_m,
                     self._part_lifts_m, self._part_reach_m, self._part_counts,
                     self._box_reach_m, self.contact_m, within_s, tables.heights,
                     tables.directory, tables.lookup, clear, near_edges)
        return clear, near_edges

    def clear(self, states: BodyStates, within_s: float,
              kind: np.ndarray | None = None) -> np.ndarray:
        """Per vehicle (V,), each of kind ``kind`` (V,) (None: all of kind 0): no part of
        the terrain can come within :data:`CONTACT_M` of the hull in the next
        ``within_s`` seconds."""
        return self.test(states, within_s, kind)[0]

    def _checked_kinds(self, kind: np.ndarray | None, count: int) -> np.ndarray:
        """``kind`` as the compiled loop reads it (int64, kind 0 for all where None), after
        checking that it has one kind for each of ``count`` vehicles; whether each names a
        kind this test has, the compiled loop checks as it goes (a check here costs more
        than the test of a few hulls), and this where there is no compiled loop."""
        if kind is None:
            return np.zeros(count, dtype=np.int64)
        kinds = np.asarray(kind, dtype=np.int64)
        if kinds.shape != (count,):
            raise ValueError(f"expected a kind per vehicle, shape ({count},), got shape "
                             f"{kinds.shape}")
        if _clear_hulls is None and count and (kinds.min() < 0
                                               or kinds.max() >= self.kind_count):
            raise ValueError(_UNKNOWN_KIND)
        return kinds
