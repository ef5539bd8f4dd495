"""What this process has used, on Linux, macOS and Windows alike: its memory, and the
processor time of the child processes it has waited for.

The standard library has no portable call for either: ``resource`` exists on Unix only
(so it is imported inside the branch that runs there), and Windows answers through
``GetProcessMemoryInfo``.
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys

BYTES_PER_MIB = 1024.0 * 1024.0
KIB_PER_MIB = 1024.0
PS_TIMEOUT_S = 5.0
PROC_STATUS = "/proc/{pid}/status"
"""Linux's account of a process: its ``VmRSS:`` line is the memory resident now, in kB."""
PROC_STAT = "/proc/{pid}/stat"
STAT_UTIME_FIELD = 11
"""utime's place among the fields of ``/proc/PID/stat`` after the name (stime follows)."""
PROCESS_QUERY_LIMITED_INFORMATION = 0x1000
"""Windows' right to read another process's memory counters."""


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
        resident = _linux_resident_mb("self")
        if resident is not None:
            return resident
    return peak_memory_mb(platform)


def process_memory_mb(pid: int, platform: str | None = None) -> float | None:
    """The memory another process (``pid``) holds resident now, in MiB; None where it has
    ended or cannot be read."""
    platform = sys.platform if platform is None else platform
    if platform == "win32":
        try:
            return _windows_counters(pid=pid).WorkingSetSize / BYTES_PER_MIB
        except OSError:
            return None
    if platform.startswith("linux"):
        return _linux_resident_mb(str(pid))
    try:  # macOS and the BSDs: ps tells the resident size in KiB
        answer = subprocess.run(["ps", "-o", "rss=", "-p", str(pid)], capture_output=True,
                                text=True, timeout=PS_TIMEOUT_S, check=False)
        return float(answer.stdout.split()[0]) / KIB_PER_MIB
    except (OSError, subprocess.SubprocessError, ValueError, IndexError):
        return None


def process_cpu_s(pid: int, platform: str | None = None) -> float | None:
    """Processor seconds (user and system) another process (``pid``) has used so far; None
    where it has ended, or off Linux (read from ``/proc/PID/stat``)."""
    platform = sys.platform if platform is None else platform
    if not platform.startswith("linux"):
        return None
    try:
        with open(PROC_STAT.format(pid=pid), encoding="ascii") as stat:
            # The name (field 2) may hold spaces: the fields after its closing bracket.
            after_name = stat.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    ticks = int(after_name[STAT_UTIME_FIELD]) + int(after_name[STAT_UTIME_FIELD + 1])
    return ticks / os.sysconf("SC_CLK_TCK")


def _linux_resident_mb(pid: str) -> float | None:
    try:
        with open(PROC_STATUS.format(pid=pid), encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return float(line.split()[1]) / KIB_PER_MIB
    except OSError:
        pass
    return None


def children_cpu_s(platform: str | None = None) -> float | None:
    """Processor seconds (user and system) of the child processes this one has waited for;
    None on Windows, which does not count them (``os.times`` gives zeros there)."""
    platform = sys.platform if platform is None else platform
    if platform == "win32":
        return None
    times = os.times()
    return times.children_user + times.children_system


def machine_load(children_before_s: float | None, children_after_s: float | None,
                 wall_s: float) -> float | None:
    """The share of the machine's processors the children waited for between two readings
    of :func:`children_cpu_s` kept busy over ``wall_s``: near 1, they waited on each other
    for it (None on Windows, which does not count them)."""
    if children_before_s is None or children_after_s is None:
        return None
    return round((children_after_s - children_before_s) / (wall_s * (os.cpu_count() or 1)), 2)


def _windows_counters(psapi=None, kernel32=None, pid: int | None = None) -> _MemoryCounters:
    """The memory counters of this process (or of ``pid``) from Windows (``psapi`` and
    ``kernel32``: the DLLs, or a test's stand-ins)."""
    if psapi is None:
        psapi, kernel32 = ctypes.WinDLL("psapi"), ctypes.WinDLL("kernel32")
    kernel32.GetCurrentProcess.restype = ctypes.c_void_p
    kernel32.OpenProcess.restype = ctypes.c_void_p
    psapi.GetProcessMemoryInfo.argtypes = [ctypes.c_void_p, ctypes.POINTER(_MemoryCounters),
                                           ctypes.c_uint32]
    handle = (kernel32.GetCurrentProcess() if pid is None else
              kernel32.OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, False, pid))
    if not handle:
        raise OSError(f"process {pid} cannot be opened")
    counters = _MemoryCounters()
    counters.cb = ctypes.sizeof(counters)
    try:
        if not psapi.GetProcessMemoryInfo(handle, ctypes.byref(counters), counters.cb):
            raise OSError("GetProcessMemoryInfo failed")
    finally:
        if pid is not None:
            kernel32.CloseHandle(handle)
    return counters
