"""A frame's streams of particles worked out in one compiled loop (numba, see
:mod:`physics.model.compiled`): each particle's start point, velocity and life from the
random numbers :func:`game.view.emission.emit_streams` draws, the same float64 arithmetic
as its numpy path (:func:`game.view.particles.cone_directions_many` and the lines after
it), without the many small arrays in between. Where numba is not available
:data:`stream_particles_loop` is None and the numpy path runs.

The random numbers, and the cosines and sines of the turns about each cone's axis, stay
numpy's: drawn in the same order from the same generator, so that both paths make the very
same particles.
"""

from __future__ import annotations

import math

from physics.model.compiled import compiled

_SHORTEST_AXIS = 1e-9
"""As :data:`game.view.particles._SHORTEST_AXIS`: a shorter direction stands for up."""
_HELPER_SWITCH = 0.9
"""As :data:`game.view.particles._HELPER_SWITCH`: an axis whose x is at least this is
crossed with +y instead of +x."""


def _cone_axes(directions, axes):
    """Each direction's unit axis and two unit vectors square to it and to each other,
    into ``axes`` (k, 3, 3) as rows: axis, u, v (:func:`game.view.particles.cone_axes`)."""
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
                      cone_draw, turn_cos, turn_sin, speed_draw, normal_draw, life_draw,
                      points, base_velocities, axes, positions, velocities, lives):
    """Particle ``i`` of stream ``stream[i]``, of kind ``kind[i]`` (the kinds' cone
    cosines, speed ranges, jitter sigmas and life ranges: the
    :class:`game.view.emission.EmitterTable`'s): its direction in its stream's cone
    (``cone_draw[i]`` the draw along it, the turn about it by its cosine and sine), its
    speed, offset and life from its draws: into ``positions``, ``velocities`` (n, 3) and
    ``lives`` (n,). ``axes`` (k, 3, 3): scratch for the streams' cone axes."""
    _cone_axes_stage(directions, axes)
    for i in range(stream.shape[0]):
        s, k = stream[i], kind[i]
        cos_t = 1.0 - cone_draw[i] * (1.0 - cos_max[k])
        sin_t = math.sqrt(max(0.0, 1.0 - cos_t * cos_t))
        along_u, along_v = sin_t * turn_cos[i], sin_t * turn_sin[i]
        speed = speed_mps[k, 0] + speed_draw[i] * (speed_mps[k, 1] - speed_mps[k, 0])
        for axis in range(3):
            direction = (cos_t * axes[s, 0, axis] + along_u * axes[s, 1, axis]
                         + along_v * axes[s, 2, axis])
            positions[i, axis] = points[s, axis] + normal_draw[i, axis] * jitter_sigma_m[k]
            velocities[i, axis] = direction * speed + base_velocities[s, axis]
        lives[i] = life_s[k, 0] + life_draw[i] * (life_s[k, 1] - life_s[k, 0])


stream_particles_loop = compiled(_stream_particles)
"""The compiled loop, or None where numba is not available."""
