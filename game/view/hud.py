"""The heads-up display on aspect2d: it scales with the window (sizes are shares of the
window's half height) and its panels hang from the window's corners.

- bottom left: speed, the gear on a drawn H gate with the lever's knob (it travels
  the gate through N during a shift and turns colour meanwhile), an rpm bar with
  its red zone, and health;
- centre: a crosshair at the gun's predicted impact point, ringed by the reload
  (the app projects the point; it is worked out only every few frames);
- top right: a minimap round the player, north up: enemies, wrecks;
- top centre: round and score, and below it short messages (round end, destroyed,
  a refused shift) that fade after a few seconds;
- online: the ping top left, and the scoreboard in the middle while Tab has it shown
  (:mod:`game.view.scoreboard`).

:func:`game.view.hud_state.read_hud_state` takes what the HUD shows from the simulation (and
the battle, when there is one) into a plain :class:`HudState`; :class:`Hud` only draws it,
so a HUD built under a bare NodePath (no window) shows the same values in tests.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from panda3d.core import (Geom, GeomLines, GeomNode, GeomPoints, GeomTriangles, GeomVertexData,
                          GeomVertexFormat, GeomVertexWriter, LineSegs, NodePath, TextNode,
                          TransparencyAttrib)

from game.sim.events import Event
from game.view.hud_state import HudState, lever_path_point, message_for
from game.view.overlay import card, keep_alpha, ring_triangles
from game.view.scoreboard import ScoreboardView
from physics.model.spec import Spec, rgba, tuning


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
    message_s: float = tuning("a message stays this long", minimum=0.5, maximum=30.0)
    message_lines: int = tuning("most messages shown at once", minimum=1, maximum=10)


def _text(parent: NodePath, spec: HudSpec, scale: float, align=TextNode.ALeft) -> NodePath:
    """An empty line of text in the HUD's colour, with its drop shadow."""
    node = TextNode("hud-text")
    node.setFont(TextNode.getDefaultFont())
    node.setTextColor(*spec.text_colour)
    node.setShadow(0.06, 0.06)
    node.setShadowColor(*spec.shadow_colour)
    node.setAlign(align)
    path = parent.attachNewNode(node)
    path.setScale(scale)
    return path


