"""The fleet's once-a-step survey of its bodies: speeds along the hulls, the fastest speed
and the farthest stray, as numpy works them out; a NaN anywhere is kept, not hidden."""

from __future__ import annotations

import numpy as np
import pytest

from physics.model.fleet_survey import survey


def random_bodies(rng, count: int):
    position = rng.uniform(-500.0, 500.0, (count, 3))
    velocity = rng.normal(0.0, 8.0, (count, 3))
    axes = np.linalg.qr(rng.normal(size=(count, 3, 3)))[0]
    return position, velocity, np.ascontiguousarray(axes)


@pytest.mark.parametrize("count", [1, 8, 100])
def test_the_survey_gives_numpys_speeds_and_extremes(count):
    rng = np.random.default_rng(count)
    position, velocity, axes = random_bodies(rng, count)
    tested = position + rng.normal(0.0, 3.0, (count, 3))
    forward, fastest, strayed = survey(position, velocity, axes, tested)
    expected = np.einsum("vi,vi->v", velocity, axes[:, 1])
    assert forward == pytest.approx(expected, rel=1e-12, abs=1e-12)
    assert fastest == pytest.approx(np.linalg.norm(velocity, axis=1).max(), rel=1e-12)
    assert strayed == pytest.approx(np.linalg.norm(position - tested, axis=1).max(), rel=1e-12)


def test_without_a_test_made_nothing_has_strayed():
    position, velocity, axes = random_bodies(np.random.default_rng(3), 5)
    assert survey(position, velocity, axes, None)[2] == 0.0
    assert survey(position, velocity, axes, position[:4])[2] == 0.0  # rows not these bodies'


@pytest.mark.parametrize("broken", [0, 3, 6])
def test_a_body_with_a_nan_makes_the_extremes_nan(broken):
    position, velocity, axes = random_bodies(np.random.default_rng(7), 7)
    tested = position.copy()
    velocity[broken, 1] = np.nan
    position[broken, 0] = np.nan
    forward, fastest, strayed = survey(position, velocity, axes, tested)
    assert np.isnan(fastest) and np.isnan(strayed)
    assert np.isnan(forward[broken]) and np.isfinite(np.delete(forward, broken)).all()
