"""Which anchors' rays could meet a body besides the terrain, and so are cast through Bullet.

Each body stands for a sphere; a sphere may stand for an oriented box inside it (a hull's,
:class:`Boxes`): a ray near that sphere counts only where it also passes through the box,
as a long hull's sphere reaches far beside it.

Against many spheres (:func:`segments_near_spheres`) the spheres' centres are sorted into
the grid of :mod:`physics.model.broadphase`, in cells as wide as the longest half ray and
the largest limit together, and each ray measures, from its middle, only the cells within
that reach, then its exact distance to those centres; for a few rays among a few spheres,
every pair is measured. Between vehicles already known to be near each other in pairs
(:func:`segments_near_pairs`), each vehicle's rays measure only its partners' hulls.

A segment with an end that is not finite meets nothing, nor does a sphere whose centre is
not finite. The loops are compiled with numba (:mod:`physics.model.compiled`) and run as
plain Python without it.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from physics.model.broadphase import _at_or_after, _distance_m, _grid, _in_window, _window
from physics.model.compiled import compiled

ALL_SEGMENT_PAIRS_UP_TO = 4096
"""Up to this many pairs of a wanted segment and a sphere, :func:`segments_near_spheres`
measures every pair in one compiled loop: for a few vehicles' rays among a few dozen
rocks, sorting the spheres into cells costs more (in numpy calls) than the measuring."""


class Boxes(NamedTuple):
    """Oriented boxes, one for each of the first B spheres, each inside its sphere: a
    segment near one of those spheres counts only where it passes through its box too."""

    centres_ws: np.ndarray
    """(B, 3) each box's centre."""
    axes_ws: np.ndarray
    """(B, 3, 3) each box's axes, one a row."""
    half_extents_m: np.ndarray
    """(3,) the half extents along the axes, shared by every box."""


_NO_BOXES = Boxes(np.zeros((0, 3)), np.zeros((0, 3, 3)), np.zeros(3))


def _segment_meets_sphere(sx, sy, sz, dx, dy, dz, length_squared, centres, b, limits):
    """Does the segment from (sx, sy, sz) along (dx, dy, dz) pass closer to sphere ``b``'s
    centre than its limit (one above zero)?"""
    if not limits[b] > 0.0:
        return False
    cx, cy, cz = centres[b, 0] - sx, centres[b, 1] - sy, centres[b, 2] - sz
    along = 0.0
    if length_squared > 0.0:  # the nearest point of the segment, as a fraction
        along = min(max((cx * dx + cy * dy + cz * dz) / length_squared, 0.0), 1.0)
    ox, oy, oz = cx - along * dx, cy - along * dy, cz - along * dz
    return ox * ox + oy * oy + oz * oz < limits[b] * limits[b]


def _segment_meets_box(sx, sy, sz, dx, dy, dz, box_centres, box_axes, half_extents, b):
    """Does the segment from (sx, sy, sz) along (dx, dy, dz) pass through box ``b``? The
    part of it between each pair of faces is cut down axis by axis (the slab test). A
    number that is not finite leaves the answer to the sphere: it counts as through."""
    ox, oy, oz = sx - box_centres[b, 0], sy - box_centres[b, 1], sz - box_centres[b, 2]
    low, high = 0.0, 1.0
    for axis in range(3):
        ax, ay, az = box_axes[b, axis, 0], box_axes[b, axis, 1], box_axes[b, axis, 2]
        start = ox * ax + oy * ay + oz * az
        along = dx * ax + dy * ay + dz * az
        half = half_extents[axis]
        if not (np.isfinite(start) and np.isfinite(along)):
            return True
        if along == 0.0:
            if abs(start) > half:
                return False
            continue
        first, second = (-half - start) / along, (half - start) / along
        low = max(low, min(first, second))
        high = min(high, max(first, second))
        if low > high:
            return False
    return True


def _segment_meets_body(sx, sy, sz, dx, dy, dz, length_squared, centres, b, limits,
                        box_centres, box_axes, half_extents):
    """Does the segment pass closer to sphere ``b``'s centre than its limit and, where the
    sphere stands for a box (``b`` below the boxes' count), through that box?"""
    return _segment_meets_sphere(sx, sy, sz, dx, dy, dz, length_squared, centres, b,
                                 limits) and (b >= len(box_centres) or _segment_meets_box(
                                     sx, sy, sz, dx, dy, dz, box_centres, box_axes,
                                     half_extents, b))


