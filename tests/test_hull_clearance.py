"""Hulls clear of the ground leave Bullet's pair with the terrain: the clearance test must
never call a hull clear that Bullet finds touching, and a tank that rolls over must still
land on its hull (its turret)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from panda3d.core import LQuaternionf, Point3, TransformState, Vec3

from game.sim.controls import AUTOMATIC, Controls
from game.sim.simulation import Simulation
from physics.bullet.bodies import TERRAIN_NAME, make_hull_body
from physics.bullet.hull_pairs import HullPairs
from physics.bullet.poses import body_state
from physics.model.anchors import BodyStates
from physics.bullet.hull_body import collider_hull, collider_parts
from physics.model.hull_clearance import HullClearance, PartBox
from physics.model.pose import BodyState
from physics.model.terrain import MapChoice

STEP_S = 1.0 / 60.0


def states_of(*states: BodyState) -> BodyStates:
    return BodyStates(np.array([state.position_ws for state in states]),
                      np.array([state.axes_ws() for state in states]),
                      np.array([state.velocity_ws for state in states]),
                      np.array([state.angular_velocity_ws for state in states]))


def moved(state: BodyState, lift_m=0.0, velocity_ws=None, axes_ws=None) -> BodyState:
    """``state`` raised by ``lift_m``, with another velocity or axes."""
    return BodyState(
        state.position_ws + (0.0, 0.0, lift_m), state.orientation_ws,
        state.velocity_ws if velocity_ws is None else np.asarray(velocity_ws, dtype=float),
        state.angular_velocity_ws, state.axes_ws() if axes_ws is None else axes_ws)


def set_random_pose(hull, rng: np.random.Generator, tilt_deg: float, height_m) -> tuple:
    """Put ``hull`` at a random (x, y) over the middle of the map, at a random heading,
    pitched and rolled with a spread of ``tilt_deg``, at ``height_m(x, y)``; return x, y."""
    x, y = rng.uniform(-200.0, 200.0, 2)
    rotation = LQuaternionf()
    rotation.setHpr(Vec3(rng.uniform(0, 360), *rng.normal(0.0, tilt_deg, 2)))
    hull.setTransform(TransformState.makePosQuatScale(Point3(x, y, height_m(x, y)), rotation,
                                                      Vec3(1, 1, 1)))
    return x, y


@pytest.fixture
def flat(config):
    simulation = Simulation(config.world, MapChoice.parse("flat"), seed=1)
    yield simulation
    simulation.destroy()


def test_a_hull_on_its_springs_is_clear_and_one_at_the_ground_is_not(config, flat):
    for _ in range(120):
        flat.step(Controls())
    test = HullClearance(flat.terrain, config.tank.hull)
    resting = flat.player.current
    floor_m = config.tank.suspension.ride_height_m  # the hull's floor above the ground
    upside_down = resting.axes_ws() * np.array([[-1.0], [1.0], [-1.0]])  # rolled half over
    cases = {"resting": (resting, True),
             "floor 5 cm up": (moved(resting, 0.05 - floor_m), False),
             "floor 25 cm up": (moved(resting, 0.25 - floor_m), True),
             "dropping at 20 m/s": (moved(resting, velocity_ws=(0, 0, -20.0)), False),
             "upside down": (moved(resting, axes_ws=upside_down), False)}
    clear = test.clear(states_of(*(state for state, _ in cases.values())), STEP_S)
    assert dict(zip(cases, clear.tolist())) == {name: wanted
                                               for name, (_, wanted) in cases.items()}


def floor_points_bs(hull_spec, count: int = 25) -> np.ndarray:
    """A grid of points over the hull box's floor, body frame (count by count)."""
    half = np.asarray(hull_spec.half_extents_m)
    across, along = np.meshgrid(np.linspace(-1.0, 1.0, count) * half[0],
                                np.linspace(-1.0, 1.0, count) * half[1])
    return np.stack([across.ravel(), along.ravel(),
                     np.full(across.size, hull_spec.centre_of_mass_drop_m - half[2])], axis=1)


