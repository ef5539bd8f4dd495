"""The compiled terrain substep against the numpy anchor model it stands in for: the same
numbers to the last bit, so a run is the same whichever path a substep takes."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import numpy as np
import pytest

from bench.soak import random_battle
from physics.model.anchor_kernel import TerrainSubstep
from physics.model.compiled import AVAILABLE
from physics.model.ground import TerrainGround
from physics.model.pose import rotation_matrix
from physics.model.terrain import MapChoice, build_terrain
from physics.model.anchors import AnchorCommand, BodyStates, derive_constants

needs_numba = pytest.mark.skipif(not AVAILABLE, reason="numba is not installed")

SUBSTEP_S = 1.0 / 120.0
REPORT_FIELDS = [field.name for field in dataclasses.fields(
    __import__("physics.model.anchors", fromlist=["AnchorReport"]).AnchorReport)]


def battle_run(config, compiled: bool, steps: int):
    """Vehicle states and the player's anchor report after ``steps`` steps of a battle."""
    loop = random_battle(config, 3, seed=2)
    simulation = loop.simulation
    fleet = simulation.player.fleet
    fleet.use_compiled = compiled
    runs = []
    if compiled:  # count the substeps the kernel took
        original = fleet._compiled.run

        def counted(*arguments):
            runs.append(1)
            return original(*arguments)
        fleet._compiled.run = counted
    loop.run(steps)
    states = [np.concatenate([vehicle.current.position_ws, vehicle.current.orientation_ws,
                              vehicle.current.velocity_ws, vehicle.current.angular_velocity_ws])
              for vehicle in simulation.vehicles]
    report = fleet.model.report
    simulation.destroy()
    return np.array(states), report, len(runs)


@needs_numba
def test_a_battle_runs_the_same_to_the_last_bit_compiled_or_not(config):
    compiled_states, compiled_report, compiled_runs = battle_run(config, True, 300)
    numpy_states, numpy_report, _ = battle_run(config, False, 300)
    assert compiled_runs > 300  # most substeps took the kernel
    assert np.array_equal(compiled_states, numpy_states)
    for name in REPORT_FIELDS:
        assert np.array_equal(getattr(compiled_report, name), getattr(numpy_report, name)), name


def random_states(rng, terrain, vehicles: int) -> BodyStates:
    """Hulls over the dunes at about ride height, tilted, moving and spinning."""
    xy = rng.uniform(-200.0, 200.0, (vehicles, 2))
    heights = terrain.height_at(xy[:, 0], xy[:, 1]) + rng.uniform(0.3, 1.2, vehicles)
    quaternions = rng.normal(0.0, 1.0, (vehicles, 4)) * (1.0, 0.1, 0.1, 1.0)
    quaternions /= np.linalg.norm(quaternions, axis=1, keepdims=True)
    axes = np.array([rotation_matrix(quaternion).T for quaternion in quaternions])
    return BodyStates(np.column_stack([xy, heights]), axes, rng.normal(0.0, 5.0, (vehicles, 3)),
                      rng.normal(0.0, 0.5, (vehicles, 3)))


@needs_numba
@pytest.mark.parametrize("steer", [False, True])
def test_each_substep_cold_and_warm_matches_the_numpy_model(config, steer):
    """Random hulls and commands (steer too, which tanks never use) for three substeps."""
    tank = config.tank
    terrain = build_terrain(MapChoice.parse("desert"), config.game.terrain, 4)
    constants = derive_constants(tank.suspension, tank.grip, tank.hull.mass_kg,
                                 config.game.simulation.gravity_m_s2, tracked=True)
    rng = np.random.default_rng(11)
    vehicles, anchors = 6, len(constants.position_bs)
    numpy_model, compiled_model = tank.make_model(constants), tank.make_model(constants)
    for model in (numpy_model, compiled_model):
        model.resize(vehicles)
    numpy_ground, compiled_ground = TerrainGround(terrain), TerrainGround(terrain)
    kernel = TerrainSubstep(constants, tank.grip, terrain)
    shape = (vehicles, anchors)
    command = AnchorCommand(rng.normal(0.0, 3.0, shape), rng.uniform(0.0, 5e4, shape),
                            rng.uniform(-0.5, 0.5, shape) if steer else np.zeros(shape),
                            rng.uniform(0.5, 1.0, shape))
    for substep in range(3):  # the first cold, the others warm
        states = random_states(rng, terrain, vehicles)
        expected = numpy_model.step(states, numpy_ground, command, SUBSTEP_S)
        last_distance, warm = compiled_ground.carried_distances(vehicles * anchors)
        assert warm == (substep > 0)
        linear, angular, results = kernel.run(states, command, compiled_model.grip_stretch,
                                              last_distance, warm, SUBSTEP_S)
        compiled_model.take_results(results, command)
        assert np.array_equal(linear, expected.linear_ws)
        assert np.array_equal(angular, expected.angular_ws)
        assert np.array_equal(compiled_model.deflection_m, numpy_model.deflection_m)
        for name in REPORT_FIELDS:
            assert np.array_equal(getattr(compiled_model.report, name),
                                  getattr(numpy_model.report, name)), name
        assert 0 < np.count_nonzero(compiled_model.report.on_ground) < vehicles * anchors


def test_without_numba_the_game_runs_on_the_plain_loops_and_numpy(repo_root):
    """A platform numba does not support: everything falls back and a battle still runs."""
    script = ("import sys; sys.modules['numba'] = None\n"
              "from game.config import load_config\n"
              "from bench.soak import random_battle\n"
              "from physics.model import compiled\n"
              "assert not compiled.AVAILABLE\n"
              "loop = random_battle(load_config(), 3, 2)\n"
              "simulation = loop.simulation\n"
              "loop.run(120)\n"
              "assert all(vehicle.current.position_ws[2] > -100.0 for vehicle in simulation.vehicles)\n"
              "print('ran', len(simulation.vehicles), 'vehicles')\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=repo_root, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "ran 4 vehicles" in done.stdout
