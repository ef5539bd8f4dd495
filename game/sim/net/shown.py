"""A network game as the window draws it: the client's world with everyone in it.

The views read a session's ``simulation`` (vehicles, player, terrain, shells ...) and ``battle``
(round, score, who the bots are). For a client those are:

- :class:`ShownWorld`: the client's own simulation, but whose ``vehicles`` are our vehicle as
  drawn (:class:`ShownOwn`: the prediction with the correction still being smoothed away)
  and every other vehicle as interpolated (:mod:`game.sim.net.remote`);
- its ``shells``: each shot the server tells of, flown from the firing vehicle's drawn muzzle
  until it reaches the point its hit names (:class:`ShellTraces`);
- :class:`OnlineBattle`: the round and score from the server's events, the scoreboard from
  its messages.

:class:`ClientLoop` takes a step loop's place: each rendered frame it reads the network and
takes the steps the client's clock asks for, handing their events to the listeners."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any, Callable

import numpy as np
from panda3d.bullet import BulletRigidBodyNode

from game.sim.armour_hits import plates_on_path
from game.sim.arena import WorldSpecs
from game.sim.combat import Plate
from game.sim.controls import Controls
from game.sim.events import Event, RoundEnd, RoundStart
from game.sim.net.client import NetClient, ServerGone
from game.sim.net.protocol import Scoreboard
from game.sim.net.traces import ShellTrace, ShellTraces
from game.sim.part_damage import TankParts, ThrownTurret
from game.sim.replay import ReplayRecorder
from game.sim.simulation import Simulation, crosshair_verdict
from game.sim.spotting import SightScreens
from game.sim.telemetry import TelemetryWriter
from game.sim.vehicles import AnchorView, DrawnVehicle, PlayerVehicle, Vehicle
from game.sim.zone import CaptureZone
from physics.bullet.fleet import VehicleFleet
from physics.model.anchors import AnchorConstants
from physics.bullet.world import PhysicsWorld
from physics.model.ballistics import GunState
from physics.model.broadphase import along_path_m
from physics.model.pose import BodyState
from physics.model.rocks import Rock
from physics.model.terrain import TerrainBase


class ShownOwn:
    """Our vehicle where it is drawn: the predicted one, shifted by the correction that is
    fading out. Everything else it says is the predicted vehicle's own."""

    def __init__(self, client: NetClient):
        self._client = client
        self.current: BodyState = self._shifted(self._vehicle.current)
        self.previous: BodyState = self.current

    @property
    def _vehicle(self) -> Vehicle:
        """The predicted vehicle (the client's simulation's player)."""
        vehicle = self._client.simulation.player
        if vehicle is None:  # the client's session is built with our vehicle as its player
            raise RuntimeError("a network client's simulation without our vehicle")
        return vehicle

    def _shifted(self, state: BodyState) -> BodyState:
        return replace(state, position_ws=state.position_ws + self._client.prediction.offset_ws)

    def update(self) -> None:
        """After a step: the drawn pose moves on."""
        self.previous = self.current
        self.current = self._shifted(self._vehicle.current)

    # ----- the predicted vehicle's own (what a window reads of a player's vehicle) ----------

    @property
    def name(self) -> str:
        return self._vehicle.name

    @property
    def kind(self) -> str:
        return self._vehicle.kind

    @property
    def tank_class(self) -> str | None:
        return self._vehicle.tank_class

    @property
    def spec(self) -> Any:
        return self._vehicle.spec

    @property
    def fleet(self) -> VehicleFleet:
        return self._vehicle.fleet

    @property
    def constants(self) -> AnchorConstants:
        return self._vehicle.constants

    @property
    def collider_reach_m(self) -> float:
        return self._vehicle.collider_reach_m

    @property
    def index(self) -> int:
        return self._vehicle.index

    @property
    def body(self) -> BulletRigidBodyNode:
        return self._vehicle.body

    @property
    def aim(self) -> GunState | None:
        return self._vehicle.aim

    @property
    def health(self) -> float | None:
        return self._vehicle.health

    @property
    def destroyed(self) -> bool:
        return self._vehicle.destroyed

    @property
    def parts(self) -> TankParts | None:
        return self._vehicle.parts

    @property
    def gear(self) -> str:
        return self._vehicle.gear

    @property
    def rpm(self) -> float:
        return self._vehicle.rpm

    @property
    def turret_heading_rad(self) -> float:
        return self._vehicle.turret_heading_rad

    @property
    def gun_elevation_rad(self) -> float:
        return self._vehicle.gun_elevation_rad

    def anchors(self) -> AnchorView | None:
        return self._vehicle.anchors()

    def wheel_state(self) -> np.ndarray | None:
        return self._vehicle.wheel_state()

    def track_speeds_mps(self) -> tuple[float, float]:
        return self._vehicle.track_speeds_mps()


