"""The local and the online game, each handed to the Protocols the window reads
(:mod:`game.sim.interfaces`): read by the type checker, never run.

``tests/test_types.py`` type-checks this module with the game's packages. Each function
below returns an implementation as the Protocol it must satisfy, so an implementation
that loses a member, or changes one's type, fails the check naming both.
"""

from __future__ import annotations

from game.sim.battle import Battle
from game.sim.interfaces import (DrawnBattle, DrawnSession, DrawnShell, DrawnSimulation,
                                 DrawnVehicle, FrameLoop, PlayerVehicle)
from game.sim.net.remote import RemoteVehicle
from game.sim.net.shown import (ClientLoop, ClientSession, OnlineBattle, ShownOwn,
                                ShownWorld)
from game.sim.net.traces import ShellTrace
from game.sim.session import GameSession
from game.sim.simulation import Simulation
from game.sim.step_loop import StepLoop
from game.sim.vehicles import Vehicle
from physics.bullet.shells import Shell


def local_game(session: GameSession, loop: StepLoop) -> tuple[DrawnSession, FrameLoop]:
    return session, loop


def online_game(session: ClientSession, loop: ClientLoop) -> tuple[DrawnSession, FrameLoop]:
    return session, loop


def simulations(local: Simulation, online: ShownWorld
                ) -> tuple[DrawnSimulation, DrawnSimulation]:
    return local, online


def battles(local: Battle, online: OnlineBattle) -> tuple[DrawnBattle, DrawnBattle]:
    return local, online


def players(local: Vehicle, online: ShownOwn) -> tuple[PlayerVehicle, PlayerVehicle]:
    return local, online


def others(remote: RemoteVehicle) -> DrawnVehicle:
    return remote


def shells(local: Shell, online: ShellTrace) -> tuple[DrawnShell, DrawnShell]:
    return local, online
