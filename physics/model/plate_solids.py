"""The armour plates as solids: the faces that are drawn and the pieces Bullet collides.

Both come from the same plates (:mod:`physics.model.armour`, config/tanks/NAME.toml ``[plates]``),
so a shell strikes what the player sees:

- drawn: each plate's faces as polygons of its own corners (:func:`face_loops`);
- collided: each part (hull, turret) as a few solid convex pieces whose faces are the
  plates' outer faces (:func:`collider_pieces`). Where a part's plates close a convex
  solid (the hull; the turret without its mantlet), that solid is one piece: the convex
  hull of their corners, every face of which lies on a plate's face. A plate that stands
  out of the rest (the mantlet) is taken off as a piece of its own, so the rest is convex
  again; what cannot be made convex so is left one piece per plate.
  The plates alone would be thin shells round a hollow: a corner of a rock or another
  hull pressed past a 2 cm plate in one substep would lose its contacts inside.

Bullet grows a convex hull by its collision margin on every side, so each piece is handed
over moved in by its margin (:func:`inset_corners`): with the margin back on, its faces
stand where the plates' do (as Bullet's own box keeps its margin inside the box), its
edges and corners rounded by the margin.

:func:`swept_bounds` is the box, in the body frame, that holds every piece with the turret
at any heading: the room the rest of the physics must leave for the collider.

Pure numpy; knows nothing of Panda or Bullet.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from physics.model.armour import PlateLayout, PlateSpec

TOLERANCE_M = 1e-6
"""A point this close to a plane lies on it."""
_INDEPENDENT = 1e-9
"""Three planes whose normals span less than this (a determinant) meet in no one point."""


def face_loops(plate: PlateSpec) -> list[np.ndarray]:
    """Each face of ``plate`` (in the order of ``plate.faces``) as its corners (K, 3) in
    order round it, counter-clockwise seen from outside (along minus its normal)."""
    points = np.array(plate.points_m, dtype=float)
    normals, offsets = plate.faces
    loops = []
    for normal, offset in zip(normals, offsets):
        on = points[np.abs(points @ normal - offset) <= TOLERANCE_M]
        centre = on.mean(axis=0)
        across = on[0] - centre
        across /= np.linalg.norm(across)
        up = np.cross(normal, across)
        offsets_from_centre = on - centre
        angles = np.arctan2(offsets_from_centre @ up, offsets_from_centre @ across)
        loops.append(on[np.argsort(angles, kind="stable")])
    return loops


def part_plates(layout: PlateLayout, part: str) -> list[PlateSpec]:
    """The plates fixed to ``part`` ("hull" or "turret"), in the layout's order."""
    return [plate for plate in layout.plate if plate.part == part]


def _triples(count: int) -> np.ndarray:
    """Every three of ``count`` indices, rising (T, 3)."""
    first, second, third = np.meshgrid(np.arange(count), np.arange(count), np.arange(count),
                                       indexing="ij")
    rising = (first < second) & (second < third)
    return np.stack([first[rising], second[rising], third[rising]], axis=1)


def _distinct(points: np.ndarray) -> np.ndarray:
    """The points, each once (plates that meet share corners), in their first order."""
    _, first = np.unique(np.round(points, 9), axis=0, return_index=True)
    return points[np.sort(first)]


