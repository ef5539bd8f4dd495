"""Craters: shells that hit sand dig bowls into the desert.

A crater is a bowl, its floor ``depth_m`` below the untouched ground at its centre, rising
as the square of the distance to the untouched ground's level at its rim. The ground
with craters is the lowest of the untouched ground and every crater's bowl: a second
shell in the same hole does not dig it deeper (two hundred make the same crater as one),
shells side by side make one long hole, and the ground comes out the same whatever order
the craters are dug in or a tile is made in. Filling a crater back in is working the
ground out again from the untouched ground and the craters left.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

import numpy as np

from common.spec import Spec, tuning
from physics.model.height_grid import quantised, triangle_planes


@dataclass(frozen=True)
class CraterSpec(Spec):
    """How big the holes shells dig are, and how many the desert keeps."""

    radius_m: float = tuning("radius of the crater a reference shell digs", minimum=0.1,
                             maximum=20.0)
    depth_m: float = tuning("depth of its floor below the untouched ground", minimum=0.0,
                            maximum=5.0)
    reference_energy_j: float = tuning("a shell with this kinetic energy at impact digs the "
                                       "reference crater; radius and depth grow with the "
                                       "cube root of the energy", minimum=1.0, maximum=1e10)
    largest_scale: float = tuning("no crater is more than this many times the reference",
                                  minimum=1.0, maximum=4.0)
    most_craters: int = tuning("craters the desert keeps: beyond this the wind fills the "
                               "oldest back in", minimum=0, maximum=4096)
    collider_piece_cells: int = tuning("a desert's ground colliders (the 512 m map's, a big "
                                       "desert tile's) are built in square pieces this "
                                       "many cells a side: a crater builds again only the "
                                       "pieces under it", minimum=1, maximum=4096)

    @property
    def deepest_m(self) -> float:
        """The deepest a crater can be."""
        return self.depth_m * self.largest_scale

    def scale(self, mass_kg: float, speed_mps: float) -> float:
        """A shell's crater size against the reference's."""
        energy_j = 0.5 * mass_kg * speed_mps * speed_mps
        return min((energy_j / self.reference_energy_j) ** (1.0 / 3.0), self.largest_scale)


@dataclass(frozen=True)
class Crater:
    """One hole: where, how wide, and how deep below the untouched ground at its centre."""

    x_m: float
    y_m: float
    radius_m: float
    depth_m: float

    def box_m(self) -> tuple[float, float, float, float]:
        """The square round it: least x and y, greatest x and y."""
        return (self.x_m - self.radius_m, self.y_m - self.radius_m,
                self.x_m + self.radius_m, self.y_m + self.radius_m)

    def overlaps(self, box_m: tuple[float, float, float, float]) -> bool:
        return boxes_meet(self.box_m(), box_m)


def boxes_meet(first, second) -> bool:
    """Whether two boxes (least x and y, greatest x and y) touch or overlap."""
    return not (first[2] < second[0] or first[0] > second[2] or first[3] < second[1]
                or first[1] > second[3])


def checked_crater(spec: CraterSpec, x_m, y_m, radius_m, depth_m) -> Crater:
    """A crater from numbers that came from elsewhere (a server's event): ValueError
    unless each is finite and no bigger than a shell can dig."""
    values = (x_m, y_m, radius_m, depth_m)
    if not all(isinstance(value, (int, float)) and not isinstance(value, bool)
               and math.isfinite(value) for value in values):
        raise ValueError(f"a crater of numbers, not {values!r}")
    if not (0.0 < radius_m <= spec.radius_m * spec.largest_scale
            and 0.0 <= depth_m <= spec.deepest_m):
        raise ValueError(f"a crater no bigger than a shell digs, not radius {radius_m} m, "
                         f"depth {depth_m} m")
    return Crater(float(x_m), float(y_m), float(radius_m), float(depth_m))


def bowl_heights_m(crater: Crater, centre_ground_m: float, x_m: np.ndarray,
                   y_m: np.ndarray) -> np.ndarray:
    """The crater's bowl at points (inf outside it): its floor at the centre, the
    untouched ground's level at the rim."""
    share = ((x_m - crater.x_m) ** 2 + (y_m - crater.y_m) ** 2) / crater.radius_m ** 2
    return np.where(share < 1.0, centre_ground_m - crater.depth_m * (1.0 - share), np.inf)


def dug_heights_m(untouched_m: np.ndarray, x_m: np.ndarray, y_m: np.ndarray,
                  craters: list[tuple[Crater, float]]) -> np.ndarray:
    """Heights at points with the craters dug: the lowest of the untouched ground and each
    crater's bowl (``craters``: each with the untouched ground at its centre)."""
    heights = untouched_m
    for crater, centre_ground_m in craters:
        heights = np.minimum(heights, bowl_heights_m(crater, centre_ground_m, x_m, y_m))
    return heights


def crater_from_hit(spec: CraterSpec, point_ws, mass_kg: float, speed_mps: float
                    ) -> Crater:
    """The crater a shell digs where it hits, its numbers rounded to a millimetre (they
    travel to network clients as text and must dig the same hole there)."""
    scale = spec.scale(mass_kg, speed_mps)
    return Crater(round(float(point_ws[0]), 3), round(float(point_ws[1]), 3),
                  round(spec.radius_m * scale, 3), round(spec.depth_m * scale, 3))


def sample_window(box_m: tuple[float, float, float, float], half_extents_m: tuple[float, float],
                  spacing_m: float, last_samples: tuple[int, int]) -> tuple[int, int, int, int]:
    """The samples of a map's grid (first and last column, first and last row) that a box
    covers, clamped to the map (``half_extents_m`` and ``last_samples``: in x, then y)."""
    def index(value_m: float, axis: int, rounding) -> int:
        sample = int(rounding((value_m + half_extents_m[axis]) / spacing_m))
        return min(max(sample, 0), last_samples[axis])

    return (index(box_m[0], 0, math.floor), index(box_m[2], 0, math.ceil),
            index(box_m[1], 1, math.floor), index(box_m[3], 1, math.ceil))


class DugGrid:
    """A height grid's arrays that craters rework in place: heights, their 16-bit levels
    and the triangle planes (a view of shape (rows - 1, columns - 1, 2, 6))."""

    def __init__(self, heights_m: np.ndarray, levels: np.ndarray, planes: np.ndarray,
                 spacing_m: float, min_height_m: float, height_range_m: float):
        self.heights_m, self.levels, self.spacing_m = heights_m, levels, spacing_m
        rows, columns = heights_m.shape
        self.planes = planes.reshape(rows - 1, columns - 1, 2, 6)
        self.min_height_m, self.height_range_m = min_height_m, height_range_m

    def rework(self, window: tuple[int, int, int, int], untouched_m: np.ndarray,
               x_m: np.ndarray, y_m: np.ndarray, craters: list[tuple[Crater, float]]) -> None:
        """Work the samples in ``window`` (first and last column, first and last row of
        this grid) out again from the untouched ground there and the craters, and the
        planes of every cell they are corners of. Heights stay within the grid's range
        (a crater at its lowest point is as deep as the range allows)."""
        first_column, last_column, first_row, last_row = window
        dug = np.clip(dug_heights_m(untouched_m, x_m, y_m, craters), self.min_height_m,
                      self.min_height_m + self.height_range_m)
        levels, heights = quantised(dug, self.min_height_m, self.height_range_m)
        self.heights_m[first_row:last_row + 1, first_column:last_column + 1] = heights
        self.levels[first_row:last_row + 1, first_column:last_column + 1] = levels
        rows, columns = self.heights_m.shape
        cell_i, cell_j = max(first_column - 1, 0), max(first_row - 1, 0)
        end_i, end_j = min(last_column, columns - 2) + 1, min(last_row, rows - 2) + 1
        self.planes[cell_j:end_j, cell_i:end_i] = triangle_planes(
            self.heights_m[cell_j:end_j + 1, cell_i:end_i + 1], self.spacing_m
        ).reshape(end_j - cell_j, end_i - cell_i, 2, 6)


_CHANGES_KEPT = 256
"""Changes to the ground a terrain remembers for :meth:`CraterBook.changes_since`."""


class CraterBook:
    """A terrain's craters, and the changes they made to its ground. The terrain works its
    ground out again under a box (``_rework``) from the untouched ground and the craters,
    each with the untouched ground's height at its centre (``_untouched_at``)."""

    def _untouched_at(self, x_m: float, y_m: float) -> float:
        """The untouched ground's height at the sample nearest a point."""
        raise NotImplementedError

    def _rework(self, box_m: tuple[float, float, float, float]) -> None:
        raise NotImplementedError

    _craters: list[tuple[Crater, float]]
    _changes: deque
    revision: int
    """Counts the changes to the ground (craters dug and filled in)."""

    def _start_craters(self) -> None:
        self._craters, self._changes, self.revision = [], deque(maxlen=_CHANGES_KEPT), 0

    @property
    def craters(self) -> list[Crater]:
        """The craters dug and not filled in, oldest first."""
        return [crater for crater, _ in self._craters]

    def dig(self, crater: Crater) -> tuple[float, float, float, float]:
        """Dig a crater: the heights, levels and planes under it change at once; returns
        the box that changed (the collider and the drawn ground under it are out of date)."""
        self._craters.append((crater, self._untouched_at(crater.x_m, crater.y_m)))
        return self._changed(crater.box_m())

    def fill_oldest(self) -> tuple[float, float, float, float]:
        """Fill the oldest crater back in; returns the box that changed."""
        crater, _ = self._craters.pop(0)
        return self._changed(crater.box_m())

    def _changed(self, box_m: tuple[float, float, float, float]
                 ) -> tuple[float, float, float, float]:
        self._rework(box_m)
        self.revision += 1
        self._changes.append((self.revision, box_m))
        return box_m

    def changes_since(self, revision: int) -> list[tuple[float, float, float, float]] | None:
        """The boxes the ground changed under after ``revision`` (None: too long ago to
        say; treat all of it as changed)."""
        if revision >= self.revision:
            return []
        if not self._changes or self._changes[0][0] > revision + 1:
            return None
        return [box for number, box in self._changes if number > revision]
