"""Rocks scattered over the desert: static convex colliders with the mesh they are drawn with.

Each rock is a lumpy, flattened sphere: the vertices of a once-subdivided
icosahedron pushed in and out by seeded noise. The collider is the convex hull
of exactly those vertices, and the renderer draws the same vertices with the
icosahedron's triangles, so what is seen is what is hit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from common.spec import Spec, SpecError, tuning
from physics.model.ray_narrowing import DOP_AXES
from physics.model.terrain_base import TerrainBase


@dataclass(frozen=True)
class RockSpec(Spec):
    count: int = tuning("rocks on the desert map", minimum=0, maximum=2000)
    min_radius_m: float = tuning("smallest rock's radius", minimum=0.2, maximum=20.0)
    max_radius_m: float = tuning("largest rock's radius", minimum=0.2, maximum=20.0)
    flattening: float = tuning("height as a share of width", minimum=0.2, maximum=1.0)
    lumpiness: float = tuning("how far the surface strays in and out, as a share of the "
                              "radius", minimum=0.0, maximum=0.5)
    buried_fraction: float = tuning("share of each rock's height below the sand",
                                    minimum=0.0, maximum=0.9)
    spawn_clearance_m: float = tuning("no rock this close to a spawn point", minimum=0.0,
                                      maximum=500.0)
    edge_clearance_m: float = tuning("no rock this close to the map's edge", minimum=0.0,
                                     maximum=500.0)
    rock_ground_scale: float = tuning("bare rock ground around each rock, as a multiple of "
                                      "its radius", minimum=0.0, maximum=10.0)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.max_radius_m < self.min_radius_m:
            raise SpecError("max_radius_m", self.max_radius_m,
                            f"at least min_radius_m ({self.min_radius_m})")


@dataclass(frozen=True, eq=False)  # owners in the handle map: hashed by identity
class Rock:
    """One rock: where it is, and its vertices and triangles in its own frame. Its reach
    is worked out once, when first asked (a rock never changes; bots ask for every rock
    near them whenever rocks come or go)."""

    position_ws: np.ndarray   # (3,)
    heading_deg: float
    points_bs: np.ndarray     # (N, 3)
    triangles: np.ndarray     # (M, 3) indices into points_bs, outward-facing
    radius_m: float

    @cached_property
    def reach_m(self) -> float:
        """How far its points reach from its centre (its position)."""
        return float(np.sqrt(np.einsum("ij,ij->i", self.points_bs, self.points_bs)
                             ).max(initial=0.0))

    def box_bs(self) -> tuple[np.ndarray, np.ndarray]:
        """The box round its points in its own frame: its centre and half extents (m)."""
        low, high = self.points_bs.min(axis=0), self.points_bs.max(axis=0)
        return (low + high) / 2.0, (high - low) / 2.0

    def bounds_bs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Its k-DOP in its own frame: its box (:meth:`box_bs`) and, along each of
        :data:`~physics.model.ray_narrowing.DOP_AXES`, the least and greatest reach of its
        points from the box's centre, (K, 2). A rock is round: the box's corners are
        empty, and a ray by a rock's side that passes through one meets nothing."""
        centre, half_extents = self.box_bs()
        reach = (self.points_bs - centre) @ DOP_AXES.T
        return centre, half_extents, np.stack([reach.min(axis=0), reach.max(axis=0)], axis=1)

    @property
    def top_m(self) -> float:
        """The height of its highest point (it turns only about the vertical)."""
        return float(self.position_ws[2] + self.points_bs[:, 2].max(initial=0.0))


def icosphere() -> tuple[np.ndarray, np.ndarray]:
    """Unit sphere: a once-subdivided icosahedron (42 vertices, 80 outward triangles)."""
    golden = (1.0 + math.sqrt(5.0)) / 2.0
    points = [(-1, golden, 0), (1, golden, 0), (-1, -golden, 0), (1, -golden, 0),
              (0, -1, golden), (0, 1, golden), (0, -1, -golden), (0, 1, -golden),
              (golden, 0, -1), (golden, 0, 1), (-golden, 0, -1), (-golden, 0, 1)]
    faces = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4),
             (11, 10, 2), (10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8),
             (3, 8, 9), (4, 9, 5), (2, 4, 11), (6, 2, 10), (8, 6, 7), (9, 8, 1)]
    vertices = [np.array(p, dtype=float) / np.linalg.norm(p) for p in points]
    midpoints: dict[tuple[int, int], int] = {}

    def midpoint(a: int, b: int) -> int:
        key = (min(a, b), max(a, b))
        if key not in midpoints:
            middle = vertices[a] + vertices[b]
            vertices.append(middle / np.linalg.norm(middle))
            midpoints[key] = len(vertices) - 1
        return midpoints[key]

    subdivided = []
    for a, b, c in faces:
        ab, bc, ca = midpoint(a, b), midpoint(b, c), midpoint(c, a)
        subdivided += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
    return np.array(vertices), np.array(subdivided)


def scatter_rocks(terrain: TerrainBase, spec: RockSpec, seed: int,
                  keep_clear_xy: list[tuple[float, float]]) -> list[Rock]:
    """Seeded rocks over the map, none near the edges or the given spawn points."""
    rng = np.random.default_rng([seed, 0x70C5])  # a stream of its own: terrain keeps `seed`
    unit_points, triangles = icosphere()
    clear = np.asarray(keep_clear_xy, dtype=float).reshape(-1, 2)
    rocks: list[Rock] = []
    limit_x = terrain.half_extent_x_m - spec.edge_clearance_m
    limit_y = terrain.half_extent_y_m - spec.edge_clearance_m
    if limit_x <= 0.0 or limit_y <= 0.0:
        return rocks
    attempts = 0
    while len(rocks) < spec.count and attempts < spec.count * 20:
        attempts += 1
        xy = rng.uniform([-limit_x, -limit_y], [limit_x, limit_y])
        radius = rng.uniform(spec.min_radius_m, spec.max_radius_m)
        if clear.size and np.min(np.linalg.norm(clear - xy, axis=1)) < spec.spawn_clearance_m:
            continue
        lumps = 1.0 + spec.lumpiness * rng.uniform(-1.0, 1.0, len(unit_points))
        points = unit_points * lumps[:, None] * radius
        points[:, 2] *= spec.flattening
        ground = float(terrain.height_at(xy[0], xy[1]))
        height = points[:, 2].max() - points[:, 2].min()
        sink = points[:, 2].min() + spec.buried_fraction * height
        rocks.append(Rock(np.array([xy[0], xy[1], ground - sink]),
                          float(rng.uniform(0.0, 360.0)), points, triangles, radius))
    return rocks
