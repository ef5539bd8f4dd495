"""Gamepad driving: sticks, triggers and buttons in config/controls.toml ``[gamepad]``.

:class:`GamepadMapper` is the testable half: raw axis values and the buttons held in,
:class:`Controls` out (dead zones, response curves, sequential and H-gate shifting).
:class:`GamepadInput` follows pads coming and going through a :class:`PadSource`;
:class:`PandaPads` is the thin Panda3D source (``base.devices``). Tests feed fakes.
"""

from __future__ import annotations

import math
from typing import Callable, Protocol

from game.config import GamepadSpec
from game.controls import AUTOMATIC, Controls
from physics.gearbox import NEUTRAL, REVERSE, gate_layout

AXES = ("left_x", "left_y", "right_x", "right_y", "left_trigger", "right_trigger")
"""Axis names read from a pad: sticks -1..1 (+ right, + up), triggers 0..1."""

FORWARD_GEARS = 5
LEVER_ORDER = (REVERSE, NEUTRAL, *[str(n) for n in range(1, FORWARD_GEARS + 1)])
"""Sequential shifting walks this list: down from 1 is N, then R."""


def shape(value: float, dead_zone: float, exponent: float) -> float:
    """A raw axis value (-1..1) through a dead zone and a response curve: 0 inside the dead
    zone, then rising from 0 to 1 at full deflection as ``share ** exponent``; sign kept."""
    if not math.isfinite(value):
        return 0.0
    size = min(abs(value), 1.0)
    if size <= dead_zone:
        return 0.0
    share = (size - dead_zone) / (1.0 - dead_zone)
    return math.copysign(share ** exponent, value)


class GamepadMapper:
    """Axes and held buttons in, Controls out. The gear lever stays where it was put."""

    def __init__(self, spec: GamepadSpec):
        self.spec = spec
        self.lever: str | None = None
        self.camera_presses: list[str] = []
        self.pause_pressed = False
        self._held: set[str] = set()
        self.gate = gate_layout(FORWARD_GEARS)
        self._max_column = max(abs(column) for column, _ in self.gate.values()) or 1.0

    def _is_held(self, action: str, held: set[str]) -> bool:
        return any(button in held for button in getattr(self.spec, action))

    def _pressed(self, action: str, held: set[str]) -> bool:
        """Held now and not at the last update: fires once per press."""
        return self._is_held(action, held) and not self._is_held(action, self._held)

    def gate_gear(self, x: float, y: float) -> str:
        """The H-gate slot the left stick (x, y, + up) points at: beyond ``gate_threshold``
        towards a row (top +1, bottom -1), the slot of the nearest column; else N."""
        if math.hypot(x, y) < self.spec.gate_threshold or abs(y) < self.spec.gate_threshold * 0.5:
            return NEUTRAL
        row = 1.0 if y > 0 else -1.0
        column = max(-1.0, min(1.0, x)) * self._max_column
        slots = [(abs(slot_column - column), name)
                 for name, (slot_column, slot_row) in self.gate.items() if slot_row == row]
        return min(slots)[1]

    def step_lever(self, direction: int, current_gear: str | None) -> str:
        """One gear up (+1) or down (-1) from the lever, or from ``current_gear`` when the
        lever is not set or in automatic."""
        start = self.lever if self.lever in LEVER_ORDER else current_gear
        if start not in LEVER_ORDER:
            start = NEUTRAL
        index = LEVER_ORDER.index(start) + direction
        return LEVER_ORDER[max(0, min(len(LEVER_ORDER) - 1, index))]

    def update(self, axes: dict[str, float], held: set[str],
               current_gear: str | None = None) -> Controls:
        """One reading of the pad: ``axes`` by name (missing ones read 0), ``held`` button
        names; ``current_gear`` (the vehicle's) is where sequential shifts start from when
        the lever has not been moved."""
        spec = self.spec
        held = set(held)

        def axis(name: str) -> float:
            value = float(axes.get(name, 0.0) or 0.0)
            return value if math.isfinite(value) else 0.0

        clutch = self._is_held("clutch", held)
        if clutch:
            self.lever = self.gate_gear(axis("left_x"), axis("left_y"))
        if self._pressed("gear_up", held):
            self.lever = self.step_lever(+1, current_gear)
        if self._pressed("gear_down", held):
            self.lever = self.step_lever(-1, current_gear)
        if self._pressed("gear_automatic", held):
            self.lever = AUTOMATIC
        if self._pressed("camera_view", held):
            self.camera_presses.append("camera_view")
        if self._pressed("pause", held):
            self.pause_pressed = True
        stick = (spec.stick_dead_zone, spec.stick_curve_exponent)
        trigger = (spec.trigger_dead_zone, spec.trigger_curve_exponent)
        elevation = shape(axis("right_y"), *stick)
        controls = Controls(
            throttle=abs(shape(axis("right_trigger"), *trigger)),
            brake=abs(shape(axis("left_trigger"), *trigger)),
            # The left stick picks gears while the clutch is held: it does not steer then.
            steer=0.0 if clutch else shape(axis("left_x"), *stick),
            handbrake=self._is_held("handbrake", held), gear=self.lever,
            fire=self._is_held("fire", held), turret=shape(axis("right_x"), *stick),
            elevation=-elevation if spec.invert_gun else elevation,
            reset=self._is_held("reset", held),
            swap_vehicle=self._is_held("swap_vehicle", held))
        self._held = held
        return controls

    def take_camera_presses(self) -> list[str]:
        presses, self.camera_presses = self.camera_presses, []
        return presses

    def take_pause_press(self) -> bool:
        pressed, self.pause_pressed = self.pause_pressed, False
        return pressed


