"""Armour plates (physics/model/armour.py, config/tanks/medium.toml ``[plates]``): which plate a
shell's path strikes first, through which face; the turret's plates turn with it; the
hull's plates close the hull box; bad plates are refused by the key that is wrong."""

from __future__ import annotations

import math

import numpy as np
import pytest

from common.spec import SpecError, build_spec
from game.config import load_config
from physics.model.armour import (PlateLayout, PlateSpec, first_plate, impact_angle_deg,
                                  turret_turn)

HALF_EXTENTS_M = np.array([1.7, 3.4, 0.6])
CENTRE_M = np.array([0.0, 0.0, 0.3])
"""The hull box in the body frame: its centre stands 0.3 m above the centre of mass."""
CUBE = [[x, y, z] for x in (0.0, 1.0) for y in (0.0, 1.0) for z in (0.0, 1.0)]


@pytest.fixture(scope="module")
def tank():
    return load_config().tank


@pytest.fixture(scope="module")
def plates(tank) -> PlateLayout:
    return tank.plates


def shoot(tank, origin, direction, heading_deg=0.0, plates=None):
    return first_plate(plates or tank.plates, origin, direction, math.radians(heading_deg),
                       tank.gun.turret_pivot_m)


def unit(*vector) -> np.ndarray:
    vector = np.array(vector, dtype=float)
    return vector / np.linalg.norm(vector)


# ----- what a shot strikes -----------------------------------------------------------------------


def test_the_config_gives_every_plate_with_its_thickness(plates):
    names = [plate.name for plate in plates.plate]
    assert names == ["glacis", "lower_front", "left_side", "right_side", "rear", "roof",
                     "belly", "mantlet", "turret_front", "turret_left", "turret_right",
                     "turret_rear", "turret_roof", "cupola"]
    assert plates.named("glacis").thickness_mm == 90.0
    assert plates.named("mantlet").part == "turret"
    assert {plate.part for plate in plates.plate[:7]} == {"hull"}


@pytest.mark.parametrize("height_m, name, slope_deg", [(0.7, "glacis", 60.0),
                                                       (0.0, "lower_front", 55.0)])
def test_a_level_shot_at_the_front_meets_the_plate_at_its_slope(tank, height_m, name,
                                                                slope_deg):
    direction = unit(0.0, -1.0, 0.0)
    hit = shoot(tank, [0.3, 30.0, height_m], direction)
    assert hit is not None and hit.plate.name == name
    up = 1.0 if name == "glacis" else -1.0
    assert np.allclose(hit.normal_bs, [0.0, math.cos(math.radians(slope_deg)),
                                       up * math.sin(math.radians(slope_deg))], atol=0.01)
    assert impact_angle_deg(direction, hit.normal_bs) == pytest.approx(slope_deg, abs=0.5)
    assert np.allclose(hit.point_bs, [0.3, 30.0 - hit.distance_m, height_m])
    assert 2.36 < hit.point_bs[1] <= 3.4  # on the nose, inside the hull box


@pytest.mark.parametrize("side", [1.0, -1.0])
def test_a_shot_at_the_side_strikes_the_side_plate_square_on(tank, side):
    direction = unit(-side, 0.0, 0.0)
    hit = shoot(tank, [side * 30.0, -1.0, 0.3], direction)
    assert hit.plate.name == ("right_side" if side > 0 else "left_side")
    assert hit.distance_m == pytest.approx(30.0 - 1.7)
    assert np.allclose(hit.normal_bs, [side, 0.0, 0.0])
    assert impact_angle_deg(direction, hit.normal_bs) == pytest.approx(0.0, abs=1e-6)


