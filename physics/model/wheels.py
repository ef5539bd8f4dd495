"""Wheels: a car's controls and gearbox become per-wheel commands on the same anchor core.

The front wheels steer by Ackermann (the inner wheel turns more, so both roll
round the same centre); the lock falls with speed so the car stays drivable
fast; the steering eases toward the stick at a limited rate. The engine drives
the front or rear axle through the gearbox, the brakes hold all four wheels,
the handbrake locks the rear ones and lowers their grip so the tail steps out.
Air drag pulls against the body's motion.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from common.spec import KMH_PER_MPS, Spec, SpecError, tuning
from physics.model.anchor_model import AnchorModel
from physics.model.anchors import AnchorCommand, AnchorConstants, GripSpec, SuspensionSpec
from physics.model.engine import Driveline
from physics.model.gearbox import DriveCommand, GearboxSpec
from physics.model.hull import HullSpec
from physics.model.tyres import SlipTyreSpec, WheelSpinSpec

AXLES = ("front", "rear", "all")


@dataclass(frozen=True)
class WheelSpec(Spec):
    """Steering, drive, brakes and drag."""

    driven_axle: str = tuning("which wheels the engine drives", choices=AXLES)
    brake_force_n: float = tuning("most braking force of all four wheels together",
                                  minimum=0.0, maximum=1e6)
    brake_front_share: float = tuning("share of the braking force on the front axle (weight "
                                      "moves forward under braking)", minimum=0.0,
                                      maximum=1.0)
    handbrake_force_n: float = tuning("most force of the handbrake on the rear wheels",
                                      minimum=0.0, maximum=1e6)
    handbrake_grip: float = tuning("share of their grip the rear wheels keep under the "
                                   "handbrake", minimum=0.05, maximum=1.0)
    full_lock_deg: float = tuning("the steered wheels' most angle, at a standstill",
                                  minimum=1.0, maximum=60.0)
    lock_halving_speed_kmh: float = tuning("speed at which the most angle has halved",
                                           minimum=1.0, maximum=500.0)
    steer_rate_deg_s: float = tuning("how fast the wheels turn toward the stick",
                                     minimum=1.0, maximum=2000.0)
    drag_area_m2: float = tuning("drag coefficient times frontal area", minimum=0.0,
                                 maximum=20.0)
    air_density_kg_m3: float = tuning("density of the air", minimum=0.0, maximum=2.0)


def drive_shares(spec: WheelSpec, constants: AnchorConstants) -> np.ndarray:
    """Each wheel's share of the engine's drive: the driven axle's wheels alike."""
    front = constants.position_bs[:, 1] > 0.0
    driven = {"front": front, "rear": ~front, "all": np.ones(len(front), dtype=bool)}[
        spec.driven_axle]
    return driven / driven.sum()


