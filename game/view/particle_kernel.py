"""The particles' quads and their ageing in compiled loops (numba, see
:mod:`physics.model.compiled`): each live particle's colour and size now, written straight
to its quad's four vertex rows, the same float32 arithmetic as
:meth:`game.view.particles.ParticleSystem.vertex_rows` followed by the copy to the corners;
and each particle aged, retired or moved as :meth:`~game.view.particles.ParticleSystem.update`
does; without the arrays in between. Where numba is not available :data:`quad_rows_loop`
and :data:`age_and_move_loop` are None and the numpy paths run.
"""

from __future__ import annotations

import numpy as np

from physics.model.compiled import compiled

CORNERS_PER_QUAD = 4


def _quad_rows(state, position_column, age_column, life_column, size_column,
               colour0_column, colour1_column, glow_column, quads):
    """For each particle (row k of ``state``, the live ones in the order to draw), its
    vertex row (position, colour, diameter, glow) into the first columns of ``quads``'
    rows 4k..4k+3 (the corners' columns after them are left as they are)."""
    for k in range(state.shape[0]):
        live = state[k]
        t = live[age_column] / live[life_column]
        first = CORNERS_PER_QUAD * k
        for corner in range(CORNERS_PER_QUAD):
            row = quads[first + corner]
            for axis in range(3):
                row[axis] = live[position_column + axis]
            for channel in range(4):
                start = live[colour0_column + channel]
                row[3 + channel] = start + (live[colour1_column + channel] - start) * t
            birth = live[size_column]
            row[7] = birth + (live[size_column + 1] - birth) * t
            row[8] = live[glow_column]


def _age_and_move(state, count, dt_s, position_column, velocity_column, age_column,
                  life_column, drag_column, lift_column):
    """The first ``count`` particles (rows of ``state``, float32) ``dt_s`` older: the dead
    (as old as their life) retired, the live ones kept in order at the front, slowed by
    their drag, lifted and moved, in float32 as :meth:`ParticleSystem.update` does with
    numpy. Returns how many live."""
    dt = np.float32(dt_s)
    kept = 0
    for row in range(count):
        age = state[row, age_column] + dt
        if not age < state[row, life_column]:
            continue
        if kept != row:
            state[kept] = state[row]
        live = state[kept]
        live[age_column] = age
        slowing = np.exp(-live[drag_column] * dt)
        for axis in range(3):
            live[velocity_column + axis] *= slowing
        live[velocity_column + 2] += live[lift_column] * dt
        for axis in range(3):
            live[position_column + axis] += live[velocity_column + axis] * dt
        kept += 1
    return kept


quad_rows_loop = compiled(_quad_rows)
"""The compiled loop, or None where numba is not available."""
age_and_move_loop = compiled(_age_and_move)
"""The compiled loop, or None where numba is not available."""
