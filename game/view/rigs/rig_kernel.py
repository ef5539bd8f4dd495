"""The rigs' per-frame numbers in compiled loops (numba, see :mod:`common.compiled`):
the hulls' blended poses and rotations, the anchors' distances and the tracks' speeds, the
road wheels' heights and every wheel's pose, and the frustum test of the rigs' spheres.
Each is the arithmetic of its numpy form in :mod:`game.view.rigs.rig_pose` or
:mod:`game.view.rigs.rig_culling`, whose many small operations cost more than the arithmetic
where there are few rigs (a frame runs each once, its code and data cold after the
renderer). Where numba is not available each loop is None and the numpy form runs.
"""

from __future__ import annotations

import math

import numpy as np

from common.compiled import compiled


def _blend_hulls(previous_ws, current_ws, previous_q, current_q, alpha, position_ws,
                 orientation, rotation):
    """Per rig: its position and (w, x, y, z) orientation ``alpha`` of the way from the
    previous to the current (the short way round, normalised), and that orientation's
    rotation matrix (body-space columns to world space), into the last three arrays."""
    for rig in range(previous_ws.shape[0]):
        for axis in range(3):
            start = previous_ws[rig, axis]
            position_ws[rig, axis] = start + (current_ws[rig, axis] - start) * alpha
        facing = 0.0
        for part in range(4):
            facing += previous_q[rig, part] * current_q[rig, part]
        sign = -1.0 if facing < 0.0 else 1.0
        length2 = 0.0
        for part in range(4):
            start = previous_q[rig, part]
            blended = start + (sign * current_q[rig, part] - start) * alpha
            orientation[rig, part] = blended
            length2 += blended * blended
        length = math.sqrt(length2)
        for part in range(4):
            orientation[rig, part] /= length
        w, x, y, z = (orientation[rig, 0], orientation[rig, 1], orientation[rig, 2],
                      orientation[rig, 3])
        rotation[rig, 0, 0] = 1 - 2 * (y * y + z * z)
        rotation[rig, 0, 1] = 2 * (x * y - w * z)
        rotation[rig, 0, 2] = 2 * (x * z + w * y)
        rotation[rig, 1, 0] = 2 * (x * y + w * z)
        rotation[rig, 1, 1] = 1 - 2 * (x * x + z * z)
        rotation[rig, 1, 2] = 2 * (y * z - w * x)
        rotation[rig, 2, 0] = 2 * (x * z - w * y)
        rotation[rig, 2, 1] = 2 * (y * z + w * x)
        rotation[rig, 2, 2] = 1 - 2 * (x * x + y * y)


def _track_motion(contact_ws, origin_ws, direction_ws, on_ground, index, rest_length_m,
                  velocity_ws, spin_ws, axes_ws, side_x_m, distances, speeds):
    """Per vehicle ``index[v]`` of a fleet's anchor report: each anchor's distance from
    its ray's origin to the ground along the ray (``rest_length_m`` off the ground) into
    ``distances`` (V, A), and the ground speed along the hull under each track at
    ``side_x_m`` across it (velocity plus spin crossed with the hull's right axis, along
    its forward axis) into ``speeds`` (V, 2)."""
    anchors = on_ground.shape[1]
    for row in range(index.shape[0]):
        vehicle = index[row]
        for anchor in range(anchors):
            if on_ground[vehicle, anchor]:
                along = 0.0
                for axis in range(3):
                    along += ((contact_ws[vehicle, anchor, axis]
                               - origin_ws[vehicle, anchor, axis])
                              * direction_ws[vehicle, anchor, axis])
                distances[row, anchor] = along
            else:
                distances[row, anchor] = rest_length_m
        sx, sy, sz = spin_ws[row, 0], spin_ws[row, 1], spin_ws[row, 2]
        rx, ry, rz = axes_ws[row, 0, 0], axes_ws[row, 0, 1], axes_ws[row, 0, 2]
        fx, fy, fz = axes_ws[row, 1, 0], axes_ws[row, 1, 1], axes_ws[row, 1, 2]
        along = velocity_ws[row, 0] * fx + velocity_ws[row, 1] * fy + velocity_ws[row, 2] * fz
        turning = ((sy * rz - sz * ry) * fx + (sz * rx - sx * rz) * fy
                   + (sx * ry - sy * rx) * fz)
        for side in range(side_x_m.shape[0]):
            speeds[row, side] = along + turning * side_x_m[side]


