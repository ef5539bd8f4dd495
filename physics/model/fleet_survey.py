"""What a fleet reads off its bodies' states once a step, in one compiled pass.

The gearbox needs each body's speed along its hull; the near test needs the fastest
speed and how far the bodies strayed from where the test was last made. Each is a
handful of sums over a few vehicles, and numpy's cost is per call (several calls, each
first touched cold after the bots' thinking), so one loop gives all three.
"""

from __future__ import annotations

import math

import numpy as np

from common.compiled import compiled_loop


@compiled_loop
def _survey(position_ws, velocity_ws, axes_ws, tested_ws, forward_mps):
    """Fills ``forward_mps`` (V,); returns the largest speed and the farthest stray (a
    NaN in either stays NaN, as numpy's ``max`` keeps it)."""
    fastest_mps = 0.0
    strayed_m = 0.0
    measure_stray = len(tested_ws) == len(position_ws)
    for v in range(len(position_ws)):
        vx, vy, vz = velocity_ws[v, 0], velocity_ws[v, 1], velocity_ws[v, 2]
        forward_mps[v] = (vx * axes_ws[v, 1, 0] + vy * axes_ws[v, 1, 1]) + vz * axes_ws[v, 1, 2]
        speed_mps = math.sqrt((vx * vx + vy * vy) + vz * vz)
        if fastest_mps == fastest_mps and not speed_mps <= fastest_mps:
            fastest_mps = speed_mps
        if measure_stray:
            dx = position_ws[v, 0] - tested_ws[v, 0]
            dy = position_ws[v, 1] - tested_ws[v, 1]
            dz = position_ws[v, 2] - tested_ws[v, 2]
            stray_m = math.sqrt((dx * dx + dy * dy) + dz * dz)
            if strayed_m == strayed_m and not stray_m <= strayed_m:
                strayed_m = stray_m
    return fastest_mps, strayed_m


def survey(position_ws: np.ndarray, velocity_ws: np.ndarray, axes_ws: np.ndarray,
           tested_ws: np.ndarray | None) -> tuple[np.ndarray, float, float]:
    """Bodies' positions and velocities (V, 3) and axes (V, 3, 3, rows right, forward,
    up): each body's velocity along its forward axis (V,, m/s), the largest speed of any
    (m/s), and the farthest any lies from its row of ``tested_ws`` (m; 0 when there is
    none or its rows are not the bodies')."""
    forward_mps = np.empty(len(position_ws))
    tested = _NOWHERE if tested_ws is None else tested_ws
    fastest_mps, strayed_m = _survey(position_ws, velocity_ws, axes_ws, tested, forward_mps)
    return forward_mps, fastest_mps, strayed_m


_NOWHERE = np.zeros((0, 3))
