"""The penetration benchmark: what each shell of config/shells.toml pierces at range.

Not a timing: the figures docs/armour.md sets beside the published tables the model is
calibrated against. For every shell, at each range, the shell is flown as the game flies
it (:mod:`physics.model.flight`: gravity and the shell's air drag, stepped in the game's
physics substeps) at the elevation that carries it to that range at the muzzle's height,
and its speed there is its striking velocity; :func:`~physics.model.penetration.penetration_mm`
gives what it pierces square on. At an angle from the plate's normal the row gives the
thickest plate it pierces at that angle: the one whose effective thickness
(:func:`~physics.model.penetration.effective_thickness_mm`, after the shell's
normalisation) is its penetration, ``penetration_mm * cos(angle - normalisation)``.
"""

from __future__ import annotations

import math

import numpy as np

from physics.model.flight import Flight, elevation_to_reach, flight_to_distance
from physics.model.penetration import effective_thickness_mm, normalisation_deg, penetration_mm

RANGES_M = (100.0, 500.0, 1000.0, 1500.0, 2000.0)
ANGLES_DEG = (0.0, 30.0)
"""From the plate's normal: square on, and the 30 degrees of the published tables."""
ELEVATION = "the elevation that carries the shell to the range at the muzzle's height"
DIGITS = 1
"""Rows' velocities and thicknesses are rounded to a tenth."""


def flight_of(config, shell) -> Flight:
    """How ``shell`` flies in the game ``config`` sets up (the physics world's substep,
    gravity, and the shell's drag in the config's air)."""
    simulation = config.game.simulation
    return Flight(simulation.gravity_m_s2, shell.drag_per_m(config.shells.air.density_kg_m3),
                  simulation.step_s / simulation.substeps)


def striking_velocity_mps(shell, flight: Flight, range_m: float, max_time_s: float
                          ) -> float | None:
    """The shell's speed as it reaches ``range_m`` at the muzzle's height (None: it does
    not within ``max_time_s``)."""
    elevation = elevation_to_reach(range_m, 0.0, shell.muzzle_velocity_mps, flight,
                                   max_time_s)
    if elevation is None:
        return None
    velocity = shell.muzzle_velocity_mps * np.array([0.0, math.cos(elevation),
                                                     math.sin(elevation)])
    there = flight_to_distance(np.zeros(3), velocity, flight, range_m, max_time_s)
    return None if there is None else float(np.linalg.norm(there[2]))


def pierced_at_mm(shell, square_mm: float, angle_deg: float, spec) -> float:
    """The thickest plate at ``angle_deg`` from its normal that ``square_mm`` of
    penetration gets through: its effective thickness is the penetration."""
    return square_mm / effective_thickness_mm(1.0, angle_deg, normalisation_deg(shell, spec))


def rows(config) -> list[dict]:
    """One row per shell, range and angle: {shell, range_m, angle_deg,
    impact_velocity_mps, penetration_mm} (None where the shell does not get there within
    the longest shell lifetime of the tanks' guns)."""
    spec = config.shells.penetration
    lifetime_s = max(tank.gun.shell_lifetime_s for tank in config.tanks.values())
    found = []
    for name, shell in config.shells.shells.items():
        flight = flight_of(config, shell)
        for range_m in RANGES_M:
            velocity_mps = striking_velocity_mps(shell, flight, range_m, lifetime_s)
            square_mm = None if velocity_mps is None else penetration_mm(shell, velocity_mps,
                                                                         spec)
            for angle_deg in ANGLES_DEG:
                pierced = None if square_mm is None else round(
                    pierced_at_mm(shell, square_mm, angle_deg, spec), DIGITS)
                found.append({"shell": name, "range_m": range_m, "angle_deg": angle_deg,
                              "impact_velocity_mps": None if velocity_mps is None
                              else round(velocity_mps, DIGITS),
                              "penetration_mm": pierced})
    return found


def run(config) -> dict:
    simulation = config.game.simulation
    return {"parameters": {"ranges_m": list(RANGES_M), "angles_deg": list(ANGLES_DEG),
                           "elevation": ELEVATION,
                           "flight_step_s": simulation.step_s / simulation.substeps,
                           "air_density_kg_m3": config.shells.air.density_kg_m3,
                           "shells": sorted(config.shells.shells)},
            "results": rows(config)}


def table(report: dict) -> str:
    lines = ["penetration: mm pierced (square on | at 30 deg from the normal), striking m/s"]
    by_shell: dict[str, list[dict]] = {}
    for row in report["results"]:
        by_shell.setdefault(row["shell"], []).append(row)
    for name, shell_rows in by_shell.items():
        cells = []
        for range_m in report["parameters"]["ranges_m"]:
            at_range = [row for row in shell_rows if row["range_m"] == range_m]
            figures = " | ".join("-" if row["penetration_mm"] is None
                                 else f"{row['penetration_mm']:.0f}" for row in at_range)
            speed = at_range[0]["impact_velocity_mps"]
            cells.append(f"{range_m:g} m: {figures} ({'-' if speed is None else f'{speed:.0f}'})")
        lines.append(f"  {name:>5}  " + ", ".join(cells))
    return "\n".join(lines)
