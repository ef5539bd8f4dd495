"""Keyboard driving: named actions bound to keys in config/controls.toml.

:class:`KeyboardMapper` is the testable half: the set of keys held and the
keys just pressed in, :class:`Controls` out. :class:`KeyboardInput` is the thin
Panda3D half that listens for key events and feeds it; :class:`ActionKeys` runs the
app's own keys (quit, pause, overlay). Both take new bindings at once (``rebind``: the
pause menu's Controls page). :class:`PandaKeyCapture` hands over the next button
pressed, for that page.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace
from typing import Callable

from common.spec import Spec, SpecError, tuning
from game.input.gamepad import shifted_lever
from game.sim.controls import AUTOMATIC, Controls


@dataclass(frozen=True)
class KeyboardSpec(Spec):
    throttle: tuple[str, ...] = tuning("drive in the selected gear", length=(1, 8))
    brake: tuple[str, ...] = tuning("brake", length=(1, 8))
    steer_left: tuple[str, ...] = tuning("steer left", length=(1, 8))
    steer_right: tuple[str, ...] = tuning("steer right", length=(1, 8))
    handbrake: tuple[str, ...] = tuning("hold the handbrake", length=(1, 8))
    gear_reverse: tuple[str, ...] = tuning("select reverse", length=(1, 8))
    gear_neutral: tuple[str, ...] = tuning("select neutral", length=(1, 8))
    gear_1: tuple[str, ...] = tuning("select first gear", length=(1, 8))
    gear_2: tuple[str, ...] = tuning("select second gear", length=(1, 8))
    gear_3: tuple[str, ...] = tuning("select third gear", length=(1, 8))
    gear_4: tuple[str, ...] = tuning("select fourth gear", length=(1, 8))
    gear_5: tuple[str, ...] = tuning("select fifth gear", length=(1, 8))
    gear_up: tuple[str, ...] = tuning("shift up one gear (R, N, 1 ... 5; one shift a press)",
                                      length=(1, 8))
    gear_down: tuple[str, ...] = tuning("shift down one gear", length=(1, 8))
    gear_automatic: tuple[str, ...] = tuning("let the gearbox shift by itself (any gear key "
                                             "goes back to manual)", length=(1, 8))
    reset: tuple[str, ...] = tuning("set the vehicle back on its wheels", length=(1, 8))
    swap_vehicle: tuple[str, ...] = tuning("hop between the tank and the car", length=(1, 8))
    fire: tuple[str, ...] = tuning("fire the gun (held: fires again once reloaded)",
                                   length=(1, 8))
    turret_left: tuple[str, ...] = tuning("traverse the turret left", length=(1, 8))
    turret_right: tuple[str, ...] = tuning("traverse the turret right", length=(1, 8))
    gun_up: tuple[str, ...] = tuning("raise the gun", length=(1, 8))
    gun_down: tuple[str, ...] = tuning("lower the gun", length=(1, 8))
    shell_1: tuple[str, ...] = tuning("load the first shell at the next reload", length=(1, 8))
    shell_2: tuple[str, ...] = tuning("load the second shell at the next reload",
                                      length=(1, 8))
    shell_3: tuple[str, ...] = tuning("load the third shell at the next reload", length=(1, 8))
    next_shell: tuple[str, ...] = tuning("select the next shell that has rounds left",
                                         length=(1, 8))
    quit: tuple[str, ...] = tuning("leave the game", length=(1, 8))
    camera_view: tuple[str, ...] = tuning("switch between the chase camera and the gun sight",
                                          length=(1, 8))
    camera_orbit: tuple[str, ...] = tuning("hold to swing the camera round with the mouse",
                                           length=(1, 8))
    camera_zoom_in: tuple[str, ...] = tuning("bring the chase camera closer", length=(1, 8))
    camera_zoom_out: tuple[str, ...] = tuning("move the chase camera away", length=(1, 8))
    pause: tuple[str, ...] = tuning("open or close the pause menu (in a scripted or offscreen "
                                    "run: leave at once)", length=(1, 8))
    debug_overlay: tuple[str, ...] = tuning("show or hide the suspension-ray overlay",
                                            length=(1, 8))
    armour_view: tuple[str, ...] = tuning("show or hide the armour view (the plates by the "
                                          "armour the camera sees)", length=(1, 8))
    scoreboard: tuple[str, ...] = tuning("show or hide the scoreboard (online)", length=(1, 8))
    screenshot: tuple[str, ...] = tuning("save a screenshot in your data folder",
                                         length=(1, 8))
    fullscreen: tuple[str, ...] = tuning("switch between fullscreen and a window",
                                         length=(1, 8))
    hud_compact: tuple[str, ...] = tuning("the full HUD or a compact one", length=(1, 8))
    help_card: tuple[str, ...] = tuning("show or hide the card of the main keys",
                                        length=(1, 8))

    def keys(self) -> set[str]:
        return {key for field in fields(self) for key in getattr(self, field.name)}


@dataclass(frozen=True)
class MouseSpec(Spec):
    """In the gun sight the mouse aims: its offset from the window's centre turns the turret
    and raises the gun, at a rate that grows with the offset."""

    gunsight_aim: bool = tuning("the mouse traverses the turret and raises the gun in the gun "
                                "sight")
    dead_zone: float = tuning("offset from the centre (share of the half window) that does "
                              "nothing", minimum=0.0, maximum=0.9)
    full_rate_at: float = tuning("offset at which the turret turns at full rate",
                                 minimum=0.1, maximum=1.0)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.full_rate_at <= self.dead_zone:
            raise SpecError("full_rate_at", self.full_rate_at,
                            f"more than dead_zone ({self.dead_zone})")


CAMERA_ACTIONS = ("camera_view", "camera_zoom_in", "camera_zoom_out")
"""Actions that happen once per key press; the app takes them with ``take_camera_presses``."""

_GEAR_ACTIONS = {"gear_reverse": "R", "gear_neutral": "N", "gear_1": "1", "gear_2": "2",
                 "gear_3": "3", "gear_4": "4", "gear_5": "5", "gear_automatic": AUTOMATIC}


_SHIFT_ACTIONS = {"gear_up": +1, "gear_down": -1}
"""Sequential shifts: one gear along the lever's order per press."""

