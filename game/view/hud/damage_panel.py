"""The HUD's damage panel: a small top-down silhouette of the player's tank, above the
dashboard in the bottom left corner, with each part drawn as a flat box in its state's
colour over a dim hull and turret, and beside it a line naming each part that is not whole
(so no state is told by colour alone): "L track: destroyed 7 s" while the crew mend it,
"Engine: damaged", and "FIRE" while the engine burns.

The tank's forward is up on the panel; the turret and the parts mounted in it turn with
the turret (:func:`physics.model.armour.turret_turn`). The silhouette is redrawn only when
a part's state changes or the turret has turned a step (``turret_step_deg``), the lines
only when their words change (a countdown: once a second). A vehicle without parts (the
car) shows no panel.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from panda3d.core import GeomTriangles, NodePath, TransparencyAttrib

from common.spec import Spec, tuning
from game.view.draw.colours import rgba
from game.view.draw.overlay import card, ring_triangles
from game.view.hud.hud_draw import DynamicGeoms, LastDrawn, on_plane
from game.view.hud.hud_text import hud_text
from physics.model.armour import turret_turn
from physics.model.parts import (AMMO_RACK, COMMANDER, DAMAGED, DESTROYED, DRIVER, ENGINE,
                                 GUN, GUNNER, LEFT_TRACK, LOADER, PART_NAMES, RIGHT_TRACK,
                                 TURRET_RING, WHOLE)

PART_WORDS = {LEFT_TRACK: "L track", RIGHT_TRACK: "R track", ENGINE: "Engine",
              TURRET_RING: "Turret ring", GUN: "Gun", AMMO_RACK: "Ammo rack",
              DRIVER: "Driver", GUNNER: "Gunner", LOADER: "Loader", COMMANDER: "Commander"}
"""Each part's short name on the panel."""
FIRE_WORD = "FIRE"
FIRE = "fire"
"""A line's kind for the engine fire (the others are the parts' states)."""
LINE_SPACING = 1.25
"""The lines are this many text heights apart."""
BASELINE_DROP = 0.8
"""A line's baseline stands this many text heights under the top of its letters."""
LEAST_PART_SHARE = 0.1
"""A part's box drawn inset keeps at least this share of its size (a small part stays
visible)."""
RING_SEGMENTS = 32
"""Segments round the turret ring: round at the panel's size."""
_QUAD = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])
"""A box's corners as multiples of its half sizes, counterclockwise."""
_FAN = np.array([[0, 1, 2], [0, 2, 3]])
"""A quad's two triangles over :data:`_QUAD`'s corners."""


@dataclass(frozen=True)
class DamagePanelSpec(Spec):
    """The damage panel: sizes in shares of the view's half height (the HUD's scale)."""

    gap: float = tuning("from the top of the dashboard's backing up to the panel's",
                        minimum=0.0, maximum=0.5)
    padding: float = tuning("inside the panel's backing, round the silhouette and the lines",
                            minimum=0.0, maximum=0.2)
    silhouette_height: float = tuning("the tank's drawn length (its turret's reach "
                                      "included, whichever way it turns)", minimum=0.05,
                                      maximum=1.0)
    part_edge: float = tuning("each part's box has a dark edge this wide (parts that "
                              "overlap from above stay apart)", minimum=0.0, maximum=0.05)
    ring_width: float = tuning("the turret ring is drawn as a ring this wide", minimum=0.002,
                               maximum=0.1)
    text_scale: float = tuning("the lines' height", minimum=0.01, maximum=0.2)
    turret_step_deg: float = tuning("the silhouette is redrawn once the turret has turned "
                                    "this far", minimum=0.1, maximum=45.0)
    hull_colour: tuple[float, ...] = rgba("the hull's dim outline")
    edge_colour: tuple[float, ...] = rgba("the parts' edges")
    turret_colour: tuple[float, ...] = rgba("the turret's dim outline")
    whole_colour: tuple[float, ...] = rgba("a whole part")
    damaged_colour: tuple[float, ...] = rgba("a damaged part, and its line")
    destroyed_colour: tuple[float, ...] = rgba("a destroyed part, and its line")
    fire_colour: tuple[float, ...] = rgba("the FIRE line")


