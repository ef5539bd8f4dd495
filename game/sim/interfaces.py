"""What the window reads of a game, local or online: the Protocols the app and the views
are written against.

A local game is a :class:`~game.sim.session.GameSession` stepped by a
:class:`~game.sim.step_loop.StepLoop`; a network game, as a window draws it, is a
:class:`~game.sim.net.shown.ClientSession` stepped by a
:class:`~game.sim.net.shown.ClientLoop`. The app and the views take either through these
Protocols, and read nothing else of them:

- :class:`DrawnSession`: the session the app runs (its simulation, battle, options, replay
  recorder; a restart; the player's bot brain);
- :class:`FrameLoop`: the loop that steps it from the window's frames;
- :class:`DrawnSimulation`: what is drawn (vehicles, shells, plates, ground, rocks, clock)
  and what the crosshair, the camera and the enemy markers ask of the world;
- :class:`DrawnBattle`: round, score, whom the player fights, the capture zone, and
  online the ping and the scoreboard;
- :class:`~game.sim.vehicles.DrawnVehicle` and :class:`~game.sim.vehicles.PlayerVehicle`
  (beside :class:`~game.sim.vehicles.Vehicle`): one vehicle as drawn, and the one a person
  at this window drives.

Every member is read-only here: what draws a game never writes it. The type check in the
test suite (``tests/test_types.py``) holds both implementations to these Protocols
(``tests/protocol_checks.py``): one that loses a member fails it.
"""

from __future__ import annotations

from typing import Mapping, Protocol, Sequence

import numpy as np

from game.sim.arena import WorldSpecs
from game.sim.combat import Plate
from game.sim.controls import Controls
from game.sim.net.client import ServerGone
from game.sim.net.shown import ScoreRow
from game.sim.part_damage import ThrownTurret
from game.sim.replay import ReplayRecorder
from game.sim.session import GameOptions
from game.sim.simulation import Driver
from game.sim.spotting import SightScreens
from game.sim.step_loop import Listener
from game.sim.vehicles import DrawnVehicle, PlayerVehicle
from game.sim.zone import CaptureZone
from physics.bullet.world import PhysicsWorld
from physics.model.rocks import Rock
from physics.model.terrain import TerrainBase

__all__ = ["DrawnBattle", "DrawnSession", "DrawnShell", "DrawnSimulation", "DrawnVehicle",
           "FrameLoop", "Listener", "PlayerVehicle"]


class DrawnShell(Protocol):
    """A shell in flight, as a tracer draws it."""

    @property
    def position_ws(self) -> np.ndarray: ...

    @property
    def velocity_ws(self) -> np.ndarray: ...

    @property
    def fired_at_s(self) -> float:
        """When it was fired (its tracer starts at the muzzle)."""


class DrawnSimulation(Protocol):
    """A game's world as the window reads it: a :class:`~game.sim.simulation.Simulation`,
    or a network client's :class:`~game.sim.net.shown.ShownWorld`."""

    @property
    def vehicles(self) -> Sequence[DrawnVehicle]:
        """Every vehicle drawn, in a steady order."""

    @property
    def roster_revision(self) -> int:
        """Changes whenever :attr:`vehicles` gains or loses one: a list of vehicles kept
        from before is still whole while it is unchanged."""

    @property
    def player(self) -> PlayerVehicle | None:
        """The vehicle player 1 drives (None: none, a dedicated server's)."""

    def vehicle_named(self, name: str) -> DrawnVehicle | None:
        """The vehicle called ``name`` (names are unique), or None."""

    @property
    def shells(self) -> Sequence[DrawnShell]:
        """Shells in flight."""

    @property
    def specs(self) -> WorldSpecs:
        """What the world was built from (the tank classes, the shells' own numbers)."""

    @property
    def plates(self) -> Sequence[Plate]:
        """The firing range's steel plates (none on another map)."""

    @property
    def thrown_turrets(self) -> Sequence[ThrownTurret]:
        """Turrets ammo racks threw off their hulls, loose bodies falling and lying (on a
        network client, those the server's events tell of, thrown in its own world)."""

    @property
    def rocks(self) -> Sequence[Rock]:
        """The rocks in the world (a big desert's: those near what moves)."""

    @property
    def terrain(self) -> TerrainBase: ...

    @property
    def time_s(self) -> float:
        """Simulated time since the game began."""

    @property
    def step_s(self) -> float:
        """A fixed step's length."""

    @property
    def seed(self) -> int:
        """The world's seed (effects seed their own streams from it)."""

    @property
    def world(self) -> PhysicsWorld:
        """The physics world, for the rays the window casts (the camera's, sight lines):
        read, never written."""

    @property
    def sight_screens(self) -> SightScreens:
        """What may hide one vehicle from another besides the ground, for sight lines."""

    def predicted_impact(self, vehicle: PlayerVehicle, max_time_s: float | None = None,
                         make_tiles: bool = True) -> np.ndarray | None:
        """Where a shell ``vehicle`` fired now would land (the crosshair), or None."""

    def aim_verdict(self, vehicle: PlayerVehicle, impact_ws: np.ndarray) -> str | None:
        """Whether the loaded shell would pierce the armour at the crosshair: "pierces",
        "may pierce", "will not pierce", or None (not on a tank's armour)."""


