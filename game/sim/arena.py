"""The ground a game is fought on: the Bullet world with the terrain, the map's edges, the
rocks and the firing range's plates, where the players start, and one fleet per kind of
vehicle, built from the world's specs, a ``--map`` choice and a seed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace

import numpy as np

from game.sim.combat import Plate, RangeSpec, build_plates
from game.sim.controls import GEAR_NAMES
from physics.bullet.bodies import make_rock_body, map_walls, terrain_collider
from physics.bullet.ground_pieces import GroundPieces
from physics.bullet.fleet import VehicleFleet
from physics.bullet.terrain_tiles import StreamedColliders
from physics.bullet.world import PhysicsWorld
from physics.model.craters import CraterSpec, checked_crater
from physics.model.gearbox import GearboxSpec
from physics.model.parts import DamageSpec
from physics.model.penetration import ShellsConfig
from physics.model.rocks import Rock, RockSpec, scatter_rocks
from common.spec import Spec, tuning
from physics.model.stepping import SimulationSpec
from physics.model.terrain import MapChoice, Terrain, TerrainSpec, build_terrain
from physics.model.tile_rocks import TileRocks
from physics.model.tiled_terrain import TiledTerrain
from physics.model.tracks import TankSpec
from physics.model.wheels import CarSpec

GEARBOXES = ("automatic", "manual")
"""How a player may drive: the automatic gearbox or their own shifts."""
TANK, CAR = "tank", "car"
"""The two kinds of vehicle a player may choose (``--vehicle``): a tank, of one of the
classes in config/tanks/, or the car."""
VEHICLE_KIND_NAMES = (TANK, CAR)


@dataclass(frozen=True)
class SpawnSpec(Spec):
    drop_height_m: float = tuning("vehicles start this far above their ride height",
                                  minimum=0.0, maximum=50.0)
    start_gear: str = tuning("the gear vehicles start in", choices=GEAR_NAMES)
    tank: str = tuning("the tank class a player drives unless they choose another (a file "
                       "config/tanks/NAME.toml)")
    swap_offset_m: float = tuning("a vehicle the player swaps into appears this far to the "
                                  "right", minimum=3.0, maximum=50.0)
    below_ground_limit_m: float = tuning("a vehicle's centre this far below the ground has "
                                         "fallen through: it is set back on top", minimum=0.1,
                                         maximum=50.0)


@dataclass(frozen=True)
class WorldSpecs:
    """Everything a simulation is built from: the fixed step, the maps, the tank classes,
    the car and their gearboxes, the shells (``game.config`` assembles it from
    config/*.toml)."""

    simulation: SimulationSpec
    terrain: TerrainSpec
    rocks: RockSpec
    range: RangeSpec
    spawn: SpawnSpec
    tanks: Mapping[str, TankSpec]
    """The tank classes by name (config/tanks/NAME.toml)."""
    tank_gearboxes: Mapping[str, GearboxSpec]
    car: CarSpec
    car_gearbox: GearboxSpec
    shells: ShellsConfig
    """What the guns fire (config/shells.toml)."""
    damage: DamageSpec
    """What a shell inside a tank breaks, and what broken parts do (``[damage]``)."""

    @property
    def tank(self) -> TankSpec:
        """The class a player drives unless they choose (``[spawn] tank``)."""
        return self.tanks[self.spawn.tank]

    def with_tank(self, spec: TankSpec, name: str | None = None) -> "WorldSpecs":
        """These specs with the tank class ``name`` (None: the default one) made ``spec``."""
        return replace(self, tanks={**self.tanks, name or self.spawn.tank: spec})

    def tank_class(self, name: str | None = None) -> str:
        """A tank class's name: ``name``, or the default one (``[spawn] tank``) for None."""
        return name or self.spawn.tank


class Arena:
    """The world, the terrain and what stands on it, and the fleets: one for the tanks of
    every class, one for the car."""

    def __init__(self, specs: WorldSpecs, map_choice: MapChoice, seed: int):
        self.specs = specs
        self.world = PhysicsWorld(specs.simulation)
        self.terrain = terrain = build_terrain(map_choice, specs.terrain, seed)
        self._desert = map_choice.kind == "desert"
        self._rock_spec = specs.rocks
        self.colliders: StreamedColliders | None = None
        """A big desert's colliders, streamed round what moves (None: one for the map)."""
        self.fleets: dict[str, VehicleFleet] = {}
        """The tanks' fleets and the car's: every tank class with as many anchors as the
        default one shares its fleet, ``"tank"`` (a class with another count has one of
        its own, by its name); the car's is ``"car"``."""
        self.tank_kinds: dict[str, tuple[VehicleFleet, int]] = {}
        """Each tank class's fleet and its kind there, by name."""
        default = specs.tank_class()
        for name in [default] + [name for name in specs.tanks if name != default]:
            spec, gearbox = specs.tanks[name], specs.tank_gearboxes[name]
            anchors = len(spec.suspension.anchors)
            fleet = next((fleet for fleet in self.fleets.values()
                          if len(fleet.constants.position_bs) == anchors), None)
            if fleet is None:
                fleet = self.fleets[TANK if not self.fleets else name] = VehicleFleet(
                    self.world, self.terrain, spec, gearbox)
                self.tank_kinds[name] = fleet, 0
            else:
                self.tank_kinds[name] = fleet, fleet.add_kind(spec, gearbox)
        self.fleets[CAR] = VehicleFleet(self.world, self.terrain, specs.car, specs.car_gearbox)
        self.spawn_points = [(0.0, 0.0)]
        """Where the player starts (x, y): the map's centre, or the range's firing line."""
        if isinstance(terrain, TiledTerrain):
            desert = specs.terrain.desert
            terrain.scatter_rocks(TileRocks(
                terrain.field, specs.rocks, seed, specs.rocks.count / desert.size_m ** 2,
                self.spawn_points))
            self.colliders = StreamedColliders(self.world, terrain, list(self.fleets.values()),
                                               specs.terrain.craters.collider_piece_cells)
        self.crater_spec: CraterSpec | None = (specs.terrain.craters if self._desert
                                               else None)
        """How shells dig into this map's sand (None: they do not, off the deserts)."""
        self._pieces: GroundPieces | None = None
        """The 512 m desert's ground collider, in pieces a crater builds again one by one
        (None: a big desert's tiles, or another map's one collider)."""
        if isinstance(terrain, Terrain):
            if self.crater_spec is not None:
                self._pieces = GroundPieces.of_map(self.world, terrain,
                                                   self.crater_spec.collider_piece_cells)
            else:
                self.world.add_body(terrain_collider(terrain), owner=terrain)
        self.world.add_body(map_walls(self.terrain), owner=self.terrain)
        self.plates: list[Plate] = []
        if map_choice.kind == "range":
            range_spec = specs.range
            self.spawn_points = [(0.0, -self.terrain.half_extent_y_m
                                  + range_spec.spawn_from_edge_m)]
            self.plates = build_plates(self.world, range_spec, self.spawn_points[0],
                                       float(self.terrain.height_at(*self.spawn_points[0])))
        self._rocks: list[Rock] = []
        """The 512 m desert's rocks (a big desert's come and go with its tiles)."""
        if map_choice.kind == "desert" and isinstance(terrain, Terrain):
            self._rocks = scatter_rocks(terrain, specs.rocks, seed, self.spawn_points)
            for number, rock in enumerate(self._rocks):
                terrain.paint_surface(rock.position_ws[0], rock.position_ws[1],
                                      rock.radius_m * specs.rocks.rock_ground_scale, "rock")
                body = make_rock_body(rock, f"rock-{number}")
                self.world.add_body(body, owner=rock)
                for fleet in self.fleets.values():
                    fleet.add_obstacle(body, rock.bounds_bs())

    def fleet_for(self, kind: str, tank_class: str | None = None) -> tuple[VehicleFleet, int]:
        """The fleet a vehicle of ``kind`` ("tank" or "car") drives in, and its kind there
        (a tank's class; None: the default one). KeyError: no such class."""
        if kind == CAR:
            return self.fleets[CAR], 0
        return self.tank_kinds[tank_class or self.specs.tank_class()]

    @property
    def rocks(self) -> list[Rock]:
        """The rocks in the world: all of the map's, or a big desert's near what moves."""
        return self._rocks if self.colliders is None else self.colliders.rocks

    def rock_gap_m(self, x_m: float, y_m: float) -> float:
        """The gap from (x, y) to the edge of the nearest rock on the map, tiles made or not
        (inf with none within the largest rock's reach): where a tank may start."""
        reach_m = 2.0 * self._rock_spec.max_radius_m
        if isinstance(self.terrain, TiledTerrain):
            keys = self.terrain.tiles_near(np.array([x_m, y_m]), reach_m)
            rocks = [rock for key in keys for rock in self.terrain.tile_rocks(key)]
        else:
            rocks = self._rocks
        return min((math.hypot(x_m - float(rock.position_ws[0]),
                               y_m - float(rock.position_ws[1])) - rock.radius_m
                    for rock in rocks), default=math.inf)

    @property
    def rocks_revision(self) -> int:
        """Changes whenever :attr:`rocks` does (a big desert's come and go with tiles)."""
        return 0 if self.colliders is None else self.colliders.revision

    @property
    def colliders_resident(self) -> int | None:
        """On a desert, how many terrain colliders are in the Bullet world now: a big
        desert's tiles near what moves, or the 512 m desert's pieces (None: another map)."""
        if self.colliders is not None:
            return self.colliders.resident
        return self._pieces.count if self._pieces is not None else None

    @property
    def streams(self) -> bool:
        """Whether the tiles and colliders follow what moves (a big desert's)."""
        return self.colliders is not None

    def stream(self, vehicles_xy: np.ndarray, shells_ws: np.ndarray | None = None,
               shell_reach_m=0.0, shell_velocities_ws: np.ndarray | None = None,
               gravity_m_s2: float = 0.0) -> None:
        """Before a fixed step: a big desert's tiles and colliders follow the vehicles and
        the shells (:meth:`StreamedColliders.follow`); other maps hold all theirs."""
        if self.colliders is not None:
            self.colliders.follow(vehicles_xy, shells_ws, shell_reach_m, shell_velocities_ws,
                                  gravity_m_s2)

    def dig(self, x_m: float, y_m: float, radius_m: float, depth_m: float) -> None:
        """Dig a crater (a :class:`~game.sim.events.CraterDug`'s numbers, checked: a
        ValueError names what is wrong) into the ground and its colliders, at once; past
        the most the desert keeps, the oldest are filled back in."""
        if self.crater_spec is None:
            return
        crater = checked_crater(self.crater_spec, x_m, y_m, radius_m, depth_m)
        boxes = [self.terrain.dig(crater)]
        while len(self.terrain.craters) > self.crater_spec.most_craters:
            boxes.append(self.terrain.fill_oldest())
        if self.colliders is not None:
            self.colliders.refresh(boxes)
        elif self._pieces is not None:
            self._pieces.refresh(boxes)

    def destroy(self) -> None:
        if self.colliders is not None:  # first: its rocks leave the fleets too
            self.colliders.destroy()
        if isinstance(self.terrain, TiledTerrain):  # its tile maker stops
            self.terrain.destroy()
        for fleet in self.fleets.values():
            fleet.destroy()
        self.world.destroy()
