"""One particle system for every effect: numpy arrays, one vectorised update, one draw.

State lives in one float32 array, a row per particle over a fixed capacity (the
named fields are column views of it); the live particles are always the first
``count`` rows, in the order they were born, or, in a system sorted back to front, in
the order they were last drawn (dead ones are squeezed out in one copy in the same pass
that ages the rest, so order is kept; kept in draw order, the next frame's sort finds
them nearly sorted, which is much quicker than sorting them afresh).
Spawning takes per-particle looks, so a whole frame's streams of different emitters are
one call (:mod:`game.view.effects.emission`). A spawn that would overflow the capacity
drops the oldest particles first: the count is bounded whatever the game throws at it.

Drawing: all live particles are ONE Geom of quads (four vertex rows a particle:
centre, colour, size, glow and a corner) written from numpy through a memoryview
each frame; a small ``#version 330`` shader pushes each corner out in clip space,
so every quad faces the camera and is sized in metres, and shades it as a round,
soft sprite. (Not point sprites: Panda3D 1.10 does not let a GLSL shader set
``gl_PointSize`` here, so points stay one pixel.) Colours are premultiplied, blended with
``ONE, ONE_MINUS_SRC_ALPHA``: a smoke particle (``additive`` 0) covers what is
behind it, a flame or spark (``additive`` 1) adds light to it, both in the same
draw. Depth test on, depth write off, drawn after the opaque scene (and the
sky); optionally sorted back to front so smoke layers correctly.

:func:`bench.particles.benchmark` compares this system with Panda3D's own
``ParticleEffect`` with a ``PointParticleRenderer`` on the same number of particles:
the CPU cost of one frame's update, and the draw cost with ``gl-finish`` in an
offscreen window.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from panda3d.core import (ColorBlendAttrib, Geom, GeomNode, GeomTriangles, GeomVertexArrayFormat,
                          GeomVertexData, GeomVertexFormat, InternalName, NodePath,
                          OmniBoundingVolume, Shader, Vec2, Vec3)

from common.spec import Spec, SpecError, least_most, tuning
from game.view.draw.colours import rgba
from game.view.effects.particle_kernel import (age_and_move_loop, far_first_keys_loop,
                                               quad_rows_loop, take_rows_loop)


@dataclass(frozen=True)
class EmitterSpec(Spec):
    """One kind of particle burst or stream: how many, how they fly, grow and fade."""

    count: int = tuning("particles per burst at the high quality setting (a stream: per "
                        "second, or per second per m/s)", minimum=0, maximum=5000)
    life_s: tuple[float, ...] = least_most("each particle lives a random time in", 0.01, 60.0)
    speed_mps: tuple[float, ...] = least_most("launch speed", 0.0, 500.0)
    spread_deg: float = tuning("half-angle of the cone the particles leave in, round the "
                               "emitter's direction (180: every way)", minimum=0.0,
                               maximum=180.0)
    jitter_m: float = tuning("particles start up to this far from the emitter's point",
                             minimum=0.0, maximum=20.0)
    size_m: tuple[float, ...] = tuning("sprite diameter at birth and at death",
                                       minimum=0.001, maximum=100.0, length=(2, 2))
    colour_start: tuple[float, ...] = rgba("colour at birth, 0..", maximum=8.0)
    colour_end: tuple[float, ...] = rgba("colour at death (alpha 0: fades out), 0..",
                                          maximum=8.0)
    drag_per_s: float = tuning("air drag: speed falls as exp(-drag x t)", minimum=0.0,
                               maximum=100.0)
    lift_m_s2: float = tuning("vertical acceleration (+: rises like hot smoke, -9.81: falls "
                              "like debris)", minimum=-50.0, maximum=50.0)
    additive: bool = tuning("glows (added to what is behind) instead of covering it")

    def __post_init__(self) -> None:
        super().__post_init__()
        for name in ("life_s", "speed_mps"):
            low, high = getattr(self, name)
            if low > high:
                raise SpecError(name, getattr(self, name), "[least, most]")


_VERTEX = """#version 330
uniform mat4 p3d_ModelViewProjectionMatrix;
uniform mat4 p3d_ModelMatrix;
uniform mat4 p3d_ViewMatrixInverse;
uniform vec2 clip_per_m;            // clip-space offset of 1 m at w = 1 (the lens's scale)
uniform vec3 haze_colour;           // the scene's haze at the horizon
uniform float haze_density;         // visibility = exp(-(density * distance)^2)
in vec4 p3d_Vertex;
in vec4 p3d_Color;
in vec2 sprite;                     // x: diameter (m), y: 1 = glows (additive)
in vec2 corner;                     // (+-1, +-1): which corner of the quad
out vec4 v_colour;
out float v_glow;
out vec2 v_corner;
void main() {
    gl_Position = p3d_ModelViewProjectionMatrix * p3d_Vertex;
    gl_Position.xy += corner * (0.5 * sprite.x) * clip_per_m;
    v_corner = corner;
    vec3 world = (p3d_ModelMatrix * p3d_Vertex).xyz;
    float fog = haze_density * length(world - p3d_ViewMatrixInverse[3].xyz);
    float visibility = exp(-fog * fog);
    // Smoke melts into the haze; glowing particles simply fade with distance.
    vec3 colour = sprite.y > 0.5 ? p3d_Color.rgb * visibility
                                 : mix(haze_colour, p3d_Color.rgb, visibility);
    v_colour = vec4(colour, p3d_Color.a);
    v_glow = sprite.y;
}
"""

_FRAGMENT = """#version 330
in vec4 v_colour;
in float v_glow;
in vec2 v_corner;
out vec4 p3d_FragColor;
void main() {
    float r2 = dot(v_corner, v_corner);
    if (r2 >= 1.0) discard;
    float soft = (1.0 - r2) * (1.0 - r2);       // soft edge, dense core
    float alpha = clamp(v_colour.a, 0.0, 1.0) * soft;
    // Premultiplied: glowing particles add (alpha 0 out), smoke covers.
    p3d_FragColor = vec4(v_colour.rgb * alpha, alpha * (1.0 - v_glow));
}
"""

_FLOATS_PER_ROW = 9  # x y z, r g b a, diameter, glow
_STATE_LAYOUT = (slice(0, 3), slice(3, 6), 6, 7, slice(8, 10), slice(10, 14), slice(14, 18),
                 18, 19, 20)
"""Columns of a particle's state row: position, velocity, age, life, size (birth, death),
colour at birth and at death, drag, lift, glow."""
STATE_ROW_FLOATS = 21
"""Floats in a particle's state row."""
STATE_FIELD_COLUMNS = tuple(column.start if isinstance(column, slice) else column
                            for column in _STATE_LAYOUT)
