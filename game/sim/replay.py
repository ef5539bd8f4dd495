"""Replays: a game's seed, settings and the player's controls, step by step.

Everything else in a game follows from those: the world is seeded, the bots
decide from the state, physics runs in fixed steps. So a replay stores only the
player's controls, and only when they change. Played back, it gives the same
telemetry, byte for byte. A replay made with other config files or another
version of the game would not, so it is refused with one clear line.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import game
from common.errors import UserError
from game.sim.ai import DIFFICULTIES
from game.sim.arena import GEARBOXES
from game.sim.battle import rounds_limits
from game.sim.controls import CONTROL_NAMES, Controls, check_control
from game.sim.zone import MODES

_OPTIONAL = {"difficulty": "", "rounds": 0, "gearbox": "", "mode": "battle", "tank": "",
             "allies": 0}
"""Header fields a replay made before they were recorded lacks, and what they were then."""
REPLAY_FORMAT = "tank-battle-replay"
REPLAY_VERSION = 1
PLAIN_FILE_MODE = 0o644


def game_version() -> str:
    """This game's version, the same from a checkout, a wheel or a packaged build."""
    return game.__version__


def config_digest(config_dir: Path) -> str:
    """A fingerprint of every config file: a replay only plays back on the same tuning."""
    digest = hashlib.sha256()
    config_dir = Path(config_dir)
    for path in sorted(config_dir.rglob("*.toml")):
        digest.update(path.relative_to(config_dir).as_posix().encode() + b"\0"
                      + path.read_bytes() + b"\0")
    return digest.hexdigest()


@dataclass(frozen=True)
class ReplayHeader:
    game_version: str
    config_digest: str
    seed: int
    map: str
    vehicle: str
    bots: int
    steps: int
    difficulty: str = ""
    """The bots' level as played ("": the config's, as replays made before it was
    recorded were played)."""
    rounds: int = 0
    """Rounds in the match as played (0: the config's, as replays made before it was
    recorded were played)."""

    gearbox: str = ""
    """The player's gearbox as played, "automatic" or "manual" ("": the config's start
    gear, as replays made before it was recorded were played)."""
    mode: str = "battle"
    """What ends a round: "battle" or "zone" (replays made before it was recorded were
    battles)."""
    tank: str = ""
    """The player's tank class as played ("": the config's ``[spawn] tank``)."""
    allies: int = 0
    """Bots on the player's side as played (replays made before it was recorded had none)."""

    def rounds_option(self) -> int | None:
        """The rounds for :class:`~game.sim.session.GameOptions` (None: the config's)."""
        return self.rounds or None


class ReplayRecorder:
    """Collects the player's controls each step (only the changes)."""

    def __init__(self, header: ReplayHeader):
        self.header = header
        self._changes: list[list] = []
        self._last: dict = dataclasses.asdict(Controls())
        self._steps = 0

    def record(self, step: int, controls: Controls) -> None:
        now = dataclasses.asdict(controls)
        changed = {name: value for name, value in now.items() if self._last[name] != value}
        if changed:
            self._changes.append([step, changed])
        self._last = now
        self._steps = step + 1

    def save(self, path: str | Path) -> None:
        """Write the replay atomically: a finished file or none, never half of one."""
        path = Path(path)
        header = dataclasses.replace(self.header, steps=self._steps)
        document = {"format": REPLAY_FORMAT, "version": REPLAY_VERSION,
                    **dataclasses.asdict(header), "controls": self._changes}
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name,
                                                 suffix=".partial")
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                json.dump(document, stream, separators=(",", ":"))
            os.chmod(temporary, PLAIN_FILE_MODE)  # mkstemp makes it private
            os.replace(temporary, path)
        except OSError as error:
            raise UserError(path, None, f"a writable replay file ({error.strerror})") from None


class ReplayInputs:
    """Plays recorded controls back: the controls of each step, by its time."""

    def __init__(self, header: ReplayHeader, changes: list[tuple[int, dict]], step_hz: float):
        self.header = header
        self._changes = changes
        self._step_hz = step_hz
        self._next = 0
        self._controls = Controls()

    def controls_at(self, time_s: float) -> Controls:
        step = round(time_s * self._step_hz)
        while self._next < len(self._changes) and self._changes[self._next][0] <= step:
            self._controls = dataclasses.replace(self._controls, **self._changes[self._next][1])
            self._next += 1
        return self._controls


