"""What a driver (player, script or bot) asks of a vehicle, and scripted inputs files."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, fields, replace
from pathlib import Path

from common.errors import UserError
from physics.model.ammunition import AMMUNITION_SLOTS

AUTOMATIC = "A"
GEAR_NAMES = ("R", "N", "1", "2", "3", "4", "5", AUTOMATIC)
"""Lever positions: a gear, or "A" to let the gearbox shift by itself."""


@dataclass(frozen=True, slots=True)
class Controls:
    """One step's controls. ``gear`` is the lever position asked for (None: leave it):
    a gear, or ``AUTOMATIC`` for the automatic mode. (Slotted: every driver makes one a
    step, and a frozen dataclass with slots is made in about half the time.)"""

    throttle: float = 0.0
    steer: float = 0.0
    brake: float = 0.0
    handbrake: bool = False
    gear: str | None = None
    fire: bool = False
    turret: float = 0.0
    elevation: float = 0.0
    reset: bool = False
    """Set the vehicle back on its wheels (on the step it is pressed)."""
    swap_vehicle: bool = False
    """Hop between the tank and the car (on the step it is pressed)."""
    shell: int | None = None
    """Select this ammunition slot of the gun (0 its first shell) for the next reload, on
    every step it is set (None: leave the selection); the shell loaded stays loaded."""
    next_shell: bool = False
    """Select the next slot that has rounds (on the step it is pressed)."""


_new_object = object.__new__
(_set_throttle, _set_steer, _set_brake, _set_handbrake, _set_gear, _set_fire, _set_turret,
 _set_elevation, _set_reset, _set_swap_vehicle, _set_shell,
 _set_next_shell) = (getattr(Controls, field.name).__set__ for field in fields(Controls))


def made_controls(throttle: float = 0.0, steer: float = 0.0, brake: float = 0.0,
                  handbrake: bool = False, gear: str | None = None, fire: bool = False,
                  turret: float = 0.0, elevation: float = 0.0, reset: bool = False,
                  swap_vehicle: bool = False, shell: int | None = None,
                  next_shell: bool = False) -> Controls:
    """``Controls(...)`` made in half the time: each slot set through its own descriptor
    rather than by name, as the frozen dataclass's ``__init__`` does (every bot makes one
    at every step). The same frozen Controls."""
    controls = _new_object(Controls)
    _set_throttle(controls, throttle)
    _set_steer(controls, steer)
    _set_brake(controls, brake)
    _set_handbrake(controls, handbrake)
    _set_gear(controls, gear)
    _set_fire(controls, fire)
    _set_turret(controls, turret)
    _set_elevation(controls, elevation)
    _set_reset(controls, reset)
    _set_swap_vehicle(controls, swap_vehicle)
    _set_shell(controls, shell)
    _set_next_shell(controls, next_shell)
    return controls


def with_drive(controls: Controls, throttle: float, steer: float) -> Controls:
    """``controls`` with another throttle and steer: ``dataclasses.replace`` as
    :func:`made_controls` makes it, in a fifth of the time (a hurt driver's, every step)."""
    return made_controls(throttle, steer, controls.brake, controls.handbrake, controls.gear,
                         controls.fire, controls.turret, controls.elevation, controls.reset,
                         controls.swap_vehicle, controls.shell, controls.next_shell)


_AXES = {"throttle": (-1.0, 1.0), "steer": (-1.0, 1.0), "brake": (0.0, 1.0),
         "turret": (-1.0, 1.0), "elevation": (-1.0, 1.0)}
_SWITCHES = ("handbrake", "fire", "reset", "swap_vehicle", "next_shell")
CONTROL_NAMES = tuple(field.name for field in fields(Controls))


def check_control(path: Path, key: str, name: str, value) -> None:
    """A control's value from an inputs file or a replay, or one UserError naming the file,
    the key and what was expected."""
    if name == "shell":
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                  or not 0 <= value < AMMUNITION_SLOTS):
            raise UserError(path, key, f"an ammunition slot, a whole number from 0 to "
                            f"{AMMUNITION_SLOTS - 1} (or null: leave the selection)", value,
                            has_value=True)
    elif name in _AXES:
        low, high = _AXES[name]
        if (isinstance(value, bool) or not isinstance(value, (int, float))
                or not math.isfinite(value) or not low <= value <= high):
            raise UserError(path, key, f"a number in [{low:g}, {high:g}]", value, has_value=True)
    elif name in _SWITCHES:
        if not isinstance(value, bool):
            raise UserError(path, key, "true or false", value, has_value=True)
    elif value not in GEAR_NAMES:
        raise UserError(path, key, "one of " + ", ".join(f'"{g}"' for g in GEAR_NAMES), value,
                        has_value=True)


class ScriptedInputs:
    """Controls from an inputs file: each event sets the controls it names from time ``t`` on."""

    def __init__(self, events: list[tuple[float, dict]]):
        self._events = events
        self._next = 0
        self._controls = Controls()

    @classmethod
    def load(cls, path: str | Path) -> "ScriptedInputs":
        path = Path(path)
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise UserError(path, None, "an inputs file, but there is no such file") from None
        except OSError as error:  # a folder, no permission, a file where a folder should be
            raise UserError(path, None, f"a readable inputs file ({error.strerror})") from None
        except UnicodeDecodeError:
            raise UserError(path, None, "UTF-8 JSON text") from None
        except json.JSONDecodeError as error:
            raise UserError(path, None, f"valid JSON ({error.msg} at line {error.lineno} "
                                        f"column {error.colno})") from None
        except RecursionError:
            raise UserError(path, None, "JSON nested less deeply") from None
        return cls(cls.parse(document, path))

    @staticmethod
    def parse(document, path: Path) -> list[tuple[float, dict]]:
        if not isinstance(document, dict) or set(document) != {"events"}:
            raise UserError(path, None, 'a JSON object with one key, "events"')
        raw_events = document["events"]
        if not isinstance(raw_events, list):
            raise UserError(path, "events", "a list of events", raw_events, has_value=True)
        events, last_t = [], 0.0
        for index, event in enumerate(raw_events):
            where = f"events[{index}]"
            if not isinstance(event, dict):
                raise UserError(path, where, "an object like {\"t\": 0.0, \"throttle\": 1.0}",
                                event, has_value=True)
            t = event.get("t")
            if (isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t)
                    or t < last_t):
                raise UserError(path, where + ".t", f"a time in seconds >= {last_t:g} "
                                "(events in time order)", t, has_value=True)
            last_t = float(t)
            changes = {}
            for name, value in event.items():
                if name == "t":
                    continue
                if name not in CONTROL_NAMES:
                    raise UserError(path, f"{where}.{name}", "a control: " +
                                    ", ".join(CONTROL_NAMES), value, has_value=True)
                check_control(path, f"{where}.{name}", name, value)
                changes[name] = float(value) if name in _AXES else value
            events.append((last_t, changes))
        return events

    def controls_at(self, time_s: float) -> Controls:
        """The controls in force at ``time_s``; call with non-decreasing times."""
        while self._next < len(self._events) and self._events[self._next][0] <= time_s:
            self._controls = replace(self._controls, **self._events[self._next][1])
            self._next += 1
        return self._controls


class ButtonEdges:
    """Which buttons went down this step: true on the step one is pressed (its edge), not
    while it stays down."""

    def __init__(self):
        self._held: set[str] = set()

    def pressed(self, name: str, held: bool) -> bool:
        was_held = name in self._held
        if held:
            self._held.add(name)
        else:
            self._held.discard(name)
        return held and not was_held
