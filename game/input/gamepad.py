"""Gamepad driving: sticks, triggers and buttons in config/controls.toml ``[gamepad]``.

:class:`GamepadMapper` is the testable half: raw axis values and the buttons held in,
:class:`Controls` out (dead zones, response curves, sequential and H-gate shifting, the
camera's zoom and look-round). The pads themselves (hot plugging, one per local player,
Panda3D's devices) are :mod:`game.input.pad_input`'s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

from common.spec import Spec, SpecError, tuning
from game.sim.controls import AUTOMATIC, Controls
from physics.model.gearbox import NEUTRAL, REVERSE, gate_layout

AXES = ("left_x", "left_y", "right_x", "right_y", "left_trigger", "right_trigger")
"""Axis names read from a pad: sticks -1..1 (+ right, + up), triggers 0..1."""
STICKS = ("left", "right")
"""A stick's axes are ``<stick>_x`` and ``<stick>_y``."""
DRIVING_AXES = ("throttle_axis", "brake_axis", "steer_axis", "turret_axis", "gun_axis")
"""The spec's axis assignments; no two may share an axis."""

FORWARD_GEARS = 5
LEVER_ORDER = (REVERSE, NEUTRAL, *[str(n) for n in range(1, FORWARD_GEARS + 1)])
"""Sequential shifting walks this list: down from 1 is N, then R."""
CAMERA_PRESSES = ("camera_view", "camera_zoom_in", "camera_zoom_out")
"""Camera actions that happen once per press; the app takes them with
``take_camera_presses`` (the same names as the keyboard's)."""


def shifted_lever(lever: str | None, direction: int, current_gear: str | None) -> str:
    """A sequential shift, one gear up (+1) or down (-1) along ``LEVER_ORDER`` from
    ``lever``, or from ``current_gear`` (the vehicle's) when the lever is not set or in
    automatic; it stops at R and at top gear. The pad's and the keyboard's shifts both
    come here."""
    start = lever if lever in LEVER_ORDER else current_gear
    if start not in LEVER_ORDER:
        start = NEUTRAL
    index = LEVER_ORDER.index(start) + direction
    return LEVER_ORDER[max(0, min(len(LEVER_ORDER) - 1, index))]


def _buttons(doc: str):
    return tuning(doc + " (Panda3D gamepad button names: face_a, face_b, face_x, face_y, "
                  "lshoulder, rshoulder, lstick, rstick, dpad_up, start, back, ...)",
                  length=(0, 8))


def _axis(doc: str):
    return tuning(doc + " (" + ", ".join(AXES) + "; a trigger reads 0..1, a stick axis "
                  "-1..1, + right / up)", choices=AXES)


