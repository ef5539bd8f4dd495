"""Gamepad mapping (no device): dead zones, curves, triggers, H gate, sequential shifts, and
hot plugging through a fake pad source."""

from dataclasses import replace

import pytest

from common.errors import UserError
from common.spec import SpecError
from game.input.gamepad import AXES, CAMERA_PRESSES, GamepadMapper, GamepadSpec, shape
from game.input.pad_input import CombinedInput, GamepadInput, PadSeats
from game.sim.controls import AUTOMATIC, Controls
from game.window_config import load_window_config
from physics.model.gearbox import gate_layout


@pytest.fixture(scope="module")
def spec() -> GamepadSpec:
    return load_window_config().controls.gamepad


def test_dead_zone_gives_nothing_and_full_deflection_gives_full(spec):
    assert shape(0.1, 0.12, 1.6) == 0.0
    assert shape(-0.12, 0.12, 1.6) == 0.0
    assert shape(1.0, 0.12, 1.6) == pytest.approx(1.0)
    assert shape(-1.0, 0.12, 1.6) == pytest.approx(-1.0)
    assert shape(1.7, 0.12, 1.6) == pytest.approx(1.0)  # clipped
    assert shape(float("nan"), 0.12, 1.6) == 0.0
    mapper = GamepadMapper(spec)
    still = mapper.update({"left_x": spec.stick_dead_zone * 0.9,
                           "right_x": -spec.stick_dead_zone * 0.5}, set())
    assert still.steer == 0.0 and still.turret == 0.0


def test_curve_is_finer_near_the_centre():
    half = shape(0.55, 0.1, 2.0)
    assert half == pytest.approx(0.25)  # (0.45 / 0.9) ** 2
    assert shape(0.55, 0.1, 1.0) == pytest.approx(0.5)
    assert shape(-0.55, 0.1, 2.0) == pytest.approx(-0.25)
    # monotonic
    values = [shape(x / 20, 0.1, 1.6) for x in range(21)]
    assert values == sorted(values)


def test_triggers_throttle_and_brake_sticks_steer_and_aim(spec):
    spec = replace(spec, trigger_curve_exponent=1.0, trigger_dead_zone=0.0,
                   stick_curve_exponent=1.0, stick_dead_zone=0.0)
    controls = GamepadMapper(spec).update(
        {"right_trigger": 0.75, "left_trigger": 0.25, "left_x": -0.5, "right_x": 1.0,
         "right_y": 0.4}, {"face_a", "face_b"})
    assert controls.throttle == pytest.approx(0.75)
    assert controls.brake == pytest.approx(0.25)
    assert controls.steer == pytest.approx(-0.5)
    assert controls.turret == pytest.approx(1.0)
    assert controls.elevation == pytest.approx(0.4)
    assert controls.fire and controls.handbrake
    inverted = GamepadMapper(replace(spec, invert_gun=True)).update({"right_y": 0.4}, set())
    assert inverted.elevation == pytest.approx(-0.4)
    assert GamepadMapper(spec).update({}, set()) == Controls()


@pytest.mark.parametrize("gear", ["1", "2", "3", "4", "5", "R"])
def test_clutch_and_stick_through_the_gate_pick_that_gear(spec, gear):
    mapper = GamepadMapper(spec)
    column, row = gate_layout(5)[gear]
    controls = mapper.update({"left_x": column * 0.9, "left_y": row * 0.9}, {"face_x"})
    assert controls.gear == gear
    assert controls.steer == 0.0  # the stick shifts, it does not steer, while clutched
    # Let go of the clutch: the lever stays in that gear and the stick steers again.
    released = mapper.update({"left_x": 0.9}, set())
    assert released.gear == gear and released.steer > 0.5


def test_clutch_with_the_stick_at_the_centre_is_neutral_and_without_clutch_nothing(spec):
    mapper = GamepadMapper(spec)
    assert mapper.update({"left_x": -0.9, "left_y": 0.9}, set()).gear is None
    assert mapper.update({"left_x": -0.9, "left_y": 0.9}, {"face_x"}).gear == "1"
    assert mapper.update({"left_x": 0.1, "left_y": 0.1}, {"face_x"}).gear == "N"
    # Short of the threshold towards a slot: still neutral.
    short = spec.gate_threshold * 0.8
    assert mapper.update({"left_x": 0.0, "left_y": short}, {"face_x"}).gear == "N"