class Hud:
    """Draws a :class:`HudState` on aspect2d. ``corners``: NodePaths by name
    (``bottom_left``, ``top_right``, ``top_center``, ``center``) that follow the window's
    edges (ShowBase's a2d corners); any missing one falls back to ``center``."""

    def __init__(self, corners: dict, spec: HudSpec):
        self.spec = spec
        center = corners["center"]
        self.root = center.attachNewNode("hud")
        self._corner_roots = []
        self._build_dashboard(self._corner(corners, "bottom_left"))
        self._build_crosshair(center)
        self._build_minimap(self._corner(corners, "top_right"))
        self._build_messages(self._corner(corners, "top_center"))
        self.scoreboard = ScoreboardView(self._corner(corners, "top_left"), self.root, spec,
                                         _text)
        self.state: HudState | None = None

    def _corner(self, corners: dict, name: str) -> NodePath:
        """A node on the window's corner ``name`` (the centre where there is none)."""
        parent = corners.get(name) or corners["center"]
        path = parent.attachNewNode("hud-" + name)
        keep_alpha(path)
        self._corner_roots.append(path)
        return path

    # ----- bottom left: health, rpm, speed, gear gate -------------------------------------

    def _build_dashboard(self, panel: NodePath) -> None:
        """A backing panel and, from the bottom up: health, rpm, then the speed and gear
        beside the H gate."""
        s = self.spec
        m = s.margin
        width = s.bar_size[0] + 2 * m
        height = s.gate_size * 1.6 + s.text_scale * 2.2 + s.bar_size[1] * 4 + 3 * m
        card(panel, "hud-panel", m * 0.5, m * 0.5 + width, m * 0.5, m * 0.5 + height,
             s.panel_colour)
        y = m + s.bar_size[1] * 0.2
        self._build_health_bar(panel, m, y)
        y += s.bar_size[1] * 2.6 + s.text_scale * 0.4
        self._build_rpm_bar(panel, m, y)
        y += s.bar_size[1] * 2.6 + s.text_scale * 0.3
        self._build_gear_gate(panel, m, y)

    def _build_health_bar(self, panel: NodePath, x0: float, y: float) -> None:
        """The health bar over its dark backing, its label above it."""
        s = self.spec
        self.health_label = _text(panel, s, s.text_scale * 0.6)
        self.health_label.setPos(x0, 0, y + s.bar_size[1] * 1.4)
        self.health_back = card(panel, "health-back", x0, x0 + s.bar_size[0], y,
                                y + s.bar_size[1], (0.0, 0.0, 0.0, 0.5))
        self.health_bar = card(panel, "health", 0.0, 1.0, 0.0, 1.0, s.health_colour)
        self.health_bar.setPos(x0, 0, y)
        self.health_bar.setScale(s.bar_size[0], 1.0, s.bar_size[1])

    def _build_rpm_bar(self, panel: NodePath, x0: float, y: float) -> None:
        """The rpm bar, its full width the redline, over a red zone at its end."""
        s = self.spec
        self.rpm_label = _text(panel, s, s.text_scale * 0.6)
        self.rpm_label.setPos(x0, 0, y + s.bar_size[1] * 1.4)
        card(panel, "rpm-back", x0, x0 + s.bar_size[0], y, y + s.bar_size[1],
             (0.0, 0.0, 0.0, 0.5))
        red = s.redline_share
        card(panel, "redline", x0 + s.bar_size[0] * red, x0 + s.bar_size[0], y,
             y + s.bar_size[1], s.redline_colour).setAlphaScale(0.45)
        self.rpm_bar = card(panel, "rpm", 0.0, 1.0, 0.0, 1.0, s.rpm_colour)
        self.rpm_bar.setPos(x0, 0, y)
        self.rpm_bar.setScale(s.bar_size[0], 1.0, s.bar_size[1])

    def _build_gear_gate(self, panel: NodePath, x0: float, y: float) -> None:
        """The speed and gear texts, and the H gate's knob (its slots are drawn once the
        gearbox's layout is known, :meth:`_build_gate`)."""
        s = self.spec
        self.gate_root = panel.attachNewNode("gate")
        self.gate_unit = s.gate_size / 2.6
        """The gate's columns and rows are in these units; the gate is gate_size high."""
        self.gate_root.setPos(x0 + s.bar_size[0] - self.gate_unit * 1.4, 0,
                              y + s.gate_size * 0.55)
        self._gate_built_for = None
        self.knob = card(self.gate_root, "knob", -0.22, 0.22, -0.22, 0.22, s.lever_colour)
        self.knob.setScale(self.gate_unit)
        self.knob_pos = None
        self.speed_text = _text(panel, s, s.text_scale * 1.4)
        self.speed_text.setPos(x0, 0, y + s.gate_size * 0.6)
        self.gear_text = _text(panel, s, s.text_scale * 0.8)
        self.gear_text.setPos(x0, 0, y + s.gate_size * 0.15)

    # ----- centre, top right, top centre ------------------------------------------------

    def _build_crosshair(self, center: NodePath) -> None:
        """The crosshair and, round it, the reload ring (drawn by :meth:`_draw_ring`)."""
        s = self.spec
        self.crosshair = center.attachNewNode("crosshair")
        keep_alpha(self.crosshair)
        self._corner_roots.append(self.crosshair)
        lines = LineSegs("crosshair")
        lines.setColor(*s.crosshair_colour)
        lines.setThickness(2.0)
        c = s.crosshair_size
        for (ax, ay), (bx, by) in (((-c, 0), (-c * 0.35, 0)), ((c * 0.35, 0), (c, 0)),
                                   ((0, -c), (0, -c * 0.35)), ((0, c * 0.35), (0, c))):
            lines.moveTo(ax, 0, ay)
            lines.drawTo(bx, 0, by)
        self.crosshair.attachNewNode(lines.create())
        self.reload_node = GeomNode("reload-ring")
        self.reload_ring = self.crosshair.attachNewNode(self.reload_node)
        self.reload_ring.setTransparency(TransparencyAttrib.MAlpha)
        self._reload_share_drawn = None
        self.crosshair_xy: tuple | None = None

    def _build_minimap(self, corner: NodePath) -> None:
        """The minimap's backing, frame and north mark (its dots: :meth:`_draw_minimap`)."""
        s = self.spec
        m = s.margin
        self.minimap = corner
        size = s.minimap_size
        self.minimap_centre = (-m - size / 2, -m - size / 2)
        card(self.minimap, "minimap", -m - size, -m, -m - size, -m, s.minimap_colour)
        frame = LineSegs("minimap-frame")
        frame.setColor(*s.text_colour[:3], 0.6)
        for (ax, ay), (bx, by) in (((-m - size, -m), (-m, -m)), ((-m, -m), (-m, -m - size)),
                                   ((-m, -m - size), (-m - size, -m - size)),
                                   ((-m - size, -m - size), (-m - size, -m))):
            frame.moveTo(ax, 0, ay)
            frame.drawTo(bx, 0, by)
        self.minimap.attachNewNode(frame.create())
        north = _text(self.minimap, s, s.text_scale * 0.5, TextNode.ACenter)
        north.node().setText("N")
        north.setPos(self.minimap_centre[0], 0, -m - s.text_scale * 0.55)
        self.dots_node = GeomNode("minimap-dots")
        self.dots = self.minimap.attachNewNode(self.dots_node)
        self.dots.setRenderModeThickness(s.minimap_dot_px)
        self.dots.setTransparency(TransparencyAttrib.MAlpha)
        self.minimap_dots: list[tuple[float, float, str]] = []
        """Last drawn dots: (x, y) in the minimap's frame and their kind."""

    def _build_messages(self, top: NodePath) -> None:
        """Round and score, and the messages below them."""
        s = self.spec
        self.score_text = _text(top, s, s.text_scale, TextNode.ACenter)
        self.score_text.setPos(0, 0, -s.margin - s.text_scale)
        self.message_text = _text(top, s, s.text_scale * 0.9, TextNode.ACenter)
        self.message_text.setPos(0, 0, -s.margin - s.text_scale * 2.6)
        self.messages: list[list] = []
        """[text, seconds left] of the messages shown, oldest first."""

    # ----- messages ---------------------------------------------------------------------

    def message(self, text: str) -> None:
        self.messages.append([text, self.spec.message_s])
        del self.messages[:-self.spec.message_lines]
        self._show_messages()

    def _show_messages(self) -> None:
        self.message_text.node().setText("\n".join(text for text, _ in self.messages))

    def on_events(self, events: list[Event], player_name: str) -> None:
        """Short messages for what the player should know happened."""
        for event in events:
            text = message_for(event, player_name)
            if text is not None:
                self.message(text)

    # ----- per frame --------------------------------------------------------------------

    def _build_gate(self, gate: dict) -> None:
        for child in self.gate_root.findAllMatches("gate-lines"):
            child.removeNode()
        for child in self.gate_root.findAllMatches("gate-label"):
            child.removeNode()
        unit = self.gate_unit
        lines = LineSegs("gate-lines")
        lines.setColor(*self.spec.gate_colour)
        lines.setThickness(3.0)
        columns = [column for column, _ in gate.values()]
        lines.moveTo(min(columns) * unit, 0, 0)
        lines.drawTo(max(columns) * unit, 0, 0)
        for name, (column, row) in gate.items():
            if row == 0.0:
                continue
            lines.moveTo(column * unit, 0, 0)
            lines.drawTo(column * unit, 0, row * unit)
            label = _text(self.gate_root, self.spec, self.spec.text_scale * 0.55,
                          TextNode.ACenter)
            label.setName("gate-label")
            label.node().setText(name)
            label.setPos(column * unit, 0, row * unit * 1.55 - (0.18 * unit if row > 0
                                                                 else 0.02 * unit))
        path = self.gate_root.attachNewNode(lines.create())
        path.setName("gate-lines")
        self.knob.reparentTo(self.gate_root)  # drawn over the lines
        self._gate_built_for = dict(gate)

    def _draw_ring(self, share: float | None) -> None:
        if share is None:
            self.reload_ring.hide()
            return
        self.reload_ring.show()
        rounded = round(share, 3)
        if rounded == self._reload_share_drawn:
            return
        self._reload_share_drawn = rounded
        self.reload_node.removeAllGeoms()
        s = self.spec
        colour = s.ready_colour if share >= 1.0 else s.reload_colour
        outer = s.reload_radius
        triangles = ring_triangles(s.reload_segments, max(share, 1e-3), outer - s.reload_width,
                                   outer)
        data = GeomVertexData("ring", GeomVertexFormat.getV3c4(), Geom.UHStream)
        data.setNumRows(len(triangles) * 3)
        vertex = GeomVertexWriter(data, "vertex")
        colour_writer = GeomVertexWriter(data, "color")
        for x, y in triangles.reshape(-1, 2):
            vertex.addData3(float(x), 0.0, float(y))
            colour_writer.addData4(*colour)
        primitive = GeomTriangles(Geom.UHStream)
        primitive.addConsecutiveVertices(0, len(triangles) * 3)
        geom = Geom(data)
        geom.addPrimitive(primitive)
        self.reload_node.addGeom(geom)

    def _draw_minimap(self, state: HudState) -> None:
        s = self.spec
        half = s.minimap_size / 2.0
        cx, cy = self.minimap_centre
        px, py = state.position_xy
        colours = {"enemy": s.enemy_colour, "wreck": s.wreck_colour, "other": s.text_colour}
        dots = []
        for x, y, kind in state.contacts:
            dx, dy = (x - px) / s.minimap_range_m, (y - py) / s.minimap_range_m
            reach = max(abs(dx), abs(dy))
            if reach > 1.0:  # beyond the range: pinned to the edge, in its direction
                dx, dy = dx / reach, dy / reach
            dots.append((cx + dx * half * 0.96, cy + dy * half * 0.96, kind))
        self.minimap_dots = dots
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
        tick = half * 0.14
        for x, y in ((cx, cy), (cx + math.sin(state.heading_rad) * tick,
                                 cy + math.cos(state.heading_rad) * tick)):
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

    def set_crosshair(self, xy: tuple | None) -> None:
        """Put the crosshair at aspect2d (x, y), or at the centre when None."""
        self.crosshair_xy = xy
        x, y = xy if xy is not None else (0.0, 0.0)
        self.crosshair.setPos(x, 0.0, y)

    def update(self, state: HudState, frame_s: float) -> None:
        self.state = state
        self._update_gear(state, frame_s)
        self._update_bars(state)
        self._draw_ring(state.loaded_share)
        if state.reload_s is None:
            self.crosshair.hide()
        else:
            self.crosshair.show()
        self._draw_minimap(state)
        self.score_text.node().setText(state.score_line or "")
        self.scoreboard.update(state.ping_ms, state.board)
        self._fade_messages(frame_s)

    def _update_gear(self, state: HudState, frame_s: float) -> None:
        """Speed and gear texts; the knob slides toward the lever's place in the gate."""
        s = self.spec
        self.speed_text.node().setText(f"{abs(state.speed_kmh):3.0f} km/h"
                                       + (" R" if state.speed_kmh < -0.5 else ""))
        gear = state.selected if not state.shifting else f"{state.shift_from}>{state.selected}"
        self.gear_text.node().setText(("AUTO " if state.automatic else "") + "gear " + gear)
        if state.gate and state.gate != self._gate_built_for:
            self._build_gate(state.gate)
        target = (lever_path_point(state.gate, state.shift_from, state.selected,
                                   state.shift_progress) if state.shifting
                  else state.gate.get(state.selected, (0.0, 0.0)))
        if self.knob_pos is None:
            self.knob_pos = np.array(target, dtype=float)
        else:
            offset = np.asarray(target) - self.knob_pos
            distance = float(np.linalg.norm(offset))
            step = s.lever_speed_per_s * max(frame_s, 0.0)
            self.knob_pos = (np.asarray(target, dtype=float) if distance <= step
                             else self.knob_pos + offset / distance * step)
        self.knob.setPos(self.knob_pos[0] * self.gate_unit, 0, self.knob_pos[1] * self.gate_unit)
        self.knob.setColor(*(s.shifting_colour if state.shifting else s.lever_colour))

    def _update_bars(self, state: HudState) -> None:
        """The rpm bar (its full width is the redline) and the health bar."""
        s = self.spec
        share = min(max(state.rpm / max(state.redline_rpm, 1.0), 0.0), 1.0)
        self.rpm_bar.setSx(max(share, 1e-3) * s.bar_size[0])
        self.rpm_bar.setColor(*(s.redline_colour if share >= s.redline_share else s.rpm_colour))
        self.rpm_label.node().setText(f"{state.rpm:4.0f} rpm")
        if state.health is None or not state.max_health:
            self.health_bar.hide()
            self.health_back.hide()
            self.health_label.node().setText("")
            return
        self.health_bar.show()
        self.health_back.show()
        health = min(max(state.health / state.max_health, 0.0), 1.0)
        self.health_bar.setSx(max(health, 1e-3) * s.bar_size[0])
        low, high = np.asarray(s.low_health_colour), np.asarray(s.health_colour)
        self.health_bar.setColor(*(low + (high - low) * health))
        self.health_label.node().setText(
            "DESTROYED" if state.destroyed else f"health {state.health:.0f}")

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
        for path in [self.root, *self._corner_roots]:
            (path.show if visible else path.hide)()

    def destroy(self) -> None:
        self.scoreboard.destroy()
        for path in [self.root, *self._corner_roots]:
            path.removeNode()
        self._corner_roots.clear()
