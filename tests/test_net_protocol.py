"""The wire format: every message survives a round trip, quantisation stays within its
step, deltas rebuild the same numbers, and malformed bytes are refused, never acted on."""

from __future__ import annotations

import math
import random
import struct

import numpy as np
import pytest

from game.sim.controls import Controls
from game.sim.events import Destroyed, Hit, Joined, RoundEnd, Shot
from game.sim.net.link import LinkSimulation
from game.sim.net.protocol import (MAX_INPUTS_PER_PACKET, NO_TICK, Bye, End, Events, Hello,
                                   Inputs, Loading, ProtocolError, Refuse, Roster, RosterEntry, Scoreboard,
                                   ScoreLine, Welcome, decode_client, decode_server, quantised)
from game.sim.net.snapshots import (POSITION_STEP_M, OwnState, Snapshot, WireVehicle,
                                    decode_snapshot, encode_snapshot, pack_orientation,
                                    pack_parts, unpack_orientation, vehicle_pose)
from physics.model.parts import PART_NAMES, STATES

DIGEST = bytes(range(32))


def random_quaternion(rng) -> np.ndarray:
    q = rng.normal(size=4)
    return q / np.linalg.norm(q)


def test_client_messages_round_trip():
    hello = Hello("0.1.0", DIGEST, "alpha", "car")
    assert decode_client(hello.encode()) == hello
    heavy = Hello("0.1.0", DIGEST, "alpha", "tank", tank="heavy")  # the class travels too
    assert decode_client(heavy.encode()) == heavy
    controls = (Controls(throttle=1.0, gear="1"),) * 5 + (
        Controls(steer=-0.5, brake=0.25, handbrake=True, fire=True, turret=1.0, elevation=-1.0,
                 reset=True, gear="A"),)
    inputs = Inputs(41, 120, 123456, 87, controls)
    decoded = decode_client(inputs.encode())
    assert decoded.newest_tick == 120 and decoded.ack_tick == 41 and decoded.ping_ms == 87
    assert decoded.controls == tuple(quantised(c) for c in controls)
    assert decode_client(Bye().encode()) == Bye()
    assert decode_client(Loading().encode()) == Loading()
    with pytest.raises(ProtocolError):
        decode_client(Loading().encode() + b"x")  # nothing may follow it


def test_repeated_controls_travel_once():
    same = (Controls(throttle=0.5, steer=0.2),) * MAX_INPUTS_PER_PACKET
    one = Inputs(NO_TICK, 100, 0, 0, same[:1]).encode()
    assert len(Inputs(NO_TICK, 100, 0, 0, same).encode()) == len(one)


def test_controls_are_quantised_within_half_a_step():
    rng = random.Random(3)
    for _ in range(200):
        controls = Controls(throttle=rng.uniform(-1, 1), steer=rng.uniform(-1, 1),
                            brake=rng.uniform(0, 1), turret=rng.uniform(-1, 1))
        wire = quantised(controls)
        assert abs(wire.throttle - controls.throttle) <= 0.5 / 127 + 1e-12
        assert abs(wire.brake - controls.brake) <= 0.5 / 255 + 1e-12
        assert quantised(wire) == wire  # what the client predicts with is what the server reads


def test_server_messages_round_trip():
    messages = [Welcome(3, "alpha-2", "desert", 7, 1234, 60), Refuse("the server is full"),
                End("the game is over"),
                Roster((RosterEntry(0, "tank", "bot-1", False, "light"),
                        RosterEntry(3, "car", "alpha", True))),
                Events(99, (Shot("alpha"), Hit("alpha", "bot-1", (1.0, 2.0, 3.0),
                                               (0.0, 0.0, 1.0), 1200.0),
                            Destroyed("bot-1", "alpha"), RoundEnd(1, "alpha", {"alpha": 1}),
                            Joined("beta"))),
                Scoreboard((ScoreLine(0, 3, 1, 0), ScoreLine(4, 0, 2, 87)))]
    for message in messages:
        assert decode_server(message.encode()) == message


