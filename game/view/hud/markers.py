"""Enemy markers: over every enemy the player's vehicle has spotted, a downward chevron
and, beneath it, the distance in metres; red for a living enemy, grey for a wreck.

An enemy off the view (or behind the camera) is marked at the view's edge, a margin
inside it, with an arrow pointing toward it and its distance beside the arrow
(:mod:`game.view.draw.view_projection`). Who is marked, and for how long after sight of it is
lost, is :mod:`game.view.hud.spotter`'s: the bots' own spotting rules, re-checked a few
times a second per enemy; where the markers are drawn is worked out every frame.

:class:`EnemyMarkers` works out the markers (plain :class:`~game.view.hud.hud_state.Marker`
values in a view's overlay coordinates); :class:`MarkerLayer` draws them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from panda3d.core import (Geom, GeomNode, GeomTriangles, GeomVertexData, GeomVertexFormat,
                          GeomVertexWriter, NodePath, TextNode)

from common.spec import Spec, SpecError, tuning
from game.sim.spotting import SpottingSpec, hull_middle_ws
from game.view.draw.colours import rgba
from game.view.draw.overlay import keep_alpha
from game.view.draw.view_projection import ViewProjection, places_on_overlay
from game.view.hud.hud_draw import LastDrawn, PixelGrid, bearing_steps, set_text
from game.view.hud.hud_state import Marker, enemies_of
from game.view.hud.hud_text import hud_text
from game.view.hud.spotter import EnemySpotter, eye_of

CHEVRON = ((-0.5, 1.0), (0.0, 0.0), (0.0, 0.55), (-0.5, 1.0), (0.0, 0.55), (-0.22, 1.0),
           (0.0, 0.0), (0.5, 1.0), (0.0, 0.55), (0.0, 0.55), (0.5, 1.0), (0.22, 1.0))
"""The chevron's four triangles, in shares of its size: two thick arms meeting in a tip
at the bottom."""
ARROW = ((0.0, 0.0), (-1.0, 0.6), (-0.7, 0.0), (-0.7, 0.0), (-1.0, -0.6), (0.0, 0.0))
"""The edge arrow's two triangles, in shares of its size, pointing along +x with its tip
at the origin."""
TEXT_LINE_HEIGHTS = 1.3
"""The chevron sits this many text heights above the distance's baseline."""
TEXT_HALF_WIDTHS = 1.3
"""Beside an edge arrow, the distance's middle is this many text heights further in
(about half of "240 m")."""
TEXT_MIDDLE_DROP = 0.35
"""A line of text is centred on a point when its baseline is this many heights below."""
TEXT_CARD_MARGIN = 0.15
"""The distance sits on a card of the HUD's panel colour reaching this many text heights
round it (red text over sand reads poorly without one)."""


@dataclass(frozen=True)
class MarkerSpec(Spec):
    """Enemy markers: sizes in shares of the view's half height."""

    recheck_s: float = tuning("each enemy's line of sight is checked again this often",
                              minimum=0.02, maximum=5.0)
    memory_s: float = tuning("a living enemy stays marked this long after the last check "
                             "that saw it (at least recheck_s)", minimum=0.0, maximum=60.0)
    lift_m: float = tuning("a marker points at this far above the middle of the enemy's hull",
                           minimum=0.0, maximum=20.0)
    size: float = tuning("the chevron's width and height", minimum=0.005, maximum=0.3)
    gap: float = tuning("from the point over the enemy up to the distance's baseline",
                        minimum=0.0, maximum=0.2)
    text_scale: float = tuning("the distance's height", minimum=0.01, maximum=0.2)
    arrow_size: float = tuning("the edge arrow's length", minimum=0.005, maximum=0.3)
    edge_margin: float = tuning("off the view, a marker keeps this far inside its edges",
                                minimum=0.0, maximum=0.5)
    distance_step_m: float = tuning("distances are shown rounded to this", minimum=1.0,
                                    maximum=100.0)
    enemy_colour: tuple[float, ...] = rgba("a living enemy's marker")
    wreck_colour: tuple[float, ...] = rgba("a wreck's marker")

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.memory_s < self.recheck_s:  # marks would blink off between checks
            raise SpecError("memory_s", self.memory_s, f"at least recheck_s ({self.recheck_s})")


Box = tuple[float, float, float, float]
"""A panel's extent on the markers' layer: left, bottom, right, top."""


def clear_of_panels(markers: list[Marker], panels: list[Box], reach: float,
                    half_width: float, half_height: float) -> list[Marker]:
    """``markers`` with each one at the view's edge moved along that edge until it stands
    clear of every panel (the dashboard, the minimap: what they show must not hide under
    a marker), by ``reach`` (a marker's farthest part from its place: its arrow and its
    distance). It moves toward the nearer end of the first panel it meets, through any
    panel next to that one, or the other way where that would leave the edge's length
    (``half_width`` across and ``half_height`` up, from the middle); where neither is free,
    it stays. Markers over enemies in view stay where they are."""
    grown = [(left - reach, bottom - reach, right + reach, top + reach)
             for left, bottom, right, top in panels]
    return [marker if marker.on_screen else _clear_on_edge(marker, grown, half_width,
                                                           half_height)
            for marker in markers]


