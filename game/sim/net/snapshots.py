"""Snapshots: every vehicle's state quantised, delta-compressed against one the client has.

A vehicle on the wire (:class:`WireVehicle`) is whole numbers: its position in 2 mm
steps, its orientation as the "smallest three" of its quaternion in 10 bits each (within
0.2°), its
turret and gun, its health and whether it is a wreck. A snapshot sends, per vehicle,
only the groups (pose, gun, status) that differ from the same vehicle in the baseline,
the newest snapshot the client has acknowledged; a pose that moved less than 65 m since
sends its position as 16-bit steps from the baseline's. The client rebuilds the exact
same numbers, so the next delta starts from the same base on both sides.

Each client also gets its own vehicle in full precision (:class:`OwnState`): what its
prediction is reconciled against, and its gun's ammunition (rounds left per slot, the slot
loaded and the slot selected), which the server alone keeps and the client shows.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np

from game.sim.net.protocol import NO_TICK, SNAPSHOT, U8, ProtocolError, Reader, finite
from physics.model.ammunition import AMMUNITION_SLOTS
from physics.model.parts import PART_NAMES, STATES

POSITION_STEP_M = 1.0 / 512.0
"""2 mm: far below what the eye sees at a chase camera's distance."""
_POSITION_LIMIT = (1 << 23) - 1
"""A 24-bit signed position: ±16 km in 2 mm steps."""
_QUATERNION_BITS = 10
_HALF_ROOT_2 = math.sqrt(0.5)
"""The smallest three of a unit quaternion lie within ±√½."""
_QUATERNION_SCALE = ((1 << _QUATERNION_BITS) - 1) / (2.0 * _HALF_ROOT_2)
_TURRET_SCALE = 65536.0 / (2.0 * math.pi)
_ELEVATION_STEP_RAD = 1e-4
HEALTH_STEP = 0.01
_UNARMED = 0xFFFF
"""The health of a vehicle without one (a car)."""

_POSE, _SMALL_MOVE, _GUN, _STATUS = 1, 2, 4, 8
_ALL_GROUPS = _POSE | _GUN | _STATUS
_HEADER = struct.Struct("<IIIHb")      # tick, baseline tick, echoed sent ms, held ms, margin
_ID_MASK = struct.Struct("<BB")
_SMALL = struct.Struct("<hhh")
_ORIENTATION = struct.Struct("<I")
_GUN_LAYOUT = struct.Struct("<Hh")
_STATUS_LAYOUT = struct.Struct("<HBI")  # health, flags, parts
_OWN = struct.Struct("<3f4f3f3ffB")  # position, quaternion, velocity, spin, reload, gear
_OWN_AMMUNITION = struct.Struct("<BBB")  # loaded slot + 1 (0: none), selected slot, slots
_ROUNDS = struct.Struct("<H")
_REPAIRS = struct.Struct(f"<{len(PART_NAMES)}H")
"""Per part, the time left on its repair in steps of :data:`REPAIR_STEP_S`."""
REPAIR_STEP_S = 0.1
_DESTROYED = 1
_PART_BITS = 2
"""Each part's state on the wire: its index in :data:`~physics.model.parts.STATES`."""
_ON_FIRE = 1 << (_PART_BITS * len(PART_NAMES))
_PARTS_MASK = _ON_FIRE | (_ON_FIRE - 1)


class WireVehicle(NamedTuple):
    """One vehicle's state as whole numbers, exactly as both ends hold it."""

    position: tuple[int, int, int]
    orientation: int
    turret: int
    elevation: int
    health: int
    flags: int
    parts: int
    """A tank's parts: 2 bits of state each (:data:`PART_NAMES` order), then on fire."""


_EMPTY_VEHICLE = WireVehicle((0, 0, 0), 0, 0, 0, 0, 0, 0)


def pack_parts(codes, on_fire: bool) -> int:
    """A tank's parts' states (indices into ``STATES``, :data:`PART_NAMES` order) and its
    fire, as one number."""
    packed = _ON_FIRE if on_fire else 0
    for index, code in enumerate(codes):
        packed |= code << (_PART_BITS * index)
    return packed


