"""A bot's push away from what is near (rocks, vehicles, the map's edges): each within the
avoidance radius pushes it away, stronger the closer, as the documented sum; its own
place pushes nowhere; nothing beyond the radius counts."""

from __future__ import annotations

import numpy as np
import pytest
from panda3d.core import Vec3

from game.sim.avoidance import avoidance_push
from game.sim.simulation import Simulation
from physics.model.terrain import MapChoice

RADIUS_M = 20.0
EDGE_M = 256.0


def still_push(here_x, here_y, rocks, vehicles, edge_x, edge_y, radius_m, heading=(0.0, 1.0),
               clearance_m=0.0):
    """The push with every vehicle standing where it is (none moving, nothing ahead), the
    hull facing ``heading`` and every rock's clearance ``clearance_m`` (0: none is in the
    way, whatever it faces)."""
    return avoidance_push(here_x, here_y, rocks, np.full(len(rocks), clearance_m), *heading,
                          vehicles, np.zeros_like(vehicles), 0.0, 0.0, 0.0, edge_x, edge_y,
                          radius_m)


def reference_push(here, points) -> np.ndarray:
    """Each point closer than the radius (and not right here) pushes away from it by
    (1 - gap / radius) in the direction away."""
    push = np.zeros(2)
    for point in points:
        away = np.asarray(here, dtype=float) - point
        gap = np.hypot(*away)
        if 0.0 < gap < RADIUS_M:
            push += away / gap * (1.0 - gap / RADIUS_M)
    return push


def test_a_rock_ahead_pushes_back_and_a_far_one_does_not():
    rocks = np.array([[5.0, 0.0], [100.0, 100.0]])
    here = np.zeros((1, 2))  # the bot itself, among the vehicles: no push
    push = np.array(still_push(0.0, 0.0, rocks, here, EDGE_M, EDGE_M, RADIUS_M))
    assert push == pytest.approx([-(1.0 - 5.0 / RADIUS_M), 0.0], abs=1e-12)


def test_the_near_edge_pushes_inward():
    push = still_push(EDGE_M - 4.0, 0.0, np.zeros((0, 2)), np.zeros((0, 2)), EDGE_M, EDGE_M,
                      RADIUS_M)
    assert push[0] == pytest.approx(-(1.0 - 4.0 / RADIUS_M)) and push[1] == 0.0


@pytest.mark.parametrize("seed", range(5))
def test_the_push_is_the_sum_of_every_near_thing(seed):
    rng = np.random.default_rng(seed)
    here = rng.uniform(EDGE_M - 30.0, EDGE_M - 1.0, 2) * rng.choice([-1.0, 1.0], 2)
    rocks = here + rng.uniform(-30.0, 30.0, (12, 2))
    vehicles = np.vstack([here, here + rng.uniform(-30.0, 30.0, (6, 2))])
    edges = np.array([[EDGE_M, here[1]], [-EDGE_M, here[1]], [here[0], EDGE_M],
                      [here[0], -EDGE_M]])
    push = still_push(float(here[0]), float(here[1]), rocks, vehicles, EDGE_M, EDGE_M,
                      RADIUS_M)
    expected = reference_push(here, np.vstack([rocks, vehicles, edges]))
    assert np.linalg.norm(expected) > 0.0
    assert push == pytest.approx(expected, abs=1e-12)


def test_two_tanks_closing_head_on_push_each_other_aside_while_there_is_room(config):
    """40 m apart, closing at 14 m/s, just off each other's line: from where they are
    (beyond the avoidance radius) nothing pushes; from where they will be ``avoid_ahead_s``
    on (as a bot looks), each pushes the other back and off the line."""
    simulation = Simulation(config.world, MapChoice.parse("flat"), seed=1, player_vehicle=None)
    north = simulation.spawn("tank", "north", 2.0, 20.0, 180.0)
    south = simulation.spawn("tank", "south", 0.0, -20.0, 0.0)
    north.body.setLinearVelocity(Vec3(0.0, -7.0, 0.0))
    south.body.setLinearVelocity(Vec3(0.0, 7.0, 0.0))
    for vehicle in (north, south):
        vehicle.record_state()
    ahead_s, radius_m = config.game.ai.avoid_ahead_s, config.game.ai.avoid_radius_m
    assert ahead_s > 0.0
    here_x, here_y = south.current.position_ws[:2].tolist()
    no_rocks = np.zeros((0, 2))
    far_edges = 1e6
    now = still_push(here_x, here_y, no_rocks, simulation.vehicle_positions_xy(), far_edges,
                     far_edges, radius_m)
    assert now == (0.0, 0.0)
    positions, velocities = simulation.vehicle_motion_xy()
    seen = positions + velocities * ahead_s - south.current.velocity_ws[:2] * ahead_s
    push_x, push_y = still_push(here_x, here_y, no_rocks, seen, far_edges, far_edges, radius_m)
    own_x, own_y = south.current.velocity_ws[:2].tolist()
    assert avoidance_push(here_x, here_y, no_rocks, np.zeros(0), 0.0, 1.0, positions,
                          velocities, ahead_s, own_x, own_y, far_edges, far_edges,
                          radius_m) == (push_x, push_y)
    assert push_y < 0.0, "not pushed back from the tank closing on it"
    assert push_x < 0.0, "not pushed off the line, away from the other's side"
    simulation.destroy()


def test_a_rock_in_the_way_turns_the_bot_aside_away_from_its_side():
    """Facing +Y, a rock 8 m ahead and 1 m to the left, 5 m of clearance: pushed back from
    it as before, and across the way to the right by 1 - 1/5; one just to the right pushes
    to the left; one dead ahead to the right."""
    here = np.zeros((1, 2))
    for rock_x, side in ((-1.0, 1.0), (1.0, -1.0), (0.0, 1.0)):
        rocks = np.array([[rock_x, 8.0]])
        push = np.array(still_push(0.0, 0.0, rocks, here, EDGE_M, EDGE_M, RADIUS_M,
                                   clearance_m=5.0))
        across = side * (1.0 - abs(rock_x) / 5.0)
        assert push == pytest.approx(reference_push((0.0, 0.0), rocks) + (across, 0.0),
                                     abs=1e-12)


@pytest.mark.parametrize("rock", [(6.0, 8.0), (1.0, -8.0), (0.5, 30.0)])
def test_a_rock_off_the_way_behind_or_beyond_the_radius_only_pushes_away(rock):
    """Out of the clearance to the side, behind the hull, or further than the radius: the
    rock pushes as any rock does, nothing across."""
    rocks = np.array([rock])
    push = still_push(0.0, 0.0, rocks, np.zeros((1, 2)), EDGE_M, EDGE_M, RADIUS_M,
                      clearance_m=5.0)
    assert push == pytest.approx(reference_push((0.0, 0.0), rocks), abs=1e-12)


def test_the_way_ahead_is_the_hulls_heading_turned_any_way():
    """The same rock and hull turned together by 130 degrees: the push turns with them."""
    turn = np.radians(130.0)
    rotation = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])
    rocks = np.array([[-1.0, 8.0]])
    straight = np.array(still_push(0.0, 0.0, rocks, np.zeros((1, 2)), EDGE_M, EDGE_M,
                                   RADIUS_M, clearance_m=5.0))
    turned = np.array(still_push(0.0, 0.0, rocks @ rotation.T, np.zeros((1, 2)), EDGE_M, EDGE_M,
                                 RADIUS_M, heading=tuple(rotation @ (0.0, 1.0)),
                                 clearance_m=5.0))
    assert turned == pytest.approx(rotation @ straight, abs=1e-12)
