"""Keyboard and mouse mapping: held keys (and the gun sight's mouse aim) in, Controls out.

No device: KeyboardMapper is fed sets of Panda3D key names, as KeyboardInput would.
"""

from __future__ import annotations

from dataclasses import fields

import pytest

from common.spec import SpecError, build_spec
from game.input.keyboard import CAMERA_ACTIONS, KeyboardMapper, KeyboardSpec, MouseSpec, mouse_aim
from game.sim.controls import AUTOMATIC, Controls


@pytest.fixture
def mapper(keys):
    return KeyboardMapper(keys)


def test_no_key_does_two_things(keys):
    seen = {}
    for field in fields(KeyboardSpec):
        for key in getattr(keys, field.name):
            assert key not in seen, f"{key!r} is bound to {seen[key]} and {field.name}"
            seen[key] = field.name


def test_the_shipped_bindings(keys):
    assert keys.reset == ("backspace",)
    assert keys.swap_vehicle == ("f",)
    assert set(keys.fire) == {"space", "mouse1"}
    assert keys.turret_left == ("q",) and keys.turret_right == ("e",)
    assert "c" in keys.gun_up and "z" in keys.gun_down
    assert "r" in keys.gear_reverse, "R stays reverse"


def test_nothing_held_is_idle(mapper):
    assert mapper.controls(set()) == Controls()


def test_driving_keys(mapper):
    controls = mapper.controls({"w", "d"})
    assert (controls.throttle, controls.steer, controls.brake) == (1.0, 1.0, 0.0)
    controls = mapper.controls({"arrow_down", "arrow_left", "x"})
    assert (controls.brake, controls.steer, controls.handbrake) == (1.0, -1.0, True)
    assert mapper.controls({"a", "d"}).steer == 0.0


@pytest.mark.parametrize("held, turret, elevation", [
    ({"q"}, -1.0, 0.0), ({"e"}, 1.0, 0.0), ({"q", "e"}, 0.0, 0.0),
    ({"c"}, 0.0, 1.0), ({"page_up"}, 0.0, 1.0), ({"z"}, 0.0, -1.0),
    ({"page_down"}, 0.0, -1.0), ({"e", "c"}, 1.0, 1.0)])
def test_turret_and_gun_keys(mapper, held, turret, elevation):
    controls = mapper.controls(held)
    assert (controls.turret, controls.elevation) == (turret, elevation)
    assert controls.throttle == 0.0 and not controls.fire


@pytest.mark.parametrize("key", ["space", "mouse1"])
def test_fire_is_held_while_the_key_is(mapper, key):
    assert mapper.controls({key}).fire
    assert mapper.controls({key, "w"}).fire
    assert not mapper.controls(set()).fire


def test_reset_and_swap_are_held_booleans(mapper):
    controls = mapper.controls({"backspace"})
    assert controls.reset and not controls.swap_vehicle
    controls = mapper.controls({"f"})
    assert controls.swap_vehicle and not controls.reset
    # The simulation acts on the press edge; the mapper just says what is held.
    assert mapper.controls({"f"}).swap_vehicle


def test_gear_keys_move_the_lever_and_it_stays(mapper):
    assert mapper.controls(set()).gear is None
    mapper.press("2")
    assert mapper.controls(set()).gear == "2"
    mapper.press("t")
    assert mapper.controls({"w"}).gear == AUTOMATIC
    mapper.press("r")
    assert mapper.controls(set()).gear == "R"


def test_camera_presses_are_taken_once(mapper):
    mapper.press("v")
    mapper.press("wheel_up")
    mapper.press("f")  # not a camera action
    assert mapper.take_camera_presses() == ["camera_view", "camera_zoom_in"]
    assert mapper.take_camera_presses() == []
    assert set(CAMERA_ACTIONS) <= {f.name for f in fields(KeyboardSpec)}


