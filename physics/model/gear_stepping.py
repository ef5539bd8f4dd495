"""One step of every gearbox of a fleet (:class:`physics.model.gearbox.Gearbox`), in place:
automatic shifts, the pedal, the engine and clutch (:func:`physics.model.engine.engine_step`),
and shifts running out their time. The vehicles may be of several kinds: each reads its own
kind's rows of the stacked per-kind tables. A loop compiled with numba where it is
installed; a plain loop otherwise."""

from __future__ import annotations

from common.compiled import compiled_loop, compiled_stage
from physics.model.engine import MASS, RPM_PER_RAD_S, engine_step
from physics.model.kernel_tables import (DRIVELINE_DRIVE, DRIVELINE_FREE_LOAD,
                                         DRIVELINE_GRIPPING, DRIVELINE_GROUNDED, DRIVELINE_RIM,
                                         DRIVELINE_STEER, DRIVELINE_STIFFNESS)

_TIME_EPSILON_S = 1e-9  # float slack so n steps of dt_s finish an n * dt_s shift


@compiled_stage
def _automatic_shift(vehicle, speed, stick, gear, gears, reverse_engage_mps, shift_time_s,
                     reverse, neutral, first, gear_index, target_index, from_index,
                     shift_left_s, started):
    """Automatic mode: shift up or down at the gear's thresholds (not while shifting); at a
    standstill the stick picks the direction. Returns the engaged gear (N once a shift
    starts)."""
    wanted = gear
    if speed > gears[gear, 2]:
        wanted += 1
    if speed < gears[gear, 3]:
        wanted -= 1
    if abs(speed) < reverse_engage_mps:
        if stick > 0.0 and gear < first:
            wanted = first
        if stick < 0.0 and gear != reverse:
            wanted = reverse
    if wanted == gear:
        return gear
    from_index[vehicle] = gear
    target_index[vehicle] = wanted
    gear_index[vehicle] = neutral
    shift_left_s[vehicle] = shift_time_s
    started[vehicle] = True
    return neutral


@compiled_loop
def step_gearboxes(dt_s, speed_mps, throttle, driveline, automatic, gear_index, target_index,
                    from_index, shift_left_s, rpm, last_speed_mps, power_share, kind, gears,
                    settings, engine, curve, reverse, neutral, first, rim_speed_mps, force_n,
                    push_n, hold, started, finished):
    """One step of every gearbox, in place (compiled where numba is installed; a plain loop
    otherwise). ``kind``: each vehicle's kind, the first index of the per-kind tables:
    ``gears`` (kinds, gears, 4) the stepping tables (a kind with fewer gears padded with
    gears never engaged); ``settings`` (kinds, 3): reverse engage speed, shift time and the
    speed below which a vehicle in gear off the throttle, on the ground, is held (as it is
    rolling against its gear's way at any speed); ``engine`` (kinds, ENGINE_SETTINGS) and
    ``curve`` (kinds, points, 3): :mod:`physics.model.engine`'s settings and torque curve
    (a shorter curve padded: its settings say how many points are its own).
    ``reverse``, ``neutral``, ``first``: the gear indices of R, N and 1, the same in every
    kind. ``last_speed_mps``: each vehicle's forward speed a step ago, brought up to date
    (the resistance besides the anchors' is what their forces leave unexplained of the
    vehicle's acceleration over the last step); ``power_share``: each engine's torque as a
    share of its own (a damaged one's less)."""
    for vehicle in range(speed_mps.shape[0]):
        # This vehicle's kind's tables (views: nothing copied).
        own = kind[vehicle]
        own_gears, own_engine, own_curve = gears[own], engine[own], curve[own]
        reverse_engage_mps, shift_time_s = settings[own, 0], settings[own, 1]
        hold_mps = settings[own, 2]
        gear = gear_index[vehicle]
        stick = min(max(throttle[vehicle], -1.0), 1.0)
        if automatic[vehicle] and target_index[vehicle] == gear:
            gear = _automatic_shift(vehicle, speed_mps[vehicle], stick, gear, own_gears,
                                    reverse_engage_mps, shift_time_s, reverse, neutral, first,
                                    gear_index, target_index, from_index, shift_left_s, started)
        engaged = target_index[vehicle] == gear
        # The pedal: the throttle, reversed for an automatic in R (the stick pulled back);
        # closed while a shift is under way (the clutch is out).
        pedal = max(-stick if automatic[vehicle] and target_index[vehicle] == reverse
                    else stick, 0.0) if engaged else 0.0
        free_load_n = driveline[vehicle, DRIVELINE_FREE_LOAD]
        resistance_n = (driveline[vehicle, DRIVELINE_DRIVE] + free_load_n - own_engine[MASS]
                        * (speed_mps[vehicle] - last_speed_mps[vehicle]) / dt_s)
        last_speed_mps[vehicle] = speed_mps[vehicle]
        engine_rad_s, rim_speed_mps[vehicle], force = engine_step(
            dt_s, rpm[vehicle] / RPM_PER_RAD_S, own_gears[gear, 0], own_gears[gear, 1], pedal,
            driveline[vehicle, DRIVELINE_RIM], driveline[vehicle, DRIVELINE_GRIPPING],
            free_load_n, driveline[vehicle, DRIVELINE_STIFFNESS], resistance_n,
            driveline[vehicle, DRIVELINE_STEER], power_share[vehicle], own_engine, own_curve)
        rpm[vehicle] = engine_rad_s * RPM_PER_RAD_S
        force_n[vehicle] = abs(force)
        push_n[vehicle] = force
        hold[vehicle] = (engaged and gear != neutral and pedal == 0.0
                         and driveline[vehicle, DRIVELINE_GROUNDED] > 0.0
                         and (abs(speed_mps[vehicle]) < hold_mps
                              or speed_mps[vehicle] * own_gears[gear, 0] < 0.0))
        if not engaged:
            shift_left_s[vehicle] -= dt_s
            if shift_left_s[vehicle] <= _TIME_EPSILON_S:
                gear_index[vehicle] = target_index[vehicle]
                shift_left_s[vehicle] = 0.0
                finished[vehicle] = True


