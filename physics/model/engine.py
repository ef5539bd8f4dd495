"""The engine, its clutch and the driveline behind it, for one vehicle at a time.

No Bullet, no Panda3D. The engine is a spinning inertia driven by a torque curve (a table
over rpm: the torque at full throttle, and the drag at closed throttle, which is negative:
engine braking). An idle governor opens the throttle below idle (or below the speed a
tank's steer unit asks for); a rev limiter fades the full-throttle torque to the drag over
the last rpm before the redline.

The clutch joins the engine to the driveline (gearbox, shafts, the tracks or the driven
wheels, and, through the ground, the vehicle). It is an automatic clutch: it engages with
the engine's speed between ``bite_rpm`` and ``lock_rpm``, while the throttle is pressed or
the driveline already turns faster than the bite, either way. So a vehicle standing in gear
at idle does not creep, one rolling in gear brakes on its engine, and the engine is never
dragged below the bite. Each step the clutch passes the torque that brings the two sides to
one speed, if its capacity allows (locked), or its capacity (slipping): pulling away, and
just after a shift, the engine runs ahead of the tracks.

The driveline's inertia, seen at the engine, is its own plus the vehicle's mass reflected
through the gear, ``m (r / G)^2``, for the share of the driven anchors that grip. Anchors
that slide (wheelspin) or hang in the air do not carry the vehicle's mass; the force they
pass instead is a load the step reads back from the last substep. Slip tyres on their curve
count among those: the curve couples them to the ground, and how steeply its force grows
with the wheel's speed is taken as part of the step. So on ice the engine revs, in the air
the wheels spin up with the engine, and on a gripping track it pulls the whole mass. What
else holds the vehicle back (rolling resistance, a slope, the air) is a load too: the
gearbox works it out from the last step, as what the anchors passed less what the
vehicle's mass took to accelerate.

What the step gives the anchors is a rim speed to drive toward (the driveline's speed at
the end of the step; the engine's own while the clutch slips) and the force the clutch
passes, as the servo's limit: the anchor kernel's grip stage then pushes the vehicle with
at most that force.

Functions of plain numbers, compiled into the gearbox's loop where numba is installed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

from common.compiled import compiled_stage
from common.spec import Spec, SpecError, tuning
from physics.model.scalars import clamp

RPM_PER_RAD_S = 60.0 / (2.0 * math.pi)
"""Revolutions a minute in one radian a second: a unit conversion."""


@dataclass(frozen=True)
class TorquePoint(Spec):
    """One row of the torque curve."""

    rpm: float = tuning("engine speed (rpm)", minimum=0.0, maximum=30000.0)
    full_throttle_nm: float = tuning("torque at full throttle (N m)", minimum=0.0, maximum=1e5)
    closed_throttle_nm: float = tuning("torque at closed throttle: the engine's drag, "
                                       "negative (N m)", minimum=-1e5, maximum=0.0)


@dataclass(frozen=True)
class EngineSpec(Spec):
    """The engine: its torque curve, inertia, governor and rev limiter."""

    torque_curve: tuple[TorquePoint, ...] = tuning(
        "torque over rpm, rpm ascending, from idle or below to the redline or above; "
        "straight lines between the points", length=(2, 32))
    inertia_kg_m2: float = tuning("the crankshaft's and flywheel's inertia", minimum=0.001,
                                  maximum=100.0)
    governor_band_rpm: float = tuning("the idle governor opens the throttle fully this far "
                                      "below idle (or the steer unit's speed)", minimum=1.0,
                                      maximum=2000.0)
    limiter_band_rpm: float = tuning("the rev limiter fades the full-throttle torque to the "
                                     "drag over these last rpm before the redline",
                                     minimum=1.0, maximum=2000.0)

    def __post_init__(self) -> None:
        super().__post_init__()
        speeds = [point.rpm for point in self.torque_curve]
        for index, (low, high) in enumerate(zip(speeds, speeds[1:]), start=1):
            if high <= low:
                raise SpecError(f"torque_curve[{index}].rpm", high, f"above {low} (rpm ascending)")


@dataclass(frozen=True)
class ClutchSpec(Spec):
    """The automatic clutch between the engine and the gearbox."""

    torque_nm: float = tuning("most torque it passes, fully engaged (N m)", minimum=1.0,
                              maximum=1e5)
    bite_rpm: float = tuning("engine speed at which it starts to engage (rpm)", minimum=1.0,
                             maximum=20000.0)
    lock_rpm: float = tuning("engine speed from which it is fully engaged (rpm)", minimum=1.0,
                             maximum=20000.0)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.lock_rpm <= self.bite_rpm:
            raise SpecError("lock_rpm", self.lock_rpm, f"above bite_rpm ({self.bite_rpm})")


class Driveline(NamedTuple):
    """What the engine drives, from the vehicle kind: the radius at which the tracks or
    driven wheels meet the ground, the vehicle's mass, the driven wheels' own inertia (none
    for tracks), and the steer unit's engine speed per m/s of track speed difference (tanks:
    the steer unit is geared like first gear; none for cars)."""

    radius_m: float
    mass_kg: float
    rim_inertia_kg_m2: float
    steer_rad_s_per_mps: float


# Entries of the engine settings array the step reads. CURVE_POINTS: how many rows of the
# torque curve table are the engine's (a fleet of several kinds pads the shorter curves
# to the longest one's length; the padding is never read).
(INERTIA, GOVERNOR_BAND, LIMITER_BAND, CLUTCH_TORQUE, BITE, LOCK, IDLE, REDLINE, MASS,
 STEER_RATIO, CURVE_POINTS, ENGINE_SETTINGS) = range(12)


def engine_settings(engine: EngineSpec, clutch: ClutchSpec, idle_rpm: float,
                    redline_rpm: float, driveline: Driveline) -> list[float]:
    """The engine settings array's entries, in its order (engine speeds in rpm, as the
    specs give them; the torque curve's point count as a float, as the array holds it)."""
    values = {INERTIA: engine.inertia_kg_m2, GOVERNOR_BAND: engine.governor_band_rpm,
              LIMITER_BAND: engine.limiter_band_rpm, CLUTCH_TORQUE: clutch.torque_nm,
              BITE: clutch.bite_rpm, LOCK: clutch.lock_rpm, IDLE: idle_rpm,
              REDLINE: redline_rpm, MASS: driveline.mass_kg,
              STEER_RATIO: driveline.steer_rad_s_per_mps,
              CURVE_POINTS: float(len(engine.torque_curve))}
    return [values[entry] for entry in range(ENGINE_SETTINGS)]


