"""A bot's push away from what is solid nearby: every rock, vehicle and edge of the map
closer than its avoidance radius pushes it away, stronger the closer it is; and a rock in
its way ahead turns it aside. One compiled call a look round (numpy's cost is per call;
these are a few dozen points).

A tank turns on the spot within the circle its hull's corners sweep. Two whose circles
overlap, side by side, would each pivot into the other, stand wedged and back off into
the same again; so a bot that needs to turn with another vehicle that close first drives
straight out along its hull, the way that takes it from the other
(:func:`way_out_of_pivot`), and turns once clear.

Pushed only away, a bot driving at a rock just off its line is pushed mostly back, a
little aside, and meets the rock at speed; so a rock whose centre the line ahead of the
hull passes closer than the rock's clearance (its reach, the hull's half width and room to
spare) pushes the bot across that line, to the side away from the rock, stronger the
nearer the line passes: as hard at the avoidance radius as close by, so that a tank at
speed, which turns slowly, starts turning while it has the room."""

from __future__ import annotations

import math

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


@compiled_stage
def closest_within_s(offset_x: float, offset_y: float, closing_x: float, closing_y: float,
                     ahead_s: float) -> float:
    """When, from now to ``ahead_s`` on, a point at ``offset`` from here and moving at
    ``closing`` relative to here comes closest (0 for one at rest relative to here)."""
    speed_squared = closing_x * closing_x + closing_y * closing_y
    if speed_squared == 0.0:
        return 0.0
    time_s = -(offset_x * closing_x + offset_y * closing_y) / speed_squared
    return ahead_s if time_s > ahead_s else (time_s if time_s > 0.0 else 0.0)


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
    ``velocities_xy``, (V, 2) each) pushes from where it will be, as seen from where this
    one (moving at ``own_velocity``) will be, when the two come closest within ``ahead_s``
    (:func:`closest_within_s`): ``position + (velocity - own_velocity) * time`` (``ahead_s``
    0: from where they are). Not from where they will be at ``ahead_s`` itself: two
    closing head on would then, nearer than their closing speed times ``ahead_s``, see
    the other already past and be pushed into it. In one call, without the arrays of
    those points that numpy would make for every bot at every look."""
    rocks_x, rocks_y = _push_from_points(here_x, here_y, rocks_xy, radius_m)
    round_x, round_y = _push_round_rocks(here_x, here_y, rocks_xy, rock_clearances_m,
                                         heading_x, heading_y, radius_m)
    rocks_x, rocks_y = rocks_x + round_x, rocks_y + round_y
    vehicles_x = vehicles_y = 0.0
    for vehicle in range(vehicles_xy.shape[0]):
        point_x, point_y = vehicles_xy[vehicle, 0], vehicles_xy[vehicle, 1]
        closing_x = velocities_xy[vehicle, 0] - own_velocity_x
        closing_y = velocities_xy[vehicle, 1] - own_velocity_y
        time_s = closest_within_s(point_x - here_x, point_y - here_y, closing_x, closing_y,
                                  ahead_s)
        away_x, away_y = _push_from_point(here_x, here_y, point_x + closing_x * time_s,
                                          point_y + closing_y * time_s, radius_m)
        vehicles_x += away_x
        vehicles_y += away_y
    edges_x, edges_y = _push_from_edges(here_x, here_y, edge_x, edge_y, radius_m)
    return rocks_x + vehicles_x + edges_x, rocks_y + vehicles_y + edges_y


@compiled_loop
def way_out_of_pivot(here_x: float, here_y: float, forward_x: float, forward_y: float,
                     pivot_radius_m: float, vehicles_xy: np.ndarray,
                     pivot_radii_m: np.ndarray) -> float:
    """The way along its hull (``forward``) out of the nearest vehicle's turning circle:
    +1 ahead, -1 back, away from it; 0 with none overlapping its own (each vehicle at
    ``vehicles_xy`` (V, 2) turns within ``pivot_radii_m`` (V,); one right here, itself,
    counts for nothing)."""
    nearest_m, way = np.inf, 0.0
    for vehicle in range(vehicles_xy.shape[0]):
        away_x, away_y = here_x - vehicles_xy[vehicle, 0], here_y - vehicles_xy[vehicle, 1]
        gap_m = np.hypot(away_x, away_y)
        if 0.0 < gap_m < min(nearest_m, pivot_radius_m + pivot_radii_m[vehicle]):
            nearest_m = gap_m
            way = 1.0 if away_x * forward_x + away_y * forward_y >= 0.0 else -1.0
    return way


class Surroundings:
    """What one bot keeps clear of, gathered again only when it changes: the rocks, each
    with the clearance it passes one in its way by (its reach, the bot's hull's half width
    and ``spare_m``), and every vehicle's turning circle."""

    def __init__(self, radius_m: float, ahead_s: float, spare_m: float):
        """``radius_m``: what is nearer pushes; ``ahead_s``: other vehicles push from where
        they come closest within this long (:func:`avoidance_push`)."""
        self.radius_m, self.ahead_s, self.spare_m = radius_m, ahead_s, spare_m
        self._rocks: tuple[int, np.ndarray, np.ndarray] | None = None
        """The rocks' revision, their places (R, 2) and clearances (R,)."""
        self._pivots: tuple[int, np.ndarray] | None = None
        """The roster's revision, and each vehicle's turning radius (V,)."""

    def look(self, simulation, me, here_x: float, here_y: float
             ) -> tuple[tuple[float, float], float]:
        """For ``me`` at ``here``: the push (:func:`avoidance_push`) and the way out of
        another's turning circle (:func:`way_out_of_pivot`)."""
        revision = simulation.arena.rocks_revision
        if self._rocks is None or self._rocks[0] != revision:  # rocks never move
            rocks = simulation.rocks
            self._rocks = (revision,
                           np.array([rock.position_ws[:2] for rock in rocks]).reshape(-1, 2),
                           np.array([rock.reach_m for rock in rocks], dtype=float).reshape(-1)
                           + (float(me.spec.hull.half_extents_m[0]) + self.spare_m))
        if self._pivots is None or self._pivots[0] != simulation.roster_revision:
            self._pivots = (simulation.roster_revision, np.array(
                [pivot_radius_m(vehicle.spec.hull) for vehicle in simulation.vehicles]))
        terrain = simulation.terrain
        # Every vehicle, this one too: its own gap stays zero, which pushes nowhere.
        positions_xy, velocities_xy = simulation.vehicle_motion_xy()
        own_x, own_y = me.current.velocity_ws[:2].tolist()
        forward_x, forward_y, _ = me.current.axes_ws()[1].tolist()
        level = math.hypot(forward_x, forward_y) or 1.0  # the hull's way on the ground
        forward_x, forward_y = forward_x / level, forward_y / level
        _, rocks_xy, clearances_m = self._rocks
        push = avoidance_push(here_x, here_y, rocks_xy, clearances_m, forward_x, forward_y,
                              positions_xy, velocities_xy, self.ahead_s, own_x, own_y,
                              terrain.half_extent_x_m, terrain.half_extent_y_m, self.radius_m)
        return push, way_out_of_pivot(here_x, here_y, forward_x, forward_y,
                                      pivot_radius_m(me.spec.hull), positions_xy,
                                      self._pivots[1])


def pivot_radius_m(hull) -> float:
    """How far a hull's corners reach from its middle: it turns on the spot within this."""
    return math.hypot(float(hull.half_extents_m[0]), float(hull.half_extents_m[1]))
