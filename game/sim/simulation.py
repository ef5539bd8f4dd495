"""The headless game: world, terrain and vehicles, advanced one fixed step at a time.

Nothing here draws. The windowed app, the headless runner and the tests all
drive a :class:`Simulation` the same way: ``step(controls)`` once per fixed step,
then read ``vehicles`` and the step's events.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np
from panda3d.bullet import BulletRigidBodyNode
from panda3d.core import LMatrix3f, LQuaternionf, NodePath, Point3, TransformState, Vec3

from game.config import GameConfig
from game.sim.combat import (Plate, angle_factor, build_plates, distance_to_box, hit_event,
                         splash_damage, splash_victims)
from game.sim.controls import AUTOMATIC, Controls
from physics.bullet.bodies import make_hull_body, make_rock_body, map_walls, terrain_collider
from physics.bullet.poses import body_state
from physics.bullet.shells import ShellSystem, predicted_impact
from physics.model.ballistics import GunState, aim_gun, gun_axes
from physics.model.pose import BodyState
from physics.model.rocks import scatter_rocks
from physics.model.terrain import MapChoice, build_terrain
from physics.bullet.fleet import VehicleFleet
from physics.bullet.world import PhysicsWorld


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
        self.current = body_state(self.body)
        self.previous = self.current
        self.kind = "tank"
        self.lever: str | None = None
        """The gear last asked for through the controls."""
        armed = hasattr(self.spec, "gun")
        self.aim = GunState() if armed else None
        """Where the gun points and its reload (None: unarmed)."""
        self.health = self.spec.armour.health if armed else None
        self.destroyed = False
        self.last_good = self.current
        """The last state that was finite and above the ground (for the physics guard)."""

    def distance_to(self, point_ws) -> float:
        """From a point to the nearest face of the hull box (0 inside)."""
        state, hull = self.current, self.spec.hull
        axes = state.axes_ws()
        centre = state.position_ws + axes[2] * hull.centre_of_mass_drop_m
        return distance_to_box(point_ws, centre, axes, hull.half_extents_m)

    @property
    def turret_heading_rad(self) -> float:
        """Turret angle from the hull's forward, + to the right."""
        return self.aim.turret_heading_rad if self.aim else 0.0

    @property
    def gun_elevation_rad(self) -> float:
        """Gun angle above the turret's horizontal."""
        return self.aim.elevation_rad if self.aim else 0.0

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

    def track_speeds_mps(self) -> tuple[float, float]:
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

    def record_state(self, state: BodyState | None = None) -> None:
        """Keep the state at the end of a step (read from the body unless given)."""
        self.previous = self.current
        self.current = body_state(self.body) if state is None else state


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


SHOT_STREAM = 0x5407
"""Seeds the random stream of shot dispersion apart from the terrain's and the rocks'."""


