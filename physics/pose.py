"""Body state snapshots and the blend between two fixed steps that the renderer draws."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from panda3d.bullet import BulletRigidBodyNode


@dataclass(frozen=True)
class BodyState:
    """A rigid body's state at the end of a step. Quaternions are (w, x, y, z)."""

    position_ws: np.ndarray
    orientation_ws: np.ndarray
    velocity_ws: np.ndarray
    angular_velocity_ws: np.ndarray

    @classmethod
    def of(cls, body: BulletRigidBodyNode) -> "BodyState":
        transform = body.getTransform()
        quat = transform.getQuat()
        axes = np.array(transform.getMat().getUpper3())
        axes.setflags(write=False)
        return cls.with_axes(np.array(transform.getPos()),
                             np.array([quat.getR(), quat.getI(), quat.getJ(), quat.getK()]),
                             np.array(body.getLinearVelocity()),
                             np.array(body.getAngularVelocity()), axes)

    @classmethod
    def with_axes(cls, position_ws: np.ndarray, orientation_ws: np.ndarray,
                  velocity_ws: np.ndarray, angular_velocity_ws: np.ndarray,
                  axes_ws: np.ndarray) -> "BodyState":
        """A state whose axes were read with it (read-only rows, as :meth:`axes_ws` gives
        them): the rotation Bullet holds, of which the quaternion is Panda's conversion."""
        state = cls(position_ws, orientation_ws, velocity_ws, angular_velocity_ws)
        state.__dict__["_axes_ws"] = axes_ws  # where the cached property keeps them
        return state

    def axes_ws(self) -> np.ndarray:
        """Rows: the body's right (+X), forward (+Y) and up (+Z) axes in world space
        (read with the state, or worked out from the quaternion once; read-only: many
        readers share it)."""
        return self._axes_ws

    @cached_property
    def _axes_ws(self) -> np.ndarray:
        axes = rotation_matrix(self.orientation_ws).T
        axes.setflags(write=False)
        return axes

    def forward_speed_ms(self) -> float:
        return float(self.velocity_ws @ self.axes_ws()[1])

    def heading_pitch_roll_deg(self) -> tuple[float, float, float]:
        """Compass heading (0 = +Y, 90 = +X), nose-up pitch, right-side-down roll."""
        right, forward, up = self.axes_ws()
        heading = math.degrees(math.atan2(forward[0], forward[1])) % 360.0
        pitch = math.degrees(math.asin(max(-1.0, min(1.0, forward[2]))))
        roll = math.degrees(math.atan2(-right[2], up[2]))
        return heading, pitch, roll


def rotation_matrix(quaternion: np.ndarray) -> np.ndarray:
    """3x3 matrix taking body-space column vectors to world space."""
    w, x, y, z = quaternion
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])


def blend_poses(previous: BodyState, current: BodyState, alpha: float
                ) -> tuple[np.ndarray, np.ndarray]:
    """Position and orientation ``alpha`` of the way from ``previous`` to ``current``."""
    position = previous.position_ws + (current.position_ws - previous.position_ws) * alpha
    start, end = previous.orientation_ws, current.orientation_ws
    if start @ end < 0.0:  # the short way round
        end = -end
    orientation = start + (end - start) * alpha
    return position, orientation / np.linalg.norm(orientation)