def damage_lines(states: dict, repair_left_s, on_fire: bool) -> tuple[tuple[str, str], ...]:
    """The panel's lines, each (words, kind: "fire", "damaged" or "destroyed"): FIRE first
    while the engine burns, then every part that is not whole in :data:`PART_NAMES`' order,
    a destroyed one with the whole seconds left until it is mended (none where no repair is
    under way)."""
    lines = [(FIRE_WORD, FIRE)] if on_fire else []
    for name, left_s in zip(PART_NAMES, np.asarray(repair_left_s, dtype=float).tolist()):
        state = states[name]
        if state == WHOLE:
            continue
        words = f"{PART_WORDS[name]}: {state}"
        if state == DESTROYED and left_s > 0.0:
            words += f" {math.ceil(left_s)} s"
        lines.append((words, state))
    return tuple(lines)


def convex_outline(points_xy: np.ndarray) -> np.ndarray:
    """The convex hull (k, 2) of ``points_xy`` (n, 2), counterclockwise (Andrew's monotone
    chain): the outline of plates seen from above."""
    points = sorted(set(map(tuple, np.asarray(points_xy, dtype=float).tolist())))
    if len(points) < 3:
        return np.array(points, dtype=float).reshape(-1, 2)

    def left_turn(a, b, c) -> bool:
        """Going a -> b -> c turns left (counterclockwise)."""
        return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]) > 0.0

    def half(ordered) -> list:
        chain: list = []
        for point in ordered:
            while len(chain) >= 2 and not left_turn(chain[-2], chain[-1], point):
                chain.pop()
            chain.append(point)
        return chain

    lower, upper = half(points), half(reversed(points))
    return np.array(lower[:-1] + upper[:-1], dtype=float)


class TankOutline:
    """A tank's silhouette from above, in metres of its body frame (x right, y forward):
    the hull's and turret's outlines from their plates, each part's box, and the extent
    that holds them all whichever way the turret turns. Worked out once per tank spec."""

    def __init__(self, spec):
        plates = spec.plates.plate
        self.hull_xy = convex_outline(np.array(
            [point[:2] for plate in plates if plate.part == "hull" for point in plate.points_m]))
        self.turret_xy = convex_outline(np.array(
            [point[:2] for plate in plates if plate.part == "turret"
             for point in plate.points_m]))
        """In the turret's frame (+Y along the gun)."""
        self.pivot = np.asarray(spec.gun.turret_pivot_m, dtype=float)
        ordered = spec.parts.ordered
        self.centres_xy = np.array([part.centre_m[:2] for part in ordered])
        self.halves_xy = np.array([part.half_extents_m[:2] for part in ordered])
        self.in_turret = np.array([part.mounted_in == "turret" for part in ordered])
        tops_m = (np.array([part.centre_m[2] + part.half_extents_m[2] for part in ordered])
                  + np.where(self.in_turret, self.pivot[2], 0.0))
        order = np.argsort(tops_m, kind="stable").tolist()
        self.under_turret = [index for index in order if tops_m[index] < self.pivot[2]]
        self.over_turret = [index for index in order if tops_m[index] >= self.pivot[2]]
        """The parts whose tops are under the turret ring and the rest, each from the lowest
        top to the highest: the turret's outline is drawn between the two, and higher parts
        over lower ones."""
        hull_parts = self._corners(0.0, self.halves_xy)[~self.in_turret].reshape(-1, 2)
        turret_parts = (self.centres_xy[self.in_turret, None, :]
                        + _QUAD * self.halves_xy[self.in_turret, None, :]).reshape(-1, 2)
        reach_m = float(np.max(np.linalg.norm(np.vstack([self.turret_xy, turret_parts]),
                                              axis=1)))
        hull = np.vstack([self.hull_xy, hull_parts])
        self.low = np.minimum(hull.min(axis=0), self.pivot[:2] - reach_m)
        self.high = np.maximum(hull.max(axis=0), self.pivot[:2] + reach_m)
        """The silhouette's extent (x, y) in metres, the turret turned any way."""

    def _corners(self, turret_heading_rad: float, halves_xy: np.ndarray) -> np.ndarray:
        """Every part's box corners (P, 4, 2) in the body frame, its half sizes
        ``halves_xy`` (P, 2), the turret's parts turned with the turret about its ring."""
        corners = self.centres_xy[:, None, :] + _QUAD * halves_xy[:, None, :]
        turn = turret_turn(turret_heading_rad)[:2, :2]
        turned = corners @ turn.T + self.pivot[:2]
        return np.where(self.in_turret[:, None, None], turned, corners)

    def shapes(self, turret_heading_rad: float, inset_m: float):
        """(hull outline (h, 2), turret outline (t, 2), part corners (P, 4, 2), the same
        ``inset_m`` smaller on each side (but keeping :data:`LEAST_PART_SHARE` of their
        size)), in metres of the body frame, the turret's turned with it."""
        inner = np.maximum(self.halves_xy - inset_m, self.halves_xy * LEAST_PART_SHARE)
        turn = turret_turn(turret_heading_rad)[:2, :2]
        turret = self.turret_xy @ turn.T + self.pivot[:2]
        return (self.hull_xy, turret, self._corners(turret_heading_rad, self.halves_xy),
                self._corners(turret_heading_rad, inner))


