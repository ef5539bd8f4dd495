"""The anchor kernel: one substep of every anchor of V vehicles, one loop over the anchors.

Written as Rapier writes its raycast-vehicle controller: per anchor, the stages below in
this order, each a small function of plain numbers:

1. **ray** (:func:`_ray`): from the anchor, fixed to the hull, down the hull's -Z;
2. **cast** (:func:`_cast_terrain`): where the ray meets the terrain's height array
   (ray-plane refinements against the triangle under a guess, then the surface's
   ripples), unless the caller cast it beforehand (through Bullet, where a rock, a crate
   or another vehicle may be under it: the ``exact`` hits);
3. **ground frame** (:func:`_ground_frame`): the anchor's heading, the hull's forward
   turned by its steer, along the contact plane, and the heading's right;
4. **suspension** (:func:`_suspension`): a spring and damper along the contact normal, on
   the anchor's own velocity relative to the ground, plus the bump stop past full
   travel; it pushes, never pulls;
5. **grip** (:func:`_grip`): drive and grip together inside the friction circle, held by
   a stiff stick spring, sliding past it; then rolling resistance;
6. **wheel**: a grip tyre's wheel rolls with the ground while it grips, and spins on its
   own inertia while it slides or is in the air (:func:`roll_spin`); a slip tyre's wheel
   always spins with its own inertia and pulls by the tyre curve (:func:`slip_tyre`);
   free in the air, either slows under its bearings' drag (:func:`coast_spin`); tracks have
   none; then what the driven anchor passes back to the engine (:func:`_driveline_sums`);
7. **impulses**: the support at the contact point and the grip at the centre of the
   stretch of track the anchor carries, their torques about the centre of mass, and
   their sums per vehicle.

The arrays :func:`anchor_substep` reads and writes (N = V * A anchors, vehicle by vehicle):

- bodies: ``position``, ``velocity``, ``spin`` (V, 3) and ``axes`` (V, 3, 3: rows right,
  forward, up);
- the command (V, A): ``surface_speed_mps``, ``force_limit_n`` and ``force_bias_n`` (a
  track's drive stays within the limit of the bias), ``steer_rad``, ``grip_share``;
- constants, each vehicle's own (its kind's): ``anchors`` (V, A, ANCHOR_COLUMNS) and
  ``model`` (V, MODEL_ENTRIES);
- the ground: the terrain's tiles of planes and per-sample surfaces, their directory
  and look-up (:class:`physics.model.terrain.TerrainTables`), cast against when
  ``on_terrain``; per anchor, ``exact`` (1: its column of ``exact_hits`` (EXACT_ROWS, N),
  cast beforehand, is the ground where it is nearer than the terrain or the terrain is
  missed);
- carried between substeps and brought up to date: ``deflection`` (2, N: the grip
  springs' stretch), ``last_distance`` (N: the terrain casts', ``warm`` once they are
  these rays'), ``wheel_spin_rad_s`` and ``wheel_angle_rad`` (N);
- written: ``linear`` and ``angular`` (V, 3: the impulses summed per vehicle),
  ``impulse`` (3, N: each anchor's at its contact), ``results`` (RESULT_ROWS, N) and
  ``driveline`` (V, DRIVELINE_COLUMNS: the driven anchors' sums the engine reads);
- returned: whether every summed impulse is finite (the fleet hands them to Bullet as
  they are then, without looking at them again).

The arrays' layout is :mod:`physics.model.kernel_tables`; the wheel stage is
:mod:`physics.model.wheel_stages`. numba compiles every function through the one guard
(:mod:`common.compiled`); without numba the same functions run as plain Python,
slower. Vectors are three numbers (``x, y, z``); sums are bracketed as written, so the
compiled loop gives the same numbers on every run.
"""

from __future__ import annotations

import math

