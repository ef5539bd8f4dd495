"""The armour view of the debug overlay: every tank's plates coloured by the armour a shell
from the camera would meet there, with a legend in mm.

A plate of thickness t seen along a ray that meets its face at angle a from the face's
outward normal is t / cos(a) thick along that ray: its effective thickness from the
camera (before any shell's normalisation, which depends on the shell). Each vertex of each
face (:func:`game.view.rigs.rig_plates.plate_faces`, the faces the tank is drawn with) takes
the colour of the scale (:class:`ArmourViewSpec`) at the effective thickness along the ray
from the eye to it, darkened a little as the face turns away, so the shape still reads. A
face turned from the eye (which a shell from there cannot strike) shows the scale's top.

The coloured faces are drawn over the painted ones under each tank's rig (the hull's under
its root, the turret's under its turret node, so they move and turn with it), unlit and a
little nearer in the depth test, each plate the nearer the earlier it is listed; only their
colours are rewritten, each frame the view is shown. :func:`armour_colours` is the pure part tests call.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from panda3d.core import Geom, GeomNode, GeomVertexData, NodePath, Point3, TextNode

from common.spec import Spec, SpecError, tuning
from game.view.draw.meshes import COLOUR_VERTEX_FORMAT, triangle_primitive
from game.view.draw.overlay import card, keep_alpha
from game.view.draw.shaders import unlit_colour_shader
from game.view.rigs.rig_plates import PLATES_DEPTH_OFFSET, drawn_plates, plate_faces

_EDGE_ON_COSINE = 1e-3
"""A face met more glancingly than this (cos of the angle) counts as met at it: the scale's
top, not a division by nothing."""
_SHADER_PRIORITY = 10
"""Over the lit shader the rig's nodes are drawn with."""


@dataclass(frozen=True)
class ArmourViewSpec(Spec):
    """The armour view: the plates coloured by their thickness as the camera sees them."""

    scale_mm: tuple[float, ...] = tuning(
        "the colour scale's stops: effective thicknesses in mm, rising (between two, the "
        "colour blends; past the last, the last)", minimum=0.0, maximum=5000.0, length=(2, 8))
    scale_colours: tuple[tuple[float, ...], ...] = tuning(
        "the colour at each stop, RGB 0..1", minimum=0.0, maximum=1.0, length=(2, 8))
    turned_shade: float = tuning("how much darker a face is drawn met edge on than square "
                                 "on (0: not at all)", minimum=0.0, maximum=0.9)
    legend_position: tuple[float, ...] = tuning(
        "the legend's top left corner from the window's top left, right and down, in shares "
        "of the window's half height", minimum=0.0, maximum=4.0, length=(2, 2))
    legend_text_scale: float = tuning("the legend's text height", minimum=0.01, maximum=0.2)
    legend_text_colour: tuple[float, ...] = tuning("the legend's text, RGBA", minimum=0.0,
                                                   maximum=1.0, length=(4, 4))

    def __post_init__(self) -> None:
        super().__post_init__()
        if any(b <= a for a, b in zip(self.scale_mm, self.scale_mm[1:])):
            raise SpecError("scale_mm", self.scale_mm, "thicknesses that rise")
        if len(self.scale_colours) != len(self.scale_mm):
            raise SpecError("scale_colours", self.scale_colours,
                            f"one colour per stop of scale_mm ({len(self.scale_mm)})")
        for index, colour in enumerate(self.scale_colours):
            if len(colour) != 3:
                raise SpecError(f"scale_colours[{index}]", colour, "3 numbers, RGB")


def scale_colour(effective_mm: np.ndarray, spec: ArmourViewSpec) -> np.ndarray:
    """The scale's colours (N, 3) at the effective thicknesses (N,)."""
    stops = np.asarray(spec.scale_mm, dtype=np.float64)
    colours = np.asarray(spec.scale_colours, dtype=np.float64)
    return np.stack([np.interp(effective_mm, stops, colours[:, channel])
                     for channel in range(3)], axis=1)


def armour_colours(positions: np.ndarray, normals: np.ndarray, thickness_mm: np.ndarray,
                   eye: np.ndarray, spec: ArmourViewSpec) -> tuple[np.ndarray, np.ndarray]:
    """Per vertex (N,) of faces in one frame (positions, outward normals, the thickness of
    each vertex's plate) seen from ``eye`` in the same frame: its effective thickness (inf
    on a face turned from the eye) and its colour, RGBA (N, 4)."""
    towards = positions - eye
    towards /= np.maximum(np.linalg.norm(towards, axis=1, keepdims=True), 1e-9)
    cosine = -np.einsum("ij,ij->i", towards, normals)
    facing = cosine > 0.0
    effective = np.where(facing, thickness_mm / np.maximum(cosine, _EDGE_ON_COSINE), np.inf)
    colour = scale_colour(np.where(facing, effective, spec.scale_mm[-1]), spec)
    colour *= (1.0 - spec.turned_shade * (1.0 - np.clip(cosine, 0.0, 1.0)))[:, None]
    return effective, np.hstack([colour, np.ones((len(colour), 1))])


