"""The headless game: world, terrain and vehicles, advanced one fixed step at a time.

Nothing here draws. The windowed app, the headless runner and the tests all
drive a :class:`Simulation` the same way: ``step(controls)`` once per fixed step,
then read ``vehicles`` and the step's events.
"""

from __future__ import annotations

import math
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
        self.kind = "tank"
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
        anchors = [{"on_ground": bool(report.on_ground[i, a]),
                    "compression": float(report.compression_m[i, a]),
                    "load": float(report.load_n[i, a]),
                    "sliding": bool(report.sliding[i, a])}
                   for a in range(report.on_ground.shape[1])]
        if self.fleet.constants.wheel_radius_m > 0.0:  # wheels also say how they turn
            for a, anchor in enumerate(anchors):
                anchor.update(steer_deg=math.degrees(report.steer_rad[i, a]),
                              spin_rad_s=float(report.spin_speed_rad_s[i, a]),
                              spin_angle_rad=float(report.spin_angle_rad[i, a]),
                              slip_ratio=float(report.slip_ratio[i, a]),
                              slip_angle_deg=math.degrees(report.slip_angle_rad[i, a]))
        return anchors

    def apply_controls(self, controls: Controls) -> list[dict]:
        self.fleet.set_controls(self.index, controls.throttle, controls.steer, controls.brake,
                                controls.handbrake)
        if controls.gear is None or controls.gear == self.lever:
            return []
        self.lever = controls.gear
        automatic = controls.gear == AUTOMATIC
        self.fleet.gearbox.set_automatic(self.index, automatic)
        events = [] if automatic else self.fleet.request_gear(self.index, controls.gear)
        return [{**event, "vehicle": self.name} for event in events]

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

    def __init__(self, config: GameConfig, map_choice: MapChoice, seed: int,
                 player_vehicle: str = "tank"):
        self.config = config
        self.seed = seed
        self.world = PhysicsWorld(config.game.simulation)
        self.terrain = build_terrain(map_choice, config.game.terrain, seed)
        self.world.add_body(self.terrain.make_collider(), owner=self.terrain)
        self.world.add_body(self.terrain.make_walls(), owner=self.terrain)
        self.fleets = {
            "tank": VehicleFleet(self.world, self.terrain, config.tank, config.tank_gearbox),
            "car": VehicleFleet(self.world, self.terrain, config.car, config.car_gearbox),
        }
        spawn_points = [(0.0, 0.0)]
        self.rocks = (scatter_rocks(self.terrain, config.game.rocks, seed, spawn_points)
                      if map_choice.kind == "desert" else [])
        for number, rock in enumerate(self.rocks):
            self.terrain.paint_surface(rock.position_ws[0], rock.position_ws[1],
                                       rock.radius_m * config.game.rocks.rock_ground_scale,
                                       "rock")
            body = make_rock_body(rock, f"rock-{number}")
            self.world.add_body(body, owner=rock)
            for fleet in self.fleets.values():
                fleet.add_obstacle(body)
        self.vehicles: list[Vehicle] = []
        x_m, y_m = spawn_points[0]
        self.player = self.spawn(player_vehicle, "player", x_m=x_m, y_m=y_m, heading_deg=0.0)
        self._pressed: set[str] = set()

    @property
    def tanks(self) -> VehicleFleet:
        return self.fleets["tank"]

    @property
    def cars(self) -> VehicleFleet:
        return self.fleets["car"]

    @property
    def time_s(self) -> float:
        return self.world.time_s

    @property
    def step_s(self) -> float:
        return self.world.step_s

    def spawn(self, kind: str, name: str, x_m: float, y_m: float, heading_deg: float) -> Vehicle:
        """Put a vehicle of ``kind`` on its springs at (x, y), lined up with the ground."""
        fleet = self.fleets[kind]
        body = make_hull_body(fleet.spec.hull, name)
        path = self.world.add_body(body)
        vehicle = Vehicle(name, fleet, fleet.add(body), path)
        vehicle.kind = kind
        self.place(vehicle, x_m, y_m, heading_deg)
        self.world.handles.register(body, vehicle)
        self.vehicles.append(vehicle)
        for other in self.fleets.values():  # vehicles can stand on each other
            if other is not fleet:
                other.add_obstacle(body)
        vehicle.apply_controls(Controls(gear=self.config.game.spawn.start_gear))
        return vehicle

    def place(self, vehicle: Vehicle, x_m: float, y_m: float, heading_deg: float) -> None:
        """Set a vehicle upright on the ground at (x, y), still, facing ``heading_deg``."""
        fleet = vehicle.fleet
        ground_m, normal = self.terrain.surface_at(x_m, y_m)
        anchor_depth_m = -float(fleet.constants.position_bs[:, 2].mean())
        lift_m = fleet.spec.suspension.ride_height_m + anchor_depth_m
        position = np.array([x_m, y_m, float(ground_m)]) + normal * lift_m
        position[2] += self.config.game.spawn.drop_height_m
        body = vehicle.body
        body.setTransform(TransformState.makePosQuatScale(
            Point3(*position), ground_aligned_rotation(normal, heading_deg), Vec3(1, 1, 1)))
        body.setLinearVelocity(Vec3(0, 0, 0))
        body.setAngularVelocity(Vec3(0, 0, 0))
        vehicle.record_state()
        vehicle.previous = vehicle.current

    def _pressed_now(self, name: str, held: bool) -> bool:
        """True on the step a button goes down (edge), not while it stays down."""
        was_held = name in self._pressed
        if held:
            self._pressed.add(name)
        else:
            self._pressed.discard(name)
        return held and not was_held

    def _swap_player(self) -> None:
        """Hop into the nearest vehicle of the other kind, or a new one beside this one."""
        current = self.player
        other_kind = "car" if current.kind == "tank" else "tank"
        position = current.current.position_ws
        others = [v for v in self.vehicles if v.kind == other_kind]
        current.apply_controls(Controls(handbrake=True))
        if others:
            self.player = min(others, key=lambda v: np.linalg.norm(v.current.position_ws - position))
            return
        right, _, _ = current.current.axes_ws()
        beside = position + right * self.config.game.spawn.swap_offset_m
        heading = current.current.heading_pitch_roll_deg()[0]
        self.player = self.spawn(other_kind, f"player-{other_kind}", beside[0], beside[1], heading)

    def step(self, player_controls: Controls) -> list[dict]:
        """Advance one fixed step; return what happened in it."""
        events = []
        if self._pressed_now("swap_vehicle", player_controls.swap_vehicle):
            previous = self.player
            self._swap_player()
            events.append({"type": "swap_vehicle", "from": previous.name, "to": self.player.name})
        if self._pressed_now("reset", player_controls.reset):
            state = self.player.current
            self.place(self.player, state.position_ws[0], state.position_ws[1],
                       state.heading_pitch_roll_deg()[0])
            events.append({"type": "reset", "vehicle": self.player.name})
        events += self.player.apply_controls(player_controls)
        for fleet in self.fleets.values():
            members = [vehicle.name for vehicle in self.vehicles if vehicle.fleet is fleet]
            for event in fleet.update_drive(self.step_s):
                if "vehicle" in event:
                    event["vehicle"] = members[event["vehicle"]]
                events.append(event)
        self.world.step()
        for vehicle in self.vehicles:
            vehicle.record_state()
        return events

    def destroy(self) -> None:
        for fleet in self.fleets.values():
            fleet.destroy()
        self.world.destroy()
        self.vehicles.clear()
