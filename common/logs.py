"""The game's log: Python's :mod:`logging` for the packages ``game``, ``physics`` and
``bench``, set up once by the command line.

- stderr shows ``--log-level`` and above, one compact line each:
  ``tank-battle: warning: ...``.
- A log file, when there is one, gets time-stamped lines at INFO and above (DEBUG with
  ``--log-level debug``): a file is read after the fact, so it keeps the diagnostics a
  console run would not show. Panda3D's own messages (its "notify" output) go to it too,
  as well as to where they went before.
- A packaged build has no console: it always writes a log file, in the user's data folder
  (:func:`frozen_log_path`; a server it starts for an online game writes its own), and
  keeps the previous run's beside it. ``--log-file FILE`` asks for one from any run.

A user error stays one line on stderr and exit status 2 (:func:`game.cli.main`); it is
logged at INFO, below the console's default level, so that a log file says why a packaged
build stopped.
"""

from __future__ import annotations

import atexit
import logging
import os
import sys
from pathlib import Path

from common.resources import is_frozen
from common.settings import user_folder

PACKAGES = ("game", "physics", "common", "bench")
"""The loggers configured here: every module logs to ``logging.getLogger(__name__)``."""
LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING,
          "error": logging.ERROR}
"""``--log-level`` choices, by name."""
DEFAULT_LEVEL = "warning"
FILE_LEVEL = logging.INFO
"""The least a log file records, whatever ``--log-level`` says for stderr."""
PROGRAM = "tank-battle"
LOG_FOLDER = "logs"
LOG_NAMES = {False: "tank-battle.log", True: "tank-battle-server.log"}
"""A packaged build's log file, by whether the process is a server (``--serve``)."""
PREVIOUS_SUFFIX = ".previous.log"
"""The previous run's log: ``tank-battle.previous.log`` beside ``tank-battle.log``."""
STDERR_FORMAT = f"{PROGRAM}: %(levelname)s: %(message)s"
FILE_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"

_installed: list[logging.Handler] = []
"""The handlers :func:`configure_logging` added (taken back by the next call)."""
_notify_routing: list = []
"""While Panda3D's notify output is routed to the log file: [stream, previous stream]."""


class _LowerCaseLevels(logging.Formatter):
    """``warning:`` rather than ``WARNING:``, as compilers and most tools print it."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        return super().formatMessage(logging.makeLogRecord(
            {**record.__dict__, "levelname": record.levelname.lower()}))


def parse_level(text: str) -> str:
    """``text`` as a level name (any case); raises ValueError naming the choices."""
    name = text.strip().lower()
    if name not in LEVELS:
        raise ValueError(f"{text!r}: expected one of {', '.join(LEVELS)}")
    return name


def frozen_log_path(serving: bool = False, environ=None, platform: str | None = None,
                    home: Path | None = None) -> Path:
    """Where a packaged build logs: ``logs/tank-battle.log`` in the user's data folder
    (``TANK_BATTLE_DATA_HOME`` overrides the folder, as for replays), or
    ``tank-battle-server.log`` for a server (``serving``), which the game may have started
    while it logs to the first."""
    return user_folder("data", environ, platform, home) / LOG_FOLDER / LOG_NAMES[serving]


def default_log_file(serving: bool = False) -> Path | None:
    """The log file a run writes without ``--log-file``: a packaged build's, else none."""
    return frozen_log_path(serving) if is_frozen() else None


def previous_log_path(log_file: Path) -> Path:
    """Where :func:`configure_logging` keeps the previous run's log, when asked to."""
    return log_file.with_suffix(PREVIOUS_SUFFIX)


def configure_logging(level: str = DEFAULT_LEVEL, log_file: Path | None = None,
                      keep_previous: bool = False) -> Path | None:
    """Set up the game's loggers: stderr at ``level`` (a :data:`LEVELS` name) and, with
    ``log_file``, that file, started afresh (``keep_previous``: the last run's first moved
    to :func:`previous_log_path`). Calling it again replaces what the last call set up.
    Returns the log file in use: None where it could not be opened (that is said on
    stderr, and the game goes on without one)."""
    reset_logging()
    stderr_level = LEVELS[parse_level(level)]
    handlers: list[logging.Handler] = []
    if sys.stderr is not None:  # a packaged build without a console may have none
        console = logging.StreamHandler(sys.stderr)
        console.setLevel(stderr_level)
        console.setFormatter(_LowerCaseLevels(STDERR_FORMAT))
        handlers.append(console)
    file_handler = _file_handler(log_file, keep_previous) if log_file is not None else None
    if file_handler is not None:
        file_handler.setLevel(min(stderr_level, FILE_LEVEL))
        handlers.append(file_handler)
    for name in PACKAGES:
        logger = logging.getLogger(name)
        logger.setLevel(min((handler.level for handler in handlers), default=stderr_level))
        for handler in handlers:
            logger.addHandler(handler)
    _installed.extend(handlers)
    if file_handler is None or log_file is None:  # no file asked for, or none opened
        return None
    _route_panda_notify(Path(log_file))
    return Path(log_file)


def record_crash() -> None:
    """The exception being handled, with its traceback, into the log file (only there:
    the exception goes on to Python's own report on stderr). A double-clicked game that
    stops on a bug leaves the reason in its log."""
    logger = logging.getLogger(PACKAGES[0])
    record = logger.makeRecord(logger.name, logging.CRITICAL, __file__, 0,
                               "stopped on an unexpected error", (), sys.exc_info())
    for handler in _installed:
        if isinstance(handler, logging.FileHandler):
            handler.handle(record)


def reset_logging() -> None:
    """Take back what :func:`configure_logging` set up (tests call it between runs)."""
    _restore_panda_notify()
    for name in PACKAGES:
        logger = logging.getLogger(name)
        logger.setLevel(logging.NOTSET)
        for handler in _installed:
            logger.removeHandler(handler)
    for handler in _installed:
        if isinstance(handler, logging.FileHandler):
            handler.close()
    _installed.clear()


def _file_handler(path: Path, keep_previous: bool) -> logging.FileHandler | None:
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if keep_previous and path.exists():
            os.replace(path, previous_log_path(path))
        # Started empty, then appended to: Panda3D appends its lines to the same file.
        path.write_bytes(b"")
        handler = logging.FileHandler(path, mode="a", encoding="utf-8")
    except OSError as error:
        print(f"{PROGRAM}: no log file {path}: {error.strerror or error}", file=sys.stderr)
        return None
    handler.setFormatter(logging.Formatter(FILE_FORMAT))
    return handler


def _route_panda_notify(path: Path) -> None:
    """Panda3D's own messages into ``path`` as well as where they went (stderr). The
    stream is Panda's, opened to append, a line at a time, so its lines and Python's
    interleave whole. Undone at exit, before the stream is freed."""
    from panda3d.core import Filename, MultiplexStream, Notify
    stream = MultiplexStream()
    if not stream.addFile(Filename.fromOsSpecific(str(path))):
        logging.getLogger(__name__).warning("Panda3D's messages stay off the log file: "
                                            "%s could not be opened for them", path)
        return
    previous = Notify.ptr().getOstreamPtr()
    stream.addOstream(previous, False)
    Notify.ptr().setOstreamPtr(stream, False)
    _notify_routing[:] = [stream, previous]
    atexit.unregister(_restore_panda_notify)
    atexit.register(_restore_panda_notify)


def _restore_panda_notify() -> None:
    if _notify_routing:
        from panda3d.core import Notify
        Notify.ptr().setOstreamPtr(_notify_routing[1], False)
        _notify_routing.clear()
