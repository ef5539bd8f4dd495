"""The belts' compiled loop (game/view/rigs/belt_kernel.py) writes the very rows the numpy
path does, for many belts of different shapes, some of them taken out of a stack."""

from __future__ import annotations

import numpy as np
import pytest

from game.view.rigs.belt_kernel import belt_rows_loop
from game.view.rigs.track_belt import BeltShape, BeltTemplate, belt_rows_batch, belt_rows_numpy

STATIONS_Y = np.array([-2.0, -1.2, -0.4, 0.4, 1.2, 2.0])
SHAPES = ((-1.1, 0.0, 0.32, 0.08), (1.1, 0.0, 0.32, 0.08), (-0.9, 0.3, 0.25, 0.05),
          (0.9, -0.2, 0.4, 0.1))
"""Belts: across (m), shifted along (m), link length (m), thickness (m)."""
COPIES = 5


def shapes() -> list[BeltShape]:
    return [BeltShape(track_x_m=x, half_width_m=0.25, stations_y=STATIONS_Y + shift,
                      rear_y_m=-2.6 + shift, front_y_m=2.6 + shift, drive_z_m=0.3,
                      road_wheel_radius_m=0.34, drive_wheel_radius_m=0.3,
                      thickness_m=thickness, link_length_m=link, arc_segments=6)
            for x, shift, link, thickness in SHAPES] * COPIES


@pytest.mark.skipif(belt_rows_loop is None, reason="numba is not available here")
def test_the_compiled_belt_rows_are_the_numpy_rows():
    belts = shapes()
    template = BeltTemplate.of(belts)
    random = np.random.default_rng(11)
    centre_z = random.uniform(-0.4, 0.4, (len(belts), len(STATIONS_Y)))
    centre_z[0] = 0.0  # level: straight runs
    centre_z[1, 2:4] = 5.0  # wheels through the top run: coinciding and crossing points
    travelled = random.uniform(-50.0, 50.0, len(belts))
    colour = random.uniform(0.0, 1.0, (len(belts), 3))
    np.testing.assert_array_equal(belt_rows_batch(template, centre_z, travelled, colour),
                                  belt_rows_numpy(template, centre_z, travelled, colour))
    some = np.array([1, 4, 7, 18])
    np.testing.assert_array_equal(
        belt_rows_batch(template.take(some), centre_z[some], travelled[some], colour[some]),
        belt_rows_numpy(template.take(some), centre_z[some], travelled[some], colour[some]))
