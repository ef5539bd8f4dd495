"""A bot's push away from what is solid nearby: every rock, vehicle and edge of the map
closer than its avoidance radius pushes it away, stronger the closer it is; and a rock in
its way ahead turns it aside. One compiled call a look round (numpy's cost is per call;
these are a few dozen points).

Pushed only away, a bot driving at a rock just off its line is pushed mostly back, a
little aside, and meets the rock at speed; so a rock whose centre the line ahead of the
hull passes closer than the rock's clearance (its reach, the hull's half width and room to
spare) pushes the bot across that line, to the side away from the rock, stronger the
nearer the line passes: as hard at the avoidance radius as close by, so that a tank at
speed, which turns slowly, starts turning while it has the room."""

from __future__ import annotations

import numpy as np

from common.compiled import compiled_loop, compiled_stage


@compiled_stage
def _push_from_point(here_x: float, here_y: float, point_x: float, point_y: float,
                     radius_m: float) -> tuple[float, float]:
    """The avoidance push from one point closer than ``radius_m``: away from it, stronger
    the closer it is (a point right here pushes nowhere)."""
    away_x, away_y = here_x - point_x, here_y - point_y
    gap_m = np.hypot(away_x, away_y)
    if 0.0 < gap_m < radius_m:
        weight = (1.0 - gap_m / radius_m) / gap_m
        return away_x * weight, away_y * weight
    return 0.0, 0.0


@compiled_loop
def _push_from_points(here_x: float, here_y: float, points_xy: np.ndarray, radius_m: float
                      ) -> tuple[float, float]:
    """The avoidance push from every point (N, 2): the sum of each one's."""
    push_x = push_y = 0.0
    for point in range(points_xy.shape[0]):
        away_x, away_y = _push_from_point(here_x, here_y, points_xy[point, 0],
                                          points_xy[point, 1], radius_m)
        push_x += away_x
        push_y += away_y
    return push_x, push_y


@compiled_stage
def _push_from_edges(here_x: float, here_y: float, edge_x: float, edge_y: float,
                     radius_m: float) -> tuple[float, float]:
    """The push from the nearest point of each of the map's four edges (|x| = ``edge_x``,
    |y| = ``edge_y``), summed."""
    edges_x = edges_y = 0.0
    for point_x, point_y in ((edge_x, here_y), (-edge_x, here_y), (here_x, edge_y),
                             (here_x, -edge_y)):
        away_x, away_y = _push_from_point(here_x, here_y, point_x, point_y, radius_m)
        edges_x += away_x
        edges_y += away_y
    return edges_x, edges_y


@compiled_loop
def _push_round_rocks(here_x: float, here_y: float, rocks_xy: np.ndarray,
                      clearances_m: np.ndarray, heading_x: float, heading_y: float,
                      radius_m: float) -> tuple[float, float]:
    """The push across the line ahead (unit ``heading``) from every rock closer along it
    than ``radius_m`` whose centre the line passes closer than its clearance: toward the
    side away from it (the right, for one dead ahead), by 1 - offset / clearance, summed."""
    push_x = push_y = 0.0
    for rock in range(rocks_xy.shape[0]):
        to_x, to_y = rocks_xy[rock, 0] - here_x, rocks_xy[rock, 1] - here_y
        ahead_m = to_x * heading_x + to_y * heading_y
        offset_m = heading_x * to_y - heading_y * to_x  # + the rock is on the left
        clearance_m = clearances_m[rock]
        if 0.0 < ahead_m < radius_m and abs(offset_m) < clearance_m:
            strength = 1.0 - abs(offset_m) / clearance_m
            side = 1.0 if offset_m >= 0.0 else -1.0  # to the right of the heading: (y, -x)
            push_x += side * heading_y * strength
            push_y -= side * heading_x * strength
    return push_x, push_y


@compiled_loop
def avoidance_push(here_x: float, here_y: float, rocks_xy: np.ndarray,
                   rock_clearances_m: np.ndarray, heading_x: float, heading_y: float,
                   vehicles_xy: np.ndarray, velocities_xy: np.ndarray, ahead_s: float,
                   own_velocity_x: float, own_velocity_y: float, edge_x: float,
                   edge_y: float, radius_m: float) -> tuple[float, float]:
    """The push away from the rocks (and across the line ahead, unit ``heading``, from
    those in the way: :func:`_push_round_rocks` with ``rock_clearances_m``), the
    vehicles and the nearest point of each of the map's four edges (|x| = ``edge_x``,
    |y| = ``edge_y``), summed in that order. Each vehicle (at ``vehicles_xy``, moving at
    ``velocities_xy``, (V, 2) each) pushes from where it will be ``ahead_s`` on, as seen
    from where this one (moving at ``own_velocity``) will be: ``position + velocity *
    ahead_s - own_velocity * ahead_s``, as numpy forms it (``ahead_s`` 0: from where they
    are). In one call, without the arrays of those points that numpy would make for every
    bot at every look."""
    rocks_x, rocks_y = _push_from_points(here_x, here_y, rocks_xy, radius_m)
    round_x, round_y = _push_round_rocks(here_x, here_y, rocks_xy, rock_clearances_m,
                                         heading_x, heading_y, radius_m)
    rocks_x, rocks_y = rocks_x + round_x, rocks_y + round_y
    own_x, own_y = own_velocity_x * ahead_s, own_velocity_y * ahead_s
    vehicles_x = vehicles_y = 0.0
    for vehicle in range(vehicles_xy.shape[0]):
        away_x, away_y = _push_from_point(
            here_x, here_y, (vehicles_xy[vehicle, 0] + velocities_xy[vehicle, 0] * ahead_s)
            - own_x, (vehicles_xy[vehicle, 1] + velocities_xy[vehicle, 1] * ahead_s) - own_y,
            radius_m)
        vehicles_x += away_x
        vehicles_y += away_y
    edges_x, edges_y = _push_from_edges(here_x, here_y, edge_x, edge_y, radius_m)
    return rocks_x + vehicles_x + edges_x, rocks_y + vehicles_y + edges_y


