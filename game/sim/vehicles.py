"""A vehicle in the game: its body, its slot in its fleet, its last two states, its gun.

The fleet (:class:`physics.bullet.fleet.VehicleFleet`) steps every tank (of every class)
or every car together; a :class:`Vehicle` is one of them as the game sees it: a name, controls in,
and what it reads back (pose, gear, rpm, anchors, health).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from panda3d.bullet import BulletRigidBodyNode
from panda3d.core import NodePath

from game.sim.controls import AUTOMATIC, Controls
from game.sim.events import Event, Shift, ShiftRefused, ShiftStart
from game.sim.part_damage import TankParts
from physics.bullet.fleet import VehicleFleet
from physics.bullet.hull_body import TurretCollider
from physics.bullet.poses import body_state
from physics.model.ammunition import AmmunitionState
from physics.model.anchors import AnchorConstants
from physics.model.ballistics import GunState
from physics.model.gearbox import GearboxStep, GearRequest
from physics.model.pose import BodyState


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


class DrawnVehicle(Protocol):
    """A vehicle as the window reads it, whoever moves it: a :class:`Vehicle` of the
    simulation, or a network client's own vehicle as drawn and the others as interpolated
    (:mod:`game.sim.net.shown`, :mod:`game.sim.net.remote`). Read-only: what draws a vehicle
    never writes it."""

    @property
    def name(self) -> str: ...

    @property
    def kind(self) -> str:
        """"tank" or "car": how it is drawn."""

    @property
    def tank_class(self) -> str | None:
        """A tank's class (config/tanks/NAME.toml: its fleet), None for the car."""

    @property
    def spec(self) -> Any:
        """Its kind's spec: a :class:`~physics.model.tracks.TankSpec` (with the gun and
        armour that ``aim`` and ``health`` follow) or a :class:`~physics.model.wheels.CarSpec`."""

    @property
    def fleet(self) -> VehicleFleet:
        """The fleet it drives in (a simulation's vehicle) or the client's of its kind."""

    @property
    def constants(self) -> AnchorConstants:
        """Its kind's anchor constants (a tank class's): where its anchors sit."""

    @property
    def collider_reach_m(self) -> float:
        """Every point of its collider lies within this of its centre of mass."""

    @property
    def current(self) -> BodyState:
        """Its state after the last step."""

    @property
    def previous(self) -> BodyState:
        """Its state after the step before (a frame is drawn between the two)."""

    @property
    def aim(self) -> GunState | None:
        """Where its gun points and its reload (None: unarmed)."""

    @property
    def health(self) -> float | None:
        """None: it takes no damage."""

    @property
    def destroyed(self) -> bool: ...

    @property
    def parts(self) -> TankParts | None:
        """A tank's parts as they stand (None: the car, which has none)."""

    @property
    def gear(self) -> str: ...

    @property
    def rpm(self) -> float: ...

    @property
    def turret_heading_rad(self) -> float: ...

    @property
    def gun_elevation_rad(self) -> float: ...

    def anchors(self) -> AnchorView | None:
        """Its anchors where they meet the ground (None: not known yet)."""

    def wheel_state(self) -> np.ndarray | None:
        """Rows (compression, steer, spin angle, spin speed) per anchor (None: not known
        yet)."""

    def track_speeds_mps(self) -> tuple[float, float]:
        """Ground speed along the hull under the left and right tracks (+ forward)."""


class PlayerVehicle(DrawnVehicle, Protocol):
    """A vehicle a person at this window drives, as the window reads it: besides what is
    drawn, its slot in its fleet (the gearbox's arrays, which the HUD reads) and its body
    (which its own sight lines and its crosshair's shell path pass through)."""

    @property
    def index(self) -> int:
        """Its row in its fleet's arrays."""

    @property
    def body(self) -> BulletRigidBodyNode: ...


