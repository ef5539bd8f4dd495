"""The anchor model's substep over terrain alone, compiled: one loop over the anchors that
does what :meth:`physics.model.ground.TerrainGround.cast` and
:meth:`physics.model.anchors.AnchorModel.step` do, in the same order of operations, so
the numbers are the same to the last bit (tested). numpy's cost is per call, and a
substep of eight tanks is a hundred-odd calls on 32 numbers each: compiled, the substep
takes a twentieth of the time.

It covers what the battle needs every substep: tracked vehicles (no wheels to spin)
whose rays all meet the terrain's height array. Anything else (wheels, rays through
Bullet near rocks, crates and other vehicles) takes the numpy path, which stays the
reference. Without numba (a platform it does not support) everything takes that path.
"""

from __future__ import annotations

import numpy as np

from physics.model.compiled import compiled
from physics.model.ground import PARALLEL_COSINE
from physics.model.terrain import Terrain, plane_under
from physics.model.anchors import (ACROSS, ALONG, COMPRESSION, DOWN, HIT, LOAD, NORMAL, ORIGIN,
                                   POINT, RESULT_ROWS, SLIDING, AnchorConstants, GripSpec)

_TINY = np.finfo(float).tiny

# Columns of the per-anchor constants table.
(_X, _Y, _Z, _MASS, _STIFFNESS, _DAMPING, _BUMP_STIFFNESS, _BUMP_DAMPING, _GRIP_STIFFNESS,
 _GRIP_DAMPING, _PATCH, _NEGATIVE_COMPLIANCE, _CONSTANT_COLUMNS) = range(13)


