"""A game session: the one way a game is built from its specs and the player's options.

The headless run, the window, the benchmarks and the soak all make their games here: a
:class:`GameSession` is the simulation, its battle (bots, rounds, score) and any second
local player, built from :class:`SessionSpecs` (``game.config`` assembles them from
config/*.toml) and :class:`GameOptions` (the command line's map, seed, vehicle, bots
and players). A restart is a new session with the same options.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from game.sim.ai import AISpec
from game.sim.arena import WorldSpecs
from game.sim.battle import Battle, BattleSpec
from game.sim.local_players import LocalPlayersSpec, add_second_player
from game.sim.replay import ReplayRecorder
from game.sim.simulation import Driver, Simulation
from physics.model.terrain import MapChoice


@dataclass(frozen=True)
class SessionSpecs:
    """The specs a game is built from."""

    world: WorldSpecs
    battle: BattleSpec
    ai: AISpec
    local_players: LocalPlayersSpec


@dataclass(frozen=True)
class GameOptions:
    """What the player chose for a game (the command line's match flags)."""

    map: MapChoice = field(default_factory=lambda: MapChoice("desert"))
    seed: int = 1
    vehicle: str | None = "tank"
    """The player's vehicle: "tank" or "car" (None: no player, a dedicated server)."""
    bots: int = 0
    allies: int = 0
    """Bots on the player's side (with ``bots`` against it), their classes the bots' mix
    in turn, at the bots' level."""
    players: int = 1
    """Local players: 2 adds a second vehicle beside the player's, on the player's side."""
    player_name: str = "player"
    """The player's vehicle's name (a network client's is its ``--name``)."""
    free_for_all: bool = False
    """With no bots, every player for themselves: rounds to the last one standing (online)."""
    difficulty: str | None = None
    """The bots' level (None: config/game.toml's ``[ai] difficulty``)."""
    player_ai: str | None = None
    """The bot brain drives the player's vehicle at this level (None: a person does)."""
    gearbox: str | None = None
    """The player's gearbox: "automatic" or "manual" (None: config/game.toml's ``[spawn]
    start_gear``)."""
    rounds: int | None = None
    """Rounds in the match (None: config/game.toml's ``[battle] rounds``)."""
    mode: str = "battle"
    """What ends a round besides a side destroyed: "battle", nothing; "zone", the capture
    zone taken (:mod:`game.sim.zone`)."""
    next_match_automatically: bool = False
    """After the match's end and the restart pause a fresh match begins by itself (a
    dedicated server, the soak); otherwise the game stops there and a new match is a new
    session."""
    tank: str | None = None
    """The player's tank class (config/tanks/NAME.toml; None: config/game.toml's ``[spawn]
    tank``)."""


START_GEARS: dict[str | None, str] = {"automatic": "A"}
"""The gear the player's vehicles start in, by gearbox (manual, or None: config/game.toml's
``[spawn] start_gear``)."""


class GameSession:
    """One game: the simulation, its battle and local players, and its replay recorder
    (:class:`~game.sim.interfaces.DrawnSession`)."""

    def __init__(self, specs: SessionSpecs, options: GameOptions,
                 recorder: ReplayRecorder | None = None):
        self.specs = specs
        self.options = options
        self.simulation = Simulation(specs.world, options.map, options.seed,
                                     player_vehicle=options.vehicle,
                                     player_name=options.player_name,
                                     player_start_gear=START_GEARS.get(options.gearbox),
                                     player_tank=options.tank)
        ai = specs.ai if options.difficulty is None else replace(specs.ai,
                                                                  difficulty=options.difficulty)
        self.battle = Battle(self.simulation, specs.battle, ai, options.bots,
                             free_for_all=options.free_for_all, rounds=options.rounds,
                             next_match_automatically=options.next_match_automatically,
                             mode=options.mode)
        if options.players > 1:
            add_second_player(self.simulation, self.battle, specs.local_players)
        classes = specs.battle.bot_tanks
        for number in range(options.allies):  # after player 2: they take the line's places
            self.battle.add_ally(classes[number % len(classes)], ai)
        self.recorder = recorder
        """Keeps the player's controls of every step, when set (a replay)."""

    def player_brain(self) -> Driver | None:
        """The player's controls from the bot brain at ``options.player_ai``, fighting the
        nearest bot still in the fight (None: a person drives)."""
        if self.options.player_ai is None or self.simulation.player is None:
            return None
        ai = replace(self.specs.ai, difficulty=self.options.player_ai)
        return self.battle.brain_for(self.simulation.player.name, ai)

    def restarted(self, recorder: ReplayRecorder | None = None) -> "GameSession":
        """A fresh game with the same specs and options (this one is left as it is)."""
        return GameSession(self.specs, self.options, recorder)

    def destroy(self) -> None:
        self.simulation.destroy()
