"""The particles' quads in one compiled loop (numba, see :mod:`physics.model.compiled`):
each live particle's colour and size now, written straight to its quad's four vertex rows,
the same float32 arithmetic as :meth:`game.view.particles.ParticleSystem.vertex_rows`
followed by the copy to the corners, without the arrays in between. Where numba is not
available :data:`quad_rows_loop` is None and the numpy path runs.
"""

from __future__ import annotations

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


quad_rows_loop = compiled(_quad_rows)
"""The compiled loop, or None where numba is not available."""
