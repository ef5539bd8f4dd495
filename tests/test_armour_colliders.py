"""The tank's Bullet collider made from its armour plates (physics/bullet/hull_body.py,
physics/model/plate_solids.py): its pieces stand where the plates do, Bullet's rays meet
them where the plates' own cast does, the turret's turn with the gun, mass and inertia are
the hull box's, and the tank drives exactly as it did with the box where it touches
nothing."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from panda3d.bullet import BulletWorld
from panda3d.core import Point3, TransformState

import game.sim.simulation as simulation_module
from game.sim.controls import Controls
from game.sim.events import Hit
from game.sim.simulation import Simulation
from physics.bullet.bodies import make_hull_body
from physics.bullet.ground import BulletRays
from physics.bullet.hull_body import (COLLIDER_MARGIN_M, TURRET_CONTACT_FOLLOW_M,
                                      TURRET_FOLLOW_M, collider_hull,
                                      make_vehicle_body)
from physics.model.armour import PlateLayout, first_plate
from physics.model.plate_solids import (collider_pieces, convex_groups, corners_of,
                                        hull_planes, inset_corners, part_plates,
                                        swept_bounds)
from physics.model.terrain import MapChoice

RANGE_M = 40.0


@pytest.fixture(scope="module")
def tank(config):
    return config.tank


def _corners(plates) -> np.ndarray:
    return np.concatenate([np.array(plate.points_m) for plate in plates])


# ----- the pieces, from the plates ---------------------------------------------------------


def test_the_hull_is_one_convex_piece_and_the_mantlet_and_cupola_stand_apart(tank):
    hull = convex_groups(part_plates(tank.plates, "hull"))
    turret = convex_groups(part_plates(tank.plates, "turret"))
    assert [[plate.name for plate in group] for group in hull] == [
        ["glacis", "lower_front", "left_side", "right_side", "rear", "roof", "belly"]]
    assert [[plate.name for plate in group] for group in turret] == [
        ["turret_front", "turret_left", "turret_right", "turret_rear", "turret_roof"],
        ["mantlet"], ["cupola"]]


@pytest.mark.parametrize("part", ["hull", "turret"])
def test_every_face_of_every_piece_is_a_plate_face_and_the_margin_puts_it_back(tank, part):
    """The pieces' corners are the plates' own, each piece's faces lie on plates' faces,
    and moved in by the margin and grown by it again (as Bullet grows a convex hull) every
    face stands where it was."""
    for piece in collider_pieces(tank.plates, part, COLLIDER_MARGIN_M):
        plates = [tank.plates.named(name) for name in piece.plates]
        corners = _corners(plates)
        normals, offsets = hull_planes(corners)
        exact = corners_of(normals, offsets)
        assert all(np.abs(corners - point).max(axis=1).min() < 1e-9 for point in exact)
        plate_normals = np.concatenate([plate.faces[0] for plate in plates])
        plate_offsets = np.concatenate([plate.faces[1] for plate in plates])
        for normal, offset in zip(normals, offsets):
            assert np.any((plate_normals @ normal > 1 - 1e-9)
                          & (np.abs(plate_offsets - offset) < 1e-6))
        reach = (piece.corners @ normals.T).max(axis=0) + piece.margin_m
        assert reach == pytest.approx(offsets, abs=1e-9)
        assert piece.margin_m == COLLIDER_MARGIN_M


def test_a_piece_too_thin_for_the_inset_is_refused():
    slab = np.array([[x, y, z] for x in (0.0, 1.0) for y in (0.0, 1.0) for z in (0.0, 0.05)])
    assert len(inset_corners(slab, 0.02)) == 8
    with pytest.raises(ValueError, match="thinner"):
        inset_corners(slab, 0.03)


def test_the_swept_box_holds_the_turret_at_any_heading(tank):
    low, high = swept_bounds(tank.plates, tank.gun.turret_pivot_m)
    turret = _corners(part_plates(tank.plates, "turret"))
    for heading in np.linspace(0.0, 2.0 * math.pi, 73):
        cos_h, sin_h = math.cos(heading), math.sin(heading)
        turned = turret @ np.array([[cos_h, -sin_h, 0], [sin_h, cos_h, 0], [0, 0, 1]]).T
        placed = turned + tank.gun.turret_pivot_m
        assert (placed >= low - 1e-9).all() and (placed <= high + 1e-9).all()
    grown = collider_hull(tank)
    half = np.array(grown.half_extents_m)
    centre = np.array([0.0, 0.0, grown.centre_of_mass_drop_m])
    assert (low >= centre - half - 1e-9).all() and (high <= centre + half + 1e-9).all()
    assert grown.mass_kg == tank.hull.mass_kg


# ----- the Bullet body ------------------------------------------------------------------


def test_mass_and_inertia_are_the_hull_boxes_whatever_the_turret_does(tank):
    body, turret = make_vehicle_body(tank, "tank")
    box = make_hull_body(tank.hull, "box")
    assert body.getMass() == box.getMass() == tank.hull.mass_kg
    assert body.getInvInertiaDiagLocal() == box.getInvInertiaDiagLocal()
    world = BulletWorld()
    world.attachRigidBody(body)
    for heading in (0.3, 1.2, -2.0, 3.0):
        assert turret.turn(heading)
        assert body.getInvInertiaDiagLocal() == box.getInvInertiaDiagLocal()
        assert body.getMass() == tank.hull.mass_kg
    # One hull piece and the turret's three, in Panda's order and Bullet's alike.
    assert body.getNumShapes() == 4
    for index in (1, 2, 3):
        assert body.getShape(index) in turret.shapes
        assert body.getShapeTransform(index).getHpr()[0] == pytest.approx(-math.degrees(3.0),
                                                                          abs=1e-3)
    world.removeRigidBody(body)


def test_a_turning_turret_is_followed_by_2_cm_and_a_stopped_one_exactly(tank):
    body, turret = make_vehicle_body(tank, "tank")
    reach = float(np.hypot(*_corners(part_plates(tank.plates, "turret"))[:, :2].T).max())
    small = 0.4 * TURRET_FOLLOW_M / reach  # its far corner moves 0.8 cm a step
    assert not turret.turn(small)  # turning: within the 2 cm
    assert not turret.turn(2.0 * small)
    assert turret.heading_rad == 0.0
    assert turret.turn(3.0 * small)  # 2.4 cm: followed
    assert turret.heading_rad == 3.0 * small
    assert not turret.turn(4.0 * small)
    assert turret.turn(4.0 * small)  # stopped there: stood exactly where it stopped
    assert turret.heading_rad == 4.0 * small
    assert not turret.turn(4.0 * small)


def _bullet_and_plates(tank, heading_rad, origin_bs, direction_bs):
    """Where a ray meets the collider (Bullet) and the plates (their own cast), body frame."""
    body, turret = make_vehicle_body(tank, "tank")
    if turret is not None:
        turret.turn(heading_rad)
    world = BulletWorld()
    world.attachRigidBody(body)
    body.setTransform(TransformState.makePos(Point3(0, 0, 0)))
    direction = np.asarray(direction_bs, dtype=float) / np.linalg.norm(direction_bs)
    end = np.asarray(origin_bs) + direction * 20.0
    result = world.rayTestClosest(Point3(*origin_bs), Point3(*end))
    met = first_plate(tank.plates, origin_bs, direction, heading_rad, tank.gun.turret_pivot_m)
    world.removeRigidBody(body)
    return (np.array(result.getHitPos()) if result.hasHit() else None), met


@pytest.mark.parametrize("heading_deg, origin, direction, plate", [
    (0.0, (0.3, 12.0, 0.6), (0.0, -1.0, 0.0), "glacis"),
    (0.0, (0.0, 12.0, 0.0), (0.0, -1.0, 0.0), "lower_front"),
    (0.0, (12.0, -1.0, 0.2), (-1.0, 0.0, 0.0), "right_side"),
    (0.0, (0.0, -12.0, 0.5), (0.0, 1.0, 0.0), "rear"),
    (0.0, (-1.0, -2.5, 10.0), (0.0, 0.0, -1.0), "roof"),
    (0.0, (0.0, 0.0, -10.0), (0.0, 0.0, 1.0), "belly"),
    (0.0, (0.8, 12.0, 1.3), (0.0, -1.0, 0.0), "turret_front"),
    (0.0, (0.0, 12.0, 1.35), (0.0, -1.0, 0.0), "mantlet"),
    (90.0, (12.0, -0.4, 1.3), (-1.0, 0.0, 0.0), "turret_front"),
    (90.0, (12.0, 0.4, 1.35), (-1.0, 0.0, 0.0), "mantlet"),
    (90.0, (0.0, 12.0, 1.3), (0.0, -1.0, 0.0), "turret_left"),
    (-135.0, (-0.3, 0.1, 10.0), (0.0, 0.0, -1.0), "turret_roof"),
])
def test_bullet_meets_the_collider_where_the_plates_are(tank, heading_deg, origin, direction,
                                                        plate):
    """A shell strikes what the player sees: Bullet's ray meets the collider within a
    centimetre of where the plates' own cast meets the plate it names (Bullet's ray against
    a convex hull with a margin stops within millimetres of its face; the plate a shell
    strikes is then found by the plates' own cast, :mod:`game.sim.armour_hits`)."""
    hit, met = _bullet_and_plates(tank, math.radians(heading_deg), origin, direction)
    assert met is not None and met.plate.name == plate
    assert hit is not None
    assert np.abs(hit - met.point_bs).max() < 0.01