def lift_for_floor_gap(terrain, floor_bs: np.ndarray, x_m: float, y_m: float,
                       axes_ws: np.ndarray, gap_m: float) -> float:
    """The height of the centre of mass at (x, y) that leaves the floor's lowest point (of
    ``floor_bs``) ``gap_m`` above the ground (a grid can miss a rise between its points)."""
    floor_ws = floor_bs @ axes_ws
    ground_m = terrain.height_at(x_m + floor_ws[:, 0], y_m + floor_ws[:, 1])
    return float(np.max(ground_m - floor_ws[:, 2])) + gap_m


def test_whenever_it_says_clear_no_contact_bullet_finds_can_push(config):
    """Random poses over the dunes, from buried to well clear, tilted up to rolled over, and
    poses with the floor a hand's breadth over the ground. Bullet reports contact points
    out to its breaking threshold (some centimetres apart), but a point still apart pushes
    only a body that closes the gap within the substep, which a hull called clear cannot:
    so a hull called clear has no point touching, though it may have points apart."""
    simulation = Simulation(config.world, MapChoice.parse("desert"), seed=3)
    world, terrain = simulation.world, simulation.terrain
    ground = next(body for body in world.bullet.getRigidBodies()
                  if body.getName() == TERRAIN_NAME)
    hull = make_hull_body(config.tank.hull, "probe")
    world.add_body(hull)
    test = HullClearance(terrain, config.tank.hull)
    floor_bs = floor_points_bs(config.tank.hull)
    rng = np.random.default_rng(5)
    verdicts = set()
    for number in range(3000):
        if number % 2:
            set_random_pose(hull, rng, 25.0, lambda x, y: float(terrain.height_at(x, y))
                            + rng.uniform(-0.5, 2.5))
        else:  # the floor between touching and a little more than the test keeps
            x, y = set_random_pose(hull, rng, 5.0, lambda x, y: 0.0)
            state = body_state(hull)
            hull.setTransform(hull.getTransform().setPos(Point3(x, y, lift_for_floor_gap(
                terrain, floor_bs, x, y, state.axes_ws(), rng.uniform(0.0, 0.2)))))
        clear = bool(test.clear(states_of(body_state(hull)), STEP_S)[0])
        gaps_m = [contact.getManifoldPoint().getDistance() for contact
                  in world.bullet.contactTestPair(hull, ground).getContacts()]
        found = "none" if not gaps_m else ("touching" if min(gaps_m) <= 0.0 else "apart")
        verdicts.add((clear, found))
        assert not (clear and found == "touching"), (
            f"called clear but touching at {hull.getTransform().getPos()}")
    assert verdicts >= {(True, "none"), (True, "apart"), (False, "touching")}
    simulation.destroy()


def test_a_tank_on_its_springs_leaves_the_pair_and_an_upset_one_lands_on_its_hull(config,
                                                                                  flat):
    player = flat.player
    for _ in range(90):
        flat.step(Controls())
    assert not player.fleet.hull_pairs.meets_terrain[player.index]
    rolled = LQuaternionf()
    rolled.setHpr(Vec3(0.0, 0.0, 180.0))
    player.body.setTransform(TransformState.makePosQuatScale(Point3(0.0, 0.0, 2.0), rolled,
                                                             Vec3(1, 1, 1)))
    player.body.setLinearVelocity(Vec3(0, 0, 0))
    for _ in range(150):
        flat.step(Controls())
    # On its turret's roof: the top of the box round its collider (the hull's plates and
    # the turret's) on the ground, the centre of mass above the box's centre. The cupola
    # stands off the roof to one side and tips it a few degrees (10 as shipped).
    hull = player.fleet.kind_of(player.index).collider_hull
    roof_height_m = hull.half_extents_m[2] + hull.centre_of_mass_drop_m
    assert roof_height_m > config.tank.hull.half_extents_m[2] + 0.5  # the turret stands up
    assert player.current.axes_ws()[2][2] < math.cos(math.radians(165.0))
    roof_plates_m = config.tank.gun.turret_pivot_m[2] + max(
        corner[2] for plate in config.tank.plates.plate
        if plate.part == "turret" and plate.name != "cupola" for corner in plate.points_m)
    assert roof_plates_m - 0.05 < player.current.position_ws[2] < roof_height_m + 0.05
    assert player.fleet.hull_pairs.meets_terrain[player.index]
    # The hull's own box stands clear of the ground there; the turret's box holds the pair.
    hull_only = HullClearance(flat.terrain, hull, collider_parts(config.tank)[:1])
    assert hull_only.clear(states_of(player.current), STEP_S).all()
    pairs = player.fleet.hull_pairs
    assert not pairs.clearance.clear(states_of(player.current), STEP_S,
                                     pairs.kind[[player.index]]).any()


