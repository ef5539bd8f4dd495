"""The heads-up display on a view's aspect2d: sizes are shares of the view's half height,
and its panels hang from the view's corners.

- bottom left: speed, gear on a drawn H gate, rpm and health (:mod:`game.view.hud.dashboard`),
  and above them a tank's parts on its silhouette, with a line for each part that is not
  whole and for an engine fire (:mod:`game.view.hud.damage_panel`);
- centre: a crosshair at the gun's predicted impact point, ringed by the reload (the
  view projects the point; it is worked out only every few frames), an X round it when
  the player's shell hits an enemy or kills one, and wedges on a ring round the view's
  middle toward who hurt the player (:mod:`game.view.hud.hit_indicators`);
- over the enemies the player has spotted: markers with their distance, at the view's
  edge with an arrow when they are off it (:mod:`game.view.hud.markers`);
- top right: a minimap round the player, north up (:mod:`game.view.hud.minimap`), and under
  it the last kills (:mod:`game.view.hud.kill_feed`);
- top centre: round and score, and below it short messages (round end, destroyed,
  a refused shift) that fade after a few seconds;
- online: the ping top left, and the scoreboard in the middle while Tab has it shown
  (:mod:`game.view.hud.scoreboard`).

A view narrower than the window (split side by side) draws the HUD smaller
(:func:`hud_scale`); compact (:meth:`Hud.set_compact`) keeps speed, gear, health, the
damage panel, the crosshair, the markers and the hit and damage indicators, and hides the
rest.

:func:`game.view.hud.hud_state.read_hud_state` takes what the HUD shows from the simulation (and
the battle, when there is one) into a plain :class:`HudState`; :class:`Hud` only draws it,
so a HUD built under a bare NodePath (no window) shows the same values in tests.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from panda3d.core import GeomTriangles, LineSegs, NodePath, TextNode, TransparencyAttrib

from common.spec import Spec, tuning
from game.sim.events import Event
from game.view.draw.colours import rgba
from game.view.draw.overlay import keep_alpha, ring_triangles
from game.view.ground.zone_view import ZoneBar, ZoneViewSpec
from game.view.hud.damage_panel import DamagePanel, DamagePanelSpec
from game.view.hud.dashboard import Dashboard
from game.view.hud.hit_indicators import (DamageIndicator, DamageIndicatorSpec, HitMarker,
                                      HitMarkerSpec)
from game.view.hud.hud_draw import DynamicGeoms, LastDrawn, PixelGrid, on_plane, set_text
from game.view.hud.hud_state import HudState, message_for
from game.view.hud.hud_text import hud_text
from game.view.hud.kill_feed import KillFeed, KillFeedSpec
from game.view.hud.markers import (TEXT_HALF_WIDTHS, Box, MarkerLayer, MarkerSpec,
                                   clear_of_panels)
from game.view.hud.minimap import Minimap
from game.view.hud.scoreboard import ScoreboardView

CROSSHAIR_GAP_SHARE = 0.35
"""The crosshair's strokes stop this share of its half size short of its middle."""
CROSSHAIR_PX = 2.0
"""The crosshair's strokes' thickness."""
SCORE_LINE_DEPTH = 1.5
"""The score line's lowest ink, in text heights below the top margin: its baseline stands
one text height down, and its descenders reach under it (a "y" about 0.4 of one): the
crosshair's ring stays under that."""
MESSAGE_LINES_DOWN = 2.6
MESSAGE_LINES_DOWN_WITH_ZONE = 3.9
"""The messages' first line, in text heights below the top margin: under the score line,
or under the capture zone's line and bar."""


