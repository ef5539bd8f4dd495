"""Drawing on the 2-D overlay (aspect2d), shared by the HUD, the menus and the debug text:
alpha blending that keeps the frame opaque, flat cards and ring arcs."""

from __future__ import annotations

import math

import numpy as np
from panda3d.core import CardMaker, ColorBlendAttrib, NodePath, TransparencyAttrib


def keep_alpha(path: NodePath) -> None:
    """Blend colours by alpha but leave the frame's alpha as it is (an opaque frame stays
    opaque: screenshots and a window behind the game are not see-through)."""
    path.setAttrib(ColorBlendAttrib.make(
        ColorBlendAttrib.MAdd, ColorBlendAttrib.OIncomingAlpha,
        ColorBlendAttrib.OOneMinusIncomingAlpha, ColorBlendAttrib.MAdd,
        ColorBlendAttrib.OZero, ColorBlendAttrib.OOne))


def card(parent: NodePath, name: str, left: float, right: float, bottom: float, top: float,
         colour) -> NodePath:
    """A flat rectangle in ``colour`` (its alpha blends), on ``parent``'s plane."""
    maker = CardMaker(name)
    maker.setFrame(left, right, bottom, top)
    path = parent.attachNewNode(maker.generate())
    path.setColor(*colour)
    path.setTransparency(TransparencyAttrib.MAlpha)
    return path


def ring_triangles(segments: int, share: float, inner: float, outer: float) -> np.ndarray:
    """Corner points (n, 3, 2) of a ring's arc from 12 o'clock, clockwise, over ``share``."""
    n = max(1, int(math.ceil(segments * min(max(share, 0.0), 1.0))))
    angles = np.linspace(0.0, 2.0 * math.pi * min(max(share, 0.0), 1.0), n + 1)
    x, y = np.sin(angles), np.cos(angles)
    inner_pts = np.stack([x * inner, y * inner], axis=1)
    outer_pts = np.stack([x * outer, y * outer], axis=1)
    first = np.stack([inner_pts[:-1], outer_pts[:-1], outer_pts[1:]], axis=1)
    second = np.stack([inner_pts[:-1], outer_pts[1:], inner_pts[1:]], axis=1)
    return np.concatenate([first, second])