def unpack_parts(packed: int) -> tuple[tuple[int, ...], bool]:
    """:func:`pack_parts` undone (raises ProtocolError for a state that is none)."""
    codes = tuple((packed >> (_PART_BITS * index)) & ((1 << _PART_BITS) - 1)
                  for index in range(len(PART_NAMES)))
    if packed & ~_PARTS_MASK or max(codes) >= len(STATES):
        raise ProtocolError(f"unknown part states {packed:#x}")
    return codes, bool(packed & _ON_FIRE)


def _to_steps(value_m: float) -> int:
    return max(-_POSITION_LIMIT, min(_POSITION_LIMIT, round(value_m / POSITION_STEP_M)))


def pack_orientation(quaternion: np.ndarray) -> int:
    """A unit quaternion (w, x, y, z) as 32 bits: which component is largest (2 bits) and
    the other three, sign-matched so the largest is positive, 10 bits each."""
    q = np.asarray(quaternion, dtype=float)
    largest = int(np.argmax(np.abs(q)))
    if q[largest] < 0.0:
        q = -q
    packed = largest
    for index in range(4):
        if index != largest:
            level = round((float(q[index]) + _HALF_ROOT_2) * _QUATERNION_SCALE)
            packed = (packed << _QUATERNION_BITS) | max(0, min((1 << _QUATERNION_BITS) - 1,
                                                               level))
    return packed


def unpack_orientation(packed: int) -> tuple[float, float, float, float]:
    """The unit quaternion (w, x, y, z) of :func:`pack_orientation`'s 32 bits."""
    mask = (1 << _QUATERNION_BITS) - 1
    others = [((packed >> shift) & mask) / _QUATERNION_SCALE - _HALF_ROOT_2
              for shift in (2 * _QUATERNION_BITS, _QUATERNION_BITS, 0)]
    largest = (packed >> (3 * _QUATERNION_BITS)) & 3
    rest = sum(value * value for value in others)
    components = others[:largest] + [math.sqrt(max(0.0, 1.0 - rest))] + others[largest:]
    scale = 1.0 / math.sqrt(sum(value * value for value in components))
    w, x, y, z = (value * scale for value in components)
    return w, x, y, z


def wire_vehicle(vehicle) -> WireVehicle:
    """A simulation vehicle's state, quantised."""
    state = vehicle.current
    x, y, z = (_to_steps(float(value)) for value in state.position_ws)
    position = (x, y, z)
    turret = round(vehicle.turret_heading_rad * _TURRET_SCALE) & 0xFFFF
    elevation = max(-32767, min(32767, round(vehicle.gun_elevation_rad / _ELEVATION_STEP_RAD)))
    health = (_UNARMED if vehicle.health is None
              else min(_UNARMED - 1, round(vehicle.health / HEALTH_STEP)))
    parts = vehicle.parts
    return WireVehicle(position, pack_orientation(state.orientation_ws), turret, elevation,
                       health, _DESTROYED if vehicle.destroyed else 0,
                       0 if parts is None else pack_parts(parts.codes(), parts.on_fire))


@dataclass(frozen=True)
class VehiclePose:
    """A wire vehicle back in SI units (plain numbers: a client reads one per vehicle per
    snapshot, and numpy is slow on arrays this small)."""

    position_ws: tuple[float, float, float]
    orientation_ws: tuple[float, float, float, float]
    turret_heading_rad: float
    gun_elevation_rad: float
    health: float | None
    destroyed: bool
    parts: tuple[int, ...] = ()
    """A tank's parts' states (indices into ``STATES``; a car's say nothing)."""
    on_fire: bool = False


def vehicle_pose(wire: WireVehicle) -> VehiclePose:
    turret = wire.turret / _TURRET_SCALE
    if turret > math.pi:
        turret -= 2.0 * math.pi
    x, y, z = (value * POSITION_STEP_M for value in wire.position)
    return VehiclePose((x, y, z),
                       unpack_orientation(wire.orientation), turret,
                       wire.elevation * _ELEVATION_STEP_RAD,
                       None if wire.health == _UNARMED else wire.health * HEALTH_STEP,
                       bool(wire.flags & _DESTROYED), *unpack_parts(wire.parts))


