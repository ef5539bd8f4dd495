"""Combat drawn: tracers for the shells in flight and the firing range's steel plates.

- Tracers: every shell in ``simulation.shells`` is a short bright streak along its
  velocity, a ribbon turned to face the camera, its head where the shell is (blended
  between the last two steps by its velocity) and its tail fading behind, never
  reaching back past where it was fired. All streaks live in ONE Geom of ONE GeomNode
  whose vertex rows are rewritten from numpy each frame (no node or Geom per shell or
  per frame; the triangles only when the number of shells changes).
- Plates: each of ``simulation.plates`` (centre ``position_ws``, ``half_extents_m``:
  half width, half thickness, half height, compass ``heading_deg``) is a steel-grey
  box on two posts driven into the ground, built when it first appears.

Tracers glow: their own unlit shader draws them in their colour, unshaded and unfogged,
blended (the tail fades out) after the opaque scene.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from panda3d.core import (Geom, GeomNode, GeomTriangles, GeomVertexData, NodePath,
                          TransparencyAttrib)

from common.spec import Spec, tuning
from game.view.draw.colours import rgb
from game.view.draw.meshes import COLOUR_VERTEX_FORMAT, box_mesh
from game.view.draw.shaders import unlit_colour_shader


@dataclass(frozen=True)
class CombatViewSpec(Spec):
    """How shells in flight and the firing range's plates are drawn."""

    tracer_length_m: float = tuning("a tracer's streak, at most (it never reaches back past "
                                    "the muzzle)", minimum=0.1, maximum=200.0)
    tracer_width_m: float = tuning("a tracer's width", minimum=0.01, maximum=5.0)
    tracer_head_colour: tuple[float, ...] = rgb("a tracer's bright head, 0..1")
    tracer_tail_colour: tuple[float, ...] = rgb("its fading tail, 0..1")
    plate_colour: tuple[float, ...] = rgb("steel plates, 0..1")
    post_colour: tuple[float, ...] = rgb("the plates' posts, 0..1")
    post_width_m: float = tuning("side of a post's square section", minimum=0.02,
                                 maximum=2.0)


_QUAD = np.array([[0, 1, 2], [0, 2, 3]], dtype=np.uint32)


def tracer_quads(heads: np.ndarray, velocities: np.ndarray, origins: np.ndarray | None,
                 eye: np.ndarray, length_m: float, width_m: float) -> np.ndarray:
    """Corner points (N, 4, 3) of each tracer's ribbon: head left, head right, tail right,
    tail left, the ribbon's face turned toward ``eye``."""
    speed = np.linalg.norm(velocities, axis=1, keepdims=True)
    direction = velocities / np.maximum(speed, 1e-9)
    length = np.full((len(heads), 1), length_m)
    if origins is not None:  # never longer than the way flown since the muzzle
        flown = np.einsum("ij,ij->i", heads - origins, direction)[:, None]
        length = np.clip(flown, 0.0, length_m)
    tails = heads - direction * length
    to_eye = eye[None, :] - heads
    side = np.cross(direction, to_eye)
    norm = np.linalg.norm(side, axis=1, keepdims=True)
    fallback = np.cross(direction, np.array([0.0, 0.0, 1.0]))
    side = np.where(norm > 1e-6, side / np.maximum(norm, 1e-9), fallback)
    side *= width_m / 2.0
    return np.stack([heads - side, heads + side, tails + side, tails - side], axis=1)


