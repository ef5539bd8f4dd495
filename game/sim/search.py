"""Looking for a lost target: where a bot drives when it has not seen its target for a while.

A bot knows roughly where its enemy is (it circles it, closes in on it), but it fires only
at what it sees, and on the dunes a crest between the two can hide each from the other for
as long as they keep the same distance. So a bot that has not seen its target for
``after_s`` looks for a vantage point: of the points on a few rings round it, those from
which the line to the target's hull clears the ground and the target is within spotting
range, it drives to the one that costs the least — the way there, plus how far the target
would be outside fighting distance from it, and there stops and watches (a point that
gives no view after all is not tried again). With no such point in reach it closes in on
the target itself, until it sees it or comes within ``nearest_m``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from common.spec import Spec, tuning
from game.sim.spotting import SpottingSpec, clear_views, hull_middle_ws, spotting_range_m
from physics.model.ballistics import muzzle_ws


@dataclass(frozen=True)
class SearchSpec(Spec):
    after_s: float = tuning("a bot that has not seen its target this long (or since it "
                            "started) goes looking for it", minimum=0.0, maximum=600.0)
    vantage_rings_m: tuple[float, ...] = tuning(
        "it looks for a point with a clear view of the target on rings this far round it",
        minimum=1.0, maximum=1000.0, length=(1, 16))
    vantage_bearings: int = tuning("... at this many bearings on each ring", minimum=1,
                                   maximum=360)
    rethink_s: float = tuning("it checks its vantage point (and chooses another when the view "
                              "from it is lost) this often", minimum=0.05, maximum=60.0)
    arrive_m: float = tuning("within this of its vantage point it stops and watches; if it "
                             "sees nothing there for rethink_s, it chooses another",
                             minimum=0.5, maximum=100.0)
    spoiled_radius_m: float = tuning("... not within this of one that gave no view (until it "
                                     "sees the target again)", minimum=0.0, maximum=1000.0)
    nearest_m: float = tuning("with no vantage point in reach it closes in on the target, "
                              "but no nearer than this", minimum=5.0, maximum=2000.0)


@dataclass(frozen=True)
class SearchGoal:
    """Where a searching bot drives: ``point_xy``, and it stops within ``stop_within_m``."""

    point_xy: np.ndarray
    stop_within_m: float
    vantage: bool
    """A vantage point (False: the target itself)."""


def ring_points(here_xy, radii_m, bearings: int) -> np.ndarray:
    """Points (N, 2) on rings of ``radii_m`` round ``here_xy``, ``bearings`` on each."""
    angles = np.arange(bearings) * (math.tau / bearings)
    rings = np.asarray(radii_m, dtype=float)[:, None, None] * np.stack(
        [np.sin(angles), np.cos(angles)], axis=-1)[None]
    return (np.asarray(here_xy, dtype=float) + rings).reshape(-1, 2)


def viewing_points(terrain, candidates_xy: np.ndarray, eye_height_m: float, target_ws,
                   reach_m: float, spotting: SpottingSpec) -> np.ndarray:
    """Which of the points (N, 2) a viewer standing there, its eye ``eye_height_m`` above
    the ground, would spot a target at ``target_ws`` from: within ``reach_m``, with a
    clear line over the ground."""
    candidates = np.asarray(candidates_xy, dtype=float).reshape(-1, 2)
    eyes = np.empty((len(candidates), 3))  # filled in place: column_stack costs more
    eyes[:, :2] = candidates
    eyes[:, 2] = terrain.height_at(candidates[:, 0], candidates[:, 1]) + eye_height_m
    in_range = np.linalg.norm(eyes - np.asarray(target_ws, dtype=float), axis=1) <= reach_m
    return in_range & clear_views(terrain, eyes, target_ws, spotting.sight_step_m,
                                  spotting.sight_clearance_m)


def vantage_costs(candidates_xy: np.ndarray, here_xy, target_xy, near_m: float,
                  far_m: float) -> np.ndarray:
    """What each candidate costs: the way there plus how far the target would lie outside
    fighting distance (``near_m`` .. ``far_m``) from it."""
    travel = np.linalg.norm(candidates_xy - np.asarray(here_xy, dtype=float), axis=1)
    apart = np.linalg.norm(candidates_xy - np.asarray(target_xy, dtype=float), axis=1)
    return travel + np.maximum(0.0, near_m - apart) + np.maximum(0.0, apart - far_m)


class Search:
    """One bot's search: the vantage point it drives to, kept while the view from it holds."""

    def __init__(self, spec: SearchSpec, spotting: SpottingSpec, near_m: float, far_m: float,
                 edge_margin_m: float):
        """``near_m`` .. ``far_m``: the bot's fighting distance; ``edge_margin_m``: vantage
        points are at least this far inside the map's edges."""
        self.spec = spec
        self.spotting = spotting
        self._near_m, self._far_m, self._edge_margin_m = near_m, far_m, edge_margin_m
        self._vantage_xy: np.ndarray | None = None
        self._checked_at_s = -math.inf
        self._arrived_at_s: float | None = None
        """When it reached its vantage point (None: it is not there)."""
        self._spoiled_xy: list[np.ndarray] = []
        """Vantage points that gave no view, this search."""
        self._vantage_goal: SearchGoal | None = None
        """The goal of the vantage point held, made once for the steps it is held."""

    def forget(self) -> None:
        """The target is in sight again: the next search starts afresh."""
        self._vantage_xy = None
        self._checked_at_s = -math.inf
        self._arrived_at_s = None
        self._spoiled_xy.clear()

    def goal(self, simulation, me, target) -> SearchGoal:
        """Where to drive now: the vantage point (chosen anew every ``rethink_s`` once the
        view from it is lost, or once it has watched from it that long and seen nothing),
        or with none in reach the target itself."""
        now_s = simulation.time_s
        self._watch(now_s, me.current.position_ws[:2])
        if now_s - self._checked_at_s >= self.spec.rethink_s:
            self._checked_at_s = now_s
            self._vantage_xy = self._choose(simulation, me, target)
        vantage = self._vantage_xy
        if vantage is None:
            return SearchGoal(target.current.position_ws[:2].copy(), self.spec.nearest_m, False)
        if self._vantage_goal is None or self._vantage_goal.point_xy is not vantage:
            self._vantage_goal = SearchGoal(vantage, self.spec.arrive_m, True)
        return self._vantage_goal

    def _watch(self, time_s: float, here_xy: np.ndarray) -> None:
        """Give up a vantage point it has watched from for ``rethink_s`` and seen nothing."""
        vantage = self._vantage_xy
        if vantage is None or math.dist(here_xy.tolist(), vantage.tolist()) >= self.spec.arrive_m:
            self._arrived_at_s = None
            return
        if self._arrived_at_s is None:
            self._arrived_at_s = time_s
        elif time_s - self._arrived_at_s >= self.spec.rethink_s:
            self._spoiled_xy.append(vantage)
            self._vantage_xy = None
            self._arrived_at_s = None
            self._checked_at_s = -math.inf

    def _choose(self, simulation, me, target) -> np.ndarray | None:
        """The vantage point that costs least (the one held, while its view holds)."""
        terrain = simulation.terrain
        here = me.current.position_ws[:2]
        muzzle = muzzle_ws(me.current, me.spec.gun, me.aim)
        eye_height_m = float(muzzle[2] - terrain.height_at(here[0], here[1]))
        middle = hull_middle_ws(target)
        reach_m = spotting_range_m(self.spotting, target, simulation.time_s, me)
        held = self._vantage_xy
        if held is not None and viewing_points(terrain, held[None], eye_height_m, middle,
                                               reach_m, self.spotting)[0]:
            return held
        candidates = ring_points(here, self.spec.vantage_rings_m, self.spec.vantage_bearings)
        limit = np.array([terrain.half_extent_x_m, terrain.half_extent_y_m]) - self._edge_margin_m
        keep = np.all(np.abs(candidates) <= limit, axis=1)
        for spoiled in self._spoiled_xy:
            keep &= np.linalg.norm(candidates - spoiled, axis=1) > self.spec.spoiled_radius_m
        candidates = candidates[keep]
        viewing = candidates[viewing_points(terrain, candidates, eye_height_m, middle, reach_m,
                                            self.spotting)]
        if not len(viewing):
            return None
        costs = vantage_costs(viewing, here, middle[:2], self._near_m, self._far_m)
        return viewing[int(np.argmin(costs))]