"""The first column of each field of a particle's state row, in :data:`_STATE_LAYOUT`'s
order (for the compiled loops that read and write rows)."""
_POSITION, _VELOCITY, _AGE, _LIFE, _SIZE, _COLOUR0, _COLOUR1, _DRAG, _LIFT, _GLOW = \
    STATE_FIELD_COLUMNS
_QUAD_COLUMNS = (_POSITION, _AGE, _LIFE, _SIZE, _COLOUR0, _COLOUR1, _GLOW)
"""Where :data:`quad_rows_loop` reads position, age, life, size, both colours and glow."""
_MOVE_COLUMNS = (_POSITION, _VELOCITY, _AGE, _LIFE, _DRAG, _LIFT)
"""Where :data:`age_and_move_loop` reads position, velocity, age, life, drag and lift."""
SHORTEST_LIFE_S = 1e-3
"""No particle lives shorter (its age over its life must stay finite)."""
_ROW_BLOCK_PARTICLES = 256
"""Panda's vertex array of the particles grows and shrinks in blocks of this many."""
_CORNERS = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]], np.float32)
"""A quad's four corners, in its four vertex rows' last two columns."""
_VERTEX_ROW_FLOATS = _FLOATS_PER_ROW + 2
"""Floats in a row of Panda's vertex array: the particle's row, then the corner."""


def _vertex_format() -> GeomVertexFormat:
    array = GeomVertexArrayFormat()
    array.addColumn(InternalName.getVertex(), 3, Geom.NT_float32, Geom.C_point)
    array.addColumn(InternalName.getColor(), 4, Geom.NT_float32, Geom.C_color)
    array.addColumn(InternalName.make("sprite"), 2, Geom.NT_float32, Geom.C_other)
    array.addColumn(InternalName.make("corner"), 2, Geom.NT_float32, Geom.C_other)
    return GeomVertexFormat.registerFormat(GeomVertexFormat(array))


