"""A bot's push away from what is near (rocks, vehicles, the map's edges): each within the
avoidance radius pushes it away, stronger the closer, as the documented sum; its own
place pushes nowhere; nothing beyond the radius counts."""

from __future__ import annotations

import numpy as np
import pytest

from game.sim.avoidance import avoidance_push

RADIUS_M = 20.0
EDGE_M = 256.0


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
    push = np.array(avoidance_push(0.0, 0.0, rocks, here, EDGE_M, EDGE_M, RADIUS_M))
    assert push == pytest.approx([-(1.0 - 5.0 / RADIUS_M), 0.0], abs=1e-12)


def test_the_near_edge_pushes_inward():
    push = avoidance_push(EDGE_M - 4.0, 0.0, np.zeros((0, 2)), np.zeros((0, 2)), EDGE_M,
                           EDGE_M, RADIUS_M)
    assert push[0] == pytest.approx(-(1.0 - 4.0 / RADIUS_M)) and push[1] == 0.0


@pytest.mark.parametrize("seed", range(5))
def test_the_push_is_the_sum_of_every_near_thing(seed):
    rng = np.random.default_rng(seed)
    here = rng.uniform(EDGE_M - 30.0, EDGE_M - 1.0, 2) * rng.choice([-1.0, 1.0], 2)
    rocks = here + rng.uniform(-30.0, 30.0, (12, 2))
    vehicles = np.vstack([here, here + rng.uniform(-30.0, 30.0, (6, 2))])
    edges = np.array([[EDGE_M, here[1]], [-EDGE_M, here[1]], [here[0], EDGE_M],
                      [here[0], -EDGE_M]])
    push = avoidance_push(float(here[0]), float(here[1]), rocks, vehicles, EDGE_M, EDGE_M,
                           RADIUS_M)
    expected = reference_push(here, np.vstack([rocks, vehicles, edges]))
    assert np.linalg.norm(expected) > 0.0
    assert push == pytest.approx(expected, abs=1e-12)
