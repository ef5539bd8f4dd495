"""The suspension debug overlay (F3; ``--debug-rays`` starts with it on). Its armour view
(the ``armour_view`` action) is :mod:`game.view.armour_view`, configured here.

For every vehicle, from the controller's own report of the last substep
(``Vehicle.anchors()``; the overlay never casts a ray of its own):

- each anchor's ray, from the anchor to its hit (or its full rest length when it
  found no ground), coloured from green (spring unloaded) to red (fully
  compressed), grey when airborne;
- the contact normal at the hit;
- the spring force as a bar standing up from the anchor (length per kN);
- a cross at the contact of every sliding anchor;
- a text block: the player's per-anchor compression and load, and the physics
  step time.

All lines live in ONE GeomNode whose vertex rows are rewritten from numpy each
frame (no node per ray); :func:`overlay_lines` is the pure part tests call.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from panda3d.core import (Geom, GeomLines, GeomNode, GeomVertexData, NodePath, OmniBoundingVolume,
                          TextNode)

from common.spec import Spec, tuning
from game.view.armour_view import ArmourViewSpec
from game.view.draw.colours import rgba
from game.view.draw.meshes import COLOUR_VERTEX_FORMAT
from game.view.draw.overlay import keep_alpha
from game.view.draw.shaders import unlit_colour_shader


@dataclass(frozen=True)
class DebugOverlaySpec(Spec):
    """F3: every anchor's ray, contact normal, spring force and sliding, from the reports."""

    line_px: float = tuning("line width", minimum=0.5, maximum=10.0)
    relaxed_colour: tuple[float, ...] = rgba("a ray with its spring unloaded")
    compressed_colour: tuple[float, ...] = rgba("a ray with its spring fully compressed")
    airborne_colour: tuple[float, ...] = rgba("a ray that found no ground")
    normal_colour: tuple[float, ...] = rgba("the contact normal")
    normal_length_m: float = tuning("the drawn normal's length", minimum=0.05, maximum=10.0)
    force_colour: tuple[float, ...] = rgba("the spring-force bar")
    force_m_per_kn: float = tuning("the spring-force bar's length per kN", minimum=0.0001,
                                   maximum=1.0)
    sliding_colour: tuple[float, ...] = rgba("the cross marking a sliding anchor")
    sliding_size_m: float = tuning("that cross's half size", minimum=0.05, maximum=5.0)
    text_scale: float = tuning("height of the text block", minimum=0.01, maximum=0.2)
    text_colour: tuple[float, ...] = rgba("the text block")
    armour: ArmourViewSpec = tuning("the armour view: the tanks' plates by the thickness "
                                    "the camera sees")


def anchor_rays(view) -> tuple[np.ndarray, np.ndarray]:
    """Start and end points (A, 3) of each anchor's ray as the controller saw it: to the
    hit when on the ground, else the full rest length."""
    origin = np.asarray(view.origin_ws, dtype=np.float64)
    full = origin + np.asarray(view.direction_ws, dtype=np.float64) * view.rest_length_m
    on_ground = np.asarray(view.on_ground, dtype=bool)[:, None]
    end = np.where(on_ground, np.asarray(view.contact_point_ws, dtype=np.float64), full)
    return origin, end


def overlay_lines(views, spec: DebugOverlaySpec) -> dict[str, np.ndarray]:
    """Every segment of the overlay for a list of ``AnchorView`` (None entries skipped).

    Returns arrays of segments (N, 2, 3) and their colours (N, 4) by kind:
    ``rays`` (exactly one per anchor per vehicle, in order), ``normals``, ``forces``
    (one per anchor on the ground), ``sliding`` (two per sliding anchor: a cross).
    """
    parts = {kind: ([], []) for kind in ("rays", "normals", "forces", "sliding")}
    relaxed = np.asarray(spec.relaxed_colour)
    compressed = np.asarray(spec.compressed_colour)
    for view in views:
        if view is None:
            continue
        origin, end = anchor_rays(view)
        on_ground = np.asarray(view.on_ground, dtype=bool)
        up_all = -np.asarray(view.direction_ws, dtype=np.float64)
        share = np.clip(np.asarray(view.compression_m, dtype=np.float64)
                        / max(view.rest_length_m, 1e-6), 0.0, 1.0)[:, None]
        colours = relaxed + (compressed - relaxed) * share
        colours[~on_ground] = spec.airborne_colour
        parts["rays"][0].append(np.stack([origin, end], axis=1))
        parts["rays"][1].append(colours)
        if on_ground.any():
            hit = end[on_ground]
            normal = np.asarray(view.contact_normal_ws, dtype=np.float64)[on_ground]
            parts["normals"][0].append(np.stack([hit, hit + normal * spec.normal_length_m],
                                                axis=1))
            parts["normals"][1].append(np.tile(spec.normal_colour, (len(hit), 1)))
            # The spring pushes the body up along minus the ray: a bar from the anchor.
            up = -np.asarray(view.direction_ws, dtype=np.float64)[on_ground]
            load_kn = np.maximum(np.asarray(view.load_n, dtype=np.float64)[on_ground], 0.0) / 1e3
            # Beside the ray, on the vehicle's outer side, so the two never hide each other.
            outward = origin - origin.mean(axis=0)
            outward -= np.einsum("ij,ij->i", outward, -up_all)[:, None] * -up_all
            outward /= np.maximum(np.linalg.norm(outward, axis=1, keepdims=True), 1e-9)
            foot = origin[on_ground] + outward[on_ground] * spec.sliding_size_m
            top = foot + up * (load_kn * spec.force_m_per_kn)[:, None]
            parts["forces"][0].append(np.stack([foot, top], axis=1))
            parts["forces"][1].append(np.tile(spec.force_colour, (len(hit), 1)))
        sliding = on_ground & np.asarray(view.sliding, dtype=bool)
        if sliding.any():
            hit = end[sliding]
            s = spec.sliding_size_m
            for corner in (np.array([s, s, 0.05]), np.array([s, -s, 0.05])):
                parts["sliding"][0].append(np.stack([hit - corner * [1, 1, -1], hit + corner],
                                                    axis=1))
                parts["sliding"][1].append(np.tile(spec.sliding_colour, (len(hit), 1)))
    result = {}
    for kind, (segments, colours) in parts.items():
        result[kind] = (np.concatenate(segments) if segments else np.zeros((0, 2, 3)))
        result[kind + "_colours"] = (np.concatenate(colours) if colours
                                     else np.zeros((0, 4)))
    return result


