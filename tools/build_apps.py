"""Packaged builds of the game with Panda3D's ``build_apps``: ``make dist`` runs this.

    python tools/build_apps.py [linux|windows|macos|all, comma separated; default linux]

``build_apps`` freezes ``main.py`` and everything it imports
into one executable per platform (``build/PLATFORM/tank-battle``), copies the data files
beside it (the config and sounds, found there by :mod:`common.resources`) with Panda's GL and
OpenAL plugins, and ``bdist_apps`` packs each build into an archive in ``dist/``. The
project's metadata (name, version) comes from pyproject.toml; this script only adds the
build's options, kept out of the wheel's build.

Each platform is built by its own run of ``setup()`` (a child process), because the wheels
it freezes differ: pip evaluates a requirement's platform markers on the building machine,
not the target, so each build gets its own requirements file. The wheels come from the
ordinary package index, and nothing is compiled while building: each platform's wheels are
taken as they are.

numba and llvmlite are in every build, so that a build steps its battles as fast as the
repository does. llvmlite loads its LLVM library (``libllvmlite.so``, ``llvmlite.dll`` or
``libllvmlite.dylib``, one file of 90 to 130 MB) as a resource of the package
``llvmlite.binding``, which in a frozen program is the folder of the executable: the
library is copied there (``package_data_dirs``). The compiled loops are cached in the
player's cache folder (:class:`common.compiled.FrozenCacheLocator`).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from setuptools import setup

ROOT = Path(__file__).resolve().parents[1]
APP_NAME = "tank-battle"
PLATFORMS = {
    "linux": ("manylinux2014_x86_64", True),
    "windows": ("win_amd64", True),
    "macos": ("macosx_11_0_arm64", False),
}
"""The builds ``make dist`` knows, by their short names (``PLATFORMS=all`` builds each): the
platform tag, and whether online play is in (pyenet has no macOS wheel)."""
REQUIREMENTS = ("panda3d==1.10.16", "numpy==2.2.6", "tomli-w==1.2.0", "numba==0.61.2",
                "llvmlite==0.44.0")
"""What every build freezes, pinned to versions with wheels for all three platforms (numpy
2.3 and newer have no manylinux2014 wheel; numba 0.61.2 is the newest that takes numpy
2.2, and llvmlite 0.44 is its LLVM)."""
LLVM_LIBRARIES = ("libllvmlite.so", "llvmlite.dll", "libllvmlite.dylib")
"""llvmlite's LLVM library on Linux, Windows and macOS."""
NUMBA_CHOSEN_MODULES = tuple(
    f"numba.{module}{version}{name}"
    for module, names in (("core.datamodel.", ("models",)), ("core.", ("boxing",)),
                          ("core.types.", ("scalars",)),
                          ("core.typing.", ("builtins", "cmathdecl", "mathdecl")),
                          ("cpython.", ("builtins", "hashing", "mathimpl", "numbers",
                                        "tupleobj")),
                          ("np.", ("arraymath",)),
                          ("np.random.", ("distributions", "random_methods")))
    for version in ("old_", "new_") for name in names)
"""The modules numba chooses by name as it is imported (``old_*`` for its legacy type
system, the default, and ``new_*``, behind packages that redirect to them): the freezer,
which follows imports, does not see them, so they are named."""
ONLINE_REQUIREMENT = "pyenet==1.3.17"
ONE_PLATFORM_FLAG = "--one-platform"

OPTIONS = {
    "gui_apps": {APP_NAME: "main.py"},
    "include_patterns": ["config/*.toml", "config/tanks/*.toml", "assets/sounds/*.wav",
                         "assets/icon.png",
                         "LICENSE", "README.md"],
    "include_modules": {"*": list(NUMBA_CHOSEN_MODULES)},
    "exclude_modules": {"*": ["pytest", "_pytest", "tests", "tests.*", "bench", "bench.*",
                              "tkinter", "setuptools", "pip"]},
    # llvmlite's LLVM library, beside the executable, where llvmlite looks for it.
    "package_data_dirs": {"llvmlite": [(f"llvmlite/binding/{name}", "", {})
                                       for name in LLVM_LIBRARIES]},
    "icons": {APP_NAME: ["assets/icon.png"]},
    "plugins": ["pandagl", "p3headlessgl", "p3openal_audio"],
    # Panda3D's own index of optimised wheels is not used: the ordinary index has every
    # wheel the build needs, and a build machine may reach only that one.
    "use_optimized_wheels": False,
    "pypi_extra_indexes": [],
    # No log_filename: a double-clicked game has no console, so the game itself logs to
    # the user data folder when frozen (common/logs.py), Panda's own notices and a crash's
    # traceback included; the runtime's redirect would write the same file.
}


def platforms_from(names: str) -> list[str]:
    """``linux,windows`` or ``all`` as short platform names."""
    chosen = [name.strip() for name in names.split(",")]
    if chosen == ["all"]:
        return list(PLATFORMS)
    unknown = [name for name in chosen if name not in PLATFORMS]
    if unknown:
        raise SystemExit(f"build_apps: unknown platform {unknown[0]!r}: expected all or "
                         f"some of {', '.join(PLATFORMS)}, comma separated")
    return chosen


def requirements_for(name: str) -> list[str]:
    """The wheels the ``name`` platform's build freezes."""
    online = PLATFORMS[name][1]
    return list(REQUIREMENTS) + ([ONLINE_REQUIREMENT] if online else [])


def build_one(name: str) -> None:
    """Build and pack the ``name`` platform's app (in this process)."""
    tag = PLATFORMS[name][0]
    requirements = ROOT / "build" / f"requirements-{tag}.txt"
    requirements.parent.mkdir(exist_ok=True)
    requirements.write_text("\n".join(requirements_for(name)) + "\n")
    options = dict(OPTIONS, platforms=[tag], requirements_path=str(requirements))
    setup(options={"build_apps": options}, script_args=["bdist_apps"])


def main(arguments: list[str]) -> None:
    os.chdir(ROOT)
    if arguments[:1] == [ONE_PLATFORM_FLAG]:
        build_one(arguments[1])
        return
    for name in platforms_from(arguments[0] if arguments else "linux"):
        subprocess.run([sys.executable, __file__, ONE_PLATFORM_FLAG, name], check=True)


if __name__ == "__main__":
    main(sys.argv[1:])
