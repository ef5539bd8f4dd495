"""Routing the local players' devices (fakes: no window, no pad): the keyboard drives
player 1, a pad player 2; each pad's camera buttons and look-round reach its own player's
view only; player 2's view asks for a pad while they have none; any player's Start
pauses."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import pytest

from game.input.player_input import NO_PAD_NOTICE, LocalInputs
from game.sim.controls import Controls
from game.sim.local_players import SECOND_PLAYER


class FakeEvents:
    """Takes key bindings as ShowBase does (``accept``/``ignore``) and presses them."""

    def __init__(self):
        self.handlers = {}

    def accept(self, event, handler, extra=()):
        self.handlers[event] = (handler, list(extra))

    def ignore(self, event):
        self.handlers.pop(event, None)

    def send(self, event):
        handler, extra = self.handlers[event]
        handler(*extra)


class FakePads:
    def __init__(self, *pads):
        self.connected = list(pads)
        self.state = {}
        self.router = None

    def pads(self):
        return list(self.connected)

    def listen(self, router):
        self.router = router

    def plug(self, pad):
        self.connected.append(pad)
        self.router.connected(pad)

    def attach(self, pad):
        pass

    def detach(self, pad):
        pass

    def read(self, pad):
        return self.state.get(pad, ({}, set()))

    def destroy(self):
        pass


class FakeChaseCamera:
    def __init__(self):
        self.orbit_held = False
        self.swings = []

    def hold_orbit(self, held):
        self.orbit_held = held

    def swing(self, right_deg, up_deg):
        self.swings.append((right_deg, up_deg))

    def orbit(self, across, up):
        self.swings.append((across, up))


class FakeView:
    def __init__(self):
        self.chase_camera = FakeChaseCamera()
        self.actions = []
        self.notice = None
        self.sighting = False

    def camera_action(self, action):
        self.actions.append(action)

    def set_notice(self, text):
        self.notice = text

    def to_region(self, x, y):
        return x, y


def _simulation():
    vehicles = {name: SimpleNamespace(name=name, gear="1") for name in ("player", SECOND_PLAYER)}
    return SimpleNamespace(vehicles=list(vehicles.values()), player=vehicles["player"],
                           vehicle_named=vehicles.get)


@pytest.fixture
def rig(config):
    events, source = FakeEvents(), FakePads()
    views, paused = [FakeView(), FakeView()], []
    inputs = LocalInputs(events, config.controls, views, pad_source=source,
                         mouse=lambda: None, user=lambda: config.view.user_settings,
                         on_unplug=lambda: paused.append(True))
    yield inputs, events, source, views, paused
    inputs.destroy()


def test_without_a_pad_player_two_is_asked_for_one_and_stands_idle(rig):
    inputs, events, _, views, _ = rig
    inputs.update(1.0 / 60.0)
    assert views[1].notice == NO_PAD_NOTICE and views[0].notice is None
    assert inputs.others(_simulation()) == {}  # the simulation's idle driver holds it
    events.send("w")
    assert inputs.player_one("1").throttle == 1.0


def test_a_pad_plugged_in_drives_player_two_at_once_and_the_keyboard_player_one(rig):
    inputs, events, source, views, _ = rig
    source.plug("pad1")
    source.state["pad1"] = ({"right_trigger": 1.0}, set())
    inputs.update(1.0 / 60.0)
    assert views[1].notice is None
    others = inputs.others(_simulation())
    assert set(others) == {SECOND_PLAYER} and others[SECOND_PLAYER].throttle == 1.0
    assert inputs.player_one("1") == Controls()  # the pad is not player 1's
    events.send("d")
    assert inputs.player_one("1").steer == 1.0


def test_each_pads_camera_buttons_and_look_round_reach_its_own_view(rig, config):
    inputs, _, source, views, _ = rig
    spec = config.controls.gamepad
    source.plug("pad1")  # player 2's
    source.plug("pad2")  # player 1's
    held = set(spec.camera_zoom_in) | set(spec.camera_orbit)
    source.state["pad1"] = ({spec.turret_axis: 1.0}, held)
    inputs.others(_simulation())
    inputs.player_one("1")
    inputs.update(0.5)
    assert views[1].actions == ["camera_zoom_in"] and views[0].actions == []
    assert views[1].chase_camera.orbit_held and not views[0].chase_camera.orbit_held
    right_deg, up_deg = views[1].chase_camera.swings[-1]
    assert right_deg == pytest.approx(spec.look_deg_per_s * 0.5) and up_deg == 0.0
    assert views[0].chase_camera.swings == []


def test_start_on_player_twos_pad_pauses(rig, config):
    inputs, _, source, _, paused = rig
    source.plug("pad1")
    source.state["pad1"] = ({}, set(config.controls.gamepad.pause))
    inputs.others(_simulation())
    assert inputs.pause_pressed() and not inputs.pause_pressed()
    source.connected.remove("pad1")
    source.router.disconnected("pad1")
    assert paused == [True]


def test_scripted_runs_read_no_pad(config):
    views = [FakeView(), FakeView()]
    inputs = LocalInputs(FakeEvents(), config.controls, views, pad_source=None,
                         mouse=lambda: None, user=lambda: config.view.user_settings,
                         on_unplug=lambda: None)
    inputs.update(1.0 / 60.0)
    assert inputs.others(_simulation()) == {} and not inputs.pause_pressed()
    assert views[1].notice == NO_PAD_NOTICE


def test_pads_switched_off_in_the_config_are_never_read(config):
    controls = replace(config.controls, gamepad=replace(config.controls.gamepad, enabled=False))
    source = FakePads("pad1")
    inputs = LocalInputs(FakeEvents(), controls, [FakeView()], pad_source=source,
                         mouse=lambda: None, user=lambda: config.view.user_settings,
                         on_unplug=lambda: None)
    assert inputs.pads == [None] and source.router is None
