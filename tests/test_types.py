"""The type checker over the layers below the window (pyproject.toml's [tool.mypy]): no
errors, and the local and the online game both satisfy the Protocols the window reads."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

mypy_api = pytest.importorskip("mypy.api")

ROOT = Path(__file__).resolve().parent.parent


def _mypy(*arguments: str) -> tuple[str, int]:
    stdout, stderr, status = mypy_api.run(["--config-file", str(ROOT / "pyproject.toml"),
                                           "--no-error-summary", *arguments])
    return stdout + stderr, status


def _errors(report: str) -> list[str]:
    return [line for line in report.splitlines() if ": error:" in line]


def test_the_layers_below_the_window_type_check(monkeypatch):
    monkeypatch.chdir(ROOT)
    report, status = _mypy()
    assert _errors(report) == [] and status == 0, report


def test_an_implementation_missing_a_member_fails_the_check(tmp_path, monkeypatch):
    """The check has teeth: a world that lacks what the window reads is refused, naming
    it and the Protocol."""
    monkeypatch.chdir(ROOT)
    module = tmp_path / "half_world.py"
    module.write_text(textwrap.dedent("""
        from game.sim.interfaces import DrawnSimulation


        class HalfWorld:
            @property
            def time_s(self) -> float:
                return 0.0


        def drawn(world: HalfWorld) -> DrawnSimulation:
            return world
    """))
    report, status = _mypy(str(module))
    errors = _errors(report)
    assert status == 1 and errors, report
    assert any('"HalfWorld"' in line and '"DrawnSimulation"' in line for line in errors), report
