"""Meshes of sand from height grids, shared by the whole-map terrain view and the streamed
one: normals, colours by height, the sand shader's blend mask, skirts against cracks
between detail levels, and the apron round the map."""

from __future__ import annotations

from functools import lru_cache
from typing import Callable

import numpy as np
from panda3d.core import Geom, GeomNode, GeomTriangles, GeomVertexData

from game.view.draw.meshes import (VERTEX_FORMAT, grid_triangles, make_mesh, triangle_primitive,
                              write_rows)
from physics.model.desert_field import FractalNoise, fractal_noise

MASK_OCTAVES = 2
"""Octaves of the large-scale mask that blends the sand shader's two detail scales."""
MASK_SEED = 0
"""The blend mask is the same on every map (its noise is drawn from this seed)."""


def grid_normals(heights: np.ndarray, spacing_m: float) -> np.ndarray:
    """Unit normals of a height grid (rows by y), by central differences inside it."""
    slope_y, slope_x = np.gradient(heights, spacing_m)
    normals = np.stack([-slope_x, -slope_y, np.ones_like(heights)], axis=-1)
    return normals / np.linalg.norm(normals, axis=-1, keepdims=True)


def sand_colours(terrain, heights: np.ndarray, light_colour, dark_colour,
                 mask: np.ndarray) -> np.ndarray:
    """Troughs darker, crests lighter, so the dune pattern reads even in flat light; the
    alpha channel carries ``mask`` (0..1) for the sand shader."""
    lightness = np.clip((heights - terrain.min_height_m) / terrain.height_range_m, 0.0, 1.0)
    light, dark = np.asarray(light_colour), np.asarray(dark_colour)
    colours = dark + lightness[..., None] * (light - dark)
    return np.concatenate([colours, mask[..., None]], axis=-1)


def _mask_rng() -> np.random.Generator:
    return np.random.default_rng([MASK_SEED, 0xB1E0])


def blend_mask(x_m: np.ndarray, y_m: np.ndarray, scale_m: float, seed: int = MASK_SEED
               ) -> np.ndarray:
    """Large, soft blotches in 0..1 over the points given (its noise drawn to cover just
    them: a whole map's samples at once)."""
    rng = np.random.default_rng([seed, 0xB1E0])
    noise = fractal_noise(x_m, y_m, scale_m, MASK_OCTAVES, rng)
    return np.clip(0.5 + noise, 0.0, 1.0)


class BlendMask:
    """:func:`blend_mask` over a whole map drawn once, read a piece at a time (a big
    desert's tiles agree along their borders)."""

    def __init__(self, half_extent_m: float, scale_m: float):
        bounds = (-half_extent_m, half_extent_m, -half_extent_m, half_extent_m)
        self._noise = FractalNoise(bounds, scale_m, MASK_OCTAVES, _mask_rng())
        self._half_extent_m = half_extent_m

    def __call__(self, x_m: np.ndarray, y_m: np.ndarray) -> np.ndarray:
        limit = self._half_extent_m
        noise = self._noise(np.clip(x_m, -limit, limit), np.clip(y_m, -limit, limit))
        return np.clip(0.5 + noise, 0.0, 1.0)

    def on_grid(self, x_m: np.ndarray, y_m: np.ndarray, every: int) -> np.ndarray:
        """The mask over a grid (rows by y, evenly spaced), worked out at every
        ``every``-th sample (their count less one a multiple of it) and blended linearly
        between: the blotches are far larger than a few samples."""
        if every <= 1:
            return self(x_m, y_m)
        coarse = self(x_m[::every, ::every], y_m[::every, ::every])
        return _linear_blend(_linear_blend(coarse, x_m.shape[0], every, 0), x_m.shape[1],
                             every, 1)


def _linear_blend(values: np.ndarray, samples: int, every: int, axis: int) -> np.ndarray:
    """``values`` at every ``every``-th of ``samples`` along ``axis``, blended linearly to
    all of them (element by element: a matrix product would wake BLAS's threads)."""
    position = np.arange(samples) / every
    lower = np.minimum(np.floor(position).astype(np.int64), values.shape[axis] - 2)
    weight = position - lower
    weight = weight[:, None] if axis == 0 else weight[None, :]
    return (np.take(values, lower, axis=axis) * (1.0 - weight)
            + np.take(values, lower + 1, axis=axis) * weight)


