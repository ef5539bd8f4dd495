"""Config loading: the shipped files load, and every kind of bad file is one clear UserError.

Every error must be one line naming the file, the dotted key (where there is one) and
what was expected. The edits find keys by their table and name, not by their
current values, so retuning the shipped files does not break these tests.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from common.errors import UserError
from common.spec import Spec, SpecError, build_spec, tuning
from game.config import GameConfig, load_config
from game.window_config import ViewSpec, WindowConfig, load_window_config
from physics.model.stepping import SimulationSpec

# ----- helpers ------------------------------------------------------------------------


def _table_span(lines: list[str], table: str) -> tuple[int, int]:
    """Line indices [start, end) of the body of ``[table]`` (or of the first ``[[table]]``)."""
    header = re.compile(r"^\s*\[\[?\s*" + re.escape(table) + r"\s*\]\]?\s*(#.*)?$")
    any_header = re.compile(r"^\s*\[")
    for index, line in enumerate(lines):
        if header.match(line):
            end = next((j for j in range(index + 1, len(lines)) if any_header.match(lines[j])),
                       len(lines))
            return index + 1, end
    raise AssertionError(f"no [{table}] in the file")


def _key_line(lines: list[str], table: str, key: str) -> int:
    start, end = _table_span(lines, table)
    pattern = re.compile(r"^\s*" + re.escape(key) + r"\s*=")
    for index in range(start, end):
        if pattern.match(lines[index]):
            return index
    raise AssertionError(f"no {key} in [{table}]")


def set_key(path: Path, table: str, key: str, raw_value: str) -> None:
    """Set ``key`` in ``[table]`` to the TOML text ``raw_value``."""
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[_key_line(lines, table, key)] = f"{key} = {raw_value}"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def delete_key(path: Path, table: str, key: str) -> None:
    lines = path.read_text(encoding="utf-8").splitlines()
    del lines[_key_line(lines, table, key)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def add_line_to_table(path: Path, table: str, line: str) -> None:
    lines = path.read_text(encoding="utf-8").splitlines()
    start, _ = _table_span(lines, table)
    lines.insert(start, line)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def load_error(config_dir: Path) -> str:
    """The message of the UserError loading ``config_dir`` raises (fails if none)."""
    with pytest.raises(UserError) as caught:
        load_window_config(config_dir)
    message = str(caught.value)
    assert "\n" not in message and "\r" not in message, message
    assert "Traceback" not in message
    return message


VIEW_TABLES = {field.name for field in dataclasses.fields(ViewSpec)}


def file_of(table: str) -> str:
    """The config file a table of game.toml's or view.toml's is in."""
    return "view.toml" if table.split(".")[0] in VIEW_TABLES else "game.toml"


def assert_names(message: str, path: Path, key: str | None, *expected: str) -> None:
    assert message.startswith(str(path) + ":"), f"message does not start with the file: {message}"
    if key is not None:
        assert re.search(r"(^|[\s:])" + re.escape(key) + r"( =|:)", message), (
            f"key {key!r} not named: {message}")
    assert "expected" in message, message
    tail = message.split("expected", 1)[1]
    for phrase in expected:
        assert phrase in tail, f"{phrase!r} not in what was expected: {message}"


def _bounds(spec_class: type, name: str) -> str:
    field = next(f for f in dataclasses.fields(spec_class) if f.name == name)
    return f"[{field.metadata['minimum']}, {field.metadata['maximum']}]"


GRAVITY_BOUNDS = _bounds(SimulationSpec, "gravity_m_s2")
SUBSTEP_BOUNDS = _bounds(SimulationSpec, "substeps")

# ----- the shipped files ------------------------------------------------------------------


def test_the_shipped_config_loads(config):
    assert isinstance(config, WindowConfig) and isinstance(config, GameConfig)
    simulation = config.game.simulation
    assert simulation.step_hz > 0 and simulation.substeps >= 1
    assert len(config.view.scene.sky_colour) == 3
    with pytest.raises(dataclasses.FrozenInstanceError):
        simulation.step_hz = 1.0  # type: ignore[misc]


def test_a_copy_loads_the_same(config_copy, config):
    assert load_window_config(config_copy) == config


def test_the_game_alone_reads_no_view_or_controls(config_copy, config):
    """A headless run (a server) reads the game's files only: a broken view.toml or
    controls.toml stops a window, not the game."""
    set_key(config_copy / "view.toml", "window", "title", "1")
    (config_copy / "controls.toml").unlink()
    game = load_config(config_copy)
    assert game == GameConfig(config.game, config.tanks, config.tank_gearboxes, config.car,
                              config.car_gearbox, config.shells)
    assert_names(load_error(config_copy), config_copy / "view.toml", "window.title")


# ----- bad values, through load_config ----------------------------------------------------

BAD_VALUES = [
    # (table, key, TOML text, dotted key, phrases the "expected" part must hold)
    pytest.param("simulation", "gravity_m_s2", '"9.81"', "simulation.gravity_m_s2",
                 ("a number", GRAVITY_BOUNDS), id="string-for-number"),
    pytest.param("simulation", "gravity_m_s2", "true", "simulation.gravity_m_s2",
                 ("a number",), id="bool-for-number"),
    pytest.param("simulation", "substeps", "2.0", "simulation.substeps",
                 ("an integer", SUBSTEP_BOUNDS), id="float-for-int"),
    pytest.param("simulation", "substeps", "true", "simulation.substeps",
                 ("an integer",), id="bool-for-int"),
    pytest.param("simulation", "gravity_m_s2", "{ a = 1 }", "simulation.gravity_m_s2",
                 ("a number",), id="table-for-number"),
    pytest.param("simulation", "gravity_m_s2", "-1.0", "simulation.gravity_m_s2",
                 (GRAVITY_BOUNDS,), id="below-range"),
    pytest.param("simulation", "gravity_m_s2", "1e9", "simulation.gravity_m_s2",
                 (GRAVITY_BOUNDS,), id="above-range"),
    pytest.param("simulation", "substeps", "0", "simulation.substeps",
                 (SUBSTEP_BOUNDS,), id="int-below-range"),
    pytest.param("simulation", "gravity_m_s2", "nan", "simulation.gravity_m_s2",
                 ("finite",), id="nan"),
    pytest.param("simulation", "gravity_m_s2", "inf", "simulation.gravity_m_s2",
                 ("finite",), id="inf"),
    pytest.param("simulation", "gravity_m_s2", "-inf", "simulation.gravity_m_s2",
                 ("finite",), id="minus-inf"),
    pytest.param("scene", "sky_colour", "[0.5, nan, 0.5]", "scene.sky_colour[1]",
                 ("finite",), id="nan-in-a-list"),
    pytest.param("scene", "sky_colour", "[0.5, 1.5, 0.5]", "scene.sky_colour[1]",
                 ("[0.0, 1.0]",), id="list-item-out-of-range"),
    pytest.param("scene", "sky_colour", '[0.5, "blue", 0.5]', "scene.sky_colour[1]",
                 ("a number",), id="list-item-wrong-type"),
    pytest.param("scene", "sky_colour", "[0.5, 0.5]", "scene.sky_colour",
                 ("3 items",), id="list-too-short"),
    pytest.param("scene", "sky_colour", "0.5", "scene.sky_colour",
                 ("a list",), id="number-for-list"),
    pytest.param("window", "title", "[1, 2]", "window.title",
                 ("a string",), id="list-for-string"),
    pytest.param("spawn", "start_gear", '"7"', "spawn.start_gear",
                 ("one of",), id="string-not-a-choice"),
    pytest.param("terrain.test_maps", "size_m", '"big"', "terrain.test_maps.size_m",
                 ("a number",), id="nested-table-value"),
    pytest.param("listing", "url", '"lists.example.org"', "listing.url",
                 ("an address starting http:// or https://",), id="list-url-without-scheme"),
    pytest.param("listing", "announcements_per_minute_most", "60",
                 "listing.announcements_per_minute_most",
                 ("at least 384", "servers_per_address_most"), id="list-rate-below-renewals"),
]


@pytest.mark.parametrize("table, key, raw, dotted, phrases", BAD_VALUES)
def test_a_bad_value_names_file_key_and_what_was_expected(config_copy, table, key, raw,
                                                          dotted, phrases):
    path = config_copy / file_of(table)
    set_key(path, table, key, raw)
    message = load_error(config_copy)
    assert_names(message, path, dotted, *phrases)
    assert "=" in message.split(dotted, 1)[1][:3], f"the bad value is not shown: {message}"


def test_a_missing_key_says_it_is_required_and_what_it_takes(config_copy):
    path = config_copy / "game.toml"
    delete_key(path, "simulation", "gravity_m_s2")
    message = load_error(config_copy)
    assert_names(message, path, "simulation.gravity_m_s2", "required", "a number",
                 GRAVITY_BOUNDS)


def test_a_missing_table_is_named(config_copy):
    path = config_copy / "game.toml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("[spawn]", "[spawn_renamed]", 1), encoding="utf-8")
    message = load_error(config_copy)
    # Either complaint is right: the unknown table or the missing one.
    assert_names(message, path, None)
    assert "spawn_renamed" in message or re.search(r"\bspawn\b", message), message


def test_an_unknown_top_level_key(config_copy):
    path = config_copy / "game.toml"
    path.write_text("bogus_key = 1\n" + path.read_text(encoding="utf-8"), encoding="utf-8")
    message = load_error(config_copy)
    assert_names(message, path, "bogus_key", "no such key", "simulation")


def test_an_unknown_key_in_a_nested_table(config_copy):
    path = config_copy / "game.toml"
    add_line_to_table(path, "terrain.test_maps", "bogus_key = 1")
    message = load_error(config_copy)
    assert_names(message, path, "terrain.test_maps.bogus_key", "no such key", "size_m")


def _array_of_tables_headers() -> list[tuple[str, str]]:
    """(file name, table) for the first [[table]] of each shipped file that has one."""
    found = []
    config = Path(__file__).resolve().parents[1] / "config"
    for path in sorted(config.rglob("*.toml")):
        match = re.search(r"^\s*\[\[\s*([\w.]+)\s*\]\]", path.read_text(encoding="utf-8"),
                          re.MULTILINE)
        if match:
            found.append((path.relative_to(config).as_posix(), match.group(1)))
    return found


ARRAYS_OF_TABLES = _array_of_tables_headers()


def test_the_shipped_config_has_an_array_of_tables():
    assert ARRAYS_OF_TABLES, "no [[array.of.tables]] left in config/: the next test tests nothing"


@pytest.mark.parametrize("file_name, table", ARRAYS_OF_TABLES,
                         ids=[f"{f}:{t}" for f, t in ARRAYS_OF_TABLES])
def test_an_unknown_key_in_an_array_of_tables(config_copy, file_name, table):
    path = config_copy / file_name
    add_line_to_table(path, table, "bogus_key = 1")
    message = load_error(config_copy)
    assert_names(message, path, f"{table}[0].bogus_key", "no such key")


# ----- broken files --------------------------------------------------------------------------


def test_bad_toml_syntax_names_the_line(config_copy):
    path = config_copy / "game.toml"
    set_key(path, "simulation", "gravity_m_s2", "= 9.81")
    message = load_error(config_copy)
    line = path.read_text(encoding="utf-8").splitlines().index("gravity_m_s2 = = 9.81") + 1
    assert_names(message, path, None, "TOML", f"line {line}")


def test_a_duplicate_key_is_a_syntax_error(config_copy):
    path = config_copy / "game.toml"
    add_line_to_table(path, "simulation", "gravity_m_s2 = 9.81")
    assert_names(load_error(config_copy), path, None, "TOML")


@pytest.mark.parametrize("content", ["", "# only a comment\n", "\n\n"],
                         ids=["empty", "comment-only", "blank-lines"])
def test_an_empty_file(config_copy, content):
    path = config_copy / "game.toml"
    path.write_text(content, encoding="utf-8")
    assert_names(load_error(config_copy), path, None, "empty")


@pytest.mark.parametrize("name", ["game.toml", "car.toml", "gearboxes.toml", "view.toml",
                                  "controls.toml"])
def test_a_missing_file(config_copy, name):
    path = config_copy / name
    path.unlink()
    assert_names(load_error(config_copy), path, None, "no such file")


def test_a_missing_tank_class_is_named_where_game_toml_asks_for_it(config_copy):
    path = config_copy / "tanks" / "medium.toml"
    path.unlink()
    assert_names(load_error(config_copy), config_copy / "game.toml", "spawn.tank",
                 "one of light, heavy", str(path))


def test_a_config_without_the_tanks_folder_says_so(config_copy):
    shutil.rmtree(config_copy / "tanks")
    assert_names(load_error(config_copy), config_copy / "tanks", None, "folder of tank classes")


def test_each_tank_class_loads_with_its_own_gearbox_and_shells(config):
    assert list(config.tanks) == ["light", "medium", "heavy"]  # lightest first
    assert [tank.hull.mass_kg for tank in config.tanks.values()] == [23500.0, 45000.0, 69800.0]
    redlines = {name: gearbox.redline_rpm for name, gearbox in config.tank_gearboxes.items()}
    assert redlines == {"light": 2800.0, "medium": 3000.0, "heavy": 3000.0}
    calibres = {name: {config.shells.shells[load.shell].calibre_mm
                       for load in tank.gun.ammunition} for name, tank in config.tanks.items()}
    assert calibres == {"light": {76.2}, "medium": {75.0}, "heavy": {88.0}}


def test_a_folder_where_a_file_should_be(config_copy):
    path = config_copy / "tanks" / "medium.toml"
    path.unlink()
    path.mkdir()
    assert_names(load_error(config_copy), path, None, "folder")


def test_a_config_dir_that_is_a_file(tmp_path):
    not_a_folder = tmp_path / "config"
    not_a_folder.write_text("x", encoding="utf-8")
    message = load_error(not_a_folder)
    assert message.startswith(str(not_a_folder)), message


@pytest.mark.parametrize("garbage", [bytes(range(256)) * 4, b"\xff\xfe\x00\x01",
                                     b"\x00\x01\x02\x03 abc \x7f", b"\x89PNG\r\n\x1a\n" * 8],
                         ids=["all-bytes", "utf16-bom", "control-bytes", "png-header"])
def test_binary_garbage(config_copy, garbage):
    path = config_copy / "tanks" / "medium.toml"
    path.write_bytes(garbage)
    message = load_error(config_copy)
    assert_names(message, path, None)
    assert "UTF-8" in message or "TOML" in message, message


def test_a_key_with_a_line_break_still_gives_one_line(config_copy):
    path = config_copy / "game.toml"
    path.write_text('"bad\\nkey" = 1\n' + path.read_text(encoding="utf-8"), encoding="utf-8")
    message = load_error(config_copy)  # asserts one line
    assert_names(message, path, None, "no such key")
    assert "bad\\nkey" in message


# ----- through the command line ----------------------------------------------------------------


def test_the_cli_reports_a_bad_config_in_one_line_and_exits_2(config_copy, run_forked):
    path = config_copy / "game.toml"
    set_key(path, "simulation", "gravity_m_s2", '"strong"')
    result = run_forked("--headless", "--seconds", "0.1", "--config", config_copy)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert str(path) in lines[0] and "simulation.gravity_m_s2" in lines[0], lines[0]
    assert "expected a number" in lines[0], lines[0]
    assert result.stdout == ""


def test_the_cli_reports_a_garbage_file_in_one_line_and_exits_2(config_copy, run_forked):
    path = config_copy / "tanks" / "medium.toml"
    path.write_bytes(bytes(range(256)))
    result = run_forked("--headless", "--seconds", "0.1", "--config", config_copy)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0], result.stderr


def test_a_window_reports_a_bad_view_file_before_it_opens(config_copy, run_forked):
    path = config_copy / "view.toml"
    set_key(path, "hud", "text_scale", "-1.0")
    result = run_forked("--offscreen", "--seconds", "0.1", "--config", config_copy)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and "hud.text_scale" in lines[0], lines


# ----- common.spec on its own ---------------------------------------------------------------


@dataclass(frozen=True)
class Span(Spec):
    low_m: float = tuning("low end", minimum=0.0)
    high_m: float = tuning("high end", minimum=0.0, maximum=100.0)
    count: int = tuning("how many", minimum=1, maximum=3, default=2)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.high_m <= self.low_m:
            raise SpecError("high_m", self.high_m, f"more than low_m = {self.low_m}")


@dataclass(frozen=True)
class Tiny(Spec):
    speed: float = tuning("a speed", minimum=0.0, maximum=10.0)
    span: Span = tuning("a sub-table")
    mode: str = tuning("a choice", choices=("fast", "slow"), default="fast")
    label: str = tuning("free text", default="tiny")
    enabled: bool = tuning("a switch", default=True)
    colour: tuple[float, ...] = tuning("three numbers", minimum=0.0, maximum=1.0,
                                       length=(3, 3), default=(0.5, 0.5, 0.5))
    spans: tuple[Span, ...] = tuning("an array of tables", length=(1, 4),
                                     default=(Span(low_m=0.0, high_m=1.0),))


MINIMAL = {"speed": 1, "span": {"low_m": 0, "high_m": 2}}


def spec_error(table: dict) -> SpecError:
    with pytest.raises(SpecError) as caught:
        build_spec(Tiny, table)
    assert isinstance(caught.value, ValueError)
    return caught.value


def test_spec_defaults_fill_in_and_ints_become_floats():
    tiny = build_spec(Tiny, MINIMAL)
    assert tiny.speed == 1.0 and isinstance(tiny.speed, float)
    assert tiny.span == Span(low_m=0.0, high_m=2.0, count=2)
    assert isinstance(tiny.span.low_m, float)
    assert (tiny.mode, tiny.label, tiny.enabled) == ("fast", "tiny", True)
    assert tiny.colour == (0.5, 0.5, 0.5)
    assert tiny.spans == (Span(low_m=0.0, high_m=1.0),)


def test_spec_lists_become_tuples_and_tables_become_specs():
    tiny = build_spec(Tiny, {**MINIMAL, "colour": [0, 1, 0.25],
                             "spans": [{"low_m": 1, "high_m": 2}, {"low_m": 0, "high_m": 5,
                                                                  "count": 3}]})
    assert tiny.colour == (0.0, 1.0, 0.25) and all(isinstance(c, float) for c in tiny.colour)
    assert tiny.spans == (Span(1.0, 2.0), Span(0.0, 5.0, 3))


@pytest.mark.parametrize("colour, phrase", [([0.1, 0.2], "3 items"),
                                            ([0.1, 0.2, 0.3, 0.4], "3 items")])
def test_spec_fixed_tuple_length(colour, phrase):
    error = spec_error({**MINIMAL, "colour": colour})
    assert error.key == "colour" and phrase in error.expected


@pytest.mark.parametrize("count", [0, 5])
def test_spec_tuple_length_range(count):
    error = spec_error({**MINIMAL, "spans": [{"low_m": 0, "high_m": 1}] * count})
    assert error.key == "spans" and "1 to 4 items" in error.expected


def test_spec_choices():
    assert build_spec(Tiny, {**MINIMAL, "mode": "slow"}).mode == "slow"
    error = spec_error({**MINIMAL, "mode": "warp"})
    assert error.key == "mode" and "'fast'" in error.expected and "'slow'" in error.expected
    assert spec_error({**MINIMAL, "mode": 1}).key == "mode"


@pytest.mark.parametrize("table, key, phrase", [
    ({"span": {"low_m": 0, "high_m": 2}}, "speed", "required"),
    ({"speed": 1}, "span", "a table"),
    ({"speed": 1, "span": {"low_m": 0}}, "span.high_m", "required"),
    ({**MINIMAL, "bogus": 1}, "bogus", "no such key"),
    ({**MINIMAL, "span": {"low_m": 0, "high_m": 2, "bogus": 1}}, "span.bogus", "no such key"),
    ({**MINIMAL, "spans": [{"low_m": 0, "high_m": 1}, {"low_m": 0, "high_m": 1, "x": 1}]},
     "spans[1].x", "no such key"),
    ({**MINIMAL, "spans": [1.0]}, "spans[0]", "a table"),
    ({**MINIMAL, "span": 3}, "span", "a table"),
    ({**MINIMAL, "speed": "1"}, "speed", "a number"),
    ({**MINIMAL, "speed": True}, "speed", "a number"),
    ({**MINIMAL, "speed": 11}, "speed", "[0.0, 10.0]"),
    ({**MINIMAL, "speed": float("nan")}, "speed", "finite"),
    ({**MINIMAL, "span": {"low_m": 0, "high_m": 2, "count": 2.0}}, "span.count", "an integer"),
    ({**MINIMAL, "span": {"low_m": 0, "high_m": 2, "count": False}}, "span.count", "an integer"),
    ({**MINIMAL, "enabled": 1}, "enabled", "true or false"),
    ({**MINIMAL, "label": 5}, "label", "a string"),
    ({**MINIMAL, "colour": [0.1, 2.0, 0.1]}, "colour[1]", "[0.0, 1.0]"),
    ({**MINIMAL, "colour": "red"}, "colour", "a list"),
    ({**MINIMAL, "span": {"low_m": 5, "high_m": 2}}, "span.high_m", "more than low_m"),
    ({**MINIMAL, "spans": [{"low_m": 0, "high_m": 1}, {"low_m": 3, "high_m": 1}]},
     "spans[1].high_m", "more than low_m"),
], ids=lambda value: value if isinstance(value, str) else None)
def test_spec_errors_name_the_dotted_key(table, key, phrase):
    error = spec_error(table)
    assert error.key == key, str(error)
    assert phrase in error.expected, str(error)


def test_a_missing_value_is_not_shown_as_a_string():
    error = spec_error({"span": {"low_m": 0, "high_m": 2}})
    assert "'" not in str(error).split("expected")[0], str(error)
    assert "a number in [0.0, 10.0]" in error.expected


def test_specs_validate_when_made_directly():
    with pytest.raises(SpecError) as caught:
        Tiny(speed=-1.0, span=Span(0.0, 1.0))
    assert caught.value.key == "speed"
    with pytest.raises(SpecError):
        Span(low_m=2.0, high_m=1.0)


def test_the_cli_takes_a_tank_class_and_refuses_one_it_lacks(run_forked, tmp_path, config):
    telemetry = tmp_path / "heavy.jsonl"
    result = run_forked("--headless", "--tank", "heavy", "--seconds", "0.5", "--telemetry",
                        telemetry)
    assert result.returncode == 0, result.stderr
    heavy = config.tanks["heavy"].armour.health
    assert heavy != config.tank.armour.health  # told apart from the default class's
    assert json.loads(telemetry.read_text().splitlines()[0])["health"] == heavy
    result = run_forked("--headless", "--tank", "superheavy", "--seconds", "0.5")
    assert result.returncode == 2
    line = result.stderr.strip()
    assert len(line.splitlines()) == 1, line
    assert "--tank superheavy" in line and "light, medium, heavy" in line, line
