"""Behaviour of the H-pattern gearbox with its engine and clutch (physics/model/gearbox.py,
physics/model/engine.py): specs, shifting, the drive command, automatic.

The drive is tried against a point mass driven as the anchors drive a vehicle: toward the
commanded rim speed with at most the commanded force."""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path

import numpy as np
import pytest

from common.spec import SpecError, build_spec
from game.input.gamepad import shifted_lever
from physics.model.engine import RPM_PER_RAD_S, Driveline
from physics.model.gearbox import (KMH_PER_MPS, DriveCommand, Gearbox, GearboxSpec, GearboxStep,
                                   GearRequest, gate_layout)
from physics.model.kernel_tables import (DRIVELINE_COLUMNS, DRIVELINE_DRIVE, DRIVELINE_FREE_LOAD,
                                         DRIVELINE_GRIPPING, DRIVELINE_GROUNDED, DRIVELINE_RIM,
                                         DRIVELINE_STEER)

CONFIG = Path(__file__).resolve().parents[1] / "config" / "gearboxes.toml"
DT_S = 1.0 / 60.0
MASS_KG = 45000.0
SPROCKET_M = 0.33
ROLLING_N = 0.04 * MASS_KG * 9.81
"""The tank's rolling resistance on hardpan."""


def tank_table() -> dict:
    with CONFIG.open("rb") as file:
        return tomllib.load(file)["medium_tank"]


@pytest.fixture(scope="module")
def spec() -> GearboxSpec:
    return build_spec(GearboxSpec, tank_table())


def gear(spec: GearboxSpec, name: str):
    return next(g for g in spec.gears if g.name == name)


def top_mps(spec: GearboxSpec, name: str) -> float:
    return gear(spec, name).top_speed_kmh / KMH_PER_MPS


def steps_per_shift(spec: GearboxSpec) -> int:
    return round(spec.shift_time_s / DT_S)


def gearbox(spec: GearboxSpec, count: int = 1, automatic=False) -> Gearbox:
    """Gearboxes of ``count`` tanks, the steer unit geared like first gear."""
    return Gearbox(spec, count, automatic=automatic,
                   driveline=Driveline(SPROCKET_M, MASS_KG, 0.0, spec.rad_s_per_mps("1")))


def rolling(speed_mps, gripping=1.0, free_load_n=0.0, steer_mps=0.0, drive_n=0.0,
            grounded=1.0) -> np.ndarray:
    """Driveline sums of vehicles whose tracks grip and roll at ``speed_mps``."""
    speeds = np.atleast_1d(np.asarray(speed_mps, dtype=float))
    sums = np.zeros((len(speeds), DRIVELINE_COLUMNS))
    sums[:, DRIVELINE_RIM] = speeds
    sums[:, DRIVELINE_GRIPPING] = gripping
    sums[:, DRIVELINE_FREE_LOAD] = free_load_n
    sums[:, DRIVELINE_STEER] = steer_mps
    sums[:, DRIVELINE_DRIVE] = drive_n
    sums[:, DRIVELINE_GROUNDED] = grounded
    return sums


def engaged(spec: GearboxSpec, name: str, count: int = 1, automatic: bool = False) -> Gearbox:
    """A gearbox with every vehicle already in ``name`` (shift finished), at rest."""
    box = gearbox(spec, count, automatic=automatic)
    for vehicle in range(count):
        box.request(vehicle, name, 0.0)
    for _ in range(steps_per_shift(spec) + 1):
        box.step(DT_S, np.zeros(count), np.zeros(count), rolling(np.zeros(count)))
    assert box.gear_names() == [name] * count
    return box


def shift(box: Gearbox, vehicle: int, direction: int, speed_mps: float) -> GearRequest:
    """A sequential shift as the keyboard's and the pad's are made: the gear one step up
    (+1) or down (-1) the order R, N, 1, 2, ... from the one selected, requested."""
    lever = shifted_lever(box.selected_name(vehicle), direction, None)
    return box.request(vehicle, lever, speed_mps)


