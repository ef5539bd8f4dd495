"""The pads themselves: hot plugging, one pad per local player, keyboard and pad together.

:class:`GamepadInput` follows one player's pad through hot plugging; :class:`PadSeats`
shares the pads of one :class:`PadSource` between local players; :class:`CombinedInput`
lets the keyboard and a pad drive one vehicle; :class:`PandaPads` is the thin Panda3D
source (``base.devices``). Tests feed a fake source.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Protocol

from game.input.gamepad import AXES, GamepadMapper, GamepadSpec, active
from game.sim.controls import Controls


class PadSource(Protocol):
    """Where pads come from: Panda3D's device manager in the game, a fake in tests."""

    def pads(self) -> list: ...
    def listen(self, router) -> None:
        """Call ``router.connected(pad)`` and ``router.disconnected(pad)`` as pads come
        and go."""
    def attach(self, pad) -> None: ...
    def detach(self, pad) -> None: ...
    def read(self, pad) -> tuple[dict[str, float], set[str]]: ...
    def destroy(self) -> None: ...


class GamepadInput:
    """One player's pad, followed through hot plugging. A pad connected mid-game is used at
    once (when this player has none and no other player holds it); unplugging the pad in
    use calls ``on_unplug`` (the app pauses) and moves to another free pad, if any."""

    def __init__(self, source: PadSource, spec: GamepadSpec,
                 on_unplug: Callable[[], None] | None = None, *, claim_at_start: bool = True):
        self.source = source
        self.spec = spec
        self.mapper = GamepadMapper(spec)
        self.on_unplug = on_unplug
        self.pad = None
        self.active = False
        """Whether the last reading showed the pad being used."""
        self.others: list[GamepadInput] = []
        """Other players' pads from the same source: a pad one of them holds is not free."""
        if claim_at_start:
            self.claim_free_pad()

    def is_free(self, pad) -> bool:
        return not any(other.pad is not None and other.pad == pad for other in self.others)

    def claim_free_pad(self) -> None:
        """Take the first connected pad nobody holds (when this player has none)."""
        for pad in self.source.pads():
            self.connected(pad)

    def connected(self, pad) -> None:
        if self.spec.enabled and self.pad is None and self.is_free(pad):
            self.pad = pad
            self.source.attach(pad)

    def disconnected(self, pad) -> None:
        if self.pad is None or not pad == self.pad:
            return
        self.source.detach(self.pad)
        self.pad = None
        self.active = False
        self.mapper.release_all()
        for other in self.source.pads():
            if not other == pad:
                self.connected(other)
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

    def rebind(self, spec: GamepadSpec) -> None:
        """Use ``spec``'s buttons and axes from now on (rebound in the pause menu)."""
        self.spec = spec
        self.mapper.rebind(spec)

    def destroy(self) -> None:
        if self.pad is not None:
            self.source.detach(self.pad)
            self.pad = None
        self.source.destroy()


class PadSeats:
    """The local players' pads from one source, one :class:`GamepadInput` (seat) each, in
    player order. At the start the pads go to the seats in player order when there is one
    for everybody, else in ``fill_order``; a pad connected later goes to the first seat in
    ``fill_order`` without one. ``PandaPads.listen`` sends it the plug events."""

    def __init__(self, seats: list[GamepadInput], fill_order: list[GamepadInput] | None = None):
        self.seats = list(seats)
        self.fill_order = list(fill_order or seats)
        for seat in self.seats:
            seat.others = [other for other in self.seats if other is not seat]
        if not self.seats:
            return
        enough = len(self.seats[0].source.pads()) >= len(self.seats)
        for seat in self.seats if enough else self.fill_order:
            seat.claim_free_pad()

    def connected(self, pad) -> None:
        if any(seat.pad is not None and seat.pad == pad for seat in self.seats):
            return
        for seat in self.fill_order:
            if seat.pad is None:
                seat.connected(pad)
                return

    def disconnected(self, pad) -> None:
        for seat in self.seats:
            seat.disconnected(pad)


