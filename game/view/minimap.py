"""The HUD's minimap in the top right corner: the ground round the player, north up, with
a dot for every other vehicle (enemies, wrecks, others) and the player's own dot with a
tick along its heading. Vehicles beyond its range are pinned to its edge, in their
direction."""

from __future__ import annotations

import math

from panda3d.core import (Geom, GeomLines, GeomNode, GeomPoints, GeomVertexData,
                          GeomVertexFormat, GeomVertexWriter, LineSegs, NodePath, TextNode,
                          TransparencyAttrib)

from game.view.hud_state import HudState
from game.view.hud_text import hud_text
from game.view.overlay import card

EDGE_SHARE = 0.96
"""Dots reach at most this share of the minimap's half side (they stay inside its frame)."""
HEADING_TICK_SHARE = 0.14
"""The player's heading tick is this share of the minimap's half side."""
FRAME_ALPHA = 0.6
"""The frame is drawn in the text colour at this opacity."""


class Minimap:
    """The minimap's backing, frame and north mark under ``corner`` (the top right corner
    of the view); :meth:`update` draws the dots of a :class:`HudState`."""

    def __init__(self, corner: NodePath, spec):
        self.spec = spec
        m = spec.margin
        size = spec.minimap_size
        self.root = corner.attachNewNode("minimap")
        self.centre = (-m - size / 2, -m - size / 2)
        card(self.root, "minimap", -m - size, -m, -m - size, -m, spec.minimap_colour)
        frame = LineSegs("minimap-frame")
        frame.setColor(*spec.text_colour[:3], FRAME_ALPHA)
        corners = ((-m - size, -m), (-m, -m), (-m, -m - size), (-m - size, -m - size))
        for start, end in zip(corners, corners[1:] + corners[:1]):
            frame.moveTo(start[0], 0, start[1])
            frame.drawTo(end[0], 0, end[1])
        self.root.attachNewNode(frame.create())
        north = hud_text(self.root, spec, spec.text_scale * 0.5, TextNode.ACenter)
        north.node().setText("N")
        north.setPos(self.centre[0], 0, -m - spec.text_scale * 0.55)
        self.dots_node = GeomNode("minimap-dots")
        self.dots_path = self.root.attachNewNode(self.dots_node)
        self.dots_path.setRenderModeThickness(spec.minimap_dot_px)
        self.dots_path.setTransparency(TransparencyAttrib.MAlpha)
        self.dots: list[tuple[float, float, str]] = []
        """Last drawn dots: (x, y) in the corner's frame and their kind."""

    def update(self, state: HudState) -> None:
        """The dots of the vehicles round the player, and the player's own."""
        s = self.spec
        half = s.minimap_size / 2.0
        cx, cy = self.centre
        px, py = state.position_xy
        dots = []
        for x, y, kind in state.contacts:
            dx, dy = (x - px) / s.minimap_range_m, (y - py) / s.minimap_range_m
            reach = max(abs(dx), abs(dy))
            if reach > 1.0:  # beyond the range: pinned to the edge, in its direction
                dx, dy = dx / reach, dy / reach
            dots.append((cx + dx * half * EDGE_SHARE, cy + dy * half * EDGE_SHARE, kind))
        self.dots = dots
        self._draw(dots, state.heading_rad)

    def _draw(self, dots: list, heading_rad: float) -> None:
        s = self.spec
        colours = {"enemy": s.enemy_colour, "wreck": s.wreck_colour, "other": s.text_colour}
        cx, cy = self.centre
        self.dots_node.removeAllGeoms()
        data = GeomVertexData("dots", GeomVertexFormat.getV3c4(), Geom.UHStream)
        vertex = GeomVertexWriter(data, "vertex")
        colour = GeomVertexWriter(data, "color")
        for x, y, kind in dots:
            vertex.addData3(x, 0.0, y)
            colour.addData4(*colours.get(kind, s.text_colour))
        points = GeomPoints(Geom.UHStream)
        if dots:
            points.addConsecutiveVertices(0, len(dots))
        # The player: a dot and a tick along its heading.
        base = len(dots)
        tick = s.minimap_size / 2.0 * HEADING_TICK_SHARE
        for x, y in ((cx, cy), (cx + math.sin(heading_rad) * tick,
                                 cy + math.cos(heading_rad) * tick)):
            vertex.addData3(x, 0.0, y)
            colour.addData4(*s.player_colour)
        points.addVertex(base)
        geom = Geom(data)
        geom.addPrimitive(points)
        self.dots_node.addGeom(geom)
        heading_line = GeomLines(Geom.UHStream)
        heading_line.addVertices(base, base + 1)
        line = Geom(data)  # a Geom holds one kind of primitive
        line.addPrimitive(heading_line)
        self.dots_node.addGeom(line)

    def show(self, visible: bool) -> None:
        (self.root.show if visible else self.root.hide)()
