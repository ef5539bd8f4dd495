"""The particles' compiled quad loop (game/view/effects/particle_kernel.py) writes the very vertex
rows the numpy path does: sorted far to near from an eye, and unsorted; its sort puts the
rows in numpy's order, equally far ones too; and its ageing loop retires and moves them as
the numpy path does."""

from __future__ import annotations

import numpy as np
import pytest
from panda3d.core import NodePath

import game.view.effects.particles as particles
from game.view.effects.particle_kernel import age_and_move_loop, quad_rows_loop, take_rows_loop

COUNT = 1500
CAPACITY = 4000
EYE_WS = (3.0, -40.0, 5.0)


def panda_rows(geom) -> np.ndarray:
    """The rows of the particles' vertex array in Panda's memory, as float32 columns."""
    return np.frombuffer(memoryview(geom.getVertexData().getArray(0)).cast("B"),
                         dtype=np.float32).reshape(-1, particles._VERTEX_ROW_FLOATS)


def drawn_rows(system: particles.ParticleSystem, eye_ws) -> np.ndarray:
    system.draw(eye_ws)
    return panda_rows(system.node.getGeom(0))[:system.count * 4].copy()


@pytest.mark.skipif(quad_rows_loop is None, reason="numba is not available here")
@pytest.mark.parametrize("sort_back_to_front", [True, False])
def test_the_compiled_quads_are_the_numpy_quads(monkeypatch, sort_back_to_front):
    random = np.random.default_rng(3)
    system = particles.ParticleSystem(CAPACITY, NodePath("render"),
                                      sort_back_to_front=sort_back_to_front)
    system.spawn(random.normal(size=(COUNT, 3)) * 20.0, random.normal(size=(COUNT, 3)),
                 random.uniform(0.5, 3.0, COUNT), (0.3, 2.0), (1.0, 0.5, 0.2, 0.9),
                 (0.2, 0.2, 0.2, 0.0), 0.5, 0.3, random.uniform(size=COUNT) > 0.5)
    system.update(0.4)  # some age, none dies
    compiled = drawn_rows(system, EYE_WS)
    if sort_back_to_front:  # drawn, the rows are kept in the order drawn: far first
        offsets = system.position[:COUNT] - np.float32(EYE_WS)
        distances = np.einsum("ij,ij->i", offsets, offsets)
        assert (np.diff(distances) <= 0.0).all()
    monkeypatch.setattr(particles, "quad_rows_loop", None)
    assert np.array_equal(compiled, drawn_rows(system, EYE_WS))
    assert system.count == COUNT


def sorted_states(eyes_ws) -> list[np.ndarray]:
    """The particles' states after a sort from each of ``eyes_ws`` in turn: on a grid of
    whole metres, so that many are equally far from an eye."""
    random = np.random.default_rng(5)
    system = particles.ParticleSystem(CAPACITY, sort_back_to_front=True)
    system.spawn(np.round(random.normal(size=(COUNT, 3)) * 4.0), random.normal(size=(COUNT, 3)),
                 random.uniform(0.5, 3.0, COUNT), (0.3, 2.0), (1.0, 0.5, 0.2, 0.9),
                 (0.2, 0.2, 0.2, 0.0))
    system.age[:COUNT] = np.arange(COUNT)  # every row told apart
    states = []
    for eye_ws in eyes_ws:
        system.vertex_rows(eye_ws)
        states.append(system._state[:system.count].copy())
    return states


@pytest.mark.skipif(take_rows_loop is None, reason="numba is not available here")
def test_the_compiled_sort_puts_the_rows_in_numpys_order(monkeypatch):
    eyes_ws = [EYE_WS, (0.0, 0.0, 0.0), (0.5, 0.5, 0.5), (-30.0, 12.0, 2.0)]
    compiled = sorted_states(eyes_ws)
    assert len(np.unique(compiled[1][:, 0:3], axis=0)) < COUNT  # some rows share a place
    monkeypatch.setattr(particles, "take_rows_loop", None)
    for compiled_state, numpy_state in zip(compiled, sorted_states(eyes_ws), strict=True):
        assert np.array_equal(compiled_state, numpy_state)