@dataclass(frozen=True)
class OwnState:
    """The receiving client's own vehicle, in full (float32) precision."""

    position_ws: tuple[float, float, float]
    orientation_ws: tuple[float, float, float, float]
    velocity_ws: tuple[float, float, float]
    angular_velocity_ws: tuple[float, float, float]
    reload_left_s: float
    gear_index: int
    rounds: tuple[int, ...] = ()
    """Rounds left per ammunition slot (none: unarmed)."""
    loaded: int | None = None
    """The slot in the breech or being loaded (None: nothing left to load)."""
    selected: int = 0
    """The slot the next reload takes."""
    repairs_s: tuple[float, ...] = (0.0,) * len(PART_NAMES)
    """Per part (:data:`PART_NAMES` order), the time left on its repair (0: none)."""

    def encode(self) -> bytes:
        return (_OWN.pack(*self.position_ws, *self.orientation_ws, *self.velocity_ws,
                          *self.angular_velocity_ws, self.reload_left_s, self.gear_index)
                + _OWN_AMMUNITION.pack(0 if self.loaded is None else self.loaded + 1,
                                       self.selected, len(self.rounds))
                + b"".join(_ROUNDS.pack(min(rounds, 0xFFFF)) for rounds in self.rounds)
                + _REPAIRS.pack(*(min(0xFFFF, math.ceil(left_s / REPAIR_STEP_S))
                                  for left_s in self.repairs_s)))


def own_state(vehicle) -> OwnState:
    state = vehicle.current
    aim = vehicle.aim
    reload_s = aim.reload_left_s if aim is not None else 0.0
    ammunition = aim.ammunition if aim is not None else None
    own = OwnState(tuple(state.position_ws.tolist()), tuple(state.orientation_ws.tolist()),
                   tuple(state.velocity_ws.tolist()),
                   tuple(state.angular_velocity_ws.tolist()), reload_s,
                   int(vehicle.fleet.gearbox.gear_index[vehicle.index]),
                   *((tuple(ammunition.rounds), ammunition.loaded, ammunition.selected)
                     if ammunition is not None else ()))
    if vehicle.parts is None:
        return own
    return replace(own, repairs_s=tuple(vehicle.parts.repair_left_s.tolist()))


def _read_own(reader: Reader) -> OwnState:
    values = reader.take(_OWN)
    finite(*values[:14])
    loaded, selected, slots = reader.take(_OWN_AMMUNITION)
    if slots > AMMUNITION_SLOTS or loaded > slots or (slots and selected >= slots) \
            or (not slots and selected):
        raise ProtocolError(f"ammunition: slot {loaded - 1} loaded and {selected} selected "
                            f"of {slots}")
    rounds = tuple(reader.one(_ROUNDS) for _ in range(slots))
    repairs = tuple(steps * REPAIR_STEP_S for steps in reader.take(_REPAIRS))
    return OwnState(values[0:3], values[3:7], values[7:10], values[10:13],
                    max(0.0, values[13]), values[14], rounds,
                    None if loaded == 0 else loaded - 1, selected, repairs)


@dataclass(frozen=True)
class Snapshot:
    """Every vehicle after server step ``tick``, by vehicle id, and the receiver's own."""

    tick: int
    baseline_tick: int
    echo_ms: int
    """The ``sent_ms`` of the client's newest inputs, and how long the server held them:
    the client's round trip is its clock now, less both."""
    held_ms: int
    margin: int
    """How many steps early the client's inputs arrived, at worst, since the last snapshot
    (below 1: they come late; the client should run further ahead)."""
    vehicles: dict[int, WireVehicle]
    own: OwnState | None


def _changed_groups(wire: WireVehicle, base: WireVehicle | None) -> int:
    if base is None:
        return _ALL_GROUPS
    groups = 0
    if wire.position != base.position or wire.orientation != base.orientation:
        groups |= _POSE
        if all(abs(a - b) < 32768 for a, b in zip(wire.position, base.position)):
            groups |= _SMALL_MOVE
    if wire.turret != base.turret or wire.elevation != base.elevation:
        groups |= _GUN
    if wire.health != base.health or wire.flags != base.flags or wire.parts != base.parts:
        groups |= _STATUS
    return groups


def _position_bytes(position: tuple[int, int, int]) -> bytes:
    return b"".join((value & 0xFFFFFF).to_bytes(3, "little") for value in position)


