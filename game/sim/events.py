"""What happened in a step: one frozen dataclass per kind of event.

The simulation, the battle and the gearbox's shifts make these; the views, the sound,
the soak and the benchmarks read them by type (``isinstance`` or a table of handlers
keyed by class), so a misspelt kind is a ``NameError`` where it is written, never a
branch that silently does not match.

Telemetry writes each event as ``{"type": TYPE, field: value, ...}`` in the order the
fields are declared here: :meth:`Event.to_json`. A field whose JSON name is not its
Python name (``from``, a keyword; ``speed_ms``, kept as the contract has it) says so
with :func:`json_name`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar

_JSON_NAME = "json_name"
_WHEN_KNOWN = "when_known"
DRAW = "draw"
"""A match's winner when two or more sides won the most rounds (:class:`MatchEnd`)."""


def json_name(name: str) -> Any:
    """A field written to JSON under ``name`` instead of its Python name."""
    return dataclasses.field(metadata={_JSON_NAME: name})


def when_known() -> Any:
    """A field that is None where it does not apply, and then left out of the JSON
    altogether (records of the kind that never have it stay as they were)."""
    return dataclasses.field(default=None, metadata={_WHEN_KNOWN: True})


@dataclass(frozen=True)
class Event:
    """Something that happened in one fixed step."""

    TYPE: ClassVar[str]
    """The ``type`` telemetry writes; unique among the event classes."""

    def to_json(self) -> dict[str, Any]:
        """The event as telemetry writes it: its type first, then its fields in order."""
        record: dict[str, Any] = {"type": self.TYPE}
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if value is None and field.metadata.get(_WHEN_KNOWN):
                continue
            record[field.metadata.get(_JSON_NAME, field.name)] = _copied(value)
        return record


def _copied(value: Any) -> Any:
    """A dict (and any dict inside it) copied, so changing a written record never changes
    the event."""
    if isinstance(value, dict):
        return {key: _copied(item) for key, item in value.items()}
    return value


@dataclass(frozen=True)
class Shot(Event):
    TYPE = "shot"
    vehicle: str
    shell: str | None = when_known()
    """The shell fired (a table of config/shells.toml)."""


@dataclass(frozen=True)
class Hit(Event):
    """A shell struck something: where, the face's normal, and how fast it arrived; on a
    vehicle's armour, also the plate, the angle and what came of it (None elsewhere)."""

    TYPE = "hit"
    shooter: str
    target: str
    """The name of what was struck (a vehicle's or a plate's), or its kind in lower case
    ("terrain", "rock"), or "nothing"."""
    point: tuple[float, ...]
    normal: tuple[float, ...]
    speed_mps: float = json_name("speed_ms")
    shell: str | None = when_known()
    """The shell's name (a table of config/shells.toml)."""
    plate: str | None = when_known()
    thickness_mm: float | None = when_known()
    angle_deg: float | None = when_known()
    """From the plate's normal: 0 is square on."""
    effective_mm: float | None = when_known()
    """The plate's thickness along the shell's path."""
    penetration_mm: float | None = when_known()
    """What the shell could pierce, square on, as it arrived."""
    result: str | None = when_known()
    """"penetrated", "blocked", "ricochet" or "overmatch"."""


@dataclass(frozen=True)
class Damage(Event):
    TYPE = "damage"
    vehicle: str
    by: str
    amount: float
    health: float


@dataclass(frozen=True)
class Destroyed(Event):
    TYPE = "destroyed"
    vehicle: str
    by: str
    cause: str | None = when_known()
    """What finished it besides its health running out: "ammo_rack" (the turret was
    thrown) or "fire"; None: damage."""


@dataclass(frozen=True)
class PartDamaged(Event):
    """One of a tank's parts (:data:`physics.model.parts.PART_NAMES`) lost hit points and is
    damaged, not destroyed."""

    TYPE = "part_damaged"
    vehicle: str
    part: str
    by: str
    hit_points: float
    """What it has left."""


@dataclass(frozen=True)
class PartDestroyed(Event):
    """A part lost its last hit point: its effect is full until it is mended."""

    TYPE = "part_destroyed"
    vehicle: str
    part: str
    by: str
    repair_s: float
    """How long the crew take to mend it to damaged."""


@dataclass(frozen=True)
class PartRepaired(Event):
    """The crew mended a destroyed part: it is damaged again, working at a damaged part's
    share."""

    TYPE = "part_repaired"
    vehicle: str
    part: str
    hit_points: float


@dataclass(frozen=True)
class FireStarted(Event):
    """A shell set the engine on fire: it burns health until the crew put it out."""

    TYPE = "fire_started"
    vehicle: str
    by: str


@dataclass(frozen=True)
class FireOut(Event):
    TYPE = "fire_out"
    vehicle: str


@dataclass(frozen=True)
class RoundEnd(Event):
    TYPE = "round_end"
    round: int
    winner: str
    """"player" or "bots"; free for all (online), the last player's name or "nobody"."""
    score: dict[str, int]