def test_orientation_packs_into_32_bits_within_a_fifth_of_a_degree():
    rng = np.random.default_rng(5)
    for _ in range(500):
        q = random_quaternion(rng)
        back = np.array(unpack_orientation(pack_orientation(q)))
        angle_deg = math.degrees(2.0 * math.acos(min(1.0, abs(float(q @ back)))))
        assert angle_deg < 0.2  # 1.7 cm at a hull corner 5 m out
        assert pack_orientation(q) < 2 ** 32


def wire(rng, near: WireVehicle | None = None) -> WireVehicle:
    """A vehicle: anywhere, or (``near``) one that drove on from there, gun and health as
    they were."""
    if near is not None:
        position = tuple(int(v + d) for v, d in zip(near.position, rng.integers(-500, 500, 3)))
        return near._replace(position=position,
                             orientation=pack_orientation(random_quaternion(rng)))
    position = tuple(int(v) for v in rng.integers(-(2 ** 22), 2 ** 22, size=3))
    return WireVehicle(position, pack_orientation(random_quaternion(rng)),
                       int(rng.integers(0, 65536)), int(rng.integers(-3000, 3000)),
                       int(rng.integers(0, 10000)), int(rng.integers(0, 2)),
                       pack_parts(rng.integers(0, len(STATES), len(PART_NAMES)).tolist(),
                                  bool(rng.integers(0, 2))))


def test_a_delta_snapshot_rebuilds_exactly_and_is_smaller():
    rng = np.random.default_rng(11)
    base = {number: wire(rng) for number in range(16)}
    moved = {number: wire(rng, base[number]) for number in range(12)}
    moved.update({12: base[12], 13: base[13]._replace(turret=5)})  # still; turret only
    moved[20] = wire(rng)  # new since the baseline; 14, 15 gone
    own = OwnState((1.0, 2.0, 3.0), (1.0, 0.0, 0.0, 0.0), (4.0, 5.0, 6.0), (0.1, 0.2, 0.3),
                   1.5, 3)
    snapshot = Snapshot(300, 240, 5555, 12, 2, moved, own)
    delta = encode_snapshot(snapshot, base)
    full = encode_snapshot(Snapshot(300, NO_TICK, 5555, 12, 2, moved, own), None)
    assert len(delta) < 0.7 * len(full)
    for data, baseline in ((delta, base), (full, None)):
        decoded = decode_snapshot(data, baseline)
        assert decoded.vehicles == moved
        assert decoded.tick == 300 and decoded.margin == 2 and decoded.own.gear_index == 3
        assert decoded.own.position_ws == pytest.approx(own.position_ws)


def test_a_tanks_parts_and_its_repairs_cross_the_wire_and_nonsense_is_refused():
    codes = (2, 0, 1, 0, 0, 1, 0, 0, 2, 0)
    tank = WireVehicle((0, 0, 0), 0, 0, 0, 5000, 0, pack_parts(codes, True))
    own = OwnState((0.0,) * 3, (1.0, 0.0, 0.0, 0.0), (0.0,) * 3, (0.0,) * 3, 0.0, 1,
                   repairs_s=(7.25,) + (0.0,) * (len(PART_NAMES) - 1))
    decoded = decode_snapshot(encode_snapshot(Snapshot(1, NO_TICK, 0, 0, 0, {3: tank}, own),
                                              None), None)
    pose = vehicle_pose(decoded.vehicles[3])
    assert pose.parts == codes and pose.on_fire
    assert decoded.own.repairs_s[0] == pytest.approx(7.3) and decoded.own.repairs_s[1] == 0.0
    for nonsense in (3, 1 << 30):  # a state that is none; bits past the fire's
        bad = encode_snapshot(Snapshot(1, NO_TICK, 0, 0, 0, {3: tank._replace(parts=nonsense)},
                                       None), None)
        with pytest.raises(ProtocolError):
            decode_snapshot(bad, None)


def test_positions_reach_16_km_in_2_mm_steps():
    assert POSITION_STEP_M == pytest.approx(0.002, abs=1e-4)
    far = WireVehicle((8_191_000, -8_191_000, 100), 0, 0, 0, 0, 0, 0)
    data = encode_snapshot(Snapshot(1, NO_TICK, 0, 0, 0, {0: far}, None), None)
    assert decode_snapshot(data, None).vehicles[0] == far