def active(axes: dict[str, float], held: set[str], spec: GamepadSpec) -> bool:
    """Whether a reading shows someone using the pad (a button, or an axis past its dead
    zone): the app then drives from the pad rather than the keyboard."""
    if held:
        return True
    for name in AXES:
        value = abs(float(axes.get(name, 0.0) or 0.0))
        zone = spec.trigger_dead_zone if name.endswith("trigger") else spec.stick_dead_zone
        if math.isfinite(value) and value > zone:
            return True
    return False


class PadSource(Protocol):
    """Where pads come from: Panda3D's device manager in the game, a fake in tests."""

    def pads(self) -> list: ...
    def attach(self, pad) -> None: ...
    def detach(self, pad) -> None: ...
    def read(self, pad) -> tuple[dict[str, float], set[str]]: ...
    def destroy(self) -> None: ...


class GamepadInput:
    """The pad in use, followed through hot plugging. A pad connected mid-game is used at
    once (when none is); unplugging the pad in use calls ``on_unplug`` (the app pauses) and
    moves to another connected pad, if any."""

    def __init__(self, source: PadSource, spec: GamepadSpec,
                 on_unplug: Callable[[], None] | None = None):
        self.source = source
        self.spec = spec
        self.mapper = GamepadMapper(spec)
        self.on_unplug = on_unplug
        self.pad = None
        self.active = False
        """Whether the last reading showed the pad being used."""
        if spec.enabled:
            for pad in source.pads():
                self.connected(pad)

    def connected(self, pad) -> None:
        if self.spec.enabled and self.pad is None:
            self.pad = pad
            self.source.attach(pad)

    def disconnected(self, pad) -> None:
        if pad is not self.pad:
            return
        self.source.detach(pad)
        self.pad = None
        self.active = False
        self.mapper._held = set()
        for other in self.source.pads():
            if other is not pad:
                self.connected(other)
                break
        if self.on_unplug is not None:
            self.on_unplug()

    def controls(self, current_gear: str | None = None) -> Controls | None:
        """The pad's controls now, or None without a pad."""
        if self.pad is None:
            return None
        try:
            axes, held = self.source.read(self.pad)
        except Exception:  # a pad gone between the event and this read: treat as unplugged
            self.disconnected(self.pad)
            return None
        self.active = active(axes, held, self.spec)
        return self.mapper.update(axes, held, current_gear)

    def take_camera_presses(self) -> list[str]:
        return self.mapper.take_camera_presses()

    def take_pause_press(self) -> bool:
        return self.mapper.take_pause_press()

    def destroy(self) -> None:
        if self.pad is not None:
            self.source.detach(self.pad)
            self.pad = None
        self.source.destroy()


class CombinedInput:
    """Keyboard and gamepad together: whichever was used last drives. The gear lever is
    shared, so moving it on one device is not undone by the other's old position."""

    def __init__(self, keyboard, gamepad: GamepadInput | None):
        self.keyboard = keyboard
        self.gamepad = gamepad
        self.using_pad = False
        self._levers = (None, None)

    def controls(self, aim=None, current_gear: str | None = None) -> Controls:
        keys = self.keyboard.controls(aim)
        pad = self.gamepad.controls(current_gear) if self.gamepad is not None else None
        if pad is None:
            self.using_pad = False
            return keys
        key_lever, pad_lever = self.keyboard.mapper.lever, self.gamepad.mapper.lever
        if pad_lever != self._levers[1]:
            self.keyboard.mapper.lever = key_lever = pad_lever
        elif key_lever != self._levers[0]:
            self.gamepad.mapper.lever = pad_lever = key_lever
        self._levers = (key_lever, pad_lever)
        if self.gamepad.active:
            self.using_pad = True
        elif self.keyboard.held:
            self.using_pad = False
        if self.using_pad:
            return pad
        return Controls(**{**keys.__dict__, "gear": key_lever})


class PandaPads:
    """Pads from Panda3D's input device manager (``base.devices``); ``connect-device`` and
    ``disconnect-device`` events reach ``GamepadInput`` through ``listen``."""

    def __init__(self, base):
        from panda3d.core import InputDevice
        self.base = base
        self._gamepad_class = InputDevice.DeviceClass.gamepad
        self._axis = {name: getattr(InputDevice.Axis, name) for name in AXES}
        self._attached = set()

    def listen(self, gamepads: GamepadInput) -> None:
        def on_connect(device):
            if device.device_class == self._gamepad_class:
                gamepads.connected(device)

        self.base.accept("connect-device", on_connect)
        self.base.accept("disconnect-device", gamepads.disconnected)

    def pads(self) -> list:
        return list(self.base.devices.getDevices(self._gamepad_class))

    def attach(self, pad) -> None:
        if id(pad) not in self._attached:
            self.base.attachInputDevice(pad, prefix="gamepad")
            self._attached.add(id(pad))

    def detach(self, pad) -> None:
        if id(pad) in self._attached:
            self._attached.discard(id(pad))
            try:
                self.base.detachInputDevice(pad)
            except Exception:  # already gone with the device
                pass

    def read(self, pad) -> tuple[dict[str, float], set[str]]:
        axes = {}
        for name, axis in self._axis.items():
            found = pad.findAxis(axis)
            if found is not None:
                axes[name] = float(found.value)
        held = {button.handle.name for button in pad.buttons if button.pressed}
        return axes, held

    def destroy(self) -> None:
        self.base.ignore("connect-device")
        self.base.ignore("disconnect-device")