from common.compiled import compiled_loop, compiled_stage
from physics.model.kernel_tables import (
    ACROSS, ALONG, BUMP_DAMPING, BUMP_STIFFNESS, COMPRESSION, DAMPING, DOWN, DRIVE_SHARE,
    DRIVELINE_DRIVE, DRIVELINE_FREE_LOAD, DRIVELINE_GRIPPING, DRIVELINE_GROUNDED, DRIVELINE_RIM,
    DRIVELINE_STEER, DRIVELINE_STIFFNESS,
    EXACT_DISTANCE,
    EXACT_GRIP, EXACT_GROUND_VELOCITY, EXACT_HIT, EXACT_NORMAL, EXACT_POINT, EXACT_ROLLING,
    GRIP, GRIP_DAMPING, GRIP_STIFFNESS, HIT, LOAD, MASS, MIN_GROUND_UP, NEGATIVE_COMPLIANCE,
    NO_WHEELS, NORMAL, ORIGIN, PARALLEL_COSINE, PATCH, POINT, RAY_LENGTH, ROLLING, SLIDING,
    SIDE, SLIDING_GRIP, SLIP_TYRES, SPIN, SPIN_ANGLE, STIFFNESS, TAU, TINY, TRAVEL, TYRE,
    WHEEL_RADIUS, X, Y, Z)
from physics.model.scalars import clamp, cross, dot, larger, smaller
from physics.model.terrain_base import ground_sample, plane_under
from physics.model.wheel_stages import coast_spin, roll_spin, slip_tyre

# ----- the stages ---------------------------------------------------------------------------

@compiled_stage
def _ray(px, py, pz, rx, ry, rz, fx, fy, fz, ux, uy, uz, ax, ay, az):
    """The anchor's ray: its origin on the hull, and its direction, the hull's down."""
    return (px + ((ax * rx + ay * fx) + az * ux), py + ((ax * ry + ay * fy) + az * uy),
            pz + ((ax * rz + ay * fz) + az * uz), -ux, -uy, -uz)


@compiled_stage
def _cast_terrain(ox, oy, oz, dx, dy, dz, start_m, refinements, planes, ground, directory,
                  lookup, ray_length, min_ground_up):
    """Where the ray meets the terrain: each refinement lands exactly on the plane of the
    triangle under the last guess (from ``start_m`` along the ray); the surface's ripples
    stand a little above that face. Returns whether it is ground within reach, the
    collider's distance (carried to the next substep), the distance to the ripples, the
    point, the normal, and the surface's grip scale and added rolling resistance."""
    distance = start_m
    nx = ny = nz = facing = 0.0
    for _ in range(refinements):
        gx, gy, gz = ox + distance * dx, oy + distance * dy, oz + distance * dz
        height, nx, ny, nz = plane_under(planes, directory, lookup, gx, gy)
        facing = dot(nx, ny, nz, dx, dy, dz)  # < 0: the ray meets the face
        distance = distance + nz * (height - gz) / smaller(facing, -PARALLEL_COSINE)
    collider_m = distance
    qx, qy = ox + distance * dx, oy + distance * dy
    slot, sample = ground_sample(directory, lookup, qx, qy)
    wave = ground[slot, sample, 1]
    ripple = ground[slot, sample, 0] * (1.0 + math.sin(wave * qx) * math.sin(wave * qy))
    distance = distance - ripple / larger(-facing, PARALLEL_COSINE)
    qx, qy, qz = ox + distance * dx, oy + distance * dy, oz + distance * dz
    hit = (distance <= ray_length and -facing >= min_ground_up
           and abs(qx) <= lookup[0] and abs(qy) <= lookup[1])
    return (hit, collider_m, distance, qx, qy, qz, nx, ny, nz, ground[slot, sample, 2],
            ground[slot, sample, 3])


