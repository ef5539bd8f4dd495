"""Loading config/*.toml into validated, frozen specs, and assembling them.

Every spec is declared beside the code it tunes; this module only reads the files
and puts the specs together. :class:`GameConfig` is what the game itself reads
(game.toml, tanks/*.toml, car.toml, gearboxes.toml, shells.toml): everything a headless run,
and a dedicated server, needs. A game in a window also reads view.toml and controls.toml
(:mod:`game.window_config`).

Each file is read with the standard library's tomllib and handed to
:func:`common.spec.build_spec`, which rejects unknown keys, missing keys,
wrong types and out-of-range values. Any problem becomes a :class:`UserError`
naming the file, the key, the value and what was expected.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import Any

from common.errors import CommandLineError, UserError
from common.resources import config_folder
from common.spec import MISSING, Spec, SpecError, build_spec, tuning
from game.sim.ai import AISpec
from game.sim.arena import VEHICLE_KIND_NAMES, SpawnSpec, WorldSpecs
from game.sim.battle import BattleSpec
from game.sim.combat import RangeSpec
from game.sim.local_players import LocalPlayersSpec
from game.sim.net.listing import ListingSpec
from game.sim.net.spec import NetSpec
from game.sim.session import SessionSpecs
from physics.model.ammunition import AirSpec, ShellSpec
from physics.model.ballistics import GunSpec
from physics.model.gearbox import GearboxSpec
from physics.model.parts import DamageSpec
from physics.model.penetration import PenetrationSpec, ShellsConfig
from physics.model.rocks import RockSpec
from physics.model.stepping import SimulationSpec
from physics.model.terrain import TerrainSpec
from physics.model.tracks import TankSpec
from physics.model.wheels import CarSpec

CONFIG_DIR = config_folder()
"""The shipped tuning (``--config DIR`` reads another)."""


def read_toml(path: Path) -> dict[str, Any]:
    """Parse a TOML file; every way it can fail is a one-line UserError."""
    try:
        with open(path, "rb") as stream:
            return tomllib.load(stream)
    except FileNotFoundError:
        raise UserError(path, None, "a TOML file, but there is no such file") from None
    except IsADirectoryError:
        raise UserError(path, None, "a TOML file, but this is a folder") from None
    except PermissionError:
        raise UserError(path, None, "a readable TOML file, but permission was denied") from None
    except OSError as error:  # e.g. a file where a folder on the path should be
        raise UserError(path, None, f"a readable TOML file ({error.strerror})") from None
    except UnicodeDecodeError:
        raise UserError(path, None, "UTF-8 text in TOML syntax") from None
    except tomllib.TOMLDecodeError as error:
        raise UserError(path, None, f"valid TOML syntax ({error})") from None


def load_spec(path: Path, cls: type) -> Any:
    """Read one TOML file into a ``cls`` spec."""
    table = read_toml(path)
    if not table:
        raise UserError(path, None, "TOML tables for " + ", ".join(
            field for field in cls.__dataclass_fields__) + ", but the file is empty")
    try:
        return build_spec(cls, table)
    except SpecError as error:
        raise UserError(path, error.key, error.expected, error.value, has_value=True) from None


@dataclass(frozen=True)
class GameSpec(Spec):
    """config/game.toml: the game's own tables."""

    simulation: SimulationSpec = tuning("fixed-step physics")
    terrain: TerrainSpec = tuning("maps")
    rocks: RockSpec = tuning("rocks on the desert")
    range: RangeSpec = tuning("the firing range map")
    damage: DamageSpec = tuning("what a shell inside breaks, and what broken parts do")
    battle: BattleSpec = tuning("rounds against the bots")
    ai: AISpec = tuning("how the bots drive and shoot")
    spawn: SpawnSpec = tuning("where vehicles start")
    local_players: LocalPlayersSpec = tuning("two players on one machine (--players 2)")
    net: NetSpec = tuning("online play (--serve, --connect)")
    listing: ListingSpec = tuning("the list server (--list-server) and announcing to it")


