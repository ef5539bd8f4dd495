"""The drawn tank's plates (game/view/rigs/rig_plates.py) are the collider's, and the armour
view (game/view/armour_view.py) colours them by the armour the camera sees: thickness over
the cosine of the angle from the face's normal. No window: rigs under a plain NodePath."""

from __future__ import annotations

import math

import numpy as np
import pytest
from panda3d.core import GeomVertexReader, NodePath

from game.sim.controls import Controls
from game.sim.simulation import Simulation
from game.view.armour_view import ArmourView, armour_colours, scale_colour
from game.view.rigs.rig_plates import plate_faces
from game.view.rigs.tank_rig import TankRig
from game.view.session_view import view_toggles
from physics.model.plate_solids import collider_pieces, part_plates
from physics.model.terrain import MapChoice


@pytest.fixture(scope="module")
def tank_scene(config):
    simulation = Simulation(config.world, MapChoice.parse("flat"), seed=1)
    render = NodePath("render")
    vehicle = simulation.player
    rig = TankRig(render, vehicle, config.view.tank_rig, config.view.scene.vehicle_colour,
                  config.view.scene.track_colour)
    yield simulation, render, vehicle, rig
    rig.destroy()
    simulation.destroy()


def _vertices(path: NodePath) -> np.ndarray:
    """Every vertex of the GeomNode at ``path``, in its own frame."""
    node = path.node()
    points = []
    for index in range(node.getNumGeoms()):
        reader = GeomVertexReader(node.getGeom(index).getVertexData(), "vertex")
        while not reader.isAtEnd():
            points.append(tuple(reader.getData3()))
    return np.array(points)


def _same_points(first: np.ndarray, second: np.ndarray, tolerance: float = 1e-6) -> bool:
    """Whether every point of each set is (within ``tolerance``) one of the other's."""
    def within(points, others):
        return all(np.abs(others - point).max(axis=1).min() <= tolerance for point in points)
    return within(first, second) and within(second, first)


@pytest.mark.parametrize("part, node", [("hull", "hull"), ("turret", "**/turret-body")])
def test_the_drawn_plates_are_the_collision_plates(tank_scene, config, part, node):
    """Built from the one spec: the drawn part's corners are its plates' corners, and the
    collider's pieces (without the margin) have their corners among them and the same
    bounds."""
    _, _, vehicle, rig = tank_scene
    plates = part_plates(vehicle.spec.plates, part)
    drawn = _vertices(rig.root.find(node))
    corners = np.concatenate([np.array(plate.points_m) for plate in plates])
    assert _same_points(drawn, corners)
    pieces = np.concatenate([piece.corners for piece in
                             collider_pieces(vehicle.spec.plates, part, 0.0)])
    assert all(np.abs(drawn - corner).max(axis=1).min() <= 1e-6 for corner in pieces)
    assert np.allclose(pieces.min(axis=0), drawn.min(axis=0))
    assert np.allclose(pieces.max(axis=0), drawn.max(axis=0))


def test_the_drawn_turret_turns_where_the_colliders_turret_does(tank_scene):
    simulation, render, vehicle, rig = tank_scene
    for _ in range(60):
        simulation.step(Controls(turret=1.0))
    for _ in range(2):  # it stops: the collider's pieces stand where the turret stopped
        simulation.step(Controls())
    rig.update(alpha=1.0)
    rig.aim_turret()
    heading = vehicle.turret_collider.heading_rad
    assert heading == pytest.approx(vehicle.turret_heading_rad, abs=0.01)
    drawn = rig.turret.getTransform(rig.root)
    collided = vehicle.body.getShapeTransform(1)
    assert np.allclose(drawn.getPos(), collided.getPos(), atol=1e-5)
    assert drawn.getHpr()[0] == pytest.approx(-math.degrees(vehicle.turret_heading_rad),
                                              abs=1e-3)
    assert collided.getHpr()[0] == pytest.approx(-math.degrees(heading), abs=1e-3)


