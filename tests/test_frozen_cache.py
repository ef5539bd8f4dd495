"""A packaged build's compiled loops: cached in the player's cache folder, keyed by the
build's executable (a frozen module has no source file for numba to key them by), loaded
by the next start, compiled afresh for another build, and never a crash over a garbled
cache file. Each case runs in a fresh process that calls itself frozen, with a loop whose
source file does not exist, as in a build."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from common import compiled
from common.settings import CACHE_OVERRIDE_ENV, user_folder
from tests.conftest import REPO_ROOT, cli_env

pytestmark = pytest.mark.skipif(not compiled.AVAILABLE, reason=f"{compiled.PLAIN_REASON}")

FROZEN_RUN = """
import json, sys
sys.frozen = True
import numpy as np
from common import compiled
[locator] = [known for known in compiled.numba_locators()
             if known.__name__ == "FrozenCacheLocator"]
locator.stamp_file = sys.argv[1]
import types
module = sys.modules["frozen_physics"] = types.ModuleType("frozen_physics")
source = "def total(values):\\n    sum = 0.0\\n    for value in values:\\n" \\
         "        sum += value\\n    return sum\\n"
exec(compile(source, "/no/such/folder/frozen_physics.py", "exec"), module.__dict__)
loop = compiled.compiled(module.total)
loaded = compiled.load_cached()
value = loop(np.arange(4.0))
print(json.dumps({"plain": compiled.PLAIN_REASON, "loaded": loaded, "value": value,
                  "hits": sum(loop.stats.cache_hits.values()),
                  "misses": sum(loop.stats.cache_misses.values())}))
"""


def _frozen_run(cache_home, stamp_file) -> dict:
    done = subprocess.run([sys.executable, "-c", FROZEN_RUN, str(stamp_file)], cwd=REPO_ROOT,
                          env=cli_env(**{CACHE_OVERRIDE_ENV: str(cache_home)}),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return {**json.loads(done.stdout.splitlines()[-1]), "stderr": done.stderr}


def test_a_build_caches_its_loops_in_the_player_s_cache_folder_and_loads_them_next_start(
        tmp_path):
    stamp = tmp_path / "tank-battle"  # the build's executable
    stamp.write_bytes(b"build 1")
    first = _frozen_run(tmp_path / "cache", stamp)
    assert first["plain"] is None and first["value"] == 6.0
    assert (first["loaded"], first["hits"], first["misses"]) == (0, 0, 1)  # compiled
    folder = tmp_path / "cache" / "numba" / f"python{sys.version_info[0]}{sys.version_info[1]}"
    assert {path.suffix for path in (folder / "frozen_physics").iterdir()} == {".nbi", ".nbc"}
    second = _frozen_run(tmp_path / "cache", stamp)
    assert (second["loaded"], second["hits"], second["misses"]) == (1, 1, 0)  # from disk
    stamp.write_bytes(b"build 2, another size")  # a new build: the old cache is stale
    third = _frozen_run(tmp_path / "cache", stamp)
    assert (third["loaded"], third["misses"]) == (0, 1) and third["value"] == 6.0


@pytest.fixture(scope="module")
def first_start(tmp_path_factory) -> Path:
    """A folder with a build (its executable, "tank-battle") and the cache its first start
    left (in "cache"): each garbling test starts from a copy, its times and all."""
    folder = tmp_path_factory.mktemp("first-start")
    (folder / "tank-battle").write_bytes(b"build 1")
    assert _frozen_run(folder / "cache", folder / "tank-battle")["misses"] == 1
    return folder


@pytest.mark.parametrize("suffix", [".nbi", ".nbc"], ids=["index", "data"])
@pytest.mark.parametrize("garbage", [b"", b"\x80\x04\x95garbled", b"not a pickle at all"])
def test_a_garbled_cache_file_is_replaced_not_a_crash(tmp_path, first_start, suffix, garbage):
    shutil.copytree(first_start, tmp_path, dirs_exist_ok=True)  # copy2: the stamp's mtime too
    stamp = tmp_path / "tank-battle"
    [cached] = (tmp_path / "cache").rglob(f"*{suffix}")
    cached.write_bytes(garbage)  # a disk error, or a cache from who knows where
    again = _frozen_run(tmp_path / "cache", stamp)
    assert again["value"] == 6.0 and again["misses"] == 1  # compiled afresh
    assert "could not be read" in again["stderr"]
    assert _frozen_run(tmp_path / "cache", stamp)["hits"] == 1  # and cached again, whole


def test_outside_a_build_numba_keeps_its_own_cache_beside_the_modules():
    """The repository's runs are not frozen: the locator is not put in, and would decline."""
    assert not compiled.FROZEN
    assert all(known.__name__ != "FrozenCacheLocator" for known in compiled.numba_locators())
    locator = compiled._frozen_locator_class()
    assert locator.from_function(_frozen_run, __file__) is None


def test_the_cache_folder_is_the_platform_s_own(tmp_path):
    home = tmp_path / "me"
    assert user_folder("cache", {}, "linux", home) == home / ".cache/tank-battle"
    assert user_folder("cache", {"XDG_CACHE_HOME": "/c"}, "linux", home) == Path(
        "/c/tank-battle")
    assert user_folder("cache", {}, "darwin", home) == home / "Library/Caches/tank-battle"
    assert user_folder("cache", {"LOCALAPPDATA": "/local"}, "win32", home) == Path(
        "/local/tank-battle/cache")
    assert user_folder("cache", {CACHE_OVERRIDE_ENV: "/t"}, "linux", home) == Path("/t")


FROZEN_RESOURCE = """
import importlib.resources, sys
from pathlib import Path
sys.frozen = True
sys.executable = sys.argv[1]
from common.resources import read_frozen_resources_from_libraries_folder
assert read_frozen_resources_from_libraries_folder()
# __phello__: a package Python itself freezes, read as llvmlite reads its library.
with importlib.resources.path("__phello__", "libllvmlite.so") as path:
    print(Path(path).read_text())
"""


@pytest.mark.parametrize("bundle", [False, True], ids=["beside", "macos-bundle"])
def test_a_frozen_package_reads_its_library_where_the_build_put_it(tmp_path, bundle):
    """llvmlite asks importlib.resources for its LLVM library; a frozen package has no
    resources of its own, so the build's libraries folder answers: beside the executable,
    or in a macOS bundle's Frameworks."""
    contents = tmp_path / "tank-battle.app" / "Contents"
    executable = (contents / "MacOS" if bundle else tmp_path) / "tank-battle"
    libraries = contents / "Frameworks" if bundle else tmp_path
    for folder in (executable.parent, libraries):
        folder.mkdir(parents=True, exist_ok=True)
    (libraries / "libllvmlite.so").write_text("the LLVM library")
    done = subprocess.run([sys.executable, "-c", FROZEN_RESOURCE, str(executable)],
                          cwd=REPO_ROOT, env=cli_env(), capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "the LLVM library"