def _terrain_substep(position, axes, velocity, spin, surface_speed, force_limit, steer,
                     grip_share, anchors, model, deflection, last_distance, warm, substep_s,
                     planes, plane_lookup, ground_by_sample, linear, angular, results):
    """One substep of every anchor of V vehicles over the terrain, in place.

    ``position``, ``velocity``, ``spin`` (V, 3) and ``axes`` (V, 3, 3: rows right,
    forward, up) are the bodies; ``surface_speed``, ``force_limit``, ``steer`` and
    ``grip_share`` (V, A) the command; ``anchors`` (A, _CONSTANT_COLUMNS) and ``model``
    (ray length, travel, least ground up, grip, sliding grip, rolling resistance) the
    constants. ``deflection`` (2, N) and ``last_distance`` (N,) carry over between
    substeps; ``linear`` and ``angular`` (V, 3) and ``results`` (RESULT_ROWS, N) are
    written.
    """
    vehicles, count = position.shape[0], anchors.shape[0]
    ray_length, travel, min_ground_up = model[0], model[1], model[2]
    grip, sliding_grip, rolling = model[3], model[4], model[5]
    half_x, half_y, spacing = plane_lookup[0], plane_lookup[1], plane_lookup[2]
    last_u, last_v = plane_lookup[3], plane_lookup[4]
    columns = int(last_u) + 1
    refinements = 1 if warm else 2
    for vehicle in range(vehicles):
        px, py, pz = position[vehicle, 0], position[vehicle, 1], position[vehicle, 2]
        rx, ry, rz = axes[vehicle, 0, 0], axes[vehicle, 0, 1], axes[vehicle, 0, 2]
        fx, fy, fz = axes[vehicle, 1, 0], axes[vehicle, 1, 1], axes[vehicle, 1, 2]
        ux, uy, uz = axes[vehicle, 2, 0], axes[vehicle, 2, 1], axes[vehicle, 2, 2]
        vx0, vy0, vz0 = velocity[vehicle, 0], velocity[vehicle, 1], velocity[vehicle, 2]
        wx, wy, wz = spin[vehicle, 0], spin[vehicle, 1], spin[vehicle, 2]
        for anchor in range(count):
            n = vehicle * count + anchor
            ax, ay, az = anchors[anchor, _X], anchors[anchor, _Y], anchors[anchor, _Z]
            # The ray: from the anchor down the hull's -Z.
            ox = px + ((ax * rx + ay * fx) + az * ux)
            oy = py + ((ax * ry + ay * fy) + az * uy)
            oz = pz + ((ax * rz + ay * fz) + az * uz)
            dx, dy, dz = -ux, -uy, -uz
            # TerrainGround.cast: ray-plane refinements against the triangle under a guess.
            distance = np.minimum(np.maximum(last_distance[n], 0.0), ray_length) if warm else 0.0
            nx = ny = nz = facing = 0.0
            for _ in range(refinements):
                gx, gy, gz = ox + distance * dx, oy + distance * dy, oz + distance * dz
                height, nx, ny, nz = plane_under(planes, plane_lookup, gx, gy)
                facing = (nx * dx + ny * dy) + nz * dz
                distance = distance + nz * (height - gz) / np.minimum(facing, -PARALLEL_COSINE)
            last_distance[n] = distance
            qx, qy = ox + distance * dx, oy + distance * dy
            sample = (int(np.minimum(np.maximum(np.rint((qy + half_y) / spacing), 0.0), last_v))
                      * columns
                      + int(np.minimum(np.maximum(np.rint((qx + half_x) / spacing), 0.0), last_u)))
            wave = ground_by_sample[sample, 1]
            ripple = ground_by_sample[sample, 0] * (1.0 + np.sin(wave * qx) * np.sin(wave * qy))
            surface_grip, surface_rolling = ground_by_sample[sample, 2], ground_by_sample[sample, 3]
            distance = distance - ripple / np.maximum(-facing, PARALLEL_COSINE)
            qx, qy, qz = ox + distance * dx, oy + distance * dy, oz + distance * dz
            hit = (distance <= ray_length and -facing >= min_ground_up
                   and abs(qx) <= half_x and abs(qy) <= half_y)
            # The ground frame: the heading (turned by the steer) along the contact plane.
            steer_rad = steer[vehicle, anchor]
            if steer_rad != 0.0:
                cosine, sine = np.cos(steer_rad), np.sin(steer_rad)
                hx, hy, hz = cosine * fx + sine * rx, cosine * fy + sine * ry, cosine * fz + sine * rz
            else:
                hx, hy, hz = fx, fy, fz
            along_normal = (hx * nx + hy * ny) + hz * nz
            ex, ey, ez = hx - along_normal * nx, hy - along_normal * ny, hz - along_normal * nz
            length = np.maximum(np.sqrt((ex * ex + ey * ey) + ez * ez), _TINY)
            ex, ey, ez = ex / length, ey / length, ez / length
            sx, sy, sz = ey * nz - ez * ny, ez * nx - ex * nz, ex * ny - ey * nx
            # Levers from the centre of mass: to the contact, and to the track's patch.
            lx, ly, lz = qx - px, qy - py, qz - pz
            patch = anchors[anchor, _PATCH]
            glx, gly, glz = lx + patch * ex, ly + patch * ey, lz + patch * ez
            plx, ply, plz = glx - lx, gly - ly, glz - lz
            cvx = (vx0 + (wy * lz - wz * ly)) - 0.0
            cvy = (vy0 + (wz * lx - wx * lz)) - 0.0
            cvz = (vz0 + (wx * ly - wy * lx)) - 0.0
            gvx = cvx + (wy * plz - wz * ply)
            gvy = cvy + (wz * plx - wx * plz)
            gvz = cvz + (wx * ply - wy * plx)
            # Suspension: spring and damper along the normal, the bump stop; never pulls.
            compression = ray_length - distance if hit else 0.0
            closing = -((cvx * nx + cvy * ny) + cvz * nz)
            spring = anchors[anchor, _STIFFNESS] * compression + anchors[anchor, _DAMPING] * closing
            beyond = compression - travel
            bump = (np.maximum(anchors[anchor, _BUMP_STIFFNESS] * beyond
                               + anchors[anchor, _BUMP_DAMPING] * closing, 0.0)
                    if beyond > 0.0 else 0.0)
            load = np.maximum(spring + bump, 0.0) if hit else 0.0
            along_mps = (gvx * ex + gvy * ey) + gvz * ez
            across_mps = (gvx * sx + gvy * sy) + gvz * sz
            # Grip: the stick spring inside the friction circle, sliding past it.
            grip_damping = anchors[anchor, _GRIP_DAMPING]
            limit = force_limit[vehicle, anchor]
            slip_along = along_mps - surface_speed[vehicle, anchor]
            slip_across = across_mps
            stretch_along = deflection[0, n] + slip_along * substep_s
            stretch_across = deflection[1, n] + slip_across * substep_s
            wanted_along = -(anchors[anchor, _GRIP_STIFFNESS] * stretch_along
                             + grip_damping * slip_along)
            wanted_across = -(anchors[anchor, _GRIP_STIFFNESS] * stretch_across
                              + grip_damping * slip_across)
            along = np.minimum(np.maximum(wanted_along, -limit), limit)
            capacity = (surface_grip * grip_share[vehicle, anchor]) * load
            sliding = np.hypot(along, wanted_across) > grip * capacity
            scale = (sliding_grip * capacity / np.hypot(wanted_along, wanted_across)
                     if sliding else 1.0)
            along = np.minimum(np.maximum(wanted_along * scale, -limit), limit)
            across = wanted_across * scale
            keep = anchors[anchor, _NEGATIVE_COMPLIANCE] if hit else 0.0
            deflection[0, n] = (along + grip_damping * slip_along) * keep
            deflection[1, n] = (across + grip_damping * slip_across) * keep
            resistance = (rolling + surface_rolling) * load
            along = along + np.minimum(np.maximum(-along_mps * anchors[anchor, _MASS] / substep_s,
                                                  -resistance), resistance)
            # Impulses at the contact (support) and at the patch (grip), and their torques.
            support = load * substep_s
            f0x, f0y, f0z = support * nx, support * ny, support * nz
            along_impulse, across_impulse = along * substep_s, across * substep_s
            f1x = along_impulse * ex + across_impulse * sx
            f1y = along_impulse * ey + across_impulse * sy
            f1z = along_impulse * ez + across_impulse * sz
            tx = (ly * f0z - lz * f0y) + (gly * f1z - glz * f1y)
            ty = (lz * f0x - lx * f0z) + (glz * f1x - glx * f1z)
            tz = (lx * f0y - ly * f0x) + (glx * f1y - gly * f1x)
            if anchor == 0:
                linear[vehicle, 0], linear[vehicle, 1], linear[vehicle, 2] = (
                    f0x + f1x, f0y + f1y, f0z + f1z)
                angular[vehicle, 0], angular[vehicle, 1], angular[vehicle, 2] = tx, ty, tz
            else:
                linear[vehicle, 0] += f0x + f1x
                linear[vehicle, 1] += f0y + f1y
                linear[vehicle, 2] += f0z + f1z
                angular[vehicle, 0] += tx
                angular[vehicle, 1] += ty
                angular[vehicle, 2] += tz
            results[HIT, n] = 1.0 if hit else 0.0
            results[COMPRESSION, n], results[LOAD, n] = compression, load
            results[SLIDING, n] = 1.0 if sliding else 0.0
            results[POINT, n], results[POINT + 1, n], results[POINT + 2, n] = qx, qy, qz
            results[NORMAL, n], results[NORMAL + 1, n], results[NORMAL + 2, n] = nx, ny, nz
            results[ORIGIN, n], results[ORIGIN + 1, n], results[ORIGIN + 2, n] = ox, oy, oz
            results[DOWN, n], results[DOWN + 1, n], results[DOWN + 2, n] = dx, dy, dz
            results[ALONG, n], results[ACROSS, n] = along_mps, across_mps