def test_a_tank_without_turret_plates_has_no_turret_collider(tank):
    hull_only = PlateLayout(tuple(plate for plate in tank.plates.plate if plate.part == "hull"))
    body, turret = make_vehicle_body(dataclasses.replace(tank, plates=hull_only), "tank")
    assert turret is None and body.getNumShapes() == 1
    assert collider_pieces(hull_only, "turret") == ()


def test_a_car_keeps_its_hull_box(config):
    body, turret = make_vehicle_body(config.car, "car")
    assert turret is None and body.getNumShapes() == 1
    assert collider_hull(config.car) == config.car.hull


# ----- in the simulation -----------------------------------------------------------------


def test_an_anchor_ray_passes_its_own_turret_and_stands_on_anothers(tank, config):
    simulation = Simulation(config.world, MapChoice.parse("flat"), seed=1)
    own = simulation.player
    other = simulation.spawn("tank", "other", 20.0, 0.0, 0.0)
    for _ in range(30):
        simulation.step(Controls(brake=1.0))
    bodies = [own.body, other.body]
    rays = BulletRays(simulation.world, simulation.terrain, bodies, 1)
    for vehicle in (own, other):  # straight down through the turret's roof and the hull
        top = vehicle.current.position_ws + (0.0, 0.4, 3.0)
        hits = rays.cast(np.array([top, top]), np.array([[0.0, 0.0, -1.0]] * 2), 5.0, 0.5,
                         np.array([0, 1]))
        own_ray, others_ray = (0, 1) if vehicle is own else (1, 0)
        assert not hits.hit[own_ray]  # its own body, turret and all, is not ground to it
        assert hits.hit[others_ray]
        roof_m = vehicle.current.position_ws[2] + tank.gun.turret_pivot_m[2] + 0.8
        assert hits.point_ws[others_ray][2] == pytest.approx(roof_m, abs=0.02)
    simulation.destroy()


