"""The chase camera: behind and above the vehicle, aimed ahead, following on a spring."""

from __future__ import annotations

import math

import numpy as np
from panda3d.core import NodePath, Point3

from game.config import CameraSpec
from physics.terrain import Terrain


def critically_damped(position, velocity, target, frequency_hz: float, dt_s: float):
    """Exact step of a critically damped spring toward ``target``: never overshoots,
    and a long frame (a hitch) simply arrives instead of exploding."""
    omega = 2.0 * math.pi * frequency_hz
    offset = position - target
    decay = math.exp(-omega * dt_s)
    blend = (velocity + omega * offset) * dt_s
    return target + (offset + blend) * decay, (velocity - omega * blend) * decay


class ChaseCamera:
    """Moves ``camera`` to follow a drawn pose (position, rotation matrix) each frame."""

    def __init__(self, camera: NodePath, terrain: Terrain, spec: CameraSpec):
        self.camera = camera
        self.terrain = terrain
        self.spec = spec
        self.position = None
        self.velocity = np.zeros(3)
        self._forward_flat = np.array([0.0, 1.0, 0.0])

    def _flat_forward(self, rotation: np.ndarray) -> np.ndarray:
        """The vehicle's forward direction on the ground plane (kept while it points up/down)."""
        forward = rotation[:, 1].copy()
        forward[2] = 0.0
        length = np.linalg.norm(forward)
        if length > np.finfo(np.float32).eps:
            self._forward_flat = forward / length
        return self._forward_flat

    def update(self, dt_s: float, vehicle_position: np.ndarray, rotation: np.ndarray) -> None:
        forward = self._flat_forward(rotation)
        target = (vehicle_position - forward * self.spec.distance_m
                  + np.array([0.0, 0.0, self.spec.height_m]))
        if self.position is None:
            self.position = target
        else:
            self.position, self.velocity = critically_damped(
                self.position, self.velocity, target, self.spec.follow_frequency_hz, dt_s)
        lowest_m = float(self.terrain.height_at(self.position[0], self.position[1])
                         ) + self.spec.terrain_clearance_m
        if self.position[2] < lowest_m:
            self.position[2] = lowest_m
            self.velocity[2] = max(self.velocity[2], 0.0)
        aim = vehicle_position + forward * self.spec.look_ahead_m
        self.camera.setPos(Point3(*self.position))
        self.camera.lookAt(Point3(*aim))

    def destroy(self) -> None:
        self.camera = None
