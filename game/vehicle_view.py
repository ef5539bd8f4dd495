"""A vehicle drawn at its pose blended between the last two physics steps."""

from __future__ import annotations

import numpy as np
from panda3d.core import LQuaternionf, NodePath, Point3

from game.meshes import box_mesh
from physics.pose import blend_poses, rotation_matrix


class VehicleView:
    """A placeholder hull model that follows the simulation's vehicle."""

    def __init__(self, parent: NodePath, vehicle, colour):
        self.vehicle = vehicle
        self.root = parent.attachNewNode(vehicle.name + "-view")
        hull = vehicle.hull
        self.root.attachNewNode(box_mesh("hull", hull.half_extents_m, colour,
                                         centre=(0.0, 0.0, hull.centre_of_mass_drop_m)))
        self.position = np.zeros(3)
        self.rotation = np.eye(3)

    def update(self, alpha: float) -> None:
        position, orientation = blend_poses(self.vehicle.previous, self.vehicle.current, alpha)
        self.position, self.rotation = position, rotation_matrix(orientation)
        self.root.setPosQuat(Point3(*position), LQuaternionf(*orientation))

    def destroy(self) -> None:
        self.root.removeNode()
