"""numba where the platform has it. numpy's cost is per call, so the few per-anchor and
per-sample loops that run every step with small arrays are compiled with numba instead;
without it (a platform numba does not support) each use falls back as it says.

Compiled loops are cached on disk, so that only the first start pays for compiling them:
beside their modules in the repository (numba's own cache), and in the player's cache
folder in a packaged build, whose frozen modules have no source file for numba to key a
cache by (:class:`FrozenCacheLocator`, keyed by the build's executable instead). Where
numba cannot cache even so (a cache folder that cannot be written), ``cache=True`` raises
RuntimeError as the loop is decorated, and every loop takes its plain-Python path rather
than compiling afresh at every start. :func:`log_status` says in one log line which path
runs.

numba keys a cached loop by its own file only: after editing a function it calls that
lives in another module (a stage, :mod:`physics.model.scalars`, ``plane_under``), delete
the caches (``find physics game -name '*.nb[ic]' -delete``) or the loop runs the old one.
"""

from __future__ import annotations

import hashlib
import logging
import os
import sys
from pathlib import Path
from typing import Any, Callable

from common.resources import read_frozen_resources_from_libraries_folder
from common.settings import user_folder

log = logging.getLogger(__name__)

FROZEN = bool(getattr(sys, "frozen", False))
"""A packaged build: Panda3D's ``build_apps`` sets ``sys.frozen``."""
if FROZEN:  # llvmlite finds its LLVM library as a resource of its package
    read_frozen_resources_from_libraries_folder()


def _numba_njit() -> tuple[Callable[..., Any] | None, str | None]:
    """numba's ``njit`` decorator, or None and why not (not installed, or installed but
    it could not be loaded: a build missing a piece of it, say)."""
    try:
        from numba import njit
    except ImportError as error:
        missing = getattr(error, "name", None) == "numba"
        return None, ("numba is not installed" if missing
                      else f"numba could not be loaded ({error})")
    except OSError as error:  # llvmlite without its LLVM library
        return None, f"numba could not be loaded ({error})"
    return njit, None


njit, _NOT_LOADED = _numba_njit()


def build_stamp(executable: str | None = None) -> tuple[int, int]:
    """Which packaged build this is: its executable's size and time (a new build is
    another executable, and every frozen module is inside it)."""
    stat = os.stat(sys.executable if executable is None else executable)
    return stat.st_size, stat.st_mtime_ns


def frozen_cache_folder() -> Path:
    """Where a packaged build keeps its compiled loops: the player's cache folder, one
    folder per Python version (a build's Python is fixed; this keeps two apart)."""
    return user_folder("cache") / "numba" / f"python{sys.version_info[0]}{sys.version_info[1]}"


def _frozen_locator_class():
    """numba's cache locator for a packaged build (:class:`FrozenCacheLocator`); None where
    numba lays its caching out otherwise (then a build runs the plain path)."""
    try:
        from numba.core.caching import _CacheLocator
    except ImportError:
        return None

    class FrozenCacheLocator(_CacheLocator):
        """Caches a loop of a frozen module in :func:`frozen_cache_folder`, a folder a
        module. numba keys a cache by the loop's source file, which a frozen program does
        not have: the executable, which holds every frozen module, stands in for it, so a
        new build (another executable) finds the old build's cache stale and compiles
        afresh."""

        stamp_file = sys.executable
        """The file whose size and time say which build wrote a cache (tests set another)."""

        def __init__(self, py_func, _py_file: str):
            self._lineno = py_func.__code__.co_firstlineno
            self._cache_path = str(frozen_cache_folder() / py_func.__module__)

        def get_cache_path(self) -> str:
            return self._cache_path

        def get_source_stamp(self):
            return build_stamp(self.stamp_file)

        def get_disambiguator(self) -> str:
            return str(self._lineno)

        @classmethod
        def from_function(cls, py_func, py_file):
            if not getattr(sys, "frozen", False):
                return None
            locator = cls(py_func, py_file)
            try:
                locator.ensure_cache_path()
            except OSError:
                return None  # nowhere to write: numba says it cannot cache
            return locator

    return FrozenCacheLocator


def numba_locators() -> list | None:
    """numba's list of cache locator classes, tried in turn for each cached loop (None
    where numba keeps it elsewhere: its caching internals are not public, and the class
    holding them was ``_CacheImpl`` before numba 0.62, ``CacheImpl`` since)."""
    try:
        from numba.core import caching
    except ImportError:
        return None
    holder = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)
    locators = getattr(holder, "_locator_classes", None)
    return locators if isinstance(locators, list) else None


def use_frozen_locator() -> bool:
    """Put :class:`FrozenCacheLocator` first among numba's cache locators; whether it is
    there (another layout of numba's internals leaves it out: the plain path runs)."""
    locator, locators = _frozen_locator_class(), numba_locators()
    if locator is None or locators is None:
        return False
    if not any(known.__name__ == locator.__name__ for known in locators):
        locators.insert(0, locator)
    return True


