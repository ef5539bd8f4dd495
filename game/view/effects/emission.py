"""Batched emission: many particle streams and bursts spawned in one vectorised call.

A frame's dust under every track and wheel, its wrecks' smoke and any event's burst
are *streams*: each has an emitter kind (an :class:`EmitterSpec` of an
:class:`EmitterTable`), a count, a point, a direction and a base velocity.
:func:`emit_streams` draws every particle of every stream at once (cone directions,
speeds, jitter, lives) and hands them to :meth:`ParticleSystem.spawn` in one call, the
per-particle looks (sizes, colours, drag, lift, glow) gathered from the table by kind.

:class:`StreamCarry` keeps each continuous stream's fraction of a particle from frame
to frame, so a stream of 30 particles a second makes 30 a second at any frame rate.
"""

from __future__ import annotations

import math

import numpy as np

from game.view.effects.emission_kernel import stream_particles_loop
from game.view.effects.particles import (SHORTEST_LIFE_S, STATE_FIELD_COLUMNS,
                                         STATE_ROW_FLOATS, EmitterSpec, ParticleSystem)


_UP = np.array([0.0, 0.0, 1.0])
_HELPER_SWITCH = 0.9
"""An axis whose x is at least this is crossed with +y instead of +x (a cross product of
nearly parallel vectors loses its precision)."""
_SHORTEST_AXIS = 1e-9
"""A direction shorter than this has none: it stands for straight up."""


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise cross products of (k, 3) arrays (np.cross's axis handling costs more than
    the arithmetic on small arrays)."""
    return np.stack([a[:, 1] * b[:, 2] - a[:, 2] * b[:, 1],
                     a[:, 2] * b[:, 0] - a[:, 0] * b[:, 2],
                     a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]], axis=1)


def cone_axes(directions) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Unit axes (k, 3) of ``directions`` (k, 3) (one too short: straight up), and two unit
    vectors square to each axis and to each other."""
    directions = np.asarray(directions, np.float64).reshape(-1, 3)
    length = np.sqrt(np.einsum("ij,ij->i", directions, directions))[:, None]
    axis = np.where(length > _SHORTEST_AXIS, directions / np.maximum(length, _SHORTEST_AXIS),
                    _UP)
    helper = np.zeros_like(axis)
    use_y = np.abs(axis[:, 0]) >= _HELPER_SWITCH
    helper[:, 0] = ~use_y
    helper[:, 1] = use_y
    u = _cross(axis, helper)
    u /= np.sqrt(np.einsum("ij,ij->i", u, u))[:, None]
    return axis, u, _cross(axis, u)


def cone_directions_many(rng: np.random.Generator, directions, cos_max, stream
                         ) -> np.ndarray:
    """One unit vector per particle, uniform over the cap round its stream's direction:
    ``stream`` (n,) indexes ``directions`` (k, 3); ``cos_max`` (n,) is the cosine of each
    particle's cone half-angle (-1: the whole sphere)."""
    axis, u, v = cone_axes(directions)
    n = len(stream)
    cos_t = 1.0 - rng.random(n) * (1.0 - cos_max)
    sin_t = np.sqrt(np.maximum(0.0, 1.0 - cos_t * cos_t))
    phi = rng.random(n) * (2.0 * math.pi)
    return (cos_t[:, None] * axis[stream] + (sin_t * np.cos(phi))[:, None] * u[stream]
            + (sin_t * np.sin(phi))[:, None] * v[stream])


class EmitterTable:
    """The emitters' parameters as arrays over kinds, in the order ``specs`` gives them
    (``kind`` ``i`` is ``specs[i]``; ``index[name]`` its kind by name)."""

    def __init__(self, specs: dict[str, EmitterSpec]):
        self.names = tuple(specs)
        self.index = {name: i for i, name in enumerate(self.names)}
        rows = list(specs.values())
        spread_rad = np.radians(np.clip([s.spread_deg for s in rows], 0.0, 180.0))
        self.cos_max = np.cos(spread_rad)
        self.speed_mps = np.array([s.speed_mps for s in rows], np.float64).reshape(-1, 2)
        self.life_s = np.array([s.life_s for s in rows], np.float64).reshape(-1, 2)
        self.jitter_sigma_m = np.array([s.jitter_m / 2.0 for s in rows], np.float64)
        self.size_m = np.array([s.size_m for s in rows], np.float32).reshape(-1, 2)
        self.colour_start = np.array([s.colour_start for s in rows], np.float32).reshape(-1, 4)
        self.colour_end = np.array([s.colour_end for s in rows], np.float32).reshape(-1, 4)
        self.drag_per_s = np.array([s.drag_per_s for s in rows], np.float32)
        self.lift_m_s2 = np.array([s.lift_m_s2 for s in rows], np.float32)
        self.glow = np.array([1.0 if s.additive else 0.0 for s in rows], np.float32)