class WheelDrive:
    """Per-wheel surface speed, force limit, steer angle and grip, from the controls."""

    def __init__(self, spec: WheelSpec, constants: AnchorConstants):
        self.spec = spec
        positions = constants.position_bs
        self.front = positions[:, 1] > 0.0
        self.wheelbase_m = positions[self.front, 1].mean() - positions[~self.front, 1].mean()
        self.lateral_m = positions[:, 0]
        self.drive_share = drive_shares(spec, constants)
        self.brake_share = np.where(self.front, spec.brake_front_share / self.front.sum(),
                                    (1.0 - spec.brake_front_share) / (~self.front).sum())
        self.steer_rad = np.zeros(0)
        """The steered axle's (bicycle) angle per vehicle, easing toward the stick."""
        self._full_lock_rad = math.radians(spec.full_lock_deg)
        self._rate_rad_s = math.radians(spec.steer_rate_deg_s)
        self._halving_mps = spec.lock_halving_speed_kmh / KMH_PER_MPS

    def vehicle_state(self, vehicle: int) -> float:
        """One vehicle's steer angle (to set back with :meth:`set_vehicle_state`)."""
        return float(self.steer_rad[vehicle]) if vehicle < len(self.steer_rad) else 0.0

    def set_vehicle_state(self, vehicle: int, state: float) -> None:
        if vehicle < len(self.steer_rad):
            self.steer_rad[vehicle] = state

    def add_vehicle(self, kind: int = 0) -> None:
        """One more car, its wheels straight ahead (cars come in one kind)."""
        if kind != 0:
            raise ValueError(f"car kind {kind}: a car's drive has one kind")
        self.steer_rad = np.append(self.steer_rad, 0.0)

    def remove(self, vehicle: int) -> None:
        """Forget one vehicle's steer angle; the vehicles after it move down one index."""
        if vehicle < len(self.steer_rad):
            self.steer_rad = np.delete(self.steer_rad, vehicle)

    def relax(self, vehicle: int) -> None:
        """The wheels straight ahead again (the car was set down afresh)."""
        if vehicle < len(self.steer_rad):
            self.steer_rad[vehicle] = 0.0

    def lock_rad(self, speed_mps: np.ndarray) -> np.ndarray:
        """Most steer angle at each speed: full at a standstill, half at the halving speed."""
        return self._full_lock_rad / (1.0 + np.abs(speed_mps) / self._halving_mps)

    def ackermann(self, steer_rad: np.ndarray) -> np.ndarray:
        """Each wheel's angle (V, A) so all roll round one centre on the rear axle's line."""
        tangent = np.tan(steer_rad)[:, None]
        angles = np.arctan2(self.wheelbase_m * tangent,
                            self.wheelbase_m - self.lateral_m[None, :] * tangent)
        return np.where(self.front[None, :], angles, 0.0)

    def command(self, drive: DriveCommand, shifting: np.ndarray, steer: np.ndarray,
                brake: np.ndarray, handbrake: np.ndarray, step_s: float,
                forward_speed_mps: np.ndarray) -> AnchorCommand:
        spec = self.spec
        if len(self.steer_rad) != len(steer):  # a new car starts with its wheels straight
            kept = self.steer_rad[:len(steer)]
            self.steer_rad = np.concatenate([kept, np.zeros(len(steer) - len(kept))])
        wanted = steer * self.lock_rad(forward_speed_mps)
        step = self._rate_rad_s * step_s
        self.steer_rad = self.steer_rad + np.clip(wanted - self.steer_rad, -step, step)

        vehicles, wheels = len(steer), len(self.front)
        speed = np.repeat(drive.rim_speed_mps[:, None], wheels, axis=1)
        limit = drive.force_n[:, None] * self.drive_share[None, :]
        grip = np.ones((vehicles, wheels))
        brake = np.where(drive.hold, np.maximum(brake, 1.0), brake)  # the hill hold
        braking = brake > 0.0
        speed[braking] = 0.0
        limit[braking] = (brake[braking] * spec.brake_force_n)[:, None] * self.brake_share
        rear_held = handbrake[:, None] & ~self.front[None, :]
        speed[rear_held] = 0.0
        limit[rear_held] = np.maximum(limit[rear_held], spec.handbrake_force_n / (~self.front).sum())
        grip[rear_held] = spec.handbrake_grip
        return AnchorCommand(speed, limit, self.ackermann(self.steer_rad), grip)

    def body_impulses(self, states, substep_s: float) -> np.ndarray:
        """Air drag: half rho CdA |v| v against the motion."""
        velocity = states.velocity_ws
        speed = np.linalg.norm(velocity, axis=1, keepdims=True)
        drag = 0.5 * self.spec.air_density_kg_m3 * self.spec.drag_area_m2 * speed * velocity
        return -drag * substep_s


@dataclass(frozen=True)
class CarSpec(Spec):
    """Everything physical about one kind of car (config/car.toml)."""

    gearbox: str = tuning("name of its gearbox (a table in config/gearboxes.toml)")
    tyres: str = tuning("grip: the anchors' friction circle along each wheel's heading; slip: "
                        "spinning wheels with a tyre curve", choices=("grip", "slip"))
    hull: HullSpec = tuning("the chassis")
    suspension: SuspensionSpec = tuning("wheel mounts, springs and dampers")
    grip: GripSpec = tuning("how the tyres hold the ground (both tyre kinds; slip tyres use "
                            "it at walking pace)")
    wheels: WheelSpec = tuning("steering, drive, brakes, drag")
    wheel_spin: WheelSpinSpec = tuning("the wheels' inertia and drag (both tyre kinds)")
    slip_tyres: SlipTyreSpec = tuning("the slip tyres' curve")

    tracked = False

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.suspension.wheel_radius_m <= 0.0:
            raise SpecError("suspension.wheel_radius_m", self.suspension.wheel_radius_m,
                            "a wheel radius above 0 for a car")
        ahead = [anchor.y_m > 0.0 for anchor in self.suspension.anchors]
        if all(ahead) or not any(ahead):
            raise SpecError("suspension.anchors", self.suspension.anchors,
                            "wheels ahead of (y > 0) and behind the centre of mass")

    def make_drive(self, constants: AnchorConstants) -> WheelDrive:
        return WheelDrive(self.wheels, constants)

    def make_model(self, constants: AnchorConstants) -> AnchorModel:
        return AnchorModel(constants, self.grip,
                           self.slip_tyres if self.tyres == "slip" else None, self.wheel_spin,
                           drive_share=drive_shares(self.wheels, constants))

    def driveline(self, gearbox: GearboxSpec, constants: AnchorConstants) -> Driveline:
        """What the engine drives: the driven wheels (their own inertia too) and the car."""
        driven = np.count_nonzero(drive_shares(self.wheels, constants))
        return Driveline(self.suspension.wheel_radius_m, self.hull.mass_kg,
                         driven * self.wheel_spin.wheel_inertia_kg_m2, 0.0)
