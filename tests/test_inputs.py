"""Scripted inputs files (game.sim.controls.ScriptedInputs): timing, held values, validation."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import pytest

from common.errors import UserError
from game.sim.controls import GEAR_NAMES, Controls, ScriptedInputs, made_controls

SOURCE = Path("script.json")


def inputs(*events) -> ScriptedInputs:
    return ScriptedInputs(ScriptedInputs.parse({"events": list(events)}, SOURCE))


def parse_error(document) -> str:
    with pytest.raises(UserError) as caught:
        ScriptedInputs.parse(document, SOURCE)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(str(SOURCE) + ":"), message
    return message


# ----- timing ------------------------------------------------------------------------------


def test_events_apply_from_their_time_on_and_unnamed_controls_keep_their_value():
    script = inputs({"t": 0.0, "throttle": 0.5, "gear": "2"},
                    {"t": 1.0, "steer": 1.0},
                    {"t": 2.5, "throttle": 0.0, "fire": True})
    assert script.controls_at(0.0) == Controls(throttle=0.5, gear="2")
    assert script.controls_at(0.999) == Controls(throttle=0.5, gear="2")
    assert script.controls_at(1.0) == Controls(throttle=0.5, steer=1.0, gear="2")
    assert script.controls_at(2.0) == Controls(throttle=0.5, steer=1.0, gear="2")
    assert script.controls_at(2.5) == Controls(throttle=0.0, steer=1.0, gear="2", fire=True)
    assert script.controls_at(100.0) == Controls(throttle=0.0, steer=1.0, gear="2", fire=True)


def test_before_the_first_event_the_controls_are_idle():
    script = inputs({"t": 0.5, "throttle": 1.0})
    assert script.controls_at(0.0) == Controls()
    assert script.controls_at(0.49) == Controls()
    assert script.controls_at(0.5).throttle == 1.0


def test_events_at_the_same_time_and_skipped_events_all_apply_in_order():
    script = inputs({"t": 1.0, "throttle": 1.0, "brake": 0.5},
                    {"t": 1.0, "throttle": -0.5},
                    {"t": 2.0, "steer": 0.25},
                    {"t": 3.0, "steer": -0.25, "handbrake": True})
    assert script.controls_at(5.0) == Controls(throttle=-0.5, brake=0.5, steer=-0.25,
                                               handbrake=True)


def test_a_step_time_that_lands_on_an_event_time_applies_it():
    """Simulation time is step_count / 60; an event at t = 0.1 applies at step 6."""
    script = inputs({"t": 0.1, "throttle": 1.0})
    assert script.controls_at(5 / 60).throttle == 0.0
    assert script.controls_at(6 / 60).throttle == 1.0


def test_axis_values_are_floats_and_controls_are_frozen():
    controls = inputs({"t": 0, "throttle": 1, "turret": -1}).controls_at(0.0)
    assert isinstance(controls.throttle, float) and isinstance(controls.turret, float)
    with pytest.raises(dataclasses.FrozenInstanceError):
        controls.throttle = 0.0  # type: ignore[misc]


def test_no_events_is_fine():
    assert inputs().controls_at(10.0) == Controls()


# ----- validation -------------------------------------------------------------------------------


@pytest.mark.parametrize("gear", GEAR_NAMES)
def test_every_gear_name_is_accepted(gear):
    assert inputs({"t": 0, "gear": gear}).controls_at(0.0).gear == gear


@pytest.mark.parametrize("gear", ["6", "0", "r", "n", "", "first", 1, 1.0, None, ["1"], True])
def test_bad_gears_are_refused(gear):
    message = parse_error({"events": [{"t": 0, "throttle": 0.5}, {"t": 1, "gear": gear}]})
    assert "events[1].gear" in message and '"N"' in message and '"R"' in message


@pytest.mark.parametrize("name, value, bounds", [
    ("throttle", 2, "[-1, 1]"), ("throttle", -1.5, "[-1, 1]"), ("throttle", "1", "[-1, 1]"),
    ("throttle", True, "[-1, 1]"), ("throttle", math.nan, "[-1, 1]"),
    ("throttle", math.inf, "[-1, 1]"), ("throttle", None, "[-1, 1]"),
    ("steer", 1.01, "[-1, 1]"), ("brake", -0.1, "[0, 1]"), ("brake", 1.5, "[0, 1]"),
    ("turret", 3, "[-1, 1]"), ("elevation", -2, "[-1, 1]")])
def test_bad_axis_values_are_refused(name, value, bounds):
    message = parse_error({"events": [{"t": 0, name: value}]})
    assert f"events[0].{name}" in message and f"a number in {bounds}" in message


@pytest.mark.parametrize("name, value", [("steer", -1), ("steer", 1), ("brake", 0),
                                         ("brake", 1), ("throttle", -1), ("elevation", 0.3)])
def test_axis_limits_are_accepted(name, value):
    assert getattr(inputs({"t": 0, name: value}).controls_at(0.0), name) == value


@pytest.mark.parametrize("name, value", [("handbrake", 1), ("fire", "yes"), ("fire", None)])
def test_switches_take_booleans_only(name, value):
    message = parse_error({"events": [{"t": 0, name: value}]})
    assert f"events[0].{name}" in message and "true or false" in message


def test_an_unknown_control_is_refused_and_the_known_ones_listed():
    message = parse_error({"events": [{"t": 0, "throttle": 1}, {"t": 2, "nitro": True}]})
    assert "events[1].nitro" in message and "throttle" in message and "steer" in message


@pytest.mark.parametrize("events, index", [
    ([{"throttle": 1}], 0), ([{"t": -0.1}], 0), ([{"t": "0"}], 0), ([{"t": True}], 0),
    ([{"t": None}], 0), ([{"t": math.nan}], 0), ([{"t": math.inf}], 0),
    ([{"t": 1.0}, {"t": 0.5}], 1), ([{"t": 0}, {"t": 2}, {"t": 1.999}], 2)])
def test_bad_or_backward_times_are_refused(events, index):
    message = parse_error({"events": events})
    assert f"events[{index}].t" in message and "time order" in message


@pytest.mark.parametrize("document", [[], "events", None, {"events": []} | {"extra": 1},
                                      {"evnts": []}])
def test_the_document_must_be_an_object_with_events(document):
    assert '"events"' in parse_error(document)


@pytest.mark.parametrize("events", [{"t": 0}, "t=0", None])
def test_events_must_be_a_list(events):
    assert "events" in parse_error({"events": events})


@pytest.mark.parametrize("event", [3, "throttle", None, [0.0, 1.0]])
def test_each_event_must_be_an_object(event):
    message = parse_error({"events": [{"t": 0}, event]})
    assert "events[1]" in message and "object" in message


# ----- files ------------------------------------------------------------------------------------


def load_error(path: Path) -> str:
    with pytest.raises(UserError) as caught:
        ScriptedInputs.load(path)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(str(path) + ":"), message
    return message


def test_load_reads_a_file(tmp_path):
    path = tmp_path / "in.json"
    path.write_text(json.dumps({"events": [{"t": 0, "brake": 1}]}), encoding="utf-8")
    assert ScriptedInputs.load(path).controls_at(0.0) == Controls(brake=1.0)


def test_load_missing_file(tmp_path):
    assert "no such file" in load_error(tmp_path / "nope.json")


def test_load_a_folder(tmp_path):
    assert "readable" in load_error(tmp_path)


def test_load_bad_json_says_where(tmp_path):
    path = tmp_path / "in.json"
    path.write_text('{"events": [\n  {"t": 0,}\n]}', encoding="utf-8")
    message = load_error(path)
    assert "JSON" in message and "line 2" in message


@pytest.mark.parametrize("content", [b"", b"\xff\xfe\x00garbage", b"[" * 100_000],
                         ids=["empty", "not-utf8", "deeply-nested"])
def test_load_garbage(tmp_path, content):
    path = tmp_path / "in.json"
    path.write_bytes(content)
    assert "expected" in load_error(path)


def test_controls_made_through_their_slots_are_the_same_frozen_controls():
    values = {"throttle": 0.25, "steer": -0.5, "brake": 1.0, "handbrake": True, "gear": "3",
              "fire": True, "turret": -0.75, "elevation": 0.125, "reset": True,
              "swap_vehicle": True}
    made = made_controls(**values)
    assert type(made) is Controls and made == Controls(**values)
    assert made_controls() == Controls()
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.throttle = 0.0  # type: ignore[misc]
