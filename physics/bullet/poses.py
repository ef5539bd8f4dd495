"""Bodies and the model's states: reading one body or a whole fleet in one pass, and setting
a body down at rest on the ground."""

from __future__ import annotations

from collections import deque
from itertools import chain
from typing import NamedTuple

import numpy as np
from panda3d.bullet import BulletRigidBodyNode
from panda3d.core import (PTA_LMatrix4f, PTA_LVecBase3f, PTA_LVecBase4f, LMatrix3f, LQuaternionf,
                          PandaNode, Point3, TransformState, Vec3)

from common.compiled import compiled_loop
from physics.model.anchors import BodyStates
from physics.model.pose import BodyState, made_body_state

_FLOAT32 = np.dtype(np.float32)
"""How Panda's single-precision matrices and vectors store a number."""


def vector_array(vector) -> np.ndarray:
    """A Panda vector, point or quaternion as a float64 array of its numbers: by way of a
    tuple, several times faster than ``np.array`` on the Panda value itself (which reads
    it number by number through the sequence protocol); the same numbers."""
    return np.array(tuple(vector))


def body_state(body: BulletRigidBodyNode) -> BodyState:
    """One body's state now (its axes as Bullet's matrix holds them)."""
    transform = body.getTransform()
    quat = transform.getQuat()
    axes = np.array(transform.getMat().getUpper3())
    axes.setflags(write=False)
    return BodyState(vector_array(transform.getPos()),
                     np.array([quat.getR(), quat.getI(), quat.getJ(), quat.getK()]),
                     vector_array(body.getLinearVelocity()),
                     vector_array(body.getAngularVelocity()), axes)


_transform = PandaNode.getTransform
_position = TransformState.getPos
_matrix = TransformState.getMat
_quaternion = TransformState.getQuat
_linear_velocity = BulletRigidBodyNode.getLinearVelocity
_angular_velocity = BulletRigidBodyNode.getAngularVelocity


def call_each(method, *iterables) -> None:
    """``method(a, b, ...)`` for each ``a, b, ...`` taken together from ``iterables``, in
    order, the results dropped. ``map`` runs the loop in C (an empty ``deque`` drains it):
    no Python bytecode per call, as a ``for`` loop over Panda's calls has."""
    deque(map(method, *iterables), maxlen=0)


def float32s(array_type, values) -> np.ndarray:
    """Panda values of one kind, in order, as Panda stores their numbers: one flat float32
    array (over the Panda array's own memory, which it keeps alive).

    Each value (from a list or an iterator) goes whole into one of Panda's arrays of that
    kind (``array_type``: ``PTA_LMatrix4f``, ``PTA_LVecBase4f`` or ``PTA_LVecBase3f``; one
    C++ call each, mapped in C) and the array's bytes come back in one copy
    (``getData``), which ``np.frombuffer`` reads. That is many times faster than
    ``np.array`` on a list of Panda matrices, which converts them number by number, and at
    1000 bodies a third faster than writing their numbers one by one into a Datagram; the
    values are the same.

    Not the array's own buffer: Panda 1.10 leaks about 32 bytes of native memory each
    time a ``PointerToArray`` exports its buffer (``np.frombuffer(array)`` or
    ``memoryview(array)``), which at a few reads a step grew a long game by a megabyte a
    minute. The copy costs no more than the export.
    """
    array = array_type()
    call_each(array.pushBack, values)
    return np.frombuffer(array.getData(), dtype=_FLOAT32)


def positions_ws(bodies: list[BulletRigidBodyNode]) -> np.ndarray:
    """Every body's position (N, 3), read in one pass: the numbers :func:`body_state`
    reads."""
    return float32s(PTA_LVecBase3f, map(_position, map(_transform, bodies))
                    ).reshape(-1, 3).astype(np.float64)


def _velocities(bodies: list[BulletRigidBodyNode]) -> np.ndarray:
    """Every body's linear velocity, then every body's angular velocity: float32s, flat."""
    return float32s(PTA_LVecBase3f, chain(map(_linear_velocity, bodies),
                                          map(_angular_velocity, bodies)))


