"""The player's own settings: volumes, field of view, inverted mouse axes, graphics quality,
the window (fullscreen, resolution, vsync), the compact HUD and whether the first-run help
was dismissed.

Saved per user as TOML in the platform's config folder:

- Linux and others: ``$XDG_CONFIG_HOME/tank-battle/settings.toml`` (``~/.config`` when unset)
- Windows: ``%APPDATA%\\tank-battle\\settings.toml``
- macOS: ``~/Library/Application Support/tank-battle/settings.toml``

``TANK_BATTLE_CONFIG_HOME`` overrides the folder (tests use it): the file is then
``$TANK_BATTLE_CONFIG_HOME/settings.toml``.

Writing is atomic: a temporary file in the same folder, flushed to disk, then
``os.replace`` over the old one, so a crash mid-write leaves the old settings
whole. The file is written with ``tomli_w`` (which escapes every string TOML needs),
one ``name = value`` line per setting with the setting's meaning in a comment after it.
A file that cannot be read (bad TOML, bad values, unknown keys) gives one warning
(through :mod:`logging`) and the defaults; it is left as it is until the player saves.

A file from an older version keeps working: its keys that were renamed since
(:data:`RENAMED_KEYS`, e.g. ``volume``, now ``master_volume``) are read under their new
names, and the next save writes the new ones.

The player's key bindings live beside it, in ``bindings.toml`` (:mod:`game.input.rebinding`).
"""

from __future__ import annotations

import dataclasses
import logging
import os
import re
import sys
import tempfile
import tomllib
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import tomli_w

from common.spec import Spec, SpecError, build_spec, tuning

QUALITY_LEVELS = ("low", "medium", "high")
AUTO_RESOLUTION = "auto"
"""The resolution that follows the window: the config's window size in a window, the
desktop's own size in fullscreen."""
RESOLUTION_PATTERN = re.compile(r"([1-9][0-9]{2,4})x([1-9][0-9]{2,4})")
"""A resolution other than ``auto``: WIDTHxHEIGHT in pixels, e.g. ``1920x1080``."""
RENAMED_KEYS = {"volume": "master_volume"}
"""Keys of older settings files, and the key each is read as now."""
HEADER = "Tank Battle: your settings (written by the game's settings menu)."
COMMENT_SPACING = "  "
"""Between a value and the comment after it on the same line."""
COMMENT_FORBIDDEN = frozenset(map(chr, [*range(0x20), 0x7F])) - {"\t"}
"""The characters TOML allows in no comment: the ASCII controls but tab."""

log = logging.getLogger(__name__)
"""Where a file of the player's that cannot be read is reported when no ``warn`` is given
(with no logging handler configured: the line alone on stderr)."""


def parse_resolution(text: str) -> tuple[int, int] | None:
    """(width, height) of a "WIDTHxHEIGHT" resolution; None for ``auto``. Raises
    ValueError for anything else."""
    if text == AUTO_RESOLUTION:
        return None
    match = RESOLUTION_PATTERN.fullmatch(text) if isinstance(text, str) else None
    if match is None:
        raise ValueError(f"not a resolution: {text!r}")
    return int(match.group(1)), int(match.group(2))


@dataclass(frozen=True)
class UserSettingsSpec(Spec):
    """A player's own settings (saved per user; these are the defaults and their bounds)."""

    master_volume: float = tuning("every sound's volume, 0..1", minimum=0.0, maximum=1.0)
    effects_volume: float = tuning("shots, hits, explosions and the menus' click, 0..1 (times "
                                   "the master volume)", minimum=0.0, maximum=1.0)
    engine_volume: float = tuning("the engine, tracks and tyres, 0..1 (times the master "
                                  "volume)", minimum=0.0, maximum=1.0)
    field_of_view_deg: float = tuning("the chase view's vertical field of view",
                                      minimum=20.0, maximum=120.0)
    invert_x: bool = tuning("mouse left/right reversed (look round and gun-sight aim)")
    invert_y: bool = tuning("mouse up/down reversed (look round and gun-sight aim)")
    quality: str = tuning("graphics quality (particles, sun shadows, antialiasing)",
                          choices=QUALITY_LEVELS)
    fullscreen: bool = tuning("the game fills the screen (F11 toggles)")
    resolution: str = tuning('window size, "WIDTHxHEIGHT" or "auto" (the configured window '
                             "size in a window, the desktop's in fullscreen)")
    vsync: bool = tuning("frames wait for the display's refresh (applies on the next start)")
    hud_compact: bool = tuning("the smaller heads-up display")
    help_seen: bool = tuning("the first-run help card was dismissed")

    def __post_init__(self) -> None:
        super().__post_init__()
        try:
            parse_resolution(self.resolution)
        except ValueError:
            raise SpecError("resolution", self.resolution,
                            f'"{AUTO_RESOLUTION}" or WIDTHxHEIGHT, e.g. "1920x1080"') from None


APP_FOLDER = "tank-battle"
FILE_NAME = "settings.toml"
OVERRIDE_ENV = "TANK_BATTLE_CONFIG_HOME"


DATA_OVERRIDE_ENV = "TANK_BATTLE_DATA_HOME"
CACHE_OVERRIDE_ENV = "TANK_BATTLE_CACHE_HOME"
OVERRIDE_ENVS = {"config": OVERRIDE_ENV, "data": DATA_OVERRIDE_ENV, "cache": CACHE_OVERRIDE_ENV}
"""The variable that puts each kind of the user's folders elsewhere (tests, portable runs)."""


