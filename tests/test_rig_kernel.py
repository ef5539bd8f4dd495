"""The rigs' compiled loops (game/view/rigs/rig_kernel.py) give the numbers of the numpy forms
they stand in for, which run where numba is not there: each public function is run both
ways on the same random input (the loop taken away for the numpy way)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from panda3d.core import Camera, NodePath, PerspectiveLens, Point3

import game.view.rigs.rig_culling as rig_culling
import game.view.rigs.rig_pose as rig_pose
from game.view.rigs.rig_kernel import blend_hulls_loop

RIGS = 40
ANCHORS = 8
SAME = 1e-12
pytestmark = pytest.mark.skipif(blend_hulls_loop is None, reason="numba is not there")


def unit_quaternions(random, count: int) -> np.ndarray:
    quaternions = random.normal(size=(count, 4))
    return quaternions / np.linalg.norm(quaternions, axis=1)[:, None]


def test_blended_hull_poses_are_the_numpy_blend(monkeypatch):
    random = np.random.default_rng(3)
    previous_q = unit_quaternions(random, RIGS)
    current_q = unit_quaternions(random, RIGS)
    assert (np.einsum("rq,rq->r", previous_q, current_q) < 0.0).any(), "some the long way"
    rigs = [SimpleNamespace(vehicle=SimpleNamespace(
        previous=SimpleNamespace(position_ws=random.normal(size=3) * 50.0,
                                 orientation_ws=previous_q[rig]),
        current=SimpleNamespace(position_ws=random.normal(size=3) * 50.0,
                                orientation_ws=current_q[rig]))) for rig in range(RIGS)]
    for alpha in (0.0, 0.3, 1.0):
        compiled = rig_pose.blend_hull_poses(rigs, alpha)
        monkeypatch.setattr(rig_pose, "blend_hulls_loop", None)
        expected = rig_pose.blend_hull_poses(rigs, alpha)
        monkeypatch.undo()
        for got, wanted in zip(compiled, expected):
            np.testing.assert_allclose(got, wanted, rtol=SAME, atol=SAME)


def test_anchor_distances_and_track_speeds_are_the_numpy_forms(monkeypatch):
    random = np.random.default_rng(5)
    fleet_size = RIGS + 5
    direction = random.normal(size=(fleet_size, ANCHORS, 3))
    report = SimpleNamespace(
        contact_point_ws=random.normal(size=(fleet_size, ANCHORS, 3)) * 3.0,
        origin_ws=random.normal(size=(fleet_size, ANCHORS, 3)) * 3.0,
        direction_ws=direction / np.linalg.norm(direction, axis=2)[..., None],
        on_ground=random.random((fleet_size, ANCHORS)) < 0.7)
    index = random.permutation(fleet_size)[:RIGS]
    constants = SimpleNamespace(rest_length_m=np.float64(0.6),
                                position_bs=random.normal(size=(ANCHORS, 3)))
    axes = np.array([np.linalg.qr(random.normal(size=(3, 3)))[0].T for _ in index])
    states = [SimpleNamespace(velocity_ws=random.normal(size=3) * 10.0,
                              angular_velocity_ws=random.normal(size=3),
                              axes_ws=lambda rows=rows: rows) for rows in axes]
    compiled = rig_pose._track_motion(report, index, constants, states)
    monkeypatch.setattr(rig_pose, "track_motion_loop", None)
    expected = rig_pose._track_motion(report, index, constants, states)
    assert not report.on_ground.all() and report.on_ground.any()
    for got, wanted in zip(compiled, expected):
        np.testing.assert_allclose(got, wanted, rtol=SAME, atol=SAME)


def test_the_compiled_frustum_test_answers_as_the_numpy_one(monkeypatch):
    render = NodePath("render")
    parent = render.attachNewNode("world")
    parent.setPosHprScale(20.0, -5.0, 1.0, 40.0, 10.0, 5.0, 1.0, 1.0, 1.5)
    lens = PerspectiveLens()
    lens.setNearFar(1.0, 90.0)
    camera = render.attachNewNode(Camera("camera", lens))
    camera.setPos(-10.0, -40.0, 15.0)
    camera.lookAt(Point3(25.0, 5.0, 0.0))
    random = np.random.default_rng(11)
    centres = random.uniform(-60.0, 60.0, (400, 3))
    radii = random.uniform(0.5, 8.0, 400)
    frustums = [(camera, lens.makeBounds())]
    seen = rig_culling.spheres_seen(parent, centres, radii, frustums)
    monkeypatch.setattr(rig_culling, "spheres_in_frustum_loop", None)
    expected = rig_culling.spheres_seen(parent, centres, radii, frustums)
    assert seen.tolist() == expected.tolist()
    assert 0 < expected.sum() < len(centres)



class _Wheels:
    def __init__(self):
        self.written = []

    def write(self, poses):
        self.written.append(np.array(poses))


def wheel_rigs(random: np.random.Generator):
    """Four rigs of one layout (8 anchors, 10 road wheels, 4 sprockets and idlers), as
    built, and what :func:`rig_pose._pose_group` hands on for them."""
    road, drive, sides = 10, 4, [0, 0, 1, 1]
    stacked = SimpleNamespace(anchors_z=random.normal(size=(4, ANCHORS)),
                              weights=random.random((4, road, ANCHORS)),
                              lift_m=random.uniform(0.3, 0.5, 4),
                              radii_m=random.uniform(0.2, 0.5, (4, 2)),
                              drive_sides=np.array(sides))
    rigs = [SimpleNamespace(wheel_poses=np.zeros((road + drive, 4)), wheels=_Wheels(),
                            shown_wheel_z=np.zeros(road), shown_travelled_m=np.zeros(2),
                            shown_belt_colour=np.zeros(3), drive_wheel_sides=sides)
            for _ in range(4)]
    return rigs, (stacked, random.random((4, ANCHORS)), random.random((4, ANCHORS)),
                  random.random(4), random.normal(size=(4, 2)) * 30.0, random.random((4, 3)))


def posed_twice(posed):
    """The second of two frames of the same numbers by ``posed``; before it, each rig but
    the first differs from what it showed in one way: one road wheel's height, one side's
    run, the colour (its wheels' poses too)."""
    rigs, arguments = wheel_rigs(np.random.default_rng(2))
    *_, travelled, colour = arguments
    centre_z, _ = posed(rigs, *arguments)
    for rig, wheel_z, run, paint in zip(rigs, centre_z, travelled, colour):
        rig.shown_wheel_z, rig.shown_travelled_m, rig.shown_belt_colour = wheel_z, run, paint
        rig.wheels.written.clear()
    rigs[1].shown_wheel_z = rigs[1].shown_wheel_z + np.eye(10)[3] * 0.01
    rigs[2].shown_travelled_m = rigs[2].shown_travelled_m + (0.0, 0.5)
    rigs[3].shown_belt_colour = rigs[3].shown_belt_colour * 0.5
    rigs[3].wheel_poses = rigs[3].wheel_poses * 0.9
    return posed(rigs, *arguments), rigs


def test_the_compiled_wheels_are_posed_and_written_as_numpy_does():
    (centre_z, moved), rigs = posed_twice(rig_pose._posed_wheels_compiled)
    (expected_z, expected_moved), plain_rigs = posed_twice(rig_pose._posed_wheels)
    np.testing.assert_allclose(centre_z, expected_z, rtol=SAME, atol=SAME)
    assert moved.tolist() == expected_moved.tolist() == [False, False, True, False,
                                                         False, True, True, True]
    assert [len(rig.wheels.written) for rig in rigs] == [0, 0, 0, 1]
    assert [len(rig.wheels.written) for rig in plain_rigs] == [0, 0, 0, 1]
    np.testing.assert_allclose(rigs[3].wheels.written[0], plain_rigs[3].wheels.written[0],
                               rtol=SAME, atol=SAME)
    np.testing.assert_allclose(rigs[3].wheel_poses, plain_rigs[3].wheel_poses, rtol=SAME,
                               atol=SAME)
