"""Where a battle's two sides start: on opposite sides of the map's middle, each in a line
abreast facing the other, so a round opens with an approach.

The axis between the sides is one of ``bearings`` compass bearings: the one along which the
ground hides the most of the sight lines between the two sides' places (a dune's crest
between them; the first bearing, the bots to the north, on a tie), so each side starts
behind cover rather than in the other's sights. Each side's front line stands
``sides_apart_m / 2`` from the middle (less where the map is smaller), its tanks
``spacing_m`` apart, the first in the middle of the line and the rest by turns to its right
and left; a side wider than the map stands in rows behind its front line. A place too near
a rock is passed over for the next.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Iterator, NamedTuple

import numpy as np

from common.spec import Spec, tuning
from game.sim.spotting import sight_clear

RockGaps = Callable[[float, float], float]
"""The gap (m) from a point (x, y) on the ground to the edge of the nearest rock."""


@dataclass(frozen=True)
class OpeningSpec(Spec):
    sides_apart_m: float = tuning("the two sides' front lines start this far apart, across "
                                  "the map's middle (less on a map too small)", minimum=40.0,
                                  maximum=8000.0)
    spacing_m: float = tuning("between neighbours in a side's line, and between its rows where "
                              "one line does not fit on the map", minimum=8.0, maximum=200.0)
    bearings: int = tuning("compass bearings tried for the axis between the sides", minimum=1,
                           maximum=64)
    sight_height_m: float = tuning("the sight lines between the sides are judged this high "
                                   "above the ground at both ends (a tank's gun)", minimum=0.5,
                                   maximum=10.0)
    sight_step_m: float = tuning("... tested against the ground this often", minimum=0.5,
                                 maximum=50.0)
    rock_clearance_m: float = tuning("no tank starts nearer than this to a rock's edge",
                                     minimum=0.0, maximum=50.0)


class Side(NamedTuple):
    """One side's front line: its middle (x, y), the unit vector along it to the right of a
    tank in it, the unit vector back (away from the other side) and the heading its tanks
    face (compass degrees, toward the other side)."""

    front_xy: tuple[float, float]
    right_xy: tuple[float, float]
    back_xy: tuple[float, float]
    heading_deg: float


class Opening(NamedTuple):
    """The two sides' lines for a battle."""

    players: Side
    bots: Side
    middle_xy: tuple[float, float]


def plan_opening(spec: OpeningSpec, terrain, middle_xy, edge_margin_m: float,
                 rock_gap: RockGaps, bots: int) -> Opening:
    """The sides' lines round ``middle_xy`` on ``terrain`` (no place nearer its edges than
    ``edge_margin_m``), along the bearing with the most cover between the player's place
    and the first ``bots`` places of the bots' side."""
    limit_x = terrain.half_extent_x_m - edge_margin_m
    limit_y = terrain.half_extent_y_m - edge_margin_m
    best, best_blocked = None, -1
    for bearing in range(spec.bearings):
        opening = _opening_along(spec, 360.0 * bearing / spec.bearings, middle_xy,
                                 limit_x, limit_y)
        player = next(side_places(spec, opening.players, limit_x, limit_y, rock_gap))
        blocked = sum(not _in_sight(spec, terrain, player, place)
                      for place in _first(side_places(spec, opening.bots, limit_x, limit_y,
                                                      rock_gap), bots))
        if blocked > best_blocked:
            best, best_blocked = opening, blocked
    assert best is not None  # bearings >= 1
    return best


