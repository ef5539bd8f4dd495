"""numba where the platform has it. numpy's cost is per call, so the few per-anchor and
per-sample loops that run every step with small arrays are compiled with numba instead;
without it (a platform numba does not support) each use falls back as it says.

Compiled loops are cached on disk, so that only the first start pays for compiling them.
Where numba cannot cache (a packaged build: its frozen modules have no source file for
numba to key a cache by, and ``cache=True`` raises RuntimeError as the loop is decorated)
every loop takes its plain-Python path rather than compiling afresh at every start.
:func:`log_status` says in one log line which path runs.

numba keys a cached loop by its own file only: after editing a function it calls that
lives in another module (a stage, :mod:`physics.model.scalars`, ``plane_under``), delete
the caches (``find physics game -name '*.nb[ic]' -delete``) or the loop runs the old one.
"""

from __future__ import annotations

import logging
from typing import Any, Callable

log = logging.getLogger(__name__)


def _numba_njit() -> Callable[..., Any] | None:
    """numba's ``njit`` decorator, or None where numba is not installed."""
    try:
        from numba import njit
    except ImportError:
        return None
    return njit


njit = _numba_njit()


def _probe() -> None:
    """A loop that is decorated, never compiled: whether numba can cache here."""


def plain_reason(decorator=None) -> str | None:
    """Why the loops run as plain Python (numba missing, or unable to cache its compiled
    loops); None when they are compiled. ``decorator``: numba's ``njit`` (a test's stand-in)."""
    decorator = njit if decorator is None else decorator
    if decorator is None:
        return "numba is not installed"
    try:
        decorator(cache=True, nogil=True)(_probe)
    except RuntimeError as error:
        return f"numba cannot cache compiled loops here ({error})"
    return None


PLAIN_REASON = plain_reason()
AVAILABLE = PLAIN_REASON is None
"""Whether loops are compiled: numba is installed and can cache them."""


_OPTIONS = {"nogil": True, "error_model": "numpy"}
"""Every compiled loop's options. ``error_model="numpy"``: a division is not checked for a
zero divisor first (a branch in every division of the per-anchor loop, a tenth of its
time); a zero divisor gives an infinity or NaN, as in numpy, which the fleet's and the
simulation's guards catch like any non-finite state, where Python's model would raise."""


LOOPS: list = []
"""Every compiled loop made (numba's dispatchers), for :func:`load_cached`."""
_LOADED_UP_TO = 0
"""How many of :data:`LOOPS` :func:`load_cached` has gone through."""


def compiled(function, *, inline: bool = False):
    """``function`` compiled to machine code (cached on disk beside its module) where numba
    is installed and can cache; None where not. ``inline``: a stage of a compiled loop,
    compiled into each loop that calls it rather than on its own."""
    if not AVAILABLE or njit is None:
        return None
    if inline:
        return njit(inline="always", **_OPTIONS)(function)
    loop = njit(cache=True, **_OPTIONS)(function)
    LOOPS.append(loop)
    return loop


def load_cached() -> int:
    """Load, now, every version of every compiled loop imported so far that its disk
    cache holds for this machine; how many. A loop is otherwise loaded the first time it
    is called, a few milliseconds each, and some are first called well into a battle (the
    first crater, the first shell near a hull): a hitch in that frame. Reads numba's own
    cache index (numba keeps no public way to list it): on a numba that lays it out
    otherwise this loads nothing, and the loops load as they are first called, as before."""
    global _LOADED_UP_TO
    loaded = 0
    if _LOADED_UP_TO == len(LOOPS):
        return 0  # no loop made since the last time
    loops, _LOADED_UP_TO = list(LOOPS[_LOADED_UP_TO:]), len(LOOPS)
    for loop in loops:
        try:
            magic = loop.targetctx.codegen().magic_tuple()
            index = loop._cache._cache_file._load_index()
            signatures = [key[0] for key in index if key[1] == magic]
        except (AttributeError, TypeError, IndexError, OSError, ValueError):
            continue
        for signature in signatures:
            if tuple(signature) in loop.overloads:
                continue
            try:
                loop.compile(signature)
            except Exception as error:  # noqa: BLE001 - a stale entry: it loads when called
                log.debug("compiled loop %s not loaded ahead: %s", loop.__name__, error)
                continue
            loaded += 1
    return loaded


def compiled_loop(function):
    """Decorator: ``function`` as a compiled loop where numba compiles (:func:`compiled`),
    else the plain function, which runs the same numbers slower."""
    return compiled(function) or function


def compiled_stage(function):
    """Decorator: ``function`` as a stage that each compiled loop calling it inlines where
    numba compiles, else the plain function."""
    return compiled(function, inline=True) or function


def log_status() -> None:
    """One line on whether the loops are compiled or run as plain Python."""
    if AVAILABLE:
        import numba
        log.info("numba %s: compiled loops, cached on disk", numba.__version__)
    else:
        log.info("%s: the loops run as plain Python (slower battles)", PLAIN_REASON)