def test_every_face_is_drawn_once_facing_out(config):
    plates = part_plates(config.tank.plates, "hull")
    positions, normals, triangles, owners = plate_faces(plates)
    assert len(owners) == len(triangles)
    a, b, c = (positions[triangles[:, k]] for k in range(3))
    facing = np.einsum("ij,ij->i", np.cross(b - a, c - a), normals[triangles[:, 0]])
    assert (facing > 0.0).all()  # counter-clockwise seen from outside
    area = 0.5 * np.linalg.norm(np.cross(b - a, c - a), axis=1)
    glacis = owners == 0
    assert area[glacis].sum() == pytest.approx(  # its six faces' area, computed by hand
        2 * 3.31 * math.hypot(1.04, 0.6) + 2 * 3.31 * 0.18 + 2 * 0.18 * 0.6, rel=1e-6)


def test_effective_thickness_is_thickness_over_the_cosine(config):
    spec = config.view.debug_overlay.armour
    positions = np.zeros((3, 3))
    normals = np.array([[0.0, -1.0, 0.0], [0.0, -1.0, 0.0], [0.0, 1.0, 0.0]])
    eyes = np.array([0.0, -10.0, 0.0])
    thickness = np.array([80.0, 80.0, 80.0])
    square, colours = armour_colours(positions[:1], normals[:1], thickness[:1], eyes, spec)
    assert square[0] == pytest.approx(80.0)
    assert np.allclose(colours[0, :3], scale_colour(np.array([80.0]), spec)[0])
    sixty = np.array([math.sin(math.radians(60.0)), -math.cos(math.radians(60.0)), 0.0]) * 10
    slanted, colours = armour_colours(positions, normals, thickness, sixty, spec)
    assert slanted[0] == pytest.approx(160.0)
    assert np.isinf(slanted[2])  # turned from the eye: no shell from there strikes it
    assert colours[0, :3] == pytest.approx(
        scale_colour(np.array([160.0]), spec)[0] * (1 - spec.turned_shade * 0.5))
    top = scale_colour(np.array([1e6]), spec)[0]
    assert np.allclose(top, spec.scale_colours[-1])


def test_the_armour_view_colours_each_tanks_plates_from_the_eye(tank_scene, config):
    simulation, render, vehicle, rig = tank_scene
    view = ArmourView(None, config.view.debug_overlay.armour)
    view.update([rig], np.array([0.0, 50.0, 1.0]), render)
    assert not view._parts  # hidden: no work
    view.toggle()
    rig.update(alpha=1.0)
    eye = vehicle.current.position_ws + vehicle.current.axes_ws()[1] * 60.0  # dead ahead
    view.update([rig], eye, render)
    hull, turret = view._parts[id(rig)][1]
    assert hull.path.getParent() == rig.root and turret.path.getParent() == rig.turret
    # The glacis seen from ahead at its 60 degrees: about twice its 90 mm.
    outer = config.tank.plates.named("glacis").faces[0][0]  # its first face: the outer one
    assert outer == pytest.approx([0.0, 0.5, math.sqrt(0.75)], abs=1e-3)
    glacis = (hull.thickness_mm == 90.0) & (np.abs(hull.normals - outer).max(axis=1) < 1e-6)
    assert glacis.sum() == 4
    assert hull.effective_mm[glacis] == pytest.approx(180.0, rel=0.05)
    view.update([], eye, render)  # the rig is gone: forgotten
    assert not view._parts
    view.destroy()


def test_the_app_binds_the_armour_view_only_where_a_key_is_given(config):
    class Keys:
        debug_overlay = ("f3",)
        armour_view = ("f4",)

    shown = []
    toggles = view_toggles(lambda: shown, Keys())
    assert set(toggles) == {"debug_overlay", "armour_view"}
    assert set(view_toggles(lambda: shown, config.controls.keyboard)) <= {"debug_overlay",
                                                                        "armour_view"}
    assert "debug_overlay" in view_toggles(lambda: shown, config.controls.keyboard)
