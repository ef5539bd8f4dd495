"""A rig's reach (the sphere the frame tests against the cameras' frustums) holds all of
its geometry however its parts move, and the batched frustum test answers as Panda's.

Built under a plain NodePath (no window), as in test_rig_culling.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from panda3d.core import (BoundingSphere, Camera, GeomNode, GeomVertexReader, NodePath,
                          OrthographicLens, PerspectiveLens, Point3)

from game.sim.controls import Controls
from game.sim.simulation import Simulation
from game.view.rigs.rig_culling import spheres_seen
from game.view.rigs.vehicle_view import VehicleLooks, VehicleView, views_seen
from physics.model.terrain import MapChoice

STEPS = 240
CHECK_EVERY = 20
SPHERES = 400
SPREAD_M = 60.0
RADIUS_M = (0.5, 8.0)


def looks(config) -> VehicleLooks:
    return VehicleLooks(config.view.tank_rig, config.view.car_rig, config.view.scene)


def farthest_vertex_m(root: NodePath) -> float:
    """How far from the rig's origin its farthest vertex lies, as drawn now."""
    farthest = 0.0
    for path in root.findAllMatches("**/+GeomNode"):
        node: GeomNode = path.node()
        to_root = path.getMat(root)
        for index in range(node.getNumGeoms()):
            reader = GeomVertexReader(node.getGeom(index).getVertexData(), "vertex")
            while not reader.isAtEnd():
                point = to_root.xformPoint(reader.getData3())
                farthest = max(farthest, point.length())
    return farthest


@pytest.mark.parametrize("kind", ["tank", "car"])
def test_a_rig_never_reaches_past_its_reach_however_it_drives_and_aims(config, kind):
    simulation = Simulation(config.world, MapChoice.parse("desert"), seed=2,
                            player_vehicle=kind)
    try:
        view = VehicleView(NodePath("render"), simulation.player, looks(config),
                           simulation.step_s)
        controls = Controls(throttle=1.0, steer=0.6, turret=1.0, elevation=1.0)
        for step in range(STEPS):
            if step == STEPS // 2:
                controls = Controls(throttle=-1.0, steer=-0.6, turret=-1.0, elevation=-1.0)
            simulation.step(controls)
            view.update(1.0, simulation.step_s)
            if step % CHECK_EVERY == 0:
                assert farthest_vertex_m(view.root) <= view.reach_m, step
    finally:
        simulation.destroy()


@pytest.mark.parametrize("lens_kind", ["perspective", "orthographic"])
def test_the_batched_frustum_test_answers_as_pandas_own(lens_kind):
    render = NodePath("render")
    parent = render.attachNewNode("world")
    parent.setPosHpr(40.0, -15.0, 2.0, 30.0, 5.0, 0.0)
    lens = PerspectiveLens() if lens_kind == "perspective" else OrthographicLens()
    if lens_kind == "orthographic":
        lens.setFilmSize(30.0, 20.0)
    lens.setNearFar(1.0, 80.0)
    camera = render.attachNewNode(Camera("camera", lens))
    camera.setPos(10.0, -30.0, 12.0)
    camera.lookAt(Point3(35.0, 5.0, 0.0))
    random = np.random.default_rng(7)
    centres = random.uniform(-SPREAD_M, SPREAD_M, (SPHERES, 3))
    radii = random.uniform(*RADIUS_M, SPHERES)
    frustum = lens.makeBounds()
    expected = []
    for centre, radius in zip(centres, radii):
        sphere = BoundingSphere(Point3(*centre), float(radius))
        sphere.xform(parent.getMat(camera))
        expected.append(bool(frustum.contains(sphere)))
    seen = spheres_seen(parent, centres, radii, [(camera, frustum)])
    assert seen.tolist() == expected
    assert 0 < sum(expected) < SPHERES  # some in view, some out


def test_views_under_different_parents_are_each_seen_from_their_own_frame(config):
    simulation = Simulation(config.world, MapChoice.parse("range"), seed=1)
    try:
        render = NodePath("render")
        near = VehicleView(render, simulation.player, looks(config), simulation.step_s)
        moved = render.attachNewNode("moved")
        moved.setPos(0.0, 0.0, 500.0)  # the same vehicle, drawn far above the camera's view
        far = VehicleView(moved, simulation.player, looks(config), simulation.step_s)
        simulation.step(Controls())
        for view in (near, far):
            view.update(1.0, simulation.step_s, pose_parts=False)
        camera = render.attachNewNode(Camera("camera", PerspectiveLens()))
        camera.setPos(Point3(*near.position) + Point3(0.0, -30.0, 0.0))
        camera.lookAt(Point3(*near.position))
        frustums = [(camera, camera.node().getLens().makeBounds())]
        assert views_seen([near, far], frustums) == [near]
    finally:
        simulation.destroy()
