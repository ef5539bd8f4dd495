"""numba where the platform has it. numpy's cost is per call, so the few per-anchor and
per-sample loops that run every step with small arrays are compiled with numba instead;
without it (a platform numba does not support) each use falls back as it says.

numba keys a cached loop by its own file only: after editing a function it calls that
lives in another module (a stage, :mod:`physics.model.scalars`, ``plane_under``), delete
the caches (``find physics game -name '*.nb[ic]' -delete``) or the loop runs the old one.
"""

from __future__ import annotations

try:
    from numba import njit
except ImportError:
    njit = None

AVAILABLE = njit is not None


def compiled(function, *, inline: bool = False):
    """``function`` compiled to machine code (cached on disk beside its module) where numba
    is installed; None where it is not. ``inline``: a stage of a compiled loop, compiled
    into each loop that calls it rather than on its own."""
    if not AVAILABLE:
        return None
    if inline:
        return njit(inline="always", nogil=True)(function)
    return njit(cache=True, nogil=True)(function)
