"""The anchor kernel's wheel stage (:mod:`physics.model.anchor_kernel`, stage 6): how a
car's wheel spins, for each tyre model.

- Grip tyres (:func:`roll_spin`): the wheel rolls with the ground while the friction
  circle holds; sliding under power or brake, or in the air, it spins on its own inertia.
- Slip tyres (:func:`slip_tyre`): the wheel always spins on its own inertia and pulls by
  the tyre curve of its slip (:func:`tyre_forces`).
- Free in the air, either slows under its bearings' drag (:func:`coast_spin`).

Functions of plain numbers, compiled into the kernel's loop where numba is installed.
"""

from __future__ import annotations

import math

from common.compiled import compiled_stage
from physics.model.kernel_tables import (BEARING_DRAG, GRIP, GRIP_MODEL_BELOW_MPS,
                                         LOAD_SENSITIVITY, MASS, PEAK_ANGLE_TAN,
                                         PEAK_SLIP_RATIO, ROLLING, SLIDING_SHARE,
                                         SLIP_REFERENCE_SPEED_MPS, SPIN_DERIVATIVE_STEP_RAD_S,
                                         STATIC_LOAD, TINY, WHEEL_INERTIA, WHEEL_RADIUS)
from physics.model.scalars import clamp, larger


@compiled_stage
def roll_spin(hit, sliding, along_mps, surface_speed_mps, limit_n, along_n, spin_rad_s, model,
          substep_s):
    """A grip tyre's wheel: it rolls with the ground while it grips (or slides undriven).
    Sliding under power or brake, or in the air, it spins on its own inertia: the engine
    (or the brake) turns it toward the asked rim speed with at most its force at the rim,
    against the pull of the sliding contact (``along_n``, the force the ground gives the
    vehicle), so it spins up over time, and a brake stronger than the grip stops it and
    holds it locked. Free in the air, it coasts."""
    radius, inertia = model[WHEEL_RADIUS], model[WHEEL_INERTIA]
    driven = limit_n > 0.0
    if hit and (not sliding or not driven):
        return along_mps / radius
    if not driven:
        return coast_spin(spin_rad_s, model, substep_s)
    ground_n = along_n if hit else 0.0
    wanted = ((surface_speed_mps - spin_rad_s * radius) * inertia / (radius * radius * substep_s)
              + ground_n)
    drive = clamp(wanted, -limit_n, limit_n)
    return spin_rad_s + radius * (drive - ground_n) * substep_s / inertia


@compiled_stage
def coast_spin(spin_rad_s, model, substep_s):
    """A free wheel's spin after a substep of its bearings' drag (which never turns it
    backwards)."""
    slowing = model[BEARING_DRAG] * substep_s / model[WHEEL_INERTIA]
    return spin_rad_s - clamp(spin_rad_s, -slowing, slowing)


@compiled_stage
def tyre_forces(spin_rad_s, along_mps, across_mps, load, peak_grip, model):
    """A slip tyre's pull along and across for a wheel spin, and whether past the peak:
    the curve of the combined slip rises to the peak grip at 1 and falls toward its
    sliding share beyond."""
    reference = larger(abs(along_mps), SLIP_REFERENCE_SPEED_MPS)
    ratio = (spin_rad_s * model[WHEEL_RADIUS] - along_mps) / reference / model[PEAK_SLIP_RATIO]
    angle = across_mps / reference / model[PEAK_ANGLE_TAN]
    combined = math.hypot(ratio, angle)
    past = combined - 1.0
    if combined <= 1.0:
        share = combined * (2.0 - combined)
    else:
        share = model[SLIDING_SHARE] + (1.0 - model[SLIDING_SHARE]) * math.exp(-(past * past))
    scale = peak_grip * share * load / combined if combined > 0.0 else 0.0
    return scale * ratio, -scale * angle, combined > 1.0


@compiled_stage
def slip_tyre(hit, load, along_mps, across_mps, surface_speed_mps, limit_n, grip_share,
               surface_rolling, spin_rad_s, grip_along, grip_across, grip_sliding, anchor,
               model, substep_s):
    """A slip tyre: the engine or brake turns the wheel toward the asked speed against the
    tyre's pull (the spin integrated implicitly, the pull linearised in the spin); at
    walking pace the stick-slip grip takes over (the wheel rolls with the ground).
    Returns the forces along and across, the sliding flag, the new spin, and how much the
    force along grows per m/s of rim speed where the tyre curve holds (0 where the wheel
    rolls with the ground: the engine then carries the car's mass instead)."""
    radius, inertia = model[WHEEL_RADIUS], model[WHEEL_INERTIA]
    relative_load = larger(load, TINY) / anchor[STATIC_LOAD]
    peak = model[GRIP] * grip_share * relative_load ** -model[LOAD_SENSITIVITY]
    contact_load = load if hit else 0.0
    force = tyre_forces(spin_rad_s, along_mps, across_mps, contact_load, peak, model)[0]
    wanted = ((surface_speed_mps - spin_rad_s * radius) * inertia
              / (radius ** 2 * substep_s) + force)
    drive = clamp(wanted, -limit_n, limit_n)
    nudged = tyre_forces(spin_rad_s + SPIN_DERIVATIVE_STEP_RAD_S, along_mps, across_mps,
                          contact_load, peak, model)[0]
    stiffness = (nudged - force) / SPIN_DERIVATIVE_STEP_RAD_S
    spin = spin_rad_s + radius * (drive - force) / (inertia / substep_s + radius * stiffness)
    along, across, past_peak = tyre_forces(spin, along_mps, across_mps, contact_load, peak,
                                            model)
    resistance = (model[ROLLING] + surface_rolling) * contact_load
    along = along + clamp(-along_mps * anchor[MASS] / substep_s, -resistance, resistance)
    weight = clamp(abs(along_mps) / model[GRIP_MODEL_BELOW_MPS], 0.0, 1.0) if hit else 1.0
    grip_weight = 1.0 - weight
    spin = weight * spin + grip_weight * along_mps / radius
    curve_holds = weight >= 0.5
    return (weight * along + grip_weight * grip_along,
            weight * across + grip_weight * grip_across,
            past_peak if curve_holds else grip_sliding, spin,
            weight * stiffness / radius if curve_holds else 0.0)


