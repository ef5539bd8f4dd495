"""Reading the bodies and the rays' hits, step after step, holds on to no memory.

The reads go through Panda's arrays (``physics.bullet.poses.float32s``), whose exported
buffers Panda 1.10 never frees: read that way, each read kept about 32 bytes of native
memory, which Python's own accounting (tracemalloc) does not see. Only the process's
resident memory shows it, so that is what these tests weigh, over enough reads that a
leak of that size stands far above the allocator's noise.
"""

from __future__ import annotations

import numpy as np
from panda3d.core import LMatrix4f, PTA_LMatrix4f, PTA_LVecBase3f, Vec3

from bench.usage import resident_memory_mb
from game.sim.controls import Controls
from game.sim.simulation import Simulation
from physics.bullet import poses
from physics.model.terrain import MapChoice

READS = 100_000
MOST_GROWTH_MB = 1.0
"""A leak of 32 bytes a read grows 100,000 reads by 3 MB a kind of read."""


def _growth_mb(read, times: int = READS) -> float:
    for _ in range(100):  # the first reads' allocations are not a leak
        read()
    before = resident_memory_mb()
    for _ in range(times):
        read()
    return resident_memory_mb() - before


def test_the_arrays_read_back_the_values_pushed_into_them():
    matrix = LMatrix4f(*range(16))
    assert poses.float32s(PTA_LMatrix4f, [matrix, matrix]).tolist() == list(range(16)) * 2
    vectors = [Vec3(1.5, -2.0, 3.25), Vec3(0.0, 4.0, -8.5)]
    assert poses.float32s(PTA_LVecBase3f, iter(vectors)).tolist() == [1.5, -2.0, 3.25,
                                                                       0.0, 4.0, -8.5]


def test_reading_the_arrays_again_and_again_holds_no_memory():
    vectors = [Vec3(1.0, 2.0, 3.0)] * 8
    assert _growth_mb(lambda: poses.float32s(PTA_LVecBase3f, vectors)) < MOST_GROWTH_MB


def test_reading_a_fleet_again_and_again_holds_no_memory(config):
    simulation = Simulation(config.world, MapChoice.parse("flat"), seed=1)
    try:
        for x_m in (10.0, 20.0, 30.0):
            simulation.spawn("tank", f"tank-{x_m:g}", x_m, 0.0, 0.0)
        for _ in range(30):
            simulation.step(Controls(throttle=1.0))
        fleet = simulation.player.fleet
        bodies = [vehicle.body for vehicle in simulation.vehicles]

        def read_everything():
            fleet.poses()
            poses.body_states(bodies)
            poses.positions_ws(bodies)

        first = fleet.poses()
        assert np.all(first.finite) and first.rows.shape == (4, 13)
        assert _growth_mb(read_everything, READS // 2) < MOST_GROWTH_MB
    finally:
        simulation.destroy()

