"""numba where the platform has it. numpy's cost is per call, so the few per-anchor and
per-sample loops that run every step with small arrays are compiled with numba instead;
without it (a platform numba does not support) each use falls back as it says."""

from __future__ import annotations

try:
    from numba import njit
except ImportError:
    njit = None

AVAILABLE = njit is not None


def compiled(function):
    """``function`` compiled to machine code (cached on disk beside its module) where numba
    is installed; None where it is not."""
    return njit(cache=True, nogil=True)(function) if AVAILABLE else None
