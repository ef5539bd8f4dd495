"""A numba cache for the tests' own source: the suite always runs the code as it is.

numba keys a cached loop by its own file's time stamp only. A loop that calls a stage in
another module (an inlined stage, a scalar helper) keeps running the old stage from its
cache after that module is edited, so a green run could have tested old compiled code.
The suite's cache is therefore a folder of its own, named by a digest of every source
file the compiled loops can reach (``physics/`` and ``game/``): any edit gives a new,
empty folder, where every loop is compiled afresh, once, and shared by the suite's
subprocesses (they inherit the environment). Older folders beyond the newest few go.

A ``NUMBA_CACHE_DIR`` set by hand is left as it is.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

SOURCE_FOLDERS = ("physics", "game")
KEEP_FOLDERS = 3
"""Folders of earlier sources kept (switching between branches reuses them)."""


def source_digest(repo_root: Path) -> str:
    """sha256 of every ``.py`` file under the source folders: their paths and bytes."""
    digest = hashlib.sha256()
    for folder in SOURCE_FOLDERS:
        for path in sorted((repo_root / folder).rglob("*.py")):
            digest.update(path.relative_to(repo_root).as_posix().encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def use_cache_of_this_source(repo_root: Path) -> Path | None:
    """Set ``NUMBA_CACHE_DIR`` (before numba is imported) to this source's folder under
    ``.pytest_cache/numba``, and drop all but the newest ``KEEP_FOLDERS`` others. None
    when the variable was set already."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return None
    caches = repo_root / ".pytest_cache" / "numba"
    folder = caches / source_digest(repo_root)
    folder.mkdir(parents=True, exist_ok=True)
    folder.touch()  # the newest, by its time stamp
    others = sorted((path for path in caches.iterdir() if path.is_dir() and path != folder),
                    key=lambda path: path.stat().st_mtime, reverse=True)
    for old in others[KEEP_FOLDERS - 1:]:
        shutil.rmtree(old, ignore_errors=True)
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    return folder