def emit_streams(system: ParticleSystem, rng: np.random.Generator, table: EmitterTable,
                 kinds, counts, points, directions, base_velocities) -> int:
    """Spawn ``counts[i]`` particles of kind ``kinds[i]`` at ``points[i]``, leaving round
    ``directions[i]`` plus ``base_velocities[i]``, for every stream ``i``, in one call.
    Returns how many were spawned."""
    counts = np.asarray(counts, np.int64).reshape(-1)
    total = int(counts.sum())
    if total <= 0:
        return 0
    stream = np.repeat(np.arange(len(counts)), counts)
    kind = np.asarray(kinds, np.int64).reshape(-1)[stream]
    points = np.asarray(points, np.float64).reshape(-1, 3)
    base_velocities = np.asarray(base_velocities, np.float64).reshape(-1, 3)
    if stream_particles_loop is not None:
        return system.spawn_rows(_stream_rows_compiled(rng, table, stream, kind, points,
                                                       directions, base_velocities))
    positions, velocities, lives = _stream_particles_numpy(
        rng, table, stream, kind, points, directions, base_velocities)
    return system.spawn(positions, velocities, lives, table.size_m[kind],
                        table.colour_start[kind], table.colour_end[kind],
                        table.drag_per_s[kind], table.lift_m_s2[kind], table.glow[kind])


def _stream_particles_numpy(rng, table: EmitterTable, stream, kind, points, directions,
                            base_velocities) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each particle's start point, velocity and life, in numpy operations."""
    total = len(stream)
    along = cone_directions_many(rng, directions, table.cos_max[kind], stream)
    speed_range = table.speed_mps[kind]
    speeds = speed_range[:, 0] + rng.random(total) * (speed_range[:, 1] - speed_range[:, 0])
    offsets = rng.standard_normal((total, 3)) * table.jitter_sigma_m[kind][:, None]
    life_range = table.life_s[kind]
    lives = life_range[:, 0] + rng.random(total) * (life_range[:, 1] - life_range[:, 0])
    return (points[stream] + offsets, along * speeds[:, None] + base_velocities[stream],
            lives)


def _stream_rows_compiled(rng, table: EmitterTable, stream, kind, points, directions,
                          base_velocities) -> np.ndarray:
    """The particles' state rows (float32) that :func:`_stream_particles_numpy`'s numbers
    and :meth:`ParticleSystem.spawn` make, from the same draws in the same order, worked
    out in one compiled loop."""
    total = len(stream)
    cone_draw = rng.random(total)
    turn_rad = rng.random(total) * (2.0 * math.pi)
    speed_draw = rng.random(total)
    normal_draw = rng.standard_normal((total, 3))
    life_draw = rng.random(total)
    directions = np.ascontiguousarray(directions, np.float64).reshape(-1, 3)
    rows = np.empty((total, STATE_ROW_FLOATS), np.float32)
    stream_particles_loop(directions, stream, kind, table.cos_max, table.speed_mps,
                          table.jitter_sigma_m, table.life_s, table.size_m,
                          table.colour_start, table.colour_end, table.drag_per_s,
                          table.lift_m_s2, table.glow, cone_draw, np.cos(turn_rad),
                          np.sin(turn_rad), speed_draw, normal_draw, life_draw, points,
                          base_velocities, np.empty((len(directions), 3, 3)),
                          STATE_FIELD_COLUMNS, SHORTEST_LIFE_S, rows)
    return rows


class StreamCarry:
    """Each continuous stream's fraction of a particle, carried to the next frame.

    Streams are laid out in blocks, one per source (a vehicle: a block of its anchors);
    while the layout (the sources' names and block sizes, in order) stays the same, the
    carries are one array; when it changes, each source that is still there keeps its
    block's carries."""

    def __init__(self):
        self._layout: tuple = ()
        self.carry = np.zeros(0)

    def _relayout(self, layout: tuple) -> None:
        old, old_carry = {}, self.carry
        start = 0
        for name, size in self._layout:
            old[name] = old_carry[start:start + size]
            start += size
        blocks = [old[name] if name in old and len(old[name]) == size else np.zeros(size)
                  for name, size in layout]
        self.carry = np.concatenate(blocks) if blocks else np.zeros(0)
        self._layout = layout

    def fitted(self, layout: tuple) -> np.ndarray:
        """The carries laid out for ``layout``: one per stream, to be carried on in place."""
        if layout != self._layout:
            self._relayout(layout)
        return self.carry

    def due(self, layout: tuple, rates: np.ndarray, active: np.ndarray) -> np.ndarray:
        """Whole particles due now of each stream (``rates``: particles this frame) where
        ``active``; the fractions left over are kept, inactive streams keep theirs."""
        owed = self.fitted(layout) + rates
        whole = np.where(active, np.floor(owed), 0.0)
        self.carry = np.where(active, owed - whole, self.carry)
        return whole.astype(np.int64)

    def clear(self) -> None:
        self._layout = ()
        self.carry = np.zeros(0)
