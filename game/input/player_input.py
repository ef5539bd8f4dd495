"""The local players' devices, routed to their vehicles and views.

Player 1 drives with the keyboard and mouse, and with a pad when one is theirs
(whichever was used last drives); player 2 (``--players 2``) with a pad only. With two
players the first pad connected goes to player 2, a second one to player 1; until
player 2 has one, their view says so and their vehicle stands still. Camera presses,
the mouse's orbit and the pads' look-round go to each player's own view.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Protocol

from game.input.keyboard import KeyboardInput, mouse_aim
from game.input.pad_input import CombinedInput, GamepadInput, PadSeats
from game.sim.controls import Controls
from game.sim.local_players import SECOND_PLAYER

NO_PAD_NOTICE = "Player 2: connect a gamepad"
"""What player 2's view says while they have no pad."""


class ChaseCameraControls(Protocol):
    """What the devices move of a player's chase camera."""

    def hold_orbit(self, held: bool) -> None: ...

    def swing(self, right_deg: float, up_deg: float) -> None: ...

    def orbit(self, across_screens: float, up_screens: float) -> None: ...


class PlayerViewControls(Protocol):
    """What the devices drive of a player's view (the view's own class is
    :class:`game.view.player_view.PlayerView`; input imports nothing of the view)."""

    @property
    def chase_camera(self) -> ChaseCameraControls: ...

    @property
    def sighting(self) -> bool: ...

    def camera_action(self, action: str) -> None: ...

    def to_region(self, x: float, y: float) -> tuple[float, float]: ...

    def set_notice(self, text: str | None) -> None: ...


class LocalInputs:
    """The keyboard, mouse and pads of ``views``' players (one view each, player 1 first).

    ``events`` takes key bindings (``accept``/``ignore``: ShowBase); ``pad_source`` gives
    the pads and reports them coming and going (None: no pad is read, as in scripted
    runs); ``mouse()`` is the pointer in window coordinates
    (None: outside); ``user()`` the current user settings (mouse axes); ``on_unplug()``
    runs when a pad in use goes away."""

    def __init__(self, events, controls_spec, views: list[PlayerViewControls], *, pad_source,
                 mouse: Callable, user: Callable, on_unplug: Callable[[], None]):
        self.spec = controls_spec
        self.views = views
        self.mouse = mouse
        self.user = user
        self.keyboard = KeyboardInput(events, controls_spec.keyboard)
        self.pads: list[GamepadInput | None] = [None] * len(views)
        if pad_source is not None and controls_spec.gamepad.enabled:
            seats = [GamepadInput(pad_source, controls_spec.gamepad, on_unplug=on_unplug,
                                  claim_at_start=False) for _ in views]
            # The first pad goes to the last player: player 1 has the keyboard too.
            pad_source.listen(PadSeats(seats, fill_order=seats[::-1]))
            self.pads = seats
        self.first = CombinedInput(self.keyboard, self.pads[0])
        self._mouse: tuple[float, float] | None = None

    # ----- driving -----------------------------------------------------------------------

    def player_one(self, gear: str | None) -> Controls:
        """Player 1's controls this step (``gear``: their vehicle's, for sequential shifts)."""
        return self.first.controls(self._mouse_aim(), gear)

    def set_lever(self, position: str | None) -> None:
        """Every player's gear lever at ``position`` (None: not moved yet), as a new game
        starts: a lever left in a gear by the last game would shift the new vehicle."""
        self.first.set_lever(position)
        for pad in self.pads[1:]:
            if pad is not None:
                pad.mapper.lever = position

    def others(self, simulation) -> dict[str, Controls]:
        """Player 2's pad's controls by vehicle name; none (it stands idle) without one."""
        pad = self.pads[1] if len(self.pads) > 1 else None
        vehicle = simulation.vehicle_named(SECOND_PLAYER)
        if pad is None or vehicle is None:
            return {}
        controls = pad.controls(vehicle.gear)
        return {} if controls is None else {SECOND_PLAYER: controls}

    def poll_pads(self) -> None:
        """Read the pads while nothing is driven (paused): for their Start buttons."""
        for pad in self.pads:
            if pad is not None:
                pad.controls()

    def pause_pressed(self) -> bool:
        """Whether any player's pad asked for the pause menu since the last call."""
        return any([pad.take_pause_press() for pad in self.pads if pad is not None])

    def rebind_pads(self, gamepad) -> None:
        """Every player's pad uses ``gamepad``'s buttons and axes from now on (rebound in
        the pause menu)."""
        self.spec = replace(self.spec, gamepad=gamepad)
        for pad in self.pads:
            if pad is not None:
                pad.rebind(gamepad)

    def _mouse_aim(self) -> tuple[float, float] | None:
        """In the gun sight, the mouse's offset from the middle of player 1's view aims."""
        spec = self.spec.mouse
        if (not spec.gunsight_aim or not self.views[0].sighting
                or self.keyboard.action_held("camera_orbit")):
            return None
        mouse = self.mouse()
        if mouse is None:
            return None
        x, y = mouse_aim(spec, *self.views[0].to_region(*mouse))
        user = self.user()
        return (-x if user.invert_x else x, -y if user.invert_y else y)

    # ----- cameras -----------------------------------------------------------------------

    def update(self, frame_s: float) -> None:
        """Once a frame: camera presses, mouse orbit and look-round to each player's view;
        player 2's view asks for a pad while they have none."""
        first = self.views[0]
        for action in self.keyboard.take_camera_presses():
            first.camera_action(action)
        mouse_held = self.keyboard.action_held("camera_orbit")
        mouse = self.mouse()
        for index, (view, pad) in enumerate(zip(self.views, self.pads)):
            looking = pad is not None and pad.pad is not None and pad.mapper.orbit_held
            view.chase_camera.hold_orbit(looking or (index == 0 and mouse_held))
            if pad is not None:
                for action in pad.take_camera_presses():
                    view.camera_action(action)
            if looking:  # the pad's aiming stick swings the camera at its rate
                rate = self.spec.gamepad.look_deg_per_s * frame_s
                across, up = pad.mapper.look
                view.chase_camera.swing(across * rate, up * rate)
            if index > 0:
                view.set_notice(None if pad is not None and pad.pad is not None
                                else NO_PAD_NOTICE)
        if mouse_held and mouse is not None and self._mouse is not None:
            # Mouse coordinates run -1..1 across the window: 2 units to a window width.
            user = self.user()
            first.chase_camera.orbit(
                (mouse[0] - self._mouse[0]) / 2.0 * (-1 if user.invert_x else 1),
                (mouse[1] - self._mouse[1]) / 2.0 * (-1 if user.invert_y else 1))
        self._mouse = mouse

    def destroy(self) -> None:
        for pad in self.pads:
            if pad is not None:
                pad.destroy()
        self.keyboard.destroy()


def mouse_in_window(base) -> tuple[float, float] | None:
    """ShowBase's pointer in window coordinates (-1..1 each way), or None outside it."""
    watcher = base.mouseWatcherNode
    if watcher is None or not watcher.hasMouse():
        return None
    point = watcher.getMouse()
    return point.getX(), point.getY()
