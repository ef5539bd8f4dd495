"""The rigs' compiled loops (game/view/rig_kernel.py) give the numbers of the numpy forms
they stand in for, which run where numba is not there: each public function is run both
ways on the same random input (the loop taken away for the numpy way)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from panda3d.core import Camera, NodePath, PerspectiveLens, Point3

import game.view.rig_culling as rig_culling
import game.view.rig_pose as rig_pose
from game.view.rig_kernel import blend_hulls_loop

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