def shifts_of(box: Gearbox, result: GearboxStep, vehicle: int = 0) -> list[tuple[str, str, str]]:
    """The shifts one vehicle started ("start", automatic) and finished ("shift") in a step,
    each (what, from, to)."""
    return ([("start", *box.shift_names(vehicle))] if result.started[vehicle] else []) + \
        ([("shift", *box.shift_names(vehicle))] if result.finished[vehicle] else [])


def step1(box: Gearbox, speed_mps: float, throttle: float, rim_mps: float | None = None,
          **driveline) -> tuple[DriveCommand, list[tuple[str, str, str]]]:
    result = box.step(DT_S, np.array([speed_mps]), np.array([throttle]),
                      rolling(speed_mps if rim_mps is None else rim_mps, **driveline))
    return result.command, shifts_of(box, result)


def drive(box: Gearbox, seconds: float, throttle: float, speed_mps: float = 0.0,
          resistance_n: float = ROLLING_N) -> tuple[float, list[tuple[float, float, float]]]:
    """A point mass on gripping tracks, driven as the anchors drive it (toward the rim speed
    with at most the force), held back by ``resistance_n`` against its motion. Returns its
    speed at the end and, per step, (speed, engine rpm, the driveline's rpm)."""
    rows, drive_n = [], 0.0
    for _ in range(round(seconds / DT_S)):
        command, _ = step1(box, speed_mps, throttle, drive_n=drive_n)
        wanted_n = MASS_KG * (command.rim_speed_mps[0] - speed_mps) / DT_S
        drive_n = float(np.clip(wanted_n, -command.force_n[0], command.force_n[0]))
        holding_n = float(np.clip(MASS_KG * speed_mps / DT_S + drive_n, -resistance_n,
                                  resistance_n))
        speed_mps += (drive_n - holding_n) * DT_S / MASS_KG
        ratio = box.kind_of(0).overall_ratios[box.gear_index[0]] / SPROCKET_M
        rows.append((speed_mps, command.rpm[0], abs(speed_mps) * ratio * RPM_PER_RAD_S))
    return speed_mps, rows


# ----- specs -------------------------------------------------------------------

def test_tank_config_validates(spec):
    names = [g.name for g in spec.gears]
    assert sorted(names) == ["1", "2", "3", "4", "5", "R"]
    forward = [gear(spec, n) for n in "12345"]
    assert all(a.top_speed_kmh < b.top_speed_kmh for a, b in zip(forward, forward[1:]))
    assert spec.idle_rpm < spec.redline_rpm


def test_forward_gears_out_of_order_rejected():
    table = tank_table()
    table["gears"][3]["top_speed_kmh"] = 10.0  # gear "3" slower than gear "2"
    with pytest.raises(SpecError) as error:
        build_spec(GearboxSpec, table)
    assert error.value.key == "gears[3].top_speed_kmh"


def test_forward_gear_names_out_of_order_rejected():
    table = tank_table()
    table["gears"][2]["name"], table["gears"][3]["name"] = "3", "2"
    with pytest.raises(SpecError) as error:
        build_spec(GearboxSpec, table)
    assert error.value.key == "gears[2].name"


def test_two_reverse_gears_rejected():
    table = tank_table()
    table["gears"][5]["name"] = "R"
    with pytest.raises(SpecError) as error:
        build_spec(GearboxSpec, table)
    assert error.value.key == "gears"


def test_redline_below_idle_rejected():
    table = tank_table()
    table["redline_rpm"] = table["idle_rpm"] - 100.0
    with pytest.raises(SpecError) as error:
        build_spec(GearboxSpec, table)
    assert error.value.key == "redline_rpm"


def test_unknown_key_rejected():
    table = tank_table()
    table["clutch_bite"] = 0.5
    with pytest.raises(SpecError) as error:
        build_spec(GearboxSpec, table)
    assert error.value.key == "clutch_bite"


def test_unknown_key_in_a_gear_rejected():
    table = tank_table()
    table["gears"][1]["ratio"] = 3.2
    with pytest.raises(SpecError) as error:
        build_spec(GearboxSpec, table)
    assert error.value.key == "gears[1].ratio"