class _PartFaces:
    """One part's (hull's, turret's) coloured faces under the node that carries it: a node
    per plate, so that where two plates' faces lie in one plane the plate listed first
    shows (the one a shell there strikes, :func:`physics.model.armour.first_plate`)."""

    def __init__(self, parent: NodePath, plates: list):
        positions, normals, triangles, owners = plate_faces(plates)
        self.positions, self.normals = positions, normals
        thickness = np.array([plate.thickness_mm for plate in plates], dtype=np.float64)
        corner_owner = np.zeros(len(positions), dtype=np.int64)
        corner_owner[triangles.reshape(-1)] = np.repeat(owners, 3)
        self.thickness_mm = thickness[corner_owner]
        """Each vertex's plate's thickness."""
        self.path = parent.attachNewNode("armour-view")
        self.path.setShader(unlit_colour_shader(), _SHADER_PRIORITY)
        self.path.setLightOff(_SHADER_PRIORITY)
        self._plates: list[tuple[slice, GeomNode]] = []
        for index in range(len(plates)):
            rows = np.flatnonzero(corner_owner == index)  # each plate's rows run together
            span = slice(int(rows[0]), int(rows[-1]) + 1)
            data = GeomVertexData("armour-view", COLOUR_VERTEX_FORMAT, Geom.UH_dynamic)
            data.uncleanSetNumRows(span.stop - span.start)
            geom = Geom(data)
            geom.addPrimitive(triangle_primitive(triangles[owners == index] - span.start,
                                                 Geom.UH_static))
            node = GeomNode(f"armour-view-{plates[index].name}")
            node.addGeom(geom)
            plate_path = self.path.attachNewNode(node)
            plate_path.setDepthOffset(PLATES_DEPTH_OFFSET + len(plates) - index)
            self._plates.append((span, node))
        self.effective_mm = np.zeros(len(positions))

    def colour_from(self, eye_ws: np.ndarray, render: NodePath, spec: ArmourViewSpec) -> None:
        eye = np.array(self.path.getRelativePoint(render, Point3(*eye_ws)))
        self.effective_mm, colours = armour_colours(self.positions, self.normals,
                                                    self.thickness_mm, eye, spec)
        rows = np.hstack([self.positions, colours]).astype(np.float32)
        for span, node in self._plates:
            data = node.modifyGeom(0).modifyVertexData()
            memoryview(data.modifyArray(0)).cast("B")[:] = rows[span].tobytes()


class ArmourView:
    """Draws every tank's plates by effective thickness over its rig (``update`` with the
    session's vehicle views), and the legend on ``overlay_2d`` (None: headless)."""

    def __init__(self, overlay_2d: NodePath | None, spec: ArmourViewSpec,
                 visible: bool = False):
        self.spec = spec
        self.visible = visible
        self._parts: dict[int, tuple[object, list[_PartFaces]]] = {}
        """By id of the rig: the rig, and its parts' faces."""
        self.legend = None if overlay_2d is None else self._legend(overlay_2d)
        self.set_visible(visible)

    def _legend(self, overlay_2d: NodePath) -> NodePath:
        spec = self.spec
        root = overlay_2d.attachNewNode("armour-legend")
        right, down = spec.legend_position
        root.setPos(right, 0.0, -down)
        size = spec.legend_text_scale
        title = TextNode("armour-legend-title")
        title.setText("armour from the camera (mm)")
        title.setTextColor(*spec.legend_text_colour)
        title.setShadow(0.05, 0.05)
        title_path = root.attachNewNode(title)
        title_path.setScale(size)
        keep_alpha(title_path)
        for row, (thickness, colour) in enumerate(zip(reversed(spec.scale_mm),
                                                      reversed(spec.scale_colours))):
            top = -(row + 1) * size * 1.3
            card(root, f"armour-swatch-{row}", 0.0, size * 1.4, top - size * 0.2,
                 top + size * 0.8, (*colour, 1.0))
            label = TextNode(f"armour-legend-{row}")
            label.setText(("≥ " if row == 0 else "") + f"{thickness:.0f}")
            label.setTextColor(*spec.legend_text_colour)
            label.setShadow(0.05, 0.05)
            path = root.attachNewNode(label)
            path.setScale(size)
            path.setPos(size * 1.8, 0.0, top)
            keep_alpha(path)
        return root

    def toggle(self) -> None:
        self.set_visible(not self.visible)

    def set_visible(self, visible: bool) -> None:
        self.visible = visible
        paths = [face.path for _, parts in self._parts.values() for face in parts]
        for path in paths + ([self.legend] if self.legend is not None else []):
            (path.show if visible else path.hide)()

    def update(self, rigs, eye_ws, render: NodePath) -> None:
        """Colour every tank's plates as seen from ``eye_ws`` (only while shown); ``rigs``:
        the session's rigs, those with plates drawn (a rig gone is forgotten)."""
        if not self.visible or eye_ws is None:
            return
        current = {id(rig): rig for rig in rigs}
        for key in [key for key in self._parts if key not in current]:
            self._parts.pop(key)  # its nodes went with its rig
        eye = np.asarray(eye_ws, dtype=np.float64)
        for key, rig in current.items():
            if key not in self._parts:
                self._parts[key] = (rig, self._faces_of(rig))
            for face in self._parts[key][1]:
                face.colour_from(eye, render, self.spec)

    @staticmethod
    def _faces_of(rig) -> list[_PartFaces]:
        plates = getattr(rig.vehicle.spec, "plates", None)
        parts = []
        for part, parent in (("hull", rig.root), ("turret", getattr(rig, "turret", None))):
            chosen = drawn_plates(plates, part)
            if chosen and parent is not None:
                parts.append(_PartFaces(parent, chosen))
        return parts

    def destroy(self) -> None:
        for _, parts in self._parts.values():
            for face in parts:
                face.path.removeNode()
        self._parts.clear()
        if self.legend is not None:
            self.legend.removeNode()
            self.legend = None
