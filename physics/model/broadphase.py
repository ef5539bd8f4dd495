"""Which points come near which: a uniform grid over the points in place of every pair.

The fleet asks which vehicles come within a limit of each other (:func:`pairs_within`)
and of an obstacle's bounding sphere (:func:`sphere_pairs`), and so which are near
something (:func:`in_pairs`).
Measuring every pair grows with the square of the count; here the points are sorted into
square cells (seen from above) as wide as the largest limit, and each point measures only
the points in the cells its limit reaches: a few neighbours each, however many there are.

The distances are the ones measuring every pair takes, in the same order of operations
(``sqrt((dx² + dy²) + dz²)``, as ``np.linalg.norm`` sums), so the grid answers exactly
as every pair would; the grid only leaves out pairs whose distance cannot be under the
limit. That holds to the last bit: a point's cell is ``floor(x / cell)`` and a search
reaches the cells of ``floor((x - limit) / cell)`` to ``floor((x + limit) / cell)``, both
rounded as the points' own are; rounding and ``floor`` never reverse an order, so a point
closer than the limit in x (and in y) always lies in a searched cell.

The pairs found become the links along which the anchors' rays are measured each substep
(:mod:`physics.model.ray_narrowing`).

A point with a coordinate that is not finite is near nothing (its distances are not
under any limit), and nothing is near it. The loops are compiled with numba
(:mod:`common.compiled`) and run as plain Python without it.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from common.compiled import compiled_loop, compiled_stage

EVERY_PAIR_UP_TO = 4096
"""Up to this many pairs of points (or of points and spheres), :func:`pairs_within` and
:func:`sphere_pairs` measure every pair in one compiled loop: for a handful of vehicles
among a few dozen rocks, sorting them into cells costs more than the measuring."""


class _Grid(NamedTuple):
    """Points sorted by cell: row (y) first, then column (x)."""

    cell_m: float
    members: np.ndarray
    """(M,) indices of the points with finite coordinates, in cell order."""
    rows: np.ndarray
    """(M,) each member's cell row, ``floor(y / cell_m)``, as a float."""
    columns: np.ndarray
    """(M,) each member's cell column, ``floor(x / cell_m)``, as a float."""


def _grid(points_ws: np.ndarray, cell_m: float) -> _Grid:
    finite = np.flatnonzero(np.isfinite(points_ws).all(axis=1))
    columns = np.floor(points_ws[finite, 0] / cell_m)
    rows = np.floor(points_ws[finite, 1] / cell_m)
    order = np.lexsort((columns, rows))
    return _Grid(cell_m, finite[order], np.ascontiguousarray(rows[order]),
                 np.ascontiguousarray(columns[order]))


@compiled_stage
def _at_or_after(rows, columns, row, column, start, stop):
    """The first position in [start, stop) whose cell is (row, column) or after it."""
    while start < stop:
        middle = (start + stop) // 2
        if rows[middle] < row or (rows[middle] == row and columns[middle] < column):
            start = middle + 1
        else:
            stop = middle
    return start


@compiled_stage
def _after_row(rows, row, start, stop):
    """The first position in [start, stop) whose cell lies in a later row than ``row``."""
    while start < stop:
        middle = (start + stop) // 2
        if rows[middle] <= row:
            start = middle + 1
        else:
            stop = middle
    return start


@compiled_stage
def _window(x, y, reach_m, cell_m):
    """The grid cells within ``reach_m`` of (x, y): lowest and highest row, then column."""
    return (np.floor((y - reach_m) / cell_m), np.floor((y + reach_m) / cell_m),
            np.floor((x - reach_m) / cell_m), np.floor((x + reach_m) / cell_m))


@compiled_stage
def _in_window(rows, columns, row_high, column_low, column_high, start, stop):
    """The first position from ``start`` (rows sorted, then columns) whose cell lies in the
    window up to ``row_high`` and between the columns, skipping whole runs of cells outside
    it; ``stop`` when none is left."""
    position = start
    while position < stop and rows[position] <= row_high:
        row, column = rows[position], columns[position]
        if column < column_low:
            position = _at_or_after(rows, columns, row, column_low, position, stop)
        elif column > column_high:
            position = _after_row(rows, row, position, stop)
        else:
            return position
    return stop


@compiled_stage
def _distance_m(points, a, others, b):
    """``np.linalg.norm(points[a] - others[b])``, summed in the order numpy sums."""
    dx = points[a, 0] - others[b, 0]
    dy = points[a, 1] - others[b, 1]
    dz = points[a, 2] - others[b, 2]
    return np.sqrt((dx * dx + dy * dy) + dz * dz)