MALFORMED_CLIENT = [
    b"", b"\x00", b"\x63", bytes([1]),                         # empty, unknown, cut short
    Hello("0.1.0", DIGEST, "alpha", "tank").encode()[:-2],       # cut in its name
    Hello("0.1.0", DIGEST, "alpha", "tank").encode() + b"x",     # bytes left over
    bytes([1]) + struct.pack("<B32sB", 1, DIGEST, 9) + b"\x00\x00",  # vehicle kind 9
    bytes([1]) + struct.pack("<B32sB", 1, DIGEST, 0) + b"\x01\x07\x00",  # a control character
    bytes([1]) + struct.pack("<B32sB", 1, DIGEST, 0) + b"\x02\xff\xfe\x00",  # not UTF-8
    bytes([2]) + struct.pack("<IIIHB", 0, 5, 0, 0, 0),            # no controls
    bytes([2]) + struct.pack("<IIIHB", 0, 5, 0, 0, 1) + bytes([20]) + bytes(7),  # 20 > 16
    bytes([2]) + struct.pack("<IIIHB", 0, 2, 0, 0, 1) + bytes([5]) + bytes(7),  # before tick 0
    bytes([2]) + struct.pack("<IIIHB", 0, 5, 0, 0, 1) + bytes([1]) + struct.pack(
        "<bbBbbBB", -128, 0, 0, 0, 0, 0, 0),                       # an axis below -1
    bytes([2]) + struct.pack("<IIIHB", 0, 5, 0, 0, 1) + bytes([1]) + struct.pack(
        "<bbBbbBB", 0, 0, 0, 0, 0, 0x40, 0),                       # an unknown button
    bytes([2]) + struct.pack("<IIIHB", 0, 5, 0, 0, 1) + bytes([1]) + struct.pack(
        "<bbBbbBB", 0, 0, 0, 0, 0, 0, 99),                         # an unknown gear
]


@pytest.mark.parametrize("data", MALFORMED_CLIENT)
def test_malformed_client_messages_are_refused(data):
    with pytest.raises(ProtocolError):
        decode_client(data)


def test_malformed_server_messages_are_refused():
    events = Events(1, (Shot("a"),)).encode()
    for data in (events[:5] + b"[{", events[:5] + b'[{"type": "nope"}]',
                 events[:5] + b'[{"type": "shot"}]', events[:5] + b'{"type": "shot"}',
                 events[:5] + b'[{"type": "shot", "vehicle": "a", "extra": 1}]',
                 Welcome(1, "a", "desert", 1, 1, 60).encode()[:-1], b"\x0b\x05ab"):
        with pytest.raises(ProtocolError):
            decode_server(data)
    rng = np.random.default_rng(2)
    base = {1: wire(rng)}
    delta = encode_snapshot(Snapshot(9, 3, 0, 0, 0, {1: wire(rng, base[1])}, None), base)
    with pytest.raises(ProtocolError):  # a delta without the baseline it needs
        decode_snapshot(delta, None)
    with pytest.raises(ProtocolError):
        decode_snapshot(delta[:-1], base)
    nan_own = encode_snapshot(Snapshot(9, NO_TICK, 0, 0, 0, {}, OwnState(
        (math.nan, 0.0, 0.0), (1.0, 0.0, 0.0, 0.0), (0.0,) * 3, (0.0,) * 3, 0.0, 1)), None)
    with pytest.raises(ProtocolError):
        decode_snapshot(nan_own, None)


def test_random_bytes_never_raise_anything_but_a_protocol_error():
    rng = random.Random(8)
    for _ in range(3000):
        data = bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 80)))
        for decode in (decode_client, decode_server, lambda d: decode_snapshot(d, None)):
            try:
                decode(data)
            except ProtocolError:
                pass


@pytest.mark.parametrize("text, expected", [("100,10,2", LinkSimulation(100.0, 10.0, 2.0)),
                                            ("0,0,0", LinkSimulation(0.0, 0.0, 0.0))])
def test_a_link_simulation_parses(text, expected):
    assert LinkSimulation.parse(text) == expected


@pytest.mark.parametrize("text", ["100,10", "a,b,c", "100,200,2", "100,10,101", "nan,0,0",
                                  "-5,0,0"])
def test_a_bad_link_simulation_says_what_it_expected(text):
    with pytest.raises(ValueError):
        LinkSimulation.parse(text)
