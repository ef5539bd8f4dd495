"""What the command line asked of a game in a window (or offscreen): the options, how it
is driven and for how long, and whether it opens on the title menu."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from game.sim.controls import ScriptedInputs
from game.sim.net.shown import ClientSession
from game.sim.replay import ReplayRecorder
from game.sim.session import GameOptions
from game.sim.telemetry import TelemetryWriter

DEFAULT_OFFSCREEN_SECONDS = 3.0
"""An offscreen run with no ``--seconds`` runs this long: nobody is there to close it."""


@dataclass(frozen=True)
class WindowedRun:
    """What the command line asked of a windowed (or offscreen) game."""

    options: GameOptions
    offscreen: bool = False
    inputs: ScriptedInputs | None = None
    """Scripted controls (an inputs file or a replay) instead of the devices."""
    telemetry: TelemetryWriter | None = None
    seconds: float | None = None
    """Simulated seconds to run (None: until the window is closed)."""
    debug_rays: bool = False
    new_recorder: Callable[[GameOptions], ReplayRecorder] | None = None
    """Gives each game (each restart, each match the title menu starts) a replay recorder
    for its options."""
    online: ClientSession | None = None
    """A game on a server (``--connect``), joined already, instead of a local one."""
    menu: bool = False
    """Open on the title menu (no match flags on the command line, or ``--menu``)."""
    config_dir: Path | None = None
    """The config folder the command line named: a hosted server reads the same."""
    list_url: str | None = None
    """The list server Find game reads (``--list URL``; None: config's ``[listing] url``)."""

    @property
    def scripted(self) -> bool:
        """Nobody is there to answer a menu: offscreen, scripted or timed."""
        return self.offscreen or self.inputs is not None or self.seconds is not None

    def recorder_for(self, options: GameOptions) -> ReplayRecorder | None:
        """A new game's replay recorder (None: none is kept)."""
        return self.new_recorder(options) if self.new_recorder is not None else None