@dataclass(frozen=True)
class GamepadSpec(Spec):
    """A gamepad: an axis for each of throttle, brake, steering, turret and gun (by default
    right trigger, left trigger, left stick x, right stick x and y); named actions on
    buttons; hold the clutch and move the gate stick through the H gate to pick a gear;
    hold the look-round button and the turret's stick swings the camera instead."""

    enabled: bool = tuning("use a connected gamepad")
    stick_dead_zone: float = tuning("stick deflection (0..1) that does nothing",
                                    minimum=0.0, maximum=0.9)
    trigger_dead_zone: float = tuning("trigger travel (0..1) that does nothing",
                                      minimum=0.0, maximum=0.9)
    stick_curve_exponent: float = tuning("response curve of the sticks beyond the dead zone: "
                                         "1 linear, more gives finer control near the centre",
                                         minimum=0.2, maximum=5.0)
    trigger_curve_exponent: float = tuning("response curve of the triggers", minimum=0.2,
                                           maximum=5.0)
    invert_gun: bool = tuning("pushing the gun's stick up lowers the gun")
    gate_threshold: float = tuning("with the clutch held, the gate stick this far (0..1) "
                                   "towards a slot of the H gate selects that gear; nearer "
                                   "the centre is neutral", minimum=0.2, maximum=0.95)
    throttle_axis: str = _axis("opens the throttle as it travels (a stick: pushed + only)")
    brake_axis: str = _axis("brakes as it travels (a stick: pushed + only)")
    steer_axis: str = _axis("steers, + to the right")
    turret_axis: str = _axis("traverses the turret, + to the right")
    gun_axis: str = _axis("raises the gun, + up")
    gate_stick: str = tuning("the stick that moves through the H gate while the clutch is "
                             "held (it drives nothing meanwhile)", choices=STICKS)
    look_deg_per_s: float = tuning("with the look-round button held, the turret's stick at "
                                   "full deflection swings the camera this fast",
                                   minimum=10.0, maximum=1000.0)
    fire: tuple[str, ...] = _buttons("fire the gun")
    handbrake: tuple[str, ...] = _buttons("hold the handbrake")
    gear_up: tuple[str, ...] = _buttons("shift up one gear (R, N, 1, 2, ...)")
    gear_down: tuple[str, ...] = _buttons("shift down one gear")
    clutch: tuple[str, ...] = _buttons("hold to pick a gear with the gate stick in the H gate")
    gear_automatic: tuple[str, ...] = _buttons("let the gearbox shift by itself")
    reset: tuple[str, ...] = _buttons("set the vehicle back on its wheels")
    swap_vehicle: tuple[str, ...] = _buttons("hop between the tank and the car")
    next_shell: tuple[str, ...] = _buttons("select the next shell that has rounds left, "
                                           "loaded at the next reload")
    camera_view: tuple[str, ...] = _buttons("chase camera / gun sight")
    camera_orbit: tuple[str, ...] = _buttons("hold to swing the camera round with the turret's "
                                             "stick (it springs back behind on release)")
    camera_zoom_in: tuple[str, ...] = _buttons("bring the chase camera closer")
    camera_zoom_out: tuple[str, ...] = _buttons("move the chase camera away")
    pause: tuple[str, ...] = _buttons("open or close the pause menu")

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.stick_dead_zone >= self.gate_threshold:
            raise SpecError("gate_threshold", self.gate_threshold,
                            f"more than stick_dead_zone ({self.stick_dead_zone})")
        taken: dict[str, str] = {}
        for name in DRIVING_AXES:
            axis = getattr(self, name)
            if axis in taken:
                raise SpecError(name, axis, f"an axis not already used by {taken[axis]}")
            taken[axis] = name

    def button_actions(self) -> tuple[str, ...]:
        """The names of the actions bound to buttons (every list field)."""
        return tuple(item.name for item in fields(self)
                     if isinstance(getattr(self, item.name), tuple))


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


def is_trigger(axis: str) -> bool:
    return axis.endswith("trigger")


def raw_axis(axes: dict[str, float], axis: str) -> float:
    """An axis's reading by name; a missing, non-numeric or non-finite one reads 0."""
    try:
        value = float(axes.get(axis, 0.0) or 0.0)
    except (TypeError, ValueError):
        return 0.0
    return value if math.isfinite(value) else 0.0


