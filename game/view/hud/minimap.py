"""The HUD's minimap in the top right corner: the ground round the player, north up (its
relief shaded, :mod:`game.view.hud.minimap_relief`, and its rocks), with a dot for every
other vehicle (enemies, wrecks, others) and the player's own dot with a tick along its
heading. Vehicles beyond its range are pinned to its edge, in their direction."""

from __future__ import annotations

import math

import numpy as np
from panda3d.core import GeomLines, GeomPoints, LineSegs, NodePath, TextNode, TransparencyAttrib

from game.view.draw.overlay import card
from game.view.ground.zone_view import minimap_circle, zone_colour
from game.view.hud.hud_draw import DynamicGeoms, LastDrawn, PixelGrid, on_plane
from game.view.hud.hud_state import HudState
from game.view.hud.hud_text import hud_text
from game.view.hud.minimap_relief import (MinimapRelief, framed, overview_heights,
                                          relief_image, relief_texture)

EDGE_SHARE = 0.96
"""Dots reach at most this share of the minimap's half side (they stay inside its frame)."""
HEADING_TICK_SHARE = 0.14
"""The player's heading tick is this share of the minimap's half side."""
FRAME_ALPHA = 0.6
"""The frame is drawn in the text colour at this opacity."""
ZONE_SEGMENTS = 32
"""Straight pieces round the capture zone's circle (a few pixels across)."""