def encode_snapshot(snapshot: Snapshot, baseline: dict[int, WireVehicle] | None) -> bytes:
    """The snapshot as bytes, each vehicle's groups sent only where they differ from
    ``baseline`` (the vehicles of ``snapshot.baseline_tick``; None: send all)."""
    parts = [U8.pack(SNAPSHOT), _HEADER.pack(snapshot.tick, snapshot.baseline_tick,
                                             snapshot.echo_ms & 0xFFFFFFFF,
                                             min(snapshot.held_ms, 0xFFFF),
                                             max(-128, min(127, snapshot.margin)))]
    parts.append(U8.pack(1) + snapshot.own.encode() if snapshot.own else U8.pack(0))
    parts.append(U8.pack(len(snapshot.vehicles)))
    for vehicle_id, wire in snapshot.vehicles.items():
        base = baseline.get(vehicle_id) if baseline is not None else None
        groups = _changed_groups(wire, base)
        parts.append(_ID_MASK.pack(vehicle_id, groups))
        if groups & _POSE:
            if groups & _SMALL_MOVE:
                assert base is not None, "a small move is only chosen against a baseline"
                parts.append(_SMALL.pack(*(a - b for a, b in zip(wire.position, base.position))))
            else:
                parts.append(_position_bytes(wire.position))
            parts.append(_ORIENTATION.pack(wire.orientation))
        if groups & _GUN:
            parts.append(_GUN_LAYOUT.pack(wire.turret, wire.elevation))
        if groups & _STATUS:
            parts.append(_STATUS_LAYOUT.pack(wire.health, wire.flags, wire.parts))
    return b"".join(parts)


def snapshot_baseline_tick(data: bytes) -> int:
    """The baseline a snapshot's bytes were made against (to look it up before decoding)."""
    reader = Reader(data)
    if reader.one(U8) != SNAPSHOT:
        raise ProtocolError("not a snapshot")
    return reader.take(_HEADER)[1]


def _read_position(reader: Reader) -> tuple[int, int, int]:
    x, y, z = (int.from_bytes(value, "little", signed=True)
               for value in reader.take(struct.Struct("<3s3s3s")))
    return x, y, z


def _read_vehicle(reader: Reader, groups: int, base: WireVehicle | None) -> WireVehicle:
    if base is None and groups & _ALL_GROUPS != _ALL_GROUPS:
        raise ProtocolError("a vehicle sent in part with no baseline for it")
    if groups & ~(_ALL_GROUPS | _SMALL_MOVE):
        raise ProtocolError(f"unknown vehicle groups {groups}")
    if groups & _SMALL_MOVE and base is None:
        raise ProtocolError("a move with nothing to move from")
    # A vehicle sent with no baseline carries every group, so each field of this empty
    # one is overwritten below.
    known = base if base is not None else _EMPTY_VEHICLE
    position, orientation = known.position, known.orientation
    if groups & _POSE:
        if groups & _SMALL_MOVE:
            x, y, z = (a + b for a, b in zip(known.position, reader.take(_SMALL)))
            position = (x, y, z)
        else:
            position = _read_position(reader)
        orientation = reader.one(_ORIENTATION)
    turret, elevation = reader.take(_GUN_LAYOUT) if groups & _GUN else known[2:4]
    health, flags, parts = reader.take(_STATUS_LAYOUT) if groups & _STATUS else known[4:7]
    if flags & ~_DESTROYED:
        raise ProtocolError(f"unknown vehicle flags {flags}")
    unpack_parts(parts)  # checked here: what is kept as a baseline is sound
    return WireVehicle(position, orientation, turret, elevation, health, flags, parts)


def decode_snapshot(data: bytes, baseline: dict[int, WireVehicle] | None) -> Snapshot:
    """A snapshot's bytes back as whole numbers, given the vehicles of its baseline tick
    (None when it names none); raises :class:`ProtocolError`."""
    reader = Reader(data)
    if reader.one(U8) != SNAPSHOT:
        raise ProtocolError("not a snapshot")
    tick, baseline_tick, echo_ms, held_ms, margin = reader.take(_HEADER)
    if (baseline_tick == NO_TICK) != (baseline is None):
        raise ProtocolError(f"baseline tick {baseline_tick} not at hand")
    own = _read_own(reader) if reader.one(U8) else None
    vehicles: dict[int, WireVehicle] = {}
    for _ in range(reader.one(U8)):
        vehicle_id, groups = reader.take(_ID_MASK)
        if vehicle_id in vehicles:
            raise ProtocolError(f"vehicle {vehicle_id} twice")
        base = baseline.get(vehicle_id) if baseline is not None else None
        vehicles[vehicle_id] = _read_vehicle(reader, groups, base)
    reader.finish()
    return Snapshot(tick, baseline_tick, echo_ms, held_ms, margin, vehicles, own)
