"""The wire format of online play: one message per ENet packet, little-endian.

Every message starts with a type byte. Clients send only who they are (``Hello``), their
controls (``Inputs``) and goodbye; the server sends the game (``Welcome``), who is in it
(``Roster``), quantised states (``Snapshot``, see :mod:`game.sim.net.snapshots`), what
happened (``Events``), a refusal and the end. ``decode_client`` and ``decode_server`` check
every byte they read (length, type, ranges, finite numbers) and raise
:class:`ProtocolError` for anything else: a malformed message is dropped, never acted on.

Controls travel quantised (axes in 1/127ths, the brake in 1/255ths); the client steps its
own prediction with the quantised controls, so both sides drive the same numbers.
"""

from __future__ import annotations

import json
import math
import struct
from dataclasses import dataclass

from game.sim.controls import GEAR_NAMES, Controls
from game.sim.events import Event, event_from_json
from physics.model.ammunition import AMMUNITION_SLOTS

PROTOCOL = 5
"""Bumped whenever a message changes: part of the version a client must match."""

STATE_CHANNEL = 0
"""Unreliable and sequenced: inputs and snapshots (a late one is worth nothing)."""
RELIABLE_CHANNEL = 1
"""Reliable and ordered: hello, welcome, roster, events, refusals, the end."""
CHANNELS = 2

MAX_NAME_BYTES = 24
MAX_TEXT_BYTES = 200
MAX_INPUTS_PER_PACKET = 16
"""Each inputs packet repeats up to this many of the latest steps' controls (a lost one
costs nothing); runs of the same controls travel once, with their length."""
MAX_EVENTS_BYTES = 16384
NO_TICK = 0xFFFFFFFF
"""A tick field that names no tick (no snapshot received yet)."""
VEHICLE_KINDS = ("tank", "car")

HELLO, INPUTS, BYE, LOADING = 1, 2, 3, 4
WELCOME, REFUSE, ROSTER, SNAPSHOT, EVENTS, END, SCOREBOARD = 10, 11, 12, 13, 14, 15, 16


class ProtocolError(ValueError):
    """A message that is not one we understand: wrong length, type or value."""


# ----- reading and writing fields --------------------------------------------------------


class Reader:
    """Reads fields off a message, checking that each is there and in range."""

    def __init__(self, data: bytes):
        self.data = memoryview(data)
        self.offset = 0

    def take(self, layout: struct.Struct) -> tuple:
        end = self.offset + layout.size
        if end > len(self.data):
            raise ProtocolError(f"message too short: needs {end} bytes, has {len(self.data)}")
        values = layout.unpack_from(self.data, self.offset)
        self.offset = end
        return values

    def one(self, layout: struct.Struct):
        return self.take(layout)[0]

    def text(self, most_bytes: int) -> str:
        length = self.one(U8)
        if length > most_bytes:
            raise ProtocolError(f"text of {length} bytes, most {most_bytes}")
        end = self.offset + length
        if end > len(self.data):
            raise ProtocolError("text runs past the end of the message")
        try:
            value = bytes(self.data[self.offset:end]).decode("utf-8")
        except UnicodeDecodeError:
            raise ProtocolError("text is not UTF-8") from None
        self.offset = end
        if not value.isprintable():
            raise ProtocolError("text holds control characters")
        return value

    def rest(self) -> bytes:
        value = bytes(self.data[self.offset:])
        self.offset = len(self.data)
        return value

    def finish(self) -> None:
        if self.offset != len(self.data):
            raise ProtocolError(f"{len(self.data) - self.offset} bytes left over")


def finite(*values: float) -> None:
    if not all(math.isfinite(value) for value in values):
        raise ProtocolError("a number that is not finite")


def text_field(value: str, most_bytes: int) -> bytes:
    encoded = value.encode("utf-8")[:most_bytes]
    while True:  # never cut a character in two
        try:
            encoded.decode("utf-8")
            break
        except UnicodeDecodeError:
            encoded = encoded[:-1]
    return U8.pack(len(encoded)) + encoded