@pytest.mark.parametrize("change, key", [
    (lambda t: t.update(driveline_inertia_kg_m2=0.0), "driveline_inertia_kg_m2"),
    (lambda t: t["engine"]["torque_curve"][-1].update(rpm=2500.0),
     "engine.torque_curve[7].rpm"),  # the curve stops short of the redline
    (lambda t: t["engine"].update(torque_curve=t["engine"]["torque_curve"][2:]),
     "engine.torque_curve[0].rpm"),  # nor does it reach down to idle
    (lambda t: t["engine"]["torque_curve"][3].update(rpm=900.0),
     "engine.torque_curve[3].rpm"),  # rpm not ascending
    (lambda t: t["engine"]["torque_curve"][2].update(closed_throttle_nm=10.0),
     "engine.torque_curve[2].closed_throttle_nm"),  # a drag that drives
    (lambda t: t["clutch"].update(bite_rpm=600.0), "clutch.bite_rpm"),  # it would creep at idle
    (lambda t: t["clutch"].update(lock_rpm=850.0), "clutch.lock_rpm"),
])
def test_engine_and_clutch_mistakes_rejected(change, key):
    table = tank_table()
    change(table)
    with pytest.raises(SpecError) as error:
        build_spec(GearboxSpec, table)
    assert error.value.key == key


@pytest.mark.parametrize("down", [0.9, 0.95, 0.6])
def test_automatic_thresholds_that_would_hunt_rejected(down):
    table = tank_table()
    table["automatic_downshift_fraction"] = down
    with pytest.raises(SpecError) as error:
        build_spec(GearboxSpec, table)
    assert error.value.key == "automatic_downshift_fraction"


def test_gate_layout_is_an_h_with_neutral_in_the_centre(spec):
    gate = gearbox(spec).kind_of(0).gate
    assert gate == gate_layout(5)
    assert gate["N"] == (0.0, 0.0)
    assert gate["1"] == (-1.0, 1.0) and gate["2"] == (-1.0, -1.0)
    assert gate["3"] == (0.0, 1.0) and gate["4"] == (0.0, -1.0)
    assert gate["5"] == (1.0, 1.0) and gate["R"] == (1.0, -1.0)


# ----- shifting ----------------------------------------------------------------

def test_shift_takes_shift_time_without_drive_then_drives_again(spec):
    box = engaged(spec, "2")
    speed_mps = 0.5 * top_mps(spec, "2")
    drive(box, 1.0, 1.0, speed_mps)
    assert box.request(0, "3", speed_mps) == GearRequest("started", "2", "3")
    for _ in range(steps_per_shift(spec)):
        command, events = step1(box, speed_mps, 1.0)
        assert command.force_n[0] == 0.0
    assert events == [("shift", "2", "3")]
    assert box.gear_name(0) == "3"
    speeds = [drive(box, DT_S, 1.0, speed_mps)[0]]
    speeds.append(drive(box, 1.0, 1.0, speeds[0])[0])
    assert speeds[1] > speeds[0] > speed_mps


def test_the_overall_ratios_put_the_redline_at_each_gears_top_speed(spec):
    box = gearbox(spec).kind_of(0)
    for name in "R12345":
        index = box.names.index(name)
        sprocket_rad_s = top_mps(spec, name) / SPROCKET_M
        assert box.overall_ratios[index] * sprocket_rad_s * RPM_PER_RAD_S == pytest.approx(
            spec.redline_rpm)
        assert box.gear_ratios[index] == pytest.approx(box.overall_ratios[index]
                                                       / spec.final_drive_ratio)
    assert box.overall_ratios[box.names.index("N")] == 0.0


def test_requesting_the_current_gear_is_a_no_op(spec):
    box = engaged(spec, "1")
    assert box.request(0, "1", 0.0).outcome == "unchanged"
    assert not box.shifting[0]


def test_unknown_gear_refused(spec):
    box = engaged(spec, "1")
    assert box.request(0, "7", 0.0) == GearRequest("refused", "1", "7", "unknown")
    assert box.gear_name(0) == "1"


def test_reverse_refused_while_moving_accepted_near_standstill(spec):
    box = engaged(spec, "2")
    fast_mps = 2.0 * spec.reverse_engage_below_kmh / KMH_PER_MPS
    assert box.request(0, "R", fast_mps) == GearRequest("refused", "2", "R", "moving")
    assert box.request(0, "R", -fast_mps).reason == "moving"
    assert box.gear_name(0) == "2"
    request = box.request(0, "R", 0.1 * spec.reverse_engage_below_kmh / KMH_PER_MPS)
    assert request.outcome == "started" and request.to_gear == "R"


