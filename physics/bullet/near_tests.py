"""Which of a fleet's vehicles may meet a body besides the terrain (another of its
vehicles, a rock, a crate, a shell's target) in the coming step: the fleet casts those
vehicles' rays through Bullet (:mod:`physics.bullet.fleet`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from physics.bullet.obstacles import Obstacles
from physics.model.anchors import BodyStates
from physics.model.broadphase import in_pairs, pairs_within, sphere_pairs
from physics.model.fleet_survey import survey

_NEAR_TEST_SLACK_M = 2.0
"""Room added to the vehicles' reach when testing who is near what, so the test holds for
as long as everyone stays within half of it (a few steps at full speed). More room: fewer
tests, but more vehicles cast Bullet rays they do not need. Cost only, not behaviour."""


@dataclass
class _NearTest:
    """Which vehicles were near each other or a static obstacle, with ``room_m`` to spare."""

    positions_ws: np.ndarray
    room_m: float
    near: np.ndarray
    links: np.ndarray
    """(L, 2) each vehicle near a body, by index: another vehicle (both ways round), or
    a static obstacle (the vehicles' count on)."""


class NearTests:
    """The near test of one fleet's vehicles, kept while it holds."""

    def __init__(self) -> None:
        self._test: _NearTest | None = None

    def forget(self) -> None:
        """The vehicles or the static obstacles changed: test afresh next time."""
        self._test = None

    def survey(self, states: BodyStates) -> tuple[np.ndarray, float, float]:
        """Each body's speed along its hull, the fastest speed, and how far the bodies
        strayed from where the test was made (:func:`survey`)."""
        test = self._test
        return survey(states.position_ws, states.velocity_ws, states.axes_ws,
                      None if test is None else test.positions_ws)

    def near(self, centres: np.ndarray, within_s: float, fastest_mps: float, strayed_m: float,
             reach_m: float, obstacles: Obstacles
             ) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray]]:
        """Per vehicle (centres (V, 3)): could any ray, each within ``reach_m`` of its
        vehicle's centre, meet something other than the terrain in the next ``within_s``
        seconds? Each body may close in at its present speed (at most ``fastest_mps``).
        With it, the links (L, 2) of each vehicle to the bodies it could meet (another
        vehicle, both ways round, or one of the ``obstacles``, the vehicles' count on), and
        the bounding spheres of the obstacles, the moving ones' grown by their travel.

        The test against the other vehicles and the static obstacles is made with room to
        spare (:data:`_NEAR_TEST_SLACK_M`) and kept while no vehicle has strayed, by the end
        of this stretch, more than half that room from where it was made (``strayed_m`` is
        the farthest any has strayed so far); moving obstacles are looked at every time.
        Each test sorts the vehicles or the obstacles into a grid, or measures every pair
        where there are few (:mod:`physics.model.broadphase`): its cost grows with the
        count, not its square.
        """
        own_travel_m = fastest_mps * within_s
        test = self._test
        if test is not None and (len(test.positions_ws) != len(centres)
                                 or strayed_m + own_travel_m > test.room_m / 2.0):
            test = None
        if test is None:
            room_m = max(_NEAR_TEST_SLACK_M, 2.0 * own_travel_m)
            pairs = pairs_within(centres, 2.0 * reach_m + room_m)
            blocks = [pairs, pairs[:, ::-1]]
            static_radii = obstacles.static_radii
            if len(static_radii):
                blocks.append(sphere_pairs(centres, obstacles.static_centres, reach_m
                                           + room_m / 2.0 + static_radii)
                              + (0, len(centres)))
            links = np.concatenate(blocks)
            test = self._test = _NearTest(centres, room_m,
                                               in_pairs(links[:, 0], len(centres)), links)
        others = obstacles.spheres(within_s)
        if not obstacles.moving:
            return test.near, test.links, others
        static = len(obstacles.static_radii)
        moving_centres, moving_radii = others[0][static:], others[1][static:]
        moving = (sphere_pairs(centres, moving_centres,
                               reach_m + moving_radii + own_travel_m)
                  + (0, len(centres) + static))
        return (test.near | in_pairs(moving[:, 0], len(centres)),
                np.concatenate([test.links, moving]), others)
