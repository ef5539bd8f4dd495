"""A match's statistics: kills, shots, hits, accuracy and damage, per vehicle and per side.

A :class:`MatchStats` is fed each step's events (the battle's rules hook sees them all)
and keeps, for every vehicle that fought:

- ``kills``: enemy vehicles it destroyed (a wreck of its own side, or itself, is none);
- ``shots``: shells it fired (``Shot`` events);
- ``hits``: its shells that struck an enemy vehicle directly (``Hit`` events whose target
  is an enemy; a shell that only splashes one is not a hit);
- ``accuracy``: hits / shots, or None when it fired no shot (nothing to measure: JSON
  ``null``, drawn as a dash);
- ``damage_dealt``: health its shells took off enemy vehicles (impact and splash);
- ``damage_taken``: health it lost to anyone (enemies, its own side, itself).

Damage is the health taken off: the part of a killing blow beyond the health the wreck
had left is not counted, so destroying a tank deals exactly its health.

A side's figures are its vehicles' summed (its accuracy from the summed hits and shots).
Sides are the battle's: "player" (the player and the other people on their side) and
"bots"; free for all, each player is a side of their own, named after them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

from game.sim.events import Damage, Destroyed, Event, Hit, Shot
from game.sim.telemetry import DECIMALS

SideOf = Callable[[str], "str | None"]
"""A vehicle's side by its name (None: no side, e.g. a firing-range plate, or a vehicle that
is not in the battle)."""
FullHealth = Callable[[str], "float | None"]
"""A vehicle's health when whole, by its name (None: unknown, e.g. it has left)."""

FIGURES = ("kills", "shots", "hits", "accuracy", "damage_dealt", "damage_taken")
"""The figures of a vehicle or a side, in the order they are written and shown."""


@dataclass
class Figures:
    """One vehicle's or one side's figures."""

    kills: int = 0
    shots: int = 0
    hits: int = 0
    damage_dealt: float = 0.0
    damage_taken: float = 0.0

    @property
    def accuracy(self) -> float | None:
        """Hits per shot, or None without a shot."""
        return self.hits / self.shots if self.shots else None

    def add(self, other: "Figures") -> None:
        self.kills += other.kills
        self.shots += other.shots
        self.hits += other.hits
        self.damage_dealt += other.damage_dealt
        self.damage_taken += other.damage_taken

    def to_json(self) -> dict[str, float | int | None]:
        """The figures in :data:`FIGURES` order, numbers rounded as telemetry rounds them."""
        accuracy = self.accuracy
        return {"kills": self.kills, "shots": self.shots, "hits": self.hits,
                "accuracy": None if accuracy is None else round(accuracy, DECIMALS),
                "damage_dealt": round(self.damage_dealt, DECIMALS),
                "damage_taken": round(self.damage_taken, DECIMALS)}


class MatchStats:
    """The figures of one match, from its events."""

    def __init__(self, side_of: SideOf, full_health: FullHealth):
        self._side_of = side_of
        self._full_health = full_health
        self._health: dict[str, float] = {}
        """Each vehicle's health after the last damage it took this round."""
        self._vehicles: dict[str, Figures] = {}
        self._sides: dict[str, str] = {}
        """Each vehicle's side as first seen: a network player who left keeps theirs."""

    def side(self, name: str) -> str | None:
        if name not in self._sides:
            side = self._side_of(name)
            if side is None:
                return None
            self._sides[name] = side
        return self._sides[name]

    def _figures(self, name: str) -> Figures:
        return self._vehicles.setdefault(name, Figures())

    def _enemies(self, first: str, second: str) -> bool:
        first_side, second_side = self.side(first), self.side(second)
        return first_side is not None and second_side is not None and first_side != second_side

    def record(self, events: Iterable[Event]) -> None:
        """Count one step's events."""
        for event in events:
            if isinstance(event, Shot):
                if self.side(event.vehicle) is not None:
                    self._figures(event.vehicle).shots += 1
            elif isinstance(event, Hit):
                if self._enemies(event.shooter, event.target):
                    self._figures(event.shooter).hits += 1
            elif isinstance(event, Damage):
                taken = self._health_taken(event)
                if self.side(event.vehicle) is not None:
                    self._figures(event.vehicle).damage_taken += taken
                if self._enemies(event.by, event.vehicle):
                    self._figures(event.by).damage_dealt += taken
            elif isinstance(event, Destroyed):
                if self._enemies(event.by, event.vehicle):
                    self._figures(event.by).kills += 1

    def _health_taken(self, event: Damage) -> float:
        """The health a damage event took off: its amount, but no more than the health the
        vehicle had (a killing blow's excess is nothing taken)."""
        before = self._health.get(event.vehicle)
        if before is None:
            before = self._full_health(event.vehicle)
        self._health[event.vehicle] = event.health
        return event.amount if before is None else min(event.amount, before)

    def new_round(self) -> None:
        """Every vehicle is whole again."""
        self._health.clear()

    def vehicle(self, name: str) -> Figures:
        """One vehicle's figures (all zero if it has none)."""
        return self._vehicles.get(name, Figures())

    def side_figures(self, side: str) -> Figures:
        """A side's figures: its vehicles' summed."""
        total = Figures()
        for name, figures in self._vehicles.items():
            if self._sides.get(name) == side:
                total.add(figures)
        return total

    def by_side(self, sides: Iterable[str]) -> dict[str, dict]:
        """The figures of each of ``sides`` (every side of the match, even one with none),
        as JSON-friendly dicts by side."""
        return {side: self.side_figures(side).to_json() for side in sides}
