"""A frame's streams of particles worked out in one compiled loop (numba, see
:mod:`common.compiled`): each particle's start point, velocity and life from the
random numbers :func:`game.view.effects.emission.emit_streams` draws, the same float64
arithmetic as its numpy path (:func:`game.view.effects.emission.cone_directions_many` and
the lines after it), written with its kind's looks straight into its float32 state row
as :meth:`game.view.effects.particles.ParticleSystem.spawn` would, without the many small
arrays in between. Where numba is not available :data:`stream_particles_loop` is None and
the numpy path runs.

The random numbers, and the cosines and sines of the turns about each cone's axis, stay
numpy's: drawn in the same order from the same generator, so that both paths make the very
same particles.
"""

from __future__ import annotations

import math

import numpy as np

from common.compiled import compiled

_SHORTEST_AXIS = 1e-9
"""As :data:`game.view.effects.emission._SHORTEST_AXIS`: a shorter direction stands for up."""
_HELPER_SWITCH = 0.9
"""As :data:`game.view.effects.emission._HELPER_SWITCH`: an axis whose x is at least this is
crossed with +y instead of +x."""


def _cone_axes(directions, axes):
    """Each direction's unit axis and two unit vectors square to it and to each other,
    into ``axes`` (k, 3, 3) as rows: axis, u, v
    (:func:`game.view.effects.emission.cone_axes`)."""
    for k in range(directions.shape[0]):
        dx, dy, dz = directions[k, 0], directions[k, 1], directions[k, 2]
        length = math.sqrt(dx * dx + dy * dy + dz * dz)
        if length > _SHORTEST_AXIS:
            ax, ay, az = dx / length, dy / length, dz / length
        else:
            ax, ay, az = 0.0, 0.0, 1.0
        hx, hy = (0.0, 1.0) if abs(ax) >= _HELPER_SWITCH else (1.0, 0.0)
        # u = axis x helper (helper's z is 0), then normalised; v = axis x u.
        ux, uy, uz = ay * 0.0 - az * hy, az * hx - ax * 0.0, ax * hy - ay * hx
        norm = math.sqrt(ux * ux + uy * uy + uz * uz)
        ux, uy, uz = ux / norm, uy / norm, uz / norm
        axes[k, 0, 0], axes[k, 0, 1], axes[k, 0, 2] = ax, ay, az
        axes[k, 1, 0], axes[k, 1, 1], axes[k, 1, 2] = ux, uy, uz
        axes[k, 2, 0] = ay * uz - az * uy
        axes[k, 2, 1] = az * ux - ax * uz
        axes[k, 2, 2] = ax * uy - ay * ux


_cone_axes_stage = compiled(_cone_axes, inline=True)


def _stream_particles(directions, stream, kind, cos_max, speed_mps, jitter_sigma_m, life_s,
                      size_m, colour_start, colour_end, drag_per_s, lift_m_s2, glow,
                      cone_draw, turn_cos, turn_sin, speed_draw, normal_draw, life_draw,
                      points, base_velocities, axes, columns, shortest_life_s, rows):
    """Particle ``i`` of stream ``stream[i]``, of kind ``kind[i]`` (the kinds' cone
    cosines, speed ranges, jitter sigmas, life ranges and looks: the
    :class:`game.view.effects.emission.EmitterTable`'s): its direction in its stream's cone
    (``cone_draw[i]`` the draw along it, the turn about it by its cosine and sine), its
    speed, offset and life from its draws, into its state row ``rows[i]`` (float32, the
    fields' first ``columns`` as :data:`game.view.effects.particles.STATE_FIELD_COLUMNS` lists
    them) with its kind's looks, aged zero and living at least ``shortest_life_s``.
    ``axes`` (k, 3, 3): scratch for the streams' cone axes."""
    position, velocity, age, life, size, colour0, colour1, drag, lift, glowing = columns
    shortest = np.float32(shortest_life_s)
    _cone_axes_stage(directions, axes)
    for i in range(stream.shape[0]):
        s, k = stream[i], kind[i]
        row = rows[i]
        cos_t = 1.0 - cone_draw[i] * (1.0 - cos_max[k])
        sin_t = math.sqrt(max(0.0, 1.0 - cos_t * cos_t))
        along_u, along_v = sin_t * turn_cos[i], sin_t * turn_sin[i]
        speed = speed_mps[k, 0] + speed_draw[i] * (speed_mps[k, 1] - speed_mps[k, 0])
        for axis in range(3):
            direction = (cos_t * axes[s, 0, axis] + along_u * axes[s, 1, axis]
                         + along_v * axes[s, 2, axis])
            row[position + axis] = points[s, axis] + normal_draw[i, axis] * jitter_sigma_m[k]
            row[velocity + axis] = direction * speed + base_velocities[s, axis]
        row[age] = 0.0
        row[life] = max(np.float32(life_s[k, 0] + life_draw[i] * (life_s[k, 1] - life_s[k, 0])),
                        shortest)
        for end in range(2):
            row[size + end] = size_m[k, end]
        for channel in range(4):
            row[colour0 + channel] = colour_start[k, channel]
            row[colour1 + channel] = colour_end[k, channel]
        row[drag], row[lift], row[glowing] = drag_per_s[k], lift_m_s2[k], glow[k]


stream_particles_loop = compiled(_stream_particles)
"""The compiled loop, or None where numba is not available."""
