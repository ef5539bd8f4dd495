"""The headless game: world, terrain and vehicles, advanced one fixed step at a time.

Nothing here draws. The windowed app, the headless runner and the tests all
drive a :class:`Simulation` the same way: ``step(controls)`` once per fixed step,
then read ``vehicles`` and the step's events.
"""

from __future__ import annotations

from panda3d.bullet import BulletRigidBodyNode
from panda3d.core import NodePath, Point3, TransformState, Vec3

from game.config import GameConfig
from game.controls import Controls
from physics.hull import HullSpec, make_hull_body
from physics.pose import BodyState
from physics.terrain import MapChoice, build_terrain
from physics.world import PhysicsWorld


class Vehicle:
    """A vehicle in the simulation and the last two states of its body."""

    def __init__(self, name: str, hull: HullSpec, path: NodePath):
        self.name = name
        self.hull = hull
        self.path = path
        self.current = BodyState.of(self.body)
        self.previous = self.current

    @property
    def body(self) -> BulletRigidBodyNode:
        return self.path.node()

    def record_state(self) -> None:
        self.previous = self.current
        self.current = BodyState.of(self.body)


class Simulation:
    """Everything physical in one game, stepped in fixed steps."""

    def __init__(self, config: GameConfig, map_choice: MapChoice, seed: int):
        self.config = config
        self.seed = seed
        self.world = PhysicsWorld(config.game.simulation)
        self.terrain = build_terrain(map_choice, config.game.terrain, seed)
        self.world.add_body(self.terrain.make_collider(), owner=self.terrain)
        self.world.add_body(self.terrain.make_walls(), owner=self.terrain)
        self.vehicles: list[Vehicle] = []
        self.player = self.spawn_vehicle("player", config.tank.hull, x_m=0.0, y_m=0.0,
                                         heading_deg=0.0)

    @property
    def time_s(self) -> float:
        return self.world.time_s

    @property
    def step_s(self) -> float:
        return self.world.step_s

    def spawn_vehicle(self, name: str, hull: HullSpec, x_m: float, y_m: float,
                      heading_deg: float) -> Vehicle:
        """Drop a vehicle onto the ground at (x, y), level, facing ``heading_deg``."""
        body = make_hull_body(hull, name)
        ground_m = float(self.terrain.height_at(x_m, y_m))
        lowest_m = hull.half_extents_m[2] - hull.centre_of_mass_drop_m
        height_m = ground_m + lowest_m + self.config.game.spawn.drop_height_m
        # Panda's H turns counter-clockwise; our compass heading turns clockwise.
        body.setTransform(TransformState.makePosHpr(Point3(x_m, y_m, height_m),
                                                    Vec3(-heading_deg, 0.0, 0.0)))
        vehicle = Vehicle(name, hull, self.world.add_body(body))
        self.world.handles.register(body, vehicle)
        self.vehicles.append(vehicle)
        return vehicle

    def step(self, player_controls: Controls) -> list[dict]:
        """Advance one fixed step; return what happened in it."""
        self.world.step()
        for vehicle in self.vehicles:
            vehicle.record_state()
        return []

    def destroy(self) -> None:
        self.world.destroy()
        self.vehicles.clear()
