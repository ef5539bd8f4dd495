"""The streams' compiled loop (game/view/effects/emission_kernel.py) makes the very particles the
numpy path does from the same seed: the same draws, in the same order, the same sums; and
the dust's (game/view/effects/dust_kernel.py) the very streams, frame after frame."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

import game.view.effects.effects as effects_module
import game.view.effects.emission as emission
from game.view.effects.dust_kernel import dust_streams_loop
from game.view.effects.effects import Effects
from game.view.effects.emission import EmitterTable, emit_streams
from game.view.effects.emission_kernel import stream_particles_loop
from game.view.effects.particles import ParticleSystem

DIRECTIONS = np.array([[0.0, 0.0, 1.0],      # up
                       [1.0, 0.0, 0.0],      # along +x: crossed with +y
                       [0.0, 0.0, 0.0],      # none: stands for up
                       [-0.3, 2.0, 0.7],
                       [0.95, -0.2, 0.1]])
ANCHORS = 12
FRAMES_S = (1 / 60, 1 / 30, 0.0, 1 / 144, 1 / 60, 0.05)
"""The dust's frames, of these lengths: their streams' fractions carry over."""


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


class _Wheels:
    """A vehicle the dust reads through ``anchors()`` (as a network client's): random
    anchors, some on the ground, some sliding, at a speed from standing to fast."""

    def __init__(self, name: str, rng: np.random.Generator, speed_mps: float):
        self.name = name
        direction = rng.normal(size=3)
        self.current = SimpleNamespace(velocity_ws=direction / np.linalg.norm(direction)
                                       * speed_mps)
        normals = rng.normal(size=(ANCHORS, 3)) + (0.0, 0.0, 3.0)
        self._anchors = SimpleNamespace(
            on_ground=rng.random(ANCHORS) < 0.8, sliding=rng.random(ANCHORS) < 0.4,
            contact_point_ws=rng.normal(0.0, 20.0, (ANCHORS, 3)),
            contact_normal_ws=normals / np.linalg.norm(normals, axis=1)[:, None])

    def anchors(self):
        return self._anchors


def _dust_made(config, speeds_mps) -> tuple[np.ndarray, dict]:
    rng = np.random.default_rng(4)
    vehicles = [_Wheels(f"v{index}", rng, speed) for index, speed in enumerate(speeds_mps)]
    effects = Effects(SimpleNamespace(vehicles=vehicles, time_s=0.0), config.view.effects,
                      seed=9)
    for frame_s in FRAMES_S:
        effects.update(frame_s)
    return effects.particles._state[:effects.particles.count].copy(), dict(effects.counts)


@pytest.mark.skipif(dust_streams_loop is None, reason="numba is not available here")
def test_the_compiled_dust_is_the_numpy_dust(config, monkeypatch):
    speeds_mps = (0.0, 1.0, 4.0, 9.0, 30.0)
    compiled, compiled_counts = _dust_made(config, speeds_mps)
    monkeypatch.setattr(effects_module, "dust_streams_loop", None)
    plain, plain_counts = _dust_made(config, speeds_mps)
    assert plain_counts["track_dust"] > 0 and plain_counts["slide_dust"] > 0
    assert compiled_counts == plain_counts
    np.testing.assert_allclose(compiled, plain, rtol=1e-12, atol=1e-12)