def body_states(bodies: list[BulletRigidBodyNode]) -> BodyStates:
    """The bodies' states as the anchor model reads them (Panda's matrices are row-vector:
    their rows are the axes). Every array is contiguous, however many bodies there are,
    so a compiled loop that reads them is compiled once, not once per layout."""
    count = len(bodies)
    position, velocity, spin = np.empty((3, count, 3))
    axes = np.empty((count, 3, 3))
    _state_arrays(float32s(PTA_LMatrix4f, map(_matrix, map(_transform, bodies))),
                  _velocities(bodies), position, axes, velocity, spin)
    return BodyStates(position, axes, velocity, spin)


@compiled_loop
def _state_arrays(matrices, vectors, position, axes, velocity, spin):
    """From the float32s :func:`body_states` reads (every body's matrix; every linear
    velocity, then every angular velocity), each body's position, axes (the matrix's
    upper 3 x 3), velocity and angular velocity as float64s: one compiled pass where
    numpy's conversions were five calls."""
    count = position.shape[0]
    for body in range(count):
        matrix = 16 * body
        for axis in range(3):
            position[body, axis] = matrices[matrix + 12 + axis]
            velocity[body, axis] = vectors[3 * body + axis]
            spin[body, axis] = vectors[3 * count + 3 * body + axis]
            for column in range(3):
                axes[body, axis, column] = matrices[matrix + 4 * axis + column]


class FleetPoses(NamedTuple):
    """The states of a fleet's bodies, rows by vehicle index."""

    rows: np.ndarray
    """(V, 13): position, orientation quaternion (w, x, y, z), velocity, angular velocity."""
    axes_ws: np.ndarray
    """(V, 3, 3), read-only: each body's right, forward and up axes (rows)."""
    finite: np.ndarray
    """(V,): every number of that body's state is finite."""
    arrays: BodyStates
    """The same numbers as :func:`body_states` reads them, in arrays of their own."""

    def states(self) -> list[BodyState]:
        """Every body's state (views of its row and axes), by index, made in one pass."""
        rows = self.rows
        return list(map(made_body_state, rows[:, 0:3], rows[:, 3:7], rows[:, 7:10],
                        rows[:, 10:13], self.axes_ws))


def fleet_poses(bodies: list[BulletRigidBodyNode]) -> FleetPoses:
    """:class:`BodyState` numbers of every body in one pass: exactly what
    :func:`body_state` reads, body by body."""
    transforms = list(map(_transform, bodies))
    matrices = float32s(PTA_LMatrix4f, map(_matrix, transforms))
    quaternions = float32s(PTA_LVecBase4f, map(_quaternion, transforms))
    vectors = _velocities(bodies)
    count = len(bodies)
    position, velocity, spin = np.empty((3, count, 3))
    axes = np.empty((count, 3, 3))
    rows, finite = np.empty((count, 13)), np.empty(count, bool)
    _pose_rows(matrices, quaternions, vectors, position, axes, velocity, spin, rows, finite)
    axes_ws = axes.copy()  # the vehicles' states keep their own: the next step reads axes
    axes_ws.setflags(write=False)
    return FleetPoses(rows, axes_ws, finite, BodyStates(position, axes, velocity, spin))


@compiled_loop
def _pose_rows(matrices, quaternions, vectors, position, axes, velocity, spin, rows, finite):
    """From the float32s :func:`fleet_poses` reads (every body's matrix; every quaternion;
    every linear velocity, then every angular velocity), the arrays :func:`body_states`
    makes, and each body's row (position, quaternion, velocity, angular velocity) as
    float64s, and whether its row is finite (the quaternion is worked out from the matrix:
    finite rows mean finite axes)."""
    _state_arrays(matrices, vectors, position, axes, velocity, spin)
    for body in range(rows.shape[0]):
        for axis in range(3):
            rows[body, axis] = position[body, axis]
            rows[body, 7 + axis] = velocity[body, axis]
            rows[body, 10 + axis] = spin[body, axis]
        for part in range(4):
            rows[body, 3 + part] = quaternions[4 * body + part]
        finite[body] = True
        for column in range(13):
            if not np.isfinite(rows[body, column]):
                finite[body] = False


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
