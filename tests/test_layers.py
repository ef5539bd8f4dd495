"""The layout's import rules, read from every module's source (no module is imported).

- ``physics/model`` is the pure model: numpy and numba, never panda3d, Bullet or the game;
- ``game/sim`` is the headless game: it never imports the view, input or audio packages,
  the top (app, command line, config, the player's settings files), ShowBase or DirectGUI;
- the project's modules import one another without a cycle.

And the headless run and the dedicated server load none of the view, input or audio
modules, nor Panda's ShowBase, DirectGUI or audio manager.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("game", "physics", "bench", "tools")
PRESENTATION = ("game.view", "game.input", "game.audio")
TOP = ("game.app", "game.cli", "game.config", "game.window_config", "common.settings")


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def project_modules() -> dict[str, Path]:
    modules = {module_name(path): path for package in PACKAGES
               for path in (REPO / package).rglob("*.py")}
    modules["main"] = REPO / "main.py"
    return modules


MODULES = project_modules()


def imports_of(module: str, path: Path) -> set[str]:
    """Every module ``module`` (at ``path``) imports, anywhere in it (inside functions too)."""
    found = set()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            found.add(base)
            # "from package import module" imports that module
            found.update(f"{base}.{alias.name}" for alias in node.names
                         if f"{base}.{alias.name}" in MODULES)
    return found


def within(name: str, prefixes) -> bool:
    return any(name == prefix or name.startswith(prefix + ".") for prefix in prefixes)


def offending(layer: str, forbidden, modules: dict[str, Path] = MODULES) -> list[str]:
    return sorted(f"{module} imports {imported}"
                  for module, path in modules.items() if within(module, (layer,))
                  for imported in imports_of(module, path) if within(imported, forbidden))


def test_the_model_is_pure():
    assert offending("physics.model", ("panda3d", "direct", "physics.bullet", "game",
                                       "bench", "tools")) == []


def test_the_headless_game_imports_no_presentation():
    assert offending("game.sim", PRESENTATION + TOP + ("direct", "bench", "tools")) == []


def test_the_bullet_adapter_knows_nothing_of_the_game():
    assert offending("physics.bullet", ("game", "bench", "tools", "direct")) == []


def project_graph() -> dict[str, set[str]]:
    graph = {}
    for module, path in MODULES.items():
        targets = set()
        for imported in imports_of(module, path):
            # "import a.b.c" depends on a.b.c; a name inside a module depends on the module
            while imported and imported not in MODULES:
                imported = imported.rpartition(".")[0]
            if imported and imported != module and not module.startswith(imported + "."):
                targets.add(imported)
        graph[module] = targets
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


def test_no_import_cycles():
    assert find_cycle(project_graph()) is None, " -> ".join(find_cycle(project_graph()))


def test_the_cycle_finder_finds_one():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_the_rules_see_a_forbidden_import(tmp_path):
    leak = tmp_path / "leak.py"
    leak.write_text("def draw():\n    from game.view.hud.hud import Hud\n")
    assert offending("game.sim", PRESENTATION, {"game.sim.leak": leak}) == [
        "game.sim.leak imports game.view.hud.hud"]


@pytest.mark.parametrize("flags", [["--headless", "--vehicle", "tank"],
                                   ["--headless", "--vehicle", "car"],
                                   ["--serve", "--host", "127.0.0.1", "--port", "0"]],
                         ids=["tank", "car", "server"])
def test_a_headless_run_loads_no_presentation(repo_root, flags):
    script = ("import sys\n"
              "from game.cli import main\n"
              f"assert main({flags + ['--seconds', '0.2', '--bots', '1']}) == 0\n"
              "loaded = sorted(name for name in sys.modules if name.startswith(("
              "'game.view', 'game.input', 'game.audio', 'direct.showbase', 'direct.gui',"
              " 'game.app', 'game.window_config')))\n"
              "print('loaded:', loaded)\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=repo_root, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "loaded: []" in done.stdout, done.stdout
