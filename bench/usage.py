"""What this process has used, on Linux, macOS and Windows alike: its memory, and the
processor time of the child processes it has waited for.

The standard library has no portable call for either: ``resource`` exists on Unix only
(so it is imported inside the branch that runs there), and Windows answers through
``GetProcessMemoryInfo``.
"""

from __future__ import annotations

import ctypes
import os
import sys

BYTES_PER_MIB = 1024.0 * 1024.0
KIB_PER_MIB = 1024.0
PROC_STATUS = "/proc/self/status"
"""Linux's account of this process: its ``VmRSS:`` line is the memory resident now, in kB."""


class _MemoryCounters(ctypes.Structure):
    """Windows' PROCESS_MEMORY_COUNTERS (sizes in bytes)."""

    _fields_ = [("cb", ctypes.c_uint32), ("PageFaultCount", ctypes.c_uint32),
                ("PeakWorkingSetSize", ctypes.c_size_t), ("WorkingSetSize", ctypes.c_size_t),
                ("QuotaPeakPagedPoolUsage", ctypes.c_size_t),
                ("QuotaPagedPoolUsage", ctypes.c_size_t),
                ("QuotaPeakNonPagedPoolUsage", ctypes.c_size_t),
                ("QuotaNonPagedPoolUsage", ctypes.c_size_t),
                ("PagefileUsage", ctypes.c_size_t), ("PeakPagefileUsage", ctypes.c_size_t)]


def peak_memory_mb(platform: str | None = None) -> float:
    """The most memory this process has held resident so far, in MiB."""
    platform = sys.platform if platform is None else platform
    if platform == "win32":
        return _windows_counters().PeakWorkingSetSize / BYTES_PER_MIB
    import resource  # Unix only
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # ru_maxrss is in bytes on macOS, in KiB on Linux and the BSDs.
    return peak / BYTES_PER_MIB if platform == "darwin" else peak / KIB_PER_MIB


def resident_memory_mb(platform: str | None = None) -> float:
    """The memory this process holds resident now, in MiB (Linux, Windows); its peak where
    that is all the platform tells cheaply (macOS)."""
    platform = sys.platform if platform is None else platform
    if platform == "win32":
        return _windows_counters().WorkingSetSize / BYTES_PER_MIB
    if platform.startswith("linux"):
        try:
            with open(PROC_STATUS, encoding="ascii") as status:
                for line in status:
                    if line.startswith("VmRSS:"):
                        return float(line.split()[1]) / KIB_PER_MIB
        except OSError:
            pass
    return peak_memory_mb(platform)


def children_cpu_s(platform: str | None = None) -> float | None:
    """Processor seconds (user and system) of the child processes this one has waited for;
    None on Windows, which does not count them (``os.times`` gives zeros there)."""
    platform = sys.platform if platform is None else platform
    if platform == "win32":
        return None
    times = os.times()
    return times.children_user + times.children_system


def _windows_counters(psapi=None, kernel32=None) -> _MemoryCounters:
    """This process's memory counters from Windows (``psapi`` and ``kernel32``: the DLLs,
    or a test's stand-ins)."""
    if psapi is None:
        psapi, kernel32 = ctypes.WinDLL("psapi"), ctypes.WinDLL("kernel32")
    kernel32.GetCurrentProcess.restype = ctypes.c_void_p
    psapi.GetProcessMemoryInfo.argtypes = [ctypes.c_void_p, ctypes.POINTER(_MemoryCounters),
                                           ctypes.c_uint32]
    counters = _MemoryCounters()
    counters.cb = ctypes.sizeof(counters)
    if not psapi.GetProcessMemoryInfo(kernel32.GetCurrentProcess(), ctypes.byref(counters),
                                      counters.cb):
        raise OSError("GetProcessMemoryInfo failed")
    return counters
