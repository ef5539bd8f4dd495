"""A frame's dust streams in one compiled loop (numba, see :mod:`common.compiled`):
the arithmetic of :meth:`game.view.effects.effects.Effects._dust` and the streams' carries
(:meth:`game.view.effects.emission.StreamCarry.due`) for every anchor, without the many small
arrays in between. Where numba is not available :data:`dust_streams_loop` is None and the
numpy path runs.
"""

from __future__ import annotations

import math

from common.compiled import compiled


def _dust_streams(on_ground, sliding, points_ws, normals_ws, owner, velocities_ws,
                  min_speed_mps, max_speed_mps, narrowest_band_mps, slowest_mps,
                  track_count, slide_count, frame_scale, thrown_back, track_carried,
                  slide_carried, track_carry, slide_carry, counts, stream_points,
                  directions, base_velocities):
    """Per anchor (of vehicle ``owner[i]``, whose velocity is ``velocities_ws[owner[i]]``):
    its track dust, ``track_count`` a second scaled by the vehicle's share of the speed
    band (from ``min_speed_mps`` to ``max_speed_mps``, at least ``narrowest_band_mps``
    wide), where it is on the ground and moving (thrown back against its travel; a vehicle
    slower than ``slowest_mps`` has none); and its slide dust, ``slide_count`` a second,
    where it slides. ``frame_scale`` (the quality's scale times the frame's seconds) makes
    them this frame's particles; each stream's fraction of a particle is kept in its carry
    (an idle stream keeps its own). Every stream that makes a particle is written to the
    output rows, the track streams first: its count, point, direction and base velocity.
    Returns how many track streams and how many in all were written."""
    band_mps = max(max_speed_mps - min_speed_mps, narrowest_band_mps)
    written = track_written = 0
    for stream_kind in range(2):
        if stream_kind == 1:
            track_written = written
        for anchor in range(owner.shape[0]):
            vehicle = owner[anchor]
            vx = velocities_ws[vehicle, 0]
            vy = velocities_ws[vehicle, 1]
            vz = velocities_ws[vehicle, 2]
            speed = math.sqrt(vx * vx + vy * vy + vz * vz)
            share = min(max((speed - min_speed_mps) / band_mps, 0.0), 1.0)
            if stream_kind == 0:
                active = on_ground[anchor] and share > 0.0
                carry = track_carry
                owed = carry[anchor] + track_count * share * frame_scale
                carried = track_carried
                back = thrown_back
            else:
                active = on_ground[anchor] and sliding[anchor]
                carry = slide_carry
                owed = carry[anchor] + slide_count * frame_scale
                carried = slide_carried
                back = 0.0
            if not active:
                continue
            whole = math.floor(owed)
            carry[anchor] = owed - whole
            if whole <= 0.0:
                continue
            counts[written] = int(whole)
            for axis in range(3):
                stream_points[written, axis] = points_ws[anchor, axis]
            moving = max(speed, slowest_mps)
            directions[written, 0] = normals_ws[anchor, 0] - vx / moving * back
            directions[written, 1] = normals_ws[anchor, 1] - vy / moving * back
            directions[written, 2] = normals_ws[anchor, 2] - vz / moving * back
            base_velocities[written, 0] = vx * carried
            base_velocities[written, 1] = vy * carried
            base_velocities[written, 2] = vz * carried
            written += 1
    return track_written, written


dust_streams_loop = compiled(_dust_streams)
