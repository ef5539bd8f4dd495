"""The packaged builds' archives (``make dist PLATFORMS=all`` leaves them in ``dist/``):
each holds numba's compiled modules, llvmlite frozen into the executable, and llvmlite's
LLVM library beside it, where llvmlite looks for it in a frozen program.

Building the three archives takes minutes and the package index, so the suite does not
build them: a platform whose archive is not in ``dist/`` is skipped, saying so.
"""

from __future__ import annotations

import tarfile
import zipfile
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT
from tools import build_apps

DIST = REPO_ROOT / "dist"
LIBRARIES = dict(zip(("linux", "windows", "macos"), build_apps.LLVM_LIBRARIES))
EXECUTABLES = {"linux": "tank-battle", "windows": "tank-battle.exe", "macos": "tank-battle"}
FROZEN_NAMES = (b"llvmlite.binding.ffi", b"numba.core.caching", b"common.compiled")
"""Modules frozen into the executable, found by name in its module table."""


def _archive(name: str) -> Path:
    tag = build_apps.PLATFORMS[name][0]
    found = sorted(DIST.glob(f"*_{tag}.*")) if DIST.is_dir() else []
    if not found:
        pytest.skip(f"no {tag} archive in dist/ (make dist PLATFORMS={name})")
    return found[-1]


def _members(archive: Path) -> dict[str, object]:
    """Each file's path in ``archive`` and a way to read it."""
    if archive.suffix == ".zip":
        packed = zipfile.ZipFile(archive)
        return {name: (lambda name=name: packed.read(name)) for name in packed.namelist()}
    tarred = tarfile.open(archive)
    return {member.name: (lambda member=member: tarred.extractfile(member).read())
            for member in tarred.getmembers() if member.isfile()}


@pytest.mark.parametrize("name", list(build_apps.PLATFORMS))
def test_each_archive_holds_numba_llvmlite_and_the_llvm_library(name):
    members = _members(_archive(name))
    basenames = {path.rsplit("/", 1)[-1]: path for path in members}
    assert any(base.startswith("numba._dispatcher") for base in basenames), "numba's modules"
    library = basenames.get(LIBRARIES[name])
    assert library is not None, f"{LIBRARIES[name]} is not in the archive"
    executable = basenames[EXECUTABLES[name]]
    # Where llvmlite reads it (a resource of its frozen package): beside the executable,
    # or in a macOS bundle's Frameworks (common.resources.frozen_libraries_folder).
    beside = executable.rsplit("/", 1)[0]
    expected = beside.rsplit("/", 1)[0] + "/Frameworks" if name == "macos" else beside
    assert library.rsplit("/", 1)[0] == expected
    frozen = members[executable]()
    assert all(module in frozen for module in FROZEN_NAMES)
