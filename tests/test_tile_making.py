"""How a big desert's tiles are made and what shells ask of them: the compiled field and
tiles agree with numpy to the bit, each tile knows its top, and a shell flying above
every top makes no tile and gets no collider."""

from __future__ import annotations

import numpy as np
import pytest

from game.sim.simulation import Simulation
from physics.model import field_kernel
from physics.model.desert_field import DesertField
from physics.model.terrain import MapChoice

BIG = "desert:4096"
compiled_only = pytest.mark.skipif(not field_kernel.AVAILABLE, reason="numba is not here")


@pytest.fixture
def battle(config):
    simulation = Simulation(config.world, MapChoice.parse(BIG), seed=1)
    yield simulation
    simulation.destroy()


@compiled_only
@pytest.mark.parametrize("seed, size_m", [(1, 512.0), (3, 4096.0), (5, 16384.0)])
def test_the_compiled_field_gives_numpys_heights_to_the_bit(config, seed, size_m, monkeypatch):
    field = DesertField(config.world.terrain.desert, seed, size_m)
    edge = np.linspace(-size_m / 2, size_m / 2, 301)
    x_m, y_m = np.meshgrid(edge, edge)
    compiled = field.heights(x_m, y_m)
    monkeypatch.setattr(field_kernel, "AVAILABLE", False)
    assert np.array_equal(compiled, field.heights(x_m, y_m))
    assert compiled.shape == x_m.shape and np.ptp(compiled) > 1.0


@compiled_only
def test_a_compiled_tile_is_numpys_tile_to_the_bit(battle):
    terrain = battle.terrain
    contents, last = terrain._contents, terrain.tiles_per_side - 1
    for key in ((7, 7), (8, 8), (0, 0), (last, 3)):
        pools = tuple(np.zeros((1,) + shape, kind) for shape, kind in contents.pool_layout())
        contents.fill(key, 0, pools)
        for written, expected in zip(pools, contents.compute(key, contents.rock_discs(key))):
            assert np.array_equal(written[0], np.asarray(expected, written.dtype)
                                  .reshape(written[0].shape))
    assert (pools[4][0] == contents.rock).any()  # the last tile has rock ground too


def test_each_tile_knows_a_top_above_its_ground_and_every_rock_over_it(battle):
    terrain = battle.terrain
    assert terrain.tile_top_m((2, 2)) == terrain.ceiling_m  # not made yet
    for key in ((7, 7), (8, 7), (7, 8), (8, 8)):
        top_m = terrain.tile_top_m(key)
        heights = terrain.tile_heights(key)
        assert heights.max() <= top_m <= terrain.ceiling_m
        x_low, y_low, x_high, y_high = terrain.tile_box(key)
        rocks_over = [rock for near in terrain.tiles_near(
            np.array([terrain.tile_centre(key)]), terrain.tile_size_m)
            for rock in terrain.tile_rocks(near)
            if x_low - rock.radius_m * 1.25 <= rock.position_ws[0] <= x_high + rock.radius_m * 1.25
            and y_low - rock.radius_m * 1.25 <= rock.position_ws[1] <= y_high + rock.radius_m * 1.25]
        assert rocks_over
        assert max(rock.top_m for rock in rocks_over) <= top_m


def test_a_shell_high_over_the_desert_makes_no_tiles_and_gets_no_colliders(battle):
    terrain, colliders = battle.terrain, battle.arena.colliders
    gun = battle.player.spec.gun
    shell = battle.combat.loaded_shell(battle.player)
    start_xy = np.array([1500.0, -1500.0])
    high = battle.combat.shell_system.launch(
        battle.player, np.array([*start_xy, terrain.ceiling_m + 300.0]),
        np.array([0.0, 800.0, 0.0]), gun, shell, battle.time_s)
    for _ in range(10):
        battle.step()
    path_tiles = set(terrain.tiles_near(np.array([start_xy, start_xy + [0.0, 200.0]]), 200.0))
    assert high in battle.shells
    assert not path_tiles & set(terrain.resident_tiles)
    assert not path_tiles & set(colliders.tiles)
    # The same shell low over the ground has the tile under it in Bullet.
    ground_m = float(terrain.height_at(*start_xy))
    low = battle.combat.shell_system.launch(
        battle.player, np.array([*start_xy, ground_m + 4.0]), np.array([0.0, 0.0, 30.0]), gun,
        shell, battle.time_s)
    battle.step()
    assert low in battle.shells
    assert set(terrain.tiles_near(start_xy, 0.0)) <= set(colliders.tiles)


def test_a_shell_on_the_wall_round_the_map_digs_no_crater_but_one_in_the_sand_does(battle):
    terrain, combat = battle.terrain, battle.combat
    gun = battle.player.spec.gun
    shell = combat.loaded_shell(battle.player)
    edge_m = terrain.half_extent_x_m
    wall = combat.shell_system.launch(battle.player, np.array([0.0, edge_m - 30.0, 300.0]),
                                      np.array([0.0, 900.0, 0.0]), gun, shell, battle.time_s)
    hits = []
    for _ in range(20):
        hits += [event for event in battle.step() if event.TYPE == "hit"]
        if hits:
            break
    assert wall not in battle.shells and [hit.target for hit in hits] == ["terrain"]
    assert hits[0].point[2] > terrain.max_height_m
    assert terrain.craters == []
    assert not set(terrain.tiles_near(np.array([0.0, edge_m]), 0.0)) & set(terrain.resident_tiles)