def _segment_meets_any(starts, ends, a, centres, members, rows, columns, cell_m, reach_m,
                       limits, skip, box_centres, box_axes, half_extents):
    """Does segment ``a`` (``starts[a]`` to ``ends[a]``) pass closer to a grid member ``b``
    (a row of ``centres``, not ``skip``) than its limit (``limits[b]``)? Searches the
    cells within ``reach_m`` of the segment's middle: at least half its length and every
    limit."""
    sx, sy, sz = starts[a, 0], starts[a, 1], starts[a, 2]
    dx, dy, dz = ends[a, 0] - sx, ends[a, 1] - sy, ends[a, 2] - sz
    length_squared = dx * dx + dy * dy + dz * dz
    row_low, row_high, column_low, column_high = _window(sx + 0.5 * dx, sy + 0.5 * dy, reach_m,
                                                         cell_m)
    count = len(members)
    position = _at_or_after(rows, columns, row_low, column_low, 0, count)
    position = _in_window(rows, columns, row_high, column_low, column_high, position, count)
    while position < count:
        b = members[position]
        if b != skip and _segment_meets_body(sx, sy, sz, dx, dy, dz, length_squared,
                                             centres, b, limits, box_centres, box_axes,
                                             half_extents):
            return True
        position = _in_window(rows, columns, row_high, column_low, column_high, position + 1,
                              count)
    return False


def _finite_segment(starts, ends, a):
    return (np.isfinite(starts[a, 0]) and np.isfinite(starts[a, 1])
            and np.isfinite(starts[a, 2]) and np.isfinite(ends[a, 0])
            and np.isfinite(ends[a, 1]) and np.isfinite(ends[a, 2]))


def _segments_meeting_every(starts, ends, owners, wanted, centres, limits, box_centres,
                            box_axes, half_extents, meets):
    """As :func:`_segments_meeting`, every wanted segment measured against every sphere
    with a finite centre: no grid to build, for a few segments and spheres."""
    for a in range(len(starts)):
        if not (wanted[a] and _finite_segment(starts, ends, a)):
            continue
        sx, sy, sz = starts[a, 0], starts[a, 1], starts[a, 2]
        dx, dy, dz = ends[a, 0] - sx, ends[a, 1] - sy, ends[a, 2] - sz
        length_squared = dx * dx + dy * dy + dz * dz
        for b in range(len(centres)):
            if b != owners[a] and np.isfinite(centres[b, 0]) and np.isfinite(centres[b, 1]) \
                    and np.isfinite(centres[b, 2]) and _segment_meets_body(
                        sx, sy, sz, dx, dy, dz, length_squared, centres, b, limits,
                        box_centres, box_axes, half_extents):
                meets[a] = True
                break


def _segments_meeting(starts, ends, owners, wanted, centres, limits, box_centres, box_axes,
                      half_extents, members, rows, columns, cell_m, reach_m, meets):
    """Per wanted segment with finite ends, into ``meets``: does it pass closer to a
    sphere's centre (a grid member, not its owner) than that sphere's limit, and through
    its box where it has one?"""
    for a in range(len(starts)):
        if wanted[a] and _finite_segment(starts, ends, a):
            meets[a] = _segment_meets_any(starts, ends, a, centres, members, rows, columns,
                                          cell_m, reach_m, limits, owners[a], box_centres,
                                          box_axes, half_extents)


def _segments_meeting_pairs(starts, ends, per_body, reach_m, pairs, centres, limits,
                            box_centres, box_axes, half_extents, meets):
    """Into ``meets``, for each pair of bodies ``(p, q)``: does one of p's segments (rows
    ``p * per_body`` on, each within ``reach_m`` of p's centre) pass closer to q's centre
    than its limit, and through its box where it has one; and the same of q's segments
    and p. Bodies further apart than the reach and the limit are passed over whole."""
    for pair in range(len(pairs)):
        apart_m = _distance_m(centres, pairs[pair, 0], centres, pairs[pair, 1])
        for side in range(2):
            own, other = pairs[pair, side], pairs[pair, 1 - side]
            if not apart_m < reach_m + limits[other]:  # nor is a centre that is not finite
                continue
            for a in range(own * per_body, (own + 1) * per_body):
                if meets[a] or not _finite_segment(starts, ends, a):
                    continue
                sx, sy, sz = starts[a, 0], starts[a, 1], starts[a, 2]
                dx, dy, dz = ends[a, 0] - sx, ends[a, 1] - sy, ends[a, 2] - sz
                meets[a] = _segment_meets_body(sx, sy, sz, dx, dy, dz,
                                               dx * dx + dy * dy + dz * dz, centres, other,
                                               limits, box_centres, box_axes, half_extents)