def _skirt(positions: np.ndarray, normals: np.ndarray, colours: np.ndarray, rows: int,
           columns: int, depth_m: float):
    """Vertices and outward-facing triangles hanging ``depth_m`` below a grid's border."""
    grid = np.arange(rows * columns).reshape(rows, columns)
    # Border walked counter-clockwise seen from above: outward is to the right.
    border = np.concatenate([grid[0, :-1], grid[:-1, -1], grid[-1, :0:-1], grid[:0:-1, 0]])
    top = positions[border]
    bottom = top - np.array([0.0, 0.0, depth_m])
    count = len(border)
    base = len(positions)
    k = np.arange(count)
    k2 = (k + 1) % count
    upper_a, upper_b = base + k, base + k2
    lower_a, lower_b = base + count + k, base + count + k2
    triangles = np.concatenate([np.stack([upper_a, lower_b, upper_b], axis=1),
                                np.stack([upper_a, lower_a, lower_b], axis=1)])
    return (np.concatenate([top, bottom]), np.concatenate([normals[border]] * 2),
            np.concatenate([colours[border]] * 2), triangles)


def grid_node(name: str, positions, normals, colours, rows: int, columns: int,
              skirt_m: float) -> GeomNode:
    """A grid of vertices (rows by y) as triangles split as Bullet splits them, with a
    skirt ``skirt_m`` deep round it (none at 0)."""
    triangles = grid_triangles(columns, rows)
    flat_p, flat_n, flat_c = (positions.reshape(-1, 3), normals.reshape(-1, 3),
                              colours.reshape(-1, 4))
    if skirt_m > 0.0:
        sp, sn, sc, st = _skirt(flat_p, flat_n, flat_c, rows, columns, skirt_m)
        triangles = np.concatenate([triangles, st])
        flat_p, flat_n, flat_c = (np.concatenate([flat_p, sp]), np.concatenate([flat_n, sn]),
                                  np.concatenate([flat_c, sc]))
    return make_mesh(name, flat_p, flat_n, flat_c, triangles)


def _border(samples: int) -> np.ndarray:
    """A square grid's border samples, walked counter-clockwise seen from above."""
    grid = np.arange(samples * samples).reshape(samples, samples)
    return np.concatenate([grid[0, :-1], grid[:-1, -1], grid[-1, :0:-1], grid[:0:-1, 0]])