def test_sequential_shifts_step_once_per_press_and_stop_at_the_ends(spec):
    mapper = GamepadMapper(spec)
    up, down = {"rshoulder"}, {"lshoulder"}
    assert mapper.update({}, up, current_gear="N").gear == "1"
    assert mapper.update({}, up, current_gear="1").gear == "1"  # still held: no repeat
    mapper.update({}, set())
    assert mapper.update({}, up).gear == "2"
    for _ in range(6):
        mapper.update({}, set())
        mapper.update({}, up)
    assert mapper.lever == "5"
    for expected in ["4", "3", "2", "1", "N", "R", "R"]:
        mapper.update({}, set())
        assert mapper.update({}, down).gear == expected


def test_sequential_shift_from_automatic_starts_at_the_engaged_gear(spec):
    mapper = GamepadMapper(spec)
    assert mapper.update({}, {"face_y"}).gear == AUTOMATIC
    mapper.update({}, set())
    assert mapper.update({}, {"rshoulder"}, current_gear="3").gear == "4"


def test_gate_threshold_must_exceed_the_dead_zone(spec):
    with pytest.raises(SpecError):
        replace(spec, stick_dead_zone=0.7, gate_threshold=0.6)


@pytest.mark.parametrize("throttle, brake, steer, turret, gun", [
    ("right_trigger", "left_trigger", "left_x", "right_x", "right_y"),
    ("left_trigger", "right_trigger", "right_x", "left_x", "left_y"),
    ("right_y", "left_trigger", "left_x", "right_x", "right_trigger"),
])
def test_each_driving_axis_reads_the_axis_the_config_names(spec, throttle, brake, steer,
                                                           turret, gun):
    spec = replace(spec, throttle_axis=throttle, brake_axis=brake, steer_axis=steer,
                   turret_axis=turret, gun_axis=gun, stick_dead_zone=0.0,
                   trigger_dead_zone=0.0, stick_curve_exponent=1.0,
                   trigger_curve_exponent=1.0)
    readings = {throttle: 0.9, brake: 0.3, steer: -0.4, turret: 0.6, gun: 0.2}
    controls = GamepadMapper(spec).update(readings, set())
    assert controls.throttle == pytest.approx(0.9)
    assert controls.brake == pytest.approx(0.3)
    assert controls.steer == pytest.approx(-0.4)
    assert controls.turret == pytest.approx(0.6)
    assert controls.elevation == pytest.approx(0.2)
    # Nothing else moves any of them.
    others = {axis: 1.0 for axis in AXES if axis not in readings}
    assert GamepadMapper(spec).update(others, set()) == Controls()


def test_a_stick_as_throttle_drives_only_when_pushed_forward(spec):
    spec = replace(spec, throttle_axis="left_y", steer_axis="left_x")
    mapper = GamepadMapper(spec)
    assert mapper.update({"left_y": 1.0}, set()).throttle == pytest.approx(1.0)
    assert mapper.update({"left_y": -1.0}, set()).throttle == 0.0


def test_each_axis_takes_its_own_dead_zone_trigger_or_stick(spec):
    spec = replace(spec, throttle_axis="right_y", gun_axis="right_trigger",
                   stick_dead_zone=0.3, trigger_dead_zone=0.05)
    controls = GamepadMapper(spec).update({"right_y": 0.2, "right_trigger": 0.2}, set())
    assert controls.throttle == 0.0  # a stick: inside its 0.3 dead zone
    assert controls.elevation > 0.0  # a trigger: past its 0.05 dead zone


def test_the_gate_stick_picks_gears_and_drives_nothing_while_clutched(spec):
    spec = replace(spec, gate_stick="right", steer_axis="left_x")
    mapper = GamepadMapper(spec)
    column, row = gate_layout(5)["3"]
    clutched = mapper.update({"right_x": column * 0.9, "right_y": row * 0.9, "left_x": 0.9},
                             {"face_x"})
    assert clutched.gear == "3"
    assert clutched.turret == 0.0 and clutched.elevation == 0.0  # the right stick shifts
    assert clutched.steer > 0.5  # the left stick still steers


@pytest.mark.parametrize("key, axis", [("throttle_axis", "thumb_x"), ("gun_axis", "")])
def test_an_axis_the_pad_does_not_have_is_refused(spec, key, axis):
    with pytest.raises(SpecError, match=key):
        replace(spec, **{key: axis})


def test_two_driving_controls_on_one_axis_are_refused(spec):
    with pytest.raises(SpecError, match="brake_axis") as caught:
        replace(spec, brake_axis=spec.throttle_axis)
    assert "throttle_axis" in str(caught.value)


