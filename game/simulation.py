"""The headless game: world, terrain and vehicles, advanced one fixed step at a time.

Nothing here draws. The windowed app, the headless runner and the tests all
drive a :class:`Simulation` the same way: ``step(controls)`` once per fixed step,
then read ``vehicles`` and the step's events.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from panda3d.bullet import BulletRigidBodyNode
from panda3d.core import LMatrix3f, LQuaternionf, NodePath, Point3, TransformState, Vec3

from game.config import GameConfig
from game.controls import AUTOMATIC, Controls
from physics.hull import make_hull_body
from physics.pose import BodyState
from physics.rocks import make_rock_body, scatter_rocks
from physics.terrain import MapChoice, build_terrain
from physics.vehicle_fleet import VehicleFleet
from physics.world import PhysicsWorld


@dataclass(frozen=True)
class AnchorView:
    """One vehicle's anchors after the last substep, arrays over anchors (world space).

    Where an anchor is off the ground its wheel hangs at ``origin + direction * rest_length``.
    """

    origin_ws: np.ndarray
    direction_ws: np.ndarray
    contact_point_ws: np.ndarray
    contact_normal_ws: np.ndarray
    on_ground: np.ndarray
    compression_m: np.ndarray
    load_n: np.ndarray
    sliding: np.ndarray
    rest_length_m: float


class Vehicle:
    """A vehicle in the simulation: its body, its slot in the fleet, its last two states."""

    def __init__(self, name: str, fleet: VehicleFleet, index: int, path: NodePath):
        self.name = name
        self.fleet = fleet
        self.index = index
        self.path = path
        self.spec = fleet.spec
        self.current = BodyState.of(self.body)
        self.previous = self.current
        self.lever: str | None = None
        """The gear last asked for through the controls."""
        self.turret_heading_rad = 0.0
        """Turret angle from the hull's forward, + to the right (driven once combat lands)."""
        self.gun_elevation_rad = 0.0
        """Gun angle above the turret's horizontal."""

    @property
    def body(self) -> BulletRigidBodyNode:
        return self.path.node()

    @property
    def gear(self) -> str:
        return self.fleet.gearbox.gear_name(self.index)

    @property
    def rpm(self) -> float:
        return float(self.fleet.rpm[self.index])

    def anchors(self) -> AnchorView | None:
        """This vehicle's rows of the controller's last report (world space), or None."""
        report = self.fleet.model.report
        if report is None:
            return None
        i = self.index
        return AnchorView(report.origin_ws[i], report.direction_ws[i], report.contact_point_ws[i],
                          report.contact_normal_ws[i], report.on_ground[i],
                          report.compression_m[i], report.load_n[i], report.sliding[i],
                          self.fleet.constants.rest_length_m)

    def track_speeds_ms(self) -> tuple[float, float]:
        """Ground speed along the hull under the left and right tracks (+ forward)."""
        state = self.current
        right, forward, _ = state.axes_ws()
        track_x = self.fleet.constants.position_bs[:, 0]
        speeds = []
        for side in (track_x < 0.0, track_x > 0.0):
            lever = right * track_x[side].mean()
            point_velocity = state.velocity_ws + np.cross(state.angular_velocity_ws, lever)
            speeds.append(float(point_velocity @ forward))
        return speeds[0], speeds[1]

    def anchor_reports(self) -> list[dict]:
        """Per anchor, from the controller's last substep (no second ray is cast)."""
        report = self.fleet.model.report
        if report is None:
            return []
        i = self.index
        return [{"on_ground": bool(report.on_ground[i, a]),
                 "compression": float(report.compression_m[i, a]),
                 "load": float(report.load_n[i, a]),
                 "sliding": bool(report.sliding[i, a])}
                for a in range(report.on_ground.shape[1])]

    def apply_controls(self, controls: Controls) -> list[dict]:
        self.fleet.set_controls(self.index, controls.throttle, controls.steer, controls.brake,
                                controls.handbrake)
        if controls.gear is None or controls.gear == self.lever:
            return []
        self.lever = controls.gear
        automatic = controls.gear == AUTOMATIC
        self.fleet.gearbox.set_automatic(self.index, automatic)
        return [] if automatic else self.fleet.request_gear(self.index, controls.gear)

    def record_state(self) -> None:
        self.previous = self.current
        self.current = BodyState.of(self.body)


