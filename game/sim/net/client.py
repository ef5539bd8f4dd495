"""A network client: joins a server, predicts its own vehicle, draws the others.

:func:`~game.sim.net.joining.join` connects and says hello; the server answers with a
welcome (the map, the seed, the vehicle it gave us) or a one-line refusal. A
:class:`NetClient` then builds the same world locally (a :class:`~game.sim.session.GameSession` with our vehicle as its
player) and takes a step every 1/60 s:

1. what arrived: snapshots (our vehicle reconciled, :mod:`game.sim.net.prediction`; the
   others' kept for interpolation, :mod:`game.sim.net.remote`), events, the roster;
2. our controls for the step, quantised as the server will read them, kept and sent with
   the last few before them (a lost packet costs nothing);
3. our vehicle predicted one step (no shell is fired here: shots come from the server);
4. every other vehicle posed at the render tick.

Our tick runs ahead of the server's by about the round trip, so our controls for a step
reach the server just before it takes that step. Each snapshot says how early they came;
outside ``input_margin_steps`` the client takes an extra step or skips one.
"""

from __future__ import annotations

import logging
import math
from dataclasses import replace
from typing import Callable

from game.sim.controls import Controls
from game.sim.events import CraterDug, Destroyed, Event, RoundStart
from game.sim.net.joining import WAIT_S, Joined
from game.sim.net.keep_alive import KeepAlive
from game.sim.net.link import Arrival, Endpoint
from game.sim.net.prediction import OwnPrediction
from game.sim.net.protocol import (MAX_INPUTS_PER_PACKET, NO_TICK, RELIABLE_CHANNEL, SNAPSHOT,
                                   STATE_CHANNEL, Bye, End, Events, Inputs, ProtocolError, Refuse,
                                   Roster, Scoreboard, decode_server, quantised)
from game.sim.net.remote import RemoteVehicle
from game.sim.net.snapshots import (OwnState, Snapshot, decode_snapshot, snapshot_baseline_tick,
                                   vehicle_pose)
from game.sim.net.spec import NetSpec
from game.sim.part_damage import AMMO_RACK_CAUSE, tank_parts
from game.sim.session import GameOptions, GameSession, SessionSpecs
from game.sim.telemetry import DECIMALS, rounded, telemetry_record
from physics.model.terrain import MapChoice

_log = logging.getLogger(__name__)


RENDER_LAG_FOLLOW = 0.02
"""The others' drawn lag behind our tick moves this share of the way to what the clocks
say, each step: a late burst of our steps barely moves it."""
PING_FOLLOW = 0.1
"""The shown ping moves this share of the way to each new round trip."""
PING_MOST_MS = 10_000.0
"""A round trip longer than this is a clock that wrapped, not a ping."""
GOODBYE_S = 0.2
"""Leaving, the client keeps its link serviced this long so the goodbye goes out."""
CATCH_UP_STEPS = 8
"""Extra steps taken at once to get further ahead: what the vehicle can move in one
frame without looking like a jump."""


OFFSET_RESET_STEPS = 10
"""A snapshot this many steps off our estimate of the server's clock resets it."""
OFFSET_FOLLOW_EARLY = 0.3
OFFSET_FOLLOW_LATE = 0.02
"""How far the estimate moves toward a snapshot that came earlier, or later, than it
expected: a late one was held up on its way (jitter, a busy frame) and says little; the
others' vehicles are drawn by this clock, so it must not shake."""


class ServerGone(Exception):
    """The game ended: ``normal`` when the server said so, else the link was lost."""

    def __init__(self, reason: str, normal: bool):
        super().__init__(reason)
        self.normal = normal


