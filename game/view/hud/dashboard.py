"""The HUD's dashboard in the bottom left corner: from the bottom up, health, an rpm bar
with its red zone, the speed and gear beside a drawn H gate whose knob travels the gate
through N during a shift (and turns colour meanwhile), and the gun's ammunition line (each
shell's rounds left, the loaded one in brackets, the one chosen for the next reload after
an arrow: :attr:`HudState.ammunition_line`).

Compact (:meth:`Dashboard.set_compact`) keeps health, speed, gear and the ammunition on a
shorter backing: the rpm bar and the gate are hidden, and the speed and gear move down into
their place, the ammunition line just above them.
"""

from __future__ import annotations

import math

import numpy as np
from panda3d.core import LineSegs, NodePath, TextNode

from game.view.draw.overlay import card
from game.view.hud.hud_draw import LastDrawn, PixelGrid, set_text
from game.view.hud.hud_state import HudState, lever_path_point
from game.view.hud.hud_text import hud_text

BAR_BACKING = (0.0, 0.0, 0.0, 0.5)
"""The dark backing under the rpm and health bars."""
REDLINE_ALPHA = 0.45
"""The rpm bar's red zone shows through at this opacity under the bar."""
GATE_UNITS_HIGH = 2.6
"""The gate's slots span this many gate units top to bottom (rows at +1 and -1, labels
beyond them)."""
GATE_LABEL_UNITS = 1.55
"""The gate's top labels stand this many gate units above its middle."""
AMMUNITION_TEXT = 0.7
"""The ammunition line's height, in text heights."""