class ShownWorld:
    """The client's simulation with everyone it draws in ``vehicles``: what a window reads of
    a network game (:class:`~game.sim.interfaces.DrawnSimulation`); the rest is its own."""

    def __init__(self, client: NetClient):
        self._client = client
        self.player = ShownOwn(client)
        self.traces = ShellTraces(self, client.simulation.combat)
        self._roster: tuple[DrawnVehicle, ...] = ()
        self._roster_revision = 0

    @property
    def _simulation(self) -> Simulation:
        return self._client.simulation

    @property
    def shells(self) -> list[ShellTrace]:
        return self.traces.shells

    @property
    def vehicles(self) -> list[DrawnVehicle]:
        """Our vehicle as drawn, then every other one the server has shown us."""
        shown: list[DrawnVehicle] = [self.player]
        shown += [remote for remote in self._client.remotes.values() if remote.posed]
        return shown

    @property
    def roster_revision(self) -> int:
        """Counts the changes to who is drawn (another joined or left, or was shown for the
        first time): a list of vehicles kept from before is still whole while it is
        unchanged."""
        roster = tuple(self.vehicles)
        if roster != self._roster:  # the same vehicles, by identity, in the same order
            self._roster = roster
            self._roster_revision += 1
        return self._roster_revision

    def vehicle_named(self, name: str) -> DrawnVehicle | None:
        return next((vehicle for vehicle in self.vehicles if vehicle.name == name), None)

    def predicted_impact(self, vehicle: PlayerVehicle, max_time_s: float | None = None,
                         make_tiles: bool = True) -> np.ndarray | None:
        """Where a shell ``vehicle`` fired now would land, in the client's world (see
        :meth:`Simulation.predicted_impact`), or sooner on the plates of another tank as
        it is drawn (the others have no bodies here: the arc's chords are cast against
        their plates)."""
        chords: list[np.ndarray] = []
        landed = self._simulation.combat.predicted_impact(vehicle, max_time_s, make_tiles,
                                                          chords.append)
        others = [other for other in self.vehicles if other is not vehicle]
        met = plates_on_path(chords[0], others) if chords else None
        if met is None or (landed is not None and along_path_m(chords[0], landed) < met[0]):
            return landed
        return met[1]

    def aim_verdict(self, vehicle: PlayerVehicle, impact_ws: np.ndarray) -> str | None:
        """The crosshair's verdict on the others' tanks as they are drawn (their plates
        where the snapshots put them, each turret at its heading), as offline
        (:func:`~game.sim.simulation.crosshair_verdict`); the server still decides every
        hit."""
        return crosshair_verdict(self._simulation.combat, self.vehicles, vehicle, impact_ws)

    @property
    def plates(self) -> list[Plate]:
        return self._simulation.plates

    @property
    def thrown_turrets(self) -> list[ThrownTurret]:
        return self._simulation.thrown_turrets

    @property
    def specs(self) -> WorldSpecs:
        return self._simulation.specs

    @property
    def rocks(self) -> list[Rock]:
        return self._simulation.rocks

    @property
    def terrain(self) -> TerrainBase:
        return self._simulation.terrain

    @property
    def time_s(self) -> float:
        return self._simulation.time_s

    @property
    def step_s(self) -> float:
        return self._simulation.step_s

    @property
    def seed(self) -> int:
        return self._simulation.seed

    @property
    def world(self) -> PhysicsWorld:
        return self._simulation.world

    @property
    def sight_screens(self) -> SightScreens:
        return self._simulation.sight_screens


@dataclass
class ScoreRow:
    name: str
    kills: int
    deaths: int
    ping_ms: int | None
    """None for a bot."""


