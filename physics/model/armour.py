"""Armour plates: a tank's hull and turret as named convex pieces with a thickness, and
which plate a shell's path strikes first, through which face.

Each plate is a convex polyhedron given by its corners (``points_m``) in its part's frame:
a hull plate in the hull's body frame (origin at the centre of mass, +X right, +Y forward,
+Z up); a turret plate in the turret's frame, whose origin is the turret ring centre (the
gun's ``turret_pivot_m``) and which turns with the turret about the body's z axis. From
the corners each plate's bounding planes (outward unit normals and offsets) are worked out
once, and a ray is cut against them by the slab method.

``thickness_mm`` is the armour a shell meets square on; the corners give the piece's
shape (where it is, which way its faces look), and its depth need not match.

Knows nothing of Panda or Bullet: rays and hits in the body frame in, the plate out.
Whether a shell then goes through, and what it breaks, is decided elsewhere.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from common.spec import Spec, SpecError, tuning

PARTS = ("hull", "turret")
"""What a plate is fixed to: the hull, or the turret (which turns)."""
MIN_POINTS, MAX_POINTS = 4, 16
"""A solid needs at least 4 corners; the brute-force hull below is for small pieces."""
TOLERANCE_M = 1e-6
"""A point this close to a plane lies on it (corners are given to the millimetre)."""
_DEGENERATE_M2 = 1e-9
"""Three corners spanning less than this (twice their triangle's area) are in a line."""
_PARALLEL = 1e-12
"""A ray whose direction meets a plane's normal less than this runs along the plane."""


@dataclass(frozen=True)
class PlateSpec(Spec):
    """One armour plate: a convex piece of the hull or turret, and its thickness."""

    name: str = tuning("what the plate is called (hits report it); unique in the tank")
    part: str = tuning("what it is fixed to: the hull, or the turret (it turns with it)",
                       choices=PARTS)
    thickness_mm: float = tuning("the armour's thickness, measured square to its face",
                                 minimum=1.0, maximum=1000.0)
    points_m: tuple[tuple[float, ...], ...] = tuning(
        "the corners of the convex piece, each [x, y, z], in its part's frame (hull: the "
        "body frame from the centre of mass; turret: from the turret ring centre, +Y along "
        "the gun); every point a corner, at least 4, at most 16", minimum=-20.0, maximum=20.0)

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.name.strip():
            raise SpecError("name", self.name, "a name that is not blank")
        if not MIN_POINTS <= len(self.points_m) <= MAX_POINTS:
            raise SpecError("points_m", self.points_m,
                            f"a list of {MIN_POINTS} to {MAX_POINTS} corners [x, y, z] "
                            "(a solid needs at least 4)")
        for index, point in enumerate(self.points_m):
            if len(point) != 3:
                raise SpecError(f"points_m[{index}]", point, "3 numbers [x, y, z]")
        self.faces  # worked out (and checked) once, here

    @cached_property
    def faces(self) -> tuple[np.ndarray, np.ndarray]:
        """The piece's bounding planes: outward unit normals (F, 3) and offsets (F,); a
        point ``p`` is inside where ``normals @ p <= offsets`` for every plane. Read-only.
        Raises SpecError naming ``points_m`` (or one point) if the corners do not make a
        convex solid with each point a corner."""
        normals, offsets = convex_faces(np.array(self.points_m, dtype=float))
        normals.setflags(write=False)
        offsets.setflags(write=False)
        return normals, offsets


def convex_faces(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The faces of the convex hull of ``points`` (N, 3) as outward unit normals and
    offsets, by brute force over every three points (fine for a few dozen). Each point must
    be a corner of the hull: SpecError(``points_m[i]``) for a repeated point or one inside
    the piece or on a face or edge of it; SpecError(``points_m``) if they all lie in one
    plane (the piece has no volume)."""
    for first, second in itertools.combinations(range(len(points)), 2):
        if np.abs(points[first] - points[second]).max() <= TOLERANCE_M:
            raise SpecError(f"points_m[{second}]", tuple(points[second].tolist()),
                            f"a corner other than points_m[{first}] (it repeats it)")
    triples = np.array(list(itertools.combinations(range(len(points)), 3)))
    a, b, c = points[triples[:, 0]], points[triples[:, 1]], points[triples[:, 2]]
    crossed = np.cross(b - a, c - a)
    sizes = np.linalg.norm(crossed, axis=1)
    spanning = sizes > _DEGENERATE_M2
    normals = crossed[spanning] / sizes[spanning, None]
    sizes = sizes[spanning]
    offsets = np.einsum("ij,ij->i", normals, a[spanning])
    heights = points @ normals.T - offsets  # (points, candidate planes)
    touching = np.abs(heights) <= TOLERANCE_M
    if not len(normals) or touching.all(axis=0).any():
        raise SpecError("points_m", tuple(tuple(point) for point in points.tolist()),
                        "the corners of a solid piece, but they all lie in one plane "
                        "(it has no thickness)")
    behind = (heights <= TOLERANCE_M).all(axis=0)
    ahead = (heights >= -TOLERANCE_M).all(axis=0)
    supporting = behind | ahead
    flip = np.where(behind, 1.0, -1.0)
    faces: dict[bytes, int] = {}
    for plane in np.flatnonzero(supporting).tolist():
        # One face per set of points lying on it: the best-conditioned triple's plane.
        key = touching[:, plane].tobytes()
        if key not in faces or sizes[plane] > sizes[faces[key]]:
            faces[key] = plane
    chosen = np.array(sorted(faces.values()))
    face_normals = normals[chosen] * flip[chosen, None]
    face_offsets = offsets[chosen] * flip[chosen]
    on_faces = touching[:, chosen]
    for index, point in enumerate(points):
        meeting = face_normals[on_faces[index]]
        if len(meeting) < 3 or np.linalg.matrix_rank(meeting, tol=1e-6) < 3:
            where = ("inside the piece" if not len(meeting) else
                     "on a face of the piece" if len(meeting) == 1 else
                     "on an edge of the piece")
            raise SpecError(f"points_m[{index}]", tuple(point.tolist()),
                            f"a corner of a convex piece, but it lies {where} (every point "
                            "must be a corner: the piece as given is not convex)")
    return face_normals, face_offsets


@dataclass(frozen=True)
class PlateLayout(Spec):
    """A tank's armour: its hull's and turret's plates (config/tanks/NAME.toml ``[plates]``)."""

    plate: tuple[PlateSpec, ...] = tuning("the plates, each name once; where two plates "
                                          "are struck at the same distance, the one "
                                          "listed first is hit", length=(1, 64))

    def __post_init__(self) -> None:
        super().__post_init__()
        seen: dict[str, int] = {}
        for index, plate in enumerate(self.plate):
            if plate.name in seen:
                raise SpecError(f"plate[{index}].name", plate.name,
                                f"a name of its own (plate[{seen[plate.name]}] has it)")
            seen[plate.name] = index

    def named(self, name: str) -> PlateSpec:
        """The plate called ``name`` (KeyError if there is none)."""
        for plate in self.plate:
            if plate.name == name:
                return plate
        raise KeyError(name)

    @cached_property
    def _parts(self) -> dict[str, _PartPlanes]:
        """Every plate's planes, stacked by part, worked out once."""
        return {part: _PartPlanes.of(self.plate, part) for part in PARTS}


@dataclass(frozen=True)
class _PartPlanes:
    """The planes of one part's plates, stacked: plate ``k``'s rows run from
    ``starts[k]`` up to the next start; ``plates[k]`` is its index in the layout."""

    plates: np.ndarray
    normals: np.ndarray
    offsets: np.ndarray
    starts: np.ndarray

    @staticmethod
    def of(plates: tuple[PlateSpec, ...], part: str) -> _PartPlanes:
        mine = [index for index, plate in enumerate(plates) if plate.part == part]
        faces = [plates[index].faces for index in mine]
        counts = [len(offsets) for _, offsets in faces]
        return _PartPlanes(
            np.array(mine, dtype=np.intp),
            np.concatenate([normals for normals, _ in faces]) if faces else np.empty((0, 3)),
            np.concatenate([offsets for _, offsets in faces]) if faces else np.empty(0),
            np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.intp) if faces
            else np.empty(0, dtype=np.intp))

    def entries(self, origin: np.ndarray, direction: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
        """Per plate: where the ray enters it (inf where it misses; below 0 where the ray
        starts inside), and each plane's entry distance (-inf for a plane the ray does not
        enter through), by the slab method."""
        if not len(self.plates):
            return np.empty(0), np.empty(0)
        facing = self.normals @ direction
        room = self.offsets - self.normals @ origin  # >= 0: the origin is behind the plane
        parallel = np.abs(facing) <= _PARALLEL
        crossing = room / np.where(parallel, 1.0, facing)
        enter = np.where(~parallel & (facing < 0.0), crossing, -np.inf)
        leave = np.where(~parallel & (facing > 0.0), crossing, np.inf)
        leave[parallel & (room < 0.0)] = -np.inf  # along a plane, outside it: never in
        enters = np.maximum.reduceat(enter, self.starts)
        leaves = np.minimum.reduceat(leave, self.starts)
        return np.where((enters <= leaves) & (leaves >= 0.0), enters, np.inf), enter


@dataclass(frozen=True, eq=False)
class PlateHit:
    """Where a ray first strikes the armour, in the hull's body frame."""

    plate: PlateSpec
    distance_m: float
    """Along the ray from its origin (0 where it starts inside the plate)."""
    point_bs: np.ndarray
    normal_bs: np.ndarray
    """Outward unit normal of the face the ray entered through."""


def turret_turn(turret_heading_rad: float) -> np.ndarray:
    """The rotation (3, 3) taking turret-frame vectors into the body frame: the turret's
    +Y (its gun) points along (sin h, cos h, 0), heading + to the right, as
    :func:`physics.model.ballistics.gun_axes` aims it."""
    cos_h, sin_h = math.cos(turret_heading_rad), math.sin(turret_heading_rad)
    return np.array([[cos_h, sin_h, 0.0], [-sin_h, cos_h, 0.0], [0.0, 0.0, 1.0]])


def first_plate(layout: PlateLayout, origin_bs, direction_bs, turret_heading_rad: float,
                turret_pivot_m) -> PlateHit | None:
    """The plate a ray from ``origin_bs`` along ``direction_bs`` (body frame; normalised
    here, so distances are in metres) strikes first, or None if it misses every plate.

    Hull plates are where their corners say; turret plates are turned by
    ``turret_heading_rad`` about the body's z axis around ``turret_pivot_m``. The plate
    whose entry is nearest (at distance >= 0) is hit; on a tie the one listed first. A ray
    that starts inside a plate strikes it at distance 0, at its origin, and the normal is
    that of the face its line entered the plate through behind the origin (as if the shell
    had come from there)."""
    origin = np.asarray(origin_bs, dtype=float)
    direction = np.asarray(direction_bs, dtype=float)
    direction = direction / np.linalg.norm(direction)
    turn = turret_turn(turret_heading_rad)
    pivot = np.asarray(turret_pivot_m, dtype=float)
    parts = layout._parts
    rays = {"hull": (origin, direction), "turret": ((origin - pivot) @ turn, direction @ turn)}
    distances = np.full(len(layout.plate), np.inf)
    planes = {}
    for part, (part_origin, part_direction) in rays.items():
        entering, planes[part] = parts[part].entries(part_origin, part_direction)
        distances[parts[part].plates] = entering
    if not len(distances) or not np.isfinite(distances.min()):
        return None
    index = int(np.argmin(np.maximum(distances, 0.0)))
    plate = layout.plate[index]
    stack = parts[plate.part]
    row = int(np.flatnonzero(stack.plates == index)[0])
    start = stack.starts[row]
    stop = stack.starts[row + 1] if row + 1 < len(stack.starts) else len(stack.offsets)
    face = start + int(np.argmax(planes[plate.part][start:stop]))
    normal = stack.normals[face]
    if plate.part == "turret":
        normal = turn @ normal
    distance_m = max(float(distances[index]), 0.0)
    return PlateHit(plate, distance_m, origin + distance_m * direction, normal.copy())


def impact_angle_deg(direction, normal) -> float:
    """The angle between a shell's path reversed and a face's outward normal, in degrees:
    0 square on, toward 90 as it glances."""
    direction = np.asarray(direction, dtype=float)
    normal = np.asarray(normal, dtype=float)
    cosine = -float(direction @ normal) / float(np.linalg.norm(direction)
                                                * np.linalg.norm(normal))
    return math.degrees(math.acos(min(1.0, max(-1.0, cosine))))