U8, U16, U32 = struct.Struct("<B"), struct.Struct("<H"), struct.Struct("<I")
_HELLO = struct.Struct("<B32sB")       # protocol, config digest, vehicle kind
_INPUTS = struct.Struct("<IIIHB")       # ack tick, newest tick, sent at (ms), ping, runs
_CONTROLS = struct.Struct("<bbBbbBBB")  # throttle steer brake turret elevation buttons gear
#                                         shell (0: none; slot + 1)
_WELCOME = struct.Struct("<BIIB")        # your vehicle id, seed, server tick, step Hz
_HANDBRAKE, _FIRE, _RESET, _SWAP, _NEXT_SHELL = 1, 2, 4, 8, 16
_BUTTONS = _HANDBRAKE | _FIRE | _RESET | _SWAP | _NEXT_SHELL
_AXIS, _BRAKE = 127, 255


# ----- controls ----------------------------------------------------------------------------


def _axis(value: float) -> int:
    return int(round(max(-1.0, min(1.0, float(value))) * _AXIS))


def pack_controls(controls: Controls) -> bytes:
    buttons = ((_HANDBRAKE if controls.handbrake else 0) | (_FIRE if controls.fire else 0)
               | (_RESET if controls.reset else 0) | (_SWAP if controls.swap_vehicle else 0)
               | (_NEXT_SHELL if controls.next_shell else 0))
    gear = 0 if controls.gear is None else GEAR_NAMES.index(controls.gear) + 1
    brake = int(round(max(0.0, min(1.0, float(controls.brake))) * _BRAKE))
    shell = controls.shell
    slot = 0 if shell is None or not 0 <= shell < AMMUNITION_SLOTS else shell + 1
    return _CONTROLS.pack(_axis(controls.throttle), _axis(controls.steer), brake,
                          _axis(controls.turret), _axis(controls.elevation), buttons, gear,
                          slot)


def read_controls(reader: Reader) -> Controls:
    throttle, steer, brake, turret, elevation, buttons, gear, slot = reader.take(_CONTROLS)
    if min(throttle, steer, turret, elevation) < -_AXIS:
        raise ProtocolError("an axis below -1")
    if buttons & ~_BUTTONS or gear > len(GEAR_NAMES):
        raise ProtocolError("unknown buttons or gear")
    if slot > AMMUNITION_SLOTS:
        raise ProtocolError(f"ammunition slot {slot - 1}, most {AMMUNITION_SLOTS - 1}")
    return Controls(throttle / _AXIS, steer / _AXIS, brake / _BRAKE, bool(buttons & _HANDBRAKE),
                    None if gear == 0 else GEAR_NAMES[gear - 1], bool(buttons & _FIRE),
                    turret / _AXIS, elevation / _AXIS, bool(buttons & _RESET),
                    bool(buttons & _SWAP), None if slot == 0 else slot - 1,
                    bool(buttons & _NEXT_SHELL))


def quantised(controls: Controls) -> Controls:
    """``controls`` as the server will read them off the wire."""
    return read_controls(Reader(pack_controls(controls)))


# ----- client to server --------------------------------------------------------------------


@dataclass(frozen=True)
class Hello:
    """A client asks to join: its protocol, game version and config digest must match."""

    version: str
    config_digest: bytes
    name: str
    vehicle: str
    protocol: int = PROTOCOL
    tank: str = ""
    """The tank class asked for ("": the server's default)."""

    def encode(self) -> bytes:
        return (U8.pack(HELLO) + _HELLO.pack(self.protocol, self.config_digest,
                                             VEHICLE_KINDS.index(self.vehicle))
                + text_field(self.version, MAX_NAME_BYTES)
                + text_field(self.name, MAX_NAME_BYTES) + text_field(self.tank, MAX_NAME_BYTES))