class Dashboard:
    """Health, rpm, speed, gear and the H gate on a backing panel under ``panel``; ``grid``
    (the view's pixels) and ``scale`` (the HUD's) say when a bar or the knob has moved
    enough to be drawn again."""

    def __init__(self, panel: NodePath, spec, grid: PixelGrid | None = None,
                 scale: float = 1.0):
        self.spec = spec
        self.grid = grid if grid is not None else PixelGrid()
        self.scale = scale
        self.drawn = LastDrawn()
        s = spec
        m = s.margin
        self.width = s.bar_size[0] + 2 * m
        y_health = m + s.bar_size[1] * 0.2
        y_rpm = y_health + s.bar_size[1] * 2.6 + s.text_scale * 0.4
        y_gate = y_rpm + s.bar_size[1] * 2.6 + s.text_scale * 0.3
        height = s.gate_size * 1.6 + s.text_scale * 2.2 + s.bar_size[1] * 4 + 3 * m
        self.full_panel = card(panel, "hud-panel", m * 0.5, m * 0.5 + self.width, m * 0.5,
                               m * 0.5 + height, s.panel_colour)
        self.compact_drop = y_gate + s.gate_size * 0.15 - y_rpm
        """Compact: the speed and gear move down this far, into the rpm bar's place."""
        compact_top = (y_gate + s.gate_size * 0.6 + s.text_scale * (1.4 + AMMUNITION_TEXT * 1.4)
                       - self.compact_drop)
        self.compact_panel = card(panel, "hud-compact-panel", m * 0.5, m * 0.5 + self.width,
                                  m * 0.5, compact_top + m * 0.5, s.panel_colour)
        self.compact_panel.hide()
        self._build_health_bar(panel, m, y_health)
        self._build_rpm_bar(panel, m, y_rpm)
        self._build_gear_gate(panel, m, y_gate)
        self.ammunition_text = hud_text(panel, s, s.text_scale * AMMUNITION_TEXT)
        gate_unit = s.gate_size / GATE_UNITS_HIGH
        self.ammunition_z = (y_gate + s.gate_size * 0.55 + gate_unit * GATE_LABEL_UNITS
                             + s.text_scale, y_gate + s.gate_size * 0.6 + s.text_scale * 1.5
                             - self.compact_drop)
        """The ammunition line's height: over the gate's labels, and compact over the speed."""
        self.ammunition_text.setPos(m, 0, self.ammunition_z[0])
        self.compact = False

    def _build_health_bar(self, panel: NodePath, x0: float, y: float) -> None:
        """The health bar over its dark backing, its label above it."""
        s = self.spec
        self.health_label = hud_text(panel, s, s.text_scale * 0.6)
        self.health_label.setPos(x0, 0, y + s.bar_size[1] * 1.4)
        self.health_back = card(panel, "health-back", x0, x0 + s.bar_size[0], y,
                                y + s.bar_size[1], BAR_BACKING)
        self.health_bar = card(panel, "health", 0.0, 1.0, 0.0, 1.0, s.health_colour)
        self.health_bar.setPos(x0, 0, y)
        self.health_bar.setScale(s.bar_size[0], 1.0, s.bar_size[1])

    def _build_rpm_bar(self, panel: NodePath, x0: float, y: float) -> None:
        """The rpm bar, its full width the redline, over a red zone at its end."""
        s = self.spec
        self.rpm_root = panel.attachNewNode("rpm")
        self.rpm_label = hud_text(self.rpm_root, s, s.text_scale * 0.6)
        self.rpm_label.setPos(x0, 0, y + s.bar_size[1] * 1.4)
        card(self.rpm_root, "rpm-back", x0, x0 + s.bar_size[0], y, y + s.bar_size[1],
             BAR_BACKING)
        red = s.redline_share
        card(self.rpm_root, "redline", x0 + s.bar_size[0] * red, x0 + s.bar_size[0], y,
             y + s.bar_size[1], s.redline_colour).setAlphaScale(REDLINE_ALPHA)
        self.rpm_bar = card(self.rpm_root, "rpm", 0.0, 1.0, 0.0, 1.0, s.rpm_colour)
        self.rpm_bar.setPos(x0, 0, y)
        self.rpm_bar.setScale(s.bar_size[0], 1.0, s.bar_size[1])

    def _build_gear_gate(self, panel: NodePath, x0: float, y: float) -> None:
        """The speed and gear texts, and the H gate's knob (its slots are drawn once the
        gearbox's layout is known, :meth:`_build_gate`)."""
        s = self.spec
        self.gate_root = panel.attachNewNode("gate")
        self.gate_unit = s.gate_size / GATE_UNITS_HIGH
        """The gate's columns and rows are in these units; the gate is gate_size high."""
        self.gate_root.setPos(x0 + s.bar_size[0] - self.gate_unit * 1.4, 0,
                              y + s.gate_size * 0.55)
        self._gate_built_for = None
        self.knob = card(self.gate_root, "knob", -0.22, 0.22, -0.22, 0.22, s.lever_colour)
        self.knob.setScale(self.gate_unit)
        self.knob_pos = None
        self.readout = panel.attachNewNode("speed-and-gear")
        self.speed_text = hud_text(self.readout, s, s.text_scale * 1.4)
        self.speed_text.setPos(x0, 0, y + s.gate_size * 0.6)
        self.gear_text = hud_text(self.readout, s, s.text_scale * 0.8)
        self.gear_text.setPos(x0, 0, y + s.gate_size * 0.15)

    def set_compact(self, on: bool) -> None:
        """Compact: no rpm bar and no gate; the speed and gear move down, on a shorter
        backing."""
        self.compact = on
        for path in (self.rpm_root, self.gate_root, self.full_panel):
            (path.hide if on else path.show)()
        (self.compact_panel.show if on else self.compact_panel.hide)()
        self.readout.setZ(-self.compact_drop if on else 0.0)
        self.ammunition_text.setZ(self.ammunition_z[1 if on else 0])

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
            label = hud_text(self.gate_root, self.spec, self.spec.text_scale * 0.55,
                             TextNode.ACenter)
            label.setName("gate-label")
            label.node().setText(name)
            label.setPos(column * unit, 0, row * unit * 1.55 - (0.18 * unit if row > 0
                                                                 else 0.02 * unit))
        path = self.gate_root.attachNewNode(lines.create())
        path.setName("gate-lines")
        self.knob.reparentTo(self.gate_root)  # drawn over the lines
        self._gate_built_for = dict(gate)

    def update(self, state: HudState, frame_s: float) -> None:
        self._update_gear(state, frame_s)
        self._update_bars(state)
        set_text(self.ammunition_text, state.ammunition_line, self.drawn)

    def _update_gear(self, state: HudState, frame_s: float) -> None:
        """Speed and gear texts; the knob slides toward the lever's place in the gate."""
        s = self.spec
        set_text(self.speed_text, f"{abs(state.speed_kmh):3.0f} km/h"
                 + (" R" if state.speed_kmh < -0.5 else ""), self.drawn)
        gear = state.selected if not state.shifting else f"{state.shift_from}>{state.selected}"
        set_text(self.gear_text, ("AUTO " if state.automatic else "") + "gear " + gear,
                 self.drawn)
        if state.gate and state.gate != self._gate_built_for:
            self._build_gate(state.gate)
        target = (lever_path_point(state.gate, state.shift_from, state.selected,
                                   state.shift_progress) if state.shifting
                  else state.gate.get(state.selected, (0.0, 0.0)))
        # Plain floats: a frame's few sums on two numbers cost less than numpy's calls.
        target_x, target_y = float(target[0]), float(target[1])
        if self.knob_pos is None:
            self.knob_pos = (target_x, target_y)
        elif self.knob_pos != (target_x, target_y):
            knob_x, knob_y = self.knob_pos
            offset_x, offset_y = target_x - knob_x, target_y - knob_y
            distance = math.hypot(offset_x, offset_y)
            step = s.lever_speed_per_s * max(frame_s, 0.0)
            self.knob_pos = ((target_x, target_y) if distance <= step
                             else (knob_x + offset_x / distance * step,
                                   knob_y + offset_y / distance * step))
        x, y = self.knob_pos[0] * self.gate_unit, self.knob_pos[1] * self.gate_unit
        if self.drawn.changed("knob", (self.grid.steps(x, self.scale),
                                       self.grid.steps(y, self.scale))):
            self.knob.setPos(x, 0, y)
        if self.drawn.changed("knob-colour", state.shifting):
            self.knob.setColor(*(s.shifting_colour if state.shifting else s.lever_colour))

    def _update_bars(self, state: HudState) -> None:
        """The rpm bar (its full width is the redline) and the health bar, each redrawn
        when its end has moved by a pixel."""
        s = self.spec
        share = min(max(state.rpm / max(state.redline_rpm, 1.0), 0.0), 1.0)
        if self.drawn.changed("rpm", self.grid.steps(share * s.bar_size[0], self.scale)):
            self.rpm_bar.setSx(max(share, 1e-3) * s.bar_size[0])
        if self.drawn.changed("rpm-red", share >= s.redline_share):
            self.rpm_bar.setColor(*(s.redline_colour if share >= s.redline_share
                                    else s.rpm_colour))
        set_text(self.rpm_label, f"{state.rpm:4.0f} rpm", self.drawn)
        has_health = state.health is not None and bool(state.max_health)
        if self.drawn.changed("health-shown", has_health):
            for path in (self.health_bar, self.health_back):
                (path.show if has_health else path.hide)()
        if not has_health:
            set_text(self.health_label, "", self.drawn)
            return
        health = min(max(state.health / state.max_health, 0.0), 1.0)
        if self.drawn.changed("health", health):
            self.health_bar.setSx(max(health, 1e-3) * s.bar_size[0])
            low, high = np.asarray(s.low_health_colour), np.asarray(s.health_colour)
            self.health_bar.setColor(*(low + (high - low) * health))
        set_text(self.health_label,
                 "DESTROYED" if state.destroyed else f"health {state.health:.0f}", self.drawn)