class Minimap:
    """The minimap's backing, frame and north mark under ``corner`` (the top right corner
    of the view); :meth:`update` draws the dots of a :class:`HudState`, again only when one
    has moved by a pixel of ``grid`` (the view's; the HUD is drawn ``scale`` times as large)
    or changed its kind."""

    KINDS = ("enemy", "wreck", "other")
    """The kinds of dot, in the order of their colours."""

    def __init__(self, corner: NodePath, spec, grid: PixelGrid | None = None,
                 scale: float = 1.0):
        self.spec = spec
        self.grid = grid if grid is not None else PixelGrid()
        self.scale = scale
        self.drawn = LastDrawn()
        self._colours = np.array([spec.enemy_colour, spec.wreck_colour, spec.text_colour],
                                 np.float64)
        m = spec.margin
        size = spec.minimap_size
        self.root = corner.attachNewNode("minimap")
        self.centre = (-m - size / 2, -m - size / 2)
        self.square = (-m - size, -m, -m - size, -m)
        """The minimap's left, right, bottom and top in the corner's frame."""
        card(self.root, "minimap", *self.square, spec.minimap_colour)
        self.ground = self.root.attachNewNode("minimap-ground")
        """Over the backing, under the rocks, the frame and the dots: the relief's place."""
        self.relief: MinimapRelief | None = None
        """The ground's relief under the dots (:meth:`set_ground`; none until then)."""
        self.rock_shapes = DynamicGeoms("minimap-rocks", (GeomPoints,))
        rocks_path = self.root.attachNewNode(self.rock_shapes.node)
        rocks_path.setRenderModeThickness(spec.minimap_rock_px)
        rocks_path.setTransparency(TransparencyAttrib.MAlpha)
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
        self.shapes = DynamicGeoms("minimap-dots", (GeomPoints, GeomLines, GeomLines))
        """The dots (the player's last), the player's heading tick, and the capture zone's
        circle."""
        self.dots_path = self.root.attachNewNode(self.shapes.node)
        self.dots_path.setRenderModeThickness(spec.minimap_dot_px)
        self.dots_path.setTransparency(TransparencyAttrib.MAlpha)
        self._xy, self._kinds = np.zeros((0, 2)), []
        self.drawn.changed("zone", None)  # no zone's circle drawn yet

    def set_ground(self, terrain) -> None:
        """Show ``terrain``'s relief under the dots (once a game's map is known)."""
        s = self.spec
        heights = overview_heights(terrain, s.relief_samples)
        spacing_m = 2.0 * terrain.half_extent_x_m / max(heights.shape[1] - 1, 1)
        image = relief_image(heights, spacing_m, s.relief_low_colour, s.relief_high_colour,
                             s.relief_light_deg)
        # Off the map the minimap shows its backing: the image is framed in texels of that
        # colour as wide as the minimap's window, so it is never sampled beyond its edge.
        window_m = s.minimap_range_m / EDGE_SHARE
        image, first = framed(image, s.minimap_colour, int(math.ceil(window_m / spacing_m)))
        if self.relief is not None:
            self.relief.destroy()
        self.relief = MinimapRelief(
            self.ground, self.square, relief_texture(image),
            (-terrain.half_extent_x_m - first * spacing_m,
             -terrain.half_extent_y_m - first * spacing_m), spacing_m, window_m)
        self.drawn.changed("ground", None)

    def update(self, state: HudState) -> None:
        """The ground round the player, the rocks, the dots of the vehicles, and the
        player's own."""
        s = self.spec
        half = s.minimap_size / 2.0
        self._draw_ground(state, half)
        contacts = state.contacts
        offsets = (np.array([(x, y) for x, y, _ in contacts], np.float64).reshape(-1, 2)
                   - np.asarray(state.position_xy, np.float64)) / s.minimap_range_m
        reach = np.abs(offsets).max(axis=1, initial=0.0)
        # Beyond the range: pinned to the edge, in its direction.
        offsets /= np.maximum(reach, 1.0)[:, None]
        xy = np.asarray(self.centre) + offsets * (half * EDGE_SHARE)
        kinds = [kind for _, _, kind in contacts]
        self._xy, self._kinds = xy, kinds
        tick = half * HEADING_TICK_SHARE
        heading = (math.sin(state.heading_rad) * tick, math.cos(state.heading_rad) * tick)
        # Lists of whole pixels: compared at a fraction of the cost of arrays.
        grid, scale = self.grid, self.scale
        seen = (grid.array_steps(xy, scale).tolist(), kinds,
                (grid.steps(heading[0], scale), grid.steps(heading[1], scale)))
        if self.drawn.changed("dots", seen):
            self._draw(xy, kinds, heading)
        self._draw_zone(state, half)

    def _draw_ground(self, state: HudState, half: float) -> None:
        """The relief's window round the player, and the rocks in it: again when the
        player has moved by a pixel of the minimap, or the rocks changed."""
        s = self.spec
        x_m, y_m = state.position_xy
        metres_per_unit = s.minimap_range_m / (half * EDGE_SHARE)
        seen = (self.grid.steps(x_m / metres_per_unit, self.scale),
                self.grid.steps(y_m / metres_per_unit, self.scale), len(state.rocks))
        if not self.drawn.changed("ground", seen):
            return
        if self.relief is not None:
            self.relief.follow(x_m, y_m)
        rocks = (np.asarray(state.rocks, np.float64).reshape(-1, 2)
                 - (x_m, y_m)) / s.minimap_range_m
        rocks = rocks[np.abs(rocks).max(axis=1, initial=0.0) <= 1.0]  # inside: no pinning
        self.rock_shapes.write(0, on_plane(np.asarray(self.centre)
                                           + rocks * (half * EDGE_SHARE)), s.rock_colour)

    def _draw_zone(self, state: HudState, half: float) -> None:
        """The capture zone's circle, where there is one, in its holder's colour."""
        zone = state.zone
        if zone is None:
            if self.drawn.changed("zone", None):
                self.shapes.write(2, np.zeros((0, 3)), self.spec.zone.nobodys_colour)
            return
        s = self.spec
        points = minimap_circle(zone, state.position_xy, s.minimap_range_m, self.centre,
                                half * EDGE_SHARE, ZONE_SEGMENTS)
        colour = zone_colour(s.zone, zone.holder, zone.contested)
        if self.drawn.changed("zone", (self.grid.array_steps(points[0], self.scale).tolist(),
                                       colour)):
            self.shapes.write(2, on_plane(points), colour)

    def _draw(self, xy: np.ndarray, kinds: list, heading: tuple) -> None:
        s = self.spec
        index = {kind: i for i, kind in enumerate(self.KINDS)}
        colours = self._colours[[index.get(kind, len(self.KINDS) - 1) for kind in kinds]]
        centre = np.asarray(self.centre)
        self.shapes.write(0, on_plane(np.vstack([xy, centre])),
                          np.vstack([colours.reshape(-1, 4), s.player_colour]))
        self.shapes.write(1, on_plane(np.vstack([centre, centre + heading])), s.player_colour)

    @property
    def dots(self) -> list[tuple[float, float, str]]:
        """The last dots: (x, y) in the corner's frame and their kind."""
        return [(float(x), float(y), kind) for (x, y), kind in zip(self._xy.tolist(),
                                                                    self._kinds)]

    def show(self, visible: bool) -> None:
        (self.root.show if visible else self.root.hide)()