def test_an_unknown_axis_in_the_file_is_one_line_naming_the_key(config_copy, edit_file):
    path = config_copy / "controls.toml"
    edit_file(path, 'steer_axis = "left_x"', 'steer_axis = "wheel"')
    with pytest.raises(UserError) as caught:
        load_window_config(config_copy)
    message = str(caught.value)
    assert "gamepad.steer_axis" in message and "left_x" in message and "\n" not in message


def test_zoom_buttons_zoom_once_per_press_like_the_keyboard(spec):
    mapper = GamepadMapper(spec)
    zoom_in, zoom_out = set(spec.camera_zoom_in[:1]), set(spec.camera_zoom_out[:1])
    mapper.update({}, zoom_in)
    mapper.update({}, zoom_in)  # held: no repeat
    mapper.update({}, set())
    mapper.update({}, zoom_out)
    mapper.update({}, set(spec.camera_view[:1]))
    assert mapper.take_camera_presses() == ["camera_zoom_in", "camera_zoom_out", "camera_view"]
    assert mapper.take_camera_presses() == []
    assert set(CAMERA_PRESSES) == {"camera_view", "camera_zoom_in", "camera_zoom_out"}


def test_holding_look_round_turns_the_aiming_stick_into_a_camera_swing(spec):
    spec = replace(spec, stick_dead_zone=0.0, stick_curve_exponent=1.0)
    mapper = GamepadMapper(spec)
    aiming = mapper.update({"right_x": 0.5, "right_y": -0.25}, set())
    assert not mapper.orbit_held and mapper.look == (0.0, 0.0)
    assert aiming.turret == pytest.approx(0.5) and aiming.elevation == pytest.approx(-0.25)
    looking = mapper.update({"right_x": 0.5, "right_y": -0.25, "left_x": 0.3},
                            set(spec.camera_orbit))
    assert mapper.orbit_held
    assert mapper.look == (pytest.approx(0.5), pytest.approx(-0.25))
    assert looking.turret == 0.0 and looking.elevation == 0.0  # the gun holds still
    assert looking.steer == pytest.approx(0.3)  # driving goes on
    mapper.update({"right_x": 0.5}, set())
    assert not mapper.orbit_held and mapper.look == (0.0, 0.0)


def test_the_pads_camera_buttons_are_free_of_every_other_action(spec):
    camera = set(spec.camera_orbit + spec.camera_zoom_in + spec.camera_zoom_out)
    assert camera, "no camera buttons bound"
    for action in spec.button_actions():
        if action not in ("camera_orbit", "camera_zoom_in", "camera_zoom_out"):
            assert not camera & set(getattr(spec, action)), action


class FakePads:
    def __init__(self, *pads):
        self.connected = list(pads)
        self.attached = []
        self.state = {}

    def pads(self):
        return list(self.connected)

    def attach(self, pad):
        self.attached.append(pad)

    def detach(self, pad):
        self.attached.remove(pad)

    def read(self, pad):
        if pad not in self.connected:
            raise RuntimeError("device gone")
        return self.state.get(pad, ({}, set()))

    def destroy(self):
        pass


def test_a_pad_plugged_in_mid_game_drives_at_once(spec):
    source = FakePads()
    pads = GamepadInput(source, spec)
    assert pads.controls() is None
    source.connected.append("pad1")
    source.state["pad1"] = ({"right_trigger": 1.0}, set())
    pads.connected("pad1")
    assert source.attached == ["pad1"]
    assert pads.controls().throttle == pytest.approx(1.0)
    assert pads.active


def test_unplugging_the_pad_in_use_pauses_instead_of_crashing(spec):
    paused = []
    source = FakePads("pad1", "pad2")
    pads = GamepadInput(source, spec, on_unplug=lambda: paused.append(True))
    assert pads.pad == "pad1"
    source.connected.remove("pad2")
    pads.disconnected("pad2")  # not the one in use: nothing happens
    assert paused == [] and pads.pad == "pad1"
    source.connected.remove("pad1")
    pads.disconnected("pad1")
    assert paused == [True] and pads.pad is None
    assert pads.controls() is None  # and reading on is harmless


def test_a_pad_gone_before_its_event_counts_as_unplugged(spec):
    paused = []
    source = FakePads("pad1")
    pads = GamepadInput(source, spec, on_unplug=lambda: paused.append(True))
    source.connected.clear()
    assert pads.controls() is None
    assert paused == [True]