@dataclass(frozen=True)
class HudSpec(Spec):
    """The heads-up display: sizes in shares of the window's half height (aspect2d)."""

    text_scale: float = tuning("height of normal text", minimum=0.01, maximum=0.3)
    margin: float = tuning("distance of every panel from the window's edges", minimum=0.0,
                           maximum=0.5)
    text_colour: tuple[float, ...] = rgba("text")
    shadow_colour: tuple[float, ...] = rgba("text's drop shadow")
    panel_colour: tuple[float, ...] = rgba("panels' backing")
    gate_size: float = tuning("the gear gate's height", minimum=0.05, maximum=1.0)
    gate_colour: tuple[float, ...] = rgba("the gate's slots")
    lever_colour: tuple[float, ...] = rgba("the lever's knob")
    shifting_colour: tuple[float, ...] = rgba("the knob while a shift is under way")
    lever_speed_per_s: float = tuning("the drawn knob follows the lever at this many gate "
                                      "units per second", minimum=0.5, maximum=100.0)
    bar_size: tuple[float, ...] = tuning("rpm and health bars: width, height", minimum=0.005,
                                         maximum=2.0, length=(2, 2))
    rpm_colour: tuple[float, ...] = rgba("the rpm bar")
    redline_colour: tuple[float, ...] = rgba("the rpm bar's red zone")
    redline_share: float = tuning("the red zone starts at this share of the redline",
                                  minimum=0.5, maximum=1.0)
    health_colour: tuple[float, ...] = rgba("the health bar when healthy")
    low_health_colour: tuple[float, ...] = rgba("the health bar at zero")
    reload_radius: float = tuning("the reload ring's radius", minimum=0.01, maximum=0.5)
    reload_width: float = tuning("the reload ring's width", minimum=0.002, maximum=0.2)
    reload_segments: int = tuning("segments round the reload ring", minimum=8, maximum=256)
    reload_colour: tuple[float, ...] = rgba("the reload ring while reloading")
    ready_colour: tuple[float, ...] = rgba("the reload ring when loaded")
    crosshair_size: float = tuning("the crosshair's half size", minimum=0.005, maximum=0.5)
    crosshair_colour: tuple[float, ...] = rgba("the crosshair")
    aim_circle_colour: tuple[float, ...] = rgba("the gun's aiming circle round the crosshair")
    aim_circle_segments: int = tuning("segments round the aiming circle", minimum=8,
                                      maximum=256)
    aim_circle_least: float = tuning("the aiming circle is drawn no smaller than this (just "
                                     "round the reload ring: closed, as far as the eye can "
                                     "tell at that size)", minimum=0.0, maximum=0.5)
    crosshair_every_frames: int = tuning("the predicted impact point is worked out once in "
                                         "this many frames", minimum=1, maximum=60)
    crosshair_max_flight_s: float = tuning("it follows the shell's arc at most this long",
                                           minimum=0.1, maximum=60.0)
    minimap_size: float = tuning("the minimap's side", minimum=0.1, maximum=1.5)
    minimap_range_m: float = tuning("the minimap shows this far round the player",
                                    minimum=10.0, maximum=10000.0)
    minimap_colour: tuple[float, ...] = rgba("the minimap's backing")
    minimap_dot_px: float = tuning("a vehicle's dot on the minimap", minimum=1.0,
                                   maximum=32.0)
    player_colour: tuple[float, ...] = rgba("the player on the minimap")
    enemy_colour: tuple[float, ...] = rgba("enemies on the minimap")
    wreck_colour: tuple[float, ...] = rgba("wrecks on the minimap")
    rock_colour: tuple[float, ...] = rgba("rocks on the minimap")
    minimap_rock_px: float = tuning("a rock's dot on the minimap", minimum=1.0, maximum=20.0)
    relief_low_colour: tuple[float, ...] = rgba("the minimap's ground in the lowest hollow")
    relief_high_colour: tuple[float, ...] = rgba("... and on the highest crest")
    relief_light_deg: float = tuning("the minimap's relief is lit from this compass bearing",
                                     minimum=0.0, maximum=360.0)
    relief_samples: int = tuning("the relief's texture has at most this many texels a side "
                                 "over the whole map", minimum=16, maximum=2048)
    message_s: float = tuning("a message stays this long", minimum=0.5, maximum=30.0)
    message_lines: int = tuning("most messages shown at once", minimum=1, maximum=10)
    least_view_scale: float = tuning("a view narrower than the window draws its HUD smaller, "
                                     "but at least this share of its full size (its smallest "
                                     "text stays readable)", minimum=0.3, maximum=1.0)
    markers: MarkerSpec = tuning("markers over the enemies the player has spotted")
    hit_marker: HitMarkerSpec = tuning("the X round the crosshair for a hit and a kill")
    damage: DamageIndicatorSpec = tuning("wedges toward who hurt the player")
    kill_feed: KillFeedSpec = tuning("the last kills, under the minimap")
    damage_panel: DamagePanelSpec = tuning("the tank's parts on its silhouette, above the "
                                           "dashboard")
    zone: ZoneViewSpec = tuning("the capture zone (--mode zone): its band on the sand, its "
                                "line and bar under the score, its circle on the minimap")


