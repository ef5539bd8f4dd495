"""The desert's field and a big desert's tiles as compiled loops that let go of the
interpreter: a tile is made on the worker thread in one call that holds no lock the
simulation needs, so it runs beside the steps on another core instead of taking turns
with them.

Each loop does, sample by sample, exactly the arithmetic the numpy paths do element by
element (:class:`~physics.model.desert_field.DesertField`,
:func:`~physics.model.height_grid.quantised`,
:func:`~physics.model.height_grid.triangle_planes`), in the same order: the heights and
planes agree to the bit but for the last bit of a ripple's sine, which numpy and the C
library may round apart (far below a 16-bit level). Without numba the numpy paths run.
"""

from __future__ import annotations

import math

import numpy as np

from common.compiled import compiled
from physics.model.height_grid import HEIGHT_LEVELS

LATTICE_COLUMNS = 5
"""A lattice's row in the packed table: origin u, origin v, scale, columns, offset."""


def lattice_value(table, values, index, u_m, v_m):
    """Lattice ``index``'s noise at one point (:class:`NoiseLattice`'s formula); points
    are clamped to the lattice (a field's points always lie on it)."""
    u = (u_m - table[index, 0]) / table[index, 2]
    v = (v_m - table[index, 1]) / table[index, 2]
    columns = int(table[index, 3])
    rows = (int(table[index + 1, 4]) - int(table[index, 4])) // columns
    i = min(max(int(math.floor(u)), 0), columns - 2)
    j = min(max(int(math.floor(v)), 0), rows - 2)
    fu, fv = u - i, v - j
    fu = fu * fu * fu * (fu * (fu * 6 - 15) + 10)
    fv = fv * fv * fv * (fv * (fv * 6 - 15) + 10)
    base = int(table[index, 4]) + j * columns + i
    bottom = values[base] * (1 - fu) + values[base + 1] * fu
    top = values[base + columns] * (1 - fu) + values[base + columns + 1] * fu
    return bottom * (1 - fv) + top * fv


def fractal_value(table, values, first, count, u_m, v_m):
    """Octaves ``first`` to ``first + count`` summed as :class:`FractalNoise` sums them."""
    total, amplitude, norm = 0.0, 1.0, 0.0
    for index in range(first, first + count):
        total += amplitude * lattice_value(table, values, index, u_m, v_m)
        norm += amplitude
        amplitude *= 0.5
    return total / norm


def field_height(shape, octaves, table, values, x_m, y_m):
    """:meth:`DesertField.heights` at one point. ``shape``: cos and sin of the wind, then
    ridge wander, dune wavelength, lee fraction, dune height, crest variation, undulation
    height, ripple wavelength and ripple height; ``octaves``: first lattice and count of
    the wander, the crest and the undulation noises."""
    cos_wind, sin_wind = shape[0], shape[1]
    along_m = x_m * cos_wind + y_m * sin_wind
    across_m = -x_m * sin_wind + y_m * cos_wind
    wander_m = shape[2] * fractal_value(table, values, octaves[0], octaves[1], x_m, y_m)
    phase = (along_m + wander_m) / shape[3]
    position = phase - math.floor(phase)
    windward = 1.0 - shape[4]
    if position < windward:
        rise = position / windward
    else:
        rise = (1.0 - position) / shape[4]
    profile = rise * rise * (3.0 - 2.0 * rise)
    crest = fractal_value(table, values, octaves[2], octaves[3], along_m, across_m)
    crest_scale = 1.0 - shape[6] * 0.5 * (1.0 + crest)
    dunes = shape[5] * profile * crest_scale
    undulation = shape[7] * fractal_value(table, values, octaves[4], octaves[5], x_m, y_m)
    ripple_phase = 2.0 * math.pi * (along_m + wander_m) / shape[8]
    ripples = shape[9] * 0.5 * math.sin(ripple_phase)
    return dunes + undulation + ripples


def field_heights(shape, octaves, table, values, x_m, y_m, heights_m):
    """:func:`field_height` at N points (flat x and y) into ``heights_m`` (N,)."""
    for index in range(x_m.shape[0]):
        heights_m[index] = field_height(shape, octaves, table, values, x_m[index], y_m[index])