def _clear_on_edge(marker: Marker, grown: list[Box], half_width: float,
                   half_height: float) -> Marker:
    """One edge marker moved clear of the ``grown`` panels (:func:`clear_of_panels`)."""
    # A marker on the top or bottom edge moves across; on a side, up or down.
    across = half_height - abs(marker.y) <= half_width - abs(marker.x)
    along, limit = (marker.x, half_width) if across else (marker.y, half_height)

    def met(place: float) -> Box | None:
        x, y = (place, marker.y) if across else (marker.x, place)
        return next((box for box in grown if box[0] < x < box[2] and box[1] < y < box[3]),
                    None)

    first = met(along)
    if first is None:
        return marker
    low, high = (first[0], first[2]) if across else (first[1], first[3])
    for upward in sorted((True, False), key=lambda up: abs((high if up else low) - along)):
        place, box = along, first
        while box is not None:  # each move leaves a panel for good: as many as there are
            place = (box[2] if across else box[3]) if upward else (box[0] if across else box[1])
            box = met(place)
        if -limit <= place <= limit:
            return replace(marker, x=place) if across else replace(marker, y=place)
    return marker


class EnemyMarkers:
    """Works out a view's enemy markers each frame."""

    def __init__(self, spec: MarkerSpec, spotting: SpottingSpec):
        self.spec = spec
        self.spotter = EnemySpotter(spotting, spec.recheck_s, spec.memory_s)

    def on_events(self, events: list) -> None:
        self.spotter.on_events(events)

    def reset(self) -> None:
        self.spotter.reset()

    def update(self, simulation, battle, player, projection: ViewProjection) -> list[Marker]:
        """The markers of the enemies ``player`` has spotted, on ``projection``'s view."""
        spec = self.spec
        enemies = enemies_of(simulation, battle, player)
        # Online, the vehicles drawn are stand-ins with no bodies of their own: the ground
        # alone hides them there.
        world = None if getattr(battle, "online", False) else getattr(simulation, "world", None)
        marked = self.spotter.update(simulation.time_s, eye_of(player), enemies,
                                     simulation.terrain, world, player,
                                     getattr(simulation, "sight_screens", None))
        if not marked:
            return []
        # hull_middle_ws of every marked vehicle at once: the same sums, one array each.
        states = [vehicle.current for vehicle, _ in marked]
        drops_m = np.array([vehicle.spec.hull.centre_of_mass_drop_m for vehicle, _ in marked])
        middles = (np.array([state.position_ws for state in states], np.float64)
                   + np.array([state.axes_ws()[2] for state in states]) * drops_m[:, None])
        distances = np.linalg.norm(middles - hull_middle_ws(player), axis=1).tolist()
        anchors = middles + (0.0, 0.0, spec.lift_m)
        # Every anchor into the camera's frame at once (the world's root to the camera).
        camera = projection.camera
        to_camera = np.array(camera.getTop().getMat(camera), np.float64)
        local = anchors @ to_camera[:3, :3] + to_camera[3, :3]
        places = places_on_overlay(local, projection.tan_half_fov, projection.aspect,
                                   spec.edge_margin)
        return [Marker(vehicle.name, x, y, on_screen, toward_rad, distance, wreck)
                for (vehicle, wreck), x, y, on_screen, toward_rad, distance
                in zip(marked, *places, distances)]


def _triangles(name: str, corners, size: float, offset_y: float = 0.0) -> GeomNode:
    """A flat shape from triangle corners (shares of ``size``), raised by ``offset_y``."""
    data = GeomVertexData(name, GeomVertexFormat.getV3(), Geom.UHStatic)
    data.setNumRows(len(corners))
    vertex = GeomVertexWriter(data, "vertex")
    for x, y in corners:
        vertex.addData3(x * size, 0.0, y * size + offset_y)
    primitive = GeomTriangles(Geom.UHStatic)
    primitive.addConsecutiveVertices(0, len(corners))
    geom = Geom(data)
    geom.addPrimitive(primitive)
    node = GeomNode(name)
    node.addGeom(geom)
    return node


