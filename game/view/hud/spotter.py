"""Whom the player's vehicle has spotted, for the HUD's enemy markers.

The rules are the bots' own (:func:`game.sim.spotting.spotted` with the same
``[ai.spotting]`` spec): in range (further for a vehicle raising dust or one that fired
lately), and a line from the player's gun muzzle (an unarmed vehicle: its hull's middle)
to the middle of the target's hull that clears the ground. Casting along the terrain costs,
so each enemy is re-checked only every ``recheck_s`` (the enemies take turns), and what
was drawn last stands in between.

- A living enemy stays marked for ``memory_s`` after the last check that saw it: one that
  ducks behind a dune does not vanish at once, the player still knows where it went.
- A wreck (a destroyed enemy) is marked once it has been seen, alive or wrecked, and stays
  marked until it is whole again (a new round): it does not move, and the player saw it.
- A shot gives a vehicle away as the bots see it (``fired_at_s``); a network client's
  vehicles carry no such time, so the shots in the events stand in for it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from game.sim.events import Event, Shot
from game.sim.spotting import SpottingSpec, hull_middle_ws, spotted
from physics.model.ballistics import muzzle_ws


def eye_of(vehicle):
    """Where a vehicle sees from: its gun's muzzle (as a bot's does), else its hull's
    middle."""
    if getattr(vehicle, "aim", None) is not None:
        return muzzle_ws(vehicle.current, vehicle.spec.gun, vehicle.aim)
    return hull_middle_ws(vehicle)


@dataclass
class _Track:
    """What is known of one enemy."""

    next_check_s: float
    stagger_s: float
    """Added once, after its first check: the enemies' checks spread over the interval."""
    seen_at_s: float = -math.inf
    """The last check that spotted it."""
    wreck_seen: bool = False


@dataclass(frozen=True)
class _Sighted:
    """A target as :func:`spotted` reads it, with the time of its last shot from events."""

    current: object
    spec: object
    fired_at_s: float


class EnemySpotter:
    """Which enemies to mark, from ``spotting`` (the bots' rules)."""

    def __init__(self, spotting: SpottingSpec, recheck_s: float, memory_s: float):
        self.spotting = spotting
        self.recheck_s = recheck_s
        self.memory_s = memory_s
        self._tracks: dict[str, _Track] = {}
        self._shots: dict[str, float] = {}
        """Each shooter's last shot, for targets that carry no ``fired_at_s``."""
        self._new_shots: set[str] = set()
        self._last_s = -math.inf
        self.checks = 0
        """Sight lines cast so far (each a walk along the terrain)."""

    def reset(self) -> None:
        """A new game: nothing seen yet."""
        self._tracks.clear()
        self._shots.clear()
        self._new_shots.clear()
        self._last_s = -math.inf

    def on_events(self, events: list[Event]) -> None:
        """Shots: stamped with the time of the next :meth:`update`."""
        self._new_shots.update(event.vehicle for event in events if isinstance(event, Shot))

    def update(self, now_s: float, eye_ws, enemies: list, terrain, world=None,
               looker=None, screens=None) -> list[tuple[object, bool]]:
        """The enemies to mark now, each with whether it is a wreck. Given the physics
        ``world`` (and the ``looker``), what hides an enemy from the bots hides it here too:
        a rock, a plate or a wreck, as well as the ground (``screens``: the simulation's
        :class:`~game.sim.spotting.SightScreens`)."""
        if now_s < self._last_s:  # the clock went back: a new game
            self.reset()
        self._last_s = now_s
        for name in self._new_shots:
            self._shots[name] = now_s
        self._new_shots.clear()
        names = {vehicle.name for vehicle in enemies}
        for name in [name for name in self._tracks if name not in names]:
            del self._tracks[name]
        marked = []
        for index, vehicle in enumerate(enemies):
            track = self._tracks.get(vehicle.name)
            if track is None:
                track = self._tracks[vehicle.name] = _Track(
                    now_s, self.recheck_s * index / len(enemies))
            if self._marks(track, vehicle, now_s, eye_ws, terrain, world, looker, screens):
                marked.append((vehicle, bool(vehicle.destroyed)))
        return marked

    def _marks(self, track: _Track, vehicle, now_s: float, eye_ws, terrain, world=None,
               looker=None, screens=None) -> bool:
        """Whether ``vehicle`` is marked now (checking its sight line when due)."""
        if not vehicle.destroyed and track.wreck_seen:  # whole again: a new round
            track.wreck_seen = False
            track.seen_at_s = -math.inf
            track.next_check_s = now_s
        if track.wreck_seen:
            return True
        if now_s >= track.next_check_s:
            self.checks += 1
            if spotted(self.spotting, terrain, eye_ws, self._sighted(vehicle), now_s, world,
                       looker, screens=screens):
                track.seen_at_s = now_s
            track.next_check_s = now_s + self.recheck_s + track.stagger_s
            track.stagger_s = 0.0
        seen = now_s - track.seen_at_s <= self.memory_s
        if vehicle.destroyed and seen:
            track.wreck_seen = True
        return seen

    def _sighted(self, vehicle):
        """The vehicle itself, or (no ``fired_at_s`` of its own) it with its last shot."""
        if hasattr(vehicle, "fired_at_s"):
            return vehicle
        return _Sighted(vehicle.current, vehicle.spec,
                        self._shots.get(vehicle.name, -math.inf))
