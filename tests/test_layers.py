"""The layout's rules, read from the source: every module's imports (anywhere in it, inside
functions and ``if TYPE_CHECKING:`` too) are parsed, no module of the game is imported.

Who may import whom (docs/architecture.md says the same):

- ``common/`` is neutral: every layer may use it, it imports nothing of the game;
- ``physics/`` imports nothing of the game, nor ShowBase, DirectGUI or Panda's window;
  ``physics/model`` is numpy and numba only: no panda3d, no Bullet adapter;
- ``game/sim`` is the headless game: no view, input, audio or menus, no top module (the
  app, its states, the runs, the command line, the config loaders, the player's settings
  files), no ShowBase, DirectGUI (``direct.*``) or Panda window, sound or device;
- ``game/view`` imports no input, audio or menus; ``game/input`` no view, audio or menus;
  ``game/audio`` no view, input or menus; none of them imports the top;
- ``game/menus`` sits above view, input, audio and sim (it may import them), nothing below
  it imports menus, and menus never import the app or the runs;
- no import cycle between the project's modules;
- ``game/`` holds at most 8 modules directly; no module of common/, physics/, game/,
  bench/ or tools/ is over 450 lines;
- docs/architecture.md's layout names every package and every module directly in game/,
  and nothing that is gone.

And the headless run and the dedicated server load none of the view, input, audio or menu
modules, nor Panda's ShowBase, DirectGUI or audio manager.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("common", "physics", "game", "bench", "tools")
"""The project's packages: their modules are read (and main.py)."""
MAX_LINES = 450
"""No module of the packages is longer."""
MAX_TOP_MODULES = 8
"""game/ holds at most this many modules directly (its .py files, __init__ included)."""

TOP = ("game.app", "game.app_states", "game.applied_settings", "game.cli", "game.config",
       "game.window_config", "game.runs", "game.__main__", "main")
"""The top: the app and its state machine, the runs, the command line, the config loaders."""
RUNNERS = ("game.app", "game.runs", "game.cli", "game.__main__", "main")
"""What owns the window and starts a run: even the menus sit below it."""
PANDA_WINDOW = tuple(f"panda3d.core.{name}" for name in (
    "WindowProperties", "FrameBufferProperties", "GraphicsPipe", "GraphicsPipeSelection",
    "GraphicsEngine", "GraphicsOutput", "GraphicsWindow", "GraphicsBuffer", "DisplayRegion",
    "Camera", "PerspectiveLens", "OrthographicLens", "MouseWatcher", "ButtonThrower",
    "InputDevice", "InputDeviceManager", "AudioManager", "AudioSound")) + (
    "panda3d.physics", "panda3d.egg")
"""Panda's window, cameras, devices and sound (``panda3d.core`` names), its particle
physics and egg loader: what a headless process has no use for."""


@dataclass(frozen=True)
class Rule:
    name: str
    layers: tuple[str, ...]
    """The modules it holds (dotted prefixes)."""
    forbidden: tuple[str, ...]
    """What they may not import (dotted prefixes)."""
    says: str


RULES = (
    Rule("common-is-neutral", ("common",), ("game", "physics", "bench", "tools", "main"),
         "common/ is neutral: every layer may use it, it imports nothing of the game"),
    Rule("physics-knows-no-game", ("physics",), ("game", "bench", "tools", "main", "direct")
         + PANDA_WINDOW,
         "physics/ imports nothing of the game, nor ShowBase, DirectGUI or Panda's window"),
    Rule("the-model-is-pure", ("physics.model",), ("panda3d", "direct", "physics.bullet"),
         "physics/model is numpy and numba only: no panda3d, no Bullet adapter"),
    Rule("sim-is-headless", ("game.sim",),
         ("game.view", "game.input", "game.audio", "direct", "bench", "tools",
          "common.settings") + TOP + PANDA_WINDOW,
         "game/sim is the headless game: no view, input, audio or top module, no player's "
         "settings files, no ShowBase or DirectGUI (direct.*), no Panda window"),
    Rule("view-imports-no-input-audio", ("game.view",), ("game.input", "game.audio") + TOP,
         "game/view imports no input or audio, and not the top"),
    Rule("input-imports-no-view", ("game.input",), ("game.view", "game.audio") + TOP,
         "game/input imports no view (the cameras it drives are its own Protocols) nor "
         "audio, and not the top"),
    Rule("audio-imports-no-view-input", ("game.audio",), ("game.view", "game.input") + TOP,
         "game/audio imports no view or input, and not the top"),
    Rule("menus-sit-above", ("common", "physics", "game.sim", "game.view", "game.input",
                             "game.audio"), ("game.menus",),
         "game/menus sits above view, input, audio and sim: nothing below it imports menus"),
    Rule("menus-below-the-app", ("game.menus",), RUNNERS + ("bench", "tools"),
         "game/menus sends requests to the app: it never imports the app or the runs"),
)


@dataclass(frozen=True)
class Import:
    module: str
    path: Path
    line: int
    target: str
    """What is imported, fully qualified: a module, or ``module.name`` for a name in it."""
    statement: str