@compiled_loop
def _grid_pairs(points, centres, limits, same, members, rows, columns, cell_m, reach_m,
                pairs):
    """Into ``pairs`` (as many rows as it has), each point with finite coordinates with each
    centre (a grid member) closer to it than that centre's limit, the point first (where
    ``same``, the points are the centres, and each pair is taken once, the lower first);
    returns how many pairs there are. Searches the cells within ``reach_m``, at least every
    limit, of each point."""
    count = 0
    total = len(members)
    for a in range(len(points)):
        if not (np.isfinite(points[a, 0]) and np.isfinite(points[a, 1])
                and np.isfinite(points[a, 2])):
            continue
        row_low, row_high, column_low, column_high = _window(points[a, 0], points[a, 1],
                                                             reach_m, cell_m)
        position = _at_or_after(rows, columns, row_low, column_low, 0, total)
        position = _in_window(rows, columns, row_high, column_low, column_high, position, total)
        while position < total:
            b = members[position]
            if (not same or a < b) and _distance_m(points, a, centres, b) < limits[b]:
                if count < len(pairs):
                    pairs[count, 0], pairs[count, 1] = a, b
                count += 1
            position = _in_window(rows, columns, row_high, column_low, column_high,
                                  position + 1, total)
    return count


@compiled_loop
def _every_pair(points, centres, limits, same, pairs):
    """Into ``pairs`` (as many rows as it has), each point with each centre closer to it
    than that centre's limit, the point first, in order (where ``same``, the points are
    the centres, and each pair is taken once, the lower first); returns how many there are.
    The distances are :func:`_distance_m`'s, as the grid measures them."""
    count = 0
    for a in range(len(points)):
        for b in range(a + 1 if same else 0, len(centres)):
            if _distance_m(points, a, centres, b) < limits[b]:
                if count < len(pairs):
                    pairs[count, 0], pairs[count, 1] = a, b
                count += 1
    return count


def _collected(collect, guess: int, in_order: bool = False) -> np.ndarray:
    """The pairs that ``collect(out)`` writes into ``out`` (it returns how many it found,
    however many fit), with room made for them all: (P, 2), sorted (``in_order``: they
    were found in order)."""
    pairs = np.empty((guess, 2), dtype=np.int64)
    found = collect(pairs)
    if found > len(pairs):  # crowded: room for them all, and again
        pairs = np.empty((found, 2), dtype=np.int64)
        collect(pairs)
    pairs = pairs[:found]
    return pairs if in_order else pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]


def pairs_within(centres_ws: np.ndarray, limit_m: float) -> np.ndarray:
    """Each pair of points (V, 3) closer than ``limit_m``: (P, 2) indices, the lower
    first, sorted."""
    centres_ws = np.ascontiguousarray(centres_ws, dtype=float)
    count = len(centres_ws)
    if count < 2 or not limit_m > 0.0:
        return np.zeros((0, 2), dtype=np.int64)
    if limit_m == np.inf:  # every two finite points
        finite = np.flatnonzero(np.isfinite(centres_ws).all(axis=1))
        first, second = np.triu_indices(len(finite), 1)
        return np.column_stack([finite[first], finite[second]])
    limits_m = np.full(count, float(limit_m))
    if count * count <= EVERY_PAIR_UP_TO:
        return _collected(lambda pairs: _every_pair(centres_ws, centres_ws, limits_m, True,
                                                    pairs), 4 * count, in_order=True)
    grid = _grid(centres_ws, limit_m)
    return _collected(lambda pairs: _grid_pairs(
        centres_ws, centres_ws, limits_m, True, grid.members, grid.rows, grid.columns,
        grid.cell_m, limit_m, pairs), 4 * count)