@dataclass(frozen=True)
class Inputs:
    """A client's controls for its latest steps, newest last: ``controls[-1]`` is for
    server tick ``newest_tick``, the one before it for the tick before, and so on."""

    ack_tick: int
    """The newest snapshot the client has (NO_TICK: none yet): the server's delta base."""
    newest_tick: int
    sent_ms: int
    """The client's clock when sent (ms, wrapping): echoed back to measure the ping."""
    ping_ms: int
    """The round trip the client last measured (shown in the server's telemetry)."""
    controls: tuple[Controls, ...]

    def encode(self) -> bytes:
        runs: list[list] = []  # [repeats, packed], oldest first
        for controls in self.controls:
            packed = pack_controls(controls)
            if runs and runs[-1][1] == packed:
                runs[-1][0] += 1
            else:
                runs.append([1, packed])
        return (U8.pack(INPUTS) + _INPUTS.pack(self.ack_tick, self.newest_tick,
                                               self.sent_ms & 0xFFFFFFFF,
                                               min(self.ping_ms, 0xFFFF), len(runs))
                + b"".join(U8.pack(repeats) + packed for repeats, packed in runs))


@dataclass(frozen=True)
class Bye:
    def encode(self) -> bytes:
        return U8.pack(BYE)


@dataclass(frozen=True)
class Loading:
    """A joined client is still building the game it joined (its map, its world, a
    window's views: seconds on a slow or busy machine): it is there, though it sends no
    inputs yet. Hearing it is all the server does with it."""

    def encode(self) -> bytes:
        return U8.pack(LOADING)


ClientMessage = Hello | Inputs | Bye | Loading


def decode_client(data: bytes) -> ClientMessage:
    """A client's message, checked; raises :class:`ProtocolError`."""
    reader = Reader(data)
    kind = reader.one(U8)
    if kind == HELLO:
        protocol, digest, vehicle = reader.take(_HELLO)
        if vehicle >= len(VEHICLE_KINDS):
            raise ProtocolError(f"vehicle kind {vehicle}")
        version = reader.text(MAX_NAME_BYTES)
        name = reader.text(MAX_NAME_BYTES)
        message: ClientMessage = Hello(version, digest, name, VEHICLE_KINDS[vehicle], protocol,
                                       reader.text(MAX_NAME_BYTES))
    elif kind == INPUTS:
        ack, newest, sent_ms, ping_ms, runs = reader.take(_INPUTS)
        controls: list[Controls] = []
        for _ in range(runs):
            repeats = reader.one(U8)
            controls += [read_controls(reader)] * repeats
        count = len(controls)
        if not 1 <= count <= MAX_INPUTS_PER_PACKET or newest < count - 1 or newest == NO_TICK:
            raise ProtocolError(f"{count} inputs up to tick {newest}")
        message = Inputs(ack, newest, sent_ms, ping_ms, tuple(controls))
    elif kind == BYE:
        message = Bye()
    elif kind == LOADING:
        message = Loading()
    else:
        raise ProtocolError(f"unknown client message type {kind}")
    reader.finish()
    return message


# ----- server to client ----------------------------------------------------------------------


@dataclass(frozen=True)
class Welcome:
    """You are in: your vehicle's id and name, and the world to build (map, seed)."""

    vehicle_id: int
    name: str
    map: str
    seed: int
    tick: int
    step_hz: int

    def encode(self) -> bytes:
        return (U8.pack(WELCOME) + _WELCOME.pack(self.vehicle_id, self.seed, self.tick,
                                                 self.step_hz)
                + text_field(self.name, MAX_NAME_BYTES) + text_field(self.map, MAX_NAME_BYTES))


@dataclass(frozen=True)
class Refuse:
    """Not let in (or put out): why, in one line."""

    reason: str

    def encode(self) -> bytes:
        return U8.pack(REFUSE) + text_field(self.reason, MAX_TEXT_BYTES)


@dataclass(frozen=True)
class End:
    """The server ended the game normally."""

    reason: str

    def encode(self) -> bytes:
        return U8.pack(END) + text_field(self.reason, MAX_TEXT_BYTES)


@dataclass(frozen=True)
class RosterEntry:
    vehicle_id: int
    kind: str
    name: str
    human: bool
    tank_class: str = ""
    """A tank's class ("": the car)."""


