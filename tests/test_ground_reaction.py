"""A vehicle standing on a moving body pushes it back equal and opposite, in force and in
torque: the anchor's support acts at the contact, its grip at the centre of the stretch of
track the anchor carries, and the body under it takes both back where they act."""

from __future__ import annotations

import math

import numpy as np
import pytest
from panda3d.core import Point3, TransformState

from game.sim.controls import Controls
from game.sim.simulation import Simulation
from physics.bullet.poses import body_states
from physics.model.terrain import MapChoice


class FakeGround:
    """A moving body under an anchor that keeps what it was pushed with."""

    def __init__(self, centre_ws):
        self.centre_ws = np.asarray(centre_ws, dtype=float)
        self.pushes: list[tuple[np.ndarray, np.ndarray]] = []
        self.torques: list[np.ndarray] = []

    def getTransform(self):
        return TransformState.makePos(Point3(*self.centre_ws))

    def applyImpulse(self, impulse, offset):
        self.pushes.append((np.array(impulse), np.array(offset)))

    def applyTorqueImpulse(self, torque):
        self.torques.append(np.array(torque))


def _angular_about_origin(force_ws, point_ws) -> np.ndarray:
    return np.cross(point_ws, force_ws)


@pytest.mark.parametrize("anchor", [0, 3])
def test_the_body_under_a_track_takes_back_its_force_and_torque(config, anchor):
    simulation = Simulation(config.world, MapChoice.parse("flat"), seed=1)
    player = simulation.player
    for _ in range(90):  # settle, then pull: the grip carries a drive force
        simulation.step(Controls(throttle=1.0, steer=0.4, gear="1"))
    fleet = player.fleet
    report = fleet.model.report
    states = body_states(fleet.bodies)
    patch_m = float(fleet.constants.patch_offset_m[anchor])
    assert patch_m != 0.0  # a track's anchor carries a stretch of track
    contact = report.contact_point_ws.reshape(-1, 3)[anchor]
    normal = report.contact_normal_ws.reshape(-1, 3)[anchor]
    impulse = np.array([3000.0, -1500.0, 9000.0])  # what the anchor gave the vehicle
    forward = states.axes_ws[0, 1]
    heading = forward - (forward @ normal) * normal
    heading /= np.linalg.norm(heading)
    support = (impulse @ normal) * normal
    grip = impulse - support
    on_vehicle = (_angular_about_origin(support, contact)
                  + _angular_about_origin(grip, contact + patch_m * heading))

    ground = FakeGround(contact + np.array([0.3, -0.2, -1.0]))
    impulses = np.zeros((len(report.contact_point_ws.reshape(-1, 3)), 3))
    impulses[anchor] = impulse
    fleet._bullet_rays.pushed_bodies = {anchor: ground}
    fleet._bullet_rays.pushed_points_ws = {anchor: contact.copy()}
    fleet._bullet_rays.push_back(impulses, report, states.axes_ws,
                                 fleet._rows.patch_offset_m)

    (push, offset), = ground.pushes
    assert np.allclose(push, -impulse)
    on_ground = _angular_about_origin(push, ground.centre_ws + offset) + sum(ground.torques)
    assert np.allclose(on_vehicle + on_ground, 0.0, atol=1e-5 * np.linalg.norm(on_vehicle))
    assert math.isclose(np.linalg.norm(ground.torques[0]),
                        np.linalg.norm(np.cross(patch_m * heading, grip)), rel_tol=1e-6)
    simulation.destroy()
