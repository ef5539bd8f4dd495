"""Loading config/*.toml into validated, frozen specs.

Each file is read with the standard library's tomllib and handed to
:func:`physics.spec.build_spec`, which rejects unknown keys, missing keys,
wrong types and out-of-range values. Any problem becomes a :class:`UserError`
naming the file, the key, the value and what was expected.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from game.controls import GEAR_NAMES
from game.errors import UserError
from game.keyboard import ControlsSpec
from physics.gearbox import GearboxSpec
from physics.spec import Spec, SpecError, build_spec, tuning
from physics.rocks import RockSpec
from physics.terrain import TerrainSpec
from physics.car_drive import CarSpec
from physics.tank_drive import TankSpec
from physics.world import SimulationSpec

CONFIG_DIR = Path(__file__).resolve().parent.parent / "config"


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
class WindowSpec(Spec):
    title: str = tuning("window title")
    width_px: int = tuning("window width", minimum=320, maximum=7680)
    height_px: int = tuning("window height", minimum=200, maximum=4320)


@dataclass(frozen=True)
class CameraSpec(Spec):
    distance_m: float = tuning("how far behind the vehicle the camera sits", minimum=1.0,
                               maximum=100.0)
    height_m: float = tuning("how far above the vehicle the camera sits", minimum=0.0,
                             maximum=50.0)
    look_ahead_m: float = tuning("the camera aims at this point ahead of the vehicle",
                                 minimum=0.0, maximum=100.0)
    field_of_view_deg: float = tuning("vertical field of view", minimum=20.0, maximum=120.0)
    follow_frequency_hz: float = tuning("natural frequency of the critically damped spring the "
                                        "camera follows with", minimum=0.1, maximum=20.0)
    near_clip_m: float = tuning("the near clipping distance", minimum=0.01, maximum=10.0)
    terrain_clearance_m: float = tuning("the camera never goes lower than this above the ground",
                                        minimum=0.1, maximum=10.0)
    far_clip_m: float = tuning("the far clipping distance", minimum=100.0, maximum=20000.0)


@dataclass(frozen=True)
class SceneSpec(Spec):
    sky_colour: tuple[float, ...] = tuning("sky (background) colour, RGB 0..1",
                                           minimum=0.0, maximum=1.0, length=(3, 3))
    fog_colour: tuple[float, ...] = tuning("distance fog colour at the horizon, RGB 0..1",
                                           minimum=0.0, maximum=1.0, length=(3, 3))
    fog_density_per_m: float = tuning("exponential fog density", minimum=0.0, maximum=0.1)
    sun_heading_deg: float = tuning("compass direction the sunlight comes from",
                                    minimum=-360.0, maximum=360.0)
    sun_elevation_deg: float = tuning("sun's height above the horizon", minimum=1.0,
                                      maximum=90.0)
    sun_colour: tuple[float, ...] = tuning("sunlight colour and strength, RGB", minimum=0.0,
                                           maximum=4.0, length=(3, 3))
    ambient_colour: tuple[float, ...] = tuning("sky light from every direction, RGB",
                                               minimum=0.0, maximum=4.0, length=(3, 3))
    sand_light_colour: tuple[float, ...] = tuning("colour of crests and flat sand, RGB 0..1",
                                                  minimum=0.0, maximum=1.0, length=(3, 3))
    sand_dark_colour: tuple[float, ...] = tuning("colour of troughs and steep faces, RGB 0..1",
                                                 minimum=0.0, maximum=1.0, length=(3, 3))
    vehicle_colour: tuple[float, ...] = tuning("vehicle paint, RGB 0..1",
                                               minimum=0.0, maximum=1.0, length=(3, 3))
    track_colour: tuple[float, ...] = tuning("tracks, RGB 0..1", minimum=0.0, maximum=1.0,
                                             length=(3, 3))


@dataclass(frozen=True)
class SpawnSpec(Spec):
    drop_height_m: float = tuning("vehicles start this far above their ride height",
                                  minimum=0.0, maximum=50.0)
    start_gear: str = tuning("the gear vehicles start in", choices=GEAR_NAMES)
    swap_offset_m: float = tuning("a vehicle the player swaps into appears this far to the "
                                  "right", minimum=3.0, maximum=50.0)


@dataclass(frozen=True)
class GameSpec(Spec):
    simulation: SimulationSpec = tuning("fixed-step physics")
    terrain: TerrainSpec = tuning("maps")
    rocks: RockSpec = tuning("rocks on the desert")
    spawn: SpawnSpec = tuning("where vehicles start")
    window: WindowSpec = tuning("the game window")
    camera: CameraSpec = tuning("the chase camera")
    scene: SceneSpec = tuning("sky, sun, fog and colours")


@dataclass(frozen=True)
class GameConfig:
    """Everything the game reads from config/, loaded once at start."""

    game: GameSpec
    tank: TankSpec
    tank_gearbox: GearboxSpec
    car: CarSpec
    car_gearbox: GearboxSpec
    controls: ControlsSpec


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


def load_config(config_dir: Path = CONFIG_DIR) -> GameConfig:
    config_dir = Path(config_dir)
    tank_path = config_dir / "tank.toml"
    tank = load_spec(tank_path, TankSpec)
    car_path = config_dir / "car.toml"
    car = load_spec(car_path, CarSpec)
    gearboxes = config_dir / "gearboxes.toml"
    return GameConfig(game=load_spec(config_dir / "game.toml", GameSpec), tank=tank,
                      tank_gearbox=load_gearbox(gearboxes, tank.gearbox, tank_path),
                      car=car, car_gearbox=load_gearbox(gearboxes, car.gearbox, car_path),
                      controls=load_spec(config_dir / "controls.toml", ControlsSpec))
