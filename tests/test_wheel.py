"""The installable package: a wheel built from the project carries the game's data (the
tuning and the sounds) and, installed into a fresh virtual environment, its ``tank-battle``
command plays from any directory, with no path into the source tree.

The build is isolated as ``pip install .`` does it (pip fetches setuptools, or takes it from
its cache). The fresh environment gets the game from the wheel alone; its dependencies
(panda3d, numpy, numba) are lent from the environment running the tests through a ``.pth``
line, which adds their folder but none of that folder's own ``.pth`` files, so an editable
install of the game there stays out of sight.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, cli_env

pytestmark = pytest.mark.slow  # every test builds or installs the wheel

BUILD_TIMEOUT_S = 300.0
RUN_TIMEOUT_S = 240.0
SOURCES = ("common", "game", "physics", "bench", "config", "assets", "pyproject.toml", "README.md",
           "LICENSE")
"""What a wheel is built from (a copy: the build writes build/ and egg-info beside it)."""


def _copy_sources(target: Path) -> Path:
    target.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.nbi", "*.nbc")
    for name in SOURCES:
        source = REPO_ROOT / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=ignore)
        else:
            shutil.copy2(source, target / name)
    return target


def _scripts_folder(environment: Path) -> Path:
    return environment / ("Scripts" if sys.platform == "win32" else "bin")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("wheel")
    sources = _copy_sources(folder / "sources")
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                            "--wheel-dir", str(folder / "dist"), str(sources)],
                           capture_output=True, text=True, timeout=BUILD_TIMEOUT_S)
    assert built.returncode == 0, built.stderr[-3000:]
    (found,) = (folder / "dist").glob("tank_battle-*.whl")
    return found


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Path:
    """A fresh virtual environment with the wheel installed; its scripts folder."""
    environment = tmp_path_factory.mktemp("venv") / "env"
    venv.create(environment, with_pip=True)
    python = _scripts_folder(environment) / ("python.exe" if sys.platform == "win32"
                                             else "python")
    purelib = subprocess.run([str(python), "-c",
                              "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    lent = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    Path(purelib, "tank_battle_test_dependencies.pth").write_text("\n".join(sorted(lent)) + "\n")
    done = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps",
                           "--no-index", str(wheel)], capture_output=True, text=True,
                          timeout=BUILD_TIMEOUT_S)
    assert done.returncode == 0, done.stderr[-3000:]
    return _scripts_folder(environment)


def test_the_wheel_carries_every_config_file_and_sound(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for shipped in sorted((REPO_ROOT / "config").rglob("*.toml")):
        assert "config/" + shipped.relative_to(REPO_ROOT / "config").as_posix() in names
    for sound in sorted((REPO_ROOT / "assets" / "sounds").glob("*.wav")):
        assert f"assets/sounds/{sound.name}" in names
    assert "game/__main__.py" in names
    assert not any(name.startswith("tests/") for name in names)
    assert any(name.endswith("dist-info/licenses/LICENSE") for name in names)


def test_the_installed_command_plays_headless_from_another_directory(installed, tmp_path):
    telemetry = tmp_path / "run.jsonl"
    # The loops run as plain Python: compiling them for a new install would cost the suite
    # some 20 s, and what this checks is the install, not numba.
    played = subprocess.run([str(installed / "tank-battle"), "--headless", "--seconds", "2",
                             "--telemetry", str(telemetry)], cwd=tmp_path,
                            env=cli_env(NUMBA_DISABLE_JIT="1"), capture_output=True, text=True,
                            timeout=RUN_TIMEOUT_S)
    assert played.returncode == 0, played.stderr[-3000:]
    rows = telemetry.read_text().splitlines()
    assert len(rows) > 10
    assert '"on_ground":true' in rows[-1].replace(" ", "")


def test_the_installed_game_reads_its_own_data_not_the_checkout(installed, tmp_path):
    python = installed / ("python.exe" if sys.platform == "win32" else "python")
    probe = ("import game.config, game.audio.sounds; "
             "print(game.config.CONFIG_DIR); print(game.audio.sounds.SOUNDS_DIR)")
    found = subprocess.run([str(python), "-c", probe], cwd=tmp_path, env=cli_env(),
                           capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
    assert found.returncode == 0, found.stderr[-3000:]
    config_folder, sounds_folder = map(Path, found.stdout.split())
    environment = installed.parent.resolve()
    assert config_folder.resolve().is_relative_to(environment)
    assert sounds_folder.resolve().is_relative_to(environment)
    assert (config_folder / "game.toml").is_file()
    assert (sounds_folder / "engine_loop.wav").is_file()


def test_the_installed_command_still_takes_another_config_folder(installed, tmp_path):
    missing = tmp_path / "no-such-config"
    refused = subprocess.run([str(installed / "tank-battle"), "--headless", "--seconds", "1",
                              "--config", str(missing)], cwd=tmp_path, env=cli_env(),
                             capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
    assert refused.returncode == 2
    assert str(missing) in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