def user_folder(kind: str, environ=None, platform: str | None = None,
                home: Path | None = None) -> Path:
    """This user's folder for the game's ``kind`` of files: "config" (settings), "data"
    (replays, logs) or "cache" (what the game can make again, such as its compiled
    physics), in the platform's usual place, or where the override variable says."""
    environ = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    home = Path.home() if home is None else Path(home)
    override = OVERRIDE_ENVS[kind]
    if environ.get(override):
        return Path(environ[override])
    fallback: tuple[str, ...]  # the folder under home where the variable is not set
    if platform.startswith("win"):
        variable, fallback = (("APPDATA", ("AppData", "Roaming")) if kind == "config"
                              else ("LOCALAPPDATA", ("AppData", "Local")))
        base = Path(environ[variable]) if environ.get(variable) else home.joinpath(*fallback)
        return base / APP_FOLDER / "cache" if kind == "cache" else base / APP_FOLDER
    if platform == "darwin":
        base = home / "Library" / ("Caches" if kind == "cache" else "Application Support")
    else:
        variable, fallback = {"config": ("XDG_CONFIG_HOME", (".config",)),
                              "data": ("XDG_DATA_HOME", (".local", "share")),
                              "cache": ("XDG_CACHE_HOME", (".cache",))}[kind]
        base = Path(environ[variable]) if environ.get(variable) else home.joinpath(*fallback)
    return base / APP_FOLDER


def settings_path(environ=None, platform: str | None = None, home: Path | None = None) -> Path:
    """Where this user's settings file lives."""
    return user_folder("config", environ, platform, home) / FILE_NAME


def autosave_path(now: datetime | None = None) -> Path:
    """Where a windowed game's replay goes on quit: the user's data folder."""
    stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S")
    return user_folder("data") / "replays" / f"game-{stamp}.replay"


def screenshot_path(now: datetime | None = None) -> Path:
    """Where F12 saves a screenshot: the user's data folder."""
    stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S-%f")
    return user_folder("data") / "screenshots" / f"tank-battle-{stamp}.png"


@dataclass
class LoadedSettings:
    settings: UserSettingsSpec
    warning: str | None = None
    """One line saying why the file was not used (None: read fine, or no file yet)."""
    saved: frozenset[str] = frozenset()
    """The settings the file holds (the player's, or a first start's picks): the rest are
    the defaults."""


def load_settings(path: Path, defaults: UserSettingsSpec) -> LoadedSettings:
    """The saved settings over the defaults (keys missing from the file keep the default);
    anything wrong with the file: the defaults and one warning line. Never raises."""
    path = Path(path)
    try:
        with open(path, "rb") as stream:
            table = tomllib.load(stream)
    except FileNotFoundError:
        return LoadedSettings(defaults)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        reason = getattr(error, "strerror", None) or str(error) or type(error).__name__
        return LoadedSettings(defaults, f"tank-battle: {path}: not read ({reason}); "
                                        "using the default settings")
    saved = with_renamed_keys(table)
    merged = {**dataclasses.asdict(defaults), **saved}
    try:
        return LoadedSettings(build_spec(UserSettingsSpec, merged), saved=frozenset(saved))
    except SpecError as error:
        return LoadedSettings(defaults, f"tank-battle: {path}: {error.key} = {error.value!r}: "
                                        f"expected {error.expected}; using the default settings")


def with_renamed_keys(table: dict) -> dict:
    """``table`` with the keys of older files under their new names (a new name already
    in the file wins over the old one)."""
    renamed = dict(table)
    for old, new in RENAMED_KEYS.items():
        if old in renamed:
            value = renamed.pop(old)
            renamed.setdefault(new, value)
    return renamed


def toml_comment(text: str) -> str:
    """``text`` as one TOML comment line: TOML allows no control character but tab in a
    comment, so each other one (a line break too) becomes a space."""
    return "# " + "".join(" " if char in COMMENT_FORBIDDEN else char for char in text)


def commented_toml(header: str, rows) -> str:
    """A TOML document of top-level ``(key, value, doc)`` rows (scalar or array values:
    a table would swallow the rows after it), each written by ``tomli_w``, with ``header``
    as its first comment line and each row's doc as a comment: after the value on the same
    line, or above it when the value spans several lines."""
    lines = [toml_comment(header)]
    for key, value, doc in rows:
        written = tomli_w.dumps({key: value}).rstrip("\n")
        if not doc:
            lines.append(written)
        elif "\n" in written:
            lines.extend([toml_comment(doc), written])
        else:
            lines.append(written + COMMENT_SPACING + toml_comment(doc))
    return "\n".join(lines) + "\n"


def settings_text(settings: UserSettingsSpec) -> str:
    """The settings file's text: every setting, each with its meaning."""
    return commented_toml(HEADER, ((item.name, getattr(settings, item.name),
                                    item.metadata.get("doc", ""))
                                   for item in dataclasses.fields(settings)))


def save_settings(path: Path, settings: UserSettingsSpec) -> None:
    write_atomically(path, settings_text(settings))


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` atomically: a temporary file beside the target, then ``os.replace``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp",
                                         dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


class UserSettings:
    """The settings in use, where they are saved, and whether the file may be written."""

    def __init__(self, defaults: UserSettingsSpec, path: Path | None = None,
                 warn=None):
        self.defaults = defaults
        self.path = Path(path) if path is not None else settings_path()
        loaded = load_settings(self.path, defaults)
        self.current = loaded.settings
        self.warning = loaded.warning
        self.saved = loaded.saved
        """The settings the file held when it was read."""
        if loaded.warning is not None:
            (warn or log.warning)(loaded.warning)

    def change(self, **values) -> UserSettingsSpec:
        """New values (checked against the spec's bounds); not saved until :meth:`save`."""
        self.current = dataclasses.replace(self.current, **values)
        return self.current

    def save(self) -> None:
        save_settings(self.path, self.current)
        self.warning = None
