"""The particle system and the effects the simulation's events spawn.

Behavioural: counts stay bounded however long bursts go on; every particle dies
after its life; each event makes the right bursts (counted by ``Effects.counts``);
moving vehicles raise dust from the anchors' reports.
"""

from __future__ import annotations

import numpy as np
import pytest
from panda3d.core import GeomVertexReader, NodePath

from game.sim.battle import Battle
from game.sim.controls import Controls
from game.sim.events import Destroyed, Hit, Shot
from game.sim.simulation import Simulation
from game.view.effects.effects import Effects
from game.view.effects.emission import cone_directions_many
from game.view.effects.particles import ParticleSystem
from physics.model.terrain import MapChoice


def _burst(system: ParticleSystem, rng, n: int, life=(0.2, 1.5)) -> None:
    system.spawn(rng.normal(0.0, 1.0, (n, 3)), rng.normal(0.0, 3.0, (n, 3)),
                 rng.uniform(*life, n), (0.5, 2.0), (1, 1, 1, 1), (1, 1, 1, 0), 0.5, 1.0)


def test_spawning_ageing_and_recycling_keep_the_count_bounded_over_a_long_run():
    rng = np.random.default_rng(3)
    system = ParticleSystem(capacity=400)
    peak = 0
    for step in range(3000):  # 50 s at 60 Hz, a burst every step: far more than fits
        _burst(system, rng, int(rng.integers(0, 40)))
        system.update(1.0 / 60.0)
        peak = max(peak, system.count)
        assert 0 <= system.count <= system.capacity
    assert peak == system.capacity
    assert system.dropped_total > 0, "the capacity was never reached: the test proves nothing"
    assert np.all(np.isfinite(system.position[:system.count]))
    for _ in range(120):  # 2 s with no spawns: every particle outlives its life
        system.update(1.0 / 60.0)
    assert system.count == 0


def test_a_full_system_makes_room_by_dropping_the_oldest():
    system = ParticleSystem(capacity=10)
    system.spawn(np.zeros((8, 3)), np.zeros((8, 3)), 5.0, (1, 1), (1, 0, 0, 1), (1, 0, 0, 1))
    system.spawn(np.ones((5, 3)), np.zeros((5, 3)), 5.0, (1, 1), (0, 1, 0, 1), (0, 1, 0, 1))
    assert system.count == 10 and system.dropped_total == 3
    # The newest five are all there, after the five oldest survivors.
    assert np.all(system.position[5:10] == 1.0)
    assert np.all(system.position[:5] == 0.0)


def test_a_sorted_system_keeps_its_draw_order_and_still_drops_the_oldest():
    """Drawn back to front, the particles are kept in that order (the next sort starts
    nearly done); a full system still drops the oldest, wherever they are drawn."""
    system = ParticleSystem(capacity=6, sort_back_to_front=True)
    for height_m in (1.0, 2.0, 3.0, 10.0, 20.0, 30.0):  # the nearest born first
        system.spawn([[0.0, 0.0, height_m]], [[0.0, 0.0, 0.0]], 5.0, (1, 1), (1, 1, 1, 1),
                     (1, 1, 1, 1))
        system.update(0.1)
    rows = system.vertex_rows(eye_ws=(0.0, 0.0, 0.0))
    assert rows[:, 2].tolist() == [30.0, 20.0, 10.0, 3.0, 2.0, 1.0]
    assert system.position[:6, 2].tolist() == [30.0, 20.0, 10.0, 3.0, 2.0, 1.0]
    system.spawn([[0.0, 0.0, 40.0]] * 2, np.zeros((2, 3)), 5.0, (1, 1), (1, 1, 1, 1),
                 (1, 1, 1, 1))
    assert system.dropped_total == 2
    assert sorted(system.position[:6, 2].tolist()) == [3.0, 10.0, 20.0, 30.0, 40.0, 40.0]


def test_particles_move_age_fade_and_fall_in_one_pass():
    system = ParticleSystem(capacity=4)
    system.spawn([[0, 0, 10]], [[0, 0, 0]], 1.0, (1.0, 3.0), (1, 1, 1, 1), (1, 1, 1, 0),
                 0.0, -9.81)
    for _ in range(30):
        system.update(1.0 / 60.0)
    assert system.position[0, 2] < 10.0 - 0.5 * 9.81 * 0.5 ** 2 * 0.9
    rows = system.vertex_rows()
    assert rows.shape == (1, 9)
    assert rows[0, 6] == pytest.approx(0.5, abs=0.02)   # alpha half way to 0
    assert rows[0, 7] == pytest.approx(2.0, abs=0.05)   # size half way from 1 to 3


