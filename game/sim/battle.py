"""Battle rules: the player's side against the bots, rounds, score and restarts.

A :class:`Battle` wraps a :class:`~game.sim.simulation.Simulation`: it spawns the
bots around the player, asks each for its controls every step, and watches the
events for the end of a round: when one side has no tank left, the other side
scores, and after a pause every tank is put back at its spawn, whole, for the
next round.

A match is ``rounds`` rounds long. After the last round's end and its pause the battle
sends :class:`~game.sim.events.MatchEnd` (rounds, winner, score and each side's figures
from :class:`~game.sim.match_stats.MatchStats`) instead of a new round, and stops: no
more rounds, every vehicle left as it is. A new match is a new session; a dedicated
server (``next_match_automatically``) starts one itself after another pause: score and
figures from zero, round 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from common.spec import Spec, tuning
from game.sim.arena import TANK
from game.sim.ai import AISpec, Bot
from game.sim.controls import Controls
from game.sim.events import DRAW, Event, MatchEnd, RoundEnd, RoundStart, ZoneCaptured
from game.sim.match_stats import MatchStats
from game.sim.opening import OpeningSpec, Side, plan_opening, side_places
from game.sim.search import SearchGoal
from game.sim.simulation import Driver, Simulation
from game.sim.zone import ZONE_MODE, CaptureZone, ZoneSpec

BOT_STREAM = 0xB075
"""Seeds the bots' random stream apart from the world's others."""
PLAYER_BRAIN_STREAM = 0xB076
"""Seeds the random stream of the brain that drives the player (``--player-ai``)."""
ZONE_HOLD_SHARE = 0.5
"""A bot brain drives to within this share of the capture zone's radius of its middle,
well inside it, then stands there and fights."""


@dataclass(frozen=True)
class BattleSpec(Spec):
    opening: OpeningSpec = tuning("where the two sides start: opposite each other across "
                                  "the map, each in a line")
    restart_delay_s: float = tuning("pause between a round's end and the next",
                                    minimum=0.0, maximum=60.0)
    rounds: int = tuning("rounds in a match", minimum=1, maximum=99)
    bot_tanks: tuple[str, ...] = tuning("the bots' tank classes (config/tanks/NAME.toml), "
                                        "taken in turn: bot 1 the first, bot 2 the second, "
                                        "and from the first again", length=(1, 64))
    zone: ZoneSpec = tuning("the capture zone of --mode zone")


def rounds_limits() -> tuple[int, int]:
    """The least and the most rounds a match may have (a match setup's or a replay's
    choice is checked against these, as the config's is)."""
    metadata = BattleSpec.__dataclass_fields__["rounds"].metadata
    return int(metadata["minimum"]), int(metadata["maximum"])


class _Sides(NamedTuple):
    """Each side's vehicles, and what they were gathered from."""

    basis: tuple
    """The simulation's roster revision and the other players' names."""
    player: object
    """The simulation's player's vehicle then."""
    vehicles: dict[str, list]
    """By side ("bots", "player"): its vehicles, in order."""


class Battle:
    """The simulation plus bots, sides, rounds and score
    (:class:`~game.sim.interfaces.DrawnBattle`)."""

    online = False
    """A local game's rules, run here (a network client's are the server's)."""
    ping_ms: float | None = None
    """No server to reach: no round trip."""
    board: list | None = None
    """No server's scoreboard (the match's figures are :attr:`stats`)."""

    def __init__(self, simulation: Simulation, spec: BattleSpec, ai: AISpec, bots: int,
                 free_for_all: bool = False, rounds: int | None = None,
                 next_match_automatically: bool = False, mode: str = "battle"):
        self.simulation = simulation
        self.spec = spec
        self.rounds = spec.rounds if rounds is None else rounds
        """Rounds in the match (None given: the config's)."""
        least, most = rounds_limits()
        if not least <= self.rounds <= most:
            raise ValueError(f"a match of {self.rounds} rounds: expected {least} to {most}")
        self.next_match_automatically = next_match_automatically
        """After the match's end and a pause, a fresh match starts (a dedicated server)."""
        self.round = 1
        self.over = False
        """The match has ended (MatchEnd sent) and no new one has started."""
        self.free_for_all = free_for_all and bots == 0
        """No bots, every player for themselves (an online game): a round ends when one
        player is left, and the score is kept by player."""
        self.score: dict[str, int] = {} if self.free_for_all else {"player": 0, "bots": 0}
        self._restart_at_s: float | None = None
        self.stats = MatchStats(self.side_of, self.full_health)
        """The match's figures so far: kills, shots, hits, damage."""
        self.bots: dict[str, Bot] = {}
        self.spawns: dict[str, tuple[float, float, float]] = {}
        self._other_players: tuple[str, ...] = ()
        """Vehicles of other people on the player's side (local player 2, network players)
        and of its bots (:meth:`add_ally`)."""
        self._allies = 0
        self._sides: _Sides | None = None
        """Each side's vehicles as :meth:`_side` last gathered them."""
        self._edge_margin_m = simulation.specs.rocks.edge_clearance_m
        self.opening = plan_opening(spec.opening, simulation.terrain,
                                    simulation.arena.spawn_points[0], self._edge_margin_m,
                                    simulation.arena.rock_gap_m, bots) if bots else None
        """Where the sides start (None without bots: players join round the middle)."""
        if self.opening is not None:
            places = self._places(self.opening.bots)
            for number in range(bots):
                x, y = next(places)
                name = f"bot-{number + 1}"
                simulation.spawn(TANK, name, x, y, self.opening.bots.heading_deg,
                                 tank_class=spec.bot_tanks[number % len(spec.bot_tanks)])
                self.spawns[name] = (x, y, self.opening.bots.heading_deg)
                self.bots[name] = Bot(ai, np.random.default_rng([simulation.seed, BOT_STREAM,
                                                                 number]), phase=number)
                simulation.add_driver(name, self._drive(name))
        player = simulation.player
        if player is not None and self.opening is not None:
            self.spawns[player.name] = self.join_place()
            simulation.place(player, *self.spawns[player.name])
        elif player is not None:
            self.spawns[player.name] = (float(player.current.position_ws[0]),
                                        float(player.current.position_ws[1]),
                                        player.current.heading_pitch_roll_deg()[0])
        centre = (self.opening.middle_xy if self.opening is not None
                  else simulation.arena.spawn_points[0])
        self._set_up_zone(mode, centre)
        if self.bots or self.free_for_all or self.zone is not None:
            simulation.add_rules(self._rules)

    def _set_up_zone(self, mode: str, centre_xy) -> None:
        """In zone mode, the capture zone round ``centre_xy`` (the player's side's spawn)
        and the bots' goal in it; otherwise neither."""
        zone = (CaptureZone(self.simulation, self.spec.zone, centre_xy, self.side_of)
                if mode == ZONE_MODE else None)
        self.zone = zone
        self.zone_goal = (SearchGoal(np.asarray(zone.centre_xy),
                                     zone.spec.radius_m * ZONE_HOLD_SHARE, vantage=True)
                          if zone is not None else None)
        """Where a bot brain drives before anything else: into the capture zone."""
        self._zone_left: list[Event] = []
        """The zone's leave events of a restart, sent with the step's other events."""

    def _places(self, side: Side):
        """The places of one side's line, in the order its tanks take them."""
        terrain, margin = self.simulation.terrain, self._edge_margin_m
        return side_places(self.spec.opening, side, terrain.half_extent_x_m - margin,
                           terrain.half_extent_y_m - margin, self.simulation.arena.rock_gap_m)

    def join_place(self) -> tuple[float, float, float]:
        """Where the next person on the player's side starts (x, y, heading): the first
        place of the players' line no vehicle of that side stands on."""
        assert self.opening is not None, "players join round the middle without bots"
        taken = [self.spawns[name][:2] for name in self.spawns if name not in self.bots]
        side = self.opening.players
        places = self._places(side)
        for _ in range(len(taken) + 1):
            x, y = next(places)
            if all(math.hypot(x - taken_x, y - taken_y) >= self.spec.opening.spacing_m / 2.0
                   for taken_x, taken_y in taken):
                break
        return x, y, side.heading_deg

    def add_player(self, name: str, spawn: tuple[float, float, float]) -> None:
        """Another person's vehicle (local player 2, a network player) on the player's side
        (or their own, free for all), starting each round at ``spawn`` (x, y, heading)."""
        self.spawns[name] = spawn
        self._other_players += (name,)
        if self.free_for_all:
            self.score.setdefault(name, 0)

    def add_ally(self, tank_class: str, ai: AISpec) -> str:
        """A bot on the player's side: a tank of ``tank_class`` at the next free place of
        the players' line (where it starts every round), driven by a brain at ``ai``'s
        level that fights the nearest bot. Its name ("ally-N")."""
        self._allies += 1
        name = f"ally-{self._allies}"
        x, y, heading = self.join_place()
        self.simulation.spawn(TANK, name, x, y, heading, tank_class=tank_class)
        self.add_player(name, (x, y, heading))
        self.simulation.add_driver(name, self.brain_for(name, ai, self._allies))
        return name

    def remove_player(self, name: str) -> None:
        """A network player left: their vehicle no longer starts rounds or scores."""
        self.spawns.pop(name, None)
        self._other_players = tuple(other for other in self._other_players if other != name)
        if self.free_for_all:
            self.score.pop(name, None)

    def side_of(self, name: str) -> str | None:
        """The side of the vehicle called ``name``: "bots", "player" (the player's side) or,
        free for all, its own name; None for anything else (a plate, a stranger)."""
        if name in self.bots:
            return "bots"
        player = self.simulation.player
        if name in self._other_players or (player is not None and name == player.name):
            return name if self.free_for_all else "player"
        return None

    def full_health(self, name: str) -> float | None:
        """The health of the vehicle called ``name`` when whole (None: no such vehicle, or
        one that takes no damage)."""
        vehicle = self.simulation.vehicle_named(name)
        if vehicle is None or vehicle.health is None:
            return None
        return vehicle.spec.armour.health

    def _side(self, side: str) -> list:
        """The vehicles of ``side`` ("bots" or "player"), in order; gathered again only when
        a vehicle came or went, the player changed vehicle or another player joined or
        left (every bot asks every step). The list is shared: read it, do not change it."""
        simulation = self.simulation
        player = simulation.player
        basis = (simulation.roster_revision, self._other_players)
        sides = self._sides
        if sides is None or sides.basis != basis or sides.player is not player:
            players = ((player.name,) if player is not None else ()) + basis[1]
            sides = self._sides = _Sides(basis, player, {
                "bots": [vehicle for vehicle in map(simulation.vehicle_named, self.bots)
                         if vehicle is not None],
                "player": [vehicle for vehicle in map(simulation.vehicle_named, players)
                           if vehicle is not None]})
        return sides.vehicles[side]

    def _round_winner(self) -> str | None:
        """Who won the round now over: "player" or "bots" (or, free for all, the last
        player standing, "nobody" when none is); None while it goes on."""
        players = self._side("player")
        if self.free_for_all:
            alive = [vehicle.name for vehicle in players if not vehicle.destroyed]
            if len(players) < 2 or len(alive) > 1:
                return None
            return alive[0] if alive else "nobody"
        if not players:  # a server waiting for its first player
            return None
        player_down = all(v.destroyed for v in players)
        bots_down = all(v.destroyed for v in self._side("bots"))
        if not (player_down or bots_down):
            return None
        return "bots" if player_down else "player"

    def _drive(self, name: str):
        """The controls function of one bot, for the simulation to call each step: it
        fights the nearest player still in the fight."""
        bot = self.bots[name]

        def controls(simulation) -> Controls:
            me = simulation.vehicle_named(name)
            return bot.controls(simulation, me, self.target_of(me), self.zone_goal)
        return controls

    def brain_for(self, name: str, ai: AISpec, *stream: int) -> Driver:
        """A bot brain for a vehicle of the player's side (``--player-ai``, an ally): the
        controls function of ``name``, fighting the nearest bot still in the fight.
        ``stream``: numbers that give this brain random draws of its own (none: the
        player's)."""
        brain = Bot(ai, np.random.default_rng([self.simulation.seed, PLAYER_BRAIN_STREAM,
                                               *stream]))

        def controls(simulation) -> Controls:
            me = simulation.vehicle_named(name)
            return brain.controls(simulation, me, self._nearest_bot(me), self.zone_goal)
        return controls

    def _nearest_bot(self, me):
        bots = [vehicle for vehicle in self._side("bots") if not vehicle.destroyed]
        return _nearest(bots, me) if me is not None and bots else None

    def target_of(self, me):
        """Whom the bot driving ``me`` fights: the player's side's nearest vehicle not
        destroyed (player 1's when all are)."""
        players = self._side("player")
        if len(players) == 1:  # the player alone, whole or not (every bot asks every step)
            return players[0]
        alive = [vehicle for vehicle in players if not vehicle.destroyed]
        if len(alive) <= 1:
            return alive[0] if alive else (players[0] if players else None)
        return _nearest(alive, me)

    def _rules(self, simulation: Simulation, events: list[Event]) -> list[Event]:
        """After a step: count the match's figures; end the round when a side is out;
        after the pause, the next round, or the match's end after the last one."""
        if not self.over:
            self.stats.record(events)
        if self._restart_at_s is None:
            return [] if self.over else self._round_goes_on(simulation)
        if simulation.time_s < self._restart_at_s:
            return []
        self._restart_at_s = None
        if self.over:
            return self._with_zone_left(self._new_match())
        if self.round >= self.rounds:
            return [self._end_match()]
        self.round += 1
        self._restart()
        return self._with_zone_left(RoundStart(self.round, dict(self.score)))

    def _round_goes_on(self, simulation: Simulation) -> list[Event]:
        """A step of a round under way: the zone's comings and goings, and the round's end
        when a side is out or has captured the zone."""
        events = self.zone.update(simulation.step_s) if self.zone is not None else []
        winner = self._round_winner()
        if winner is None and self.zone is not None:
            winner = self.zone.captured_by()
            if winner is not None:
                events.append(ZoneCaptured(self.round, winner))
        if winner is None:
            return events
        if winner in self.score:
            self.score[winner] += 1
        self._restart_at_s = simulation.time_s + self.spec.restart_delay_s
        return events + [RoundEnd(self.round, winner, dict(self.score))]

    def _with_zone_left(self, event: Event) -> list[Event]:
        """A restart's event, after the zone's leave events of everybody who was in it."""
        left, self._zone_left = self._zone_left, []
        return left + [event]

    def match_winner(self) -> str:
        """The side that won the most rounds, or "draw" when more than one did."""
        most = max(self.score.values(), default=0)
        leaders = [side for side, won in self.score.items() if won == most]
        return leaders[0] if len(leaders) == 1 else DRAW

    def _end_match(self) -> MatchEnd:
        """The match is over: its result; a server's next match after another pause."""
        self.over = True
        if self.next_match_automatically:
            self._restart_at_s = self.simulation.time_s + self.spec.restart_delay_s
        return MatchEnd(self.round, self.match_winner(), dict(self.score),
                        self.stats.by_side(self.score))

    def _new_match(self) -> RoundStart:
        """A fresh match (a server's): score and figures from zero, round 1."""
        self.over = False
        self.round = 1
        self.score = {side: 0 for side in self.score}
        self.stats = MatchStats(self.side_of, self.full_health)
        self._restart()
        return RoundStart(self.round, dict(self.score))

    def _restart(self) -> None:
        """Every tank back at its spawn, whole, its gun loading afresh with every round it
        carries; shells in flight gone."""
        simulation = self.simulation
        simulation.combat.clear()
        self.stats.new_round()
        if self.zone is not None:
            self._zone_left += self.zone.reset()
        for vehicle in simulation.vehicles:
            if vehicle.name not in self.spawns:
                continue
            x, y, heading = self.spawns[vehicle.name]
            simulation.place(vehicle, x, y, heading)
            if vehicle.aim is not None:
                vehicle.health = vehicle.spec.armour.health
                vehicle.destroyed = False
                vehicle.aim.reload_left_s = vehicle.spec.gun.reload_s  # loading afresh
                vehicle.aim.ammunition.restock(vehicle.spec.gun.ammunition)
                simulation.combat.parts.reset(vehicle)


def _nearest(vehicles: list, me):
    """The one of ``vehicles`` nearest to ``me`` (the first of the nearest: squared
    distances in plain floats, summed in numpy's order, so ties fall as they did)."""
    here_x, here_y, here_z = me.current.position_ws.tolist()

    def squared_distance(vehicle) -> float:
        x, y, z = vehicle.current.position_ws.tolist()
        dx, dy, dz = x - here_x, y - here_y, z - here_z
        return (dx * dx + dy * dy) + dz * dz
    return min(vehicles, key=squared_distance)
