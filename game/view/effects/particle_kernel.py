"""The particles' quads, their order to draw and their ageing in compiled loops (numba, see
:mod:`common.compiled`): each live particle's colour and size now, written straight
to its quad's four vertex rows, the same float32 arithmetic as
:meth:`game.view.effects.particles.ParticleSystem.vertex_rows` followed by the copy to the corners;
each particle's distance from the eye as the sort back to front measures it, and the rows
taken in the order the sort found; and each particle aged, retired or moved as
:meth:`~game.view.effects.particles.ParticleSystem.update` does; without the arrays in between.
Where numba is not available :data:`quad_rows_loop`, :data:`far_first_keys_loop`,
:data:`take_rows_loop` and :data:`age_and_move_loop` are None and the numpy paths run.
"""

from __future__ import annotations

import numpy as np

from common.compiled import compiled

CORNERS_PER_QUAD = 4


def _quad_rows(state, position_column, age_column, life_column, size_column,
               colour0_column, colour1_column, glow_column, corners, quads):
    """For each particle (row k of ``state``, the live ones in the order to draw), its
    vertex row (position, colour, diameter, glow) into the first columns of ``quads``'
    rows 4k..4k+3, each followed by its corner (a row of ``corners``, (4, 2))."""
    for k in range(state.shape[0]):
        t = state[k, age_column] / state[k, life_column]
        birth = state[k, size_column]
        size = birth + (state[k, size_column + 1] - birth) * t
        glow = state[k, glow_column]
        first = CORNERS_PER_QUAD * k
        for row in range(first, first + CORNERS_PER_QUAD):
            for axis in range(3):
                quads[row, axis] = state[k, position_column + axis]
            for channel in range(4):
                start = state[k, colour0_column + channel]
                quads[row, 3 + channel] = start + (state[k, colour1_column + channel] - start) * t
            quads[row, 7] = size
            quads[row, 8] = glow
            quads[row, 9] = corners[row - first, 0]
            quads[row, 10] = corners[row - first, 1]


def _far_first_keys(state, count, position_column, eye, keys):
    """``keys[k]``: minus the squared distance of particle ``k`` (of the first ``count``
    rows of ``state``, float32) from ``eye`` (3,), float32; the numbers of numpy's
    ``-einsum("ij,ij->i", offset, offset)`` (its products summed in order from zero), so
    that a stable sort of them puts the far ones first."""
    eye_x, eye_y, eye_z = eye[0], eye[1], eye[2]
    for k in range(count):
        dx = state[k, position_column] - eye_x
        dy = state[k, position_column + 1] - eye_y
        dz = state[k, position_column + 2] - eye_z
        keys[k] = -(dx * dx + dy * dy + dz * dz)


def _take_rows(state, order, taken):
    """Row ``k`` of ``taken`` (``len(order)`` rows of it) is row ``order[k]`` of ``state``:
    numpy's ``take(state, order, axis=0, out=...)``."""
    columns = state.shape[1]
    for k in range(order.shape[0]):
        source = order[k]
        for column in range(columns):
            taken[k, column] = state[source, column]


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
far_first_keys_loop = compiled(_far_first_keys)
"""The compiled loop, or None where numba is not available."""
take_rows_loop = compiled(_take_rows)
"""The compiled loop, or None where numba is not available."""
age_and_move_loop = compiled(_age_and_move)
"""The compiled loop, or None where numba is not available."""
