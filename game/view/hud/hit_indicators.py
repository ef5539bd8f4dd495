"""What the player's shots did and where shots at the player came from.

- :class:`HitMarker`: when a shell the player fired hits an enemy vehicle (a ``Hit`` event
  with the player as shooter and a living enemy as target), an X of four short strokes
  flashes round the crosshair and fades; a kill (``Destroyed`` by the player) flashes a
  bigger X in another colour, for longer.
- :class:`DamageIndicator`: when the player's vehicle takes damage (``Damage``), a wedge on
  a ring round the view's middle points to where the shooter is now, relative to the
  camera's heading (straight up: ahead; left: to the left), and fades; one wedge per
  shooter, a new hit from the same one renewing it. A shooter no longer in the game is
  pointed at where it was last.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from panda3d.core import GeomTriangles, LineSegs, NodePath, TransparencyAttrib

from common.spec import Spec, tuning
from game.sim.events import Damage, Destroyed, Event, Hit
from game.view.draw.colours import rgba
from game.view.draw.overlay import keep_alpha
from game.view.hud.hud_draw import (DynamicGeoms, LastDrawn, PixelGrid, bearing_steps, colour_steps,
                                on_plane)
from game.view.hud.hud_state import HudState

DIAGONALS = (math.pi / 4, 3 * math.pi / 4, 5 * math.pi / 4, 7 * math.pi / 4)
"""The X's four strokes, counterclockwise from right."""


@dataclass(frozen=True)
class HitMarkerSpec(Spec):
    """The X round the crosshair: sizes in shares of the view's half height."""

    hit_s: float = tuning("a hit's X shows (fading) this long", minimum=0.05, maximum=3.0)
    kill_s: float = tuning("a kill's X shows (fading) this long", minimum=0.05, maximum=5.0)
    inner: float = tuning("each stroke starts this far from the crosshair's middle",
                          minimum=0.0, maximum=0.5)
    length: float = tuning("each stroke's length", minimum=0.005, maximum=0.5)
    kill_scale: float = tuning("a kill's X is this many times a hit's", minimum=1.0,
                               maximum=5.0)
    stroke_px: float = tuning("the strokes' thickness", minimum=1.0, maximum=16.0)
    hit_colour: tuple[float, ...] = rgba("a hit's X")
    kill_colour: tuple[float, ...] = rgba("a kill's X")


@dataclass(frozen=True)
class DamageIndicatorSpec(Spec):
    """Wedges round the view's middle toward who hurt the player: sizes in shares of the
    view's half height."""

    shown_s: float = tuning("a wedge fades out over this long", minimum=0.1, maximum=10.0)
    radius: float = tuning("the ring's outer radius", minimum=0.05, maximum=1.0)
    width: float = tuning("the wedge's depth, inward from the outer radius", minimum=0.005,
                          maximum=0.5)
    arc_deg: float = tuning("the wedge's angle", minimum=5.0, maximum=180.0)
    segments: int = tuning("segments along the wedge", minimum=1, maximum=64)
    colour: tuple[float, ...] = rgba("the wedge at its strongest")


class HitMarker:
    """The X round the crosshair; ``parent`` is the crosshair's node (it follows it)."""

    def __init__(self, parent: NodePath, spec: HitMarkerSpec):
        self.spec = spec
        self.root = parent.attachNewNode("hit-marker")
        keep_alpha(self.root)
        self.root.setTransparency(TransparencyAttrib.MAlpha)
        self.hit_x = self._cross("hit-x", 1.0, spec.hit_colour)
        self.kill_x = self._cross("kill-x", spec.kill_scale, spec.kill_colour)
        self.left_s = 0.0
        self.shown_s = spec.hit_s
        self.showing: NodePath | None = None
        self._alpha_drawn: int | None = None
        """The X's opacity last set, in colour steps."""

    def _cross(self, name: str, scale: float, colour) -> NodePath:
        lines = LineSegs(name)
        lines.setColor(*colour)
        lines.setThickness(self.spec.stroke_px)
        start, end = self.spec.inner * scale, (self.spec.inner + self.spec.length) * scale
        for angle in DIAGONALS:
            lines.moveTo(math.cos(angle) * start, 0.0, math.sin(angle) * start)
            lines.drawTo(math.cos(angle) * end, 0.0, math.sin(angle) * end)
        path = self.root.attachNewNode(lines.create())
        path.hide()
        return path

    def on_events(self, events: list[Event], player_name: str, enemies) -> None:
        """Hits by the player on the living ``enemies`` (names); kills by the player."""
        for event in events:
            if isinstance(event, Destroyed) and event.by == player_name \
                    and event.vehicle != player_name:
                self._flash(self.kill_x, self.spec.kill_s)
            elif isinstance(event, Hit) and event.shooter == player_name \
                    and event.target in enemies and self.showing is not self.kill_x:
                self._flash(self.hit_x, self.spec.hit_s)

    def _flash(self, cross: NodePath, seconds: float) -> None:
        for path in (self.hit_x, self.kill_x):
            path.hide()
        cross.show()
        self.showing, self.left_s, self.shown_s = cross, seconds, seconds
        self._alpha_drawn = None

    def update(self, frame_s: float) -> None:
        """The X fades out over its time."""
        if self.showing is None:
            return
        self.left_s -= frame_s
        if self.left_s <= 0.0:
            self.showing.hide()
            self.showing = None
            return
        alpha = colour_steps(self.left_s / self.shown_s)
        if alpha != self._alpha_drawn:
            self._alpha_drawn = alpha
            self.showing.setAlphaScale(self.left_s / self.shown_s)