@lru_cache(maxsize=None)
def _piece_primitives(samples: int, piece_cells: int) -> tuple[GeomTriangles, ...]:
    """Index lists of a square grid of ``samples`` a side with its skirt after it (see
    :func:`grid_pieces`): one for each piece of at most ``piece_cells`` cells a side, rows
    of pieces by y, each with the skirt along its part of the border. The same for every
    tile of that size: shared."""
    cells = samples - 1
    triangles = grid_triangles(samples, samples).reshape(2, cells, cells, 3)
    border = _border(samples)
    count = len(border)
    k = np.arange(count)
    upper_a, upper_b = samples * samples + k, samples * samples + (k + 1) % count
    lower_a, lower_b = upper_a + count, upper_b + count
    skirt = np.stack([np.stack([upper_a, lower_b, upper_b], axis=1),
                      np.stack([upper_a, lower_a, lower_b], axis=1)], axis=1)
    # Each border segment belongs to the piece its middle lies in.
    ends = np.stack([border, np.roll(border, -1)])
    middle_row = np.minimum(ends // samples, cells - 1).min(axis=0)
    middle_column = np.minimum(ends % samples, cells - 1).min(axis=0)
    piece_of_segment = (middle_row // piece_cells, middle_column // piece_cells)
    primitives = []
    for j0 in range(0, cells, piece_cells):
        for i0 in range(0, cells, piece_cells):
            piece = triangles[:, j0:j0 + piece_cells, i0:i0 + piece_cells].reshape(-1, 3)
            mine = ((piece_of_segment[0] == j0 // piece_cells)
                    & (piece_of_segment[1] == i0 // piece_cells))
            primitives.append(triangle_primitive(
                np.concatenate([piece, skirt[mine].reshape(-1, 3)]), Geom.UH_static))
    return tuple(primitives)


def grid_pieces(name: str, positions: np.ndarray, normals: np.ndarray, colours: np.ndarray,
                piece_cells: int, skirt_m: float) -> list[GeomNode]:
    """A square grid of vertices (rows by y, split as Bullet splits it) with a skirt
    ``skirt_m`` deep round it, in one vertex buffer: a node for each piece of at most
    ``piece_cells`` cells a side (culled one by one) with the skirt along its edges."""
    samples = len(positions)
    flat_p, flat_n, flat_c = (positions.reshape(-1, 3), normals.reshape(-1, 3),
                              colours.reshape(-1, 4))
    border = _border(samples)
    top = flat_p[border]
    rows = np.hstack([np.concatenate([flat_p, top, top - np.array([0.0, 0.0, skirt_m])]),
                      np.concatenate([flat_n, flat_n[border], flat_n[border]]),
                      np.concatenate([flat_c, flat_c[border], flat_c[border]])])
    vertex_data = GeomVertexData(name, VERTEX_FORMAT, Geom.UH_static)
    vertex_data.uncleanSetNumRows(len(rows))
    write_rows(vertex_data, rows)
    nodes = []
    for number, primitive in enumerate(_piece_primitives(samples, piece_cells)):
        geom = Geom(vertex_data)
        geom.addPrimitive(primitive)
        node = GeomNode(f"{name}-{number}")
        node.addGeom(geom)
        nodes.append(node)
    return nodes


def _apron_grid(terrain, edge_heights: Callable[[np.ndarray, np.ndarray], np.ndarray],
                level_m: float, spec, light_colour, dark_colour):
    """The apron's vertex rows (positions, normals, colours), its cells' centres (x, y,
    rows by y) and its triangles with whether each lies outside the map."""
    spacing = spec.apron_spacing_m
    reach = max(terrain.half_extent_x_m, terrain.half_extent_y_m) + spec.apron_extent_m
    count = int(np.ceil(reach / spacing))
    axis = np.arange(-count, count + 1) * spacing
    x_m, y_m = np.meshgrid(axis, axis)
    # Distance outside the map; inside it the apron sinks below the real terrain.
    outside = np.maximum(np.abs(x_m) - terrain.half_extent_x_m,
                         np.abs(y_m) - terrain.half_extent_y_m)
    edge = edge_heights(np.clip(x_m, -terrain.half_extent_x_m, terrain.half_extent_x_m),
                        np.clip(y_m, -terrain.half_extent_y_m, terrain.half_extent_y_m))
    fade = np.clip(outside / spec.apron_fade_m, 0.0, 1.0)
    heights = edge + (level_m - edge) * fade - spec.skirt_depth_m * (outside <= 0.0)
    positions = np.stack([x_m, y_m, heights], axis=-1)
    normals = grid_normals(heights, spacing)
    colours = sand_colours(terrain, heights, light_colour, dark_colour,
                           np.full(heights.shape, 0.5))
    triangles = grid_triangles(len(axis), len(axis))
    centre_x = (x_m[:-1, :-1] + spacing / 2).ravel()
    centre_y = (y_m[:-1, :-1] + spacing / 2).ravel()
    inside = ((np.abs(centre_x) + spacing / 2 <= terrain.half_extent_x_m)
              & (np.abs(centre_y) + spacing / 2 <= terrain.half_extent_y_m))
    vertices = (positions.reshape(-1, 3), normals.reshape(-1, 3), colours.reshape(-1, 4))
    return vertices, (centre_x, centre_y), triangles, np.concatenate([~inside, ~inside])


def apron_node(terrain, edge_heights: Callable[[np.ndarray, np.ndarray], np.ndarray],
               level_m: float, spec, light_colour, dark_colour) -> GeomNode:
    """A coarse grid round the map (its inside cut away): the heights at the map's edge
    (``edge_heights`` of points on it) fading out to ``level_m``. ``spec``: the
    :class:`~game.view.ground.terrain_view.TerrainViewSpec`."""
    vertices, _, triangles, keep = _apron_grid(terrain, edge_heights, level_m, spec,
                                               light_colour, dark_colour)
    return make_mesh("terrain-apron", *vertices, triangles[keep])


def apron_blocks(terrain, edge_heights: Callable[[np.ndarray, np.ndarray], np.ndarray],
                 level_m: float, spec, light_colour, dark_colour, block_m: float
                 ) -> list[tuple[GeomNode, tuple[float, float]]]:
    """:func:`apron_node` cut into square blocks about ``block_m`` wide (one vertex
    buffer), culled one by one: each block's node and centre (x, y)."""
    vertices, (centre_x, centre_y), triangles, keep = _apron_grid(
        terrain, edge_heights, level_m, spec, light_colour, dark_colour)
    rows = np.hstack(vertices)
    vertex_data = GeomVertexData("terrain-apron", VERTEX_FORMAT, Geom.UH_static)
    vertex_data.uncleanSetNumRows(len(rows))
    write_rows(vertex_data, rows)
    block_x = np.floor(np.concatenate([centre_x, centre_x]) / block_m).astype(np.int64)
    block_y = np.floor(np.concatenate([centre_y, centre_y]) / block_m).astype(np.int64)
    blocks = []
    for bx, by in sorted(set(zip(block_x[keep].tolist(), block_y[keep].tolist()))):
        mine = keep & (block_x == bx) & (block_y == by)
        geom = Geom(vertex_data)
        geom.addPrimitive(triangle_primitive(triangles[mine], Geom.UH_static))
        node = GeomNode(f"terrain-apron-{bx}-{by}")
        node.addGeom(geom)
        blocks.append((node, ((bx + 0.5) * block_m, (by + 0.5) * block_m)))
    return blocks
