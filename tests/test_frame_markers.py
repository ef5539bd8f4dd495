"""The enemy markers placed all at once (game.view.draw.view_projection.places_on_overlay)
are placed as one at a time (place_on_overlay) places each: in view, off its edges,
behind the camera and straight above or below the eye."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from game.view.draw.view_projection import ARRAYS_FROM_POINTS, place_on_overlay, places_on_overlay

TANGENTS = (math.tan(math.radians(40.0)), math.tan(math.radians(25.0)))
ASPECT = 16.0 / 9.0
MARGIN = 0.08


def test_all_at_once_is_one_at_a_time():
    random = np.random.default_rng(11)
    points = np.concatenate([
        random.normal(0.0, 40.0, (400, 3)),                      # every way round the eye
        random.normal(0.0, 2.0, (50, 3)) + (0.0, 60.0, 0.0),     # well inside the view
        [(0.0, 0.0, 30.0), (0.0, 0.0, -30.0), (0.0, -1e-12, 5.0), (0.0, 0.0, 0.0),
         (10.0, 0.0, 0.0), (-10.0, -5.0, 0.0), (0.0, -20.0, 0.0),  # above, below, behind
         (0.0, 40.0, 0.0)]])                                       # dead ahead
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no sum along the way is 0 x inf
        xs, ys, on_screen, toward = places_on_overlay(points, TANGENTS, ASPECT, MARGIN)
    for index, point in enumerate(points.tolist()):
        one = place_on_overlay(point, TANGENTS, ASPECT, MARGIN)
        assert (xs[index], ys[index], on_screen[index]) == (one.x, one.y, one.on_screen)
        # numpy's arctan2 and the C library's atan2 may round the last bit apart.
        assert toward[index] == pytest.approx(one.toward_rad, rel=0.0, abs=1e-12)
    assert any(on_screen) and not all(on_screen)


def test_few_points_are_placed_alike():
    points = np.random.default_rng(12).normal(0.0, 40.0, (ARRAYS_FROM_POINTS - 1, 3))
    few = places_on_overlay(points, TANGENTS, ASPECT, MARGIN)
    many = places_on_overlay(np.tile(points, (2, 1)), TANGENTS, ASPECT, MARGIN)
    assert few[:3] == tuple(values[:len(points)] for values in many[:3])
    assert few[3] == pytest.approx(many[3][:len(points)], rel=0.0, abs=1e-12)  # atan2's last bit


def test_nothing_to_place():
    assert places_on_overlay(np.zeros((0, 3)), TANGENTS, ASPECT, MARGIN) == ([], [], [], [])