def _column(column) -> property:
    """A field of every particle's state (a view of the state array's ``column``)."""
    return property(lambda system: system._state[:, column])


class ParticleSystem:
    """Particles in arrays; ``spawn`` bursts, ``update(dt)`` ages and moves them all,
    ``draw(eye)`` writes them into the one GeomNode under ``parent`` (None: no drawing,
    for tests and benchmarks of the update alone)."""

    def __init__(self, capacity: int, parent: NodePath | None = None, *,
                 sort_back_to_front: bool = False):
        self.capacity = int(capacity)
        cap = self.capacity
        self._state = np.zeros((cap, STATE_ROW_FLOATS), np.float32)
        """Every particle's state in one row, so that retiring the dead is one copy."""
        self.life[:] = 1.0
        self._rows = np.zeros((cap, _FLOATS_PER_ROW), np.float32)
        self._sort_keys = np.zeros(cap, np.float32)
        self._sorted_state = self._state.copy()
        """The sort's keys, and the rows it puts in order: then the state, the old state
        the next sort's rows (two arrays taking turns, no copy back)."""
        self.count = 0
        self.spawned_total = 0
        self.dropped_total = 0
        """Particles that died early to make room (the capacity was full)."""
        self.sort_back_to_front = sort_back_to_front
        self.path: NodePath | None = None
        if parent is not None:
            self._build_node(parent)

    # ----- state ----------------------------------------------------------------------

    position = _column(_STATE_LAYOUT[0])
    velocity = _column(_STATE_LAYOUT[1])
    age = _column(_STATE_LAYOUT[2])
    life = _column(_STATE_LAYOUT[3])
    size = _column(_STATE_LAYOUT[4])
    colour0 = _column(_STATE_LAYOUT[5])
    colour1 = _column(_STATE_LAYOUT[6])
    drag = _column(_STATE_LAYOUT[7])
    lift = _column(_STATE_LAYOUT[8])
    glow = _column(_STATE_LAYOUT[9])

    def spawn(self, positions, velocities, life_s, size_m, colour_start, colour_end,
              drag_per_s=0.0, lift_m_s2=0.0, additive=False) -> int:
        """Add particles (rows of ``positions`` and ``velocities``). Every other field is one
        value for all or one per particle: ``life_s``; sizes (birth, death); colours RGBA;
        drag, lift and ``additive`` (True or 1: glows). Returns how many were added."""
        positions = np.asarray(positions, np.float32).reshape(-1, 3)
        n = len(positions)
        if n == 0:
            return 0
        rows = np.empty((n, STATE_ROW_FLOATS), np.float32)
        values = (positions, np.asarray(velocities, np.float32).reshape(-1, 3), 0.0,
                  np.maximum(np.asarray(life_s, np.float32), SHORTEST_LIFE_S), size_m,
                  colour_start, colour_end, drag_per_s, lift_m_s2,
                  np.asarray(additive, np.float32))
        for column, value in zip(_STATE_LAYOUT, values):
            rows[:, column] = value
        return self.spawn_rows(rows)

    def spawn_rows(self, rows: np.ndarray) -> int:
        """Add particles whose state rows are made already (float32, laid out as
        :data:`STATE_FIELD_COLUMNS` says, their ages zero). Returns how many were added."""
        n = len(rows)
        if n == 0:
            return 0
        if n > self.capacity:  # keep the newest
            rows = rows[-self.capacity:]
            self.dropped_total += n - self.capacity
            n = self.capacity
        overflow = self.count + n - self.capacity
        if overflow > 0:
            # The oldest make room (which of equally old ones is not defined): found in one
            # pass, not a sort (the rows are in draw order, not birth order), and the first
            # new rows take their places, where the next sort puts them in order.
            oldest = np.argpartition(self.age[:self.count], self.count - overflow)
            self._state[oldest[self.count - overflow:]] = rows[:overflow]
            rows = rows[overflow:]
            self.dropped_total += overflow
        self._state[self.count:self.count + len(rows)] = rows
        self.count += len(rows)
        self.spawned_total += n
        return n

    def update(self, dt_s: float) -> None:
        """Age, move and retire every particle in one pass (compiled, or numpy's)."""
        n = self.count
        if n == 0 or dt_s <= 0.0:
            return
        if age_and_move_loop is not None:
            self.count = age_and_move_loop(self._state, n, dt_s, *_MOVE_COLUMNS)
            return
        age = self.age[:n]
        age += dt_s
        alive = age < self.life[:n]
        if not alive.all():
            keep = int(alive.sum())
            self._state[:keep] = self._state[:n][alive]
            n = self.count = keep
            if n == 0:
                return
        velocity = self.velocity[:n]
        velocity *= np.exp(-self.drag[:n] * dt_s)[:, None]
        velocity[:, 2] += self.lift[:n] * dt_s
        self.position[:n] += velocity * dt_s

    def clear(self) -> None:
        self.count = 0

    def vertex_rows(self, eye_ws=None) -> np.ndarray:
        """The live particles as vertex rows (N, 9): position, colour now, diameter now, glow;
        far ones first when sorting is on and ``eye_ws`` is given."""
        n = self.count
        rows = self._rows[:n]
        if n == 0:
            return rows
        self._sort_for_drawing(eye_ws)
        live = self._state[:n]
        position, _, age, life, size, colour0, colour1, _, _, glow = (
            live[:, column] for column in _STATE_LAYOUT)
        t = (age / life)[:, None]
        rows[:, 0:3] = position
        rows[:, 3:7] = colour0 + (colour1 - colour0) * t
        rows[:, 7] = size[:, 0] + (size[:, 1] - size[:, 0]) * t[:, 0]
        rows[:, 8] = glow
        return rows

    def _sort_for_drawing(self, eye_ws) -> None:
        """Put the live particles' rows in the order to draw them, far ones first, where
        sorting is on and ``eye_ws`` is given (else they stay as they are). Kept so, the
        next frame's sort starts nearly done."""
        n = self.count
        if not (self.sort_back_to_front and eye_ws is not None and n > 1):
            return
        eye = np.asarray(eye_ws, np.float32)
        if take_rows_loop is None:
            offset = self._state[:n, 0:3] - eye
            order = np.argsort(-np.einsum("ij,ij->i", offset, offset), kind="stable")
            self._state[:n] = self._state[:n][order]
            return
        # The keys and the rows' move in compiled loops, numpy's sort between: on rows
        # nearly in order already its stable sort costs little.
        keys = self._sort_keys[:n]
        far_first_keys_loop(self._state, n, _POSITION, eye, keys)
        take_rows_loop(self._state, np.argsort(keys, kind="stable"), self._sorted_state)
        self._state, self._sorted_state = self._sorted_state, self._state

    # ----- drawing --------------------------------------------------------------------

    def _build_node(self, parent: NodePath) -> None:
        self._format = _vertex_format()
        self._data = GeomVertexData("particles", self._format, Geom.UH_stream)
        triangles = GeomTriangles(Geom.UH_stream)
        triangles.setIndexType(Geom.NT_uint32)
        geom = Geom(self._data)
        geom.addPrimitive(triangles)
        # Written in place each frame, never through the node's modify calls: once drawn, a
        # geom is held by the last frame's cull, so modifying it through the node copies the
        # geom, then its vertex data, then the whole vertex array.
        self._triangles = triangles
        quad = np.array([0, 1, 2, 0, 2, 3], np.uint32)
        self._indices = (quad[None, :] + 4 * np.arange(self.capacity, dtype=np.uint32)[:, None]
                         ).ravel()
        self._vertex_rows = None
        """The numpy path's quad rows, copied into Panda's array after (made on first use:
        the compiled loop writes into Panda's array itself)."""
        self._rows_allocated = 0
        """Particles whose rows Panda's vertex array holds (:meth:`_rows_kept`): those past
        the live ones are left as they were, and no triangle reads them."""
        self.node = GeomNode("particles")
        self.node.addGeom(geom)
        self.node.setBounds(OmniBoundingVolume())  # no bounds pass over thousands of points
        self.node.setFinal(True)
        self.path = parent.attachNewNode(self.node)
        self.path.setShader(Shader.make(Shader.SL_GLSL, _VERTEX, _FRAGMENT))
        self.path.setShaderInput("clip_per_m", Vec2(1.0, 1.0))
        self.set_haze((0.0, 0.0, 0.0), 0.0)
        self.path.setTwoSided(True)
        self.path.setAttrib(ColorBlendAttrib.make(ColorBlendAttrib.MAdd, ColorBlendAttrib.OOne,
                                                  ColorBlendAttrib.OOneMinusIncomingAlpha))
        self.path.setDepthWrite(False)
        self.path.setDepthTest(True)
        self.path.setBin("fixed", 20)  # after the opaque scene, the sky and the tracers
        self.path.setLightOff()
        self.drawn = 0

    def set_projection(self, vertical_fov_deg: float, aspect_ratio: float) -> None:
        """Sprite sizes in metres need the lens: the clip-space size of 1 m at w = 1."""
        if self.path is not None:
            scale = 1.0 / math.tan(math.radians(vertical_fov_deg) / 2.0)
            self.path.setShaderInput("clip_per_m", Vec2(scale / aspect_ratio, scale))

    def set_haze(self, colour, density_per_m: float) -> None:
        """Smoke fades into the scene's haze as the terrain does."""
        if self.path is not None:
            self.path.setShaderInput("haze_colour", Vec3(*colour))
            self.path.setShaderInput("haze_density", float(density_per_m))

    def draw(self, eye_ws=None) -> None:
        """Write the live particles into the GeomNode (one memoryview copy)."""
        if self.path is None:
            return
        n = self.count
        data = self._data
        rows = self._rows_kept(n)
        if rows != self._rows_allocated:
            data.uncleanSetNumRows(rows * 4)
            self._rows_allocated = rows
        if n:  # each row to its quad's four corners
            self._write_quads(memoryview(data.modifyArray(0)).cast("B"), n, eye_ws)
        if n != self.drawn:  # the triangles of n quads are always the same numbers
            indices = self._triangles.modifyVertices(n * 6)
            indices.uncleanSetNumRows(n * 6)
            if n:
                memoryview(indices).cast("B")[:] = memoryview(self._indices[:n * 6]).cast("B")
        self.drawn = n

    def _rows_kept(self, count: int) -> int:
        """How many particles' rows Panda's vertex array holds for ``count`` live ones: whole
        blocks of :data:`_ROW_BLOCK_PARTICLES`, grown when too few, shrunk only when two
        blocks too many (the count changes every frame; resizing the array copies it)."""
        allocated = self._rows_allocated
        if count <= allocated <= count + 2 * _ROW_BLOCK_PARTICLES:
            return allocated
        return min(-(-count // _ROW_BLOCK_PARTICLES) * _ROW_BLOCK_PARTICLES, self.capacity)

    def _write_quads(self, target: memoryview, count: int, eye_ws) -> None:
        """Each of the ``count`` live particles' vertex row (:meth:`vertex_rows`) into its
        quad's four rows, beside the corners, in Panda's vertex array ``target``: straight
        from the state in one compiled loop where numba is, else with numpy into our own
        rows, then copied."""
        if quad_rows_loop is None:
            if self._vertex_rows is None:
                self._vertex_rows = np.zeros((self.capacity * 4, _VERTEX_ROW_FLOATS),
                                             np.float32)
                self._vertex_rows[:, _FLOATS_PER_ROW:] = np.tile(_CORNERS, (self.capacity, 1))
            quads = self._vertex_rows[:count * 4]
            rows = self.vertex_rows(eye_ws)
            quads.reshape(len(rows), 4, -1)[:, :, :_FLOATS_PER_ROW] = rows[:, None, :]
            target[:quads.nbytes] = memoryview(quads).cast("B")
            return
        self._sort_for_drawing(eye_ws)
        quads = np.frombuffer(target, np.float32, count * 4 * _VERTEX_ROW_FLOATS)
        quad_rows_loop(self._state[:count], *_QUAD_COLUMNS, _CORNERS,
                       quads.reshape(-1, _VERTEX_ROW_FLOATS))

    def destroy(self) -> None:
        if self.path is not None:
            self.path.removeNode()
            self.path = None