def wedge_triangles(middle_rad: float, arc_rad: float, inner: float, outer: float,
                    segments: int) -> np.ndarray:
    """Corner points (n, 3, 2) of a ring's piece ``arc_rad`` wide, centred on the bearing
    ``middle_rad`` (0 up, + clockwise)."""
    angles = np.linspace(middle_rad - arc_rad / 2.0, middle_rad + arc_rad / 2.0, segments + 1)
    x, y = np.sin(angles), np.cos(angles)
    inner_points = np.stack([x * inner, y * inner], axis=1)
    outer_points = np.stack([x * outer, y * outer], axis=1)
    first = np.stack([inner_points[:-1], outer_points[:-1], outer_points[1:]], axis=1)
    second = np.stack([inner_points[:-1], outer_points[1:], inner_points[1:]], axis=1)
    return np.concatenate([first, second])


class DamageIndicator:
    """Wedges round the view's middle (``parent``: its centre node) toward the shooters
    that hurt the player lately; redrawn when one has turned by a pixel of ``grid`` (the
    HUD is drawn ``scale`` times as large) or faded by a colour step."""

    def __init__(self, parent: NodePath, spec: DamageIndicatorSpec,
                 grid: PixelGrid | None = None, scale: float = 1.0):
        self.spec = spec
        self.grid = grid if grid is not None else PixelGrid()
        self.scale = scale
        self.drawn = LastDrawn()
        self.shape = DynamicGeoms("damage-indicator", (GeomTriangles,))
        self.node = self.shape.node
        self.root = parent.attachNewNode(self.node)
        keep_alpha(self.root)
        self.root.setTransparency(TransparencyAttrib.MAlpha)
        self.sources: dict[str, list] = {}
        """Shooter's name: [seconds left, last known (x, y) or None]."""
        self.bearings: list[tuple[float, float]] = []
        """Drawn last: each wedge's bearing (0 up, + clockwise) and opacity share."""

    def on_events(self, events: list[Event], player_name: str) -> None:
        for event in events:
            if isinstance(event, Damage) and event.vehicle == player_name \
                    and event.by != player_name:
                known = self.sources.get(event.by)
                self.sources[event.by] = [self.spec.shown_s, known[1] if known else None]

    def update(self, state: HudState, frame_s: float) -> None:
        """Age the wedges; point each at its shooter's place now."""
        heading = state.heading_rad if state.view_heading_rad is None else state.view_heading_rad
        here_x, here_y = state.position_xy
        bearings = []
        for name in list(self.sources):
            source = self.sources[name]
            source[0] -= frame_s
            if source[0] <= 0.0:
                del self.sources[name]
                continue
            source[1] = state.positions.get(name, source[1])
            if source[1] is None:
                continue  # never seen: nowhere to point
            east_m, north_m = source[1][0] - here_x, source[1][1] - here_y
            bearing = math.remainder(math.atan2(east_m, north_m) - heading, math.tau)
            bearings.append((bearing, source[0] / self.spec.shown_s))
        seen = tuple((bearing_steps(self.grid, bearing, self.spec.radius, self.scale),
                      colour_steps(share)) for bearing, share in bearings)
        if self.drawn.changed("wedges", seen):
            self._draw(bearings)
        self.bearings = bearings

    def _draw(self, bearings: list[tuple[float, float]]) -> None:
        s = self.spec
        pieces = [wedge_triangles(bearing, math.radians(s.arc_deg), s.radius - s.width,
                                  s.radius, s.segments).reshape(-1, 2) for bearing, _ in bearings]
        colours = [np.tile(np.array(s.colour) * (1.0, 1.0, 1.0, share), (len(piece), 1))
                   for piece, (_, share) in zip(pieces, bearings)]
        self.shape.write(0, on_plane(np.concatenate(pieces) if pieces else np.zeros((0, 2))),
                         np.concatenate(colours) if colours else np.zeros((0, 4)))

    def destroy(self) -> None:
        self.root.removeNode()
        self.sources.clear()