@dataclass(frozen=True)
class Roster:
    """Every vehicle in the game: sent whole whenever someone joins or leaves."""

    entries: tuple[RosterEntry, ...]

    def encode(self) -> bytes:
        parts = [U8.pack(ROSTER), U8.pack(len(self.entries))]
        for entry in self.entries:
            parts += [U8.pack(entry.vehicle_id),
                      U8.pack(VEHICLE_KINDS.index(entry.kind) | (0x80 if entry.human else 0)),
                      text_field(entry.name, MAX_NAME_BYTES),
                      text_field(entry.tank_class, MAX_NAME_BYTES)]
        return b"".join(parts)


@dataclass(frozen=True)
class ScoreLine:
    vehicle_id: int
    kills: int
    deaths: int
    ping_ms: int


_SCORE_LINE = struct.Struct("<BHHH")


@dataclass(frozen=True)
class Scoreboard:
    """Kills, deaths and ping of every vehicle (a bot's ping is 0): sent every second."""

    lines: tuple[ScoreLine, ...]

    def encode(self) -> bytes:
        return U8.pack(SCOREBOARD) + U8.pack(len(self.lines)) + b"".join(
            _SCORE_LINE.pack(line.vehicle_id, min(line.kills, 0xFFFF),
                             min(line.deaths, 0xFFFF), min(line.ping_ms, 0xFFFF))
            for line in self.lines)


@dataclass(frozen=True)
class Events:
    """What happened in server step ``tick`` (shots, hits, rounds, joins, ...)."""

    tick: int
    events: tuple[Event, ...]

    def encode(self) -> bytes:
        body = json.dumps([event.to_json() for event in self.events],
                          separators=(",", ":")).encode("utf-8")
        return U8.pack(EVENTS) + U32.pack(self.tick) + body


def _decode_events(reader: Reader) -> Events:
    tick = reader.one(U32)
    body = reader.rest()
    if len(body) > MAX_EVENTS_BYTES:
        raise ProtocolError("events message too long")
    try:
        records = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise ProtocolError("events that are not JSON") from None
    if not isinstance(records, list):
        raise ProtocolError("events that are not a list")
    try:
        return Events(tick, tuple(event_from_json(record) for record in records))
    except ValueError as error:
        raise ProtocolError(str(error)) from None
    except TypeError:
        raise ProtocolError("an event with fields of the wrong kind") from None


def _decode_roster(reader: Reader) -> Roster:
    entries = []
    for _ in range(reader.one(U8)):
        vehicle_id, kind = reader.take(struct.Struct("<BB"))
        if kind & 0x7F >= len(VEHICLE_KINDS):
            raise ProtocolError(f"vehicle kind {kind & 0x7F}")
        name = reader.text(MAX_NAME_BYTES)
        entries.append(RosterEntry(vehicle_id, VEHICLE_KINDS[kind & 0x7F], name,
                                   bool(kind & 0x80), reader.text(MAX_NAME_BYTES)))
    return Roster(tuple(entries))


ServerMessage = Welcome | Refuse | End | Roster | Events | Scoreboard


def decode_server(data: bytes) -> ServerMessage:
    """A server's message other than a snapshot, checked; raises :class:`ProtocolError`.
    (Snapshots are read by :func:`game.sim.net.snapshots.decode_snapshot`.)"""
    reader = Reader(data)
    kind = reader.one(U8)
    if kind == WELCOME:
        vehicle_id, seed, tick, step_hz = reader.take(_WELCOME)
        message: ServerMessage = Welcome(vehicle_id, reader.text(MAX_NAME_BYTES),
                                         reader.text(MAX_NAME_BYTES), seed, tick, step_hz)
    elif kind in (REFUSE, END):
        reason = reader.text(MAX_TEXT_BYTES)
        message = Refuse(reason) if kind == REFUSE else End(reason)
    elif kind == ROSTER:
        message = _decode_roster(reader)
    elif kind == EVENTS:
        message = _decode_events(reader)
    elif kind == SCOREBOARD:
        message = Scoreboard(tuple(ScoreLine(*reader.take(_SCORE_LINE))
                                   for _ in range(reader.one(U8))))
    else:
        raise ProtocolError(f"unknown server message type {kind}")
    reader.finish()
    return message

