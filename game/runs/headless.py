"""A game with no window (``--headless``): the session stepped as fast as it goes, its
telemetry and replay written as it ends."""

from __future__ import annotations

from game.sim.replay import ReplayHeader, ReplayRecorder, game_version
from game.sim.session import GameOptions, GameSession
from game.sim.step_loop import StepLoop, idle

DEFAULT_HEADLESS_SECONDS = 10.0


def header_for(options: GameOptions, digest: str) -> ReplayHeader:
    """A replay's header for a game played with ``options``."""
    return ReplayHeader(game_version(), digest, options.seed, options.map.text,
                        options.vehicle, options.bots, 0, options.difficulty or "",
                        rounds=options.rounds or 0, gearbox=options.gearbox or "",
                        mode=options.mode, tank=options.tank or "", allies=options.allies)


def run_headless(args, config, options: GameOptions, header: ReplayHeader, inputs,
                  telemetry) -> None:
    """No window: the session stepped as fast as it goes (player 2, with no pad without a
    window, stands still)."""
    session = GameSession(config.session, options, ReplayRecorder(header))
    player = ((lambda simulation: inputs.controls_at(simulation.time_s)) if inputs
              else session.player_brain() or idle)
    try:
        StepLoop(session, player, telemetry=telemetry).run_for(
            args.seconds or DEFAULT_HEADLESS_SECONDS)
    finally:
        session.destroy()
    if args.record:
        session.recorder.save(args.record)