def test_forward_gear_refused_while_reversing(spec):
    box = engaged(spec, "R")
    reversing_mps = -0.9 * top_mps(spec, "R")
    assert box.request(0, "1", reversing_mps).reason == "moving"
    assert box.request(0, "N", reversing_mps).outcome == "shifted"  # neutral always, instantly
    assert box.gear_name(0) == "N"


def test_over_rev_downshift_refused(spec):
    box = engaged(spec, "4")
    speed_mps = 0.6 * top_mps(spec, "4")
    assert top_mps(spec, "2") < speed_mps < top_mps(spec, "3")
    assert box.request(0, "2", speed_mps) == GearRequest("refused", "4", "2", "over_rev")
    assert shift(box, 0, -1, speed_mps).to_gear == "3"  # 3 tops out above this speed


def test_sequential_shifting_walks_the_gear_order(spec):
    box = gearbox(spec)
    assert shift(box, 0, -1, 0.0).to_gear == "R"
    assert box.selected_name(0) == "R" and box.gear_name(0) == "N"  # nothing engaged mid-shift
    for _ in range(steps_per_shift(spec)):
        step1(box, 0.0, 0.0)
    assert box.gear_name(0) == "R"
    assert shift(box, 0, -1, 0.0).outcome == "unchanged"  # nothing below R
    assert shift(box, 0, +1, 0.0) == GearRequest("shifted", "R", "N")  # instant
    assert shift(box, 0, +1, 0.0).to_gear == "1"
    assert shift(box, 0, +1, 0.0).to_gear == "2"  # from the selected gear, even mid-shift
    assert box.selected_name(0) == "2"


# ----- drive command -----------------------------------------------------------

def test_neutral_gives_no_force(spec):
    box = gearbox(spec)
    for _ in range(30):
        command, _ = step1(box, 0.0, 1.0)
        assert command.force_n[0] == 0.0


@pytest.mark.parametrize("name", ["1", "3", "5"])
def test_full_throttle_reaches_the_gears_top_speed_and_holds_it(spec, name):
    box = engaged(spec, name)
    speed_mps, rows = drive(box, 60.0, 1.0)
    assert speed_mps == pytest.approx(top_mps(spec, name), rel=0.03)
    assert rows[-1][1] == pytest.approx(spec.redline_rpm, rel=0.03)
    assert abs(rows[-1][1] - rows[-2][1]) < 1.0  # on the limiter, steady


def test_reverse_drives_backward_for_positive_throttle(spec):
    box = engaged(spec, "R")
    command, _ = step1(box, 0.0, 0.5)
    speed_mps, _ = drive(box, 20.0, 1.0)
    assert speed_mps == pytest.approx(-top_mps(spec, "R"), rel=0.03)


def test_pulling_away_the_clutch_slips_then_locks(spec):
    box = engaged(spec, "1")
    _, rows = drive(box, 3.0, 1.0)
    engine, driveline = np.array([row[1] for row in rows]), np.array([row[2] for row in rows])
    slipping = engine - driveline > 100.0
    assert slipping[:5].all()  # the engine runs ahead of the tracks at first
    locked = np.flatnonzero(~slipping)[0]
    assert engine[locked] > spec.clutch.bite_rpm
    assert np.allclose(engine[locked + 5:], driveline[locked + 5:], atol=30.0)  # then with them


def test_in_gear_off_the_throttle_the_engine_brakes_and_in_neutral_it_rolls(spec):
    speed_mps = 0.9 * top_mps(spec, "3")
    in_gear, in_neutral = engaged(spec, "3"), gearbox(spec)
    drive(in_gear, 5.0, 1.0, speed_mps)
    braked_mps, rows = drive(in_gear, 3.0, 0.0, speed_mps)
    rolled_mps, _ = drive(in_neutral, 3.0, 0.0, speed_mps)
    rolling_loss_mps = ROLLING_N / MASS_KG * 3.0
    assert rolled_mps == pytest.approx(speed_mps - rolling_loss_mps, rel=1e-3)
    assert braked_mps < rolled_mps - 0.2  # the engine's drag on top of the rolling resistance
    assert rows[-1][1] == pytest.approx(rows[-1][2], abs=30.0)  # turned by the tracks


