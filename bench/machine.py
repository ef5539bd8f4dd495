"""What a benchmark ran on: enough to tell two runs' machines and versions apart."""

from __future__ import annotations

import os
import platform
import sys

import numpy as np
import panda3d

from common import compiled


def machine_info() -> dict:
    return {
        "python": platform.python_version(),
        "python_implementation": platform.python_implementation(),
        "numpy": np.__version__,
        "panda3d": panda3d.__version__,
        "numba": _numba_version(),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "executable": sys.executable,
    }


def _numba_version() -> str | None:
    """numba's version, or None where it is missing (the loops then run uncompiled)."""
    if not compiled.AVAILABLE:
        return None
    import numba
    return numba.__version__
