"""Body state snapshots and the blend between two fixed steps that the renderer draws."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True, slots=True)
class BodyState:
    """A rigid body's state at the end of a step. Quaternions are (w, x, y, z). Slotted:
    every vehicle gets a new one every step, made in about three fifths of the time of a
    plain frozen dataclass."""

    position_ws: np.ndarray
    orientation_ws: np.ndarray
    velocity_ws: np.ndarray
    angular_velocity_ws: np.ndarray
    rotation_rows_ws: np.ndarray = field(compare=False, repr=False)
    """Read-only rows: the body's right, forward and up axes, as Bullet's matrix holds
    them (the quaternion is Panda's conversion of that matrix)."""

    def axes_ws(self) -> np.ndarray:
        """Rows: the body's right (+X), forward (+Y) and up (+Z) axes in world space
        (read-only: many readers share it)."""
        return self.rotation_rows_ws

    def in_body_frame(self, point_ws, vector_ws) -> tuple[np.ndarray, np.ndarray]:
        """A point and a vector in the world, in this body's frame."""
        axes = self.rotation_rows_ws  # rows: the body's axes in the world
        return (axes @ (np.asarray(point_ws, dtype=float) - self.position_ws),
                axes @ np.asarray(vector_ws, dtype=float))

    def forward_speed_mps(self) -> float:
        return float(self.velocity_ws @ self.axes_ws()[1])

    def heading_pitch_roll_deg(self) -> tuple[float, float, float]:
        """Compass heading (0 = +Y, 90 = +X), nose-up pitch, right-side-down roll."""
        right, forward, up = self.axes_ws()
        heading = math.degrees(math.atan2(forward[0], forward[1])) % 360.0
        pitch = math.degrees(math.asin(max(-1.0, min(1.0, forward[2]))))
        roll = math.degrees(math.atan2(-right[2], up[2]))
        return heading, pitch, roll


_new_object = object.__new__
_set_position, _set_orientation, _set_velocity, _set_angular_velocity, _set_rows = (
    getattr(BodyState, name).__set__ for name in BodyState.__dataclass_fields__)


def made_body_state(position_ws: np.ndarray, orientation_ws: np.ndarray,
                    velocity_ws: np.ndarray, angular_velocity_ws: np.ndarray,
                    rotation_rows_ws: np.ndarray) -> BodyState:
    """``BodyState(...)`` made a quarter faster: each slot set through its own descriptor
    rather than by name, as the frozen dataclass's ``__init__`` does (the guard makes one
    for every vehicle at every step)."""
    state = _new_object(BodyState)
    _set_position(state, position_ws)
    _set_orientation(state, orientation_ws)
    _set_velocity(state, velocity_ws)
    _set_angular_velocity(state, angular_velocity_ws)
    _set_rows(state, rotation_rows_ws)
    return state


def rotation_matrix(quaternion: np.ndarray) -> np.ndarray:
    """3x3 matrix taking body-space column vectors to world space; of each (w, x, y, z)
    row of a (..., 4) array, (..., 3, 3)."""
    w, x, y, z = np.moveaxis(np.asarray(quaternion), -1, 0)
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], axis=-1),
        np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], axis=-1),
        np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], axis=-1),
    ], axis=-2)


def blend_pose_arrays(start_ws: np.ndarray, end_ws: np.ndarray, start_q: np.ndarray,
                      end_q: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Positions (..., 3) and orientations (..., 4) ``alpha`` of the way from the starts to
    the ends, each orientation the short way round."""
    position = start_ws + (end_ws - start_ws) * alpha
    end_q = np.where(np.einsum("...q,...q->...", start_q, end_q)[..., None] < 0.0, -end_q, end_q)
    orientation = start_q + (end_q - start_q) * alpha
    return position, orientation / np.sqrt(np.einsum("...q,...q->...", orientation,
                                                     orientation))[..., None]


def blend_poses(previous: BodyState, current: BodyState, alpha: float
                ) -> tuple[np.ndarray, np.ndarray]:
    """Position and orientation ``alpha`` of the way from ``previous`` to ``current``."""
    return blend_pose_arrays(previous.position_ws, current.position_ws,
                             previous.orientation_ws, current.orientation_ws, alpha)
