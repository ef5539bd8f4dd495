"""Where the game finds its data and its own program: from a checkout, an installed wheel
(tests/test_wheel.py plays one) and a packaged build, which keeps its data beside its
executable; and what the packaged builds are made of."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from common import resources
from game.menus.hosting import game_command
from tests.conftest import REPO_ROOT, cli_env
from tools import build_apps


@pytest.fixture
def packaged_build(tmp_path, monkeypatch) -> Path:
    """A stand-in for a packaged build: ``sys.frozen`` set, the executable in a folder."""
    folder = tmp_path / "build"
    folder.mkdir()
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", str(folder / "tank-battle"))
    return folder


def test_a_checkout_finds_its_own_config_and_sounds():
    assert resources.config_folder() == REPO_ROOT / "config"
    assert resources.sounds_folder() == REPO_ROOT / "assets" / "sounds"


def test_a_packaged_build_finds_its_data_beside_the_executable(packaged_build):
    (packaged_build / "config").mkdir()
    (packaged_build / "config" / "game.toml").write_text("")
    (packaged_build / "assets" / "sounds").mkdir(parents=True)
    assert resources.config_folder() == packaged_build / "config"
    assert resources.sounds_folder() == packaged_build / "assets" / "sounds"


def test_a_packaged_build_without_its_data_says_what_is_missing(packaged_build):
    with pytest.raises(resources.MissingData, match="config/game.toml"):
        resources.config_folder()


def test_a_data_package_that_does_not_exist_is_missing_data():
    with pytest.raises(resources.MissingData, match="no_such_package"):
        resources.data_folder("no_such_package", "marker.toml")


def test_a_packaged_build_runs_itself_and_python_runs_the_game_package(packaged_build,
                                                                       monkeypatch):
    assert game_command(["--serve"]) == [sys.executable, "--serve"]
    monkeypatch.setattr(sys, "frozen", False)
    assert game_command(["--serve"]) == [sys.executable, "-m", "game", "--serve"]


def test_python_dash_m_game_runs_the_game_from_any_directory(tmp_path):
    shown = subprocess.run([sys.executable, "-m", "game", "--help"], cwd=tmp_path,
                           env=cli_env(), capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0, shown.stderr
    assert "--headless" in shown.stdout


def test_every_build_freezes_the_same_pinned_wheels_and_macos_plays_offline():
    for name in build_apps.PLATFORMS:
        wanted = build_apps.requirements_for(name)
        assert all("==" in requirement for requirement in wanted)
        assert {"panda3d", "numpy", "tomli-w", "numba", "llvmlite"} <= {
            line.split("==")[0] for line in wanted}
    assert build_apps.ONLINE_REQUIREMENT in build_apps.requirements_for("linux")
    assert build_apps.ONLINE_REQUIREMENT in build_apps.requirements_for("windows")
    assert build_apps.ONLINE_REQUIREMENT not in build_apps.requirements_for("macos")


def test_every_build_takes_numba_and_llvmlite_s_library_along():
    excluded = build_apps.OPTIONS["exclude_modules"]["*"]
    assert not any(name.startswith(("numba", "llvmlite")) for name in excluded)
    copied = build_apps.OPTIONS["package_data_dirs"]["llvmlite"]
    # Beside the executable: a frozen package's resources are read from there.
    assert {(source, target) for source, target, _flags in copied} == {
        (f"llvmlite/binding/{name}", "") for name in ("libllvmlite.so", "llvmlite.dll",
                                                       "libllvmlite.dylib")}


def test_make_dist_platform_names():
    assert build_apps.platforms_from("all") == ["linux", "windows", "macos"]
    assert build_apps.platforms_from("linux, windows") == ["linux", "windows"]
    with pytest.raises(SystemExit, match="'beos'"):
        build_apps.platforms_from("linux,beos")


def test_the_build_ships_every_data_file_the_game_reads():
    patterns = build_apps.OPTIONS["include_patterns"]
    shipped = {path for pattern in patterns for path in REPO_ROOT.glob(pattern)}
    assert set((REPO_ROOT / "config").rglob("*.toml")) <= shipped
    assert set((REPO_ROOT / "assets" / "sounds").glob("*.wav")) <= shipped
    for icons in build_apps.OPTIONS["icons"].values():
        assert all((REPO_ROOT / icon).is_file() for icon in icons)


def test_the_committed_icon_is_the_one_the_script_draws():
    from panda3d.core import Filename, PNMImage

    from assets.make_icon import ICON_PATH, SIZE_PX, draw

    image = PNMImage()
    assert image.read(Filename.from_os_specific(str(ICON_PATH)))
    assert (image.get_x_size(), image.get_y_size(), image.get_num_channels()) == (SIZE_PX,
                                                                              SIZE_PX, 4)
    drawn = draw()
    for x, y in ((0, 0), (SIZE_PX // 2, SIZE_PX // 2), (30, 200), (128, 20), (200, 128)):
        pixel = image.get_pixel(x, y)
        committed = (pixel.get_red(), pixel.get_green(), pixel.get_blue(), pixel.get_alpha())
        assert committed == tuple(int(value) for value in drawn[y, x])


def test_a_macos_app_bundle_finds_its_data_in_its_resources(tmp_path, monkeypatch):
    contents = tmp_path / "tank-battle.app" / "Contents"
    (contents / "MacOS").mkdir(parents=True)
    (contents / "Resources" / "config").mkdir(parents=True)
    (contents / "Resources" / "config" / "game.toml").write_text("")
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", str(contents / "MacOS" / "tank-battle"))
    assert resources.config_folder() == contents / "Resources" / "config"