class OnlineBattle:
    """Round and score as the server tells them; who is a bot; the scoreboard: what a window
    reads of a network game's battle (:class:`~game.sim.interfaces.DrawnBattle`)."""

    online = True
    zone: CaptureZone | None = None
    """The server keeps any capture zone: a client draws none."""

    def __init__(self, client: NetClient):
        self._client = client
        self.round = 1
        self.score: dict[str, int] = {}
        self.board: list[ScoreRow] = []

    @property
    def bots(self) -> dict[str, None]:
        """Whom we fight (the minimap's enemies): the bots when there are any (every
        player is on one side against them), else everyone else (free for all)."""
        others = list(self._client.remotes.values())
        bots = [remote for remote in others if not remote.human]
        return {remote.name: None for remote in (bots or others)}

    @property
    def free_for_all(self) -> bool:
        """No bots among the others: every player for themselves (the score is by name)."""
        return all(remote.human for remote in self._client.remotes.values())

    @property
    def ping_ms(self) -> float:
        return self._client.ping_ms

    def on_events(self, events: list[Event]) -> None:
        for event in events:
            if isinstance(event, (RoundStart, RoundEnd)):
                self.round, self.score = event.round, dict(event.score)

    def on_scoreboard(self, board: Scoreboard) -> None:
        names = {remote.vehicle_id: (remote.name, remote.human)
                 for remote in self._client.remotes.values()}
        names[self._client.welcome.vehicle_id] = (self._client.name, True)
        self.board = sorted((ScoreRow(names[line.vehicle_id][0], line.kills, line.deaths,
                                      line.ping_ms if names[line.vehicle_id][1] else None)
                             for line in board.lines if line.vehicle_id in names),
                            key=lambda row: (-row.kills, row.deaths, row.name))


class ClientSession:
    """What the window draws of a network game, in a game session's shape
    (:class:`~game.sim.interfaces.DrawnSession`)."""

    def __init__(self, client: NetClient):
        self.client = client
        self.simulation = ShownWorld(client)
        self.battle = OnlineBattle(client)
        self.specs = client.session.specs
        self.options = client.session.options
        self.recorder: ReplayRecorder | None = None
        """Online play is not recorded: a replay is a local game's."""
        client.on_scoreboard = self.battle.on_scoreboard

    def player_brain(self) -> None:
        """Online a person drives: no bot brain drives a window's vehicle."""
        return None

    def restarted(self, recorder: ReplayRecorder | None = None) -> None:
        """None: the server runs the rounds and matches, a window cannot start one afresh."""
        return None

    def destroy(self) -> None:
        self.client.close()


class ClientLoop:
    """Steps a network client in real time from the window's frames, as :class:`StepLoop`
    steps a local game (:class:`~game.sim.interfaces.FrameLoop`)."""

    def __init__(self, session: ClientSession, player: Callable[[ShownWorld], Controls],
                 telemetry: TelemetryWriter | None = None,
                 clock: Callable[[], float] = time.monotonic):
        self.session = session
        self.client = session.client
        self._player = player
        self.telemetry = telemetry
        self._listeners: list[Callable[[list[Event]], None]] = [session.battle.on_events]
        self._clock = clock
        self._next_step_s = clock()
        self.last_controls = Controls()
        self.alpha = 0.0

    @property
    def elapsed_s(self) -> float:
        """Time since we joined, in steps taken."""
        return self.client.steps_taken * self.client.step_s

    @property
    def gone(self) -> ServerGone | None:
        return self.client.gone

    def subscribe(self, listener: Callable[[list[Event]], None]) -> None:
        self._listeners.append(listener)

    def advance(self, frame_s: float) -> int:
        """Read the network; take the steps due by the clock (its own, not ``frame_s``:
        the server's steps go by in real time). Returns how many."""
        client = self.client
        client.receive()
        now_s = self._clock()
        steps = 0
        most = self.session.specs.world.simulation.max_steps_per_frame
        while now_s >= self._next_step_s and steps < most:
            self._next_step_s += client.step_s
            for _ in range(client.steps_due() if client.tick is not None else 1):
                self._step()
                steps += 1
        if now_s - self._next_step_s > client.step_s * most:
            self._next_step_s = now_s  # a long hitch: time slows rather than racing
        self.alpha = min(max(1.0 - (self._next_step_s - now_s) / client.step_s, 0.0), 1.0)
        return steps

    def _step(self) -> None:
        client = self.client
        controls = self._player(self.session.simulation)
        events = client.step(controls)
        if client.tick is None:
            return
        self.last_controls = client.last_controls
        world = self.session.simulation
        world.player.update()
        world.traces.on_events(events)
        world.traces.advance(client.step_s)
        if self.telemetry is not None:
            self.telemetry.write(client.telemetry_record(events))
        for listener in self._listeners:
            listener(events)