def test_shots_from_behind_above_and_below_strike_rear_roof_and_belly(tank):
    assert shoot(tank, [0.5, -30.0, 0.0], [0.0, 1.0, 0.0]).plate.name == "rear"
    roof = shoot(tank, [0.5, -2.5, 30.0], [0.0, 0.0, -1.0])
    assert roof.plate.name == "roof" and np.allclose(roof.normal_bs, [0.0, 0.0, 1.0])
    belly = shoot(tank, [0.5, 0.0, -30.0], [0.0, 0.0, 1.0])
    assert belly.plate.name == "belly" and np.allclose(belly.normal_bs, [0.0, 0.0, -1.0])
    assert belly.distance_m == pytest.approx(30.0 - 0.3)


def test_the_mantlet_and_the_turret_front_face_the_gun(tank):
    pivot = np.array(tank.gun.turret_pivot_m)
    mantlet = shoot(tank, pivot + [0.0, 30.0, 0.45], [0.0, -1.0, 0.0])
    assert mantlet.plate.name == "mantlet" and np.allclose(mantlet.normal_bs, [0, 1, 0])
    cheek = shoot(tank, pivot + [0.8, 30.0, 0.3], [0.0, -1.0, 0.0])
    assert cheek.plate.name == "turret_front"
    assert impact_angle_deg([0.0, -1.0, 0.0], cheek.normal_bs) == pytest.approx(29.4,
                                                                                abs=0.5)


@pytest.mark.parametrize("heading_deg, name", [(0.0, "turret_right"), (90.0, "turret_front"),
                                               (180.0, "turret_left"),
                                               (-90.0, "turret_rear")])
def test_the_turret_plates_turn_with_the_turret(tank, heading_deg, name):
    """A shot from the right, off the mantlet: the plate facing right is struck."""
    pivot = np.array(tank.gun.turret_pivot_m)
    hit = shoot(tank, pivot + [30.0, -0.7, 0.3], [-1.0, 0.0, 0.0], heading_deg)
    assert hit.plate.name == name
    assert hit.normal_bs[0] > 0.8 and abs(hit.normal_bs[1]) < 1e-9  # facing the shot
    turn = turret_turn(math.radians(heading_deg))
    plate_normals = hit.plate.faces[0] @ turn.T
    assert np.isclose(plate_normals @ hit.normal_bs, 1.0).any()


def test_a_turned_turret_front_meets_a_shot_at_its_slope(tank):
    pivot = np.array(tank.gun.turret_pivot_m)
    hit = shoot(tank, pivot + [30.0, -0.8, 0.3], [-1.0, 0.0, 0.0], 90.0)
    assert hit.plate.name == "turret_front"
    assert impact_angle_deg([-1.0, 0.0, 0.0], hit.normal_bs) == pytest.approx(29.4, abs=0.5)
    assert np.allclose(hit.normal_bs, [math.cos(math.radians(29.36)), 0.0,
                                       math.sin(math.radians(29.36))], atol=0.01)


def test_the_turret_stands_in_front_of_the_roof(tank):
    pivot = np.array(tank.gun.turret_pivot_m)
    hit = shoot(tank, pivot + [0.0, 0.0, 30.0], [0.0, 0.0, -1.0])
    assert hit.plate.name == "turret_roof"
    assert hit.point_bs[2] == pytest.approx(pivot[2] + 0.8)


def test_a_shot_that_misses_or_points_away_strikes_nothing(tank):
    assert shoot(tank, [0.0, 30.0, 0.5], [0.0, 1.0, 0.0]) is None
    assert shoot(tank, [5.0, 30.0, 0.5], [0.0, -1.0, 0.0]) is None
    assert shoot(tank, [0.0, 0.0, 5.0], [0.0, 0.0, 1.0]) is None


def test_a_ray_starting_inside_a_plate_strikes_it_at_once(tank):
    """Inside the right side plate, travelling left: distance 0, and the normal of the face
    its line came in through (the outer one)."""
    hit = shoot(tank, [1.68, 0.0, 0.3], [-1.0, 0.0, 0.0])
    assert hit.plate.name == "right_side" and hit.distance_m == 0.0
    assert np.allclose(hit.point_bs, [1.68, 0.0, 0.3])
    assert np.allclose(hit.normal_bs, [1.0, 0.0, 0.0])