class Vehicle:
    """A vehicle in the simulation: its body, its slot in the fleet, its last two states."""

    def __init__(self, name: str, kind: str, fleet: VehicleFleet, index: int, path: NodePath,
                 tank_class: str | None = None):
        self.name = name
        self.kind = kind
        """"tank" or "car"."""
        self.tank_class = tank_class
        """A tank's class (config/tanks/NAME.toml), the fleet it drives in; None: the car."""
        self.fleet = fleet
        self.index = index
        self.path = path
        fleet_kind = fleet.kind_of(index)
        self.spec = fleet_kind.spec
        self.constants = fleet_kind.constants
        """Its kind's anchor constants (its tank class's)."""
        self.collider_reach_m = fleet_kind.collider_reach_m
        """Every point of its collider lies within this of its centre of mass."""
        self.current = body_state(self.body)
        self.previous = self.current
        self.lever: str | None = None
        """The gear last asked for through the controls."""
        armed = hasattr(self.spec, "gun")
        self.aim = (GunState(ammunition=AmmunitionState.carried(self.spec.gun.ammunition))
                    if armed else None)
        """Where the gun points, its reload and its ammunition (None: unarmed)."""
        self.health = self.spec.armour.health if armed else None
        self.fired_at_s = -math.inf
        """When it last fired (it is seen further for a while after: a flash, smoke)."""
        self.destroyed = False
        self.last_good = self.current
        """The last state that was finite and above the ground (for the physics guard)."""
        self.turret_collider: TurretCollider | None = None
        """Its turret's pieces in its body, turned with the gun (None: no turret plates, or
        the turret was thrown off)."""
        self.parts: TankParts | None = None
        """A tank's parts as they stand (None: a vehicle without, the car)."""

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
    def gear_direction(self) -> float:
        """Which way its engaged gear drives it: +1 forward, -1 in R, 0 in N."""
        return self.fleet.gearbox.gear_direction(self.index)

    @property
    def turn_back_below_mps(self) -> float:
        """Its gearbox changes between R and the forward gears only below this speed."""
        return self.fleet.gearbox.kind_of(self.index).reverse_engage_mps

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
                          self.constants.rest_length_m)

    def wheel_state(self) -> np.ndarray | None:
        """Rows (compression, steer, spin angle, spin speed) per anchor from the
        controller's last report, or None before the first."""
        report = self.fleet.model.report
        if report is None:
            return None
        i = self.index
        return np.array([report.compression_m[i], report.steer_rad[i], report.spin_angle_rad[i],
                         report.spin_speed_rad_s[i]], dtype=np.float64)

    def track_speeds_mps(self) -> tuple[float, float]:
        """Ground speed along the hull under the left and right tracks (+ forward)."""
        left, right = track_speeds_mps([self.current],
                                       side_track_x_m(self.constants.position_bs))[0]
        return float(left), float(right)

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
        if self.constants.wheel_radius_m > 0.0:  # wheels also say how they turn
            for a, anchor in enumerate(anchors):
                anchor.update(steer_deg=math.degrees(report.steer_rad[i, a]),
                              spin_rad_s=float(report.spin_speed_rad_s[i, a]),
                              spin_angle_rad=float(report.spin_angle_rad[i, a]),
                              slip_ratio=float(report.slip_ratio[i, a]),
                              slip_angle_deg=math.degrees(report.slip_angle_rad[i, a]))
        return anchors

    def apply_controls(self, controls: Controls) -> list[Event]:
        """Hand the driving controls to the fleet; a new lever position asks the gearbox."""
        self.fleet.set_controls(self.index, controls.throttle, controls.steer, controls.brake,
                                controls.handbrake)
        if controls.gear is None or controls.gear == self.lever:
            return []
        self.lever = controls.gear
        automatic = controls.gear == AUTOMATIC
        self.fleet.gearbox.set_automatic(self.index, automatic)
        if automatic:
            return []
        return request_events(self.name, self.fleet.request_gear(self.index, controls.gear))

    def record_state(self, state: BodyState | None = None) -> None:
        """Keep the state at the end of a step (read from the body unless given)."""
        self.previous = self.current
        self.current = body_state(self.body) if state is None else state


def side_track_x_m(position_bs: np.ndarray) -> np.ndarray:
    """(2,) the left and right tracks' middles across the hull: the mean body-frame x of
    each side's anchors."""
    track_x = np.asarray(position_bs)[:, 0]
    return np.array([track_x[track_x < 0.0].mean(), track_x[track_x > 0.0].mean()])


def track_speeds_mps(states: list[BodyState], side_x_m: np.ndarray) -> np.ndarray:
    """(V, 2) for each state: the ground speed along the hull (+ forward) under the left and
    right tracks, which run ``side_x_m`` (:func:`side_track_x_m`) across it."""
    velocity = np.array([state.velocity_ws for state in states], dtype=np.float64)
    spin = np.array([state.angular_velocity_ws for state in states], dtype=np.float64)
    axes = np.array([state.axes_ws() for state in states], dtype=np.float64)
    forward = axes[:, 1]
    # The point under a track moves at v + w x (right * x): along the hull, v.f + x (w x right).f.
    along = np.einsum("vi,vi->v", velocity, forward)
    turning = np.einsum("vi,vi->v", np.cross(spin, axes[:, 0]), forward)
    return along[:, None] + turning[:, None] * np.asarray(side_x_m)[None, :]


def request_events(vehicle: str, request: GearRequest) -> list[Event]:
    """The events of asking ``vehicle``'s gearbox for a gear."""
    if request.outcome == "started":
        return [ShiftStart(vehicle, request.from_gear, request.to_gear, automatic=False)]
    if request.outcome == "shifted":
        return [Shift(vehicle, request.from_gear, request.to_gear)]
    if request.outcome == "refused":
        return [ShiftRefused(vehicle, request.to_gear, request.reason)]
    return []


def step_events(fleet: VehicleFleet, gears: GearboxStep | None, vehicles: list[Vehicle]
                ) -> list[Event]:
    """The shifts a fleet's gearboxes started (automatic) and finished in a step, named
    after the fleet's members among ``vehicles`` (looked up only in a step with a shift)."""
    if gears is None:
        return []
    started, finished = gears.started.nonzero()[0].tolist(), gears.finished.nonzero()[0].tolist()
    if not (started or finished):
        return []
    names = {vehicle.index: vehicle.name for vehicle in vehicles if vehicle.fleet is fleet}
    gearbox = fleet.gearbox
    events: list[Event] = [ShiftStart(names[i], *gearbox.shift_names(i), automatic=True)
                           for i in started]
    events += [Shift(names[i], *gearbox.shift_names(i)) for i in finished]
    return events