_segment_meets_sphere = compiled(_segment_meets_sphere, inline=True) or _segment_meets_sphere
_segment_meets_box = compiled(_segment_meets_box, inline=True) or _segment_meets_box
_segment_meets_body = compiled(_segment_meets_body, inline=True) or _segment_meets_body
_segment_meets_any = compiled(_segment_meets_any, inline=True) or _segment_meets_any
_finite_segment = compiled(_finite_segment, inline=True) or _finite_segment
_segments_meeting = compiled(_segments_meeting) or _segments_meeting
_segments_meeting_every = compiled(_segments_meeting_every) or _segments_meeting_every
_segments_meeting_pairs = compiled(_segments_meeting_pairs) or _segments_meeting_pairs


def _box_arrays(boxes: Boxes | None) -> list[np.ndarray]:
    """The boxes' arrays as the loops take them (none: empty ones)."""
    return [np.ascontiguousarray(array, dtype=float)
            for array in (boxes if boxes is not None else _NO_BOXES)]


def segments_near_pairs(starts_ws: np.ndarray, ends_ws: np.ndarray, per_body: int,
                        reach_m: float, pairs: np.ndarray, centres_ws: np.ndarray,
                        limits_m: np.ndarray, boxes: Boxes | None = None) -> np.ndarray:
    """Per segment (R, 3 starts and ends, ``per_body`` a body, R = B * per_body, each
    within ``reach_m`` of its body's centre): does it pass closer to the centre of another
    body's sphere (B, 3) than that sphere's limit (B,), and through the sphere's box where
    ``boxes`` gives the first spheres boxes? Each body's segments are measured only
    against the bodies it is paired with in ``pairs`` (P, 2)."""
    meets = np.zeros(len(starts_ws), dtype=bool)
    if not len(pairs):
        return meets
    _segments_meeting_pairs(
        np.ascontiguousarray(starts_ws, dtype=float), np.ascontiguousarray(ends_ws, dtype=float),
        per_body, float(reach_m), np.ascontiguousarray(pairs, dtype=np.int64),
        np.ascontiguousarray(centres_ws, dtype=float),
        np.ascontiguousarray(limits_m, dtype=float),
        *_box_arrays(boxes), meets)
    return meets


def segments_near_spheres(starts_ws: np.ndarray, ends_ws: np.ndarray, owners: np.ndarray,
                          wanted: np.ndarray, centres_ws: np.ndarray, limits_m: np.ndarray,
                          boxes: Boxes | None = None) -> np.ndarray:
    """Per segment (R, 3 starts and ends) marked in ``wanted`` (R,): does it pass closer to
    the centre of a sphere (S, 3) than that sphere's limit (S,), leaving out sphere
    ``owners[r]`` (-1: none), and through the sphere's box where ``boxes`` gives the first
    spheres boxes? The spheres' centres are sorted into the grid; a segment
    measures only those within its half length and the largest limit of its middle. Up to
    :data:`ALL_SEGMENT_PAIRS_UP_TO` pairs, every pair is measured, with the same sums."""
    starts_ws = np.ascontiguousarray(starts_ws, dtype=float)
    ends_ws = np.ascontiguousarray(ends_ws, dtype=float)
    meets = np.zeros(len(starts_ws), dtype=bool)
    limits_m = np.ascontiguousarray(limits_m, dtype=float)
    centres_ws = np.ascontiguousarray(centres_ws, dtype=float).reshape(-1, 3)
    endless = (limits_m == np.inf) & np.isfinite(centres_ws).all(axis=1)
    if endless.any():  # every finite segment passes closer than that
        ends_finite = np.isfinite(starts_ws).all(axis=1) & np.isfinite(ends_ws).all(axis=1)
        return ends_finite & np.asarray(wanted, dtype=bool)
    bounded = limits_m > 0.0  # NaN limits too are never met
    wanted = np.ascontiguousarray(wanted, dtype=np.bool_)
    owners = np.ascontiguousarray(owners, dtype=np.int64)
    pairs = np.count_nonzero(wanted) * len(centres_ws)
    if not len(starts_ws) or not bounded.any() or not pairs:
        return meets
    box_arrays = _box_arrays(boxes)
    if pairs <= ALL_SEGMENT_PAIRS_UP_TO:
        _segments_meeting_every(starts_ws, ends_ws, owners, wanted, centres_ws, limits_m,
                                *box_arrays, meets)
        return meets
    half_m = 0.5 * np.sqrt(np.einsum("ri,ri->r", ends_ws - starts_ws, ends_ws - starts_ws))
    reach_m = float(limits_m[bounded].max()) + float(np.max(half_m, where=np.isfinite(half_m),
                                                             initial=0.0))
    grid = _grid(centres_ws, reach_m)
    _segments_meeting(starts_ws, ends_ws, owners, wanted, centres_ws, limits_m, *box_arrays,
                      grid.members, grid.rows, grid.columns, grid.cell_m, reach_m, meets)
    return meets