def test_the_parts_boxes_hold_the_collider_and_the_turrets_stands_above_the_hulls(config):
    """The clearance test's boxes: the hull's holds the hull's plates (and its box), the
    turret's every turret plate at any heading, its floor a turret ring above the hull's;
    the box round the whole collider holds both."""
    tank = config.tank
    hull_box, turret_box = collider_parts(tank)
    whole = collider_hull(tank)

    def bounds(half, lift):
        half = np.asarray(half)
        return -half + (0.0, 0.0, lift), half + (0.0, 0.0, lift)

    hull_low, hull_high = bounds(hull_box.half_extents_m, hull_box.centre_lift_m)
    turret_low, turret_high = bounds(turret_box.half_extents_m, turret_box.centre_lift_m)
    whole_low, whole_high = bounds(whole.half_extents_m, whole.centre_of_mass_drop_m)
    hull_points = np.concatenate([plate.points_m for plate in tank.plates.plate
                                  if plate.part == "hull"])
    assert (hull_points >= hull_low - 1e-9).all() and (hull_points <= hull_high + 1e-9).all()
    pivot = np.asarray(tank.gun.turret_pivot_m)
    turret_points = np.concatenate([plate.points_m for plate in tank.plates.plate
                                    if plate.part == "turret"])
    for heading in np.linspace(0.0, 2.0 * np.pi, 37):
        cos_h, sin_h = np.cos(heading), np.sin(heading)
        turned = turret_points @ np.array([[cos_h, sin_h, 0], [-sin_h, cos_h, 0], [0, 0, 1]])
        placed = turned + pivot
        assert (placed >= turret_low - 1e-9).all() and (placed <= turret_high + 1e-9).all()
    assert turret_low[2] >= hull_high[2] - 1e-9  # the turret stands on the roof
    assert (whole_low <= np.minimum(hull_low, turret_low) + 1e-9).all()
    assert (whole_high >= np.maximum(hull_high, turret_high) - 1e-9).all()
    assert collider_parts(config.car) == (PartBox.of_hull(config.car.hull),)


def test_a_still_hull_whose_floor_is_14_cm_above_the_dunes_is_clear(config):
    """The test is tight: only Bullet's margin round the hull and the slack (6 cm) are
    kept, wherever the dunes rise round the hull. (The floor's gap is measured on a grid of
    its points, which can miss a rise between them, and a tilted box's outline holds ground
    beside its floor: hence 14 cm.)"""
    simulation = Simulation(config.world, MapChoice.parse("desert"), seed=3)
    terrain, spec = simulation.terrain, config.tank.hull
    test = HullClearance(terrain, spec)
    assert test.contact_m[0] < 0.1
    floor_bs = floor_points_bs(spec)
    hull = make_hull_body(spec, "probe")
    rng = np.random.default_rng(4)
    states = []
    for _ in range(300):
        x, y = set_random_pose(hull, rng, 3.0, lambda x, y: 0.0)
        axes = body_state(hull).axes_ws()
        states.append(BodyState(np.array([x, y, lift_for_floor_gap(terrain, floor_bs, x, y,
                                                                   axes, 0.14)]),
                                np.zeros(4), np.zeros(3), np.zeros(3), axes))
    clear = test.clear(states_of(*states), STEP_S)
    assert clear.all(), f"{np.count_nonzero(~clear)} of {len(clear)} called near the ground"
    simulation.destroy()