def _fire_at(simulation, target, shell, point_bs, from_bs, speed_mps=800.0,
             turning=None) -> list:
    """Events of the steps until a ``shell`` launched at ``point_bs`` on ``target`` (in its
    body frame, coming from ``from_bs``) strikes it; ``turning``: a vehicle whose turret
    keeps turning (a hair each step) meanwhile."""
    state = target.current
    axes = state.axes_ws()
    point_ws = state.position_ws + np.asarray(point_bs, dtype=float) @ axes
    towards_ws = -(np.asarray(from_bs, dtype=float) @ axes)
    towards_ws /= np.linalg.norm(towards_ws)
    shooter = simulation.player
    simulation.combat.shell_system.launch(shooter, point_ws - towards_ws * RANGE_M,
                                          towards_ws * speed_mps, shooter.spec.gun, shell,
                                          simulation.time_s)
    events: list = []
    for _ in range(30):
        if turning is not None:
            turning.aim.turret_heading_rad += 1e-4
        events += simulation.step(Controls(brake=1.0))
        if any(isinstance(event, Hit) and event.target == target.name for event in events):
            break
    return events


def test_a_shell_from_the_right_strikes_the_front_of_a_turret_turned_right(config, tank):
    """Through Bullet: the shell's contact is with the turret's pieces (turned with the
    gun), combat names the vehicle, and the armour the turret's front plate."""
    simulation = Simulation(config.world, MapChoice.parse("flat"), seed=1)
    target = simulation.spawn("tank", "target", 30.0, 0.0, 0.0)  # facing +Y
    target.aim.turret_heading_rad = math.pi / 2.0  # its gun points right (+X)
    for _ in range(40):
        simulation.step(Controls(brake=1.0))
    assert target.turret_collider.heading_rad == pytest.approx(math.pi / 2.0)
    # The turret's front, beside the mantlet: 0.8 m to the gun's left, 0.4 m up.
    point_bs = np.array([1.15, tank.gun.turret_pivot_m[1] - 0.8,
                         tank.gun.turret_pivot_m[2] + 0.4])
    events = _fire_at(simulation, target, config.shells.shells["ap"], point_bs, (1.0, 0, 0))
    [hit] = [event for event in events if isinstance(event, Hit) and event.target == "target"]
    assert hit.plate == "turret_front"
    assert hit.angle_deg == pytest.approx(math.degrees(math.atan(0.45 / 0.8)), abs=2.0)
    struck_bs = (np.array(hit.point) - target.current.position_ws) @ \
        target.current.axes_ws().T
    assert struck_bs[0] == pytest.approx(1.3 - 0.5625 * 0.4, abs=0.06)  # on the front's face
    simulation.destroy()


