"""The streams' compiled loop (game/view/emission_kernel.py) makes the very particles the
numpy path does from the same seed: the same draws, in the same order, the same sums."""

from __future__ import annotations

import numpy as np
import pytest

import game.view.emission as emission
from game.view.emission import EmitterTable, emit_streams
from game.view.emission_kernel import stream_particles_loop
from game.view.particles import ParticleSystem

DIRECTIONS = np.array([[0.0, 0.0, 1.0],      # up
                       [1.0, 0.0, 0.0],      # along +x: crossed with +y
                       [0.0, 0.0, 0.0],      # none: stands for up
                       [-0.3, 2.0, 0.7],
                       [0.95, -0.2, 0.1]])


def _emitted(config, seed: int) -> np.ndarray:
    effects = config.view.effects
    table = EmitterTable({"sparks": effects.sparks, "wreck_smoke": effects.wreck_smoke,
                          "track_dust": effects.track_dust, "debris": effects.debris})
    system = ParticleSystem(capacity=4000)
    rng = np.random.default_rng(seed)
    points = rng.normal(0.0, 30.0, (len(DIRECTIONS), 3))
    base = rng.normal(0.0, 4.0, (len(DIRECTIONS), 3))
    emit_streams(system, rng, table, [0, 1, 2, 3, 1], [40, 0, 25, 300, 7], points,
                 DIRECTIONS, base)
    emit_streams(system, rng, table, [3], [1], points[:1], DIRECTIONS[:1], base[:1])
    return system._state[:system.count].copy()


@pytest.mark.skipif(stream_particles_loop is None, reason="numba is not available here")
@pytest.mark.parametrize("seed", [1, 2])
def test_the_compiled_streams_are_the_numpy_streams(config, monkeypatch, seed):
    compiled = _emitted(config, seed)
    monkeypatch.setattr(emission, "stream_particles_loop", None)
    plain = _emitted(config, seed)
    assert len(compiled) == 40 + 25 + 300 + 7 + 1
    assert np.array_equal(compiled, plain)