def fill_tile(shape, octaves, table, values, x_m, y_m, quantising, surfaces, discs,
              ground_table, planes, ground, heights_m, levels, surface):
    """A big desert's tile at its samples (x and y, square, rows by y), written into its
    slot's arrays as :meth:`TileContents.compute` makes them.

    ``quantising``: least height, height range, hardpan below (raw metres) and the
    spacing; ``surfaces``: hardpan's, sand's and rock's indices; ``discs`` (D, 4): bare
    rock x, y and reach (the rock's top, last, is not read); ``ground_table``:
    :func:`ground_rows`, a row per surface."""
    samples = x_m.shape[0]
    least_m, range_m, hardpan_below_m, spacing_m = (quantising[0], quantising[1],
                                                    quantising[2], quantising[3])
    for row in range(samples):
        for column in range(samples):
            x, y = x_m[row, column], y_m[row, column]
            raw_m = field_height(shape, octaves, table, values, x, y)
            level = np.rint((raw_m - least_m) / range_m * HEIGHT_LEVELS)
            levels[row, column] = level
            heights_m[row, column] = least_m + level * (range_m / HEIGHT_LEVELS)
            kind = surfaces[0] if raw_m < hardpan_below_m else surfaces[1]
            for disc in range(discs.shape[0]):
                dx, dy = x - discs[disc, 0], y - discs[disc, 1]
                if dx * dx + dy * dy <= discs[disc, 2] * discs[disc, 2]:
                    kind = surfaces[2]
            surface[row, column] = kind
            for item in range(4):
                ground[row * samples + column, item] = ground_table[kind, item]
    _tile_planes(heights_m, spacing_m, planes)


def _tile_planes(h, spacing_m, planes):
    """:func:`triangle_planes` of a square height grid into ``planes``."""
    cells = h.shape[0] - 1
    for j in range(cells):
        for i in range(cells):
            h00, h10, h01, h11 = h[j, i], h[j, i + 1], h[j + 1, i], h[j + 1, i + 1]
            row = (j * cells + i) * 2
            _write_plane(planes, row, h00, h10 - h00, h01 - h00, spacing_m)
            _write_plane(planes, row + 1, h01 + h10 - h11, h11 - h01, h11 - h10, spacing_m)


def _write_plane(planes, row, base, along_u, along_v, spacing_m):
    slope_x, slope_y = along_u / spacing_m, along_v / spacing_m
    length = math.sqrt(slope_x * slope_x + slope_y * slope_y + 1.0)
    planes[row, 0], planes[row, 1], planes[row, 2] = base, along_u, along_v
    planes[row, 3], planes[row, 4], planes[row, 5] = -slope_x / length, -slope_y / length, \
        1.0 / length


lattice_value = compiled(lattice_value, inline=True)
fractal_value = compiled(fractal_value, inline=True)
field_height = compiled(field_height, inline=True)
_write_plane = compiled(_write_plane, inline=True)
_tile_planes = compiled(_tile_planes, inline=True)
field_heights = compiled(field_heights)
fill_tile = compiled(fill_tile)
AVAILABLE = fill_tile is not None
"""Whether the compiled loops exist (else the numpy paths make fields and tiles)."""


def pack_lattices(noises) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Fractal noises' lattices packed for the loops: each noise's first lattice and
    count, the table (one row per lattice and a last row holding the end offset), and
    all their values flat."""
    lattices = [lattice for noise in noises for lattice in noise.octaves]
    table = np.zeros((len(lattices) + 1, LATTICE_COLUMNS))
    offset = 0
    for row, lattice in enumerate(lattices):
        rows, columns = lattice.values.shape
        table[row] = (lattice.origin_u_m, lattice.origin_v_m, lattice.scale_m, columns, offset)
        offset += rows * columns
    table[-1, 4] = offset
    values = np.concatenate([lattice.values.reshape(-1) for lattice in lattices])
    octaves, first = [], 0
    for noise in noises:
        octaves += [first, len(noise.octaves)]
        first += len(noise.octaves)
    return np.array(octaves, dtype=np.int64), table, values