class _MarkerNodes:
    """One marker's nodes: its place, and under it (scaled with the HUD) the chevron, the
    edge arrow and the distance. Each is written only when what it shows changed (a place
    or a direction by a pixel of ``grid``)."""

    def __init__(self, parent: NodePath, spec: MarkerSpec, text_spec, scale: float,
                 grid: PixelGrid):
        self.spec = spec
        self.scale = scale
        self.grid = grid
        self.drawn = LastDrawn()
        self._shown: tuple | None = None
        """What :meth:`show` drew last: place in pixels, text, wreck, edge arrow's bearing."""
        self.root = parent.attachNewNode("enemy-marker")
        self.shape = self.root.attachNewNode("shape")
        self.shape.setScale(scale)
        chevron_y = spec.gap + spec.text_scale * TEXT_LINE_HEIGHTS
        self.chevron = self.shape.attachNewNode(_triangles("chevron", CHEVRON, spec.size,
                                                           chevron_y))
        self.arrow = self.shape.attachNewNode(_triangles("arrow", ARROW, spec.arrow_size))
        self.text = hud_text(self.shape, text_spec, spec.text_scale, TextNode.ACenter)
        self.text.node().setCardColor(*text_spec.panel_colour)
        self.text.node().setCardAsMargin(TEXT_CARD_MARGIN, TEXT_CARD_MARGIN, TEXT_CARD_MARGIN,
                                         TEXT_CARD_MARGIN)

    def set_visible(self, visible: bool) -> None:
        if self.drawn.changed("shown", visible):
            (self.root.show if visible else self.root.hide)()
            if not visible:
                self._shown = None  # shown again, it is drawn afresh

    def show(self, marker: Marker) -> None:
        """Draw ``marker``: nothing is written where it shows what was drawn last (the same
        pixel, text, colour and edge arrow), which is most frames for most markers."""
        spec = self.spec
        place = (self.grid.steps(marker.x), self.grid.steps(marker.y))
        step = spec.distance_step_m
        text = f"{round(marker.distance_m / step) * step:.0f} m"
        inward = spec.arrow_size + spec.text_scale * TEXT_HALF_WIDTHS
        pointing = (None if marker.on_screen
                    else bearing_steps(self.grid, marker.toward_rad, inward, self.scale))
        shown = (place, text, marker.wreck, pointing)
        if shown == self._shown:
            return
        self._shown = shown
        self.set_visible(True)
        if self.drawn.changed("place", place):
            self.root.setPos(marker.x, 0.0, marker.y)
        set_text(self.text, text, self.drawn)
        if self.drawn.changed("wreck", marker.wreck):
            colour = spec.wreck_colour if marker.wreck else spec.enemy_colour
            for path in (self.chevron, self.arrow):
                path.setColor(*colour)
            self.text.node().setTextColor(*colour)
        if self.drawn.changed("pointing", pointing):
            self._point(marker, pointing is None, inward)

    def _point(self, marker: Marker, on_screen: bool, inward: float) -> None:
        """The chevron over an enemy in view; else the edge arrow toward it, the distance
        beside it."""
        spec = self.spec
        if on_screen:
            self.chevron.show()
            self.arrow.hide()
            self.text.setPos(0.0, 0.0, spec.gap)
            return
        self.chevron.hide()
        self.arrow.show()
        self.arrow.setR(-math.degrees(marker.toward_rad))  # setR turns clockwise
        self.text.setPos(-math.cos(marker.toward_rad) * inward, 0.0,
                         -math.sin(marker.toward_rad) * inward
                         - spec.text_scale * TEXT_MIDDLE_DROP)


class MarkerLayer:
    """Draws markers under ``parent`` (the view's aspect2d); ``scale``: the HUD's; ``grid``:
    the view's pixels. Each marker's nodes are kept for the next one (hidden meanwhile)."""

    def __init__(self, parent: NodePath, spec: MarkerSpec, text_spec, scale: float = 1.0,
                 grid: PixelGrid | None = None):
        self.spec = spec
        self.grid = grid if grid is not None else PixelGrid()
        self.text_spec = text_spec
        self.scale = scale
        self.root = parent.attachNewNode("enemy-markers")
        keep_alpha(self.root)
        self._nodes: list[_MarkerNodes] = []
        self.markers: list[Marker] = []
        """The markers drawn last."""

    def update(self, markers: list[Marker], reserve: int = 0) -> None:
        """Draw ``markers``; keep nodes for at least ``reserve`` (as many as could ever be
        marked: no nodes are made mid-game when more enemies come into sight)."""
        while len(self._nodes) < max(len(markers), reserve):
            self._nodes.append(_MarkerNodes(self.root, self.spec, self.text_spec, self.scale,
                                            self.grid))
        for nodes, marker in zip(self._nodes, markers):
            nodes.show(marker)
        for nodes in self._nodes[len(markers):]:
            nodes.set_visible(False)
        self.markers = list(markers)

    def drawn(self) -> list[dict]:
        """What each shown marker draws: its place, text, colour and whether its chevron
        or its edge arrow shows (for checks)."""
        return [{"x": nodes.root.getX(), "y": nodes.root.getZ(),
                 "text": nodes.text.node().getText(),
                 "colour": tuple(nodes.chevron.getColor()),
                 "chevron": not nodes.chevron.isHidden(), "arrow": not nodes.arrow.isHidden(),
                 "arrow_tip_towards": -math.radians(nodes.arrow.getR())}
                for nodes in self._nodes if not nodes.root.isHidden()]

    def destroy(self) -> None:
        self.root.removeNode()
        self._nodes.clear()