@dataclass(frozen=True)
class RoundStart(Event):
    TYPE = "round_start"
    round: int
    score: dict[str, int]


@dataclass(frozen=True)
class MatchEnd(Event):
    """The match is over: after the last round's end and its pause (see
    :mod:`game.sim.match_stats` for what each figure counts)."""

    TYPE = "match_end"
    rounds: int
    """Rounds played."""
    winner: str
    """The side with the most rounds won: "player", "bots" or, free for all, a player's
    name; "draw" when two or more share the most."""
    score: dict[str, int]
    """Rounds won by side."""
    sides: dict[str, dict]
    """Each side's figures: ``{side: {kills, shots, hits, accuracy, damage_dealt,
    damage_taken}}`` (accuracy None without a shot). Each vehicle's own are the battle's
    ``stats``; they stay out of the event, which must fit one network message whatever
    the number of vehicles."""


@dataclass(frozen=True)
class ShiftStart(Event):
    """A shift began: no drive until it finishes (a shift into N is instant: ``Shift``)."""

    TYPE = "shift_start"
    vehicle: str
    from_gear: str = json_name("from")
    to_gear: str = json_name("to")
    automatic: bool = False


@dataclass(frozen=True)
class Shift(Event):
    """A gear engaged."""

    TYPE = "shift"
    vehicle: str
    from_gear: str = json_name("from")
    to_gear: str = json_name("to")


@dataclass(frozen=True)
class ShiftRefused(Event):
    """A gear that could not be engaged: ``reason`` "moving" (the grind), "over_rev" or
    "unknown"."""

    TYPE = "shift_refused"
    vehicle: str
    gear: str
    reason: str


@dataclass(frozen=True)
class Reset(Event):
    """A vehicle set back on its wheels where it stood."""

    TYPE = "reset"
    vehicle: str


@dataclass(frozen=True)
class SwapVehicle(Event):
    """The player hopped from one vehicle into another."""

    TYPE = "swap_vehicle"
    from_vehicle: str = json_name("from")
    to_vehicle: str = json_name("to")


@dataclass(frozen=True)
class Recovered(Event):
    """The physics guard set a vehicle back on the ground where it last was well."""

    TYPE = "recovered"
    vehicle: str
    reason: str


@dataclass(frozen=True)
class Joined(Event):
    """A network player joined (their vehicle is in the game)."""

    TYPE = "joined"
    vehicle: str


@dataclass(frozen=True)
class Left(Event):
    """A network player left: "quit", "timeout", "malformed" or "server" (it stopped)."""

    TYPE = "left"
    vehicle: str
    reason: str


@dataclass(frozen=True)
class ZoneEnter(Event):
    """A vehicle still in the fight came into the capture zone (``--mode zone``)."""

    TYPE = "zone_enter"
    vehicle: str
    side: str


@dataclass(frozen=True)
class ZoneLeave(Event):
    """A vehicle left the capture zone: drove out, was destroyed in it, or the round
    restarted."""

    TYPE = "zone_leave"
    vehicle: str
    side: str


@dataclass(frozen=True)
class ZoneCaptured(Event):
    """A side held the capture zone alone long enough: it wins the round."""

    TYPE = "zone_captured"
    round: int
    side: str


@dataclass(frozen=True)
class CraterDug(Event):
    """A shell dug a crater where it hit sand (:mod:`physics.model.craters`): the ground
    is lower there for everyone from this step on."""

    TYPE = "crater"
    x_m: float
    y_m: float
    radius_m: float
    depth_m: float


def _by_type() -> dict[str, type[Event]]:
    kinds: dict[str, type[Event]] = {}
    for kind in Event.__subclasses__():
        if kind.TYPE in kinds:  # a slip in this module: fails at import
            raise TypeError(f"two event classes have the type {kind.TYPE!r}")
        kinds[kind.TYPE] = kind
    return kinds


EVENT_TYPES = _by_type()
"""Every event class by its ``TYPE``."""


def event_from_json(record) -> Event:
    """An event as :meth:`Event.to_json` writes it, back as its class (lists become
    tuples); raises ValueError for a record that is not one of them."""
    if not isinstance(record, dict) or record.get("type") not in EVENT_TYPES:
        raise ValueError("an event without a known type")
    kind = EVENT_TYPES[record["type"]]
    names = {field.metadata.get(_JSON_NAME, field.name): field.name
             for field in dataclasses.fields(kind)}
    optional = {field.metadata.get(_JSON_NAME, field.name) for field in dataclasses.fields(kind)
                if field.metadata.get(_WHEN_KNOWN)}
    values = {key: value for key, value in record.items() if key != "type"}
    if not set(names) - optional <= set(values) <= set(names):
        raise ValueError(f"event {record['type']!r} with fields {sorted(values)}")
    return kind(**{names[key]: tuple(value) if isinstance(value, list) else value
                   for key, value in values.items()})