def side_places(spec: OpeningSpec, side: Side, limit_x: float, limit_y: float,
                rock_gap: RockGaps) -> Iterator[tuple[float, float]]:
    """A side's places, in the order its tanks take them: along its front line from the
    middle, by turns to the right and the left, then the rows behind; each on the map
    (within ``limit_x``, ``limit_y`` of its middle) and clear of the rocks. Endless: the
    rows go back until they leave the map, then the places already given are given again
    (too many tanks for the map stand where others do, as a crowded ring did)."""
    given: list[tuple[float, float]] = []
    for row in range(_rows_on_map(spec, side, limit_x, limit_y)):
        front_x = side.front_xy[0] + side.back_xy[0] * spec.spacing_m * row
        front_y = side.front_xy[1] + side.back_xy[1] * spec.spacing_m * row
        low, high = _span(front_x, front_y, side.right_xy, limit_x, limit_y)
        for step in _steps_from_middle(int(math.floor(high / spec.spacing_m)),
                                       int(math.floor(-low / spec.spacing_m))):
            x = front_x + side.right_xy[0] * spec.spacing_m * step
            y = front_y + side.right_xy[1] * spec.spacing_m * step
            if rock_gap(x, y) >= spec.rock_clearance_m:
                given.append((x, y))
                yield x, y
    if not given:  # every place by a rock: the front line's middle
        given.append(side.front_xy)
    while True:
        yield from given


def _opening_along(spec: OpeningSpec, bearing_deg: float, middle_xy, limit_x: float,
                   limit_y: float) -> Opening:
    """The sides with the bots toward ``bearing_deg`` from the middle and the players away
    from it, each front line as far out as half the sides' distance and the map allow."""
    bearing = math.radians(bearing_deg)
    toward_x, toward_y = math.sin(bearing), math.cos(bearing)
    middle_x, middle_y = float(middle_xy[0]), float(middle_xy[1])

    def side(sign: float) -> Side:
        out_x, out_y = sign * toward_x, sign * toward_y
        reach_m = min(spec.sides_apart_m / 2.0, _reach(middle_x, middle_y, out_x, out_y,
                                                       limit_x, limit_y))
        heading = math.degrees(math.atan2(-out_x, -out_y)) % 360.0
        # Facing (-out), the right hand points (-out_y, out_x).
        return Side((middle_x + out_x * reach_m, middle_y + out_y * reach_m),
                    (-out_y, out_x), (out_x, out_y), heading)
    return Opening(side(-1.0), side(1.0), (middle_x, middle_y))


def _reach(x: float, y: float, direction_x: float, direction_y: float, limit_x: float,
           limit_y: float) -> float:
    """How far from (x, y) along a unit direction the map (|x| <= limit_x, |y| <= limit_y)
    goes (0 from a point off it)."""
    reach = math.inf
    for position, direction, limit in ((x, direction_x, limit_x), (y, direction_y, limit_y)):
        if direction > 0.0:
            reach = min(reach, (limit - position) / direction)
        elif direction < 0.0:
            reach = min(reach, (-limit - position) / direction)
    return max(reach, 0.0)


def _span(x: float, y: float, along_xy, limit_x: float, limit_y: float
          ) -> tuple[float, float]:
    """How far back (negative) and forward along a unit direction from (x, y) the map
    goes."""
    return (-_reach(x, y, -along_xy[0], -along_xy[1], limit_x, limit_y),
            _reach(x, y, along_xy[0], along_xy[1], limit_x, limit_y))


def _rows_on_map(spec: OpeningSpec, side: Side, limit_x: float, limit_y: float) -> int:
    """How many rows, a spacing apart, fit from the side's front line back to the map's
    edge (at least the front line)."""
    back_m = _reach(side.front_xy[0], side.front_xy[1], side.back_xy[0], side.back_xy[1],
                    limit_x, limit_y)
    return 1 + int(math.floor(back_m / spec.spacing_m))


def _steps_from_middle(right: int, left: int) -> Iterator[int]:
    """0, then 1, -1, 2, -2, ...: as far as ``right`` steps to the right and ``left`` to the
    left."""
    yield 0
    for step in range(1, max(right, left) + 1):
        if step <= right:
            yield step
        if step <= left:
            yield -step


def _first(places: Iterator[tuple[float, float]], count: int) -> list[tuple[float, float]]:
    return [next(places) for _ in range(count)]


def _in_sight(spec: OpeningSpec, terrain, from_xy, to_xy) -> bool:
    """Whether the ground leaves the line between two places, at sight height above the
    ground at each, open."""
    def eye(xy) -> np.ndarray:
        ground_m = float(terrain.height_at(xy[0], xy[1]))
        return np.array([xy[0], xy[1], ground_m + spec.sight_height_m])
    return sight_clear(terrain, eye(from_xy), eye(to_xy), spec.sight_step_m)
