"""Behaviour of the H-pattern gearbox (physics/gearbox.py): specs, shifting, drive command, automatic."""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path

import numpy as np
import pytest

from physics.model.gearbox import (KMH_PER_MPS, DriveCommand, Gearbox, GearboxSpec, GearboxStep,
                                   GearRequest, gate_layout)
from physics.model.spec import SpecError, build_spec

CONFIG = Path(__file__).resolve().parents[1] / "config" / "gearboxes.toml"
DT_S = 1.0 / 60.0


def tank_table() -> dict:
    with CONFIG.open("rb") as file:
        return tomllib.load(file)["tank"]


@pytest.fixture(scope="module")
def spec() -> GearboxSpec:
    return build_spec(GearboxSpec, tank_table())


def gear(spec: GearboxSpec, name: str):
    return next(g for g in spec.gears if g.name == name)


def top_mps(spec: GearboxSpec, name: str) -> float:
    return gear(spec, name).top_speed_kmh / KMH_PER_MPS


def steps_per_shift(spec: GearboxSpec) -> int:
    return round(spec.shift_time_s / DT_S)


def engaged(spec: GearboxSpec, name: str, count: int = 1, automatic: bool = False) -> Gearbox:
    """A gearbox with every vehicle already in ``name`` (shift finished), at rest."""
    box = Gearbox(spec, count, automatic=automatic)
    for vehicle in range(count):
        box.request(vehicle, name, 0.0)
    for _ in range(steps_per_shift(spec) + 1):
        box.step(DT_S, np.zeros(count), np.zeros(count))
    assert box.gear_names() == [name] * count
    return box


def shifts_of(box: Gearbox, result: GearboxStep, vehicle: int = 0) -> list[tuple[str, str, str]]:
    """The shifts one vehicle started ("start", automatic) and finished ("shift") in a step,
    each (what, from, to)."""
    return ([("start", *box.shift_names(vehicle))] if result.started[vehicle] else []) + \
        ([("shift", *box.shift_names(vehicle))] if result.finished[vehicle] else [])


def step1(box: Gearbox, speed_mps: float, throttle: float
          ) -> tuple[DriveCommand, list[tuple[str, str, str]]]:
    result = box.step(DT_S, np.array([speed_mps]), np.array([throttle]))
    return result.command, shifts_of(box, result)


# ----- specs -------------------------------------------------------------------

def test_tank_config_validates(spec):
    names = [g.name for g in spec.gears]
    assert sorted(names) == ["1", "2", "3", "4", "5", "R"]
    forward = [gear(spec, n) for n in "12345"]
    assert all(a.top_speed_kmh < b.top_speed_kmh for a, b in zip(forward, forward[1:]))
    assert all(a.pull >= b.pull for a, b in zip(forward, forward[1:]))
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


@pytest.mark.parametrize("down", [0.9, 0.95, 0.6])
def test_automatic_thresholds_that_would_hunt_rejected(down):
    table = tank_table()
    table["automatic_downshift_fraction"] = down
    with pytest.raises(SpecError) as error:
        build_spec(GearboxSpec, table)
    assert error.value.key == "automatic_downshift_fraction"


def test_gate_layout_is_an_h_with_neutral_in_the_centre(spec):
    gate = Gearbox(spec, 1).gate
    assert gate == gate_layout(5)
    assert gate["N"] == (0.0, 0.0)
    assert gate["1"] == (-1.0, 1.0) and gate["2"] == (-1.0, -1.0)
    assert gate["3"] == (0.0, 1.0) and gate["4"] == (0.0, -1.0)
    assert gate["5"] == (1.0, 1.0) and gate["R"] == (1.0, -1.0)


# ----- shifting ----------------------------------------------------------------

def test_shift_takes_shift_time_without_drive_then_gives_new_pull(spec):
    box = engaged(spec, "2")
    speed_mps = 0.5 * top_mps(spec, "2")
    assert box.request(0, "3", speed_mps) == GearRequest("started", "2", "3")
    for _ in range(steps_per_shift(spec)):
        command, events = step1(box, speed_mps, 1.0)
        assert command.force_fraction[0] == 0.0
        assert command.target_speed_mps[0] == 0.0
    assert events == [("shift", "2", "3")]
    assert box.gear_name(0) == "3"
    command, events = step1(box, speed_mps, 1.0)
    assert events == []
    assert command.force_fraction[0] == pytest.approx(gear(spec, "3").pull)


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
    assert box.shift_down(0, speed_mps).to_gear == "3"  # 3 tops out above this speed


