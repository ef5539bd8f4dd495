"""The suite's numba cache belongs to the source as it is: any edit to a module the
compiled loops can reach gives a fresh cache, so no test runs old compiled code."""

from __future__ import annotations

import os

import pytest

from tests import compiled_cache
from tests.conftest import REPO_ROOT


def _tree(root, files: dict[str, str]):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_any_edit_to_a_source_module_changes_the_digest(tmp_path):
    root = _tree(tmp_path, {"physics/model/scalars.py": "X = 1\n",
                            "game/sim/ai.py": "Y = 2\n", "docs/notes.md": "text\n",
                            "tests/test_x.py": "Z = 3\n"})
    first = compiled_cache.source_digest(root)
    assert compiled_cache.source_digest(root) == first  # the same source, the same cache
    (root / "docs/notes.md").write_text("other text\n")
    (root / "tests/test_x.py").write_text("Z = 4\n")
    assert compiled_cache.source_digest(root) == first  # not a source the loops reach
    (root / "physics/model/scalars.py").write_text("X = 2\n")  # an inlined stage, say
    edited = compiled_cache.source_digest(root)
    assert edited != first
    (root / "physics/model/scalars.py").rename(root / "physics/model/renamed.py")
    assert compiled_cache.source_digest(root) not in (first, edited)


def test_each_source_gets_its_own_folder_and_old_ones_go(tmp_path, monkeypatch):
    root = _tree(tmp_path, {"physics/a.py": "A = 0\n", "game/b.py": "B = 0\n"})
    folders = []
    for version in range(5):
        monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
        (root / "physics/a.py").write_text(f"A = {version}\n")
        folder = compiled_cache.use_cache_of_this_source(root)
        assert os.environ["NUMBA_CACHE_DIR"] == str(folder) and folder.is_dir()
        folders.append(folder)
        os.utime(folder, (version, version))  # each newer than the last
    assert len(set(folders)) == 5
    kept = sorted(path.name for path in (root / ".pytest_cache" / "numba").iterdir())
    assert kept == sorted(folder.name for folder in folders[-compiled_cache.KEEP_FOLDERS:])


def test_a_cache_folder_set_by_hand_is_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "mine"))
    assert compiled_cache.use_cache_of_this_source(tmp_path) is None
    assert os.environ["NUMBA_CACHE_DIR"] == str(tmp_path / "mine")


def test_this_run_compiles_into_the_folder_of_the_source_as_it_is():
    numba = pytest.importorskip("numba")
    cache = os.environ["NUMBA_CACHE_DIR"]
    if not cache.startswith(str(REPO_ROOT / ".pytest_cache")):
        pytest.skip("NUMBA_CACHE_DIR was set by hand")
    assert os.path.basename(cache) == compiled_cache.source_digest(REPO_ROOT)
    assert numba.config.CACHE_DIR == cache  # numba read it before anything compiled
