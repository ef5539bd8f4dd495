"""What keeps the game, the bench and the tests running on Windows and macOS: no Unix-only
module imported where every platform imports it, memory and processor time measured
portably (bench/usage.py), and the core-profile OpenGL context macOS needs."""

from __future__ import annotations

import ast
import ctypes
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from panda3d.core import ConfigVariableInt, unloadPrcFile

from bench import usage
from game.view.window import GL_VERSION, configure_window

REPO_ROOT = Path(__file__).resolve().parents[1]
SCANNED = ("game", "physics", "bench", "tests", "tools")
UNIX_ONLY = frozenset({"resource", "fcntl", "termios", "pwd", "grp", "posix", "tty", "pty",
                       "crypt", "spwd", "syslog", "nis", "readline"})
"""Standard modules Windows does not have."""


def _imports_at_import_time(tree: ast.Module):
    """The modules a file imports as it is imported: every import outside a function
    (a function imports when it runs, on the platform whose branch it is in)."""
    pending = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module
        pending.extend(ast.iter_child_nodes(node))


def test_no_unix_only_module_is_imported_at_import_time():
    found = []
    for folder in SCANNED:
        for path in sorted((REPO_ROOT / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
            found += [f"{path.relative_to(REPO_ROOT)}: {name}"
                      for name in _imports_at_import_time(tree)
                      if name.split(".")[0] in UNIX_ONLY]
    assert not found, "Unix-only imports: " + ", ".join(found)


def test_the_scan_sees_imports_in_classes_and_branches_but_not_in_functions():
    tree = ast.parse("import os\nif True:\n    import fcntl\nclass A:\n    import pwd\n"
                     "def f():\n    import resource\n")
    assert set(_imports_at_import_time(tree)) == {"os", "fcntl", "pwd"}


# ----- memory and processor time --------------------------------------------------------------


def test_memory_is_a_plausible_number_of_mib():
    peak = usage.peak_memory_mb()
    assert 1.0 < usage.resident_memory_mb() <= peak * 1.01 + 1.0
    assert peak < 1024.0 * 1024.0  # MiB, not KiB or bytes


@pytest.mark.skipif(sys.platform == "win32", reason="resource is Unix-only")
def test_peak_memory_reads_ru_maxrss_in_the_platforms_unit(monkeypatch):
    import resource
    monkeypatch.setattr(resource, "getrusage",
                        lambda _who: type("Usage", (), {"ru_maxrss": 300 * 1024 * 1024}))
    assert usage.peak_memory_mb("darwin") == pytest.approx(300.0)  # bytes on macOS
    assert usage.peak_memory_mb("linux") == pytest.approx(300.0 * 1024.0)  # KiB on Linux


def _fake_windows_dlls(closed: list | None = None):
    """psapi and kernel32 as Windows answers: the memory counters of this process and of
    process 42 filled in (``closed`` gets each handle closed)."""
    def get_process_memory_info(process, counters, size):
        assert size == ctypes.sizeof(usage._MemoryCounters)
        mib = {"this process": 256, "process 42": 64}[process]
        counters._obj.PeakWorkingSetSize = 2 * mib * 1024 * 1024
        counters._obj.WorkingSetSize = mib * 1024 * 1024
        return 1

    def open_process(access, _inherit, pid):
        assert access == usage.PROCESS_QUERY_LIMITED_INFORMATION
        return "process 42" if pid == 42 else None

    return (SimpleNamespace(GetProcessMemoryInfo=get_process_memory_info),
            SimpleNamespace(GetCurrentProcess=lambda: "this process", OpenProcess=open_process,
                            CloseHandle=(closed if closed is not None else []).append))


def test_windows_memory_comes_from_the_process_memory_counters(monkeypatch):
    counters = usage._windows_counters(*_fake_windows_dlls())
    assert counters.PeakWorkingSetSize / usage.BYTES_PER_MIB == 512.0
    monkeypatch.setattr(usage, "_windows_counters", lambda: counters)
    assert usage.peak_memory_mb("win32") == 512.0
    assert usage.resident_memory_mb("win32") == 256.0


def test_windows_reads_another_process_s_memory_through_its_handle(monkeypatch):
    closed: list = []
    dlls, real = _fake_windows_dlls(closed), usage._windows_counters
    monkeypatch.setattr(usage, "_windows_counters", lambda pid=None: real(*dlls, pid=pid))
    assert usage.process_memory_mb(42, "win32") == 64.0
    assert closed == ["process 42"]
    assert usage.process_memory_mb(7, "win32") is None  # it cannot be opened (ended)


@pytest.mark.parametrize("platform", [sys.platform, "darwin"])
def test_another_process_s_resident_memory_is_read(platform):
    if sys.platform == "win32" and platform == "darwin":
        pytest.skip("ps is not there to ask")
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time; held = bytearray("
                               "96 * 1024 * 1024); print('held', flush=True); time.sleep(60)"],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        resident = usage.process_memory_mb(holder.pid, platform)
        assert 96.0 <= resident < 1024.0
    finally:
        holder.kill()
        holder.wait()
    assert usage.process_memory_mb(holder.pid, sys.platform) is None  # it has ended


def test_childrens_processor_time_counts_waited_children():
    before_s = usage.children_cpu_s()
    if sys.platform == "win32":
        assert before_s is None
        return
    subprocess.run([sys.executable, "-c", "sum(range(3_000_000))"], check=True)
    assert usage.children_cpu_s() > before_s
    assert usage.children_cpu_s("win32") is None


# ----- OpenGL ---------------------------------------------------------------------------------


@pytest.mark.parametrize("offscreen", [False, True])
def test_the_window_asks_for_a_core_profile_context(config, offscreen):
    page = configure_window(config.view.window, offscreen)
    try:
        assert GL_VERSION >= (3, 2)
        variable = ConfigVariableInt("gl-version")
        assert (variable.getWord(0), variable.getWord(1)) == GL_VERSION
    finally:
        unloadPrcFile(page)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="read from /proc on Linux")
def test_another_process_s_processor_time_is_read():
    busy = subprocess.Popen([sys.executable, "-c", "import time; started = time.process_time()"
                             "\nwhile time.process_time() - started < 0.5: pass\n"
                             "print('done', flush=True); time.sleep(60)"],
                            stdout=subprocess.PIPE, text=True)
    try:
        assert busy.stdout.readline().strip() == "done"
        assert 0.5 <= usage.process_cpu_s(busy.pid) < 30.0
    finally:
        busy.kill()
        busy.wait()
    assert usage.process_cpu_s(busy.pid) is None  # it has ended
    assert usage.process_cpu_s(busy.pid, "darwin") is None