def test_the_direction_need_not_be_a_unit_vector(tank):
    hit = shoot(tank, [30.0, -1.0, 0.3], [-7.0, 0.0, 0.0])
    assert hit.distance_m == pytest.approx(30.0 - 1.7)


def test_impact_angle_is_zero_square_on_and_grows_as_it_glances():
    assert impact_angle_deg([0, 0, -1], [0, 0, 1]) == pytest.approx(0.0)
    assert impact_angle_deg([1, 0, -1], [0, 0, 1]) == pytest.approx(45.0)
    assert impact_angle_deg([1, 0, 0], [0, 0, 2]) == pytest.approx(90.0)


# ----- the hull's plates close the hull box ------------------------------------------------------


def _outer_normal(plate: PlateSpec, towards) -> tuple[np.ndarray, float]:
    normals, offsets = plate.faces
    best = int(np.argmax(normals @ unit(*towards)))
    return normals[best], offsets[best]


def _inside_hull_plates(point, nose) -> bool:
    return all(normal @ point <= offset + 1e-9 for normal, offset in nose)


def test_the_hull_plates_cover_every_face_of_the_hull_box(plates):
    """Rays from outside at random points of the hull box's faces strike a hull plate right
    there, except in the box's corners in front of the glacis and under the lower front
    plate: a shot passing through such a corner toward the hull meets the nose's plates."""
    hull = PlateLayout(tuple(plate for plate in plates.plate if plate.part == "hull"))
    nose = [_outer_normal(hull.named("glacis"), (0, 1, 1)),
            _outer_normal(hull.named("lower_front"), (0, 1, -1))]
    rng = np.random.default_rng(48)
    corners = 0
    for _ in range(1500):
        axis, sign = int(rng.integers(3)), float(rng.choice([-1.0, 1.0]))
        face = np.zeros(3)
        face[axis] = sign
        point = CENTRE_M + HALF_EXTENTS_M * rng.uniform(-1.0, 1.0, 3)
        point[axis] = CENTRE_M[axis] + sign * HALF_EXTENTS_M[axis]
        if _inside_hull_plates(point, nose):
            direction = unit(*(-face + rng.uniform(-0.9, 0.9, 3)))
            if direction @ face > -0.1:
                continue
            hit = first_plate(hull, point - 10.0 * direction, direction, 0.0, (0, 0, 0))
            assert hit is not None, (point, direction)
            assert hit.distance_m == pytest.approx(10.0, abs=1e-6), (point, hit.plate.name)
        else:
            corners += 1
            target = CENTRE_M + HALF_EXTENTS_M * rng.uniform(-0.5, 0.5, 3)
            direction = unit(*(target - point))
            hit = first_plate(hull, point - 10.0 * direction, direction, 0.0, (0, 0, 0))
            assert hit is not None, (point, direction)
            assert hit.distance_m >= 10.0 - 1e-6
            assert any(np.allclose(hit.normal_bs, normal) for normal, _ in nose), (
                point, hit.plate.name, hit.normal_bs)
    assert corners > 20  # the corners were tried


def test_every_plate_lies_within_the_hull_box_or_on_the_hull_roof(tank, plates):
    """The turret squared to the hull stands within its outline, on its roof."""
    low, high = CENTRE_M - HALF_EXTENTS_M, CENTRE_M + HALF_EXTENTS_M
    pivot = np.array(tank.gun.turret_pivot_m)
    for plate in plates.plate:
        points = np.array(plate.points_m)
        if plate.part == "hull":
            assert (points >= low - 1e-9).all() and (points <= high + 1e-9).all(), plate.name
            continue
        for heading_deg in (0, 90, 180, 270):  # (between, its corners overhang the sides)
            turned = points @ turret_turn(math.radians(heading_deg)).T + pivot
            assert (turned[:, :2] >= low[:2]).all() and (turned[:, :2] <= high[:2]).all()
            assert (turned[:, 2] >= high[2] - 1e-9).all(), plate.name


# ----- bad plates are refused by the key ---------------------------------------------------------


