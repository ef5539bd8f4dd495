"""What a bot does about its own broken parts (:mod:`game.sim.part_damage`).

A crew whose tank cannot drive (its engine destroyed, or a track off its wheels) stops and
fights from where it stands while the crew mend it: driving on with one track only swings
the hull round the broken side, away from where it meant to go. A crew whose turret ring
is jammed lays the gun with the hull instead: it pivots where it stands until the gun
bears on the way its gunner chose (with a track off too, as far as the other one swings
it), and stands while it has no target in its sights.
"""

from __future__ import annotations

import math

from physics.model.parts import PartEffects

STAND = (0.0, 0.0, 1.0)
"""Throttle, steer and brake of a crew that stands where it is."""


def crippled_drive(effects: PartEffects, forward_ws, turret_heading_rad: float,
                   wanted_ws, lay_within_rad: float) -> tuple[float, float, float] | None:
    """Throttle, steer and brake for a bot whose broken parts leave it ``effects``, its
    hull's ``forward_ws`` (x, y, ...), its turret at ``turret_heading_rad`` (+ right of
    the hull's forward) and its gun wanted along ``wanted_ws`` (x, y, ...; None: no
    target in range); None where its parts leave its driving to it. A jammed turret's
    crew pivots at full stick until the gun bears within ``lay_within_rad``: a tank held
    by its tracks' grip stalls on a smaller stick short of the mark, and stops within a
    fraction of a degree when the stick is let go."""
    jammed = effects.traverse == 0.0
    if not jammed and effects.engine_power > 0.0 and min(effects.track_drive) > 0.0:
        return None
    if not jammed or wanted_ws is None or effects.engine_power == 0.0:
        return STAND
    forward_x, forward_y = forward_ws[0], forward_ws[1]
    along, across = math.cos(turret_heading_rad), math.sin(turret_heading_rad)
    gun_x = along * forward_x + across * forward_y  # the hull's right is (y, -x)
    gun_y = along * forward_y - across * forward_x
    wanted_x, wanted_y = wanted_ws[0], wanted_ws[1]
    error = math.atan2(gun_y * wanted_x - gun_x * wanted_y, gun_x * wanted_x + gun_y * wanted_y)
    if abs(error) <= lay_within_rad:
        return STAND
    return 0.0, math.copysign(1.0, error), 0.0