SHELL_ACTIONS = ("shell_1", "shell_2", "shell_3")
"""The keys of the gun's ammunition slots 0, 1, 2: each selects its slot's shell for the
next reload."""


class KeyboardMapper:
    """Held keys in, Controls out. Gear keys move the lever, which stays where it was put."""

    def __init__(self, spec: KeyboardSpec):
        self.spec = spec
        self.lever: str | None = None
        self.camera_presses: list[str] = []
        self.shifts: list[int] = []
        """Sequential shifts pressed (+1 up, -1 down) and not yet taken by a step."""
        self.shell_pressed: int | None = None
        """The ammunition slot whose key went down since the last step (None: none)."""
        self.next_shell_pressed = False
        """The next-shell key went down since the last step."""

    def _held(self, action: str, held: set[str]) -> bool:
        return any(key in held for key in getattr(self.spec, action))

    def press(self, key: str) -> None:
        """A key went down: gear keys take effect at once (even between steps); a shift
        key counts once per press, taken by the next :meth:`controls`."""
        for action, gear in _GEAR_ACTIONS.items():
            if key in getattr(self.spec, action):
                self.lever = gear
                self.shifts.clear()  # a gear picked outright beats shifts pressed before it
        for action, direction in _SHIFT_ACTIONS.items():
            if key in getattr(self.spec, action):
                self.shifts.append(direction)
        for action in CAMERA_ACTIONS:
            if key in getattr(self.spec, action):
                self.camera_presses.append(action)
        for slot, action in enumerate(SHELL_ACTIONS):
            if key in getattr(self.spec, action):
                self.shell_pressed = slot
        if key in self.spec.next_shell:
            self.next_shell_pressed = True

    def forget_presses(self) -> None:
        """Drop shifts, shell choices and camera presses not yet taken (the bindings
        changed under them)."""
        self.shifts.clear()
        self.camera_presses.clear()
        self.shell_pressed = None
        self.next_shell_pressed = False

    def take_camera_presses(self) -> list[str]:
        """Camera actions pressed since the last call, in order."""
        presses, self.camera_presses = self.camera_presses, []
        return presses

    def held(self, action: str, held: set[str]) -> bool:
        return self._held(action, held)

    def _axis(self, minus: str, plus: str, held: set[str]) -> float:
        return float(self._held(plus, held)) - float(self._held(minus, held))

    def controls(self, held: set[str], aim: tuple[float, float] | None = None,
                 current_gear: str | None = None) -> Controls:
        """The controls for the keys ``held``; ``aim`` (turret, elevation rates -1..1, e.g.
        from the mouse in the gun sight) applies to an axis whose keys are not held.
        Shift presses since the last call move the lever, from ``current_gear`` (the
        vehicle's) when it has not been moved, as the pad's shifts do. A shell key held,
        or pressed since the last call, selects its slot; the next-shell key counts while
        held, and once for a press let go before a step saw it held."""
        for direction in self.shifts:
            self.lever = shifted_lever(self.lever, direction, current_gear)
        self.shifts.clear()
        shell = next((slot for slot, action in enumerate(SHELL_ACTIONS)
                      if self._held(action, held)), self.shell_pressed)
        next_shell = self.next_shell_pressed or self._held("next_shell", held)
        self.shell_pressed, self.next_shell_pressed = None, False
        turret = self._axis("turret_left", "turret_right", held)
        elevation = self._axis("gun_down", "gun_up", held)
        if aim is not None:
            if not (self._held("turret_left", held) or self._held("turret_right", held)):
                turret = min(max(float(aim[0]), -1.0), 1.0)
            if not (self._held("gun_down", held) or self._held("gun_up", held)):
                elevation = min(max(float(aim[1]), -1.0), 1.0)
        return replace(Controls(), throttle=float(self._held("throttle", held)),
                       brake=float(self._held("brake", held)),
                       steer=self._axis("steer_left", "steer_right", held),
                       handbrake=self._held("handbrake", held), gear=self.lever,
                       fire=self._held("fire", held), turret=turret, elevation=elevation,
                       reset=self._held("reset", held),
                       swap_vehicle=self._held("swap_vehicle", held), shell=shell,
                       next_shell=next_shell)