def test_negative_throttle_in_a_forward_gear_counts_as_none(spec):
    speed_mps = 0.5 * top_mps(spec, "3")
    boxes = [engaged(spec, "3"), engaged(spec, "3")]
    ends = [drive(box, 2.0, throttle, speed_mps)[0] for box, throttle in zip(boxes, (0.0, -1.0))]
    assert ends[0] == ends[1]


def test_standing_in_gear_at_idle_it_does_not_creep(spec):
    box = engaged(spec, "1")
    speed_mps, rows = drive(box, 5.0, 0.0)
    assert speed_mps == 0.0
    assert rows[-1][1] == pytest.approx(spec.idle_rpm, rel=0.05)


def test_in_gear_off_the_throttle_and_nearly_still_the_brakes_hold(spec):
    hold_mps = spec.hold_below_kmh / KMH_PER_MPS
    box = engaged(spec, "1")
    assert step1(box, 0.0, 0.0)[0].hold[0]
    assert step1(box, -0.5 * hold_mps, 0.0)[0].hold[0]  # rolling back: held too
    assert step1(box, -3.0 * hold_mps, 0.0)[0].hold[0]  # against the gear's way, at any speed
    assert not step1(box, 0.0, 0.3)[0].hold[0]  # the throttle lets go
    assert not step1(box, 2.0 * hold_mps, 0.0)[0].hold[0]  # moving: it coasts
    assert not step1(gearbox(spec), 0.0, 0.0)[0].hold[0]  # in N it rolls
    assert not step1(box, 0.0, 0.0, gripping=0.0, grounded=0.0)[0].hold[0]  # in the air


def test_rpm_free_revs_in_neutral(spec):
    box = gearbox(spec)
    rpms = [step1(box, 0.0, 1.0)[0].rpm[0] for _ in range(round(10 * spec.shift_time_s / DT_S))]
    assert spec.idle_rpm < rpms[0] < rpms[10] < spec.redline_rpm
    assert rpms[-1] == pytest.approx(spec.redline_rpm, rel=0.05)
    for _ in range(round(10 * spec.shift_time_s / DT_S)):
        command, _ = step1(box, 0.0, 0.0)
    assert command.rpm[0] == pytest.approx(spec.idle_rpm, rel=0.05)


def test_spinning_tracks_rev_the_engine(spec):
    """Held still against a wall the engine bogs down on gripping tracks; on ice the
    tracks run with the engine (their belt speed is the commanded one) and it revs."""
    gripping, spinning = engaged(spec, "2"), engaged(spec, "2")
    belt_mps = 0.0
    for _ in range(40):
        gripped = step1(gripping, 0.0, 1.0)[0].rpm[0]
        command, _ = step1(spinning, 0.0, 1.0, rim_mps=belt_mps, gripping=0.0,
                           free_load_n=0.1 * ROLLING_N)
        spun, belt_mps = command.rpm[0], command.rim_speed_mps[0]
    assert spun > gripped + 500.0
    assert spun == pytest.approx(spec.redline_rpm, rel=0.05)


def test_pivoting_governs_the_engine_up_to_the_steer_units_speed(spec):
    box = gearbox(spec)
    pivot_mps = 6.0 / KMH_PER_MPS
    for _ in range(60):
        command, _ = step1(box, 0.0, 0.0, steer_mps=pivot_mps)
    steer_unit_rpm = spec.rad_s_per_mps("1") * pivot_mps * RPM_PER_RAD_S
    assert command.rpm[0] == pytest.approx(steer_unit_rpm, rel=0.05)
    assert command.rpm[0] > spec.idle_rpm + 500.0


# ----- automatic ---------------------------------------------------------------

