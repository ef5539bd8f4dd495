"""A vehicle drawn at its pose blended between the last two physics steps."""

from __future__ import annotations

import numpy as np
from panda3d.core import LQuaternionf, NodePath, Point3

from game.meshes import box_mesh
from physics.pose import blend_poses, rotation_matrix


class VehicleView:
    """A placeholder hull model that follows the simulation's vehicle."""

    def __init__(self, parent: NodePath, vehicle, colour, track_colour):
        self.vehicle = vehicle
        self.root = parent.attachNewNode(vehicle.name + "-view")
        hull = vehicle.spec.hull
        self.root.attachNewNode(box_mesh("hull", hull.half_extents_m, colour,
                                         centre=(0.0, 0.0, hull.centre_of_mass_drop_m)))
        # Each track: a block under the hull's edge, from the anchors down to the ground at
        # ride height, running the hull's length.
        anchors = vehicle.fleet.constants.position_bs
        ride_height_m = vehicle.spec.suspension.ride_height_m
        for side in (anchors[:, 0] < 0.0, anchors[:, 0] > 0.0):
            x_m = anchors[side, 0].mean()
            top_m = anchors[side, 2].mean()
            half = (hull.half_extents_m[0] - abs(x_m), hull.half_extents_m[1],
                    ride_height_m / 2)
            self.root.attachNewNode(box_mesh("track", half, track_colour,
                                             centre=(x_m, 0.0, top_m - ride_height_m / 2)))
        self.position = np.zeros(3)
        self.rotation = np.eye(3)

    def update(self, alpha: float) -> None:
        position, orientation = blend_poses(self.vehicle.previous, self.vehicle.current, alpha)
        self.position, self.rotation = position, rotation_matrix(orientation)
        self.root.setPosQuat(Point3(*position), LQuaternionf(*orientation))

    def destroy(self) -> None:
        self.root.removeNode()