def aged_states(frames_s) -> list[np.ndarray]:
    """The live particles' states after each of ``frames_s``, new ones spawned between."""
    random = np.random.default_rng(8)
    system = particles.ParticleSystem(CAPACITY)
    states = []
    for frame_s in frames_s:
        count = int(random.integers(50, 400))
        system.spawn(random.normal(size=(count, 3)) * 20.0, random.normal(size=(count, 3)),
                     random.uniform(0.05, 1.0, count), (0.3, 2.0), (1.0, 0.5, 0.2, 0.9),
                     (0.2, 0.2, 0.2, 0.0), random.uniform(0.0, 3.0, count),
                     random.uniform(-2.0, 2.0, count))
        system.update(frame_s)
        states.append(system._state[:system.count].copy())
    return states


@pytest.mark.skipif(age_and_move_loop is None, reason="numba is not available here")
def test_the_compiled_ageing_retires_and_moves_as_numpy_does(monkeypatch):
    frames_s = (1 / 60, 0.3, 0.0, 1 / 144, 0.5, 1 / 30, 2.0)
    compiled = aged_states(frames_s)
    monkeypatch.setattr(particles, "age_and_move_loop", None)
    plain = aged_states(frames_s)
    assert 0 < len(plain[1]) < len(plain[0]) + 400, "some died, some lived"
    assert len(plain[-1]) < len(plain[-2])
    for got, wanted in zip(compiled, plain):
        assert got.shape == wanted.shape
        np.testing.assert_array_equal(got[:, 6:], wanted[:, 6:])  # ages and looks exactly
        np.testing.assert_allclose(got[:, :6], wanted[:, :6], rtol=1e-6, atol=1e-5)


def test_a_count_that_varies_a_little_leaves_the_vertex_array_its_size():
    """Resizing Panda's vertex array copies it: a count that changes every frame by a few
    particles resizes it only when it grows past what is held (or falls far below)."""
    system = particles.ParticleSystem(CAPACITY, NodePath("scene"))
    rng = np.random.default_rng(4)
    sizes = []
    for frame in range(60):
        count = int(rng.integers(1, 40))
        system.spawn(rng.normal(0.0, 5.0, (count, 3)), np.zeros((count, 3)),
                     rng.uniform(0.05, 0.5, count), (0.5, 1.0), (1, 1, 1, 1), (1, 1, 1, 0))
        system.update(1.0 / 60.0)
        system.draw(EYE_WS)
        data = system.node.getGeom(0).getVertexData()
        assert data.getNumRows() >= system.count * 4
        assert len(system.node.getGeom(0).getPrimitive(0).getVertexList()) == system.count * 6
        sizes.append(data.getNumRows())
    assert len(set(sizes)) <= 2, "resized again and again"
    system.update(10.0)  # all gone: nothing is drawn
    system.draw(EYE_WS)
    assert len(system.node.getGeom(0).getPrimitive(0).getVertexList()) == 0


def test_drawing_writes_in_place_under_a_held_geom():
    """Once drawn, a geom is held by the last frame's cull: the next frame's rows and
    triangles are written into that same geom, its vertex data and its arrays (writing
    through the node's modify calls would copy all three, the whole vertex array too)."""
    system = particles.ParticleSystem(CAPACITY, NodePath("scene"))
    rng = np.random.default_rng(5)
    held = system.node.getGeom(0)  # as the cull keeps it, read only
    for count in (30, 45, 12):
        system.spawn(rng.normal(0.0, 5.0, (count, 3)), np.zeros((count, 3)), 1.0, (0.5, 1.0),
                     (1, 1, 1, 1), (1, 1, 1, 0))
        system.update(1.0 / 60.0)
        system.draw(EYE_WS)
        wanted = np.repeat(system.vertex_rows(), 4, axis=0)  # each row at its four corners
        corners = np.tile(particles._CORNERS, (system.count, 1))
        assert np.array_equal(panda_rows(held)[:system.count * 4],
                              np.hstack([wanted, corners]))
        assert held.getPrimitive(0).getNumVertices() == system.count * 6