@dataclass(frozen=True)
class GameConfig:
    """Everything the game itself reads from config/, loaded once at start."""

    game: GameSpec
    tanks: dict[str, TankSpec]
    """The tank classes by name (config/tanks/NAME.toml)."""
    tank_gearboxes: dict[str, GearboxSpec]
    """Each tank class's gearbox, by the class's name."""
    car: CarSpec
    car_gearbox: GearboxSpec
    shells: ShellsConfig

    @property
    def tank(self) -> TankSpec:
        """The class a player drives unless they choose (``[spawn] tank``)."""
        return self.world.tank

    @property
    def tank_gearbox(self) -> GearboxSpec:
        return self.tank_gearboxes[self.game.spawn.tank]

    def with_tank(self, spec: TankSpec, name: str | None = None) -> "GameConfig":
        """This config with the tank class ``name`` (None: the default one) made ``spec``."""
        return replace(self, tanks={**self.tanks, name or self.game.spawn.tank: spec})

    @cached_property
    def world(self) -> WorldSpecs:
        """What a simulation is built from."""
        game = self.game
        return WorldSpecs(game.simulation, game.terrain, game.rocks, game.range, game.spawn,
                          self.tanks, self.tank_gearboxes, self.car, self.car_gearbox,
                          self.shells, game.damage)

    @cached_property
    def session(self) -> SessionSpecs:
        """What a game session is built from."""
        game = self.game
        return SessionSpecs(self.world, game.battle, game.ai, game.local_players)


def load_gearbox(path: Path, name: str, used_by: Path) -> GearboxSpec:
    """The gearbox table ``name`` of gearboxes.toml; every table in the file is checked."""
    gearboxes = {}
    for table_name, table in read_toml(path).items():
        try:
            gearboxes[table_name] = build_spec(GearboxSpec, table, prefix=table_name + ".")
        except SpecError as error:
            raise UserError(path, error.key, error.expected, error.value,
                            has_value=True) from None
    if name not in gearboxes:
        raise UserError(used_by, "gearbox", "the name of a table in " + path.name + " (one of "
                        + ", ".join(sorted(gearboxes)) + ")", name, has_value=True)
    return gearboxes[name]


SHELLS_TABLES = ("air", "penetration", "shells")


def load_shells(path: Path) -> ShellsConfig:
    """config/shells.toml: ``[air]``, ``[penetration]`` and a table ``[shells.NAME]`` for
    each shell, every one checked."""
    table = read_toml(path)
    try:
        for key in table:
            if key not in SHELLS_TABLES:
                raise SpecError(key, table[key], "no such table (known: "
                                + ", ".join(SHELLS_TABLES) + ")")
        shells_table = table.get("shells")
        if not isinstance(shells_table, dict) or not shells_table:
            raise SpecError("shells", shells_table if shells_table is not None else MISSING,
                            "a table [shells.NAME] for each shell (at least one)")
        shells = {name: build_spec(ShellSpec, shell, prefix=f"shells.{name}.")
                  for name, shell in shells_table.items()}
        return ShellsConfig(shells, build_spec(AirSpec, table.get("air", {}), prefix="air."),
                            build_spec(PenetrationSpec, table.get("penetration", {}),
                                       prefix="penetration."))
    except SpecError as error:
        raise UserError(path, error.key, error.expected, error.value, has_value=True) from None


def check_ammunition(gun: GunSpec, shells: ShellsConfig, used_by: Path) -> None:
    """Every shell a gun loads is one of shells.toml's, and of the gun's calibre."""
    for index, load in enumerate(gun.ammunition):
        if load.shell not in shells.shells:
            raise UserError(used_by, f"gun.ammunition[{index}].shell",
                            "the name of a table [shells.NAME] in shells.toml (one of "
                            + ", ".join(sorted(shells.shells)) + ")", load.shell,
                            has_value=True)
        if shells.shells[load.shell].calibre_mm != gun.calibre_mm:
            raise UserError(used_by, f"gun.ammunition[{index}].shell",
                            f"a shell of the gun's calibre, {gun.calibre_mm:g} mm (this one "
                            f"is {shells.shells[load.shell].calibre_mm:g} mm)", load.shell,
                            has_value=True)