def plate_table(points=CUBE, **changes) -> dict:
    table = {"name": "block", "part": "hull", "thickness_mm": 50.0, "points_m": points}
    table.update(changes)
    return table


def refused(table: dict) -> SpecError:
    with pytest.raises(SpecError) as caught:
        build_spec(PlateLayout, {"plate": [plate_table(), table]}, prefix="plates.")
    return caught.value


def test_a_plate_of_good_corners_has_its_six_faces():
    normals, offsets = build_spec(PlateSpec, plate_table()).faces
    assert len(normals) == 6
    assert np.allclose(np.sort(normals @ [1.0, 1.0, 1.0]), [-1, -1, -1, 1, 1, 1])
    assert np.allclose(np.sort(offsets), [0, 0, 0, 1, 1, 1])  # x <= 1 and -x <= 0, ...


@pytest.mark.parametrize("table, key, words", [
    (plate_table(CUBE[:3]), "plates.plate[1].points_m", "4 to 16 corners"),
    (plate_table([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0], [0.5, 0.2, 0]]),
     "plates.plate[1].points_m", "no thickness"),
    (plate_table([[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]]), "plates.plate[1].points_m",
     "no thickness"),
    (plate_table(CUBE + [[0.5, 0.5, 0.5]]), "plates.plate[1].points_m[8]", "inside the piece"),
    (plate_table(CUBE + [[0.5, 0.5, 1.0]]), "plates.plate[1].points_m[8]", "on a face"),
    (plate_table(CUBE + [[0.5, 1.0, 1.0]]), "plates.plate[1].points_m[8]", "on an edge"),
    (plate_table(CUBE + [[1.0, 1.0, 1.0]]), "plates.plate[1].points_m[8]", "repeats it"),
    (plate_table(CUBE[:7] + [[1.0, 1.0]]), "plates.plate[1].points_m[7]", "3 numbers"),
    (plate_table(thickness_mm=0.0), "plates.plate[1].thickness_mm", "[1.0, 1000.0]"),
    (plate_table(thickness_mm=-5.0), "plates.plate[1].thickness_mm", "[1.0, 1000.0]"),
    (plate_table(part="gun"), "plates.plate[1].part", "'hull', 'turret'"),
    (plate_table(name="  "), "plates.plate[1].name", "not blank"),
    (plate_table(name="block", part="turret"), "plates.plate[1].name", "plate[0] has it"),
])
def test_a_bad_plate_is_refused_by_its_key(table, key, words):
    error = refused(table)
    assert error.key == key, str(error)
    assert words in error.expected, str(error)


def test_a_piece_that_is_not_convex_is_refused():
    """An L-shaped outline: its inner corner lies inside the hull of the others."""
    outline = [[0, 0], [2, 0], [2, 1], [1, 1], [1, 2], [0, 2]]
    points = [[x, y, z] for z in (0.0, 1.0) for x, y in outline]
    error = refused(plate_table(points))
    assert error.key in ("plates.plate[1].points_m[3]", "plates.plate[1].points_m[9]")
    assert "not convex" in error.expected


# ----- through the loader and the command line ---------------------------------------------------


def test_loading_the_config_gives_the_plates(plates):
    assert isinstance(plates, PlateLayout) and len(plates.plate) == 14


def test_a_bad_plate_in_the_config_exits_2_in_one_line(config_copy, edit_file, run_forked):
    path = config_copy / "tanks" / "medium.toml"
    edit_file(path, "[-0.4, 1.45, 0.7], [0.4, 1.45, 0.7]]",
              "[-0.4, 1.45, 0.7], [0.0, 1.0, 0.45]]")
    result = run_forked("--headless", "--seconds", "0.1", "--config", config_copy)
    assert result.returncode == 2, result.stderr
    [line] = result.stderr.strip().splitlines()
    assert str(path) in line and "plates.plate[7].points_m[7]" in line, line
    assert "inside the piece" in line and "Traceback" not in result.stderr, line
    assert result.stdout == ""