def test_sequential_shifting_walks_the_gear_order(spec):
    box = Gearbox(spec, 1)
    assert box.shift_down(0, 0.0).to_gear == "R"
    assert box.selected_name(0) == "R" and box.gear_name(0) == "N"  # nothing engaged mid-shift
    for _ in range(steps_per_shift(spec)):
        step1(box, 0.0, 0.0)
    assert box.gear_name(0) == "R"
    assert box.shift_down(0, 0.0).outcome == "unchanged"  # nothing below R
    assert box.shift_up(0, 0.0) == GearRequest("shifted", "R", "N")  # instant
    assert box.shift_up(0, 0.0).to_gear == "1"
    assert box.shift_up(0, 0.0).to_gear == "2"  # from the selected gear, even mid-shift
    assert box.selected_name(0) == "2"


# ----- drive command -----------------------------------------------------------

def test_neutral_gives_no_force(spec):
    box = Gearbox(spec, 1)
    command, _ = step1(box, 0.0, 1.0)
    assert command.force_fraction[0] == 0.0
    assert command.target_speed_mps[0] == 0.0


@pytest.mark.parametrize("name", ["1", "3", "5"])
@pytest.mark.parametrize("throttle", [1.0, 0.5])
def test_forward_target_speed_and_force(spec, name, throttle):
    box = engaged(spec, name)
    command, _ = step1(box, 0.0, throttle)
    assert command.target_speed_mps[0] == pytest.approx(throttle * top_mps(spec, name))
    assert command.force_fraction[0] == pytest.approx(throttle * gear(spec, name).pull)


def test_reverse_target_speed_is_negative_for_positive_throttle(spec):
    box = engaged(spec, "R")
    command, _ = step1(box, 0.0, 0.5)
    assert command.target_speed_mps[0] == pytest.approx(-0.5 * top_mps(spec, "R"))
    assert command.force_fraction[0] == pytest.approx(0.5 * gear(spec, "R").pull)


def test_off_throttle_engine_brakes_toward_zero(spec):
    box = engaged(spec, "3")
    command, _ = step1(box, 0.5 * top_mps(spec, "3"), 0.0)
    assert command.target_speed_mps[0] == 0.0
    assert command.force_fraction[0] == pytest.approx(spec.engine_brake * gear(spec, "3").pull)
    command, _ = step1(box, 0.5 * top_mps(spec, "3"), -1.0)  # negative throttle in a forward gear counts as 0
    assert command.target_speed_mps[0] == 0.0
    assert command.force_fraction[0] == pytest.approx(spec.engine_brake * gear(spec, "3").pull)


def test_rpm_idle_at_rest_and_redline_at_top_speed(spec):
    box = engaged(spec, "2")
    command, _ = step1(box, 0.0, 1.0)
    assert command.rpm[0] == pytest.approx(spec.idle_rpm)
    command, _ = step1(box, top_mps(spec, "2"), 1.0)
    assert command.rpm[0] == pytest.approx(spec.redline_rpm)
    command, _ = step1(box, 2.0 * top_mps(spec, "2"), 1.0)
    assert command.rpm[0] == pytest.approx(spec.redline_rpm)  # clipped


def test_rpm_free_revs_in_neutral(spec):
    box = Gearbox(spec, 1)
    rpms = [step1(box, 0.0, 1.0)[0].rpm[0] for _ in range(round(10 * spec.shift_time_s / DT_S))]
    assert spec.idle_rpm < rpms[0] < rpms[10] < spec.redline_rpm
    assert rpms[-1] == pytest.approx(spec.redline_rpm, rel=1e-3)
    for _ in range(round(10 * spec.shift_time_s / DT_S)):
        command, _ = step1(box, 0.0, 0.0)
    assert command.rpm[0] == pytest.approx(spec.idle_rpm, rel=1e-3)


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
    command, _ = step1(box, 0.0, -1.0)  # in automatic, the stick's back direction drives backward
    assert command.target_speed_mps[0] == pytest.approx(-top_mps(spec, "R"))
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
    many = Gearbox(spec, count, automatic=automatic)
    for vehicle, name in enumerate(start):
        many.request(vehicle, name, 0.0)
    alone = []
    for vehicle, name in enumerate(start):
        box = Gearbox(spec, 1, automatic=bool(automatic[vehicle]))
        box.request(0, name, 0.0)
        alone.append(box)
    speeds = rng.uniform(-3.0, 14.0, count)
    for step in range(90):
        speeds = np.clip(speeds + rng.normal(0.0, 0.3, count), -3.0, 14.0)
        throttle = rng.uniform(-1.0, 1.0, count)
        if step == 40:  # mid-run manual requests on some vehicles
            for vehicle in range(0, count, 9):
                assert (many.shift_up(vehicle, speeds[vehicle])
                        == alone[vehicle].shift_up(0, speeds[vehicle]))
        result = many.step(DT_S, speeds, throttle)
        for vehicle, box in enumerate(alone):
            single = box.step(DT_S, speeds[vehicle:vehicle + 1], throttle[vehicle:vehicle + 1])
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