@compiled_stage
def _ground_frame(fx, fy, fz, rx, ry, rz, nx, ny, nz, steer_rad):
    """The heading (the hull's forward turned by the steer) projected onto the contact
    plane, and the heading's right: ``(ex, ey, ez, sx, sy, sz)``."""
    if steer_rad != 0.0:
        cosine, sine = math.cos(steer_rad), math.sin(steer_rad)
        hx, hy, hz = cosine * fx + sine * rx, cosine * fy + sine * ry, cosine * fz + sine * rz
    else:  # tracks never steer: no trigonometry
        hx, hy, hz = fx, fy, fz
    along_normal = dot(hx, hy, hz, nx, ny, nz)
    ex, ey, ez = hx - along_normal * nx, hy - along_normal * ny, hz - along_normal * nz
    length = larger(math.sqrt((ex * ex + ey * ey) + ez * ez), TINY)
    ex, ey, ez = ex / length, ey / length, ez / length
    sx, sy, sz = cross(ex, ey, ez, nx, ny, nz)
    return ex, ey, ez, sx, sy, sz


@compiled_stage
def _suspension(hit, distance, closing_mps, anchor, ray_length, travel):
    """Load and compression: the spring and damper along the normal, the bump stop past
    full travel; never pulls. ``closing_mps`` is + while the anchor nears the ground."""
    compression = ray_length - distance if hit else 0.0
    spring = anchor[STIFFNESS] * compression + anchor[DAMPING] * closing_mps
    beyond = compression - travel
    bump = (larger(anchor[BUMP_STIFFNESS] * beyond + anchor[BUMP_DAMPING] * closing_mps, 0.0)
            if beyond > 0.0 else 0.0)
    return (larger(spring + bump, 0.0) if hit else 0.0), compression


@compiled_stage
def _grip(hit, load, along_mps, across_mps, surface_speed_mps, limit_n, bias_n, grip_share,
          surface_rolling, deflection, n, anchor, grip, sliding_grip, rolling, substep_s):
    """Drive and grip inside the friction circle: the stick spring's force, the drive
    kept within ``limit_n`` of ``bias_n`` by the engine (or brake), scaled down to the
    sliding grip past the circle.
    The spring keeps only the stretch matching the force it passed on (off the ground
    it relaxes, and passes nothing: a track's bias is the engine's push, which needs
    ground to push against; an airborne anchor's contact point is wherever its ray
    would meet the ground's plane, kilometres off for a hull on its side, so any force
    there would be a torque without end). ``grip_share`` is the surface's grip times the command's share of it
    (a handbrake lowers it). Returns the forces along (rolling resistance added) and
    across the heading, and whether the anchor slides."""
    grip_damping = anchor[GRIP_DAMPING]
    slip_along = along_mps - surface_speed_mps
    slip_across = across_mps
    stretch_along = deflection[0, n] + slip_along * substep_s
    stretch_across = deflection[1, n] + slip_across * substep_s
    wanted_along = -(anchor[GRIP_STIFFNESS] * stretch_along + grip_damping * slip_along)
    wanted_across = -(anchor[GRIP_STIFFNESS] * stretch_across + grip_damping * slip_across)
    along = clamp(wanted_along, bias_n - limit_n, bias_n + limit_n)
    capacity = grip_share * load
    sliding = math.hypot(along, wanted_across) > grip * capacity
    scale = (sliding_grip * capacity / math.hypot(wanted_along, wanted_across)
             if sliding else 1.0)
    along = clamp(wanted_along * scale, bias_n - limit_n, bias_n + limit_n)
    across = wanted_across * scale
    if not hit:  # in the air: no ground to pass the drive to, however far its bias is
        along = across = 0.0
    keep = anchor[NEGATIVE_COMPLIANCE] if hit else 0.0
    deflection[0, n] = (along + grip_damping * slip_along) * keep
    deflection[1, n] = (across + grip_damping * slip_across) * keep
    resistance = (rolling + surface_rolling) * load
    return along + clamp(-along_mps * anchor[MASS] / substep_s, -resistance, resistance), \
        across, sliding


# ----- the substep ----------------------------------------------------------------------