def torque_curve_table(engine: EngineSpec) -> list[tuple[float, float, float]]:
    """The curve as rows (rpm, full throttle, closed throttle)."""
    return [(point.rpm, point.full_throttle_nm, point.closed_throttle_nm)
            for point in engine.torque_curve]


@compiled_stage
def engine_torque_nm(rpm, throttle, curve, settings):
    """The engine's torque at ``rpm`` and ``throttle`` (0..1): the curve read between its
    points (held flat past its ends), full-throttle torque faded by the rev limiter. Only
    the curve's first ``settings[CURVE_POINTS]`` rows are read: those after are padding."""
    last = int(settings[CURVE_POINTS]) - 1
    row = 0
    while row < last - 1 and curve[row + 1, 0] <= rpm:
        row += 1
    share = clamp((rpm - curve[row, 0]) / (curve[row + 1, 0] - curve[row, 0]), 0.0, 1.0)
    full = curve[row, 1] + share * (curve[row + 1, 1] - curve[row, 1])
    closed = curve[row, 2] + share * (curve[row + 1, 2] - curve[row, 2])
    limiter = clamp((settings[REDLINE] - rpm) / settings[LIMITER_BAND], 0.0, 1.0)
    return closed + throttle * limiter * (full - closed)


@compiled_stage
def clutch_capacity_nm(rpm, closing, settings):
    """The most torque the clutch passes at engine speed ``rpm``: none while it is not
    ``closing``, then rising smoothly from the bite to the lock."""
    if not closing:
        return 0.0
    engaged = clamp((rpm - settings[BITE]) / (settings[LOCK] - settings[BITE]), 0.0, 1.0)
    return settings[CLUTCH_TORQUE] * engaged * engaged * (3.0 - 2.0 * engaged)