class CombinedInput:
    """Keyboard and gamepad together: whichever was used last drives. The gear lever is
    shared, so moving it on one device is not undone by the other's old position."""

    def __init__(self, keyboard, gamepad: GamepadInput | None):
        self.keyboard = keyboard
        self.gamepad = gamepad
        self.using_pad = False
        self._levers = (None, None)

    def set_lever(self, position: str | None) -> None:
        """Both devices' lever at ``position`` (None: not moved yet), as a new game starts."""
        self.keyboard.mapper.lever = position
        if self.gamepad is not None:
            self.gamepad.mapper.lever = position
        self._levers = (position, position)

    def controls(self, aim=None, current_gear: str | None = None) -> Controls:
        keys = self.keyboard.controls(aim, current_gear)
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
        return replace(keys, gear=key_lever)


class PadButtonCapture:
    """The next button pressed on any connected pad, for the Controls page. ``listen``
    notes what each pad holds; each :meth:`poll` (once a frame) reads the pads again and
    hands the first button newly held to ``on_button(name)``, or calls ``on_no_pad()``
    when no pad is left, and stops either way. A pad plugged in meanwhile counts from its
    first reading: what it holds then is not a press."""

    def __init__(self, source: PadSource):
        self.source = source
        self._on_button: Callable[[str], None] | None = None
        self._on_no_pad: Callable[[], None] | None = None
        self._held: list[tuple[object, set[str]]] = []
        """(pad, the buttons it held at its last reading) for each pad seen."""

    def _pads(self) -> list:
        try:
            return list(self.source.pads())
        except Exception:  # the device manager gone with the window
            return []

    def _read(self, pad) -> set[str] | None:
        try:
            return set(self.source.read(pad)[1])
        except Exception:  # a pad gone between the listing and the read
            return None

    def connected(self) -> bool:
        """Whether any pad is connected now."""
        return bool(self._pads())

    @property
    def listening(self) -> bool:
        return self._on_button is not None

    def listen(self, on_button: Callable[[str], None], on_no_pad: Callable[[], None]) -> None:
        self._on_button, self._on_no_pad = on_button, on_no_pad
        self._held = []
        for pad in self._pads():
            held = self._read(pad)
            if held is not None:
                self._held.append((pad, held))

    def stop(self) -> None:
        self._on_button = self._on_no_pad = None
        self._held = []

    def _held_before(self, pad, held_now: set[str]) -> set[str]:
        """What ``pad`` held at its last reading (a pad not seen yet: what it holds now),
        that reading replaced by ``held_now``. Pads compare by ``==`` (Panda3D hands out
        a new Python object for the same device)."""
        for index, (seen, held) in enumerate(self._held):
            if seen == pad:
                self._held[index] = (seen, held_now)
                return held
        self._held.append((pad, held_now))
        return held_now

    def poll(self) -> None:
        if not self.listening:
            return
        pads = self._pads()
        if not pads:
            on_no_pad = self._on_no_pad
            self.stop()
            on_no_pad()
            return
        for pad in pads:
            held = self._read(pad)
            if held is None:
                continue
            pressed = sorted(held - self._held_before(pad, held))
            if pressed:
                on_button = self._on_button
                self.stop()
                on_button(pressed[0])
                return


class PandaPads:
    """Pads from Panda3D's input device manager (``base.devices``); ``connect-device`` and
    ``disconnect-device`` events reach a ``GamepadInput`` or ``PadSeats`` through
    ``listen``."""

    def __init__(self, base):
        from panda3d.core import InputDevice
        self.base = base
        self._gamepad_class = InputDevice.DeviceClass.gamepad
        self._axis = {name: getattr(InputDevice.Axis, name) for name in AXES}
        self._attached = set()

    def listen(self, router) -> None:
        def on_connect(device):
            if device.device_class == self._gamepad_class:
                router.connected(device)

        self.base.accept("connect-device", on_connect)
        self.base.accept("disconnect-device", router.disconnected)

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
        pad.poll()  # the latest state, for a pad no player holds (the data graph polls theirs)
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