def hull_planes(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The faces of the convex hull of ``points`` (N, 3) as outward unit normals and
    offsets (a point ``p`` is inside where ``normals @ p <= offsets``), one row per face; by
    brute force over every three points, for a few dozen. Unlike
    :func:`physics.model.armour.convex_faces` it takes any points (inside ones too)."""
    points = _distinct(points)
    triples = _triples(len(points))
    a, b, c = points[triples[:, 0]], points[triples[:, 1]], points[triples[:, 2]]
    crossed = np.cross(b - a, c - a)
    sizes = np.linalg.norm(crossed, axis=1)
    spanning = sizes > 1e-9
    normals = crossed[spanning] / sizes[spanning, None]
    offsets = np.einsum("ij,ij->i", normals, a[spanning])
    heights = points @ normals.T - offsets
    behind = (heights <= TOLERANCE_M).all(axis=0)
    ahead = (heights >= -TOLERANCE_M).all(axis=0)
    normals = np.concatenate([normals[behind], -normals[ahead & ~behind]])
    offsets = np.concatenate([offsets[behind], -offsets[ahead & ~behind]])
    # One row per face: planes through different triples of one face agree.
    _, unique = np.unique(np.round(np.column_stack([normals, offsets]), 9), axis=0,
                          return_index=True)
    unique = np.sort(unique)
    return normals[unique], offsets[unique]


def corners_of(normals: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """The corners (M, 3) of the convex solid bounded by the planes: every point where three
    of them meet that lies inside the rest, each once."""
    triples = _triples(len(normals))
    matrices = normals[triples]
    determinants = np.linalg.det(matrices)
    meeting = np.abs(determinants) > _INDEPENDENT
    points = np.linalg.solve(matrices[meeting], offsets[triples[meeting]][..., None])[..., 0]
    inside = (points @ normals.T <= offsets + TOLERANCE_M).all(axis=1)
    points = points[inside]
    if not len(points):
        return points
    _, unique = np.unique(np.round(points, 7), axis=0, return_index=True)
    return points[np.sort(unique)]


def inset_corners(points: np.ndarray, inset_m: float) -> np.ndarray:
    """The corners of the convex hull of ``points`` with every face moved in by
    ``inset_m``. ValueError where so little is left that it has no volume (the piece is
    thinner than twice the inset somewhere)."""
    normals, offsets = hull_planes(np.asarray(points, dtype=float))
    corners = corners_of(normals, offsets - inset_m)
    if len(corners) < 4 or np.linalg.matrix_rank(corners[1:] - corners[0], tol=1e-6) < 3:
        raise ValueError(f"a piece thinner than {2.0 * inset_m} m: nothing is left of it "
                         f"moved in by {inset_m} m")
    return corners




def same_plane(normals: np.ndarray, offsets: np.ndarray, normal: np.ndarray,
               offset: float) -> bool:
    """Whether one of the planes (rows of ``normals``, ``offsets``) is the plane
    (``normal``, ``offset``)."""
    return bool(np.any((normals @ normal >= 1.0 - 1e-9)
                       & (np.abs(offsets - offset) <= TOLERANCE_M)))


def _corners(plates: list[PlateSpec]) -> np.ndarray:
    return np.concatenate([np.array(plate.points_m, dtype=float) for plate in plates])


def foreign_faces(plates: list[PlateSpec]) -> int:
    """How many faces of the convex hull of the plates' corners lie on no plate's face: 0
    where the plates close a convex solid."""
    normals, offsets = hull_planes(_corners(plates))
    plate_normals = np.concatenate([plate.faces[0] for plate in plates])
    plate_offsets = np.concatenate([plate.faces[1] for plate in plates])
    return sum(not same_plane(plate_normals, plate_offsets, normal, offset)
               for normal, offset in zip(normals, offsets))


def convex_groups(plates: list[PlateSpec]) -> list[list[PlateSpec]]:
    """The plates in groups that each close a convex solid (see the module's doc): the
    main group, then each plate that stands out of it alone; one group a plate where no
    such split is found. Their order is the plates'."""
    if not plates:
        return []
    if len(plates) == 1 or foreign_faces(plates) == 0:
        return [list(plates)]
    rest, apart = list(plates), []
    while foreign_faces(rest):
        # Take off the plate whose going leaves the fewest faces on no plate.
        left = [(foreign_faces(rest[:index] + rest[index + 1:]), index)
                for index in range(len(rest))] if len(rest) > 2 else []
        if not left or min(left)[0] >= foreign_faces(rest):
            return [[plate] for plate in plates]
        apart.append(rest.pop(min(left)[1]))
    order = {id(plate): index for index, plate in enumerate(plates)}
    return [rest] + [[plate] for plate in sorted(apart, key=lambda p: order[id(p)])]


def thinnest_m(points: np.ndarray) -> float:
    """The convex hull's least width across any of its faces."""
    normals, _ = hull_planes(points)
    spans = points @ normals.T
    return float((spans.max(axis=0) - spans.min(axis=0)).min())


@dataclass(frozen=True)
class ColliderPiece:
    """One convex piece of a part's collider: the plates it is made of, its corners moved in
    by ``margin_m`` (in its part's frame), and that margin (Bullet's, to put it back)."""

    plates: tuple[str, ...]
    corners: np.ndarray
    margin_m: float


@lru_cache(maxsize=32)
def collider_pieces(layout: PlateLayout, part: str, margin_m: float = 0.0
                    ) -> tuple[ColliderPiece, ...]:
    """The convex pieces of ``part``'s collider (:func:`convex_groups`), each moved in by
    ``margin_m``, or by a quarter of its thinnest width where that is less (a plate alone
    may be thin). Worked out once a layout (every tank of a kind has the same)."""
    pieces = []
    for group in convex_groups(part_plates(layout, part)):
        points = _corners(group)
        normals, offsets = hull_planes(points)
        margin = min(margin_m, thinnest_m(points) / 4.0)
        corners = (inset_corners(points, margin) if margin > 0.0
                   else corners_of(normals, offsets))
        corners.setflags(write=False)
        pieces.append(ColliderPiece(tuple(plate.name for plate in group), corners, margin))
    return tuple(pieces)


def part_bounds(layout: PlateLayout, part: str, turret_pivot_m
                ) -> tuple[np.ndarray, np.ndarray] | None:
    """The body-frame box (least corner, most corner) that holds ``part``'s plates: the
    hull's as they stand, the turret's at any heading of the turret (turned about the
    body's z axis round ``turret_pivot_m``); None for a part with no plates."""
    plates = part_plates(layout, part)
    if not plates:
        return None
    points = _corners(plates)
    if part == "hull":
        return points.min(axis=0), points.max(axis=0)
    reach_m = float(np.hypot(points[:, 0], points[:, 1]).max())
    pivot = np.asarray(turret_pivot_m, dtype=float)
    return (pivot + (-reach_m, -reach_m, points[:, 2].min()),
            pivot + (reach_m, reach_m, points[:, 2].max()))


def swept_bounds(layout: PlateLayout, turret_pivot_m) -> tuple[np.ndarray, np.ndarray] | None:
    """The body-frame box (least corner, most corner) that holds every hull plate and every
    turret plate at any heading of the turret (:func:`part_bounds` of both); None for a
    layout with no plates."""
    corners = [corner for part in ("hull", "turret")
               for corner in part_bounds(layout, part, turret_pivot_m) or ()]
    if not corners:
        return None
    stacked = np.array(corners)
    return stacked.min(axis=0), stacked.max(axis=0)