@compiled_stage
def engine_step(dt_s, engine_rad_s, rad_s_per_mps, driveline_inertia, pedal, rim_mps,
                gripping, free_load_n, stiffness_n_s_m, resistance_n, steer_mps, power_share,
                settings, curve):
    """One step of one vehicle's engine and clutch.

    ``rad_s_per_mps``: the engaged gear's engine speed per m/s of forward rim speed,
    negative in reverse, 0 with no gear engaged (N, or a shift under way);
    ``driveline_inertia``: the driveline's own inertia at the engine in that gear. The last
    substep's driven anchors: ``rim_mps`` their mean rim speed (+ forward), ``gripping`` the
    share of them that gripped, ``free_load_n`` the force the others passed (+ forward)
    and ``stiffness_n_s_m`` how it grows with their rim speed (slip tyres: taken as part
    of the step, so that the stiff tyre curve does not make the engine ring),
    ``steer_mps`` half the tracks' speed difference; ``resistance_n``: what held the
    vehicle back besides (rolling, slopes, drag: + against forward motion), a load on the
    gripping share; ``power_share``: the share of its driving torque a damaged engine still
    gives (its drag when closed is whole).

    Returns the engine's new speed (rad/s), the rim speed to drive toward (m/s) and the
    force the clutch passes to the anchors (N, + forward).
    """
    rpm = engine_rad_s * RPM_PER_RAD_S
    governed_rpm = max(settings[IDLE], settings[STEER_RATIO] * abs(steer_mps) * RPM_PER_RAD_S)
    throttle = max(pedal, clamp((governed_rpm - rpm) / settings[GOVERNOR_BAND], 0.0, 1.0))
    torque = engine_torque_nm(rpm, throttle, curve, settings)
    if torque > 0.0:
        torque *= power_share
    inertia = settings[INERTIA]
    driveline_rad_s = rad_s_per_mps * rim_mps
    closing = rad_s_per_mps != 0.0 and (
        pedal > 0.0 or abs(driveline_rad_s) * RPM_PER_RAD_S >= settings[BITE])
    capacity = clutch_capacity_nm(rpm, closing, settings)
    if capacity == 0.0:  # no gear, or the clutch out: the engine turns free, the tracks roll
        return max(engine_rad_s + dt_s * torque / inertia, 0.0), rim_mps, 0.0
    carried = driveline_inertia + (gripping * settings[MASS] + dt_s * stiffness_n_s_m) / (
        rad_s_per_mps * rad_s_per_mps)
    load = (free_load_n + gripping * resistance_n) / rad_s_per_mps
    locking = (((engine_rad_s - driveline_rad_s) / dt_s + torque / inertia + load / carried)
               / (1.0 / inertia + 1.0 / carried))
    passed = clamp(locking, -capacity, capacity)
    new_engine_rad_s = max(engine_rad_s + dt_s * (torque - passed) / inertia, 0.0)
    new_driveline_rad_s = driveline_rad_s + dt_s * (passed - load) / carried
    if passed != locking:  # slipping: the clutch drives toward the engine's own speed
        new_driveline_rad_s = new_engine_rad_s
    return new_engine_rad_s, new_driveline_rad_s / rad_s_per_mps, passed * rad_s_per_mps