def ground_aligned_rotation(normal_ws: np.ndarray, heading_deg: float) -> LQuaternionf:
    """Orientation facing ``heading_deg`` (compass, clockwise from +Y) with up = ``normal_ws``."""
    heading = np.radians(heading_deg)
    forward = np.array([np.sin(heading), np.cos(heading), 0.0])
    forward -= forward @ normal_ws * normal_ws
    forward /= np.linalg.norm(forward)
    right = np.cross(forward, normal_ws)
    rotation = LQuaternionf()
    rotation.setFromMatrix(LMatrix3f(*right, *forward, *normal_ws))
    return rotation


class Simulation:
    """Everything physical in one game, stepped in fixed steps."""

    def __init__(self, config: GameConfig, map_choice: MapChoice, seed: int):
        self.config = config
        self.seed = seed
        self.world = PhysicsWorld(config.game.simulation)
        self.terrain = build_terrain(map_choice, config.game.terrain, seed)
        self.world.add_body(self.terrain.make_collider(), owner=self.terrain)
        self.world.add_body(self.terrain.make_walls(), owner=self.terrain)
        self.tanks = VehicleFleet(self.world, self.terrain, config.tank, config.tank_gearbox)
        spawn_points = [(0.0, 0.0)]
        self.rocks = (scatter_rocks(self.terrain, config.game.rocks, seed, spawn_points)
                      if map_choice.kind == "desert" else [])
        for number, rock in enumerate(self.rocks):
            self.terrain.paint_surface(rock.position_ws[0], rock.position_ws[1],
                                       rock.radius_m * config.game.rocks.rock_ground_scale,
                                       "rock")
            body = make_rock_body(rock, f"rock-{number}")
            self.world.add_body(body, owner=rock)
            self.tanks.add_obstacle(body)
        self.vehicles: list[Vehicle] = []
        x_m, y_m = spawn_points[0]
        self.player = self.spawn_tank("player", x_m=x_m, y_m=y_m, heading_deg=0.0)

    @property
    def time_s(self) -> float:
        return self.world.time_s

    @property
    def step_s(self) -> float:
        return self.world.step_s

    def spawn_tank(self, name: str, x_m: float, y_m: float, heading_deg: float) -> Vehicle:
        """Put a tank on its springs at (x, y), lined up with the ground, in its start gear."""
        fleet, spawn = self.tanks, self.config.game.spawn
        body = make_hull_body(fleet.spec.hull, name)
        ground_m, normal = self.terrain.surface_at(x_m, y_m)
        anchor_depth_m = -float(fleet.constants.position_bs[:, 2].mean())
        lift_m = fleet.spec.suspension.ride_height_m + anchor_depth_m
        position = np.array([x_m, y_m, float(ground_m)]) + normal * lift_m
        position[2] += spawn.drop_height_m
        body.setTransform(TransformState.makePosQuatScale(
            Point3(*position), ground_aligned_rotation(normal, heading_deg), Vec3(1, 1, 1)))
        path = self.world.add_body(body)
        vehicle = Vehicle(name, fleet, fleet.add(body), path)
        self.world.handles.register(body, vehicle)
        self.vehicles.append(vehicle)
        vehicle.apply_controls(Controls(gear=spawn.start_gear))
        return vehicle

    def step(self, player_controls: Controls) -> list[dict]:
        """Advance one fixed step; return what happened in it."""
        events = self.player.apply_controls(player_controls)
        events += self.tanks.update_drive(self.step_s)
        self.world.step()
        for vehicle in self.vehicles:
            vehicle.record_state()
        names = [vehicle.name for vehicle in self.vehicles]
        for event in events:
            if "vehicle" in event:
                event["vehicle"] = names[event["vehicle"]]
        return events

    def destroy(self) -> None:
        self.tanks.destroy()
        self.world.destroy()
        self.vehicles.clear()
