"""Local players: a second person on the same machine, in a second vehicle beside the first.

This is the headless half: the tuning (config/game.toml ``[local_players]``) and putting
player 2's vehicle into a game. Player 2's vehicle is of the same kind as player 1's and
starts beside it, facing the same way; until a gamepad drives it (the windowed game passes
the pad's controls to ``Simulation.step`` under its name) it stands still on its
handbrake. In a battle it fights on player 1's side and is put back at its start with
everybody else when a round restarts. The split-screen views are
:mod:`game.view.player_view`'s.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from common.spec import Spec, tuning
from game.sim.controls import Controls

MAX_PLAYERS = 2
SECOND_PLAYER = "player-2"
"""The name of player 2's vehicle in the simulation."""
IDLE = Controls(handbrake=True)
"""Player 2 without a pad: standing still."""


@dataclass(frozen=True)
class LocalPlayersSpec(Spec):
    """Two players on one machine: where player 2 starts (how they share the window is
    :class:`game.view.player_view.SplitScreenSpec`)."""

    second_offset_m: float = tuning("player 2's vehicle starts this far to the right of "
                                    "player 1's (rocks keep clear of the start)",
                                    minimum=4.0, maximum=25.0)


def add_second_player(simulation, battle, spec: LocalPlayersSpec):
    """Spawn player 2's vehicle beside player 1's and let it stand idle until driven; in a
    battle it starts each round there too. Returns the vehicle."""
    player = simulation.player
    state = player.current
    right = state.axes_ws()[0]
    flat_right = np.array([right[0], right[1]])
    flat_right /= max(float(np.linalg.norm(flat_right)), 1e-9)
    terrain = simulation.terrain
    margin = simulation.specs.rocks.edge_clearance_m
    x, y = np.asarray(state.position_ws[:2]) + flat_right * spec.second_offset_m
    x = float(np.clip(x, -terrain.half_extent_x_m + margin, terrain.half_extent_x_m - margin))
    y = float(np.clip(y, -terrain.half_extent_y_m + margin, terrain.half_extent_y_m - margin))
    heading = float(state.heading_pitch_roll_deg()[0])
    vehicle = simulation.spawn(player.kind, SECOND_PLAYER, x, y, heading,
                               tank_class=player.tank_class)
    simulation.add_driver(SECOND_PLAYER, lambda _simulation: IDLE)
    if battle is not None:
        battle.add_player(SECOND_PLAYER, (x, y, heading))
    return vehicle