def sphere_pairs(points_ws: np.ndarray, centres_ws: np.ndarray, limits_m: np.ndarray
                 ) -> np.ndarray:
    """Each point (P, 3) with each sphere (S, 3) whose centre is closer to it than that
    sphere's limit (S,): (Q, 2) indices, the point's first, sorted. The limits may differ
    (a sphere's radius, how fast it moves); an endless one (with a finite centre) reaches
    every finite point, a NaN one none."""
    points_ws = np.ascontiguousarray(points_ws, dtype=float)
    centres_ws = np.ascontiguousarray(centres_ws, dtype=float).reshape(-1, 3)
    limits_m = np.ascontiguousarray(limits_m, dtype=float)
    endless = limits_m == np.inf
    bounded = np.isfinite(limits_m) & (limits_m > 0.0)
    grid_limits_m = np.where(bounded, limits_m, 0.0)  # the endless are paired below
    if len(points_ws) * len(centres_ws) <= EVERY_PAIR_UP_TO:
        near = _collected(lambda pairs: _every_pair(
            points_ws, centres_ws, grid_limits_m, False, pairs), 2 * len(points_ws),
            in_order=True)
    elif bounded.any() and np.isfinite(points_ws).all(axis=1).any():
        reach_m = float(limits_m[bounded].max())
        grid = _grid(centres_ws, reach_m)
        near = _collected(lambda pairs: _grid_pairs(
            points_ws, centres_ws, grid_limits_m, False, grid.members, grid.rows,
            grid.columns, grid.cell_m, reach_m, pairs), 2 * len(points_ws))
    else:
        near = np.zeros((0, 2), dtype=np.int64)
    if not np.count_nonzero(endless):
        return near  # each way finds them sorted
    finite_points = np.flatnonzero(np.isfinite(points_ws).all(axis=1))
    reaching = np.flatnonzero(endless & np.isfinite(centres_ws).all(axis=1))
    pairs = np.concatenate([np.column_stack([np.repeat(finite_points, len(reaching)),
                                             np.tile(reaching, len(finite_points))]
                                            ).astype(np.int64), near])
    return pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]


def in_pairs(pairs: np.ndarray, count: int) -> np.ndarray:
    """Per point of ``count``: is it in one of ``pairs`` (P, 2)?"""
    flags = np.zeros(count, dtype=bool)
    flags[pairs.ravel()] = True
    return flags


def _path_feet(points_ws: np.ndarray, path_ws: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each point's (P, 3) foot on each straight piece of a path (its points, (C + 1, 3)):
    how far along the piece it stands, as a share of it (P, C), its squared distance from
    the point (P, C), and the pieces' lengths (C,)."""
    starts = path_ws[:-1]
    along = path_ws[1:] - starts  # (C, 3)
    lengths_squared = np.einsum("ij,ij->i", along, along)
    offsets = points_ws[:, None, :] - starts[None, :, :]  # (P, C, 3)
    share = np.clip(np.einsum("pcj,cj->pc", offsets, along)
                    / np.maximum(lengths_squared, np.finfo(float).tiny), 0.0, 1.0)
    gaps = offsets - share[:, :, None] * along[None, :, :]
    return share, np.einsum("pcj,pcj->pc", gaps, gaps), np.sqrt(lengths_squared)


def points_near_path(points_ws: np.ndarray, path_ws: np.ndarray, reach_m: np.ndarray
                     ) -> np.ndarray:
    """Per point (P, 3): does a path (its points, (C + 1, 3), and the straight pieces
    between them) pass within that point's ``reach_m`` (P,)?"""
    _, gaps_squared, _ = _path_feet(points_ws, path_ws)
    return (gaps_squared <= (reach_m * reach_m)[:, None]).any(axis=1)


def along_path_m(path_ws: np.ndarray, point_ws: np.ndarray) -> float:
    """How far along a path (its points, (C + 1, 3)) a point on or near it lies: to its
    foot on the nearest straight piece."""
    share, gaps_squared, lengths = _path_feet(np.asarray(point_ws, dtype=float)[None, :],
                                              path_ws)
    piece = int(np.argmin(gaps_squared[0]))
    return float(lengths[:piece].sum() + share[0, piece] * lengths[piece])


def reached(centres_ws: np.ndarray, radii_m: np.ndarray, points_ws: np.ndarray,
            reach_m: np.ndarray | list[float]) -> list[bool]:
    """Per centre (C, 3): does one of the points (P, 3) come within the centre's radius
    (C,) and its own reach (P,)? The distances as every pair's above, in plain floats: a
    step's few shells and vehicles, where numpy's calls cost more than the sums."""
    points = list(zip(np.asarray(points_ws, dtype=float).reshape(-1, 3).tolist(),
                      np.asarray(reach_m, dtype=float).tolist()))
    answers = []
    for (centre_x, centre_y, centre_z), radius_m in zip(
            np.asarray(centres_ws, dtype=float).tolist(), np.asarray(radii_m).tolist()):
        answers.append(any(math.sqrt((centre_x - x_m) * (centre_x - x_m)
                                     + (centre_y - y_m) * (centre_y - y_m)
                                     + (centre_z - z_m) * (centre_z - z_m)) <= radius_m + far_m
                           for (x_m, y_m, z_m), far_m in points))
    return answers
