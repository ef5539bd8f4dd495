"""Battle rules: the player's side against the bots, rounds, score and restarts.

A :class:`Battle` wraps a :class:`~game.sim.simulation.Simulation`: it spawns the
bots around the player, asks each for its controls every step, and watches the
events for the end of a round: when one side has no tank left, the other side
scores, and after a pause every tank is put back at its spawn, whole, for the
next round.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from game.sim.ai import AISpec, Bot
from game.sim.controls import Controls
from game.sim.events import Event, RoundEnd, RoundStart
from game.sim.simulation import Simulation
from physics.model.spec import Spec, tuning

BOT_STREAM = 0xB075
"""Seeds the bots' random stream apart from the world's others."""


@dataclass(frozen=True)
class BattleSpec(Spec):
    bot_distance_m: float = tuning("bots start this far from the player", minimum=20.0,
                                   maximum=2000.0)
    restart_delay_s: float = tuning("pause between a round's end and the next",
                                    minimum=0.0, maximum=60.0)


class Battle:
    """The simulation plus bots, sides, rounds and score."""

    def __init__(self, simulation: Simulation, spec: BattleSpec, ai: AISpec, bots: int):
        self.simulation = simulation
        self.spec = spec
        self.round = 1
        self.score = {"player": 0, "bots": 0}
        self._restart_at_s: float | None = None
        edge_clearance_m = simulation.specs.rocks.edge_clearance_m
        centre = simulation.player.current.position_ws
        limit = min(simulation.terrain.half_extent_x_m, simulation.terrain.half_extent_y_m)
        distance = min(spec.bot_distance_m, limit - edge_clearance_m)
        self.bots: dict[str, Bot] = {}
        self.spawns: dict[str, tuple[float, float, float]] = {}
        self._other_players: list[str] = []
        """Vehicles of other people on the player's side (local player 2)."""
        heading = simulation.player.current.heading_pitch_roll_deg()[0]
        self.spawns[simulation.player.name] = (centre[0], centre[1], heading)
        for number in range(bots):
            angle = 2.0 * math.pi * (number + 0.5) / bots
            x = centre[0] + distance * math.sin(angle)
            y = centre[1] + distance * math.cos(angle)
            x = float(np.clip(x, -limit + edge_clearance_m, limit - edge_clearance_m))
            y = float(np.clip(y, -limit + edge_clearance_m, limit - edge_clearance_m))
            facing = math.degrees(math.atan2(centre[0] - x, centre[1] - y))
            name = f"bot-{number + 1}"
            simulation.spawn("tank", name, x, y, facing)
            self.spawns[name] = (x, y, facing)
            self.bots[name] = Bot(ai, np.random.default_rng([simulation.seed, BOT_STREAM, number]),
                                  phase=number)
            simulation.add_driver(name, self._drive(name))
        if self.bots:
            simulation.add_rules(self._rules)

    def add_player(self, name: str, spawn: tuple[float, float, float]) -> None:
        """Another person's vehicle (local player 2) on the player's side, starting each
        round at ``spawn`` (x, y, heading)."""
        self.spawns[name] = spawn
        self._other_players.append(name)

    def _side(self, side: str) -> list:
        names = (self.bots if side == "bots"
                 else (self.simulation.player.name, *self._other_players))
        vehicles = (self.simulation.vehicle_named(name) for name in names)
        return [vehicle for vehicle in vehicles if vehicle is not None]

    def _drive(self, name: str):
        """The controls function of one bot, for the simulation to call each step: it
        fights the nearest player still in the fight."""
        bot = self.bots[name]

        def controls(simulation) -> Controls:
            me = simulation.vehicle_named(name)
            return bot.controls(simulation, me, self.target_of(me))
        return controls

    def target_of(self, me):
        """Whom the bot driving ``me`` fights: the player's side's nearest vehicle not
        destroyed (player 1's when all are)."""
        players = self._side("player")
        alive = [vehicle for vehicle in players if not vehicle.destroyed]
        if len(alive) <= 1:
            return alive[0] if alive else self.simulation.player
        here = me.current.position_ws
        return min(alive, key=lambda vehicle: float(np.sum((vehicle.current.position_ws
                                                             - here) ** 2)))

    def _rules(self, simulation: Simulation, events: list[Event]) -> list[Event]:
        """After a step: end the round when a side is out; restart after the pause."""
        if self._restart_at_s is None:
            player_down = all(v.destroyed for v in self._side("player"))
            bots_down = all(v.destroyed for v in self._side("bots"))
            if not (player_down or bots_down):
                return []
            winner = "bots" if player_down else "player"
            self.score[winner] += 1
            self._restart_at_s = simulation.time_s + self.spec.restart_delay_s
            return [RoundEnd(self.round, winner, dict(self.score))]
        if simulation.time_s < self._restart_at_s:
            return []
        self._restart_at_s = None
        self.round += 1
        self._restart()
        return [RoundStart(self.round, dict(self.score))]

    def _restart(self) -> None:
        """Every tank back at its spawn, whole, its gun loading afresh; shells in flight gone."""
        simulation = self.simulation
        simulation.combat.clear()
        for vehicle in simulation.vehicles:
            if vehicle.name not in self.spawns:
                continue
            x, y, heading = self.spawns[vehicle.name]
            simulation.place(vehicle, x, y, heading)
            if vehicle.aim is not None:
                vehicle.health = vehicle.spec.armour.health
                vehicle.destroyed = False
                vehicle.aim.reload_left_s = vehicle.spec.gun.reload_s  # loading afresh