def test_unplugging_moves_to_another_connected_pad(spec):
    source = FakePads("pad1", "pad2")
    pads = GamepadInput(source, spec, on_unplug=lambda: None)
    source.connected.remove("pad1")
    pads.disconnected("pad1")
    assert pads.pad == "pad2" and source.attached == ["pad2"]


def test_start_button_asks_for_the_pause_menu_once_per_press(spec):
    source = FakePads("pad1")
    pads = GamepadInput(source, spec)
    source.state["pad1"] = ({}, {"start"})
    pads.controls()
    pads.controls()
    assert pads.take_pause_press() and not pads.take_pause_press()


class FakeKeyboard:
    def __init__(self):
        from game.input.keyboard import KeyboardMapper
        self.mapper = KeyboardMapper(load_window_config().controls.keyboard)
        self.held = set()

    def controls(self, aim=None, current_gear=None):
        return self.mapper.controls(self.held, aim, current_gear)


def test_whichever_device_was_used_last_drives_and_the_lever_is_shared(spec):
    keyboard = FakeKeyboard()
    source = FakePads("pad1")
    combined = CombinedInput(keyboard, GamepadInput(source, spec))
    keyboard.held = {"w"}
    assert combined.controls().throttle == 1.0
    keyboard.held = set()
    source.state["pad1"] = ({"right_trigger": 0.5, "left_x": 0.9, "left_y": 0.9}, {"face_x"})
    pad = combined.controls()
    assert combined.using_pad and pad.gear == "5" and pad.throttle > 0.0
    # Back on the keyboard: the lever the pad put in 5 stays there.
    source.state["pad1"] = ({}, set())
    keyboard.held = {"w"}
    keys = combined.controls()
    assert not combined.using_pad and keys.gear == "5" and keys.throttle == 1.0
    keyboard.mapper.press("2")
    assert combined.controls().gear == "2"
    assert combined.gamepad.mapper.lever == "2"


def test_without_a_pad_the_keyboard_drives(spec):
    keyboard = FakeKeyboard()
    combined = CombinedInput(keyboard, GamepadInput(FakePads(), spec))
    keyboard.held = {"d"}
    assert combined.controls().steer == 1.0
    assert CombinedInput(keyboard, None).controls().steer == 1.0


def _two_seats(spec, source, unplugged=None):
    """Player 1 (keyboard too) and player 2 (pad only): a new pad goes to player 2 first."""
    unplugged = unplugged if unplugged is not None else []
    first = GamepadInput(source, spec, on_unplug=lambda: unplugged.append(1),
                         claim_at_start=False)
    second = GamepadInput(source, spec, on_unplug=lambda: unplugged.append(2),
                          claim_at_start=False)
    return first, second, PadSeats([first, second], fill_order=[second, first])


def test_one_pad_goes_to_player_two_and_two_pads_give_each_player_one(spec):
    first, second, _ = _two_seats(spec, FakePads("pad1"))
    assert first.pad is None and second.pad == "pad1"
    first, second, _ = _two_seats(spec, FakePads("pad1", "pad2"))
    assert first.pad == "pad1" and second.pad == "pad2"
    first, second, _ = _two_seats(spec, FakePads())
    assert first.pad is None and second.pad is None


def test_pads_plugged_in_mid_game_fill_player_two_then_player_one(spec):
    source = FakePads()
    first, second, seats = _two_seats(spec, source)
    source.connected.append("pad1")
    seats.connected("pad1")
    seats.connected("pad1")  # the same pad again: nothing changes
    assert second.pad == "pad1" and first.pad is None
    source.connected.append("pad2")
    seats.connected("pad2")
    assert first.pad == "pad2" and source.attached == ["pad1", "pad2"]
    source.state["pad2"] = ({"right_trigger": 1.0}, set())
    assert first.controls().throttle == pytest.approx(1.0)
    assert second.controls() == Controls()  # each reads its own pad


def test_unplugging_player_twos_pad_pauses_and_never_takes_player_ones(spec):
    unplugged = []
    source = FakePads("pad1", "pad2")
    first, second, seats = _two_seats(spec, source, unplugged)
    source.connected.remove("pad2")
    seats.disconnected("pad2")
    assert unplugged == [2] and second.pad is None and first.pad == "pad1"
    assert second.controls() is None
    source.connected.append("pad3")  # a pad plugged back in: player 2 drives again at once
    seats.connected("pad3")
    assert second.pad == "pad3" and unplugged == [2]