def mouse_aim(spec: MouseSpec, x: float, y: float) -> tuple[float, float]:
    """Turret and elevation rates (-1..1) from the mouse's offset from the window's centre
    (each -1..1, + right / + up): zero inside the dead zone, full at ``full_rate_at``."""

    def rate(offset: float) -> float:
        size = abs(offset)
        if size <= spec.dead_zone:
            return 0.0
        share = min((size - spec.dead_zone) / (spec.full_rate_at - spec.dead_zone), 1.0)
        return math.copysign(share, offset)

    return rate(x), rate(y)


class KeyboardInput:
    """Listens to Panda3D key events (through ``accept``/``ignore`` of a DirectObject)."""

    def __init__(self, events, spec: KeyboardSpec):
        self.events = events
        self.mapper = KeyboardMapper(spec)
        self.held: set[str] = set()
        self._keys: set[str] = set()
        self._listen(spec)

    def _listen(self, spec: KeyboardSpec) -> None:
        self._keys = spec.keys()
        for key in self._keys:
            self.events.accept(key, self._down, [key])
            self.events.accept(key + "-up", self.held.discard, [key])

    def rebind(self, spec: KeyboardSpec) -> None:
        """Use ``spec``'s keys from now on. Keys held are forgotten (a key no longer bound
        would never be let go of) and presses not yet taken dropped; the lever stays."""
        self.destroy()
        self.held.clear()
        self.mapper.spec = spec
        self.mapper.forget_presses()
        self._listen(spec)

    def _down(self, key: str) -> None:
        self.held.add(key)
        self.mapper.press(key)

    def controls(self, aim: tuple[float, float] | None = None,
                 current_gear: str | None = None) -> Controls:
        return self.mapper.controls(self.held, aim, current_gear)

    def take_camera_presses(self) -> list[str]:
        return self.mapper.take_camera_presses()

    def action_held(self, action: str) -> bool:
        return self.mapper.held(action, self.held)

    def destroy(self) -> None:
        for key in self._keys:
            self.events.ignore(key)
            self.events.ignore(key + "-up")


class ActionKeys:
    """Keys that do something at once rather than drive: ``handlers`` by action name
    (quit, pause, the overlay), listened to through ``events`` (a DirectObject of their
    own, so the driving keys' handlers never replace them). While ``blocked()`` (the
    pause menu is waiting for a key to bind) they do nothing, and a key for which
    ``taken(key)`` holds (a menu on screen answers it: Esc goes back there) is left alone."""

    def __init__(self, events, handlers: dict[str, Callable[[], None]], spec: KeyboardSpec,
                 blocked: Callable[[], bool] = lambda: False,
                 taken: Callable[[str], bool] = lambda key: False):
        self.events = events
        self.handlers = handlers
        self.blocked = blocked
        self.taken = taken
        self._keys: list[str] = []
        self.rebind(spec)

    def _run(self, action: str, key: str) -> None:
        if not self.blocked() and not self.taken(key):
            self.handlers[action]()

    def rebind(self, spec: KeyboardSpec) -> None:
        self.destroy()
        for action in self.handlers:
            for key in getattr(spec, action):
                self.events.accept(key, self._run, [action, key])
                self._keys.append(key)

    def destroy(self) -> None:
        for key in self._keys:
            self.events.ignore(key)
        self._keys = []


CAPTURE_EVENT = "tank-battle-button-down"
"""The generic button-down event :class:`PandaKeyCapture` asks ShowBase's ButtonThrower for."""


class PandaKeyCapture:
    """The next keyboard button pressed, by its Panda3D name, from the generic button-down
    event of ShowBase's first ButtonThrower. The button's own event (which the game's keys
    listen to) comes before it. Mouse buttons over the menu never reach the thrower (the
    menu takes them); the menu reads those itself."""

    def __init__(self, thrower, events):
        self.thrower = thrower
        """A ButtonThrower node (``base.buttonThrowers[0].node()``)."""
        self.events = events

    def listen(self, on_key: Callable[[str], None]) -> None:
        self.thrower.setButtonDownEvent(CAPTURE_EVENT)
        self.events.accept(CAPTURE_EVENT, on_key)

    def stop(self) -> None:
        self.thrower.setButtonDownEvent("")
        self.events.ignore(CAPTURE_EVENT)