def test_it_settles_at_ride_height_with_its_turret_turned(config):
    simulation = Simulation(config.world, MapChoice.parse("flat"), seed=1)
    player = simulation.player
    for _ in range(180):
        simulation.step(Controls(turret=1.0))
    for _ in range(2):  # the turret stops: its pieces stand where it stopped
        simulation.step(Controls())
    assert player.turret_collider.heading_rad == player.aim.turret_heading_rad
    assert abs(player.turret_collider.heading_rad) > 1.0
    anchor_depth = -np.mean([anchor.z_m for anchor in config.tank.suspension.anchors])
    lift = config.tank.suspension.ride_height_m + anchor_depth
    assert player.current.position_ws[2] == pytest.approx(lift, abs=0.02)
    simulation.destroy()


def _drive(config, boxed: bool, turret: float, monkeypatch) -> np.ndarray:
    if boxed:
        monkeypatch.setattr(simulation_module, "make_vehicle_body",
                            lambda spec, name: (make_hull_body(spec.hull, name), None))
    simulation = Simulation(config.world, MapChoice.parse("desert"), seed=3)
    monkeypatch.undo()
    states = []
    for step in range(600):
        t = step / 60.0
        simulation.step(Controls(throttle=1.0 if t > 1.0 else 0.0,
                                 steer=0.5 if 4.0 < t < 7.0 else 0.0, turret=turret,
                                 gear="A" if step == 0 else None))
        state = simulation.player.current
        states.append(np.concatenate([state.position_ws, state.orientation_ws,
                                      state.velocity_ws]))
    simulation.destroy()
    return np.array(states)


