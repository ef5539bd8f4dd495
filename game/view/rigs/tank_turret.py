"""The drawn tank's turret and gun, built once in the hull's frame.

The turret stands on its ring: its armour plates where the tank has them (the mantlet and
the commander's cupola are among them; :mod:`game.view.rigs.rig_plates`), else a shaped
turret with a cupola on its roof. The gun sits on trunnions at its front: the mantlet (its
shield) where the plates give none, the barrel (as thick as its calibre makes it) with a
fume extractor, and the muzzle brake. Where the vehicle's spec has a ``gun`` (physics),
the ring stands on its ``turret_pivot_m``, the trunnions at its ``gun_height_m`` and the
muzzle where its shells leave (exactly, at zero elevation).

The shapes come from the rig's :class:`game.view.rigs.tank_rig.TankRigSpec` and the hull's
:class:`game.view.rigs.rig_hull.HullShape`; :class:`TurretRig` only builds and turns nodes
(the turret's pieces are one node, and so are the gun's: nothing in either moves).
"""

from __future__ import annotations

import math

import numpy as np
from panda3d.core import GeomNode, NodePath

from game.view.draw.meshes import cylinder_mesh, loft_mesh, merged_node
from game.view.rigs.rig_plates import plates_node

MANTLET_TURRET_WIDTH_M = 0.9
"""The turret width the mantlet's half widths are given for; on a wider or narrower turret
they scale in proportion."""
MIN_BARREL_END_M = 1.0
"""The barrel reaches at least this far ahead of the trunnions, even where the physics gun
is shorter than the turret (its muzzle then is not where shells leave)."""


def turret_rings(width: float, length: float, spec) -> list[np.ndarray]:
    """The turret's base and roof outlines, from the ring's centre: sides, chamfered
    corners, flat front and back faces."""
    front, back = spec.turret_front_half_width_share, spec.turret_rear_half_width_share
    front_corner, rear_corner = spec.turret_front_corner_share, spec.turret_rear_corner_share
    outline = np.array([(front, 0.5), (0.5, front_corner), (0.5, -rear_corner), (back, -0.5),
                        (-back, -0.5), (-0.5, -rear_corner), (-0.5, front_corner),
                        (-front, 0.5)])
    taper, height = spec.turret_taper, spec.turret_height_m
    base = outline * (width, length)
    roof = outline * (width * taper, length * taper) + (0.0, -spec.turret_roof_setback_share
                                                        * length)
    sink = spec.turret_sink_share * height
    return [np.hstack([base, np.full((len(base), 1), -sink)]),
            np.hstack([roof, np.full((len(roof), 1), height)])]


