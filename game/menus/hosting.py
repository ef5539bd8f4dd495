"""Host game: a dedicated server on this machine, run as a child process of the game's own
program (``--serve``), which this player then joins like any other.

A separate process keeps the server's fixed steps off the window's frames (and its
Python off the window's interpreter lock), and it is the same server ``--serve`` runs,
so a hosted game plays exactly as a dedicated one. Its first line on stdout, "serving
on HOST:PORT", says it is ready; two threads read its output so a frame never waits.
"""

from __future__ import annotations

import queue
import subprocess
import sys
import threading

from common.resources import is_frozen

READY_PREFIX = "serving on "
"""The server's first line (game/runs/online.py ``serve``)."""


class HostingFailed(Exception):
    """The server could not start (its own one-line reason)."""


def game_command(arguments: list[str]) -> list[str]:
    """The command line that runs this game's program with ``arguments``: a packaged build
    is its own program; otherwise this Python runs the ``game`` package, wherever it is
    installed."""
    if is_frozen():
        return [sys.executable, *arguments]
    return [sys.executable, "-m", "game", *arguments]


class HostedServer:
    """A server process started with ``arguments`` (``--serve`` and its match flags)."""

    def __init__(self, arguments: list[str], stop_wait_s: float):
        self.stop_wait_s = stop_wait_s
        self.process = subprocess.Popen(game_command(arguments), stdin=subprocess.DEVNULL,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        text=True, bufsize=1)
        self._lines: queue.Queue[str] = queue.Queue()
        self._errors: list[str] = []
        self.port: int | None = None
        threading.Thread(target=self._read, args=(self.process.stdout, self._lines.put),
                         daemon=True).start()
        threading.Thread(target=self._read, args=(self.process.stderr, self._errors.append),
                         daemon=True).start()

    @staticmethod
    def _read(stream, keep) -> None:
        for line in stream:
            keep(line.rstrip("\n"))

    def poll(self) -> int | None:
        """The port once the server says it serves (None until then); raises
        :class:`HostingFailed` with its last error line if it stopped."""
        while self.port is None:
            try:
                line = self._lines.get_nowait()
            except queue.Empty:
                break
            if line.startswith(READY_PREFIX):
                self.port = int(line.rpartition(":")[2])
        if self.process.poll() is not None:
            reason = self._errors[-1] if self._errors else f"it stopped ({self.process.returncode})"
            raise HostingFailed(reason.removeprefix("tank-battle: "))
        return self.port

    @property
    def running(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        """Ask the server to stop (it tells its players), and make sure it has."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(self.stop_wait_s)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
