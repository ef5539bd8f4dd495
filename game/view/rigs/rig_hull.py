"""The drawn tank's hull: its body-frame dimensions and its plates, one node.

:class:`HullShape` sizes the hull from the physics hull box and the rig spec
(:class:`game.view.rigs.tank_rig.TankRigSpec`); :func:`hull_node` builds its plates (the sloped
glacis and nose, the sloped rear plate, the fenders over the tracks) as one flattened
node, since nothing in it ever moves against the rest.
"""

from __future__ import annotations

import numpy as np
from panda3d.core import GeomNode

from game.view.draw.meshes import merged_node, prism_x

MIN_GLACIS_RISE_M = 1e-6
"""Floor under the glacis' rise from nose to deck: a nose as high as the deck gives a
vertical front plate, not a division by zero."""


class HullShape:
    """Body-frame dimensions of the drawn hull, from the physics hull box and the rig spec."""

    def __init__(self, hull, anchors_bs: np.ndarray, ride_height_m: float, spec):
        self.half_x, self.half_y, half_z = hull.half_extents_m
        self.floor_z = hull.centre_of_mass_drop_m - half_z
        self.deck_z = hull.centre_of_mass_drop_m + half_z
        height = self.deck_z - self.floor_z
        self.length_m = 2.0 * self.half_y
        self.fender_z = self.floor_z + spec.fender_height_share * height
        self.nose_z = self.floor_z + spec.nose_height_share * height
        self.glacis_m = spec.glacis_length_share * self.length_m
        self.rear_m = spec.rear_slope_share * self.length_m
        self.rear_floor_y = -self.half_y + ((self.fender_z - self.floor_z)
                                            * spec.lower_rear_plate_run_per_drop)
        """Where the lower rear plate meets the floor."""
        left = anchors_bs[:, 0] < 0.0
        self.track_x = np.array([anchors_bs[left, 0].mean(), anchors_bs[~left, 0].mean()])
        self.track_half_width = max(self.half_x - float(np.abs(self.track_x).min()),
                                    spec.track_thickness_m)
        self.inner_x = float(np.abs(self.track_x).min()) - self.track_half_width
        self.anchor_z = float(anchors_bs[:, 2].mean())
        self.wheel_centre_rest_z = (self.anchor_z - ride_height_m + spec.track_thickness_m
                                    + spec.road_wheel_radius_m)


def _hull_nodes(shape: HullShape, colour) -> list[GeomNode]:
    hy, zt, zb, zn = shape.half_y, shape.deck_z, shape.floor_z, shape.nose_z
    zf = shape.fender_z
    front_floor = hy - (zn - zb)
    centre = [(-hy + shape.rear_m, zt), (hy - shape.glacis_m, zt), (hy, zn), (front_floor, zb),
              (shape.rear_floor_y, zb), (-hy, zf)]
    nodes = [prism_x("hull", centre, -shape.inner_x, shape.inner_x, colour)]
    # Fenders over the tracks: the glacis carried out to the sides, cut off at the fender.
    glacis_y = hy - shape.glacis_m + shape.glacis_m * (zt - zf) / max(zt - zn,
                                                                      MIN_GLACIS_RISE_M)
    fender = [(-hy + shape.rear_m, zt), (hy - shape.glacis_m, zt), (min(glacis_y, hy), zf),
              (-hy, zf)]
    nodes.append(prism_x("fender-left", fender, -shape.half_x, -shape.inner_x, colour))
    nodes.append(prism_x("fender-right", fender, shape.inner_x, shape.half_x, colour))
    return nodes


def hull_node(shape: HullShape, colour) -> GeomNode:
    """The hull's plates as one node named "hull" (one Geom to cull and draw)."""
    return merged_node("hull", _hull_nodes(shape, colour))