TANKS_FOLDER = "tanks"
"""config/tanks/: a TOML file per tank class, named by the class."""


def tank_paths(config_dir: Path) -> dict[str, Path]:
    """The tank classes' files by class name (at least one)."""
    folder = config_dir / TANKS_FOLDER
    if not folder.is_dir():
        raise UserError(folder, None, "a folder of tank classes (NAME.toml each), but there is "
                        "no such folder")
    paths = {path.stem: path for path in sorted(folder.glob("*.toml"))}
    if not paths:
        raise UserError(folder, None, "a TOML file for each tank class (NAME.toml), but it "
                        "holds none")
    for name in paths:
        if name in VEHICLE_KIND_NAMES:
            raise UserError(paths[name], None, "a tank class not named "
                            + " or ".join(VEHICLE_KIND_NAMES) + " (those name other vehicles)")
    return paths


def checked_choices(game: GameSpec, tanks: dict[str, TankSpec], path: Path) -> None:
    """game.toml's tank names are classes in config/tanks/."""
    folder = path.parent / TANKS_FOLDER
    named = [("spawn.tank", game.spawn.tank)] + [
        (f"battle.bot_tanks[{index}]", name) for index, name in enumerate(game.battle.bot_tanks)]
    for key, name in named:
        if name not in tanks:
            raise UserError(path, key, "one of " + ", ".join(tanks) + " (there is no "
                            + str(folder / (name + ".toml")) + ")", name, has_value=True)


def check_tank_class(name: str | None, tanks: dict[str, TankSpec], flag: str = "--tank",
                     replay: Path | None = None) -> None:
    """A tank class a player chose (None: the default) is one of the config's; the error
    names the ``flag`` that chose it, or the ``replay`` file's ``tank``."""
    if name is None or name in tanks:
        return
    if replay is not None:
        raise UserError(replay, "tank", "one of " + ", ".join(tanks) + " (config/tanks/)",
                        name, has_value=True)
    raise CommandLineError(f"{flag} {name}: expected one of " + ", ".join(tanks)
                           + " (the files in config/tanks/)")


def game_specs(config_dir: Path = CONFIG_DIR) -> dict[str, Any]:
    """The game's specs from ``config_dir``: :class:`GameConfig`'s fields by name."""
    config_dir = Path(config_dir)
    car_path = config_dir / "car.toml"
    car = load_spec(car_path, CarSpec)
    gearboxes = config_dir / "gearboxes.toml"
    shells = load_shells(config_dir / "shells.toml")
    loaded, tank_gearboxes = {}, {}
    for name, path in tank_paths(config_dir).items():
        loaded[name] = tank = load_spec(path, TankSpec)
        check_ammunition(tank.gun, shells, path)
        tank_gearboxes[name] = load_gearbox(gearboxes, tank.gearbox, path)
    # Lightest first: the order menus offer them in.
    tanks = dict(sorted(loaded.items(), key=lambda item: item[1].hull.mass_kg))
    game_path = config_dir / "game.toml"
    game = load_spec(game_path, GameSpec)
    checked_choices(game, tanks, game_path)
    return {"game": game, "tanks": tanks, "tank_gearboxes": tank_gearboxes, "shells": shells,
            "car": car, "car_gearbox": load_gearbox(gearboxes, car.gearbox, car_path)}


def load_config(config_dir: Path = CONFIG_DIR) -> GameConfig:
    """What the game itself reads (a headless run, a server)."""
    return GameConfig(**game_specs(config_dir))