class NetClient:
    """A joined game: our predicted vehicle and everyone else's as drawn."""

    def __init__(self, specs: SessionSpecs, net: NetSpec, endpoint: Endpoint, joined: Joined,
                 vehicle: str, tank: str | None = None):
        self.net = net
        self.endpoint = endpoint
        self.peer = joined.peer
        self._keep_alive: KeepAlive | None = KeepAlive(endpoint, joined.peer,
                                                       net.timeout_s).start()
        """Services the link while the game is built, until the first :meth:`receive`."""
        self.welcome = welcome = joined.welcome
        self.name = welcome.name
        self.step_hz = welcome.step_hz
        self.step_s = 1.0 / self.step_hz
        try:
            self.session = GameSession(specs, GameOptions(MapChoice.parse(welcome.map),
                                                          welcome.seed, vehicle,
                                                          player_name=welcome.name,
                                                          tank=tank))
        except BaseException:
            self._keep_alive.stop()  # the link is the caller's again, to close
            raise
        self.simulation = self.session.simulation
        player = self.simulation.player
        if player is None:
            raise RuntimeError("a client's game holds no vehicle of its own")
        self.player = player
        self.prediction = OwnPrediction(self.simulation, net, self.step_hz)
        self.tick: int | None = None
        """Our step count (in the server's numbering); None until the first snapshot."""
        self.steps_taken = 0
        self.remotes: dict[int, RemoteVehicle] = {}
        self._snapshots: dict[int, Snapshot] = {}
        self._newest_snapshot = NO_TICK
        self._server_offset_ticks: float | None = None
        """The server's tick (as it reaches us) less our clock in ticks."""
        self._render_lag: float | None = None
        """How many steps behind ours the others are drawn (follows the clocks slowly)."""
        self._events: list[Event] = []
        self._sent: list[Controls] = []
        self._lead_adjust = 0
        self._adjust_after_s = 0.0
        self.ping_ms = 0.0
        self.last_controls = Controls()
        self.join_round_trip_s = joined.round_trip_s
        self.gone: ServerGone | None = None
        self.on_scoreboard: Callable[[Scoreboard], None] | None = None
        for arrival in joined.after:
            self._take(arrival)
        self._stale_snapshot = self._newest_snapshot
        """The newest snapshot that came while the world was being built: too old to set
        our clock by."""
        self._heard_s = endpoint.clock()
        """When something last came from the server: silent for ``server_timeout_s``, it is
        lost (what came while this process was busy is read first, so our own stall does
        not count)."""

    def _built(self) -> None:
        """The game is built (and drawn, with a window): what came while it was, read as
        what came while joining is (too old to set our clock by), and the link ours."""
        if self._keep_alive is None:
            return
        keep_alive, self._keep_alive = self._keep_alive, None
        for arrival in keep_alive.stop():
            self._take(arrival)
        self._stale_snapshot = self._newest_snapshot
        if keep_alive.heard_s is not None:
            self._heard_s = max(self._heard_s, keep_alive.heard_s)

    # ----- what arrives -------------------------------------------------------------------

    def receive(self, wait_s: float = 0.0) -> None:
        self._built()
        arrivals = self.endpoint.receive(wait_s)
        for arrival in arrivals:
            self._take(arrival)
        now_s = self.endpoint.clock()
        if arrivals:
            self._heard_s = now_s
        elif self.gone is None and now_s - self._heard_s > self.net.server_timeout_s:
            self.gone = ServerGone(f"the server stopped answering (nothing from it for "
                                   f"{self.net.server_timeout_s:g} s)", False)
        if self.tick is None and self._newest_snapshot not in (NO_TICK, self._stale_snapshot):
            self._begin(self._snapshots[self._newest_snapshot])

    def _take(self, arrival: Arrival) -> None:
        try:
            self._arrival(arrival)
        except ProtocolError:
            pass  # a damaged or foreign message: dropped

    def _arrival(self, arrival: Arrival) -> None:
        if arrival.kind == "disconnect":
            said = ("the server stopped answering" if arrival.lost
                    else "the server closed the connection")
            self.gone = self.gone or ServerGone(said, False)
            return
        if arrival.kind != "message":
            return
        if arrival.channel == STATE_CHANNEL and arrival.data[:1] == bytes([SNAPSHOT]):
            self._snapshot(arrival.data)
            return
        message = decode_server(arrival.data)
        if isinstance(message, Events):
            self._events.extend(message.events)
            self._dig(message.events)
            self._thrown(message.events)
        elif isinstance(message, Roster):
            self._roster(message)
        elif isinstance(message, Scoreboard):
            if self.on_scoreboard is not None:
                self.on_scoreboard(message)
        elif isinstance(message, End):
            self.gone = ServerGone(message.reason, True)
        elif isinstance(message, Refuse):
            self.gone = ServerGone(f"put out by the server: {message.reason}", False)

    def _roster(self, roster: Roster) -> None:
        keep = self.net.history_s * self.step_hz
        present = set()
        for entry in roster.entries:
            if entry.vehicle_id == self.welcome.vehicle_id:
                continue
            present.add(entry.vehicle_id)
            known = self.remotes.get(entry.vehicle_id)
            if known is not None and known.name == entry.name:
                continue
            try:
                fleet, fleet_kind = self.simulation.arena.fleet_for(entry.kind,
                                                                    entry.tank_class or None)
            except KeyError:  # a class this config lacks (a server on other files is
                continue      # refused at the hello): left undrawn, never a crash
            self.remotes[entry.vehicle_id] = RemoteVehicle(
                entry.vehicle_id, entry.name, entry.kind, entry.human, fleet,
                self.simulation.terrain, self.step_s,
                max(4, round(keep / max(1, self.step_hz // self.net.snapshot_hz))),
                self.net.jump_mps, entry.tank_class or None,
                tank_parts(fleet.kinds[fleet_kind].spec, self.simulation.specs.damage),
                fleet_kind)
        for vehicle_id in [key for key in self.remotes if key not in present]:
            del self.remotes[vehicle_id]

    def _snapshot(self, data: bytes) -> None:
        base_tick = snapshot_baseline_tick(data)
        baseline = None
        if base_tick != NO_TICK:
            base = self._snapshots.get(base_tick)
            if base is None:
                raise ProtocolError(f"a snapshot against {base_tick}, which we do not have")
            baseline = base.vehicles
        snapshot = decode_snapshot(data, baseline)
        if self._newest_snapshot != NO_TICK and snapshot.tick <= self._newest_snapshot:
            return  # late: a newer one is in
        if snapshot.own is None or not 0 <= snapshot.own.gear_index < len(
                self.player.fleet.gearbox.kind_of(self.player.index).names):
            raise ProtocolError("a snapshot without our vehicle")
        self._snapshots[snapshot.tick] = snapshot
        self._newest_snapshot = snapshot.tick
        oldest = snapshot.tick - self.net.history_s * self.step_hz
        for old in [tick for tick in self._snapshots if tick < oldest]:
            del self._snapshots[old]
        self._time(snapshot)
        for vehicle_id, wire in snapshot.vehicles.items():
            remote = self.remotes.get(vehicle_id)
            if remote is not None:
                remote.add(snapshot.tick, vehicle_pose(wire))
        self._own(snapshot)

    def _time(self, snapshot: Snapshot) -> None:
        """What a snapshot says of the clocks: the round trip, the server's tick, how early
        our inputs come."""
        now_s = self.endpoint.clock()
        if snapshot.echo_ms:
            round_trip_ms = (now_s * 1000.0 - snapshot.echo_ms) % 2 ** 32 - snapshot.held_ms
            if 0.0 <= round_trip_ms < PING_MOST_MS:
                self.ping_ms = (round_trip_ms if self.ping_ms == 0.0
                                else self.ping_ms + (round_trip_ms - self.ping_ms) * PING_FOLLOW)
        offset = snapshot.tick - now_s * self.step_hz
        known = self._server_offset_ticks
        if known is None or abs(offset - known) > OFFSET_RESET_STEPS:
            self._server_offset_ticks = offset
        else:  # a snapshot that came quicker says more of the server's clock than a late one
            follow = OFFSET_FOLLOW_EARLY if offset > known else OFFSET_FOLLOW_LATE
            self._server_offset_ticks = known + (offset - known) * follow
        if self.tick is not None and snapshot.echo_ms and now_s >= self._adjust_after_s:
            low, high = self.net.input_margin_steps
            if not low <= snapshot.margin <= high:
                self._lead_adjust = round(self._middle_margin - snapshot.margin)
                # the next snapshots were sent before the change could show
                self._adjust_after_s = now_s + self.ping_ms / 1000.0 + 2.0 / self.net.snapshot_hz

    def _begin(self, snapshot: Snapshot) -> None:
        """The first snapshot (the newest of the first batch): our vehicle where the server
        has it, our tick a round trip and a margin ahead of the server's."""
        round_trip_s = self.ping_ms / 1000.0 or self.join_round_trip_s
        self.prediction.place(_own_state(snapshot))
        self._start(snapshot.tick + math.ceil(round_trip_s * self.step_hz + self._middle_margin))

    @property
    def _middle_margin(self) -> float:
        """How many steps early our inputs should reach the server: the middle of the
        margin allowed."""
        low, high = self.net.input_margin_steps
        return (low + high) / 2.0

    def _start(self, tick: int) -> None:
        self.tick = tick
        self.prediction.start(tick)

    def _own(self, snapshot: Snapshot) -> None:
        own, player = _own_state(snapshot), self.player
        wire = snapshot.vehicles.get(self.welcome.vehicle_id)
        if wire is not None:
            pose = vehicle_pose(wire)
            player.health, player.destroyed = pose.health, pose.destroyed
            if player.parts is not None and pose.parts:
                self.simulation.combat.parts.show(player, pose.parts, own.repairs_s,
                                                  pose.on_fire)
        if player.aim is not None and len(own.rounds) == len(player.spec.gun.ammunition):
            ammunition = player.aim.ammunition
            ammunition.rounds = list(own.rounds)
            ammunition.loaded, ammunition.selected = own.loaded, own.selected
        if self.tick is None:
            return
        if snapshot.tick > self.tick:  # far behind (a stall): catch up
            self._lead_adjust = snapshot.tick - self.tick + round(self._middle_margin)
        self.prediction.reconcile(snapshot.tick, own)
        if player.aim is not None:
            ahead_s = (self.tick - snapshot.tick) * self.step_s
            player.aim.reload_left_s = max(0.0, own.reload_left_s - ahead_s)

    # ----- the step ---------------------------------------------------------------------

    def server_tick(self) -> float | None:
        """The server's tick as it reaches us now (fractional), or None before the first."""
        if self._server_offset_ticks is None:
            return None
        return self.endpoint.clock() * self.step_hz + self._server_offset_ticks

    def steps_due(self) -> int:
        """How many steps to take now, one a step's time: more while we must get further
        ahead of the server (at most ``CATCH_UP_STEPS`` extra at once), none while we
        must fall back (one step's pause at a time)."""
        if self._lead_adjust > 0:
            extra = min(self._lead_adjust, CATCH_UP_STEPS)
            self._lead_adjust -= extra
            return 1 + extra
        if self._lead_adjust < 0:
            self._lead_adjust += 1
            return 0
        return 1

    def _dig(self, events) -> None:
        """The server's craters, dug into our ground too (one whose numbers are not a
        shell's is left out and logged: the game goes on)."""
        for event in events:
            if isinstance(event, CraterDug):
                try:
                    self.simulation.dig(event)
                except ValueError as error:
                    _log.warning("server sent a crater we left out: %s", error)

    def _thrown(self, events) -> None:
        """Turrets the server's ammo racks threw, thrown in our world too to be drawn
        falling; a new round puts ours back on and clears the others away."""
        parts = self.simulation.combat.parts
        for event in events:
            if isinstance(event, Destroyed) and event.cause == AMMO_RACK_CAUSE:
                player = self.simulation.player
                vehicle = (player if player is not None and player.name == event.vehicle
                           else next((remote for remote in self.remotes.values()
                                      if remote.name == event.vehicle and remote.posed), None))
                if vehicle is not None and vehicle.parts is not None:
                    parts.show_thrown(vehicle)
            elif isinstance(event, RoundStart) and parts.thrown:
                parts.clear()
                if self.simulation.player is not None:
                    parts.reset(self.simulation.player)

    def step(self, controls: Controls) -> list[Event]:
        """One client step with the player's controls; what happened (the server's events
        and our own vehicle's)."""
        if self.tick is None:
            return []
        self.tick = tick = self.tick + 1
        wire = quantised(controls)
        self.last_controls = wire
        self.steps_taken += 1
        # The shell chosen is the server's to keep: the client shows the server's choice.
        events = self._events + self.prediction.step(tick, replace(
            wire, fire=False, swap_vehicle=False, shell=None, next_shell=False))
        self._events = []
        self._send_inputs(tick, wire)
        self._show_remotes()
        return events

    def _send_inputs(self, tick: int, wire: Controls) -> None:
        self._sent = (self._sent + [wire])[-MAX_INPUTS_PER_PACKET:]
        if tick % max(1, self.step_hz // self.net.input_hz):
            return
        sent_ms = int(self.endpoint.clock() * 1000.0) & 0xFFFFFFFF
        self.endpoint.send(self.peer, STATE_CHANNEL,
                           Inputs(self._newest_snapshot, tick, sent_ms, round(self.ping_ms),
                                  tuple(self._sent)).encode())
        self.endpoint.flush()

    def render_tick(self) -> float | None:
        """The server tick the others are drawn at this step: ours less a lag that follows
        the server's clock slowly. Counted from our own steps, not the wall clock, so the
        others keep step with our vehicle when this process is late and takes its steps
        in a burst."""
        server_tick = self.server_tick()
        if server_tick is None or self.tick is None:
            return None
        delay = self.net.interpolation_delay_snapshots * self.step_hz / self.net.snapshot_hz
        lag = self.tick - (server_tick - delay)
        if self._render_lag is None or abs(lag - self._render_lag) > OFFSET_RESET_STEPS:
            self._render_lag = lag
        else:
            self._render_lag += (lag - self._render_lag) * RENDER_LAG_FOLLOW
        return self.tick - self._render_lag

    def _show_remotes(self) -> None:
        render_tick = self.render_tick()
        if render_tick is None:
            return
        for remote in self.remotes.values():
            remote.show(render_tick, self.step_s, self.net.extrapolation_most_s)

    # ----- what it reports ----------------------------------------------------------------

    def telemetry_record(self, events: list[Event]) -> dict:
        """The player's row: the predicted vehicle, where it is drawn, the ping, the others."""
        record = telemetry_record(self.simulation, events)
        record["t"] = round(self.steps_taken * self.step_s, DECIMALS)
        record["tick"] = self.tick
        record["drawn_pos"] = rounded(self.prediction.drawn_position_ws)
        record["ping_ms"] = round(self.ping_ms, 1)
        record["remote"] = [{"name": remote.name, "tick": round(remote.shown_tick, 3),
                             "pos": rounded(remote.current.position_ws)}
                            for remote in self.remotes.values() if remote.posed]
        return record

    def close(self) -> None:
        """Leave (unless the server ended the game or was lost) and let the world go."""
        self._built()
        if self.gone is None:
            self.leave()
        self.destroy()

    def leave(self) -> None:
        """Say goodbye (the server drops our vehicle at once) and close."""
        self.endpoint.send(self.peer, RELIABLE_CHANNEL, Bye().encode())
        self.endpoint.flush()
        deadline = self.endpoint.clock() + GOODBYE_S
        while self.endpoint.clock() < deadline:  # let the simulated link deliver it
            self.endpoint.receive(WAIT_S)
        self.endpoint.close()

    def destroy(self) -> None:
        self.remotes.clear()
        self.session.destroy()


def _own_state(snapshot: Snapshot) -> OwnState:
    """The receiver's own state in a snapshot (one without it is refused on arrival)."""
    if snapshot.own is None:
        raise ProtocolError("a snapshot without our vehicle")
    return snapshot.own
