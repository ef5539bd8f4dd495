"""A vehicle drawn at its pose blended between the last two physics steps."""

from __future__ import annotations

import numpy as np
from panda3d.core import NodePath

from game.config import TankRigSpec
from game.tank_rig import TankRig


class VehicleView:
    """The tank rig that follows the simulation's vehicle; exposes the drawn pose."""

    def __init__(self, parent: NodePath, vehicle, rig_spec: TankRigSpec, colour, track_colour):
        self.vehicle = vehicle
        self.rig = TankRig(parent, vehicle, rig_spec, colour, track_colour)
        self.root = self.rig.root
        self.length_m = self.rig.shape.length_m
        """The hull's length: the chase camera's distances scale with it."""

    @property
    def position(self) -> np.ndarray:
        return self.rig.position

    @property
    def rotation(self) -> np.ndarray:
        return self.rig.rotation

    def update(self, alpha: float, frame_s: float = 0.0) -> None:
        self.rig.update(alpha, frame_s)

    def show_gun(self, visible: bool) -> None:
        """Hide the gun from the gun sight, whose eye sits beside the barrel."""
        (self.rig.gun.show if visible else self.rig.gun.hide)()

    def gun_pose_ws(self, offset_m=(0.0, 0.0, 0.0)):
        return self.rig.gun_pose_ws(offset_m)

    def destroy(self) -> None:
        self.rig.destroy()
