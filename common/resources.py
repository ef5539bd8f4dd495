"""Where the game's data lives: its tuning (``config/*.toml``) and its sounds
(``assets/sounds/*.wav``).

Both are top-level folders of the project, and the wheel ships them as package data: the
namespace packages ``config`` and ``assets``. The import system therefore finds them the
same way from a checkout, an editable install and an installed wheel, whatever the working
directory: among the package's locations (the ones :mod:`importlib.resources` reads a
namespace package from), the one that holds the expected file. A packaged build (Panda3D's ``build_apps``) freezes the code, and its
frozen modules have no folder of their own; it copies the data files beside its executable
instead (into the bundle's Resources folder on macOS), and there they are found.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from importlib.resources.abc import TraversableResources

CONFIG_PACKAGE = "config"
CONFIG_MARKER = "game.toml"
"""A file every config folder holds: it tells the game's folder from another ``config``."""
ASSETS_PACKAGE = "assets"
SOUNDS_FOLDER = "sounds"


class MissingData(RuntimeError):
    """The game's data is not where the installation should have put it (a broken
    install or build, never a player's mistake)."""


def is_frozen() -> bool:
    """Whether this is a packaged build (``build_apps`` sets ``sys.frozen``)."""
    return bool(getattr(sys, "frozen", False))


def data_folder(package: str, marker: str) -> Path:
    """The folder of the data package ``package``, the one holding ``marker`` (a file or
    folder name inside it)."""
    if is_frozen():
        beside = Path(sys.executable).resolve().parent
        # A macOS app bundle keeps them in Contents/Resources, beside Contents/MacOS.
        locations = [beside / package, beside.parent / "Resources" / package]
    else:
        # Not importlib.resources.files itself: an editable install adds a location that is
        # no folder to a namespace package, and files() then refuses the whole package.
        spec = importlib.util.find_spec(package)
        found = (spec.submodule_search_locations or []) if spec is not None else []
        locations = [Path(location) for location in found]
    for location in locations:
        if (location / marker).exists():
            return location
    raise MissingData(f"the game's {package}/{marker} is missing: reinstall the game")


def config_folder() -> Path:
    """The shipped tuning: every ``config/*.toml`` and ``config/tanks/*.toml``."""
    return data_folder(CONFIG_PACKAGE, CONFIG_MARKER)


def sounds_folder() -> Path:
    """The shipped sounds: ``assets/sounds/*.wav``."""
    return data_folder(ASSETS_PACKAGE, SOUNDS_FOLDER) / SOUNDS_FOLDER


def frozen_libraries_folder(executable: Path | None = None) -> Path:
    """Where a packaged build keeps the libraries its packages bring (``package_data_dirs``
    in tools/build_apps.py): beside the executable, or in a macOS bundle's Frameworks
    folder, where build_apps moves every binary."""
    beside = Path(sys.executable if executable is None else executable).resolve().parent
    frameworks = beside.parent / "Frameworks"
    return frameworks if beside.name == "MacOS" and frameworks.is_dir() else beside


def read_frozen_resources_from_libraries_folder() -> bool:
    """In a packaged build, let a frozen package read its resources (llvmlite: its LLVM
    library, through :mod:`importlib.resources`) from :func:`frozen_libraries_folder`.
    Python's frozen importer offers no resources at all; this gives it a reader of that
    folder. Whether it was given (not frozen, or an importer that reads resources of its
    own already: left as it is)."""
    if not is_frozen():
        return False
    from importlib.machinery import FrozenImporter
    if hasattr(FrozenImporter, "get_resource_reader"):
        return False
    reader = _FolderReader(frozen_libraries_folder())
    setattr(FrozenImporter, "get_resource_reader", staticmethod(lambda _name: reader))
    return True


class _FolderReader(TraversableResources):
    """The resources of a package: the files of one folder."""

    def __init__(self, folder: Path):
        self.folder = folder

    def files(self) -> Path:
        return self.folder