@compiled_loop
def anchor_substep(position, axes, velocity, spin, surface_speed_mps, force_limit_n,
                   force_bias_n, steer_rad, grip_share, anchors, model, terrain_planes, terrain_ground,
                   terrain_directory, terrain_lookup, on_terrain, exact, exact_hits,
                   deflection, last_distance, warm, wheel_spin_rad_s, wheel_angle_rad,
                   substep_s, linear, angular, impulse, results, driveline):
    """One substep of every anchor of V vehicles, each read with its own constants, in
    place (the arrays are the module docstring's); whether every vehicle's summed impulses
    are finite."""
    count = anchors.shape[1]
    sums = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    driven = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    for vehicle in range(position.shape[0]):
        entries = model[vehicle]
        ray_length, travel = entries[RAY_LENGTH], entries[TRAVEL]
        min_ground_up, grip = entries[MIN_GROUND_UP], entries[GRIP]
        sliding_grip, rolling = entries[SLIDING_GRIP], entries[ROLLING]
        wheels = entries[TYRE] != NO_WHEELS
        px, py, pz = position[vehicle, 0], position[vehicle, 1], position[vehicle, 2]
        rx, ry, rz = axes[vehicle, 0, 0], axes[vehicle, 0, 1], axes[vehicle, 0, 2]
        fx, fy, fz = axes[vehicle, 1, 0], axes[vehicle, 1, 1], axes[vehicle, 1, 2]
        ux, uy, uz = axes[vehicle, 2, 0], axes[vehicle, 2, 1], axes[vehicle, 2, 2]
        vx, vy, vz = velocity[vehicle, 0], velocity[vehicle, 1], velocity[vehicle, 2]
        wx, wy, wz = spin[vehicle, 0], spin[vehicle, 1], spin[vehicle, 2]
        for anchor in range(count):
            n, constants = vehicle * count + anchor, anchors[vehicle, anchor]
            # 1. The ray; 2. the ground under it.
            ox, oy, oz, dx, dy, dz = _ray(px, py, pz, rx, ry, rz, fx, fy, fz, ux, uy, uz,
                                          constants[X], constants[Y], constants[Z])
            (hit, distance, qx, qy, qz, nx, ny, nz, gx, gy, gz, surface_grip,
             surface_rolling) = _ground_under(ox, oy, oz, dx, dy, dz, n, ray_length,
                                              min_ground_up, terrain_planes, terrain_ground,
                                              terrain_directory, terrain_lookup, on_terrain,
                                              last_distance, warm, exact, exact_hits)
            # 3. The ground frame; where the contact and the patch are, how they move.
            ex, ey, ez, sx, sy, sz = _ground_frame(fx, fy, fz, rx, ry, rz, nx, ny, nz,
                                                   steer_rad[vehicle, anchor])
            (lx, ly, lz, glx, gly, glz, cvx, cvy, cvz, pvx, pvy,
             pvz) = _contact_velocities(px, py, pz, qx, qy, qz, constants[PATCH], ex, ey, ez,
                                        vx, vy, vz, wx, wy, wz, gx, gy, gz)
            # 4. Suspension; 5. grip, with the drive.
            load, compression = _suspension(hit, distance, -dot(cvx, cvy, cvz, nx, ny, nz),
                                            constants, ray_length, travel)
            along_mps, across_mps = dot(pvx, pvy, pvz, ex, ey, ez), dot(pvx, pvy, pvz, sx, sy, sz)
            share = surface_grip * grip_share[vehicle, anchor]
            wheel_mps, limit_n = surface_speed_mps[vehicle, anchor], force_limit_n[vehicle, anchor]
            along, across, sliding = _grip(hit, load, along_mps, across_mps, wheel_mps, limit_n,
                                           force_bias_n[vehicle, anchor], share,
                                           surface_rolling, deflection, n, constants, grip,
                                           sliding_grip, rolling, substep_s)
            # 6. The wheel; what the anchor passes back to the engine.
            along, across, sliding, driven = _wheel_and_driveline(
                driven, anchor == 0, wheels, n, hit, load, along_mps, across_mps, wheel_mps,
                limit_n, share, surface_rolling, along, across, sliding, wheel_spin_rad_s,
                wheel_angle_rad, constants, entries, substep_s)
            # 7. Impulses, summed over the vehicle's anchors.
            sums = _summed(sums, anchor == 0, _impulses(
                impulse, n, load * substep_s, along * substep_s, across * substep_s, nx, ny,
                nz, ex, ey, ez, sx, sy, sz, lx, ly, lz, glx, gly, glz))
            _report(results, n, hit, compression, load, sliding, qx, qy, qz, nx, ny, nz,
                    ox, oy, oz, dx, dy, dz, along_mps, across_mps, wheel_spin_rad_s[n],
                    wheel_angle_rad[n])
        _store(vehicle, sums, driven, linear, angular, driveline)
    return _all_finite(linear) and _all_finite(angular)


