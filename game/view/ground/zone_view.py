"""The capture zone drawn (``--mode zone``): a band on the sand round its edge, in the colour
of whoever holds it; under the score, a line and a bar of the hold; on the minimap, its
circle.

The band is made once, its points on the ground's heights, and only its colour changes.
The HUD's bar is two rectangles rewritten in place when the hold has moved by a pixel.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from panda3d.core import GeomTriangles, NodePath, TextNode, TransparencyAttrib

from common.spec import Spec, tuning
from game.view.draw.colours import rgba
from game.view.draw.meshes import make_mesh
from game.view.hud.hud_draw import DynamicGeoms, LastDrawn, PixelGrid, on_plane, set_text
from game.view.hud.hud_state import ZoneState
from game.view.hud.hud_text import hud_text

UP = (0.0, 0.0, 1.0)


@dataclass(frozen=True)
class ZoneViewSpec(Spec):
    yours_colour: tuple[float, ...] = rgba("the zone while the player's side holds it")
    theirs_colour: tuple[float, ...] = rgba("the zone while the other side holds it")
    nobodys_colour: tuple[float, ...] = rgba("the zone while nobody holds it")
    contested_colour: tuple[float, ...] = rgba("the zone while both sides are in it")
    band_width_m: float = tuning("the band on the sand round the zone's edge", minimum=0.2,
                                 maximum=20.0)
    band_lift_m: float = tuning("the band floats this far above the sand (above its "
                                "ripples)", minimum=0.0, maximum=2.0)
    band_segments: int = tuning("straight pieces round the band", minimum=12, maximum=512)
    bar_size: tuple[float, ...] = tuning("the hold's bar under the score: width, height",
                                         minimum=0.005, maximum=2.0, length=(2, 2))
    bar_backing_colour: tuple[float, ...] = rgba("the bar's empty part")


def zone_colour(spec: ZoneViewSpec, holder: str | None, contested: bool) -> tuple:
    """The zone's colour: contested, or by whose it is ("yours", "theirs", None)."""
    if contested:
        return spec.contested_colour
    return {"yours": spec.yours_colour, "theirs": spec.theirs_colour}.get(holder,
                                                                         spec.nobodys_colour)


def band_points(terrain, centre_xy, radius_m: float, width_m: float, lift_m: float,
                segments: int) -> np.ndarray:
    """The band's points (2 * segments, 3): inner and outer edge in turn, on the ground."""
    angles = np.linspace(0.0, math.tau, segments, endpoint=False)
    radii = np.array([radius_m - width_m, radius_m])
    x = centre_xy[0] + np.outer(np.sin(angles), radii).ravel()
    y = centre_xy[1] + np.outer(np.cos(angles), radii).ravel()
    z = np.asarray(terrain.height_at(x, y), np.float64) + lift_m
    return np.column_stack([x, y, z])


def band_triangles(segments: int) -> np.ndarray:
    """Two triangles per piece of the band, round and closed."""
    inner = 2 * np.arange(segments)
    outer = inner + 1
    next_inner, next_outer = np.roll(inner, -1), np.roll(outer, -1)
    return np.concatenate([np.column_stack([inner, outer, next_outer]),
                           np.column_stack([inner, next_outer, next_inner])])


class ZoneBand:
    """The band round the zone's edge, under ``render``, on ``terrain``'s heights."""

    def __init__(self, render: NodePath, terrain, zone, spec: ZoneViewSpec):
        self.spec = spec
        points = band_points(terrain, zone.centre_xy, zone.spec.radius_m, spec.band_width_m,
                             spec.band_lift_m, spec.band_segments)
        normals = np.tile(UP, (len(points), 1))
        white = np.ones((len(points), 4))
        self.path = render.attachNewNode(make_mesh("capture-zone", points, normals, white,
                                                   band_triangles(spec.band_segments)))
        self.path.setTransparency(TransparencyAttrib.MAlpha)
        self.path.setLightOff()
        self.path.setTwoSided(True)
        self.drawn = LastDrawn()

    def update(self, state: ZoneState | None) -> None:
        if state is None:
            return
        colour = zone_colour(self.spec, state.holder, state.contested)
        if self.drawn.changed("colour", colour):
            self.path.setColor(*colour)

    def destroy(self) -> None:
        self.path.removeNode()


class ZoneBar:
    """The zone's line and the hold's bar under ``top`` (the score line's corner), from
    ``y`` down; hidden in a game without a zone."""

    def __init__(self, top: NodePath, hud_spec, spec: ZoneViewSpec, y: float,
                 grid: PixelGrid, scale: float):
        self.spec = spec
        self.grid, self.scale = grid, scale
        self.drawn = LastDrawn()
        self.root = top.attachNewNode("zone")
        self.text = hud_text(self.root, hud_spec, hud_spec.text_scale * 0.8, TextNode.ACenter)
        self.text.setPos(0, 0, y - hud_spec.text_scale * 0.8)
        self.bar_top = y - hud_spec.text_scale * 1.2
        self.shapes = DynamicGeoms("zone-bar", (GeomTriangles,))
        bar = self.root.attachNewNode(self.shapes.node)
        bar.setTransparency(TransparencyAttrib.MAlpha)
        self.root.hide()

    def update(self, state: ZoneState | None) -> None:
        if state is None:
            if self.drawn.changed("shown", False):
                self.root.hide()
            return
        if self.drawn.changed("shown", True):
            self.root.show()
        set_text(self.text, state.line, self.drawn)
        width, height = self.spec.bar_size
        filled = self.grid.steps(state.share * width, self.scale)
        colour = zone_colour(self.spec, state.holder, state.contested)
        if self.drawn.changed("bar", (filled, colour)):
            left, top = -width / 2.0, self.bar_top
            split = left + state.share * width
            parts = [(left, split, colour), (split, left + width, self.spec.bar_backing_colour)]
            points, colours = [], []
            for start, end, paint in parts:
                quad = [(start, top), (end, top), (end, top - height),
                        (start, top), (end, top - height), (start, top - height)]
                points += quad
                colours += [paint] * len(quad)
            self.shapes.write(0, on_plane(np.array(points)), np.array(colours))


def minimap_circle(state: ZoneState, position_xy, range_m: float, centre, half: float,
                   segments: int) -> np.ndarray:
    """The zone's edge on the minimap as line segments' ends (2 * segments, 2), in the
    minimap's frame (``centre`` its middle, ``half`` its half side, ``range_m`` the
    distance its half side stands for); points beyond its edge are pinned to it."""
    angles = np.linspace(0.0, math.tau, segments + 1)
    offsets = (np.column_stack([np.sin(angles), np.cos(angles)]) * state.radius_m
               + np.asarray(state.centre_xy) - np.asarray(position_xy)) / range_m
    offsets = np.clip(offsets, -1.0, 1.0)
    points = np.asarray(centre) + offsets * half
    return np.column_stack([points[:-1], points[1:]]).reshape(-1, 2)