class CombatView:
    """Draws ``simulation.shells`` and ``simulation.plates`` under ``parent``."""

    def __init__(self, parent: NodePath, simulation, spec: CombatViewSpec):
        self.simulation = simulation
        self.spec = spec
        self.root = parent.attachNewNode("combat")
        self.tracer_node = GeomNode("tracers")
        geom = Geom(GeomVertexData("tracers", COLOUR_VERTEX_FORMAT, Geom.UH_stream))
        triangles = GeomTriangles(Geom.UH_stream)
        triangles.setIndexType(Geom.NT_uint32)
        geom.addPrimitive(triangles)
        self.tracer_node.addGeom(geom)
        self.tracers = self.root.attachNewNode(self.tracer_node)
        self.tracers.setShader(unlit_colour_shader())
        self.tracers.setTransparency(TransparencyAttrib.MAlpha)
        self.tracers.setDepthWrite(False)
        self.tracers.setTwoSided(True)
        self.tracers.setBin("fixed", 10)
        self.tracers.setLightOff()
        self.shown_tracers = 0
        """How many tracers the last frame drew."""
        self._origins: dict[int, np.ndarray] = {}
        self.plates: dict[int, NodePath] = {}
        self._plate_objects: dict[int, object] = {}
        self._plate_poses: dict[int, tuple] = {}
        """Each plate's place and heading as last set."""

    # ----- plates ---------------------------------------------------------------------

    def _ground_m(self, x: float, y: float) -> float:
        terrain = getattr(self.simulation, "terrain", None)
        return float(terrain.height_at(x, y)) if terrain is not None else 0.0

    def _build_plate(self, plate) -> NodePath:
        spec = self.spec
        half = np.asarray(plate.half_extents_m, dtype=np.float64)
        centre = np.asarray(plate.position_ws, dtype=np.float64)
        node = self.root.attachNewNode("plate")
        node.setPos(*centre)
        node.setH(-float(getattr(plate, "heading_deg", 0.0)))
        node.attachNewNode(box_mesh("steel-plate", half, spec.plate_colour))
        node.setShaderInput("specular_strength", 0.5)
        # Two posts behind the plate, from the ground up to its top.
        post = spec.post_width_m / 2.0
        heading = math.radians(float(getattr(plate, "heading_deg", 0.0)))
        right = np.array([math.cos(heading), -math.sin(heading)])
        for share in (-0.7, 0.7):
            x, y = centre[:2] + right * share * half[0]
            ground = min(self._ground_m(x, y), centre[2] - half[2])
            top = centre[2] + half[2] * 0.9
            bottom = ground - 0.3  # driven into the ground
            offset_y = half[1] + post  # behind the plate (+Y in its frame: away from the spawn)
            node.attachNewNode(box_mesh(
                "post", (post, post, (top - bottom) / 2.0), spec.post_colour,
                centre=(share * half[0], offset_y, (top + bottom) / 2.0 - centre[2])))
        return node

    def _sync_plates(self) -> None:
        plates = list(getattr(self.simulation, "plates", None) or [])
        seen = set()
        for plate in plates:
            key = id(plate)
            seen.add(key)
            if key not in self.plates:
                self.plates[key] = self._build_plate(plate)
                self._plate_objects[key] = plate
            pose = (tuple(float(v) for v in plate.position_ws),
                    -float(getattr(plate, "heading_deg", 0.0)),
                    -float(getattr(plate, "slope_deg", 0.0)))  # leaning back: top away
            if pose != self._plate_poses.get(key):  # moved (or just built): placed again
                self._plate_poses[key] = pose
                self.plates[key].setPosHpr(*pose[0], pose[1], pose[2], 0.0)
        for key in [k for k in self.plates if k not in seen]:
            self.plates.pop(key).removeNode()
            self._plate_objects.pop(key, None)
            self._plate_poses.pop(key, None)

    # ----- tracers --------------------------------------------------------------------

    def _write_tracers(self, corners: np.ndarray) -> None:
        """The ribbons' corners (N, 4, 3) into the tracers' Geom: head bright, tail faded."""
        spec = self.spec
        count = len(corners)
        head = np.append(np.asarray(spec.tracer_head_colour, dtype=np.float64), 1.0)
        tail = np.append(np.asarray(spec.tracer_tail_colour, dtype=np.float64), 0.0)
        rows = np.empty((count, 4, 7), np.float32)
        rows[:, :, 0:3] = corners
        rows[:, :, 3:7] = np.stack([head, head, tail, tail])
        geom = self.tracer_node.modifyGeom(0)
        data = geom.modifyVertexData()
        data.uncleanSetNumRows(count * 4)
        if count:
            memoryview(data.modifyArray(0)).cast("B")[:] = memoryview(rows).cast("B")
        if count != self.shown_tracers:  # the triangles of N quads are always the same
            triangles = (_QUAD[None, :, :]
                         + 4 * np.arange(count, dtype=np.uint32)[:, None, None]).ravel()
            indices = geom.modifyPrimitive(0).modifyVertices(len(triangles))
            indices.uncleanSetNumRows(len(triangles))
            if count:
                memoryview(indices).cast("B")[:] = memoryview(triangles).cast("B")
        self.shown_tracers = count

    def update(self, alpha: float, eye_ws) -> None:
        """Once a frame: shells blended ``alpha`` of the way from the previous step to the
        last one, ribbons facing ``eye_ws`` (the camera)."""
        self._sync_plates()
        shells = list(getattr(self.simulation, "shells", None) or [])
        if not shells:
            self._origins.clear()
            if self.shown_tracers:
                self._write_tracers(np.zeros((0, 4, 3)))
            return
        heads = np.array([np.asarray(s.position_ws, dtype=np.float64) for s in shells])
        velocities = np.array([np.asarray(s.velocity_ws, dtype=np.float64) for s in shells])
        step_s = float(getattr(self.simulation, "step_s", 1.0 / 60.0))
        # The last step put the shells at ``heads``; the drawn moment is (1 - alpha) earlier.
        positions = heads
        heads = positions - velocities * (1.0 - alpha) * step_s
        # Where each shell was first seen to start from (its muzzle): the streak never
        # reaches back past it.
        origins = self._origins
        live = {id(s) for s in shells}
        for key in [k for k in origins if k not in live]:
            del origins[key]
        now_s = getattr(self.simulation, "time_s", None)
        for shell, position, velocity in zip(shells, positions, velocities):
            if id(shell) not in origins:
                # Back along its flight for as long as it has flown (a step if unknown).
                fired_s = getattr(shell, "fired_at_s", None)
                age_s = (now_s - fired_s if now_s is not None and fired_s is not None
                         else step_s)
                origins[id(shell)] = position - velocity * max(age_s, 0.0)
        origins = np.array([origins[id(s)] for s in shells])
        corners = tracer_quads(heads, velocities, origins, np.asarray(eye_ws, dtype=np.float64),
                               self.spec.tracer_length_m, self.spec.tracer_width_m)
        self._write_tracers(corners)

    def destroy(self) -> None:
        self.root.removeNode()
        self.plates.clear()
        self._plate_objects.clear()
