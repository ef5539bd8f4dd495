"""The dedicated server: owns the battle, steps it in real time, trusts clients with nothing.

A :class:`GameServer` runs one :class:`~game.sim.session.GameSession` with no local player
(``--serve``). Each step it takes every client's controls for that step from what the
client sent (an input that never came repeats the last), steps the game, and every
``step_hz / snapshot_hz`` steps sends each client a snapshot delta-compressed against the
newest one that client acknowledged. What happened (shots, hits, rounds, joins) goes to
everyone on the reliable channel. When a match ends (``match_end``), the next begins by
itself after the restart pause, so an online game never sticks after its last round.

Nothing a client sends is more than controls: a hello is checked against the game's
version and config digest; every message is decoded by :mod:`game.sim.net.protocol`,
which refuses anything malformed; a client that keeps sending those, or floods, or falls
silent for ``timeout_s``, is put out, and its vehicle goes with it.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass, replace

from game.sim.controls import Controls
from game.sim.events import Destroyed, Event, Joined, Left, Shift, ShiftRefused, ShiftStart
from game.sim.net.link import Arrival, Endpoint
from game.sim.net.protocol import (NO_TICK, PROTOCOL, RELIABLE_CHANNEL, STATE_CHANNEL, Bye, End,
                                   Events, Hello, Inputs, ProtocolError, Refuse, Roster,
                                   RosterEntry, Scoreboard, ScoreLine, Welcome, decode_client)
from game.sim.net.slots import ClientSlot, RateMeter, join_spot
from game.sim.net.snapshots import Snapshot, WireVehicle, encode_snapshot, own_state, wire_vehicle
from game.sim.net.spec import NetSpec
from game.sim.session import GameOptions, GameSession, SessionSpecs
from game.sim.telemetry import DECIMALS, TelemetryWriter, rounded

CATCH_UP_MOST_S = 0.25
"""Behind the clock by more than this (a stall), a real-time run stops catching up and
carries on from now: the game slows rather than racing."""
_MAX_VEHICLES = 255
"""Vehicle ids are one byte."""
_LOCAL_EVENTS = (ShiftStart, Shift, ShiftRefused)
"""Each client makes its own vehicle's gear events; nobody needs the others'."""


@dataclass(frozen=True)
class ServerIdentity:
    """What a client must match to join: the game's version and its config files' digest."""

    version: str
    config_digest: bytes


class GameServer:
    """The authoritative game and its clients."""

    def __init__(self, specs: SessionSpecs, net: NetSpec, options: GameOptions,
                 identity: ServerIdentity, endpoint: Endpoint, max_players: int,
                 telemetry: TelemetryWriter | None = None):
        self.net = net
        self.identity = identity
        self.endpoint = endpoint
        self.max_players = max_players
        self.telemetry = telemetry
        self.options = replace(options, vehicle=None, players=1, free_for_all=True,
                               player_ai=None, next_match_automatically=True)
        self.session = GameSession(specs, self.options)
        self.simulation = self.session.simulation
        self.battle = self.session.battle
        self.step_hz = round(specs.world.simulation.step_hz)
        self.snapshot_every = max(1, round(self.step_hz / net.snapshot_hz))
        self.tick = 0
        """Steps taken."""
        self.clients: dict[int, ClientSlot] = {}
        self._ids: dict[str, int] = {}
        """Every vehicle's wire id, by name."""
        self._history: OrderedDict[int, dict[int, WireVehicle]] = OrderedDict()
        """The snapshots sent lately, by tick: the bases of the deltas."""
        self._pending_events: list[Event] = []
        self._roster_changed = True
        self.kills: dict[str, int] = {}
        self.deaths: dict[str, int] = {}
        self.messages_read = 0
        """Messages from clients that reached the decoder, since the start."""
        self.malformed = 0
        """Messages refused as malformed, from anyone, since the start."""
        self.flooded = 0
        """Messages dropped unread because their sender sent too many."""
        self.step_ms = 0.0
        """Processor time of the last step, the game and what went out (not the time
        the machine gave other processes meanwhile)."""
        for vehicle in self.simulation.vehicles:  # the bots
            self._ids[vehicle.name] = self._free_id()

    # ----- time --------------------------------------------------------------------------

    @property
    def step_s(self) -> float:
        return 1.0 / self.step_hz

    def now_s(self) -> float:
        return self.endpoint.clock()

    @property
    def players(self) -> int:
        """How many players are in the game (read from another thread too: the values are
        copied in one C call, which no other thread can interleave)."""
        return sum(slot.vehicle is not None for slot in list(self.clients.values()))

    def run(self, seconds: float | None = None, should_stop=lambda: False) -> None:
        """Serve in real time, a step every 1/step_hz s, for ``seconds`` of game time (None:
        until ``should_stop()``); then tell every client the game is over."""
        next_step_s = self.now_s()
        most_steps = None if seconds is None else round(seconds * self.step_hz)
        while (most_steps is None or self.tick < most_steps) and not should_stop():
            self.receive(max(0.0, next_step_s - self.now_s()))
            if self.now_s() < next_step_s:
                continue
            self.step()
            next_step_s += self.step_s
            if self.now_s() - next_step_s > CATCH_UP_MOST_S:  # a stall: catch up no further
                next_step_s = self.now_s()
        self.stop("the game is over")

    def stop(self, reason: str) -> None:
        for slot in list(self.clients.values()):
            self.endpoint.send(slot.peer, RELIABLE_CHANNEL, End(reason).encode())
            self.endpoint.disconnect(slot.peer)
        deadline = self.now_s() + 1.0  # let the goodbyes go out
        while self.clients and self.now_s() < deadline:
            for arrival in self.endpoint.receive(0.01):
                if arrival.kind == "disconnect":
                    self.clients.pop(arrival.peer, None)

    # ----- the network ------------------------------------------------------------------

    def receive(self, wait_s: float = 0.0) -> None:
        for arrival in self.endpoint.receive(wait_s):
            self._arrival(arrival)

    def _arrival(self, arrival: Arrival) -> None:
        now_s = self.now_s()
        if arrival.kind == "connect":
            self.clients[arrival.peer] = ClientSlot(arrival.peer, now_s)
            return
        slot = self.clients.get(arrival.peer)
        if slot is None:
            return
        if arrival.kind == "disconnect":
            self._drop(slot, "quit", goodbye=False)
            return
        slot.heard_s = now_s
        slot.messages += 1.0
        if slot.bytes_in is not None:
            slot.bytes_in.add(len(arrival.data))
        if slot.messages > self.net.messages_per_step_most * self.step_hz:
            self.flooded += 1  # dropped unread
            return
        self.messages_read += 1
        try:
            message = decode_client(arrival.data)
        except ProtocolError:
            self._malformed(slot)
            return
        if isinstance(message, Hello):
            self._hello(slot, message)
        elif isinstance(message, Inputs):
            self._inputs(slot, message, now_s)
        elif isinstance(message, Bye):
            self._drop(slot, "quit", goodbye=True)

    def _malformed(self, slot: ClientSlot) -> None:
        slot.malformed += 1
        self.malformed += 1
        if slot.malformed > self.net.malformed_most:
            self._refuse(slot, "too many malformed messages", "malformed")

    def _refuse(self, slot: ClientSlot, reason: str, left_reason: str = "refused") -> None:
        self._send(slot, RELIABLE_CHANNEL, Refuse(reason).encode())
        self._drop(slot, left_reason, goodbye=True)

    def _send(self, slot: ClientSlot, channel: int, data: bytes) -> None:
        if slot.bytes_out is not None:
            slot.bytes_out.add(len(data))
        self.endpoint.send(slot.peer, channel, data)

    def _hello(self, slot: ClientSlot, hello: Hello) -> None:
        if slot.vehicle is not None:
            self._malformed(slot)  # a second hello
            return
        identity = self.identity
        if hello.protocol != PROTOCOL or hello.version != identity.version:
            self._refuse(slot, f"the server runs version {identity.version} (protocol "
                               f"{PROTOCOL}); this client is {hello.version} (protocol "
                               f"{hello.protocol})")
            return
        if hello.config_digest != identity.config_digest:
            self._refuse(slot, "the server's config files differ from this client's")
            return
        players = sum(1 for other in self.clients.values() if other.vehicle is not None)
        if players >= self.max_players:
            self._refuse(slot, f"the server is full ({self.max_players} players)")
            return
        if len(self.simulation.vehicles) >= _MAX_VEHICLES:
            self._refuse(slot, "the server holds no more vehicles")
            return
        if hello.tank and hello.tank not in self.simulation.specs.tanks:
            self._refuse(slot, f"no tank class {hello.tank!r} here (the server's: "
                               + ", ".join(self.simulation.specs.tanks) + ")")
            return
        self._join(slot, hello)

    def _join(self, slot: ClientSlot, hello: Hello) -> None:
        name = self._unique_name(hello.name.strip())
        x_m, y_m, heading_deg = (self.battle.join_place() if self.battle.opening is not None
                                 else join_spot(self.simulation, self.net.join_ring_m))
        slot.vehicle = self.simulation.spawn(hello.vehicle, name, x_m, y_m, heading_deg,
                                             tank_class=hello.tank or None)
        slot.name = name
        slot.vehicle_id = self._ids[name] = self._free_id()
        slot.bytes_in, slot.bytes_out = RateMeter(self.step_hz), RateMeter(self.step_hz)
        self.simulation.add_driver(name, self._driver(slot))
        self.battle.add_player(name, (x_m, y_m, heading_deg))
        self._send(slot, RELIABLE_CHANNEL,
                   Welcome(slot.vehicle_id, name, self.options.map.text, self.options.seed,
                           self.tick, self.step_hz).encode())
        self._pending_events.append(Joined(name))
        self._roster_changed = True

    def _driver(self, slot: ClientSlot):
        """The controls of a client's vehicle for the step about to be taken: what it sent
        for that step, or (lost, late) the last it sent."""
        def controls(_simulation) -> Controls:
            step = self.tick + 1
            slot.last_controls = slot.inputs.pop(step, slot.last_controls)
            for old in [tick for tick in slot.inputs if tick < step]:
                del slot.inputs[old]
            return slot.last_controls
        return controls

    def _unique_name(self, wanted: str) -> str:
        taken = {vehicle.name for vehicle in self.simulation.vehicles}
        if not wanted or wanted.startswith("bot-"):
            number = 1
            while f"player-{number}" in taken:
                number += 1
            return f"player-{number}"
        name, suffix = wanted, 2
        while name in taken:
            name, suffix = f"{wanted}-{suffix}", suffix + 1
        return name

    def _free_id(self) -> int:
        used = set(self._ids.values())
        return next(number for number in range(_MAX_VEHICLES) if number not in used)

    def _inputs(self, slot: ClientSlot, inputs: Inputs, now_s: float) -> None:
        if slot.vehicle is None:
            self._malformed(slot)  # inputs before joining
            return
        if inputs.ack_tick <= self.tick and (slot.ack_tick == NO_TICK
                                              or inputs.ack_tick > slot.ack_tick):
            slot.ack_tick = inputs.ack_tick  # (NO_TICK is above every tick: never taken)
        margin = inputs.newest_tick - (self.tick + 1)
        slot.margin = margin if slot.margin is None else min(slot.margin, margin)
        slot.echo = (inputs.sent_ms, now_s)
        slot.ping_ms = inputs.ping_ms
        lead_most = round(self.net.input_lead_most_s * self.step_hz)
        if inputs.newest_tick > self.tick + lead_most:
            # Too far ahead to keep. Not held against the client: after this server stood
            # still (load, a pause) an honest client's clock has run on, and the margin it
            # is sent tells it to fall back into step.
            return
        count = len(inputs.controls)
        for offset, controls in enumerate(inputs.controls):
            step = inputs.newest_tick - (count - 1 - offset)
            if step > self.tick:
                slot.inputs[step] = controls

    def _drop(self, slot: ClientSlot, reason: str, goodbye: bool) -> None:
        """A client is gone (or put out): its vehicle, id and inputs go with it."""
        self.clients.pop(slot.peer, None)
        if goodbye:
            self.endpoint.disconnect(slot.peer)
        if slot.vehicle is None or slot.name is None:
            return
        self.simulation.remove(slot.vehicle)
        self.battle.remove_player(slot.name)
        self._ids.pop(slot.name, None)
        self.kills.pop(slot.name, None)
        self.deaths.pop(slot.name, None)
        slot.inputs.clear()
        slot.vehicle = None
        self._pending_events.append(Left(slot.name, reason))
        self._roster_changed = True

    # ----- the step ---------------------------------------------------------------------

    def step(self) -> list[Event]:
        """One fixed step of the game, then what goes out to the clients."""
        started_s = time.thread_time()
        self._time_out()
        events = self._pending_events + self.simulation.step()
        self._pending_events = []
        self.tick += 1
        playing = [slot for slot in self.clients.values() if slot.vehicle is not None]
        if self._roster_changed:
            roster = self._roster().encode()
            for slot in playing:
                self._send(slot, RELIABLE_CHANNEL, roster)
            self._roster_changed = False
        for event in events:  # (a shell may land after its shooter left: not counted)
            if isinstance(event, Destroyed):
                if event.by in self._ids:
                    self.kills[event.by] = self.kills.get(event.by, 0) + 1
                if event.vehicle in self._ids:
                    self.deaths[event.vehicle] = self.deaths.get(event.vehicle, 0) + 1
        if self.tick % self.step_hz == 0:
            scores = self._scoreboard().encode()
            for slot in playing:
                self._send(slot, RELIABLE_CHANNEL, scores)
        shared = [event for event in events if not isinstance(event, _LOCAL_EVENTS)]
        if shared:
            message = Events(self.tick, tuple(shared)).encode()
            for slot in playing:
                self._send(slot, RELIABLE_CHANNEL, message)
        if self.tick % self.snapshot_every == 0:
            self._send_snapshots(playing)
        self.endpoint.flush()
        self.step_ms = (time.thread_time() - started_s) * 1000.0
        if self.telemetry is not None:
            self.telemetry.write(self.telemetry_record(events))
        for slot in self.clients.values():
            for meter in (slot.bytes_in, slot.bytes_out):
                if meter is not None:
                    meter.next_step()
            slot.messages = max(0.0, slot.messages - self.net.messages_per_step_most)
        return events

    def _time_out(self) -> None:
        now_s = self.now_s()
        for slot in list(self.clients.values()):
            if now_s - slot.heard_s > self.net.timeout_s:
                self._drop(slot, "timeout", goodbye=True)

    def _roster(self) -> Roster:
        humans = {slot.name for slot in self.clients.values() if slot.vehicle is not None}
        return Roster(tuple(RosterEntry(self._ids[vehicle.name], vehicle.kind, vehicle.name,
                                        vehicle.name in humans, vehicle.tank_class or "")
                            for vehicle in self.simulation.vehicles))

    def _scoreboard(self) -> Scoreboard:
        pings = {slot.name: slot.ping_ms for slot in self.clients.values()
                 if slot.vehicle is not None}
        return Scoreboard(tuple(
            ScoreLine(self._ids[vehicle.name], self.kills.get(vehicle.name, 0),
                      self.deaths.get(vehicle.name, 0), pings.get(vehicle.name, 0))
            for vehicle in self.simulation.vehicles))

    def _send_snapshots(self, playing: list[ClientSlot]) -> None:
        wires = {self._ids[vehicle.name]: wire_vehicle(vehicle)
                 for vehicle in self.simulation.vehicles}
        self._history[self.tick] = wires
        keep = round(self.net.history_s * self.step_hz)
        while next(iter(self._history)) < self.tick - keep:
            self._history.popitem(last=False)
        now_s = self.now_s()
        for slot in playing:
            baseline = self._history.get(slot.ack_tick)
            echo_ms, held_ms = 0, 0
            if slot.echo is not None:
                echo_ms, held_ms = slot.echo[0], round((now_s - slot.echo[1]) * 1000.0)
            snapshot = Snapshot(self.tick, slot.ack_tick if baseline is not None else NO_TICK,
                                echo_ms, held_ms, slot.margin if slot.margin is not None else 0,
                                wires, own_state(slot.vehicle))
            slot.margin = None
            self._send(slot, STATE_CHANNEL, encode_snapshot(snapshot, baseline))

    def telemetry_record(self, events: list[Event]) -> dict:
        """The server's row for the step just taken."""
        vehicles = []
        for vehicle in self.simulation.vehicles:
            state = vehicle.current
            vehicles.append({
                "name": vehicle.name,
                "pos": rounded(state.position_ws), "vel": rounded(state.velocity_ws),
                "heading_deg": round(state.heading_pitch_roll_deg()[0], DECIMALS),
                "health": None if vehicle.health is None else round(vehicle.health, DECIMALS),
                **(vehicle.parts.record() if vehicle.parts is not None else {})})
        net = [{"name": slot.name, "out_Bps": slot.bytes_out.per_second,
                "in_Bps": slot.bytes_in.per_second, "ping_ms": slot.ping_ms}
               for slot in self.clients.values()
               if slot.vehicle is not None
               and slot.bytes_out is not None and slot.bytes_in is not None]
        return {"t": round(self.tick / self.step_hz, DECIMALS), "tick": self.tick,
                "vehicles": vehicles, "events": [event.to_json() for event in events],
                "net": net, "step_ms": round(self.step_ms, 3)}

    def destroy(self) -> None:
        self.endpoint.close()
        self.session.destroy()