_terrain_substep = compiled(_terrain_substep)


class TerrainSubstep:
    """The compiled substep for one kind of tracked vehicle over one terrain: its
    constants as the kernel reads them."""

    def __init__(self, constants: AnchorConstants, grip: GripSpec, terrain: Terrain):
        c = constants
        table = np.empty((len(c.position_bs), _CONSTANT_COLUMNS))
        table[:, _X:_Z + 1] = c.position_bs
        for column, values in ((_MASS, c.mass_share_kg), (_STIFFNESS, c.stiffness_n_m),
                               (_DAMPING, c.damping_n_s_m),
                               (_BUMP_STIFFNESS, c.bump_stiffness_n_m),
                               (_BUMP_DAMPING, c.bump_damping_n_s_m),
                               (_GRIP_STIFFNESS, c.grip_stiffness_n_m),
                               (_GRIP_DAMPING, c.grip_damping_n_s_m),
                               (_PATCH, c.patch_offset_m),
                               (_NEGATIVE_COMPLIANCE, -1.0 / c.grip_stiffness_n_m)):
            table[:, column] = values
        self._anchors = table
        self._model = np.array([c.ray_length_m, c.travel_m, c.min_ground_up, grip.grip,
                                grip.sliding_grip, grip.rolling_resistance])
        self._terrain = terrain

    def run(self, states, command, deflection: np.ndarray, last_distance: np.ndarray,
            warm: bool, substep_s: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Linear and angular impulses (V, 3) and the anchors' results (RESULT_ROWS, N);
        ``deflection`` and ``last_distance`` are brought up to date in place."""
        vehicles = len(states.position_ws)
        linear, angular = np.empty((vehicles, 3)), np.empty((vehicles, 3))
        results = np.empty((RESULT_ROWS, vehicles * len(self._anchors)))
        terrain = self._terrain
        _terrain_substep(states.position_ws, states.axes_ws, states.velocity_ws,
                         states.angular_velocity_ws, command.surface_speed_mps,
                         command.force_limit_n, command.steer_rad, command.grip_scale,
                         self._anchors, self._model, deflection, last_distance, warm,
                         substep_s, terrain.plane_table, terrain.plane_lookup,
                         terrain.ground_table, linear, angular, results)
        return linear, angular, results