class Simulation:
    """Everything physical in one game, stepped in fixed steps."""

    def __init__(self, config: GameConfig, map_choice: MapChoice, seed: int,
                 player_vehicle: str = "tank"):
        self.config = config
        self.seed = seed
        self.world = PhysicsWorld(config.game.simulation)
        self.terrain = build_terrain(map_choice, config.game.terrain, seed)
        self.world.add_body(terrain_collider(self.terrain), owner=self.terrain)
        self.world.add_body(map_walls(self.terrain), owner=self.terrain)
        self.fleets = {
            "tank": VehicleFleet(self.world, self.terrain, config.tank, config.tank_gearbox),
            "car": VehicleFleet(self.world, self.terrain, config.car, config.car_gearbox),
        }
        self.shell_system = ShellSystem(self.world)
        self.rng = np.random.default_rng([seed, SHOT_STREAM])
        spawn_points = [(0.0, 0.0)]
        self.plates: list[Plate] = []
        if map_choice.kind == "range":
            range_spec = config.game.range
            spawn_points = [(0.0, -self.terrain.half_extent_y_m + range_spec.spawn_from_edge_m)]
            self.plates = build_plates(self.world, range_spec, spawn_points[0],
                                       float(self.terrain.height_at(*spawn_points[0])))
        self.spawn_points = spawn_points
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
        self._by_name: dict[str, Vehicle] = {}
        self._positions_xy: tuple[int, np.ndarray] | None = None
        """The step the vehicles' ground positions were gathered at, and those positions."""
        x_m, y_m = spawn_points[0]
        self.player = self.spawn(player_vehicle, "player", x_m=x_m, y_m=y_m, heading_deg=0.0)
        self._pressed: set[str] = set()
        self.recorder = None
        """Set to a replay recorder to keep the player's controls of every step."""
        self._drivers: dict[str, Callable[[Simulation], Controls]] = {}
        self._rules: list[Callable[[Simulation, list[dict]], list[dict]]] = []

    def add_driver(self, vehicle_name: str, driver: Callable[["Simulation"], Controls]) -> None:
        """Let ``driver(simulation)`` give the named vehicle its controls each step (a bot)."""
        self._drivers[vehicle_name] = driver

    def add_rules(self, rules: Callable[["Simulation", list[dict]], list[dict]]) -> None:
        """After each step, ``rules(simulation, events)`` may add events (a battle's rounds)."""
        self._rules.append(rules)

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
        self._by_name[name] = vehicle
        for other in self.fleets.values():  # vehicles can stand on each other
            if other is not fleet:
                other.add_obstacle(body)
        vehicle.apply_controls(Controls(gear=self.config.game.spawn.start_gear))
        if vehicle.aim is not None:  # the gun starts loading: nobody fires the moment it appears
            vehicle.aim.reload_left_s = vehicle.spec.gun.reload_s
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

    def reset_vehicle(self, vehicle: Vehicle) -> dict:
        """Set a vehicle back on its wheels where it stands, facing the same way."""
        state = vehicle.current
        self.place(vehicle, state.position_ws[0], state.position_ws[1],
                   state.heading_pitch_roll_deg()[0])
        return {"type": "reset", "vehicle": vehicle.name}

    def _pressed_now(self, name: str, held: bool) -> bool:
        """True on the step a button goes down (edge), not while it stays down."""
        was_held = name in self._pressed
        if held:
            self._pressed.add(name)
        else:
            self._pressed.discard(name)
        return held and not was_held

    def _swap_player(self) -> None:
        """Hop into the nearest free vehicle of the other kind (not one a driver has: a bot,
        a second local player), or a new one beside this one."""
        current = self.player
        other_kind = "car" if current.kind == "tank" else "tank"
        position = current.current.position_ws
        others = [v for v in self.vehicles
                  if v.kind == other_kind and v.name not in self._drivers]
        current.apply_controls(Controls(handbrake=True))
        if others:
            self.player = min(others, key=lambda v: np.linalg.norm(v.current.position_ws - position))
            return
        right, _, _ = current.current.axes_ws()
        beside = position + right * self.config.game.spawn.swap_offset_m
        heading = current.current.heading_pitch_roll_deg()[0]
        self.player = self.spawn(other_kind, f"player-{other_kind}", beside[0], beside[1], heading)

    def vehicle_named(self, name: str) -> Vehicle | None:
        """The vehicle called ``name`` (names are unique), or None."""
        return self._by_name.get(name)

    def vehicle_positions_xy(self) -> np.ndarray:
        """Every vehicle's x and y (V, 2, read-only) as the last step left them, gathered
        once a step for all who look round."""
        step = self.world.step_count
        if self._positions_xy is None or self._positions_xy[0] != step \
                or len(self._positions_xy[1]) != len(self.vehicles):
            positions = np.array([vehicle.current.position_ws[:2] for vehicle in self.vehicles]
                                 ).reshape(-1, 2)
            positions.setflags(write=False)
            self._positions_xy = step, positions
        return self._positions_xy[1]

    @property
    def shells(self):
        """Shells in flight (each with ``position_ws`` and ``velocity_ws``)."""
        return self.shell_system.shells

    def step(self, player_controls: Controls, others: dict[str, Controls] | None = None
             ) -> list[dict]:
        """Advance one fixed step with the player's controls and any other drivers' (by
        vehicle name: bots, a second local player, whose ``reset`` also works); return what
        happened in it."""
        if self.recorder is not None:
            self.recorder.record(self.world.step_count, player_controls)
        events = []
        if self._pressed_now("swap_vehicle", player_controls.swap_vehicle):
            previous = self.player
            self._swap_player()
            events.append({"type": "swap_vehicle", "from": previous.name, "to": self.player.name})
        if self._pressed_now("reset", player_controls.reset):
            events.append(self.reset_vehicle(self.player))
        for vehicle in self.vehicles:  # another person's vehicle (local player 2) resets too
            if vehicle.name in (others or {}) and self._pressed_now(
                    "reset:" + vehicle.name, others[vehicle.name].reset):
                events.append(self.reset_vehicle(vehicle))
        drivers = {name: driver(self) for name, driver in self._drivers.items()}
        drivers.update(others or {})
        drivers[self.player.name] = player_controls
        for vehicle in self.vehicles:
            if vehicle.name in drivers:
                events += self._drive(vehicle, drivers[vehicle.name])
        for fleet in self.fleets.values():
            members = [vehicle.name for vehicle in self.vehicles if vehicle.fleet is fleet]
            for event in fleet.update_drive(self.step_s):
                if "vehicle" in event:
                    event["vehicle"] = members[event["vehicle"]]
                events.append(event)
        self.world.step()
        events += self._record_and_guard()
        events += self._resolve_shells()
        for rules in self._rules:
            events += rules(self, events)
        return events

    def _record_and_guard(self) -> list[dict]:
        """Every vehicle keeps its state at the end of the step (each fleet's read in one
        pass); one bad step must not take the world down: a body whose state went
        non-finite, or that fell through the ground, is set back on the ground where it
        last was well."""
        read = {}
        for fleet in self.fleets.values():
            if len(fleet):
                poses = fleet.poses()
                ground_m, _ = self.terrain.planes_at(  # a broken body's ground is not read
                    np.where(poses.finite, poses.rows[:, :2].T, 0.0))
                well = poses.finite & ~fleet.faulted
                read[id(fleet)] = poses, ground_m.tolist(), well.tolist()
        below_limit_m = self.config.game.spawn.below_ground_limit_m
        events = []
        for vehicle in self.vehicles:
            poses, ground_m, well = read[id(vehicle.fleet)]
            index = vehicle.index
            vehicle.record_state(poses.state(index))
            if not well[index]:
                events.append(self._recover(vehicle, "non-finite state"))
            elif vehicle.current.position_ws[2] < ground_m[index] - below_limit_m:
                events.append(self._recover(vehicle, "below the ground"))
            else:
                vehicle.last_good = vehicle.current
        return events

    def _recover(self, vehicle: Vehicle, reason: str) -> dict:
        """Set a vehicle back on the ground where it last was well."""
        good = vehicle.last_good
        heading = good.heading_pitch_roll_deg()[0] if np.all(np.isfinite(
            good.orientation_ws)) else 0.0
        x_m, y_m = np.clip(good.position_ws[:2], -self.terrain.half_extent_x_m,
                           self.terrain.half_extent_x_m)
        self.place(vehicle, float(x_m), float(y_m), heading)
        vehicle.fleet.recover(vehicle.index)
        vehicle.last_good = vehicle.current
        return {"type": "recovered", "vehicle": vehicle.name, "reason": reason}

    def _drive(self, vehicle: Vehicle, controls: Controls) -> list[dict]:
        """A vehicle's controls this step: drive, aim and fire (a wreck holds still)."""
        if vehicle.destroyed:
            vehicle.apply_controls(Controls(handbrake=True))
            return []
        events = vehicle.apply_controls(controls)
        if vehicle.aim is None:
            return events
        gun = vehicle.spec.gun
        aim_gun(vehicle.aim, gun, controls.turret, controls.elevation, self.step_s)
        if controls.fire and vehicle.aim.reload_left_s == 0.0:
            self.shell_system.fire(vehicle, vehicle.body, vehicle.current, gun, vehicle.aim,
                                   self.time_s, self.rng)
            events.append({"type": "shot", "vehicle": vehicle.name})
        return events

    def _resolve_shells(self) -> list[dict]:
        """Shells that struck something this step: hit events, damage, wrecks."""
        lifetime = max((v.spec.gun.shell_lifetime_s for v in self.vehicles if v.aim),
                       default=0.0)
        hits, _ = self.shell_system.update(self.time_s, lifetime)
        events = []
        for hit in hits:
            shooter = hit.shell.owner
            gun = shooter.spec.gun
            events.append(hit_event(hit, shooter.name))
            damage: dict[Vehicle, float] = {}
            if isinstance(hit.target, Vehicle) and hit.target.health is not None:
                ricochet = hit.target.spec.armour.ricochet_angle_deg
                damage[hit.target] = gun.impact_damage * angle_factor(
                    hit.normal_ws, hit.velocity_ws, ricochet)
            for victim in splash_victims(self.world, hit.position_ws, gun.splash_radius_m):
                if isinstance(victim, Vehicle) and victim.health is not None:
                    distance = victim.distance_to(hit.position_ws)
                    damage[victim] = damage.get(victim, 0.0) + splash_damage(gun, distance)
            for victim, amount in damage.items():
                events += self.damage(victim, amount, shooter)
        return events

    def damage(self, victim: Vehicle, amount: float, shooter: Vehicle) -> list[dict]:
        """Take ``amount`` off a tank's health; at zero it is destroyed and becomes a wreck."""
        if victim.destroyed or amount <= 0.0:
            return []
        victim.health = max(0.0, victim.health - float(amount))
        events = [{"type": "damage", "vehicle": victim.name, "by": shooter.name,
                   "amount": round(float(amount), 3), "health": round(victim.health, 3)}]
        if victim.health == 0.0:
            victim.destroyed = True
            events.append({"type": "destroyed", "vehicle": victim.name, "by": shooter.name})
        return events

    def predicted_impact(self, vehicle: Vehicle, max_time_s: float | None = None
                         ) -> np.ndarray | None:
        """Where a shell the vehicle fired now would land (for the crosshair), looking at
        most ``max_time_s`` of flight ahead (default: the shell's whole life)."""
        if vehicle.aim is None:
            return None
        gun = vehicle.spec.gun
        muzzle, barrel = gun_axes(vehicle.current, gun, vehicle.aim)
        velocity = vehicle.current.velocity_ws + barrel * gun.muzzle_velocity_mps
        return predicted_impact(self.world, self.terrain, muzzle, velocity,
                                self.config.game.simulation.gravity_m_s2, vehicle.body,
                                max_time_s or gun.shell_lifetime_s, gun.shell_radius_m)

    def destroy(self) -> None:
        self.shell_system.destroy()
        for fleet in self.fleets.values():
            fleet.destroy()
        self.world.destroy()
        self.vehicles.clear()
        self._by_name.clear()