def _spheres_in_frustum(centres, radii_m, matrix, planes, seen):
    """Mark in ``seen`` each sphere (``centres`` (N, 3) in a parent's frame, ``radii_m``)
    that meets a frustum: its ``planes`` (P, 4) in the camera's frame (inside on their
    negative side), ``matrix`` the parent's frame in the camera's (4 x 4, row vectors).
    A sphere meets it unless it lies wholly outside one plane; the radii grow by the
    matrix's largest axis scale."""
    scale2 = 0.0
    for row in range(3):
        length2 = matrix[row, 0] ** 2 + matrix[row, 1] ** 2 + matrix[row, 2] ** 2
        scale2 = max(scale2, length2)
    scale = math.sqrt(scale2)
    for sphere in range(centres.shape[0]):
        if seen[sphere]:
            continue
        x, y, z = centres[sphere, 0], centres[sphere, 1], centres[sphere, 2]
        cx = x * matrix[0, 0] + y * matrix[1, 0] + z * matrix[2, 0] + matrix[3, 0]
        cy = x * matrix[0, 1] + y * matrix[1, 1] + z * matrix[2, 1] + matrix[3, 1]
        cz = x * matrix[0, 2] + y * matrix[1, 2] + z * matrix[2, 2] + matrix[3, 2]
        reach = radii_m[sphere] * scale
        inside = True
        for plane in range(planes.shape[0]):
            distance = (cx * planes[plane, 0] + cy * planes[plane, 1] + cz * planes[plane, 2]
                        + planes[plane, 3])
            if not distance <= reach:  # as numpy has it: NaN is not seen
                inside = False
                break
        seen[sphere] = inside


def _wheel_poses(previous_m, current_m, alpha, anchors_z, weights, lift_m, travelled_m,
                 radii_m, drive_sides, colour, shown_z, shown_travelled_m, shown_colour,
                 poses, centre_z, wheels_moved, belts_moved):
    """Per rig (of one layout): its road wheels' centre heights into ``centre_z`` (R, W),
    from its anchors' ground distances ``alpha`` of the way from ``previous_m`` to
    ``current_m`` (R, A) under the anchors' heights, weighted (``weights`` (R, W, A)) and
    lifted; its wheels' poses (R, W + D, 4: centre and spin; the road wheels side by side,
    then the sprockets and idlers on ``drive_sides``) written over the shown ones in
    ``poses``, with whether any changed in ``wheels_moved`` (R,); the spins from the metres
    each side ran (``travelled_m`` (R, 2)) over the road and drive wheels' radii (R, 2),
    wrapped to one turn. ``belts_moved`` (2R,): whether each belt's wheels rose or fell,
    it ran, or its rig's ``colour`` changed since shown."""
    rigs, road, anchors = weights.shape
    per_side = road // 2
    for rig in range(rigs):
        blend = alpha[rig]
        for wheel in range(road):
            height = 0.0
            for anchor in range(anchors):
                start = previous_m[rig, anchor]
                distance = start + (current_m[rig, anchor] - start) * blend
                height += weights[rig, wheel, anchor] * (anchors_z[rig, anchor] - distance)
            centre_z[rig, wheel] = height + lift_m[rig]
        shaded = False
        for channel in range(colour.shape[1]):
            shaded = shaded or colour[rig, channel] != shown_colour[rig, channel]
        changed = False
        for side in range(2):
            road_spin = np.remainder(-travelled_m[rig, side] / radii_m[rig, 0], 2.0 * np.pi)
            moved = shaded or travelled_m[rig, side] != shown_travelled_m[rig, side]
            for wheel in range(side * per_side, (side + 1) * per_side):
                moved = moved or centre_z[rig, wheel] != shown_z[rig, wheel]
                changed = (changed or poses[rig, wheel, 2] != centre_z[rig, wheel]
                           or poses[rig, wheel, 3] != road_spin)
                poses[rig, wheel, 2] = centre_z[rig, wheel]
                poses[rig, wheel, 3] = road_spin
            belts_moved[2 * rig + side] = moved
        for index in range(drive_sides.shape[0]):
            spin = np.remainder(-travelled_m[rig, drive_sides[index]] / radii_m[rig, 1],
                                2.0 * np.pi)
            changed = changed or poses[rig, road + index, 3] != spin
            poses[rig, road + index, 3] = spin
        wheels_moved[rig] = changed


blend_hulls_loop = compiled(_blend_hulls)
wheel_poses_loop = compiled(_wheel_poses)
track_motion_loop = compiled(_track_motion)
spheres_in_frustum_loop = compiled(_spheres_in_frustum)