if FROZEN and njit is not None:
    use_frozen_locator()


def _probe() -> None:
    """A loop that is decorated, never compiled: whether numba can cache here."""


def plain_reason(decorator=None) -> str | None:
    """Why the loops run as plain Python (numba missing, or unable to cache its compiled
    loops); None when they are compiled. ``decorator``: numba's ``njit`` (a test's stand-in)."""
    decorator = njit if decorator is None else decorator
    if decorator is None:
        return _NOT_LOADED or "numba is not installed"
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


def load_cached(from_start: bool = False) -> int:
    """Load, now, every version of every compiled loop imported so far that its disk
    cache holds for this machine; how many. A loop is otherwise loaded the first time it
    is called, a few milliseconds each, and some are first called well into a battle (the
    first crater, the first shell near a hull): a hitch in that frame. Reads numba's own
    cache index (numba keeps no public way to list it): on a numba that lays it out
    otherwise this loads nothing, and the loops load as they are first called, as before.
    ``from_start``: look again at every loop, not only those made since the last call."""
    global _LOADED_UP_TO
    loaded = 0
    if from_start:  # the cache was filled since (by --prepare): every loop looks again
        _LOADED_UP_TO = 0
    if _LOADED_UP_TO == len(LOOPS):
        return 0  # no loop made since the last time
    loops, _LOADED_UP_TO = list(LOOPS[_LOADED_UP_TO:]), len(LOOPS)
    for loop in loops:
        try:
            magic = loop.targetctx.codegen().magic_tuple()
            cache_file = loop._cache._cache_file
        except (AttributeError, TypeError):
            continue
        try:
            index = cache_file._load_index()
        except Exception as error:  # noqa: BLE001 - a file cut short or garbled: numba
            _forget_index(loop, cache_file, error)  # would fail on the loop's first call
            continue
        try:
            signatures = [key[0] for key in index if key[1] == magic]
        except (TypeError, IndexError):
            continue
        for signature in signatures:
            if tuple(signature) in loop.overloads:
                continue
            try:
                loop.compile(signature)
            except Exception as error:  # noqa: BLE001 - a data file cut short or garbled:
                _forget_index(loop, cache_file, error)  # it would fail again when called
                break
            loaded += 1
    return loaded


def _forget_index(loop, cache_file, error: Exception) -> None:
    """Delete a cache index that cannot be read, so that the loop compiles afresh (and
    writes a good one) instead of failing when it is first called."""
    path = getattr(cache_file, "_index_path", None)
    try:
        if path is not None:
            os.remove(path)
    except OSError:
        pass
    log.warning("compiled loop %s: its cache %s could not be read (%s); compiled afresh",
                loop.__name__, path, error)


PREPARE_ENV = "TANK_BATTLE_PREPARE"
"""Set to 0 to start without preparing a missing cache (the test suite's games compile as
they go, sharing one cache)."""
PREPARED_FOLDER = "prepared"
SOURCE_PACKAGES = ("common", "physics", "game")
"""The packages whose modules hold or feed the compiled loops (a checkout's code identity)."""


def code_identity() -> str:
    """Which code the loops were compiled from: a build (:func:`build_stamp`, as
    :class:`FrozenCacheLocator` keys the cache), or a digest of a checkout's modules."""
    if FROZEN:
        return "build {} {}".format(*build_stamp())
    digest = hashlib.sha256()
    root = Path(__file__).resolve().parents[1]
    for package in SOURCE_PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return f"source {digest.hexdigest()}"


def prepared_marker() -> Path:
    """The file :func:`mark_prepared` writes once every loop a game calls is compiled and
    cached here: named by what the cache holds (numba's and Python's versions, this
    machine's processor, the code, where numba caches), so a change to any is a cache to
    prepare again."""
    import llvmlite.binding as llvm
    import numba
    identity = "\n".join((numba.__version__, sys.version, llvm.get_host_cpu_name(),
                          llvm.get_host_cpu_features().flatten(), code_identity(),
                          os.environ.get("NUMBA_CACHE_DIR", "")))
    name = hashlib.sha256(identity.encode()).hexdigest()[:32]
    return user_folder("cache") / PREPARED_FOLDER / f"{name}.prepared"


def needs_preparing(environ=None) -> bool:
    """Whether the compiled loops' cache is missing or stale here, so a game would compile
    its loops as it plays (a hitch each, for a minute): not where the loops run as plain
    Python, nor where ``TANK_BATTLE_PREPARE=0`` says to compile as they come."""
    environ = os.environ if environ is None else environ
    if not AVAILABLE or environ.get(PREPARE_ENV) == "0":
        return False
    try:
        return not prepared_marker().exists()
    except OSError:
        return False


def mark_prepared() -> None:
    """Every loop the games call is compiled and cached: later starts need not prepare."""
    marker = prepared_marker()
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.write_text(f"{len([loop for loop in LOOPS if loop.signatures])} loops\n",
                          encoding="utf-8")
    except OSError as error:
        log.warning("%s: not written (%s); the next start prepares again", marker, error)


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