class TurretRig:
    """The turret's node under the hull's ``root`` and the gun's under it. ``spec``: the
    rig's TankRigSpec; ``shape``: the hull's HullShape; ``gun_spec``: the physics gun, where
    the tank has one (else the turret stands on the deck, ``turret_offset_share`` ahead)."""

    def __init__(self, root: NodePath, spec, shape, gun_spec, paint, plates=()):
        self.spec = spec
        self._aimed: tuple[float, float] | None = None
        """The heading and elevation the nodes show (None: not aimed yet)."""
        width = spec.turret_width_share * 2.0 * shape.half_x
        length = spec.turret_length_share * shape.length_m
        self.turret = root.attachNewNode("turret")
        if gun_spec is not None:
            self.turret.setPos(*gun_spec.turret_pivot_m)
        else:
            self.turret.setPos(0.0, spec.turret_offset_share * shape.half_y, shape.deck_z)
        if plates:
            self.turret.attachNewNode(plates_node("turret-body", list(plates), paint))
        else:
            height = spec.turret_height_m
            cupola = NodePath(cylinder_mesh(
                "cupola", 2, [height - spec.cupola_sink_m, height + spec.cupola_height_m],
                spec.cupola_radii_m, spec.wheel_sides, [paint], smooth=False))
            right_share, forward_share = spec.cupola_offset_shares
            cupola.setPos(right_share * width, forward_share * length, 0.0)
            self.turret.attachNewNode(merged_node("turret-body", [
                loft_mesh("turret-body", turret_rings(width, length, spec), paint), cupola]))
        calibre_mm = gun_spec.calibre_mm if gun_spec is not None else spec.gun_calibre_mm
        calibre_m = calibre_mm / 1000.0
        self._build_gun(gun_spec, width, length, paint, calibre_m, mantlet=not plates)

    def _build_gun(self, gun_spec, turret_width: float, turret_length: float, paint,
                   calibre_m: float, mantlet: bool = True) -> None:
        """The gun node on its trunnions at the turret's front: mantlet, barrel, muzzle.
        Without ``mantlet`` (the turret's plates have one) the barrel starts inside it."""
        spec = self.spec
        self.gun = self.turret.attachNewNode("gun")
        trunnion_y = 0.5 * turret_length * spec.trunnion_forward_share
        if gun_spec is not None:
            trunnion_z = min(gun_spec.gun_height_m,
                             spec.trunnion_max_height_share * spec.turret_height_m)
        else:
            trunnion_z = spec.trunnion_height_share * spec.turret_height_m
        self.gun.setPos(0.0, trunnion_y, trunnion_z)
        barrel_end = spec.gun_length_m
        if gun_spec is not None:
            barrel_end = max(gun_spec.gun_length_m - trunnion_y - spec.muzzle_length_m,
                             MIN_BARREL_END_M)
        pieces = ([loft_mesh("mantlet", self._mantlet_rings(turret_width), paint)]
                  if mantlet else [])
        pieces.append(self._barrel_node(barrel_end, paint, spec.barrel_start_m if mantlet
                                        else -spec.mantlet_back_m,
                                        calibre_m * spec.barrel_radius_calibres))
        muzzle_end = barrel_end + spec.muzzle_length_m
        if spec.muzzle_length_m > 0.0:
            muzzle_radius_m = calibre_m * spec.muzzle_radius_calibres
            pieces.append(cylinder_mesh(
                "muzzle", 1, [barrel_end, muzzle_end],
                [muzzle_radius_m, muzzle_radius_m * spec.muzzle_taper],
                spec.muzzle_sides, [spec.metal_colour], smooth=False))
        self.gun.attachNewNode(merged_node("gun-body", pieces))
        self.muzzle_bs = np.array([0.0, muzzle_end, 0.0])
        """The muzzle in the gun node's frame."""

    def _mantlet_rings(self, turret_width: float) -> list[np.ndarray]:
        """The mantlet's back and front faces round the trunnions (it is lofted between)."""
        spec = self.spec
        height = spec.mantlet_height_share * spec.turret_height_m
        scale = (turret_width / MANTLET_TURRET_WIDTH_M, 1.0, 1.0)
        faces = ((spec.mantlet_back_half_width_m, -spec.mantlet_back_m, height / 2),
                 (spec.mantlet_front_half_width_m, spec.mantlet_front_m,
                  height * spec.mantlet_front_half_height_share))
        return [np.array([(-x, y, -z), (x, y, -z), (x, y, z), (-x, y, z)]) * scale
                for x, y, z in faces]

    def _barrel_node(self, barrel_end: float, paint, start: float, r: float) -> GeomNode:
        """The barrel of radius ``r`` from ``start`` (inside the mantlet) to ``barrel_end``,
        with its fume extractor."""
        spec = self.spec
        extractor = start + spec.fume_extractor_share * (barrel_end - start)
        stations = ([start] + [extractor + offset for offset in spec.fume_extractor_stations_m]
                    + [barrel_end])
        radii = ([r * spec.barrel_breech_radius_share]
                 + [r * share for share in spec.fume_extractor_radius_shares] + [r])
        return cylinder_mesh("barrel", 1, stations, radii, spec.wheel_sides,
                             [paint] * (len(stations) - 1))

    def aim(self, heading_rad: float, elevation_rad: float) -> None:
        """Turn the turret to ``heading_rad`` (+ right) and raise the gun to
        ``elevation_rad`` (the nodes are left alone where neither changed)."""
        if (heading_rad, elevation_rad) == self._aimed:
            return
        self._aimed = (heading_rad, elevation_rad)
        self.turret.setH(-math.degrees(heading_rad))
        self.gun.setP(math.degrees(elevation_rad))