def anchor_text(vehicle, step_ms: float | None) -> str:
    """The text block: the vehicle's per-anchor compression and load, the step time."""
    lines = []
    if step_ms is not None:
        lines.append(f"physics step {step_ms:6.2f} ms")
    view = vehicle.anchors() if vehicle is not None else None
    if view is not None:
        lines.append(f"{vehicle.name}: anchor  compr cm   load kN")
        for a in range(len(view.on_ground)):
            state = ("slide" if view.sliding[a] else "") if view.on_ground[a] else "air"
            lines.append(f"  {a}  {view.compression_m[a] * 100.0:8.1f}  "
                         f"{view.load_n[a] / 1000.0:8.1f}  {state}")
    return "\n".join(lines)


class DebugOverlay:
    """Draws :func:`overlay_lines` for ``simulation.vehicles`` under ``parent`` and the
    text block on ``overlay_2d`` (either may be None: headless)."""

    def __init__(self, parent: NodePath | None, overlay_2d: NodePath | None, simulation,
                 spec: DebugOverlaySpec, visible: bool = False):
        self.simulation = simulation
        self.spec = spec
        self.visible = visible
        self.ray_count = 0
        """Rays drawn in the last rebuild (one per anchor per vehicle)."""
        self.segment_count = 0
        self.lines: dict[str, np.ndarray] = {}
        self.path = None
        self.text = None
        if parent is not None:
            self._format = COLOUR_VERTEX_FORMAT
            data = GeomVertexData("debug-rays", self._format, Geom.UH_stream)
            geom = Geom(data)
            geom.addPrimitive(GeomLines(Geom.UH_stream))
            self.node = GeomNode("debug-rays")
            self.node.addGeom(geom)
            self.node.setBounds(OmniBoundingVolume())
            self.node.setFinal(True)
            self.path = parent.attachNewNode(self.node)
            self.path.setShader(unlit_colour_shader())
            self.path.setRenderModeThickness(spec.line_px)
            self.path.setDepthTest(False)  # seen through the hull and the sand
            self.path.setDepthWrite(False)
            self.path.setBin("fixed", 50)
            self.path.setLightOff()
        if overlay_2d is not None:
            text = TextNode("debug-text")
            text.setTextColor(*spec.text_colour)
            text.setShadow(0.05, 0.05)
            text.setShadowColor(0, 0, 0, 0.8)
            text.setFont(TextNode.getDefaultFont())
            self.text = overlay_2d.attachNewNode(text)
            keep_alpha(self.text)
            self.text.setScale(spec.text_scale)
            self.text.setPos(0.05, 0, -0.6)
            self.text_node = text
        self.set_visible(visible)

    def toggle(self) -> None:
        self.set_visible(not self.visible)

    def set_visible(self, visible: bool) -> None:
        self.visible = visible
        for path in (self.path, self.text):
            if path is not None:
                (path.show if visible else path.hide)()

    def update(self, step_ms: float | None = None) -> None:
        """Rebuild from the reports of the last step (only while shown)."""
        if not self.visible:
            return
        views = [vehicle.anchors() for vehicle in self.simulation.vehicles]
        self.lines = overlay_lines(views, self.spec)
        kinds = ("normals", "forces", "sliding", "rays")  # rays last: drawn on top
        segments = np.concatenate([self.lines[k] for k in kinds])
        colours = np.concatenate([self.lines[k + "_colours"] for k in kinds])
        self.ray_count = len(self.lines["rays"])
        self.segment_count = len(segments)
        if self.path is not None:
            rows = np.hstack([segments.reshape(-1, 3),
                              np.repeat(colours, 2, axis=0)]).astype(np.float32)
            geom = self.node.modifyGeom(0)
            data = geom.modifyVertexData()
            data.uncleanSetNumRows(len(rows))
            if len(rows):
                memoryview(data.modifyArray(0)).cast("B")[:] = rows.tobytes()
            lines = geom.modifyPrimitive(0)
            lines.clearVertices()
            if len(rows):
                lines.addConsecutiveVertices(0, len(rows))
        if self.text is not None:
            self.text_node.setText(anchor_text(self.simulation.player, step_ms))

    def destroy(self) -> None:
        for path in (self.path, self.text):
            if path is not None:
                path.removeNode()
        self.path = self.text = None