def test_a_hull_leaves_the_edges_pair_inland_and_an_edge_still_stops_it(config, flat):
    """The map's edge planes pair only with hulls that may reach them: a tank in the middle
    is out of their pair; one driven at the east edge is back in it and held by the wall."""
    player = flat.player
    pairs = player.fleet.hull_pairs
    for _ in range(30):
        flat.step(Controls())
    assert not pairs.meets_edges[player.index]
    half_m = flat.terrain.half_extent_x_m
    flat.place(player, half_m - 40.0, 0.0, 90.0)  # facing east, 40 m from the edge
    paired_at_m = None
    for _ in range(int(20.0 / STEP_S)):
        flat.step(Controls(throttle=1.0, gear=AUTOMATIC))
        if paired_at_m is None and pairs.meets_edges[player.index]:
            paired_at_m = half_m - float(player.current.position_ws[0])
    assert paired_at_m is not None and paired_at_m > config.tank.hull.half_extents_m[1]
    front_m = (player.current.position_ws[0]
               + config.tank.hull.half_extents_m[1] * player.current.axes_ws()[1][0])
    assert front_m == pytest.approx(half_m, abs=0.2)  # nose against the wall, not through
    assert abs(player.current.position_ws[1]) < 5.0


def random_states(terrain, rng: np.random.Generator, count: int) -> BodyStates:
    """``count`` bodies anywhere over the map (its edges too), from buried to 3 m above the
    ground, tilted every way up to rolled over, moving and spinning."""
    x = rng.uniform(-terrain.half_extent_x_m, terrain.half_extent_x_m, count)
    y = rng.uniform(-terrain.half_extent_y_m, terrain.half_extent_y_m, count)
    z = terrain.height_at(x, y) + rng.uniform(-0.5, 3.0, count)
    turned = np.linalg.qr(np.eye(3) + rng.normal(0.0, 0.4, (count, 3, 3)))[0]
    axes = turned * np.sign(np.linalg.det(turned))[:, None, None]  # rotations, not mirrors
    return BodyStates(np.stack([x, y, z], axis=1), axes, rng.normal(0.0, 3.0, (count, 3)),
                      rng.normal(0.0, 0.5, (count, 3)))


def kinds_of_vehicles(config) -> dict[str, tuple]:
    """Each vehicle kind's collider boxes, by name: the car first (one part box), then the
    tank classes (a hull's and a turret's box each)."""
    specs = {"car": config.car, **config.tanks}
    return {name: (collider_hull(spec), collider_parts(spec)) for name, spec in specs.items()}


