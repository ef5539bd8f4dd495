"""Drawing that changes from frame to frame without making nodes or Geoms: the HUD's rings,
bars, dots and wedges, and the capture zone's bar (the tracers are
:mod:`game.view.effects.combat_view`'s own).

- :class:`PixelGrid`: how many pixels one overlay unit covers in a view, so that a value
  is redrawn only once it has moved by a pixel (or, not known yet, on any change).
- :class:`LastDrawn`: what each part last wrote, so that the same value is not written
  again (a TextNode's text, a node's place or colour, a shape's rows).
- :class:`DynamicGeoms`: one GeomNode whose Geoms (one primitive each, positions and
  float RGBA colours) are rewritten in place from numpy, the primitive's vertex list
  only when the row count changes.
"""

from __future__ import annotations

import math

import numpy as np
from panda3d.core import Geom, GeomNode, GeomVertexData

from game.view.draw.meshes import COLOUR_VERTEX_FORMAT

COLOUR_LEVELS = 255
"""An 8-bit colour channel's steps: a fade closer than this to the last drawn shows no
different."""
_ROW_FLOATS = 7
"""x, y, z, r, g, b, a: a row of :data:`COLOUR_VERTEX_FORMAT`."""


class PixelGrid:
    """The size of a view's pixel in its overlay's units (aspect2d: 1 is half the view's
    height). Shared by the parts of a HUD; :meth:`set_view_height` follows the view."""

    def __init__(self):
        self.px_per_unit = 0.0
        """Pixels per overlay unit (0: not known: every change counts)."""

    def set_view_height(self, height_px: int) -> None:
        self.px_per_unit = max(float(height_px), 0.0) / 2.0

    def steps(self, value: float, scale: float = 1.0):
        """``value`` (overlay units, drawn ``scale`` times as large) in whole pixels, or
        as it is while the view's size is not known."""
        if self.px_per_unit <= 0.0:
            return value
        return round(value * scale * self.px_per_unit)

    def array_steps(self, values: np.ndarray, scale: float = 1.0) -> np.ndarray:
        """:meth:`steps` of every element."""
        if self.px_per_unit <= 0.0:
            return np.asarray(values, np.float64)
        return np.rint(np.asarray(values, np.float64) * (scale * self.px_per_unit))


def colour_steps(share: float) -> int:
    """An opacity or colour share (0..1) in 8-bit steps."""
    return round(min(max(share, 0.0), 1.0) * COLOUR_LEVELS)


def bearing_steps(grid: PixelGrid, bearing_rad: float, radius: float, scale: float):
    """A direction on a ring of ``radius`` in pixels along the ring (wrapping round)."""
    return grid.steps(math.remainder(bearing_rad, math.tau) * radius, scale)


_UNSET = object()


class LastDrawn:
    """The values each part of a drawing last wrote, by key."""

    def __init__(self):
        self._values: dict = {}

    def changed(self, key, value) -> bool:
        """True (and remember ``value``) when ``value`` differs from the last one."""
        last = self._values.get(key, _UNSET)
        if last is not _UNSET and (last is value or _equal(last, value)):
            return False
        self._values[key] = value
        return True

    def forget(self) -> None:
        """Everything is written again next time."""
        self._values.clear()


def _equal(a, b) -> bool:
    """Equal values, arrays (same shape and elements) and tuples of them alike."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)
                and a.shape == b.shape and bool(np.array_equal(a, b)))
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    return a == b


def set_text(path, text: str, drawn: LastDrawn) -> None:
    """A TextNode's text, written only when it changed (its glyphs are laid out again on
    every write)."""
    if drawn.changed(id(path), text):
        path.node().setText(text)


class DynamicGeoms:
    """A GeomNode named ``name`` with one Geom per primitive class in ``primitives``
    (GeomTriangles, GeomLines, GeomPoints), each over its own rows that :meth:`write`
    replaces."""

    def __init__(self, name: str, primitives: tuple):
        self.node = GeomNode(name)
        self._counts = []
        for kind in primitives:
            geom = Geom(GeomVertexData(name, COLOUR_VERTEX_FORMAT, Geom.UH_dynamic))
            geom.addPrimitive(kind(Geom.UH_dynamic))
            self.node.addGeom(geom)
            self._counts.append(0)
        self._rows = np.zeros((0, _ROW_FLOATS), np.float32)

    def write(self, index: int, positions: np.ndarray, colours) -> None:
        """Geom ``index``'s vertices: ``positions`` (n, 3) with ``colours`` (n, 4) or one
        RGBA for all, drawn in order by its primitive."""
        positions = np.asarray(positions, np.float32).reshape(-1, 3)
        n = len(positions)
        if len(self._rows) < n:
            self._rows = np.zeros((n, _ROW_FLOATS), np.float32)
        rows = self._rows[:n]
        rows[:, 0:3] = positions
        rows[:, 3:7] = colours
        geom = self.node.modifyGeom(index)
        data = geom.modifyVertexData()
        data.uncleanSetNumRows(n)
        if n:
            memoryview(data.modifyArray(0)).cast("B")[:] = memoryview(rows).cast("B")
        if n != self._counts[index]:
            primitive = geom.modifyPrimitive(0)
            primitive.clearVertices()
            if n:
                primitive.addConsecutiveVertices(0, n)
            self._counts[index] = n


def on_plane(xy: np.ndarray) -> np.ndarray:
    """Overlay points (n, 2) as (x, 0, y): the overlay's plane in its 3-D frame."""
    xy = np.asarray(xy, np.float64).reshape(-1, 2)
    return np.column_stack([xy[:, 0], np.zeros(len(xy)), xy[:, 1]])
