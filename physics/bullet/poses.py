"""Bodies and the model's states: reading one body or a whole fleet in one pass, and setting
a body down at rest on the ground."""

from __future__ import annotations

from collections import deque
from itertools import repeat
from typing import NamedTuple

import numpy as np
from panda3d.bullet import BulletRigidBodyNode
from panda3d.core import (Datagram, LMatrix3f, LMatrix4f, LQuaternionf, LVecBase3f, LVecBase4f,
                          PandaNode, Point3, TransformState, Vec3)

from physics.model.anchors import BodyStates
from physics.model.compiled import compiled
from physics.model.pose import BodyState

_FLOAT32 = np.dtype("<f4")
"""How Datagram.add_float32 (``write_datagram_fixed`` of Panda's float vectors) stores a number."""


def body_state(body: BulletRigidBodyNode) -> BodyState:
    """One body's state now (its axes as Bullet's matrix holds them)."""
    transform = body.getTransform()
    quat = transform.getQuat()
    axes = np.array(transform.getMat().getUpper3())
    axes.setflags(write=False)
    return BodyState(np.array(transform.getPos()),
                     np.array([quat.getR(), quat.getI(), quat.getJ(), quat.getK()]),
                     np.array(body.getLinearVelocity()), np.array(body.getAngularVelocity()),
                     axes)


_write_matrix = LMatrix4f.writeDatagramFixed
_write_vector = LVecBase3f.writeDatagramFixed
_write_quaternion = LVecBase4f.writeDatagramFixed
_transform = PandaNode.getTransform
_matrix = TransformState.getMat
_quaternion = TransformState.getQuat
_linear_velocity = BulletRigidBodyNode.getLinearVelocity
_angular_velocity = BulletRigidBodyNode.getAngularVelocity


def call_each(method, *iterables) -> None:
    """``method(a, b, ...)`` for each ``a, b, ...`` taken together from ``iterables``, in
    order, the results dropped. ``map`` runs the loop in C (an empty ``deque`` drains it):
    no Python bytecode per call, as a ``for`` loop over Panda's calls has."""
    deque(map(method, *iterables), maxlen=0)


def read_floats(columns) -> np.ndarray:
    """Panda values as float64s, in one pass: ``columns`` are (write, values) pairs, each
    value (from a list or an iterator) written with ``write(value, datagram)`` in order.

    Every value goes into one Datagram as raw float32s (``write_datagram_fixed`` is one
    C++ call each) and comes back with one ``np.frombuffer``: about ten times faster than
    ``np.array`` on a list of Panda matrices, which converts them number by number, and
    exactly the same values. One loop per kind of value, the write method looked up
    once: 15 % less again than writing each body's values together.
    """
    return _raw_floats(columns).astype(np.float64)


def _raw_floats(columns) -> np.ndarray:
    """:func:`read_floats`' numbers as Panda stores them: float32s, read-only."""
    datagram = Datagram()
    for write, values in columns:
        call_each(write, values, repeat(datagram))
    return np.frombuffer(datagram.getMessage(), dtype=_FLOAT32)


def body_states(bodies: list[BulletRigidBodyNode]) -> BodyStates:
    """The bodies' states as the anchor model reads them (Panda's matrices are row-vector:
    their rows are the axes). Every array is contiguous, however many bodies there are,
    so a compiled loop that reads them is compiled once, not once per layout."""
    values = read_floats(((_write_matrix, map(_matrix, map(_transform, bodies))),
                           (_write_vector, map(_linear_velocity, bodies)),
                           (_write_vector, map(_angular_velocity, bodies))))
    count = len(bodies)
    matrices = values[:16 * count].reshape(count, 4, 4)
    velocities = values[16 * count:].reshape(2, count, 3)
    return BodyStates(np.ascontiguousarray(matrices[:, 3, :3]),
                      np.ascontiguousarray(matrices[:, :3, :3]), velocities[0], velocities[1])


class FleetPoses(NamedTuple):
    """The states of a fleet's bodies, rows by vehicle index."""

    rows: np.ndarray
    """(V, 13): position, orientation quaternion (w, x, y, z), velocity, angular velocity."""
    axes_ws: np.ndarray
    """(V, 3, 3), read-only: each body's right, forward and up axes (rows)."""
    finite: np.ndarray
    """(V,): every number of that body's state is finite."""

    def state(self, index: int) -> BodyState:
        row = self.rows[index]
        return BodyState(row[0:3], row[3:7], row[7:10], row[10:13], self.axes_ws[index])


def fleet_poses(bodies: list[BulletRigidBodyNode]) -> FleetPoses:
    """:class:`BodyState` numbers of every body in one pass: exactly what
    :func:`body_state` reads, body by body."""
    transforms = list(map(_transform, bodies))
    values = _raw_floats(((_write_matrix, map(_matrix, transforms)),
                           (_write_quaternion, map(_quaternion, transforms)),
                           (_write_vector, map(_linear_velocity, bodies)),
                           (_write_vector, map(_angular_velocity, bodies))))
    count = len(bodies)
    rows, axes, finite = np.empty((count, 13)), np.empty((count, 3, 3)), np.empty(count, bool)
    _pose_rows(values, rows, axes, finite)
    axes.setflags(write=False)
    return FleetPoses(rows, axes, finite)


def _pose_rows(values, rows, axes, finite):
    """From the float32s :func:`fleet_poses` reads (every body's matrix, then every
    quaternion, linear and angular velocity), each body's row (position, quaternion,
    velocity, angular velocity) and axes (the matrix's upper 3 x 3) as float64s, and
    whether its row is finite (the quaternion is worked out from the matrix: finite rows
    mean finite axes)."""
    count = rows.shape[0]
    for body in range(count):
        matrix = 16 * body
        for axis in range(3):
            rows[body, axis] = values[matrix + 12 + axis]
            rows[body, 7 + axis] = values[20 * count + 3 * body + axis]
            rows[body, 10 + axis] = values[23 * count + 3 * body + axis]
            for column in range(3):
                axes[body, axis, column] = values[matrix + 4 * axis + column]
        for part in range(4):
            rows[body, 3 + part] = values[16 * count + 4 * body + part]
        finite[body] = True
        for column in range(13):
            if not np.isfinite(rows[body, column]):
                finite[body] = False


_pose_rows = compiled(_pose_rows) or _pose_rows


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


def set_at_rest(body: BulletRigidBodyNode, position_ws, rotation: LQuaternionf) -> None:
    """Put a body at a position and orientation, still."""
    body.setTransform(TransformState.makePosQuatScale(Point3(*position_ws), rotation,
                                                      Vec3(1, 1, 1)))
    body.setLinearVelocity(Vec3(0, 0, 0))
    body.setAngularVelocity(Vec3(0, 0, 0))


def set_state(body: BulletRigidBodyNode, position_ws, orientation_ws, velocity_ws,
              angular_velocity_ws) -> None:
    """Put a body at a position and orientation (w, x, y, z), moving as given."""
    w, x, y, z = (float(value) for value in orientation_ws)
    body.setTransform(TransformState.makePosQuatScale(Point3(*position_ws),
                                                      LQuaternionf(w, x, y, z), Vec3(1, 1, 1)))
    body.setLinearVelocity(Vec3(*velocity_ws))
    body.setAngularVelocity(Vec3(*angular_velocity_ws))
