"""The game's log (common/logs.py), ``--log-level``, ``--log-file`` and ``--version``, and
the one line saying whether numba's compiled loops run (common/compiled.py)."""

from __future__ import annotations

import importlib.util
import logging
import subprocess
import sys
import types

import pytest

import game
from common import logs
from common import compiled
from game.cli import match_flags_given

EXIT_USAGE = 2


@pytest.fixture(autouse=True)
def fresh_logging():
    """Each test sets up the log itself; none leaves handlers behind."""
    logs.reset_logging()
    yield
    logs.reset_logging()


def test_stderr_shows_the_level_and_above_in_one_compact_line(capsys):
    logs.configure_logging("info")
    log = logging.getLogger("game.sim.example")
    log.debug("too fine")
    log.info("a diagnostic")
    log.warning("something off")
    lines = capsys.readouterr().err.splitlines()
    assert lines == ["tank-battle: info: a diagnostic", "tank-battle: warning: something off"]


def test_the_default_level_shows_warnings_only(capsys):
    logs.configure_logging()
    logging.getLogger("physics.model.example").info("not shown")
    logging.getLogger("bench.example").error("shown")
    assert capsys.readouterr().err.splitlines() == ["tank-battle: error: shown"]


def test_configuring_again_replaces_what_was_set_up(capsys, tmp_path):
    path = tmp_path / "game.log"
    logs.configure_logging("debug", path)
    before = {name: len(logging.getLogger(name).handlers) for name in logs.PACKAGES}
    logs.configure_logging("debug", path)
    assert {name: len(logging.getLogger(name).handlers) for name in logs.PACKAGES} == before
    logging.getLogger("game.example").debug("once")
    logs.reset_logging()
    assert capsys.readouterr().err.splitlines() == ["tank-battle: debug: once"]
    assert path.read_text(encoding="utf-8").count("once") == 1


@pytest.mark.parametrize("text", ["debug", "INFO", "Warning", " error "])
def test_level_names_are_read_in_any_case(text):
    assert logs.parse_level(text) == text.strip().lower()


def test_an_unknown_level_names_the_choices():
    with pytest.raises(ValueError, match="debug, info, warning, error"):
        logs.parse_level("loud")


def test_a_log_file_gets_time_stamped_info_lines_and_pandas_own(tmp_path, capsys):
    """The file keeps INFO whatever stderr shows, and Panda3D's notify lines join it."""
    from panda3d.core import Filename, Texture
    path = tmp_path / "logs" / "game.log"
    assert logs.configure_logging("warning", path) == path
    logging.getLogger("game.example").info("opened the window")
    Texture().read(Filename.fromOsSpecific(str(tmp_path / "missing.png")))  # Panda complains
    logging.getLogger("game.example").warning("after Panda")
    logs.reset_logging()
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0].endswith("INFO game.example: opened the window")
    assert lines[0][:4].isdigit()  # a time stamp first
    assert any("missing.png" in line for line in lines[1:-1]), lines
    assert lines[-1].endswith("WARNING game.example: after Panda")
    assert "opened the window" not in capsys.readouterr().err


def test_a_log_file_starts_afresh_each_run(tmp_path):
    path = tmp_path / "game.log"
    path.write_text("an old run\n", encoding="utf-8")
    logs.configure_logging("info", path)
    logging.getLogger("game.example").info("this run")
    logs.reset_logging()
    assert "an old run" not in path.read_text(encoding="utf-8")


def test_a_log_file_that_cannot_be_opened_is_said_and_skipped(tmp_path, capsys):
    blocker = tmp_path / "blocked"
    blocker.write_text("a file where the folder should be")
    assert logs.configure_logging("info", blocker / "game.log") is None
    assert "no log file" in capsys.readouterr().err