@compiled_stage
def _store(vehicle, sums, driven, linear, angular, driveline):
    """A vehicle's summed impulses and driveline sums, into its rows."""
    linear[vehicle, 0], linear[vehicle, 1], linear[vehicle, 2] = sums[:3]
    angular[vehicle, 0], angular[vehicle, 1], angular[vehicle, 2] = sums[3:]
    (driveline[vehicle, DRIVELINE_RIM], driveline[vehicle, DRIVELINE_GRIPPING],
     driveline[vehicle, DRIVELINE_FREE_LOAD], driveline[vehicle, DRIVELINE_STEER],
     driveline[vehicle, DRIVELINE_DRIVE], driveline[vehicle, DRIVELINE_STIFFNESS],
     driveline[vehicle, DRIVELINE_GROUNDED]) = driven


@compiled_stage
def _all_finite(rows):
    """Whether every number of a (V, 3) array is finite."""
    for row in range(rows.shape[0]):
        for column in range(rows.shape[1]):
            if not math.isfinite(rows[row, column]):
                return False
    return True


@compiled_stage
def _wheel_and_driveline(driven, first, wheels, n, hit, load, along_mps, across_mps, wheel_mps,
                         limit_n, grip_share, surface_rolling, along, across, sliding,
                         wheel_spin_rad_s, wheel_angle_rad, anchor, model, substep_s):
    """Stage 6: a wheel's spin (:func:`_wheel`; tracks have none), then the anchor's part of
    the vehicle's driveline sums (:func:`_driveline_sums`: a wheel's rim turns at its spin;
    a track's belt at the ground's speed while it grips, at its commanded speed while it
    slides or hangs). Returns the forces along and across, the sliding flag and the sums."""
    elastic_n_s_m = 0.0
    if wheels:
        along, across, sliding, elastic_n_s_m = _wheel(
            n, hit, load, along_mps, across_mps, wheel_mps, limit_n, grip_share,
            surface_rolling, along, across, sliding, wheel_spin_rad_s, wheel_angle_rad, anchor,
            model, substep_s)
    gripping = hit and not sliding
    rim_mps = (wheel_spin_rad_s[n] * model[WHEEL_RADIUS] if wheels
               else (along_mps if gripping else wheel_mps))
    driven = _driveline_sums(driven, first, anchor, hit, gripping and elastic_n_s_m == 0.0,
                             rim_mps,
                             along, along_mps, (model[ROLLING] + surface_rolling) * load,
                             elastic_n_s_m, substep_s)
    return along, across, sliding, driven


@compiled_stage
def _wheel(n, hit, load, along_mps, across_mps, wheel_mps, limit_n, grip_share,
           surface_rolling, along, across, sliding, wheel_spin_rad_s, wheel_angle_rad, anchor,
           model, substep_s):
    """Wheel ``n``'s spin and angle, brought up to date; a slip tyre's forces and sliding
    replace the friction circle's (``along``, ``across``, ``sliding``), which it returns,
    with how much the force along grows per m/s of rim speed where a tyre curve couples
    the wheel to the ground (0 where it rolls with the ground or slides)."""
    elastic_n_s_m = 0.0
    if model[TYRE] == SLIP_TYRES:
        along, across, sliding, wheel_spin_rad_s[n], elastic_n_s_m = slip_tyre(
            hit, load, along_mps, across_mps, wheel_mps, limit_n, grip_share, surface_rolling,
            wheel_spin_rad_s[n], along, across, sliding, anchor, model, substep_s)
        if not hit and limit_n <= 0.0:
            wheel_spin_rad_s[n] = coast_spin(wheel_spin_rad_s[n], model, substep_s)
    else:
        wheel_spin_rad_s[n] = roll_spin(hit, sliding, along_mps, wheel_mps, limit_n, along,
                                    wheel_spin_rad_s[n], model, substep_s)
    wheel_angle_rad[n] = (wheel_angle_rad[n] + wheel_spin_rad_s[n] * substep_s) % TAU
    return along, across, sliding, elastic_n_s_m


