"""A broken track drawn off its wheels: an open run of links lying on the ground.

When a side's track is destroyed its belt comes off the road wheels, the sprocket and the
idler and is left lying where it broke: a flat run (:class:`LyingTrack`, as many vertex
rows as the whole belt has, so it keeps the belts' triangles,
:func:`game.view.rigs.track_belt.belts_node`) from a short lead ahead of the front road
wheel, under the road wheels, then trailing behind the rear one along the ground, slewing
outward the farther back it lies. The run is made in the hull's frame where the road
wheels stood at that moment, and stays there in the world (:mod:`game.view.rigs.rig_damage`
drops a copy of the belts' mesh showing only it) while the tank swings round on its bare
road wheels and drives off it; its links do not scroll: nothing drives it.

Only a tank with a broken track pays anything for it: while one is broken its rig's belts'
vertex data is wrapped by :class:`BrokenBelts`, through which the batched pass
(:mod:`game.view.rigs.rig_pose`) writes both belts' rows as it writes into the data
itself; the broken side's are folded to a point on the way (no belt round its wheels).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from game.view.rigs.track_belt import (BELT_STRIPS, MIN_TANGENT_LENGTH_M, ROW_COLOUR,
                                       ROW_NORMAL, ROW_POSITION, ROW_UV, STRIPS, BeltShape)

ROW_FLOATS = ROW_UV.stop
"""Floats in one vertex row (:data:`game.view.rigs.track_belt.ROW_POSITION` ...)."""
X, Y, Z = range(3)
"""A row's position's (and normal's) columns from their first; a path's columns."""
INNER_STRIP = next(strip for strip, (first, second, _, _) in enumerate(STRIPS)
                   if first[1] == second[1] == "inner")
"""The strip that is the belt's inner face: its rows give the belt's path."""


def lying_path(stations_y: np.ndarray, inner_z: np.ndarray, points: int, lead_m: float,
               trail_m: float, slew_m: float) -> np.ndarray:
    """(points, 3): the inner face of a track lying on the ground, front to rear, as
    (across, along, up) in the hull's frame, across measured from the belt's own place.
    ``stations_y``: the road wheels' centres along the track and ``inner_z``: the belt's
    inner face under each (both rear to front). The run starts ``lead_m`` ahead of the
    front road wheel, passes under every road wheel and trails ``trail_m`` behind the rear
    one on the ground there, ``slew_m`` across at its end (signed: which way is out)."""
    wheels = len(stations_y)
    trailing = points - 1 - wheels
    share = np.arange(1, trailing + 1) / trailing
    along = np.concatenate([[stations_y[-1] + lead_m], stations_y[::-1],
                            stations_y[0] - trail_m * share])
    up = np.concatenate([[inner_z[-1]], inner_z[::-1], np.full(trailing, inner_z[0])])
    across = np.concatenate([np.zeros(wheels + 1), slew_m * share ** 2])
    return np.column_stack([across, along, up])


def lying_faces(path: np.ndarray, thickness_m: float
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The inner and outer faces (points, 2) of a belt laid along the open ``path``
    (:func:`lying_path`) as (along, up), and its outward normals (points, 2): outward of
    the path's direction, as on a whole belt's run under the road wheels (so the
    triangles the whole belt was built with face the same way)."""
    yz = path[:, Y:]
    tangent = np.empty_like(yz)  # central differences, one-sided at the ends
    tangent[1:-1] = yz[2:] - yz[:-2]
    tangent[0], tangent[-1] = yz[1] - yz[0], yz[-1] - yz[-2]
    tangent /= np.maximum(np.sqrt(np.einsum("pk,pk->p", tangent, tangent)),
                          MIN_TANGENT_LENGTH_M)[:, None]
    outward = np.empty_like(tangent)
    outward[:, 0], outward[:, 1] = -tangent[:, 1], tangent[:, 0]
    return yz, yz + outward * thickness_m, outward


@dataclass(frozen=True)
class LyingRows:
    """What never changes of a lying belt's vertex rows in
    :data:`game.view.rigs.track_belt.STRIPS`' layout, (strips, points, 2 lines, 12)."""

    fixed: np.ndarray
    """Each row's x (its edge's, slewed as the path is), its edge faces' normals and v."""
    on_outer: np.ndarray
    """(strips, 1, 2, 1) whether each strip's line lies on the outer face (else the inner)."""
    out_sign: np.ndarray
    """(strips, 1, 1, 1) each strip's normal as a multiple of the outward one (0: the edges,
    whose normals are across)."""

    @staticmethod
    def of(path: np.ndarray, x_m: np.ndarray) -> LyingRows:
        """Of a belt along ``path`` (whose across never changes), its edges at ``x_m``."""
        fixed = np.zeros((BELT_STRIPS, len(path), 2, ROW_FLOATS), dtype=np.float32)
        on_outer = np.zeros((BELT_STRIPS, 1, 2, 1), dtype=bool)
        out_sign = np.zeros((BELT_STRIPS, 1, 1, 1), dtype=np.float32)
        for strip, (first, second, (normal, sign), v) in enumerate(STRIPS):
            for line, (edge, surface) in enumerate((first, second)):
                fixed[strip, :, line, ROW_POSITION.start + X] = x_m[edge] + path[:, X]
                fixed[strip, :, line, ROW_UV.start + 1] = v[line]
                on_outer[strip, 0, line, 0] = surface == "outer"
            if normal == "out":
                out_sign[strip] = sign
            else:
                fixed[strip, :, :, ROW_NORMAL.start + X] = sign
        return LyingRows(fixed, on_outer, out_sign)

    def rows(self, path: np.ndarray, thickness_m: float, link_length_m: float,
             colour: np.ndarray) -> np.ndarray:
        """(strips x points x 2, 12) float32: the rows of the belt along ``path`` (its
        along and up; its across as this was made for), coloured ``colour`` (RGBA). Its
        links' texture stands still."""
        inner, outer, outward = lying_faces(path, thickness_m)
        step = np.diff(path, axis=0)
        arc_m = np.zeros(len(path))
        np.cumsum(np.sqrt(np.einsum("pk,pk->p", step, step)), out=arc_m[1:])
        rows = self.fixed.copy()
        rows[..., ROW_POSITION.start + Y:ROW_POSITION.stop] = np.where(
            self.on_outer, outer[None, :, None, :], inner[None, :, None, :])
        rows[..., ROW_NORMAL.start + Y:ROW_NORMAL.stop] += self.out_sign * outward[None, :,
                                                                                  None, :]
        rows[..., ROW_UV.start] = (arc_m / link_length_m)[None, :, None]
        rows[..., ROW_COLOUR] = colour
        return rows.reshape(-1, ROW_FLOATS)


@dataclass(frozen=True)
class LyingTrack:
    """How one side's belt lies on the ground while its track is broken."""

    path: np.ndarray
    """(points, 3) its :func:`lying_path` where the ground is level at the hull's zero
    height: only its height changes (with the road wheels')."""
    thickness_m: float
    link_length_m: float
    under_wheels: slice
    """Where a whole belt's path passes under the road wheels (front to rear)."""
    fixed: LyingRows

    @staticmethod
    def of(shape: BeltShape, first_moving: int, points: int, spec,
           outward: float) -> LyingTrack:
        """The lying track of the belt of ``shape`` (whose path of ``points`` rows leaves
        the front road wheel at point ``first_moving``:
        :class:`game.view.rigs.track_belt.BeltTemplate`), by the rig's ``spec``,
        ``outward`` (-1 left, +1 right)."""
        wheels = len(shape.stations_y)
        stations_y = np.asarray(shape.stations_y, dtype=np.float64)
        slew_m = spec.broken_track_slew_m * outward
        path = lying_path(stations_y, np.zeros(wheels), points, spec.broken_track_lead_m,
                          spec.broken_track_trail_m, slew_m)
        x_m = np.array([shape.track_x_m - shape.half_width_m,
                        shape.track_x_m + shape.half_width_m])
        return LyingTrack(
            path=path, thickness_m=shape.thickness_m, link_length_m=shape.link_length_m,
            under_wheels=slice(first_moving + 1, first_moving + 1 + wheels),
            fixed=LyingRows.of(path, x_m))

    def rows(self, whole_rows: np.ndarray) -> np.ndarray:
        """The rows of this belt lying on the ground, from its rows as a whole belt
        (where its road wheels stand now, in its colour of now): the same heights as
        :func:`lying_path` gives."""
        points = len(self.path)
        strips = whole_rows.reshape(BELT_STRIPS, points, 2, ROW_FLOATS)
        under = strips[INNER_STRIP, self.under_wheels, 0, ROW_POSITION.start + Z]
        path = self.path.copy()  # front to rear: the lead, under the wheels, the trail
        path[0, Z] = under[0]
        path[1:1 + len(under), Z] = under
        path[1 + len(under):, Z] = under[-1]
        return self.fixed.rows(path, self.thickness_m, self.link_length_m,
                               whole_rows[0, ROW_COLOUR])


def folded(rows: np.ndarray) -> np.ndarray:
    """One belt's vertex rows (R, 12) with every position its first row's: nothing drawn."""
    hidden = rows.copy()
    hidden[:, ROW_POSITION] = rows[0, ROW_POSITION]
    return hidden


class BrokenBelts:
    """A tank rig's belts' vertex data (both belts, the left's rows first) while a track of
    it is broken: what is written through :meth:`modifyArrayHandle` (as the batched pass
    writes into the data itself) goes into the data with each broken side's rows folded
    (``broken``: per side); anything else is the data's own."""

    def __init__(self, data, broken: tuple[bool, ...]):
        self.data = data
        self.broken = broken

    def __getattr__(self, name: str):
        return getattr(self.data, name)

    def modifyArrayHandle(self, index: int) -> FoldingHandle:  # noqa: N802 (Panda's name)
        return FoldingHandle(self.data.modifyArrayHandle(index), self.broken)


class FoldingHandle:
    """A handle on the belts' vertex array that folds the broken sides' rows as they pass."""

    def __init__(self, handle, broken: tuple[bool, ...]):
        self.handle = handle
        self.broken = broken

    def copyDataFrom(self, rows) -> None:  # noqa: N802 (Panda's name)
        """Write ``rows`` (per belt, its rows: (2, R, 12)), the broken belts' folded."""
        laid = np.array(rows, dtype=np.float32)
        for side, broken in enumerate(self.broken):
            if broken:
                laid[side] = folded(laid[side])
        self.handle.copyDataFrom(laid)