def test_a_packaged_build_logs_to_the_user_data_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("TANK_BATTLE_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delattr(sys, "frozen", raising=False)
    assert logs.default_log_file() is None  # a run from source or a wheel: stderr only
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    expected = tmp_path / "data" / "logs" / "tank-battle.log"
    assert logs.default_log_file() == expected
    assert logs.default_log_file(serving=True) == expected.with_name("tank-battle-server.log")
    for run in ("first", "second"):
        assert logs.configure_logging("warning", expected, keep_previous=True) == expected
        logging.getLogger("game.example").info("%s run", run)
        logs.reset_logging()
    assert "second run" in expected.read_text(encoding="utf-8")
    previous = expected.with_name("tank-battle.previous.log")
    assert logs.previous_log_path(expected) == previous
    assert "first run" in previous.read_text(encoding="utf-8")


def test_the_packaged_log_path_follows_the_platform(tmp_path):
    home = tmp_path / "home"
    assert logs.frozen_log_path(False, {}, "linux", home) == (
        home / ".local" / "share" / "tank-battle" / "logs" / "tank-battle.log")
    assert logs.frozen_log_path(False, {"LOCALAPPDATA": str(tmp_path / "local")}, "win32",
                                home) == (
        tmp_path / "local" / "tank-battle" / "logs" / "tank-battle.log")


def test_log_flags_do_not_make_a_window_skip_the_title_menu():
    assert match_flags_given(["--log-level", "debug", "--log-file", "x.log"]) == set()


# ----- the command line -----------------------------------------------------------------------


def test_version_prints_the_games_version_and_exits_0(run_forked):
    result = run_forked("--version")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"tank-battle {game.__version__}"


def test_a_bad_log_level_is_one_line_naming_the_flag(run_forked):
    result = run_forked("--headless", "--log-level", "loud")
    assert result.returncode == EXIT_USAGE
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "--log-level" in lines[0] and "'loud'" in lines[0]


@pytest.mark.slow
def test_log_flags_on_a_headless_run(run_forked, tmp_path):
    """``--log-level INFO``: the diagnostics on stderr; ``--log-file``: them in the file;
    a user error is still the one line, and the file says why the game stopped."""
    path = tmp_path / "run.log"
    result = run_forked("--headless", "--seconds", "0.5", "--log-level", "INFO",
                        "--log-file", path)
    assert result.returncode == 0, result.stderr
    assert "tank-battle: info: version" in result.stderr
    assert "numba" in path.read_text(encoding="utf-8")
    quiet = run_forked("--headless", "--seconds", "0.5", "--log-file", path)
    assert quiet.returncode == 0 and "tank-battle:" not in quiet.stderr
    broken = run_forked("--headless", "--inputs", tmp_path / "missing.json", "--log-file", path)
    assert broken.returncode == EXIT_USAGE
    assert len(broken.stderr.strip().splitlines()) == 1
    assert "stopped: " in path.read_text(encoding="utf-8")


# ----- numba that cannot cache (a packaged build) -------------------------------------------


def _refusing_njit(*args, cache=False, **options):
    """numba's njit as a frozen build has it: ``cache=True`` refuses at decoration."""
    if cache:
        raise RuntimeError("cannot cache function '_probe': no locator available for file "
                           "'<frozen common.compiled>'")
    raise AssertionError("a loop was compiled without a cache")


def test_numba_that_cannot_cache_sends_every_loop_down_the_plain_path(monkeypatch, caplog):
    monkeypatch.setitem(sys.modules, "numba", types.SimpleNamespace(njit=_refusing_njit))
    spec = importlib.util.spec_from_file_location("frozen_compiled", compiled.__file__)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # a fresh copy: the real module stays as it is
    assert not module.AVAILABLE
    assert "no locator" in module.PLAIN_REASON
    assert module.compiled(lambda: 0) is None
    assert module.compiled(lambda: 0, inline=True) is None
    caplog.set_level(logging.INFO, logger=module.__name__)
    module.log_status()
    assert len(caplog.records) == 1
    assert "plain Python" in caplog.records[0].getMessage()


def test_the_probe_passes_where_numba_caches():
    if compiled.AVAILABLE:
        assert compiled.plain_reason() is None
    assert compiled.plain_reason(_refusing_njit).startswith("numba cannot cache")


FROZEN_NUMBA_RUN = """
import sys, types
def refusing_njit(*args, cache=False, **options):
    if cache:
        raise RuntimeError("cannot cache function: no locator available for file '<frozen>'")
    raise AssertionError("a loop was compiled without a cache")
sys.modules["numba"] = types.SimpleNamespace(njit=refusing_njit)
from game.cli import main
sys.exit(main(["--headless", "--seconds", "1", "--bots", "1", "--log-level", "info"]))
"""


def test_a_battle_runs_where_numba_cannot_cache_and_says_so_once(repo_root):
    done = subprocess.run([sys.executable, "-c", FROZEN_NUMBA_RUN], cwd=repo_root,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    said = [line for line in done.stderr.splitlines() if "plain Python" in line]
    assert len(said) == 1 and "no locator" in said[0], done.stderr


def test_a_crash_leaves_its_traceback_in_the_log_file_only(tmp_path, capsys):
    log_file = tmp_path / "game.log"
    logs.configure_logging("warning", log_file)
    try:
        try:
            raise ZeroDivisionError("the bug")
        except ZeroDivisionError:
            logs.record_crash()
    finally:
        logs.reset_logging()
    text = log_file.read_text()
    assert "CRITICAL" in text and "stopped on an unexpected error" in text
    assert "ZeroDivisionError: the bug" in text and "Traceback" in text
    assert "the bug" not in capsys.readouterr().err  # stderr gets Python's own report