@compiled_stage
def _driveline_sums(sums, first, anchor, hit, gripping, rim_mps, along_n, along_mps,
                    resistance_n, elastic_n_s_m, substep_s):
    """A vehicle's running driveline sums (the ``first`` anchor starts them): this anchor's
    rim speed by its drive share, the share that grips, the force it passes if it does
    not grip, its rim speed by share and side (the tracks' difference), the drive it
    passes if it grips (its force along less the rolling resistance the grip stage added:
    ``resistance_n`` at most, as much as stops the anchor within the substep), and how its
    force grows with its rim speed (a slip tyre's curve), and the share on the ground."""
    share = anchor[DRIVE_SHARE]
    rim = share * rim_mps
    driven = share != 0.0
    grips = share if gripping else 0.0
    free = along_n if driven and not gripping else 0.0
    drive = (along_n - clamp(-along_mps * anchor[MASS] / substep_s, -resistance_n, resistance_n)
             if driven and gripping else 0.0)
    steer = anchor[SIDE] * rim
    elastic = elastic_n_s_m if driven else 0.0
    grounded = share if hit else 0.0
    if first:
        return rim, grips, free, steer, drive, elastic, grounded
    return (sums[0] + rim, sums[1] + grips, sums[2] + free, sums[3] + steer, sums[4] + drive,
            sums[5] + elastic, sums[6] + grounded)


@compiled_stage
def _ground_under(ox, oy, oz, dx, dy, dz, n, ray_length, min_ground_up, planes, ground,
                  directory, lookup, on_terrain, last_distance, warm, exact, exact_hits):
    """Anchor ``n``'s ground: whether it is ground within reach, the distance, the point,
    the normal, the ground's velocity there, and its surface's grip scale and added
    rolling resistance. Cast against the terrain (carrying the collider's distance to
    the next substep); where a hit was cast beforehand (a crate, a rock, a hull may be
    under the anchor) the nearer of the two is the ground, the terrain on a tie."""
    hit, distance = False, 0.0
    qx = qy = qz = nx = ny = nz = surface_rolling = 0.0
    surface_grip = 1.0
    if on_terrain:
        start_m = clamp(last_distance[n], 0.0, ray_length) if warm else 0.0
        (hit, collider_m, distance, qx, qy, qz, nx, ny, nz, surface_grip,
         surface_rolling) = _cast_terrain(ox, oy, oz, dx, dy, dz, start_m, 1 if warm else 2,
                                          planes, ground, directory, lookup, ray_length,
                                          min_ground_up)
        last_distance[n] = collider_m
    if exact[n] and (not hit or (exact_hits[EXACT_HIT, n] > 0.5
                                 and exact_hits[EXACT_DISTANCE, n] < distance)):
        return _exact_hit(exact_hits, n)
    return hit, distance, qx, qy, qz, nx, ny, nz, 0.0, 0.0, 0.0, surface_grip, surface_rolling


@compiled_stage
def _exact_hit(hits, n):
    """Column ``n`` of the hits cast beforehand: whether it is ground within reach, the
    distance, the point, the normal, the ground's velocity there, and its surface's grip
    scale and added rolling resistance."""
    return (hits[EXACT_HIT, n] > 0.5, hits[EXACT_DISTANCE, n], hits[EXACT_POINT, n],
            hits[EXACT_POINT + 1, n], hits[EXACT_POINT + 2, n], hits[EXACT_NORMAL, n],
            hits[EXACT_NORMAL + 1, n], hits[EXACT_NORMAL + 2, n],
            hits[EXACT_GROUND_VELOCITY, n], hits[EXACT_GROUND_VELOCITY + 1, n],
            hits[EXACT_GROUND_VELOCITY + 2, n], hits[EXACT_GRIP, n], hits[EXACT_ROLLING, n])


