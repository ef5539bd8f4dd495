"""Craters: shells that hit sand dig holes the collider, the anchors and replays all see,
on the 512 m desert and on a big one; the oldest are filled back in past the cap."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
from panda3d.core import Point3

from game.sim.controls import AUTOMATIC, Controls
from game.sim.events import CraterDug
from game.sim.simulation import Simulation
from physics.bullet.bodies import TERRAIN_MASK
from physics.model.craters import Crater, checked_crater
from physics.model.terrain import MapChoice, build_terrain

MAPS = ("desert", "desert:4096")


def _with_craters(config, **changes):
    terrain = config.world.terrain
    craters = dataclasses.replace(terrain.craters, **changes)
    world = dataclasses.replace(config.world,
                                terrain=dataclasses.replace(terrain, craters=craters))
    return world


def _sand_spot(terrain, near_xy=(0.0, 0.0), reach_m=80.0, seed=2) -> tuple[float, float]:
    """A point of sand near ``near_xy`` with sand all round it (a crater's width)."""
    rng = np.random.default_rng(seed)
    for _ in range(2000):
        x_m, y_m = np.asarray(near_xy) + rng.uniform(-reach_m, reach_m, 2)
        ring = [(x_m + dx, y_m + dy) for dx in (-6.0, 0.0, 6.0) for dy in (-6.0, 0.0, 6.0)]
        if all(terrain.surface_name_at(x, y) == "sand" for x, y in ring):
            return float(x_m), float(y_m)
    raise AssertionError("no sand found")


def _shell_down(simulation, x_m: float, y_m: float) -> list:
    """A tank shell dropped at its muzzle speed straight down onto (x, y); the events of
    the steps until it lands."""
    gun = simulation.player.spec.gun
    shell = simulation.combat.loaded_shell(simulation.player)
    ground_m = float(simulation.terrain.height_at(x_m, y_m))
    simulation.combat.shell_system.launch(
        simulation.player, np.array([x_m, y_m, ground_m + 40.0]),
        np.array([0.0, 0.0, -shell.muzzle_velocity_mps]), gun, shell, simulation.time_s)
    events = []
    for _ in range(10):
        events += simulation.step()
        if not simulation.shells:
            break
    return events


def _terrain_ray_z(simulation, x_m: float, y_m: float) -> float:
    hit = simulation.world.bullet.rayTestClosest(Point3(x_m, y_m, 200.0),
                                                 Point3(x_m, y_m, -200.0), TERRAIN_MASK)
    assert hit.hasHit(), (x_m, y_m)
    return hit.getHitPos().z


@pytest.mark.parametrize("map_name", MAPS)
def test_a_shell_into_sand_digs_a_crater_the_collider_has_too(config, map_name):
    simulation = Simulation(config.world, MapChoice.parse(map_name), seed=1)
    try:
        x_m, y_m = _sand_spot(simulation.terrain, near_xy=(30.0, 30.0))
        before = float(simulation.terrain.height_at(x_m, y_m))
        craters = [event for event in _shell_down(simulation, x_m, y_m)
                   if isinstance(event, CraterDug)]
        assert len(craters) == 1
        crater = craters[0]
        assert crater.x_m == pytest.approx(x_m, abs=0.5)
        assert crater.radius_m == pytest.approx(config.world.terrain.craters.radius_m, rel=0.05)
        assert float(simulation.terrain.height_at(crater.x_m, crater.y_m)) < before - 0.5
        # The collider is rebuilt in the same step: 200 rays across the rim agree with
        # the heights the anchors read.
        rng = np.random.default_rng(7)
        for dx, dy in rng.uniform(-1.3, 1.3, (200, 2)) * crater.radius_m:
            x, y = crater.x_m + dx, crater.y_m + dy
            assert _terrain_ray_z(simulation, x, y) == pytest.approx(
                float(simulation.terrain.height_at(x, y)), abs=2e-3)
    finally:
        simulation.destroy()


def test_two_hundred_shells_in_one_spot_make_one_crater_a_tank_drives_through(config):
    simulation = Simulation(config.world, MapChoice.parse("desert:4096"), seed=1)
    try:
        terrain = simulation.terrain
        start = simulation.player.current.position_ws
        forward = simulation.player.current.axes_ws()[1]
        spot = _sand_spot(terrain, near_xy=start[:2] + forward[:2] * 40.0, reach_m=12.0)
        dug = 0
        for _ in range(200):
            dug += sum(isinstance(event, CraterDug) for event in _shell_down(simulation, *spot))
        assert dug == 200
        depth_m = config.world.terrain.craters.depth_m
        hole_m = float(terrain.height_at(*spot))
        assert hole_m < terrain._untouched_at(*spot) - 0.5 * depth_m  # between samples
        assert hole_m > terrain._untouched_at(*spot) - 1.01 * depth_m  # not dug deeper
        # Drive at the crater, then straight on through it.
        heading = (np.asarray(spot) - start[:2]) / np.linalg.norm(np.asarray(spot) - start[:2])
        along_m, lowest_m = -np.inf, np.inf
        for _ in range(60 * 40):
            state = simulation.player.current
            to_spot = np.asarray(spot) - state.position_ws[:2]
            forward = state.axes_ws()[1][:2]
            left = (forward[0] * to_spot[1] - forward[1] * to_spot[0]) / np.linalg.norm(to_spot)
            steer = float(np.clip(-4.0 * left, -1.0, 1.0)) if along_m < -3.0 else 0.0
            simulation.step(Controls(throttle=1.0, steer=steer, gear=AUTOMATIC))
            position = simulation.player.current.position_ws
            lowest_m = min(lowest_m, position[2] - float(terrain.height_at(*position[:2])))
            along_m = float((position[:2] - spot) @ heading)
            if along_m > 15.0:
                break
        passed_m = along_m
        assert passed_m > 15.0, "the tank did not get through the crater"
        assert lowest_m > 0.0
    finally:
        simulation.destroy()


@pytest.mark.parametrize("map_name", MAPS)
def test_past_the_cap_the_oldest_crater_is_filled_back_in(config, map_name):
    world = _with_craters(config, most_craters=3)
    simulation = Simulation(world, MapChoice.parse(map_name), seed=1)
    try:
        simulation.step()  # a big desert's colliders round the tank
        terrain = simulation.terrain
        spots = [(x_m, 40.0) for x_m in (-40.0, -20.0, 0.0, 20.0, 40.0)]
        untouched = [float(terrain.height_at(*spot)) for spot in spots]
        for x_m, y_m in spots:
            simulation.dig(CraterDug(x_m, y_m, 2.5, 0.8))
        assert [(crater.x_m, crater.y_m) for crater in terrain.craters] == spots[2:]
        assert [float(terrain.height_at(*spot)) for spot in spots[:2]] == untouched[:2]
        assert all(float(terrain.height_at(*spot)) < height - 0.5
                   for spot, height in zip(spots[2:], untouched[2:]))
        assert _terrain_ray_z(simulation, *spots[0]) == pytest.approx(untouched[0], abs=2e-3)
    finally:
        simulation.destroy()


def test_a_big_desert_tile_made_again_has_its_craters(config):
    spec = config.world.terrain
    spec = dataclasses.replace(spec, tiles=dataclasses.replace(spec.tiles, spare_tiles=0))
    terrain = build_terrain(MapChoice.parse("desert:4096"), spec, 1)
    try:
        spot = (100.0, 100.0)
        terrain.dig(Crater(*spot, 3.0, 1.0))
        dug_m = float(terrain.height_at(*spot))
        key = (8, 8)
        heights = terrain.tile_heights(key).copy()
        for _ in range(3):  # far away, and no spares kept: the crater's tile is dropped
            terrain.stream(np.array([[-1900.0, -1900.0]]))
        assert key not in terrain.resident_tiles
        assert float(terrain.height_at(*spot)) == dug_m
        assert np.array_equal(terrain.tile_heights(key), heights)
    finally:
        terrain.destroy()


@pytest.mark.parametrize("values", [
    (float("nan"), 0.0, 2.0, 0.5), (0.0, 0.0, 1e6, 0.5), (0.0, 0.0, -1.0, 0.5),
    (0.0, 0.0, 2.0, 99.0), ("x", 0.0, 2.0, 0.5), (True, 0.0, 2.0, 0.5)])
def test_a_crater_from_elsewhere_must_be_one_a_shell_could_dig(config, values):
    with pytest.raises(ValueError, match="crater"):
        checked_crater(config.world.terrain.craters, *values)


@pytest.mark.slow
def test_a_replay_with_craters_is_byte_identical(tmp_path, run_cli):
    inputs = {"events": [{"t": 0.2, "throttle": 1.0, "gear": "A", "turret": 0.5,
                          "elevation": -0.4},
                         {"t": 2.0, "steer": -0.6, "fire": True},
                         {"t": 4.0, "throttle": 0.3, "steer": 0.4, "elevation": 0.3}]}
    (tmp_path / "inputs.json").write_text(json.dumps(inputs))
    common = ("--headless", "--map", "desert:4096")
    result = run_cli(*common, "--seed", "3", "--bots", "2", "--seconds", "8",
                     "--inputs", str(tmp_path / "inputs.json"),
                     "--telemetry", str(tmp_path / "original.jsonl"),
                     "--record", str(tmp_path / "game.replay"))
    assert result.returncode == 0, result.stderr
    original = (tmp_path / "original.jsonl").read_bytes()
    assert b'"type":"crater"' in original
    result = run_cli("--headless", "--replay", str(tmp_path / "game.replay"),
                     "--telemetry", str(tmp_path / "again.jsonl"))
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "again.jsonl").read_bytes() == original