def test_camera_orbit_is_held(mapper):
    assert mapper.held("camera_orbit", {"mouse3"})
    assert not mapper.held("camera_orbit", {"mouse1"})


def test_mouse_aim_has_a_dead_zone_and_a_full_rate(config):
    spec = config.controls.mouse
    assert mouse_aim(spec, 0.0, 0.0) == (0.0, 0.0)
    assert mouse_aim(spec, spec.dead_zone * 0.9, -spec.dead_zone * 0.9) == (0.0, 0.0)
    assert mouse_aim(spec, 1.0, -1.0) == (1.0, -1.0)
    assert mouse_aim(spec, spec.full_rate_at, 0.0) == (1.0, 0.0)
    half = (spec.dead_zone + spec.full_rate_at) / 2.0
    turret, elevation = mouse_aim(spec, -half, half)
    assert turret == pytest.approx(-0.5) and elevation == pytest.approx(0.5)


def test_keys_beat_the_mouse_aim_axis_by_axis(mapper):
    controls = mapper.controls(set(), aim=(0.4, -0.3))
    assert (controls.turret, controls.elevation) == (0.4, -0.3)
    controls = mapper.controls({"q"}, aim=(0.4, -0.3))
    assert (controls.turret, controls.elevation) == (-1.0, -0.3)
    controls = mapper.controls({"c"}, aim=(2.0, -0.3))
    assert (controls.turret, controls.elevation) == (1.0, 1.0)


def test_mouse_spec_checks_its_zones():
    with pytest.raises(SpecError):
        build_spec(MouseSpec, {"gunsight_aim": True, "dead_zone": 0.5, "full_rate_at": 0.4})
    spec = build_spec(MouseSpec, {"gunsight_aim": False, "dead_zone": 0.1, "full_rate_at": 0.5})
    assert not spec.gunsight_aim


def test_the_spec_lists_every_key_it_binds(keys):
    assert {"q", "e", "c", "z", "space", "mouse1", "backspace", "f"} <= keys.keys()


def test_the_shift_keys_are_g_and_b(keys):
    assert keys.gear_up == ("g",) and keys.gear_down == ("b",)


def test_a_shift_up_press_shifts_one_gear_and_holding_it_shifts_no_more(mapper):
    mapper.press("g")
    assert mapper.controls({"g"}, current_gear="2").gear == "3"
    for _ in range(5):  # the key stays down for a few steps: no auto-repeat
        assert mapper.controls({"g"}, current_gear="3").gear == "3"
    mapper.press("g")
    assert mapper.controls({"g"}, current_gear="3").gear == "4"


def test_a_shift_down_press_shifts_one_gear_and_holding_it_shifts_no_more(mapper):
    mapper.press("b")
    assert mapper.controls({"b"}, current_gear="1").gear == "N"
    assert mapper.controls({"b"}, current_gear="N").gear == "N"
    mapper.press("b")
    assert mapper.controls(set(), current_gear="N").gear == "R"
    mapper.press("b")  # R is the bottom of the lever's travel
    assert mapper.controls(set(), current_gear="R").gear == "R"


def test_shifts_start_from_the_lever_once_it_has_moved(mapper):
    mapper.press("3")
    mapper.press("g")
    mapper.press("g")  # two presses between steps: two gears
    assert mapper.controls(set(), current_gear="1").gear == "5"
    mapper.press("g")  # 5 is the top
    assert mapper.controls(set(), current_gear="5").gear == "5"


def test_a_shift_leaves_the_automatic_from_the_gear_it_is_in(mapper):
    mapper.press("t")
    assert mapper.controls(set(), current_gear="3").gear == AUTOMATIC
    mapper.press("b")
    assert mapper.controls(set(), current_gear="3").gear == "2"


def test_a_gear_key_after_a_shift_press_wins(mapper):
    mapper.press("g")
    mapper.press("1")
    assert mapper.controls(set(), current_gear="3").gear == "1"