class DrawnBattle(Protocol):
    """A game's rules as the window reads them: a :class:`~game.sim.battle.Battle`, or a
    network client's :class:`~game.sim.net.shown.OnlineBattle`."""

    @property
    def round(self) -> int: ...

    @property
    def score(self) -> Mapping[str, int]:
        """Rounds won, by side ("player", "bots") or, free for all, by player."""

    @property
    def bots(self) -> Mapping[str, object]:
        """Keyed by the names of the vehicles the players fight."""

    @property
    def free_for_all(self) -> bool:
        """Every player for themselves (no bots): sides are players' names."""

    @property
    def zone(self) -> CaptureZone | None:
        """The capture zone (None: a game without one)."""

    @property
    def online(self) -> bool:
        """A network game (the server runs the rounds)."""

    @property
    def ping_ms(self) -> float | None:
        """Online: the round trip to the server (None: a local game)."""

    @property
    def board(self) -> Sequence[ScoreRow] | None:
        """Online: the server's scoreboard (None: a local game)."""


class DrawnSession(Protocol):
    """A game the app runs: a :class:`~game.sim.session.GameSession`, or a network
    client's :class:`~game.sim.net.shown.ClientSession`."""

    @property
    def simulation(self) -> DrawnSimulation: ...

    @property
    def battle(self) -> DrawnBattle: ...

    @property
    def options(self) -> GameOptions:
        """What the game was started with (online: the server's map and seed)."""

    @property
    def recorder(self) -> ReplayRecorder | None:
        """Keeps the player's controls of every step, when set (a replay)."""

    def player_brain(self) -> Driver | None:
        """The bot brain that drives the player's vehicle (``--player-ai``), or None: a
        person drives."""

    def restarted(self, recorder: ReplayRecorder | None = None) -> DrawnSession | None:
        """A fresh game with the same options (this one is left as it is), or None where
        a game cannot be started afresh here (online: the server runs the rounds)."""

    def destroy(self) -> None: ...


class FrameLoop(Protocol):
    """What steps a session from the window's frames: a
    :class:`~game.sim.step_loop.StepLoop`, or a network client's
    :class:`~game.sim.net.shown.ClientLoop`."""

    def advance(self, frame_s: float) -> int:
        """A rendered frame of ``frame_s`` went by: take the steps due; return how many."""

    @property
    def alpha(self) -> float:
        """How far the present lies between the last step and the next, in [0, 1]."""

    @property
    def elapsed_s(self) -> float:
        """Simulated time since the game began (online: since we joined)."""

    @property
    def last_controls(self) -> Controls:
        """The player's controls in the last step taken."""

    def subscribe(self, listener: Listener) -> None:
        """Call ``listener(events)`` after every step."""

    @property
    def gone(self) -> ServerGone | None:
        """Why the server's game ended for us (None: it goes on, or a local game)."""

