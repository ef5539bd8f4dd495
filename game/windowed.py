"""Running a game in a window (or offscreen) from the command line: the player's own
settings and bindings when a person plays, the app until it is closed or its time is up,
the screenshot and the replay at the end."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Callable

from common.settings import UserSettings
from game.app import TankBattleApp
from game.input.rebinding import UserBindings
from game.sim.replay import ReplayRecorder
from game.window_config import WindowConfig
from game.windowed_run import WindowedRun

log = logging.getLogger(__name__)


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


def _log_window(app: TankBattleApp, offscreen: bool) -> None:
    """What opened: its size and the OpenGL context the driver gave."""
    graphics = app.win.getGsg()
    log.info("%s %dx%d: OpenGL %s, %s (%s)",
             "offscreen buffer" if offscreen else "window", app.win.getXSize(),
             app.win.getYSize(), graphics.getDriverVersion(), graphics.getDriverRenderer(),
             graphics.getDriverVendor())