def _checked_header(path: Path, document: dict, digest: str) -> ReplayHeader:
    """A replay's header, each field checked, and refused unless it plays back the same
    here (this version of the game, these config files)."""
    fields = {field.name: field.type for field in dataclasses.fields(ReplayHeader)}
    values: dict[str, Any] = {}  # each a whole number or a string, as its field wants
    for name in fields:
        value = document.get(name, _OPTIONAL.get(name))
        wanted = int if name in ("seed", "bots", "steps", "rounds", "allies") else str
        if isinstance(value, bool) or not isinstance(value, wanted):
            raise UserError(path, name, f"a {'whole number' if wanted is int else 'string'}",
                            value, has_value=True)
        values[name] = value
    header = ReplayHeader(**values)
    if header.gearbox not in ("", *GEARBOXES):
        raise UserError(path, "gearbox", "one of " + ", ".join(GEARBOXES), header.gearbox,
                        has_value=True)
    if header.mode not in MODES:
        raise UserError(path, "mode", "one of " + ", ".join(MODES), header.mode,
                        has_value=True)
    if header.difficulty not in ("", *DIFFICULTIES):
        raise UserError(path, "difficulty", "one of " + ", ".join(DIFFICULTIES),
                        header.difficulty, has_value=True)
    least, most = rounds_limits()
    if header.rounds != 0 and not least <= header.rounds <= most:
        raise UserError(path, "rounds", f"a whole number from {least} to {most} (or 0: the "
                        "config's)", header.rounds, has_value=True)
    if header.allies < 0 or (header.allies and header.bots < 1):
        raise UserError(path, "allies", "a whole number of 0 or more (more than 0 only with "
                        "bots to fight)", header.allies, has_value=True)
    if header.game_version != game_version():
        raise UserError(path, "game_version", f"a replay made by this version, "
                        f"{game_version()} (it cannot play back the same)",
                        header.game_version, has_value=True)
    if header.config_digest != digest:
        raise UserError(path, "config_digest", "a replay made with these config files (they "
                        "have changed since, so it cannot play back the same)")
    return header


def load_replay(path: str | Path, digest: str, step_hz: float) -> ReplayInputs:
    """Read and check a replay; anything wrong is one UserError naming what."""
    path = Path(path)
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(path, None, "a replay file, but there is no such file") from None
    except (OSError, UnicodeDecodeError):
        raise UserError(path, None, "a readable replay file (JSON text)") from None
    except (json.JSONDecodeError, RecursionError):
        raise UserError(path, None, "a replay file in JSON") from None
    if not isinstance(document, dict) or document.get("format") != REPLAY_FORMAT:
        raise UserError(path, "format", f'"{REPLAY_FORMAT}" (this is not a Tank Battle replay)')
    if document.get("version") != REPLAY_VERSION:
        raise UserError(path, "version", f"replay format {REPLAY_VERSION}",
                        document.get("version"), has_value=True)
    header = _checked_header(path, document, digest)
    changes = document.get("controls")
    if not isinstance(changes, list):
        raise UserError(path, "controls", "a list of [step, {control: value}]")
    parsed, last_step = [], -1
    for index, entry in enumerate(changes):
        where = f"controls[{index}]"
        if (not isinstance(entry, list) or len(entry) != 2 or isinstance(entry[0], bool)
                or not isinstance(entry[0], int) or entry[0] <= last_step
                or not isinstance(entry[1], dict)):
            raise UserError(path, where, "[step, {control: value}] with steps rising", entry,
                            has_value=True)
        for name, value in entry[1].items():
            if name not in CONTROL_NAMES:
                raise UserError(path, f"{where}.{name}", "a control: " + ", ".join(CONTROL_NAMES),
                                value, has_value=True)
            check_control(path, f"{where}.{name}", name, value)
        last_step = entry[0]
        parsed.append((entry[0], entry[1]))
    return ReplayInputs(header, parsed, step_hz)