def test_it_drives_exactly_as_the_box_did_where_it_touches_nothing(config, monkeypatch):
    """Mass, inertia and every force the same: over the dunes, steering, the same bits.
    (Turning the turret makes Panda read the body's transform back as it changes the
    pieces, which rounds it: there the runs part by rounding.)"""
    assert np.array_equal(_drive(config, True, 0.0, monkeypatch),
                          _drive(config, False, 0.0, monkeypatch))
    turning = np.abs(_drive(config, True, 1.0, monkeypatch)
                     - _drive(config, False, 1.0, monkeypatch))
    assert turning[:, :3].max() < 0.01


# ----- the turret's pieces follow where something may touch them ----------------------------


def test_a_lone_turning_turret_is_left_behind_until_another_tank_comes_near(config):
    """Alone on the flat, nothing can touch the turret's pieces: they stay while it turns,
    and follow it (within the follow distance) once another tank stands beside it."""
    simulation = Simulation(config.world, MapChoice.parse("flat"), seed=1)
    player = simulation.player
    for _ in range(60):
        simulation.step(Controls(turret=1.0))
    collider = player.turret_collider
    assert collider.behind and collider.heading_rad == 0.0
    assert abs(player.aim.turret_heading_rad) > 0.3
    position = player.current.position_ws
    simulation.spawn("tank", "beside", float(position[0]) + 6.0, float(position[1]), 0.0)
    for _ in range(3):
        simulation.step(Controls(turret=1.0))
    follow_rad = TURRET_CONTACT_FOLLOW_M / 1.5  # no corner stands nearer the ring than 1.5 m
    assert abs(collider.heading_rad - player.aim.turret_heading_rad) < follow_rad
    simulation.destroy()


def test_a_shell_on_its_way_brings_a_lone_turret_round_before_it_arrives(config, tank):
    """A lone tank's turret turned right while nothing was near: a shell passing beside
    the turret as its pieces were left, through the mantlet as it now stands, strikes
    the mantlet."""
    simulation = Simulation(config.world, MapChoice.parse("flat"), seed=1)
    target = simulation.spawn("tank", "target", 30.0, 0.0, 0.0)  # facing +Y
    for _ in range(30):
        simulation.step(Controls(brake=1.0))
    for _ in range(40):  # its gun turns to point right (+X), step by step, alone
        target.aim.turret_heading_rad += math.pi / 2.0 / 40.0
        simulation.step(Controls(brake=1.0))
    assert target.turret_collider.heading_rad == 0.0
    pivot = np.asarray(tank.gun.turret_pivot_m)
    # Along -Y, 1.35 m right of the middle, 0.45 m above the ring: beside the turret's
    # sloped side where the pieces stand, above the hull, through the mantlet turned right.
    point_bs = pivot + (1.35 - pivot[0], 0.0, 0.45)
    events = _fire_at(simulation, target, config.shells.shells["ap"], point_bs, (0, 1.0, 0),
                      turning=target)
    [hit] = [event for event in events if isinstance(event, Hit) and event.target == "target"]
    assert hit.plate == "mantlet"
    simulation.destroy()


def test_the_crosshairs_arc_meets_a_turret_where_it_stands(config, tank):
    """The arc to a lone tank's turret, turned while nothing was near: the predicted
    impact is on the turret where it stands, not where its pieces were left."""
    simulation = Simulation(config.world, MapChoice.parse("flat"), seed=1)
    shooter = simulation.player
    target = simulation.spawn("tank", "target", 0.0, 60.0, 90.0)  # broadside to the shooter
    for _ in range(30):
        simulation.step(Controls(brake=1.0))
    for _ in range(40):  # its gun turns to point at the shooter, alone
        target.aim.turret_heading_rad -= math.pi / 2.0 / 40.0
        simulation.step(Controls(brake=1.0))
    assert target.turret_collider.behind
    impact = simulation.predicted_impact(shooter)
    assert not target.turret_collider.behind
    assert impact is not None and np.linalg.norm(impact - target.current.position_ws) < 5.0
    simulation.destroy()