def test_one_test_of_several_kinds_answers_as_each_kinds_own_test(config):
    """Vehicles of every kind in one call, in mixed order, get exactly the answers each
    kind's own test gives them (both verdicts: the ground's and the edges')."""
    simulation = Simulation(config.world, MapChoice.parse("desert"), seed=3)
    terrain = simulation.terrain
    kinds = kinds_of_vehicles(config)
    assert len(kinds) >= 3 and len({len(parts) for _, parts in kinds.values()}) > 1
    boxes = list(kinds.values())
    mixed = HullClearance(terrain, *boxes[0])
    assert [mixed.add_kind(*kind_boxes) for kind_boxes in boxes[1:]] == list(
        range(1, len(boxes)))
    rng = np.random.default_rng(11)
    states = random_states(terrain, rng, 3000)
    kind = rng.integers(0, len(boxes), len(states.position_ws))
    clear, near_edges = mixed.test(states, STEP_S, kind)
    own_answers = [HullClearance(terrain, *kind_boxes).test(states, STEP_S)
                   for kind_boxes in boxes]
    for number, (own_clear, own_near_edges) in enumerate(own_answers):
        of_kind = kind == number
        assert (clear[of_kind] == own_clear[of_kind]).all(), list(kinds)[number]
        assert (near_edges[of_kind] == own_near_edges[of_kind]).all(), list(kinds)[number]
        assert own_clear[of_kind].any() and not own_clear[of_kind].all()
    # The kinds' own tests disagree on some states: the kind each vehicle has matters.
    assert any((own_clear != own_answers[0][0]).any() for own_clear, _ in own_answers[1:])
    assert (mixed.contact_m == [HullClearance(terrain, *kind_boxes).contact_m[0]
                                for kind_boxes in boxes]).all()
    # No kinds given: every vehicle of the first kind.
    first_only = mixed.test(states, STEP_S)
    assert (first_only[0] == own_answers[0][0]).all()
    assert (first_only[1] == own_answers[0][1]).all()
    simulation.destroy()


def test_a_kind_the_test_does_not_have_is_refused(config, flat):
    light = config.tanks["light"]
    test = HullClearance(flat.terrain, collider_hull(light), collider_parts(light))
    states = random_states(flat.terrain, np.random.default_rng(2), 3)
    for kind in ([0, 1, 0], [0, 0, -1]):
        with pytest.raises(ValueError, match="not one of the clearance test's kinds"):
            test.test(states, STEP_S, np.array(kind))
    with pytest.raises(ValueError, match="a kind per vehicle"):
        test.test(states, STEP_S, np.array([0, 0]))
    assert test.clear(states, STEP_S, np.array([0, 0, 0])).shape == (3,)


def test_hull_pairs_keep_each_hulls_kind_and_test_it_with_its_kinds_boxes(config):
    simulation = Simulation(config.world, MapChoice.parse("desert"), seed=3)
    world, terrain = simulation.world, simulation.terrain
    boxes = list(kinds_of_vehicles(config).values())
    pairs = HullPairs(world, terrain, *boxes[0])
    assert [pairs.add_kind(*kind_boxes) for kind_boxes in boxes[1:]] == list(
        range(1, len(boxes)))
    with pytest.raises(ValueError, match="kind must lie in"):
        pairs.add(len(boxes))
    added = [3, 0, 2, 1, 3, 2]
    for kind in added:
        pairs.add(kind)
    pairs.add()  # kind 0 by default
    pairs.remove(1)
    pairs.remove(3)
    kept = [3, 2, 1, 2, 0]
    assert pairs.kind.tolist() == kept and pairs.kind.dtype == np.int64
    assert len(pairs.meets_terrain) == len(pairs.meets_edges) == len(kept)
    # Each hull paired by its own kind's test: states where the kinds' tests disagree.
    own = [HullClearance(terrain, *kind_boxes) for kind_boxes in boxes]
    candidates = random_states(terrain, np.random.default_rng(13), 3000)
    verdicts = np.array([test.clear(candidates, STEP_S) for test in own])  # (kinds, states)
    differing = np.flatnonzero(verdicts.any(axis=0) & ~verdicts.all(axis=0))
    chosen = differing[:len(kept)]
    states = BodyStates(*(values[chosen] for values in (
        candidates.position_ws, candidates.axes_ws, candidates.velocity_ws,
        candidates.angular_velocity_ws)))
    bodies = [make_hull_body(config.car.hull, f"probe {index}") for index in range(len(kept))]
    for body in bodies:
        world.add_body(body)
    pairs.update(bodies, states, STEP_S)
    wanted = ~verdicts[kept, chosen]
    assert (pairs.meets_terrain == wanted).all()
    assert (pairs.meets_terrain != ~verdicts[0, chosen]).any()  # kind 0's test differs
    simulation.destroy()
