"""Which anchors' rays could meet a body besides the terrain, and so are cast through Bullet.

Each body stands for a sphere; a sphere may stand for an oriented box inside it (a hull's,
a rock's: :class:`Boxes`): a ray near that sphere counts only where it also passes through
the box, as a long hull's sphere reaches far beside it and a flat rock's far above it. A
rock's box is cut across its edges and corners as well (a k-DOP, :data:`DOP_AXES`): a
rock is round, and a ray by its side through a corner of its box meets nothing.

The rays are measured only along links between their vehicle and the bodies near it, from
the near test (:mod:`physics.model.broadphase`: which vehicles are near each other and
which obstacles): a few bodies each, however many there are. A link whose two centres
lie further apart than the rays' reach and the body's limit is passed over whole.

A segment with an end that is not finite meets nothing, nor does a sphere whose centre is
not finite. The loop is compiled with numba (:mod:`common.compiled`) and runs as
plain Python without it. A fleet asks :func:`fleet_rays_meeting_links`, which makes each
ray from its vehicle's pose as it measures it; :func:`segments_near_links` measures
segments made beforehand, the same tests on any bodies. :func:`segment_meets_any_sphere`
asks the same of one segment and every sphere (the sight lines' screens,
:class:`game.sim.spotting.SightScreens`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from common.compiled import compiled, compiled_loop, compiled_stage
from physics.model.anchor_kernel import _ray
from physics.model.broadphase import _distance_m
from physics.model.kernel_tables import X, Y, Z


DOP_AXES = np.array([(1, 1, 0), (1, -1, 0), (1, 0, 1), (1, 0, -1), (0, 1, 1), (0, 1, -1),
                     (1, 1, 1), (1, 1, -1), (1, -1, 1), (1, -1, -1)], dtype=float)
DOP_AXES /= np.linalg.norm(DOP_AXES, axis=1, keepdims=True)
DOP_AXES.setflags(write=False)
"""With a box's own three axes, the 13 directions of a k-DOP: the six diagonals of its
faces and the four of its corners (unit rows, in the box's frame). A rounded body's box
leaves its corners empty; the planes across them take most of that room away."""


class Boxes(NamedTuple):
    """Oriented boxes, one for each of the first B spheres, each inside its sphere: a
    segment near one of those spheres counts only where it passes through its box too,
    and between each pair of its further faces where it has some (a rock's k-DOP)."""

    centres_ws: np.ndarray
    """(B, 3) each box's centre."""
    axes_ws: np.ndarray
    """(B, 3, 3) each box's axes, one a row."""
    half_extents_m: np.ndarray
    """(B, 3) each box's half extents along its axes (infinite: no box, the sphere alone
    decides)."""
    slab_axes_ws: np.ndarray | None = None
    """(B, K, 3) further directions (unit rows) each box is cut across (None: none)."""
    slab_faces_m: np.ndarray | None = None
    """(B, K, 2) along each of those, the least and the greatest reach from the box's
    centre (infinite: no cut)."""

    def arrays(self) -> tuple[np.ndarray, ...]:
        """The five arrays the compiled tests read (no further faces: K of 0). Boxes with
        their faces given are taken to be C-ordered floats already (as
        :class:`~physics.bullet.obstacles.Obstacles` makes them: asked every substep)."""
        if self.slab_axes_ws is not None and self.slab_faces_m is not None:
            return (self.centres_ws, self.axes_ws, self.half_extents_m, self.slab_axes_ws,
                    self.slab_faces_m)
        count = len(self.centres_ws)
        axes = (self.slab_axes_ws if self.slab_axes_ws is not None
                else np.zeros((count, 0, 3)))
        faces = (self.slab_faces_m if self.slab_faces_m is not None
                 else np.zeros((count, 0, 2)))
        return tuple(np.ascontiguousarray(array, dtype=float) for array in (
            self.centres_ws, self.axes_ws, self.half_extents_m, axes, faces))


_NO_BOXES = Boxes(np.zeros((0, 3)), np.zeros((0, 3, 3)), np.zeros((0, 3)))
_NO_SLABS = np.zeros((0, 0, 3)), np.zeros((0, 0, 2))
"""Further faces for boxes that have none (the hulls')."""


@compiled_stage
def _segment_meets_sphere(sx, sy, sz, dx, dy, dz, length_squared, centres, b, limits):
    """Does the segment from (sx, sy, sz) along (dx, dy, dz) pass closer to sphere ``b``'s
    centre than its limit (one above zero)?"""
    return _segment_near_point(sx, sy, sz, dx, dy, dz, length_squared, centres[b, 0],
                               centres[b, 1], centres[b, 2], limits[b])


@compiled_stage
def _segment_near_point(sx, sy, sz, dx, dy, dz, length_squared, px, py, pz, limit):
    """Does the segment from (sx, sy, sz) along (dx, dy, dz) pass closer to the point
    (px, py, pz) than ``limit`` (one above zero)?"""
    if not limit > 0.0:
        return False
    cx, cy, cz = px - sx, py - sy, pz - sz
    along = 0.0
    if length_squared > 0.0:  # the nearest point of the segment, as a fraction
        along = min(max((cx * dx + cy * dy + cz * dz) / length_squared, 0.0), 1.0)
    ox, oy, oz = cx - along * dx, cy - along * dy, cz - along * dz
    return ox * ox + oy * oy + oz * oz < limit * limit


@compiled_stage
def _segment_meets_box(sx, sy, sz, dx, dy, dz, box_centres, box_axes, half_extents,
                       slab_axes, slab_faces, b):
    """Does the segment from (sx, sy, sz) along (dx, dy, dz) pass through box ``b``, its
    further faces' cuts and all?"""
    return _segment_through_box(sx, sy, sz, dx, dy, dz, box_centres[b, 0], box_centres[b, 1],
                                box_centres[b, 2], box_axes, b, half_extents[b, 0],
                                half_extents[b, 1], half_extents[b, 2], slab_axes, slab_faces)


@compiled_stage
def _segment_through_box(sx, sy, sz, dx, dy, dz, cx, cy, cz, box_axes, b, hx, hy, hz,
                         slab_axes, slab_faces):
    """Does the segment from (sx, sy, sz) along (dx, dy, dz) pass through the box centred
    on (cx, cy, cz) with the axes ``box_axes[b]`` (rows) and the half extents (hx, hy, hz),
    cut across ``slab_axes[b]`` between ``slab_faces[b]`` (least and greatest reach from
    the centre; none where ``slab_axes`` has no columns)? The part of it between each pair
    of faces is cut down pair by pair (the slab test). A number that is not finite leaves
    the answer to the sphere: it counts as through."""
    ox, oy, oz = sx - cx, sy - cy, sz - cz
    low, high = 0.0, 1.0
    for axis in range(3 + slab_axes.shape[1]):
        if axis < 3:
            ax, ay, az = box_axes[b, axis, 0], box_axes[b, axis, 1], box_axes[b, axis, 2]
            half = hx if axis == 0 else (hy if axis == 1 else hz)
            least, greatest = -half, half
        else:
            slab = axis - 3
            ax, ay, az = slab_axes[b, slab, 0], slab_axes[b, slab, 1], slab_axes[b, slab, 2]
            least, greatest = slab_faces[b, slab, 0], slab_faces[b, slab, 1]
        start = ox * ax + oy * ay + oz * az
        along = dx * ax + dy * ay + dz * az
        if not (np.isfinite(start) and np.isfinite(along)):
            return True
        if along == 0.0:
            if start < least or start > greatest:
                return False
            continue
        first, second = (least - start) / along, (greatest - start) / along
        low = max(low, min(first, second))
        high = min(high, max(first, second))
        if low > high:
            return False
    return True


@compiled_stage
def _segment_meets_body(sx, sy, sz, dx, dy, dz, length_squared, centres, b, limits,
                        box_centres, box_axes, half_extents, slab_axes, slab_faces):
    """Does the segment pass closer to sphere ``b``'s centre than its limit and, where the
    sphere stands for a box (``b`` below the boxes' count), through that box?"""
    return _segment_meets_sphere(sx, sy, sz, dx, dy, dz, length_squared, centres, b,
                                 limits) and (b >= len(box_centres) or _segment_meets_box(
                                     sx, sy, sz, dx, dy, dz, box_centres, box_axes,
                                     half_extents, slab_axes, slab_faces, b))


@compiled_stage
def _finite_segment(starts, ends, a):
    return _finite_ends(starts[a, 0], starts[a, 1], starts[a, 2], ends[a, 0], ends[a, 1],
                        ends[a, 2])


@compiled_stage
def _finite_ends(sx, sy, sz, ex, ey, ez):
    """Are both ends of the segment from (sx, sy, sz) to (ex, ey, ez) finite?"""
    return (np.isfinite(sx) and np.isfinite(sy) and np.isfinite(sz) and np.isfinite(ex)
            and np.isfinite(ey) and np.isfinite(ez))


@compiled_loop
def _segments_meeting_links(starts, ends, per_body, reach_m, links, centres, limits,
                            box_centres, box_axes, half_extents, slab_axes, slab_faces, meets):
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
                                           half_extents, slab_axes, slab_faces)


@compiled_loop
def _fleet_rays_meeting_links(position, axes, anchors, ray_length, reach_m, links,
                              hull_limit, hull_drop, hull_half, others_centres, others_limits,
                              static_centres, static_axes, static_half, static_slab_axes,
                              static_slab_faces, hull_slab_axes, hull_slab_faces, meets):
    """Into ``meets`` (V * A, by vehicle then anchor), for each link ``(own, other)`` of a
    fleet's vehicles (rows of ``position`` and ``axes``; an ``other`` of V or more is row
    ``other - V`` of the others'): does a ray of vehicle own's anchors (``anchors[own]``,
    the anchor rows the substep reads; each ray ``ray_length[own]`` long, every one within
    ``reach_m`` of its vehicle's centre) pass closer to the other's centre than its limit
    and through its box? A vehicle's limit is its ``hull_limit`` and its box its hull's
    (its ``hull_drop`` below its centre, its ``hull_half``); an other's limit is its own,
    and the first S others (the static obstacles) have boxes, cut across by their further
    faces (:class:`Boxes`; ``hull_slab_axes`` and ``hull_slab_faces``: none). The rays and the tests are
    those :func:`_segments_meeting_links` makes of the same bodies, to the bit."""
    vehicles, count = position.shape[0], anchors.shape[1]
    statics = static_centres.shape[0]
    for link in range(len(links)):
        own, other = links[link, 0], links[link, 1]
        if other < vehicles:
            limit = hull_limit[other]
            near = _distance_m(position, own, position, other) < reach_m + limit
        else:
            limit = others_limits[other - vehicles]
            near = _distance_m(position, own, others_centres, other - vehicles) < reach_m + limit
        if not near:
            continue  # too far apart, or a centre that is not finite
        length = ray_length[own]
        for anchor in range(count):
            a = own * count + anchor
            if meets[a]:
                continue
            sx, sy, sz, ux, uy, uz = _ray(
                position[own, 0], position[own, 1], position[own, 2], axes[own, 0, 0],
                axes[own, 0, 1], axes[own, 0, 2], axes[own, 1, 0], axes[own, 1, 1],
                axes[own, 1, 2], axes[own, 2, 0], axes[own, 2, 1], axes[own, 2, 2],
                anchors[own, anchor, X], anchors[own, anchor, Y], anchors[own, anchor, Z])
            ex, ey, ez = sx + ux * length, sy + uy * length, sz + uz * length
            if not _finite_ends(sx, sy, sz, ex, ey, ez):
                continue
            dx, dy, dz = ex - sx, ey - sy, ez - sz
            length_squared = dx * dx + dy * dy + dz * dz
            if other < vehicles:
                drop = hull_drop[other]
                meets[a] = _segment_near_point(
                    sx, sy, sz, dx, dy, dz, length_squared, position[other, 0],
                    position[other, 1], position[other, 2], limit) and _segment_through_box(
                        sx, sy, sz, dx, dy, dz, position[other, 0] + axes[other, 2, 0] * drop,
                        position[other, 1] + axes[other, 2, 1] * drop,
                        position[other, 2] + axes[other, 2, 2] * drop, axes, other,
                        hull_half[other, 0], hull_half[other, 1], hull_half[other, 2],
                        hull_slab_axes, hull_slab_faces)
            else:
                o = other - vehicles
                meets[a] = _segment_near_point(
                    sx, sy, sz, dx, dy, dz, length_squared, others_centres[o, 0],
                    others_centres[o, 1], others_centres[o, 2], limit) and (
                        o >= statics or _segment_meets_box(
                            sx, sy, sz, dx, dy, dz, static_centres, static_axes, static_half,
                            static_slab_axes, static_slab_faces, o))


def fleet_rays_meeting_links(position_ws: np.ndarray, axes_ws: np.ndarray,
                             anchors: np.ndarray, ray_length_m: np.ndarray, reach_m: float,
                             links: np.ndarray, hull_limit_m: np.ndarray,
                             hull_drop_m: np.ndarray, hull_half_m: np.ndarray,
                             others_centres_ws: np.ndarray, others_limits_m: np.ndarray,
                             static_boxes: Boxes) -> np.ndarray:
    """Per anchor of a fleet's vehicles (V * A): could its ray meet a body it is linked to
    (:func:`_fleet_rays_meeting_links`)? What :func:`segments_near_links` finds of the
    same rays, without making them first. ``anchors`` (V, A, ANCHOR_COLUMNS), and per
    vehicle ``ray_length_m``, ``hull_limit_m``, ``hull_drop_m`` (V,) and ``hull_half_m``
    (V, 3): each vehicle's own (its kind's)."""
    meets = np.zeros(len(position_ws) * anchors.shape[1], dtype=bool)
    if len(links):
        _fleet_rays_meeting_links(
            position_ws, axes_ws, anchors, np.ascontiguousarray(ray_length_m, dtype=float),
            float(reach_m), np.ascontiguousarray(links, dtype=np.int64),
            np.ascontiguousarray(hull_limit_m, dtype=float),
            np.ascontiguousarray(hull_drop_m, dtype=float),
            np.ascontiguousarray(hull_half_m, dtype=float),
            np.ascontiguousarray(others_centres_ws, dtype=float),
            np.ascontiguousarray(others_limits_m, dtype=float), *static_boxes.arrays(),
            *_NO_SLABS, meets)
    return meets


def _segment_meets_any_sphere(sx, sy, sz, ex, ey, ez, centres, limits) -> bool:
    """Does the segment from (sx, sy, sz) to (ex, ey, ez) pass closer to any sphere's centre
    (``centres``, (S, 3)) than its limit?"""
    dx, dy, dz = ex - sx, ey - sy, ez - sz
    length_squared = dx * dx + dy * dy + dz * dz
    for b in range(centres.shape[0]):
        if _segment_meets_sphere(sx, sy, sz, dx, dy, dz, length_squared, centres, b, limits):
            return True
    return False


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
        *(boxes if boxes is not None else _NO_BOXES).arrays(), meets)
    return meets