class DamagePanel:
    """The silhouette and lines under ``corner`` (the HUD's bottom left corner node);
    ``hud_spec`` gives the text's colours and the backing's. :meth:`place` puts it above
    the dashboard; :meth:`update` follows a vehicle each frame."""

    def __init__(self, corner: NodePath, spec: DamagePanelSpec, hud_spec):
        self.spec = spec
        self.root = corner.attachNewNode("damage-panel")
        self.backing = card(self.root, "damage-panel-backing", 0.0, 1.0, 0.0, 1.0,
                            hud_spec.panel_colour)
        self.shape = DynamicGeoms("damage-silhouette", (GeomTriangles,))
        self.silhouette = self.root.attachNewNode(self.shape.node)
        self.silhouette.setTransparency(TransparencyAttrib.MAlpha)
        self.texts = [hud_text(self.root, hud_spec, spec.text_scale)
                      for _ in range(len(PART_NAMES) + 1)]
        self.colours = {WHOLE: spec.whole_colour, DAMAGED: spec.damaged_colour,
                        DESTROYED: spec.destroyed_colour, FIRE: spec.fire_colour}
        self.drawn = LastDrawn()
        self.outline: TankOutline | None = None
        self._outline_for = None
        self.corners: dict[str, np.ndarray] = {}
        """Each part's box as last drawn: corners (4, 2) on the panel (x right, y up)."""
        self.lines: tuple[tuple[str, str], ...] = ()
        """The lines shown, each (words, kind)."""
        self.least_width = 0.0
        self.root.hide()

    def place(self, left: float, bottom: float, width: float = 0.0) -> None:
        """The panel's bottom left corner, in its corner node's frame; with lines to show,
        its backing is at least ``width`` wide (as wide as the dashboard's under it)."""
        self.root.setPos(left, 0.0, bottom)
        self.least_width = width
        self._fit_backing()

    @property
    def shown(self) -> bool:
        return not self.root.isHidden()

    def update(self, vehicle) -> None:
        """Follow ``vehicle``'s parts (none: no panel), redrawing only what changed."""
        parts = vehicle.parts if vehicle is not None else None
        if self.drawn.changed("shown", parts is not None):
            (self.root.show if parts is not None else self.root.hide)()
        if parts is None:
            return
        if vehicle.spec is not self._outline_for:
            self.outline, self._outline_for = TankOutline(vehicle.spec), vehicle.spec
        states = parts.states()
        step_rad = math.radians(self.spec.turret_step_deg)
        turret_steps = round(math.remainder(vehicle.turret_heading_rad, math.tau) / step_rad)
        if self.drawn.changed("silhouette", (self.outline, tuple(states.values()),
                                             turret_steps)):
            self._draw_silhouette(states, turret_steps * step_rad)
        lines = damage_lines(states, parts.repair_left_s, parts.on_fire)
        if self.drawn.changed("lines", lines):
            self._write_lines(lines)

    def _scale(self) -> float:
        """Panel units per metre: the silhouette's extent is ``silhouette_height`` long."""
        assert self.outline is not None
        return self.spec.silhouette_height / float(self.outline.high[1] - self.outline.low[1])

    def _draw_silhouette(self, states: dict, turret_heading_rad: float) -> None:
        """The hull's outline, the parts under the turret ring, the turret's outline (they
        show dimmed through it), then the rest: each part's box in its state's colour inside
        a dark edge (the turret ring as a ring), higher parts over lower ones, all as one set
        of triangles."""
        s, outline = self.spec, self.outline
        assert outline is not None
        per_m = self._scale()
        hull, turret, boxes, insides = outline.shapes(turret_heading_rad, s.part_edge / per_m)

        def panel(points_m: np.ndarray) -> np.ndarray:
            return s.padding + (points_m - outline.low) * per_m

        def fan(polygon_m: np.ndarray, colour) -> list:
            points = panel(polygon_m)
            return [(points[[0, corner, corner + 1]], colour)
                    for corner in range(1, len(points) - 1)]

        def part(index: int) -> list:
            name = PART_NAMES[index]
            box, colour = panel(boxes[index]), self.colours[states[name]]
            self.corners[name] = box
            if name == TURRET_RING:
                return self._ring(box, colour)
            return [(box[_FAN].reshape(-1, 2), s.edge_colour),
                    (panel(insides[index])[_FAN].reshape(-1, 2), colour)]

        self.corners = {}
        pieces = fan(hull, s.hull_colour)
        for index in outline.under_turret:
            pieces += part(index)
        pieces += fan(turret, s.turret_colour)
        for index in outline.over_turret:
            pieces += part(index)
        triangles = np.concatenate([points for points, _ in pieces])
        colours = np.concatenate([np.tile(colour, (len(points), 1)) for points, colour in pieces])
        self.shape.write(0, on_plane(triangles), colours)
        self._fit_backing()

    def _ring(self, box: np.ndarray, colour) -> list:
        """The turret ring in the square ``box`` (its corners on the panel): a ring
        ``ring_width`` wide round the box's middle, in ``colour`` inside a dark edge, as
        [(triangle corners (n, 2), colour)]."""
        s = self.spec
        centre = box.mean(axis=0)
        outer = float(min(np.ptp(box, axis=0))) / 2.0
        inner = max(outer - s.ring_width, 0.0)
        edge = min(s.part_edge, (outer - inner) * (1.0 - LEAST_PART_SHARE) / 2.0)
        return [(ring_triangles(RING_SEGMENTS, 1.0, inner, outer).reshape(-1, 2) + centre,
                 s.edge_colour),
                (ring_triangles(RING_SEGMENTS, 1.0, inner + edge, outer - edge).reshape(-1, 2)
                 + centre, colour)]

    def _write_lines(self, lines: tuple[tuple[str, str], ...]) -> None:
        """Each line in its kind's colour, right of the silhouette from the backing's top
        down; the backing grows upward to hold them all."""
        self.lines = lines
        for text, line in zip(self.texts, lines + (("", WHOLE),) * len(self.texts)):
            text.node().setText(line[0])
            text.node().setTextColor(*self.colours[line[1]])
        self._fit_backing()

    def _fit_backing(self) -> None:
        """The backing round the silhouette and the lines, and the lines' places in it."""
        s, outline = self.spec, self.outline
        if outline is None:
            return
        # The lines' left edge: right of the silhouette.
        left = s.padding * 2.0 + float(outline.high[0] - outline.low[0]) * self._scale()
        high = s.text_scale * LINE_SPACING
        inner = max(s.silhouette_height, len(self.lines) * high)
        widest = max((text.node().getWidth() * s.text_scale for text in self.texts), default=0.0)
        for index, text in enumerate(self.texts):
            text.setPos(left, 0.0, s.padding + inner - index * high - s.text_scale * BASELINE_DROP)
        width = max(left + widest + s.padding, self.least_width) if self.lines else left
        self.backing.setScale(width, 1.0, inner + s.padding * 2.0)

    def destroy(self) -> None:
        self.root.removeNode()