@compiled_stage
def _contact_velocities(px, py, pz, qx, qy, qz, patch, ex, ey, ez, vx, vy, vz, wx, wy, wz,
                        gx, gy, gz):
    """The levers from the centre of mass ``p`` to the contact ``q`` and to the centre of
    the track's patch (``patch`` along the heading ``e``), and those two points' velocities
    relative to the ground: the body's ``v + w x r`` less the ground's velocity ``g``."""
    lx, ly, lz = qx - px, qy - py, qz - pz
    glx, gly, glz = lx + patch * ex, ly + patch * ey, lz + patch * ez
    tx, ty, tz = cross(wx, wy, wz, lx, ly, lz)
    cvx, cvy, cvz = (vx + tx) - gx, (vy + ty) - gy, (vz + tz) - gz
    tx, ty, tz = cross(wx, wy, wz, glx - lx, gly - ly, glz - lz)
    return lx, ly, lz, glx, gly, glz, cvx, cvy, cvz, cvx + tx, cvy + ty, cvz + tz


@compiled_stage
def _impulses(impulse, n, support, along, across, nx, ny, nz, ex, ey, ez, sx, sy, sz, lx, ly,
              lz, glx, gly, glz):
    """The anchor's impulses: ``support`` along the normal at the contact, the grip
    (``along`` the heading, ``across`` it) at the patch. Writes their sum into column
    ``n`` of ``impulse`` and returns it, and their torque about the centre of mass."""
    f0x, f0y, f0z = support * nx, support * ny, support * nz
    f1x, f1y, f1z = along * ex + across * sx, along * ey + across * sy, along * ez + across * sz
    t0x, t0y, t0z = cross(lx, ly, lz, f0x, f0y, f0z)
    t1x, t1y, t1z = cross(glx, gly, glz, f1x, f1y, f1z)
    ix, iy, iz = f0x + f1x, f0y + f1y, f0z + f1z
    impulse[0, n], impulse[1, n], impulse[2, n] = ix, iy, iz
    return ix, iy, iz, t0x + t1x, t0y + t1y, t0z + t1z


@compiled_stage
def _summed(sums, first, impulses):
    """A vehicle's running sums of its anchors' impulses and torques (the ``first``
    anchor's start them)."""
    if first:
        return impulses
    return (sums[0] + impulses[0], sums[1] + impulses[1], sums[2] + impulses[2],
            sums[3] + impulses[3], sums[4] + impulses[4], sums[5] + impulses[5])


@compiled_stage
def _report(results, n, hit, compression, load, sliding, qx, qy, qz, nx, ny, nz, ox, oy, oz,
            dx, dy, dz, along_mps, across_mps, spin_rad_s, spin_angle_rad):
    """One anchor's column of the results."""
    results[HIT, n] = 1.0 if hit else 0.0
    results[COMPRESSION, n], results[LOAD, n] = compression, load
    results[SLIDING, n] = 1.0 if sliding else 0.0
    results[POINT, n], results[POINT + 1, n], results[POINT + 2, n] = qx, qy, qz
    results[NORMAL, n], results[NORMAL + 1, n], results[NORMAL + 2, n] = nx, ny, nz
    results[ORIGIN, n], results[ORIGIN + 1, n], results[ORIGIN + 2, n] = ox, oy, oz
    results[DOWN, n], results[DOWN + 1, n], results[DOWN + 2, n] = dx, dy, dz
    results[ALONG, n], results[ACROSS, n] = along_mps, across_mps
    results[SPIN, n], results[SPIN_ANGLE, n] = spin_rad_s, spin_angle_rad
