"""Which anchors' rays could meet a body besides the terrain, and so are cast through Bullet.

Each body stands for a sphere; a sphere may stand for an oriented box inside it (a hull's,
a rock's: :class:`Boxes`): a ray near that sphere counts only where it also passes through
the box, as a long hull's sphere reaches far beside it and a flat rock's far above it.

The rays are measured only along links between their vehicle and the bodies near it, from
the near test (:mod:`physics.model.broadphase`: which vehicles are near each other and
which obstacles): a few bodies each, however many there are. A link whose two centres
lie further apart than the rays' reach and the body's limit is passed over whole.

A segment with an end that is not finite meets nothing, nor does a sphere whose centre is
not finite. The loop is compiled with numba (:mod:`physics.model.compiled`) and runs as
plain Python without it. :func:`segment_meets_any_sphere` asks the same of one segment
and every sphere (the sight lines' screens, :class:`game.sim.spotting.SightScreens`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from physics.model.broadphase import _distance_m
from physics.model.compiled import compiled


class Boxes(NamedTuple):
    """Oriented boxes, one for each of the first B spheres, each inside its sphere: a
    segment near one of those spheres counts only where it passes through its box too."""

    centres_ws: np.ndarray
    """(B, 3) each box's centre."""
    axes_ws: np.ndarray
    """(B, 3, 3) each box's axes, one a row."""
    half_extents_m: np.ndarray
    """(B, 3) each box's half extents along its axes (infinite: no box, the sphere alone
    decides)."""


_NO_BOXES = Boxes(np.zeros((0, 3)), np.zeros((0, 3, 3)), np.zeros((0, 3)))


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
        half = half_extents[b, axis]
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


def _finite_segment(starts, ends, a):
    return (np.isfinite(starts[a, 0]) and np.isfinite(starts[a, 1])
            and np.isfinite(starts[a, 2]) and np.isfinite(ends[a, 0])
            and np.isfinite(ends[a, 1]) and np.isfinite(ends[a, 2]))


def _segments_meeting_links(starts, ends, per_body, reach_m, links, centres, limits,
                            box_centres, box_axes, half_extents, meets):
    """Into ``meets``, for each link ``(own, other)``: does one of body own's segments
    (rows ``own * per_body`` on, each within ``reach_m`` of its centre) pass closer to
    body other's centre than its limit, and through its box where it has one?"""
    for link in range(len(links)):
        own, other = links[link, 0], links[link, 1]
        if not _distance_m(centres, own, centres, other) < reach_m + limits[other]:
            continue  # too far apart, or a centre that is not finite
        for a in range(own * per_body, (own + 1) * per_body):
            if meets[a] or not _finite_segment(starts, ends, a):
                continue
            sx, sy, sz = starts[a, 0], starts[a, 1], starts[a, 2]
            dx, dy, dz = ends[a, 0] - sx, ends[a, 1] - sy, ends[a, 2] - sz
            meets[a] = _segment_meets_body(sx, sy, sz, dx, dy, dz, dx * dx + dy * dy + dz * dz,
                                           centres, other, limits, box_centres, box_axes,
                                           half_extents)


def _segment_meets_any_sphere(sx, sy, sz, ex, ey, ez, centres, limits) -> bool:
    """Does the segment from (sx, sy, sz) to (ex, ey, ez) pass closer to any sphere's centre
    (``centres``, (S, 3)) than its limit?"""
    dx, dy, dz = ex - sx, ey - sy, ez - sz
    length_squared = dx * dx + dy * dy + dz * dz
    for b in range(centres.shape[0]):
        if _segment_meets_sphere(sx, sy, sz, dx, dy, dz, length_squared, centres, b, limits):
            return True
    return False


_segment_meets_sphere = compiled(_segment_meets_sphere, inline=True) or _segment_meets_sphere
_segment_meets_box = compiled(_segment_meets_box, inline=True) or _segment_meets_box
_segment_meets_body = compiled(_segment_meets_body, inline=True) or _segment_meets_body
_finite_segment = compiled(_finite_segment, inline=True) or _finite_segment
_segments_meeting_links = compiled(_segments_meeting_links) or _segments_meeting_links
segment_meets_any_sphere = compiled(_segment_meets_any_sphere) or _segment_meets_any_sphere


def segments_near_links(starts_ws: np.ndarray, ends_ws: np.ndarray, per_body: int,
                        reach_m: float, links: np.ndarray, centres_ws: np.ndarray,
                        limits_m: np.ndarray, boxes: Boxes | None = None) -> np.ndarray:
    """Per segment (R, 3 starts and ends; ``per_body`` of them for each of the first
    R / per_body bodies, each within ``reach_m`` of its body's centre): does it pass closer
    to the centre of a body it is linked to than that body's limit, and through the body's
    box where ``boxes`` gives the first bodies boxes? ``links`` (L, 2): (own, other)
    bodies, rows of ``centres_ws`` (B, 3) and ``limits_m`` (B,)."""
    meets = np.zeros(len(starts_ws), dtype=bool)
    if not len(links):
        return meets
    _segments_meeting_links(
        np.ascontiguousarray(starts_ws, dtype=float), np.ascontiguousarray(ends_ws, dtype=float),
        per_body, float(reach_m), np.ascontiguousarray(links, dtype=np.int64),
        np.ascontiguousarray(centres_ws, dtype=float),
        np.ascontiguousarray(limits_m, dtype=float),
        *[np.ascontiguousarray(array, dtype=float)
          for array in (boxes if boxes is not None else _NO_BOXES)], meets)
    return meets