def test_automatic_upshifts_past_threshold_and_downshifts_when_slowing(spec):
    box = engaged(spec, "1", automatic=True)
    threshold_mps = spec.automatic_upshift_fraction * top_mps(spec, "1")
    _, events = step1(box, 0.95 * threshold_mps, 1.0)
    assert events == []
    _, events = step1(box, 1.05 * threshold_mps, 1.0)
    assert events == [("start", "1", "2")]
    for _ in range(steps_per_shift(spec) - 1):  # the step that started the shift was its first
        _, events = step1(box, 1.05 * threshold_mps, 1.0)
    assert events[-1][0] == "shift" and box.gear_name(0) == "2"
    slow_mps = 0.9 * spec.automatic_downshift_fraction * top_mps(spec, "2")
    _, events = step1(box, slow_mps, 0.0)
    assert events == [("start", "2", "1")]


def test_automatic_selects_reverse_on_negative_throttle_at_standstill(spec):
    box = engaged(spec, "1", automatic=True)
    _, events = step1(box, 0.0, -1.0)
    assert events[0][2] == "R"
    for _ in range(steps_per_shift(spec)):
        command, _ = step1(box, 0.0, -1.0)
    assert box.gear_name(0) == "R"
    speed_mps, _ = drive(box, 20.0, -1.0)  # in automatic, the stick's back direction drives backward
    assert speed_mps == pytest.approx(-top_mps(spec, "R"), rel=0.03)
    _, events = step1(box, 0.0, 1.0)
    assert events[0][2] == "1"


def test_automatic_does_not_select_reverse_while_moving(spec):
    box = engaged(spec, "1", automatic=True)
    _, events = step1(box, 2.0 * spec.reverse_engage_below_kmh / KMH_PER_MPS, -1.0)
    assert events == [] and box.gear_name(0) == "1"


def test_set_automatic(spec):
    box = engaged(spec, "1")
    fast_mps = top_mps(spec, "1")
    assert step1(box, fast_mps, 1.0)[1] == []
    box.set_automatic(0, True)
    assert step1(box, fast_mps, 1.0)[1][0][2] == "2"


# ----- many vehicles -----------------------------------------------------------

def test_hundred_vehicles_in_one_call_match_each_alone(spec):
    count = 100
    rng = np.random.default_rng(7)
    names = ["R", "N", "1", "2", "3", "4", "5"]
    start = [names[i % len(names)] for i in range(count)]
    automatic = rng.random(count) < 0.5
    many = gearbox(spec, count, automatic=automatic)
    for vehicle, name in enumerate(start):
        many.request(vehicle, name, 0.0)
    alone = []
    for vehicle, name in enumerate(start):
        box = gearbox(spec, 1, automatic=bool(automatic[vehicle]))
        box.request(0, name, 0.0)
        alone.append(box)
    speeds = rng.uniform(-3.0, 14.0, count)
    for step in range(90):
        speeds = np.clip(speeds + rng.normal(0.0, 0.3, count), -3.0, 14.0)
        throttle = rng.uniform(-1.0, 1.0, count)
        if step == 40:  # mid-run manual requests on some vehicles
            for vehicle in range(0, count, 9):
                assert (shift(many, vehicle, +1, speeds[vehicle])
                        == shift(alone[vehicle], 0, +1, speeds[vehicle]))
        sums = rolling(speeds, gripping=rng.random(count), free_load_n=rng.normal(0.0, 1e4, count),
                       steer_mps=rng.normal(0.0, 1.0, count), drive_n=rng.normal(0.0, 1e5, count))
        result = many.step(DT_S, speeds, throttle, sums)
        for vehicle, box in enumerate(alone):
            single = box.step(DT_S, speeds[vehicle:vehicle + 1], throttle[vehicle:vehicle + 1],
                              sums[vehicle:vehicle + 1])
            for field in DriveCommand._fields:
                assert (getattr(result.command, field)[vehicle]
                        == getattr(single.command, field)[0]), (step, vehicle, field)
            assert shifts_of(many, result, vehicle) == shifts_of(box, single)
            assert many.gear_name(vehicle) == box.gear_name(0)
    assert len(set(many.gear_names())) > 2  # really in different gears


def test_table_is_not_mutated_by_build(spec):
    table = tank_table()
    before = copy.deepcopy(table)
    build_spec(GearboxSpec, table)
    assert table == before