class GamepadMapper:
    """Axes and held buttons in, Controls out. The gear lever stays where it was put.

    While the look-round button (``camera_orbit``) is held, the turret's stick and the
    gun's stick swing the camera (``look``, -1..1 each) instead of aiming the gun."""

    def __init__(self, spec: GamepadSpec):
        self.spec = spec
        self.lever: str | None = None
        self.camera_presses: list[str] = []
        self.pause_pressed = False
        self.orbit_held = False
        self.look = (0.0, 0.0)
        """Camera swing rates (-1..1: + right, + up) while ``orbit_held``."""
        self._held: set[str] = set()
        self.gate = gate_layout(FORWARD_GEARS)
        self._max_column = max(abs(column) for column, _ in self.gate.values()) or 1.0

    def _is_held(self, action: str, held: set[str]) -> bool:
        return any(button in held for button in getattr(self.spec, action))

    def _pressed(self, action: str, held: set[str]) -> bool:
        """Held now and not at the last update: fires once per press."""
        return self._is_held(action, held) and not self._is_held(action, self._held)

    def rebind(self, spec: GamepadSpec) -> None:
        """Use ``spec``'s buttons and axes from now on. Presses not yet taken are dropped;
        a button held through the change is not a fresh press of its new action."""
        self.spec = spec
        self.camera_presses = []
        self.pause_pressed = False

    def release_all(self) -> None:
        """Forget the buttons held (the pad is gone): the next press counts afresh."""
        self._held = set()
        self.orbit_held = False
        self.look = (0.0, 0.0)

    def gate_gear(self, x: float, y: float) -> str:
        """The H-gate slot the gate stick (x, y, + up) points at: beyond ``gate_threshold``
        towards a row (top +1, bottom -1), the slot of the nearest column; else N."""
        if math.hypot(x, y) < self.spec.gate_threshold or abs(y) < self.spec.gate_threshold * 0.5:
            return NEUTRAL
        row = 1.0 if y > 0 else -1.0
        column = max(-1.0, min(1.0, x)) * self._max_column
        slots = [(abs(slot_column - column), name)
                 for name, (slot_column, slot_row) in self.gate.items() if slot_row == row]
        return min(slots)[1]

    def step_lever(self, direction: int, current_gear: str | None) -> str:
        """One gear up (+1) or down (-1) from the lever (see :func:`shifted_lever`)."""
        return shifted_lever(self.lever, direction, current_gear)

    def _shaped(self, axes: dict[str, float], axis: str) -> float:
        """One axis by name through its dead zone and curve (a trigger's or a stick's)."""
        spec = self.spec
        value = raw_axis(axes, axis)
        if is_trigger(axis):
            return shape(value, spec.trigger_dead_zone, spec.trigger_curve_exponent)
        return shape(value, spec.stick_dead_zone, spec.stick_curve_exponent)

    def update(self, axes: dict[str, float], held: set[str],
               current_gear: str | None = None) -> Controls:
        """One reading of the pad: ``axes`` by name (missing ones read 0), ``held`` button
        names; ``current_gear`` (the vehicle's) is where sequential shifts start from when
        the lever has not been moved."""
        spec = self.spec
        held = set(held)
        gate_axes = (f"{spec.gate_stick}_x", f"{spec.gate_stick}_y")
        clutch = self._is_held("clutch", held)
        if clutch:
            self.lever = self.gate_gear(*(raw_axis(axes, axis) for axis in gate_axes))
        if self._pressed("gear_up", held):
            self.lever = self.step_lever(+1, current_gear)
        if self._pressed("gear_down", held):
            self.lever = self.step_lever(-1, current_gear)
        if self._pressed("gear_automatic", held):
            self.lever = AUTOMATIC
        for action in CAMERA_PRESSES:
            if self._pressed(action, held):
                self.camera_presses.append(action)
        if self._pressed("pause", held):
            self.pause_pressed = True

        def driving(name: str) -> float:
            # The gate stick picks gears while the clutch is held: it drives nothing then.
            axis = getattr(spec, name)
            return 0.0 if clutch and axis in gate_axes else self._shaped(axes, axis)

        turret, elevation = driving("turret_axis"), driving("gun_axis")
        if spec.invert_gun:
            elevation = -elevation
        self.orbit_held = self._is_held("camera_orbit", held)
        self.look = (turret, elevation) if self.orbit_held else (0.0, 0.0)
        if self.orbit_held:  # the aiming stick looks round instead
            turret = elevation = 0.0
        controls = Controls(
            throttle=max(driving("throttle_axis"), 0.0),
            brake=max(driving("brake_axis"), 0.0),
            steer=driving("steer_axis"),
            handbrake=self._is_held("handbrake", held), gear=self.lever,
            fire=self._is_held("fire", held), turret=turret, elevation=elevation,
            reset=self._is_held("reset", held),
            swap_vehicle=self._is_held("swap_vehicle", held),
            next_shell=self._is_held("next_shell", held))
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
        zone = spec.trigger_dead_zone if is_trigger(name) else spec.stick_dead_zone
        if abs(raw_axis(axes, name)) > zone:
            return True
    return False
