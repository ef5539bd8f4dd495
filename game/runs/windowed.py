"""Running a game in a window (or offscreen) from the command line: the player's own
settings and bindings when a person plays, the app until it is closed or its time is up,
the screenshot and the replay at the end."""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Callable

from common import compiled
from common.errors import UserError
from common.settings import UserSettings, autosave_path
from game.app import TankBattleApp
from game.input.rebinding import UserBindings
from game.runs.headless import header_for
from game.runs.windowed_run import DEFAULT_OFFSCREEN_SECONDS, WindowedRun
from game.sim.replay import ReplayRecorder
from game.sim.session import GameOptions
from game.window_config import WindowConfig

log = logging.getLogger(__name__)

PREPARING_FRAME_S = 1.0 / 30.0
"""The progress screen's frame time: the preparation has the processor in between."""


def run_windowed(config: WindowConfig, run: WindowedRun, screenshot: Path | None = None,
                 on_quit: Callable[[ReplayRecorder], None] | None = None) -> int:
    """Run the game in a window (or offscreen) until it is closed or its time is up;
    ``on_quit(recorder)`` gets the last game's replay recorder when it ends."""
    # A person's own settings only in an interactive game: scripted and offscreen runs
    # (tests, screenshots) look the same on every machine.
    interactive = not run.scripted
    settings = UserSettings(config.view.user_settings) if interactive else None
    bindings = (UserBindings(config.controls.keyboard, config.controls.gamepad)
                if interactive else None)
    app = None
    try:
        app = TankBattleApp(config, run, settings=settings, bindings=bindings)
        _log_window(app, run.offscreen)
        if interactive and compiled.needs_preparing():
            prepare_in_window(app, config, run)
        app.run()
        if screenshot is not None:
            app.save_screenshot(screenshot)
    finally:
        if app is not None:
            session = app.session  # a restart replaced the first one
            app.destroy()
            recorder = session.recorder
            session.destroy()
            if on_quit is not None and recorder is not None:
                on_quit(recorder)
    return 0


def prepare_in_window(app: TankBattleApp, config: WindowConfig, run: WindowedRun) -> None:
    """A first start's progress screen over the title while ``--prepare`` compiles the
    physics in a process of its own; then this process loads what it cached."""
    from game.menus.hosting import game_command
    from game.menus.preparing_screen import PreparingScreen
    from game.runs.prepare import SCENARIOS
    log.info("the physics are not prepared for this machine: preparing them once")
    command = game_command(["--prepare"] + (["--config", str(run.config_dir)]
                                            if run.config_dir is not None else []))
    screen = PreparingScreen(app.aspect2d, config.view.menu, command,
                             [seconds for _what, _options, seconds in SCENARIOS])
    try:
        while screen.update():
            app.graphicsEngine.renderFrame()
            time.sleep(PREPARING_FRAME_S)
    finally:
        screen.destroy()
    if screen.succeeded:
        log.info("prepared: %d compiled loops loaded", compiled.load_cached(from_start=True))


def _log_window(app: TankBattleApp, offscreen: bool) -> None:
    """What opened: its size and the OpenGL context the driver gave."""
    graphics = app.win.getGsg()
    log.info("%s %dx%d: OpenGL %s, %s (%s)",
             "offscreen buffer" if offscreen else "window", app.win.getXSize(),
             app.win.getYSize(), graphics.getDriverVersion(), graphics.getDriverRenderer(),
             graphics.getDriverVendor())


def run_from_command_line(args, config, options: GameOptions, digest: str, inputs,
                          telemetry) -> int:
    """The window (or offscreen buffer) the command line asked for; its exit status."""
    seconds = args.seconds
    if seconds is None and args.offscreen:
        seconds = DEFAULT_OFFSCREEN_SECONDS
    run = WindowedRun(options, offscreen=args.offscreen, inputs=inputs, telemetry=telemetry,
                      seconds=seconds, debug_rays=args.debug_rays,
                      # A replay holds player 1's controls only: a two-player game keeps none.
                      new_recorder=((lambda played: ReplayRecorder(header_for(played, digest)))
                                    if args.players == 1 else None),
                      menu=args.menu, config_dir=args.config, list_url=args.list or None)
    return run_windowed(config, run, screenshot=args.screenshot,
                        on_quit=replay_saver(args.record, not run.scripted))


def replay_saver(record: Path | None, interactive: bool):
    """What to do with a windowed game's replay when it ends: save it where --record says,
    or (a game played by hand) in the user's data folder, warning if that fails."""
    def save(recorder: ReplayRecorder) -> None:
        if record is not None:
            recorder.save(record)
        elif interactive:
            path = autosave_path()
            try:
                recorder.save(path)
            except UserError as error:  # the game is over; losing its replay is not fatal
                log.warning("replay not saved: %s", error)
    return save
