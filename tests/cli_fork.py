"""``python main.py ARGS`` forked from a process that has imported the game already.

A fresh interpreter spends most of a second importing numpy, numba, Panda3D and the game
before a run begins: most of the time of a run the game refuses (a bad flag, a bad file:
one line on stderr, exit status 2), and a good part of a short one. :class:`ForkedCli`
starts one interpreter, the same as ``run_cli``'s (the same Python, flags and environment,
the repository as its script folder), that imports :mod:`game.cli` and then waits. For
each run it forks: the child takes ``/dev/null`` as its stdin and files of the caller's as
its stdout and stderr, moves to the run's folder, sets ``sys.argv`` and runs main.py as
``__main__``, and ends as that interpreter would (its exit status, a traceback and status
1 for an uncaught exception, a signal's negative status); its environment is the
caller's, which must be the server's but for the test's name. Every run is a process of
its own, forked from the same untouched state: nothing one run does reaches another.

What a fork cannot give is a fresh interpreter's own hash seed, so runs whose output is
compared across processes (determinism, replays) keep ``run_cli``.
"""

from __future__ import annotations

import atexit
import json
import os
import select
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.conftest import CLI_TIMEOUT_S, MAIN, REPO_ROOT, cli_env

SERVER = """
import json, os, runpy, sys
sys.path[0] = sys.argv[1]
main = sys.argv[2]
import game.cli  # noqa: F401 (the imports every run shares)
while True:
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)
    run = json.loads(line)
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        break
    print(json.dumps({"pid": pid}), flush=True)
    _, status = os.waitpid(pid, 0)
    print(json.dumps({"status": os.waitstatus_to_exitcode(status)}), flush=True)
for fd, (path, flags) in enumerate([(os.devnull, os.O_RDONLY),
                                    (run["out"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
                                    (run["err"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)]):
    opened = os.open(path, flags)
    os.dup2(opened, fd)
    os.close(opened)
os.chdir(run["cwd"])
os.environ.clear()
os.environ.update(run["env"])
if run["module"] is None:
    sys.argv = [main, *run["args"]]
    runpy.run_path(main, run_name="__main__")
else:  # python -m MODULE: run_module puts the module's file first in sys.argv
    sys.argv = [run["module"], *run["args"]]
    runpy.run_module(run["module"], run_name="__main__", alter_sys=True)
"""


CHANGING = "PYTEST_CURRENT_TEST"
"""pytest sets it anew for every test: the child gets the caller's (as a fresh process
would), and only it may differ from the server's."""


class ForkedCli:
    """The server that forks the runs; :meth:`run` is ``run_cli`` for one of them."""

    def __init__(self) -> None:
        self.env = cli_env()
        self.process = subprocess.Popen([sys.executable, "-c", SERVER, str(REPO_ROOT),
                                         str(MAIN)], cwd=REPO_ROOT, env=self.env,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        bufsize=0)  # unbuffered: select() sees every line
        self.folder = Path(tempfile.mkdtemp(prefix="tank-battle-forked-"))

    def run(self, *args, timeout: float = CLI_TIMEOUT_S, cwd: Path | None = None,
            module: str | None = None) -> subprocess.CompletedProcess:
        """``python main.py ARGS`` (``python -m MODULE ARGS`` with ``module``) in ``cwd``
        (the repository unless given), forked."""
        assert self.process.stdin is not None and self.process.stdout is not None
        out, err = self.folder / "out", self.folder / "err"
        argv = [str(arg) for arg in args]
        run = {"args": argv, "cwd": str(cwd or REPO_ROOT), "env": cli_env(), "out": str(out),
               "err": str(err), "module": module}
        command = [sys.executable, *(["-m", module] if module else [str(MAIN)]), *argv]
        self.process.stdin.write(json.dumps(run).encode() + b"\n")
        pid = json.loads(self.process.stdout.readline())["pid"]
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        if not ready:
            os.kill(pid, 9)
            self.process.stdout.readline()
            raise subprocess.TimeoutExpired(command, timeout)
        status = json.loads(self.process.stdout.readline())["status"]
        return subprocess.CompletedProcess(command, status, out.read_text(), err.read_text())

    def serves(self, env: dict[str, str]) -> bool:
        """Whether a run in ``env`` is one this server's child runs as a fresh process would:
        the same environment as the server's, but for the name of the test under way."""
        def lasting(env: dict[str, str]) -> dict[str, str]:
            return {name: value for name, value in env.items() if name != CHANGING}
        return lasting(env) == lasting(self.env)

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=CLI_TIMEOUT_S)
        for path in self.folder.iterdir():
            path.unlink()
        self.folder.rmdir()


_SHARED: list[ForkedCli] = []


def forked_run(*args, timeout: float = CLI_TIMEOUT_S, env: dict[str, str] | None = None,
               cwd: Path | None = None, module: str | None = None
               ) -> subprocess.CompletedProcess:
    """A run forked from this test process's one server (started at the first); a fresh
    process where ``env`` is given or the environment is no longer the server's."""
    if env is not None or (_SHARED and not _SHARED[0].serves(cli_env())):
        command = [sys.executable, *(["-m", module] if module else [str(MAIN)])]
        return subprocess.run([*command, *map(str, args)], cwd=cwd or REPO_ROOT,
                              env=env or cli_env(), capture_output=True, text=True,
                              timeout=timeout)
    if not _SHARED:
        _SHARED.append(ForkedCli())
        atexit.register(_SHARED[0].close)
    return _SHARED[0].run(*args, timeout=timeout, cwd=cwd, module=module)