def module_name(path: Path, root: Path = REPO) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def project_modules(root: Path = REPO, packages=PACKAGES) -> dict[str, Path]:
    modules = {module_name(path, root): path for package in packages
               for path in sorted((root / package).rglob("*.py"))}
    if (root / "main.py").exists():
        modules["main"] = root / "main.py"
    return modules


def imports_of(module: str, path: Path) -> list[Import]:
    """Every import in ``module`` (at ``path``), anywhere in it."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([base] if base else []))
            targets = [base if alias.name == "*" else f"{base}.{alias.name}"
                       for alias in node.names]
        else:
            continue
        found += [Import(module, path, node.lineno, target, ast.unparse(node))
                  for target in targets]
    return found


def within(name: str, prefixes) -> bool:
    return any(name == prefix or name.startswith(prefix + ".") for prefix in prefixes)


def violations(rule: Rule, imports: list[Import], root: Path = REPO) -> list[str]:
    """Each import that breaks ``rule``: where, the module, the import and the rule."""
    return sorted(f"{found.path.relative_to(root)}:{found.line}: {found.module} imports "
                  f"{found.target} (`{found.statement}`), breaking {rule.name}: {rule.says}"
                  for found in imports
                  if within(found.module, rule.layers) and within(found.target, rule.forbidden))


def import_graph(modules: dict[str, Path], imports: list[Import]) -> dict[str, set[str]]:
    """Which project modules each one imports (a name inside a module counts as the
    module; a module's own packages do not count)."""
    graph: dict[str, set[str]] = {module: set() for module in modules}
    for found in imports:
        target = found.target
        while target and target not in modules:
            target = target.rpartition(".")[0]
        if target and target != found.module and not found.module.startswith(target + "."):
            graph[found.module].add(target)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle, as the modules round it, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: finished
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = 1
        path.append(module)
        for target in sorted(graph.get(module, ())):
            if state.get(target) == 1:
                return path[path.index(target):] + [target]
            if target not in state:
                cycle = visit(target)
                if cycle:
                    return cycle
        path.pop()
        state[module] = 2
        return None

    for module in sorted(graph):
        if module not in state:
            cycle = visit(module)
            if cycle:
                return cycle
    return None


def top_modules(root: Path = REPO) -> list[str]:
    return sorted(path.name for path in (root / "game").glob("*.py"))


def oversized(root: Path, package: str, limit: int = MAX_LINES) -> list[str]:
    counted = ((path, len(path.read_text(encoding="utf-8").splitlines()))
               for path in sorted((root / package).rglob("*.py")))
    return [f"{path.relative_to(root)}: {lines} lines, over the limit of {limit}"
            for path, lines in counted if lines > limit]


def read_project(root: Path = REPO, packages=PACKAGES):
    modules = project_modules(root, packages)
    return modules, [found for module, path in modules.items()
                     for found in imports_of(module, path)]


MODULES, IMPORTS = read_project()


@pytest.mark.parametrize("rule", RULES, ids=[rule.name for rule in RULES])
def test_the_layer_rule_holds(rule):
    broken = violations(rule, IMPORTS)
    assert broken == [], "\n".join(broken)


def test_no_import_cycles():
    cycle = find_cycle(import_graph(MODULES, IMPORTS))
    assert cycle is None, "import cycle, breaking no-cycles: " + " -> ".join(cycle)


def test_the_top_is_small():
    top = top_modules()
    assert len(top) <= MAX_TOP_MODULES, (
        f"game/ holds {len(top)} modules directly, over the limit of {MAX_TOP_MODULES} "
        f"(breaking top-is-small): {', '.join(top)}")


@pytest.mark.parametrize("package", PACKAGES)
def test_no_module_is_too_long(package):
    long = oversized(REPO, package)
    assert long == [], "breaking modules-are-short:\n" + "\n".join(long)


def layout_block(root: Path = REPO) -> list[tuple[str, str]]:
    """docs/architecture.md's layout block: (the folder or file a line starts with, or the
    one above it, the line)."""
    text = (root / "docs" / "architecture.md").read_text(encoding="utf-8")
    lines, where = [], ""
    for line in text.split("## Layout", 1)[1].split("```")[1].strip("\n").splitlines():
        if not line.startswith(" "):
            where = line.split()[0]
        lines.append((where, line))
    return lines


def test_the_architecture_page_shows_the_tree():
    """Its layout names every package and every module directly in game/, and nothing
    that is gone."""
    block = layout_block()
    named = {where for where, _ in block}
    packages = sorted({f"{path.parent.relative_to(REPO).as_posix()}/" for package in
                       ("common", "physics", "game") for path in
                       (REPO / package).rglob("__init__.py")})
    missing = [package for package in packages
               if not any(where.startswith(package) for where in named)]
    missing += [f"game/{name}" for name in top_modules()
                if not any(re.search(rf"\b{re.escape(name)}", line)
                           for where, line in block if where == "game/")]
    stale = [where for where in named if not (REPO / where).exists()]
    stale += [f"{where}{name}" for where, line in block
              for name in re.findall(r"\b\w+\.py\b", line)
              if where.endswith("/") and not (REPO / where / name).exists()]
    assert (missing, stale) == ([], []), (
        f"docs/architecture.md's layout lacks {missing}, names what is gone: {stale}")


def test_the_rules_read_every_package():
    """The rules see the whole project: every layer they name has modules."""
    for layer in ("common", "physics.model", "physics.bullet", "game.sim", "game.sim.net",
                  "game.view", "game.input", "game.audio", "game.menus", "game.runs", "game.app",
                  "bench", "tools", "main"):
        assert any(within(module, (layer,)) for module in MODULES), layer


def test_the_cycle_finder_finds_one():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


def test_the_checker_has_teeth(tmp_path):
    """A small project that breaks every rule, each way an import can be written: every
    break is reported, naming the file, the module, the import and the rule."""
    _write(tmp_path, {
        "common/__init__.py": "",
        "common/leak.py": "import game.sim.session\n",
        "physics/__init__.py": "",
        "physics/model/__init__.py": "",
        "physics/model/impure.py": "from panda3d.core import Vec3\n",
        "physics/bullet/__init__.py": "",
        "physics/bullet/world.py": "from panda3d.core import WindowProperties\n",
        "game/__init__.py": "",
        "game/app.py": "",
        "game/sim/__init__.py": "",
        "game/sim/session.py": "from direct.showbase.ShowBase import ShowBase\n",
        "game/sim/net/__init__.py": "",
        "game/sim/net/client.py": "from ...menus import pause_menu\n",
        "game/view/__init__.py": "",
        "game/view/hud.py": "def draw():\n    from ..input import keyboard\n",
        "game/input/__init__.py": "",
        "game/input/keyboard.py": "from game.view.hud import draw\n",
        "game/audio/__init__.py": "",
        "game/audio/sounds.py": "import game.input.keyboard as keys\n",
        "game/menus/__init__.py": "",
        "game/menus/pause_menu.py": "if True:\n    from game import app\n",
    })
    modules, imports = read_project(tmp_path)
    reported = {rule.name: violations(rule, imports, tmp_path) for rule in RULES}
    assert reported["common-is-neutral"] == [
        "common/leak.py:1: common.leak imports game.sim.session (`import game.sim.session`), "
        "breaking common-is-neutral: " + RULES[0].says]
    assert [line.split(",")[0] for rule, lines in reported.items() for line in lines] == [
        "common/leak.py:1: common.leak imports game.sim.session (`import game.sim.session`)",
        "physics/bullet/world.py:1: physics.bullet.world imports "
        "panda3d.core.WindowProperties (`from panda3d.core import WindowProperties`)",
        "physics/model/impure.py:1: physics.model.impure imports panda3d.core.Vec3 "
        "(`from panda3d.core import Vec3`)",
        "game/sim/session.py:1: game.sim.session imports direct.showbase.ShowBase.ShowBase "
        "(`from direct.showbase.ShowBase import ShowBase`)",
        "game/view/hud.py:2: game.view.hud imports game.input.keyboard "
        "(`from ..input import keyboard`)",
        "game/input/keyboard.py:1: game.input.keyboard imports game.view.hud.draw "
        "(`from game.view.hud import draw`)",
        "game/audio/sounds.py:1: game.audio.sounds imports game.input.keyboard "
        "(`import game.input.keyboard as keys`)",
        "game/sim/net/client.py:1: game.sim.net.client imports game.menus.pause_menu "
        "(`from ...menus import pause_menu`)",
        "game/menus/pause_menu.py:2: game.menus.pause_menu imports game.app "
        "(`from game import app`)",
    ]
    assert all(f"breaking {rule}: " in line
               for rule, lines in reported.items() for line in lines)
    assert find_cycle(import_graph(modules, imports)) == [
        "game.input.keyboard", "game.view.hud", "game.input.keyboard"]

    _write(tmp_path, {f"game/extra_{n}.py": "" for n in range(7)})
    assert len(top_modules(tmp_path)) == 9 > MAX_TOP_MODULES
    _write(tmp_path, {"game/view/long.py": "x = 1\n" * (MAX_LINES + 1),
                      "game/view/just_fits.py": "x = 1\n" * MAX_LINES})
    assert oversized(tmp_path, "game") == [
        f"game/view/long.py: {MAX_LINES + 1} lines, over the limit of {MAX_LINES}"]


@pytest.mark.parametrize("flags", [["--headless", "--vehicle", "tank"],
                                   ["--headless", "--vehicle", "car"],
                                   ["--serve", "--host", "127.0.0.1", "--port", "0"]],
                         ids=["tank", "car", "server"])
def test_a_headless_run_loads_no_presentation(repo_root, flags):
    script = ("import sys\n"
              "from game.cli import main\n"
              f"assert main({flags + ['--seconds', '0.2', '--bots', '1']}) == 0\n"
              "loaded = sorted(name for name in sys.modules if name.startswith(("
              "'game.view', 'game.input', 'game.audio', 'game.menus', 'direct.showbase',"
              " 'direct.gui', 'game.app', 'game.window_config')))\n"
              "print('loaded:', loaded)\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=repo_root, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "loaded: []" in done.stdout, done.stdout