def _drawn_geometry(system: ParticleSystem) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What the GPU draws: the position and corner of every vertex the triangles reach (the
    vertex array may hold rows past them, kept for the next frames), and the triangles."""
    geom = system.node.getGeom(0)
    data = geom.getVertexData()
    positions, corners = [], []
    for column, values in (("vertex", positions), ("corner", corners)):
        reader = GeomVertexReader(data, column)
        while not reader.isAtEnd():
            values.append(tuple(reader.getData3() if column == "vertex" else reader.getData2()))
    triangles = geom.getPrimitive(0).getVertexList()
    reached = len(triangles) // 6 * 4  # four corners a quad, two triangles
    assert len(positions) >= reached
    return np.array(positions[:reached]).reshape(-1, 3), \
        np.array(corners[:reached]).reshape(-1, 2), np.array(triangles)


def test_drawing_gives_each_live_particle_a_quad_and_follows_the_count():
    system = ParticleSystem(capacity=8, parent=NodePath("scene"))
    system.spawn([[1, 2, 3], [4, 5, 6], [7, 8, 9]], np.zeros((3, 3)), [0.05, 1.0, 1.0],
                 (1.0, 1.0), (1, 1, 1, 1), (1, 1, 1, 0), 0.0, 0.0)
    for frame in range(2):  # the second draw of the same count rewrites only the vertices
        system.draw()
        positions, corners, triangles = _drawn_geometry(system)
        assert positions.shape == (12, 3) and triangles.shape == (18,)
        assert positions[::4] == pytest.approx(np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]]))
        assert np.array_equal(positions[0::4], positions[3::4])  # four corners, one point
        assert {tuple(corner) for corner in corners[:4]} == {(-1, -1), (1, -1), (1, 1), (-1, 1)}
        assert set(triangles[:6]) == {0, 1, 2, 3} and triangles.max() == 11
    system.update(0.1)  # the first particle's life is over: the others move down a slot
    system.draw()
    positions, _, triangles = _drawn_geometry(system)
    assert positions.shape == (8, 3) and triangles.shape == (12,) and triangles.max() == 7
    assert positions[::4] == pytest.approx(np.array([[4, 5, 6], [7, 8, 9]]))
    system.update(5.0)  # all gone
    system.draw()
    positions, _, triangles = _drawn_geometry(system)
    assert len(positions) == 0 and len(triangles) == 0


def test_cone_directions_stay_inside_their_cone():
    rng = np.random.default_rng(1)
    count = 2000
    directions = cone_directions_many(rng, [(0.0, 0.0, 2.0)],
                                      np.full(count, np.cos(np.radians(30.0))),
                                      np.zeros(count, np.int64))
    assert np.allclose(np.linalg.norm(directions, axis=1), 1.0)
    assert directions[:, 2].min() >= np.cos(np.radians(30.0)) - 1e-9


@pytest.fixture
def battle(config):
    simulation = Simulation(config.world, MapChoice.parse("flat"), 2)
    battle = Battle(simulation, config.game.battle, config.game.ai, 1)
    for _ in range(10):
        simulation.step(Controls())
    yield simulation, battle
    simulation.destroy()


def test_events_spawn_the_right_effects(battle, config):
    simulation, _ = battle
    effects = Effects(simulation, config.view.effects, seed=1)
    player = simulation.player
    bot = next(v for v in simulation.vehicles if v is not player)
    effects.on_events([Shot(player.name)])
    assert effects.counts["muzzle_flash"] == 1 and effects.counts["muzzle_smoke"] == 1
    spawned = effects.particles.count
    assert spawned == (config.view.effects.muzzle_flash.count
                       + config.view.effects.muzzle_smoke.count)
    # Metal (a tank) gives sparks; the ground gives sand.
    effects.on_events([Hit(player.name, bot.name, tuple(bot.current.position_ws), (0, -1, 0),
                           1200.0)])
    assert effects.counts["sparks"] == 1 and effects.counts["sand_burst"] == 0
    effects.on_events([Hit(player.name, "terrain", (0, 50, 0), (0, 0, 1), 1200.0)])
    assert effects.counts["sand_burst"] == 1 and effects.counts["sand_clods"] == 1
    assert effects.counts["impact_flash"] == 2
    # The simulation's own events for a tank destroyed: explosion, debris, smoke; then
    # the wreck keeps smoking.
    events = simulation.damage(bot, 1e9, player)
    assert any(isinstance(event, Destroyed) for event in events)
    effects.on_events(events)
    for name in ("explosion", "debris", "smoke_column"):
        assert effects.counts[name] == 1, name
    assert effects.smoking_wrecks == [bot.name]
    effects.update(1.0, streams=True)
    assert effects.counts["wreck_smoke"] >= config.view.effects.wreck_smoke.count * 0.9
    assert effects.particles.count <= config.view.effects.capacity


def test_quality_scales_the_bursts(battle, config):
    simulation, _ = battle
    effects = Effects(simulation, config.view.effects, seed=1, quality="low")
    effects.on_events([Shot(simulation.player.name)])
    full = config.view.effects.muzzle_flash.count + config.view.effects.muzzle_smoke.count
    assert 0 < effects.particles.count < full


def test_moving_vehicles_raise_dust_and_standing_ones_do_not(battle, config):
    simulation, _ = battle
    effects = Effects(simulation, config.view.effects, seed=1)
    for _ in range(30):
        effects.update(1.0 / 60.0)
    assert effects.counts["track_dust"] == 0
    for _ in range(150):
        simulation.step(Controls(throttle=1.0))
    assert simulation.player.current.forward_speed_mps() > config.view.effects.dust_min_speed_mps
    for _ in range(60):
        effects.update(1.0 / 60.0)
    assert effects.counts["track_dust"] > 0


def test_dust_reads_the_anchors_of_the_vehicles_in_the_game_after_one_leaves(battle, config):
    simulation, _ = battle
    effects = Effects(simulation, config.view.effects, seed=1)
    simulation.step(Controls(throttle=1.0))
    effects.update(1.0 / 60.0)  # the vehicles' runs gathered, then one leaves
    simulation.remove(simulation.vehicles[1])
    simulation.step(Controls(throttle=1.0))
    anchors, rows = effects._anchor_rows()
    assert anchors.vehicles == simulation.vehicles
    assert [name for name, _ in anchors.layout] == [vehicle.name
                                                    for vehicle in simulation.vehicles]
    assert np.array_equal(np.bincount(anchors.owner), anchors.per_vehicle)
    wanted = np.concatenate([vehicle.fleet.model.report.contact_point_ws[vehicle.index]
                             for vehicle in simulation.vehicles])
    assert np.array_equal(rows["contact_point_ws"], wanted)
    effects.update(1.0 / 60.0)  # and the streams' carries follow the new layout
