"""Batched emission: every stream of a frame spawned in one call, each with its own
emitter's looks and cone, the same for the same seed; streams carry their fractions of a
particle from frame to frame; the effects spawn a frame's dust and smoke in one call."""

from __future__ import annotations

import numpy as np
import pytest

from game.sim.battle import Battle
from game.sim.controls import Controls
from game.sim.simulation import Simulation
from game.view.effects.effects import Effects
from game.view.effects.emission import EmitterTable, StreamCarry, emit_streams
from game.view.effects.particles import ParticleSystem
from physics.model.terrain import MapChoice


@pytest.fixture
def table(config):
    effects = config.view.effects
    return EmitterTable({"sparks": effects.sparks, "wreck_smoke": effects.wreck_smoke})


def _emit(table, seed: int, counts=(300, 200)) -> ParticleSystem:
    system = ParticleSystem(capacity=1000)
    rng = np.random.default_rng(seed)
    points = np.array([[0.0, 0.0, 0.0], [50.0, 0.0, 10.0]])
    directions = np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])
    base = np.array([[0.0, 0.0, 0.0], [0.0, 5.0, 0.0]])
    emit_streams(system, rng, table, [0, 1], counts, points, directions, base)
    return system


def test_one_call_spawns_every_stream_with_its_own_emitter(table, config):
    sparks, smoke = config.view.effects.sparks, config.view.effects.wreck_smoke
    system = _emit(table, 1)
    assert system.count == 500
    first, second = slice(0, 300), slice(300, 500)
    assert np.all(system.glow[first] == 1.0) and np.all(system.glow[second] == 0.0)
    np.testing.assert_allclose(system.size[first], np.tile(sparks.size_m, (300, 1)))
    np.testing.assert_allclose(system.colour1[second], np.tile(smoke.colour_end, (200, 1)))
    assert np.all((system.life[first] >= sparks.life_s[0])
                  & (system.life[first] <= sparks.life_s[1]))
    # Each leaves round its own direction, inside its own cone, plus its base velocity.
    sideways = system.velocity[second] - np.array([0.0, 5.0, 0.0])
    cosines = sideways[:, 0] / np.linalg.norm(sideways, axis=1)
    assert cosines.min() >= np.cos(np.radians(smoke.spread_deg)) - 1e-5
    speeds = np.linalg.norm(system.velocity[first], axis=1)
    assert speeds.min() >= sparks.speed_mps[0] - 1e-3
    assert speeds.max() <= sparks.speed_mps[1] + 1e-3
    ups = system.velocity[first][:, 2] / speeds
    assert ups.min() >= np.cos(np.radians(sparks.spread_deg)) - 1e-5
    # Jitter round each stream's own point.
    assert abs(system.position[second][:, 0].mean() - 50.0) < 1.0


def test_the_same_seed_gives_the_same_particles(table):
    a, b, c = _emit(table, 7), _emit(table, 7), _emit(table, 8)
    assert np.array_equal(a.position[:a.count], b.position[:b.count])
    assert np.array_equal(a.velocity[:a.count], b.velocity[:b.count])
    assert not np.array_equal(a.position[:a.count], c.position[:c.count])


def test_a_stream_with_nothing_due_spawns_nothing(table):
    system = _emit(table, 1, counts=(0, 0))
    assert system.count == 0 and system.spawned_total == 0


def test_streams_carry_their_fractions_and_keep_them_across_layouts():
    carry = StreamCarry()
    layout = (("a", 2), ("b", 1))
    rates = np.array([0.25, 0.5, 2.0])  # particles this frame
    made = sum(carry.due(layout, rates, np.ones(3, bool)) for _ in range(8))
    assert made.tolist() == [2, 4, 16]  # 8 frames of a quarter, a half and two
    carry.due(layout, np.array([0.75, 0.0, 0.0]), np.array([True, False, False]))
    kept = carry.carry.copy()
    assert kept[0] == pytest.approx(0.75)
    # "b" goes and "c" comes: "a" keeps its fractions, "c" starts from none.
    carry.due((("c", 1), ("a", 2)), np.zeros(3), np.zeros(3, bool))
    np.testing.assert_allclose(carry.carry, [0.0, kept[0], kept[1]])
    # An inactive stream keeps its fraction.
    due = carry.due((("c", 1), ("a", 2)), np.full(3, 0.5), np.array([True, False, True]))
    assert due.tolist() == [0, 0, 0] and carry.carry[1] == pytest.approx(kept[0])


def test_a_frame_of_dust_from_every_vehicle_is_one_spawn(config):
    simulation = Simulation(config.world, MapChoice.parse("flat"), 2)
    Battle(simulation, config.game.battle, config.game.ai, 3)
    try:
        effects = Effects(simulation, config.view.effects, seed=1)
        calls = []
        spawn = effects.particles.spawn
        effects.particles.spawn = lambda *args, **kw: calls.append(1) or spawn(*args, **kw)
        drive = Controls(throttle=1.0, steer=0.5)
        for _ in range(150):  # every vehicle drives off, turning
            simulation.step(drive, {vehicle.name: drive for vehicle in simulation.vehicles
                                    if vehicle is not simulation.player})
        raising = [vehicle for vehicle in simulation.vehicles
                   if np.linalg.norm(vehicle.current.velocity_ws)
                   > config.view.effects.dust_min_speed_mps]
        assert len(raising) > 1
        before = effects.counts["track_dust"] + effects.counts["slide_dust"]
        for _ in range(10):
            calls.clear()
            effects.update(1.0 / 60.0)
            assert len(calls) <= 1
        assert effects.counts["track_dust"] + effects.counts["slide_dust"] > before
    finally:
        simulation.destroy()