def hud_scale(region, least: float) -> float:
    """How big a view's HUD is drawn, for a view over ``region`` (left, right, bottom,
    top: shares of the window). Its sizes are shares of the view's half height; a view as
    wide for its height as the window, or wider (stacked halves: already drawn at half the
    window's height), keeps them. A narrower one (side-by-side halves) shrinks the HUD by
    the square root of how much narrower it is (the HUD then covers the same share of the
    view's area as it does of the whole window's), but to no less than ``least``."""
    left, right, bottom, top = region
    return max(least, min(1.0, math.sqrt((right - left) / max(top - bottom, 1e-9))))


class Hud:
    """Draws a :class:`HudState` on aspect2d. ``corners``: NodePaths by name
    (``bottom_left``, ``top_left``, ``top_right``, ``top_center``, ``center``) that follow
    the view's edges (ShowBase's a2d corners); any missing one falls back to ``center``.
    ``scale``: the HUD's size in its view (:func:`hud_scale`)."""

    def __init__(self, corners: dict, spec: HudSpec, scale: float = 1.0):
        self.spec = spec
        self.scale = scale
        self.grid = PixelGrid()
        """The view's pixels in aspect2d units (:meth:`set_view_height`): what moved by less
        than a pixel is not drawn again."""
        self.drawn = LastDrawn()
        center = corners["center"]
        self._corner_roots: list[NodePath] = []
        self.markers = MarkerLayer(center, spec.markers, spec, scale, self.grid)
        self._corner_roots.append(self.markers.root)
        self.root = self._corner(corners, "center")
        """The view's middle, scaled: the damage wedges and the scoreboard."""
        bottom_left = self._corner(corners, "bottom_left")
        self.dashboard = Dashboard(bottom_left, spec, self.grid, scale)
        self.damage_panel = DamagePanel(bottom_left, spec.damage_panel, spec)
        self.damage = DamageIndicator(self.root, spec.damage, self.grid, scale)
        self._build_crosshair(center)
        self.hit_marker = HitMarker(self.crosshair, spec.hit_marker)
        top_right = self._corner(corners, "top_right")
        self.minimap = Minimap(top_right, spec, self.grid, scale)
        self.kill_feed = KillFeed(top_right, spec.kill_feed, spec)
        self._top = self._corner(corners, "top_center")
        self._build_messages(self._top)
        self.scoreboard = ScoreboardView(self._corner(corners, "top_left"), self.root, spec,
                                         hud_text)
        self.state: HudState | None = None
        self.compact = False
        self._panels: tuple[tuple, list[Box]] | None = None
        """The panels' boxes for the edge markers, and what they were worked out for."""
        self._place_damage_panel()

    def _corner(self, corners: dict, name: str) -> NodePath:
        """A node on the view's corner ``name`` (the centre where there is none), at the
        HUD's scale."""
        parent = corners.get(name) or corners["center"]
        path = parent.attachNewNode("hud-" + name)
        path.setScale(self.scale)
        keep_alpha(path)
        self._corner_roots.append(path)
        return path

    def _place_damage_panel(self) -> None:
        """The damage panel stands ``gap`` above the dashboard's backing (the full one or,
        compact, the shorter one), flush with its left edge and at least as wide."""
        backing = self.dashboard.compact_panel if self.compact else self.dashboard.full_panel
        low, high = backing.getTightBounds(backing.getParent())
        self.damage_panel.place(low[0], high[2] + self.spec.damage_panel.gap, high[0] - low[0])

    def _build_crosshair(self, center: NodePath) -> None:
        """The crosshair and, round it, the reload ring (drawn by :meth:`_draw_ring`)."""
        s = self.spec
        self.crosshair = center.attachNewNode("crosshair")
        self.crosshair.setScale(self.scale)
        keep_alpha(self.crosshair)
        self._corner_roots.append(self.crosshair)
        lines = LineSegs("crosshair")
        lines.setColor(*s.crosshair_colour)
        lines.setThickness(CROSSHAIR_PX)
        c = s.crosshair_size
        gap = c * CROSSHAIR_GAP_SHARE
        for (ax, ay), (bx, by) in (((-c, 0), (-gap, 0)), ((gap, 0), (c, 0)),
                                   ((0, -c), (0, -gap)), ((0, gap), (0, c))):
            lines.moveTo(ax, 0, ay)
            lines.drawTo(bx, 0, by)
        self.crosshair.attachNewNode(lines.create())
        circle = LineSegs("aim-circle")
        circle.setColor(*s.aim_circle_colour)
        circle.setThickness(CROSSHAIR_PX)
        for segment in range(s.aim_circle_segments + 1):
            angle = math.tau * segment / s.aim_circle_segments
            (circle.moveTo if segment == 0 else circle.drawTo)(math.cos(angle), 0,
                                                               math.sin(angle))
        self.aim_circle = self.crosshair.attachNewNode(circle.create())
        """A unit circle, scaled to the gun's aiming circle (:meth:`set_aim_circle`)."""
        self.aim_circle.hide()
        self.reload_shape = DynamicGeoms("reload-ring", (GeomTriangles,))
        self.reload_ring = self.crosshair.attachNewNode(self.reload_shape.node)
        self.reload_ring.setTransparency(TransparencyAttrib.MAlpha)
        self.crosshair_xy: tuple | None = None

    def _build_messages(self, top: NodePath) -> None:
        """Round and score, and the messages below them."""
        s = self.spec
        self.score_text = hud_text(top, s, s.text_scale, TextNode.ACenter)
        self.score_text.setPos(0, 0, -s.margin - s.text_scale)
        self.message_text = hud_text(top, s, s.text_scale * 0.9, TextNode.ACenter)
        self._message_y(zone=False)
        self.zone_bar = ZoneBar(top, s, s.zone, -s.margin - s.text_scale * 1.3, self.grid,
                                self.scale)
        self.messages: list[list] = []
        """[text, seconds left] of the messages shown, oldest first."""

    def _message_y(self, zone: bool) -> None:
        """The messages start under the score line, or under the zone's bar in a game with
        a capture zone."""
        s = self.spec
        lines = MESSAGE_LINES_DOWN_WITH_ZONE if zone else MESSAGE_LINES_DOWN
        self.message_text.setPos(0, 0, -s.margin - s.text_scale * lines)

    # ----- events and messages ------------------------------------------------------------

    def message(self, text: str) -> None:
        self.messages.append([text, self.spec.message_s])
        del self.messages[:-self.spec.message_lines]
        self._show_messages()

    def _show_messages(self) -> None:
        self.message_text.node().setText("\n".join(text for text, _ in self.messages))

    def on_events(self, events: list[Event], player_name: str) -> None:
        """Messages, the kill feed, and the hit and damage indicators for what the player
        should know happened."""
        for event in events:
            text = message_for(event, player_name)
            if text is not None:
                self.message(text)
        enemies = self.state.enemy_names if self.state is not None else frozenset()
        self.hit_marker.on_events(events, player_name, enemies)
        self.damage.on_events(events, player_name)
        self.kill_feed.on_events(events, player_name)

    def set_compact(self, on: bool) -> None:
        """Compact: speed, gear, health, the damage panel (down on the shorter backing), the
        crosshair and reload ring, the markers and the hit and damage indicators only (no
        gate, rpm bar, minimap or kill feed)."""
        self.compact = on
        self.dashboard.set_compact(on)
        self._place_damage_panel()
        self.minimap.show(not on)
        self.kill_feed.show(not on)

    # ----- per frame --------------------------------------------------------------------

    def set_view_height(self, height_px: int) -> None:
        """The view is ``height_px`` pixels high (what a pixel is, for what to redraw)."""
        self.grid.set_view_height(height_px)

    def _show(self, key: str, path: NodePath, visible: bool) -> None:
        if self.drawn.changed(key, visible):
            (path.show if visible else path.hide)()

    def _draw_ring(self, share: float | None) -> None:
        """The reload ring's arc over ``share`` (None: no gun), redrawn when its end has
        moved by a pixel or it turned ready."""
        self._show("ring", self.reload_ring, share is not None)
        if share is None:
            return
        s = self.spec
        outer = s.reload_radius
        ready = share >= 1.0
        arc = self.grid.steps(min(max(share, 0.0), 1.0) * math.tau * outer, self.scale)
        if not self.drawn.changed("ring-arc", (ready, arc)):
            return
        triangles = ring_triangles(s.reload_segments, max(share, 1e-3), outer - s.reload_width,
                                   outer)
        self.reload_shape.write(0, on_plane(triangles.reshape(-1, 2)),
                                s.ready_colour if ready else s.reload_colour)

    def set_crosshair(self, xy: tuple | None) -> None:
        """Put the crosshair at aspect2d (x, y), or at the centre when None (moved when it
        has moved by a pixel). It never covers the score line: a point higher than that
        (a gun raised toward the sky) is shown just under it."""
        self.crosshair_xy = xy
        x, y = xy if xy is not None else (0.0, 0.0)
        y = min(y, self.crosshair_ceiling())
        if self.drawn.changed("crosshair", (self.grid.steps(x), self.grid.steps(y))):
            self.crosshair.setPos(x, 0.0, y)

    def set_aim_circle(self, radius: float | None) -> None:
        """Draw the gun's aiming circle round the crosshair, ``radius`` in aspect2d units
        (None: none to draw), no smaller than ``aim_circle_least`` at the HUD's scale: a
        laid gun's circle is a pixel or two across in the chase view, and would vanish
        under the crosshair. Rescaled when it has changed by a pixel."""
        if radius is None or not radius > 0.0:
            self._show("aim-circle", self.aim_circle, False)
            return
        self._show("aim-circle", self.aim_circle, True)
        drawn = max(radius, self.spec.aim_circle_least * self.scale)
        if self.drawn.changed("aim-circle-radius", self.grid.steps(drawn)):
            self.aim_circle.setScale(drawn / self.scale)  # inside the crosshair's scale

    def crosshair_ceiling(self) -> float:
        """The highest the crosshair's middle may stand (aspect2d, from the view's middle):
        its reload ring's top just under the score line."""
        s = self.spec
        top = self._top.getZ(self.crosshair.getParent())
        return top - (s.margin + SCORE_LINE_DEPTH * s.text_scale + s.reload_radius) * self.scale

    def update(self, state: HudState, frame_s: float, vehicle=None) -> None:
        """Draw ``state``; ``vehicle`` (a drawn vehicle: the one ``state`` was read from)
        gives the damage panel its parts (None: the panel stays as it was)."""
        self.state = state
        self.dashboard.update(state, frame_s)
        if vehicle is not None:
            self.damage_panel.update(vehicle)
        self._draw_ring(state.loaded_share)
        self._show("crosshair", self.crosshair, state.reload_s is not None)
        self.minimap.update(state)
        self.markers.update(self._clear_markers(state.markers), reserve=len(state.contacts))
        self.damage.update(state, frame_s)
        self.hit_marker.update(frame_s)
        self.kill_feed.update(frame_s)
        set_text(self.score_text, state.score_line or "", self.drawn)
        self.zone_bar.update(state.zone)
        if self.drawn.changed("zone", state.zone is not None):
            self._message_y(state.zone is not None)
        self.scoreboard.update(state.ping_ms, state.board)
        self._fade_messages(frame_s)

    def _clear_markers(self, markers: list) -> list:
        """The markers, those at the view's edge moved off the panels there
        (:func:`~game.view.hud.markers.clear_of_panels`)."""
        if all(marker.on_screen for marker in markers):
            return markers
        spec = self.spec.markers
        layer = self.markers.root.getParent()  # the view's aspect2d: 1 / aspect across
        half_width = 1.0 / layer.getSx() - spec.edge_margin
        reach = (spec.arrow_size + 2.0 * TEXT_HALF_WIDTHS * spec.text_scale) * self.scale
        return clear_of_panels(markers, self._panel_boxes(layer), reach, half_width,
                               1.0 - spec.edge_margin)

    def _panel_boxes(self, layer: NodePath) -> list[Box]:
        """Where the panels at the view's edges stand on ``layer`` now (worked out again
        when the view's shape, the compact HUD or the damage panel's showing changes)."""
        key = (layer.getSx(), self.compact, self.damage_panel.shown)
        if self._panels is None or self._panels[0] != key:
            panels = [self.dashboard.compact_panel if self.compact else self.dashboard.full_panel]
            panels += [] if self.compact else [self.minimap.root]
            panels += [self.damage_panel.backing] if key[2] else []
            boxes = []
            for panel in panels:
                bounds = panel.getTightBounds(layer)
                if bounds is not None:
                    low, high = bounds
                    boxes.append((low[0], low[2], high[0], high[2]))
            self._panels = key, boxes
        return self._panels[1]

    def _fade_messages(self, frame_s: float) -> None:
        """Messages fade out in order, each ``message_s`` after it came."""
        if not self.messages:
            return
        for entry in self.messages:
            entry[1] -= frame_s
        before = len(self.messages)
        self.messages = [entry for entry in self.messages if entry[1] > 0.0]
        if len(self.messages) != before:
            self._show_messages()

    def show(self, visible: bool) -> None:
        for path in self._corner_roots:
            (path.show if visible else path.hide)()
        self.drawn.forget()  # the next update shows its parts again as they should be

    def destroy(self) -> None:
        self.scoreboard.destroy()
        self.markers.destroy()
        self.damage.destroy()
        self.damage_panel.destroy()
        for path in self._corner_roots:
            path.removeNode()
        self._corner_roots.clear()
