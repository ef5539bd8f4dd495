"""Terrain: the numpy height grid, its Bullet collider and the drawn mesh must agree.

The alignment test casts Bullet rays straight down onto the collider and compares
where they land with Terrain.height_at / normal_at, on the desert (two seeds), the
flat map and a 20 degree slope.
"""

from __future__ import annotations

import dataclasses
import math
import zlib

import numpy as np
import pytest
from panda3d.bullet import BulletWorld
from panda3d.core import NodePath, Point3

from common.spec import SpecError
from game.view.draw.meshes import grid_triangles
from game.view.ground.terrain_view import TerrainView
from physics.bullet.bodies import map_walls, terrain_collider
from physics.model.height_grid import HEIGHT_LEVELS
from physics.model.terrain import (REFERENCE_SURFACE, MapChoice, Terrain, build_terrain,
                                   plane_under)

RAYS = 200
HEIGHT_TOLERANCE_M = 0.01
NORMAL_TOLERANCE_DEG = 0.5
MAX_ERRORS: dict[str, tuple[float, float]] = {}
"""Largest ray-vs-height_at errors seen, per map (metres, degrees), printed at the end."""


class Collider:
    """A terrain and its collider (plus the edge walls) in a Bullet world of their own."""

    def __init__(self, terrain: Terrain):
        self.terrain = terrain
        self.world = BulletWorld()
        self.ground = terrain_collider(terrain)
        self.walls = map_walls(terrain)
        self.world.attachRigidBody(self.ground)
        self.world.attachRigidBody(self.walls)

    def cast(self, start, end):
        return self.world.rayTestClosest(Point3(*start), Point3(*end))

    def cast_down(self, xs, ys):
        """Heights, normals and hit nodes of vertical rays at each (x, y)."""
        top = self.terrain.max_height_m + 10.0
        bottom = self.terrain.min_height_m - 10.0
        heights, normals, nodes = [], [], []
        for x, y in zip(xs.tolist(), ys.tolist()):
            hit = self.cast((x, y, top), (x, y, bottom))
            assert hit.hasHit(), f"no ground under ({x:.2f}, {y:.2f})"
            heights.append(hit.getHitPos()[2])
            normals.append(tuple(hit.getHitNormal()))
            nodes.append(hit.getNode())
        return np.array(heights), np.array(normals), nodes

    def destroy(self):
        self.world.removeRigidBody(self.ground)
        self.world.removeRigidBody(self.walls)


def random_points(terrain: Terrain, seed: int, count: int = RAYS):
    """Points strictly inside the map (a margin of a quarter cell from the edges)."""
    rng = np.random.default_rng(seed)
    margin = terrain.spacing_m / 4
    xs = rng.uniform(-terrain.half_extent_x_m + margin, terrain.half_extent_x_m - margin, count)
    ys = rng.uniform(-terrain.half_extent_y_m + margin, terrain.half_extent_y_m - margin, count)
    return xs, ys


def off_the_edges(terrain: Terrain, xs, ys, band: float = 1e-3) -> np.ndarray:
    """True where (x, y) is more than ``band`` (a fraction of a cell) from every cell edge and
    diagonal. On an edge the normal is ambiguous: Bullet may report either triangle's."""
    u = (xs + terrain.half_extent_x_m) / terrain.spacing_m
    v = (ys + terrain.half_extent_y_m) / terrain.spacing_m
    fu, fv = u - np.floor(u), v - np.floor(v)
    nearest = np.minimum.reduce([fu, 1 - fu, fv, 1 - fv, np.abs(fu + fv - 1) / math.sqrt(2)])
    return nearest > band


def angle_deg(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a = a / np.linalg.norm(a, axis=-1, keepdims=True)
    b = b / np.linalg.norm(b, axis=-1, keepdims=True)
    return np.degrees(np.arccos(np.clip(np.sum(a * b, axis=-1), -1.0, 1.0)))


MAPS = ["desert:1", "desert:7", "flat", "slope:20"]


@pytest.fixture(scope="module")
def terrains(config):
    """Each map of MAPS built once: name -> Terrain."""
    built = {}
    for name in MAPS:
        text, _, seed = name.partition(":") if name.startswith("desert") else (name, "", "1")
        built[name] = build_terrain(MapChoice.parse(text), config.game.terrain, int(seed))
    return built


@pytest.fixture(scope="module")
def colliders(terrains):
    made = {name: Collider(terrain) for name, terrain in terrains.items()}
    yield made
    for collider in made.values():
        collider.destroy()


@pytest.fixture(scope="module", autouse=True)
def report_errors():
    yield
    if MAX_ERRORS:
        print("\nterrain ray vs height_at, largest errors:")
        for name, (height_m, normal_deg) in MAX_ERRORS.items():
            print(f"  {name:10s} height {height_m * 1000:.4f} mm, normal {normal_deg:.4f} deg")


# ----- alignment: collider == height_at / normal_at ------------------------------------------


@pytest.mark.parametrize("name", MAPS)
def test_rays_land_where_height_at_says(colliders, name):
    collider = colliders[name]
    terrain = collider.terrain
    xs, ys = random_points(terrain, seed=zlib.crc32(name.encode()))
    ray_heights, ray_normals, nodes = collider.cast_down(xs, ys)
    assert all(node == collider.ground for node in nodes), "a vertical ray hit something else"
    expected_heights = terrain.height_at(xs, ys)
    expected_normals = terrain.normal_at(xs, ys)
    assert expected_heights.shape == (RAYS,) and expected_normals.shape == (RAYS, 3)
    height_error = np.abs(ray_heights - expected_heights)
    inside = off_the_edges(terrain, xs, ys)
    assert inside.sum() > 0.9 * RAYS
    normal_error = angle_deg(ray_normals[inside], expected_normals[inside])
    MAX_ERRORS[name] = (float(height_error.max()), float(normal_error.max()))
    worst = int(np.argmax(height_error))
    assert height_error.max() < HEIGHT_TOLERANCE_M, (
        f"ray at ({xs[worst]:.3f}, {ys[worst]:.3f}) hit {ray_heights[worst]:.4f} m, "
        f"height_at says {expected_heights[worst]:.4f} m")
    assert normal_error.max() < NORMAL_TOLERANCE_DEG


def test_rays_match_at_cell_corners_edges_and_diagonals(colliders):
    """Points on sample corners, on cell edges and just either side of each cell's diagonal."""
    collider = colliders["desert:1"]
    terrain = collider.terrain
    rng = np.random.default_rng(3)
    s = terrain.spacing_m
    i = rng.integers(1, terrain.columns - 2, 40)
    j = rng.integers(1, terrain.rows - 2, 40)
    x0 = (i - (terrain.columns - 1) / 2) * s
    y0 = (j - (terrain.rows - 1) / 2) * s
    t = rng.uniform(0.05, 0.95, 40)
    eps = 0.02 * s
    xs = np.concatenate([x0, x0 + t * s, x0, x0 + t * s - eps, x0 + t * s + eps])
    ys = np.concatenate([y0, y0, y0 + t * s, y0 + (1 - t) * s - eps, y0 + (1 - t) * s + eps])
    ray_heights, _, _ = collider.cast_down(xs, ys)
    assert np.abs(ray_heights - terrain.height_at(xs, ys)).max() < HEIGHT_TOLERANCE_M
    # On a sample the height is the sample itself.
    assert np.allclose(terrain.height_at(x0, y0), terrain.heights_m[j, i], atol=1e-9)


def test_the_drawn_tiles_vertices_are_the_height_samples(terrains, config):
    """The whole map's view draws each tile's finest level from the collider's own samples,
    cut along Bullet's diagonals (the tile's skirt comes after them)."""
    terrain, spec = terrains["desert:1"], config.view.terrain_view
    view = TerrainView(NodePath("render"), terrain, spec, (0.9, 0.8, 0.6), (0.7, 0.5, 0.3),
                       config.view.sand.blend_mask_tile_m)
    try:
        xs, ys = terrain.sample_positions()
        samples = np.stack([xs, ys, terrain.heights_m], axis=-1)
        drawn = np.zeros(terrain.heights_m.shape, dtype=bool)
        for (i0, j0), tile in view.tiles.items():
            window = (slice(j0, min(j0 + spec.tile_cells, terrain.rows - 1) + 1),
                      slice(i0, min(i0 + spec.tile_cells, terrain.columns - 1) + 1))
            rows, columns = samples[window].shape[:2]
            geom = tile.find("level-0").node().getGeom(0)
            vertex_data = geom.getVertexData()
            floats = np.frombuffer(memoryview(vertex_data.getArray(0)), dtype=np.float32)
            vertices = floats.reshape(vertex_data.getNumRows(), -1)[:rows * columns, :3]
            np.testing.assert_allclose(vertices, samples[window].reshape(-1, 3), rtol=0,
                                       atol=1e-4)
            triangles = grid_triangles(columns, rows)
            indices = np.frombuffer(memoryview(geom.getPrimitive(0).getVertices()),
                                    dtype=np.uint32)
            np.testing.assert_array_equal(indices[:triangles.size], triangles.ravel())
            drawn[window] = True
        assert drawn.all()
    finally:
        view.destroy()


def test_the_drawn_mesh_splits_cells_along_the_collider_diagonal():
    """Each cell's two triangles share the edge from sample (i+1, j) to (i, j+1)."""
    columns, rows = 5, 4
    triangles = grid_triangles(columns, rows)
    assert triangles.shape == (2 * (columns - 1) * (rows - 1), 3)
    for j in range(rows - 1):
        for i in range(columns - 1):
            corner = j * columns + i
            diagonal = {corner + 1, corner + columns}
            in_cell = [set(t) for t in triangles.tolist()
                       if set(t) <= {corner, corner + 1, corner + columns, corner + columns + 1}]
            assert len(in_cell) == 2
            assert all(diagonal <= triangle for triangle in in_cell)


# ----- the maps ----------------------------------------------------------------------------


def test_desert_size_and_spacing(terrains):
    terrain = terrains["desert:1"]
    assert terrain.spacing_m <= 2.0
    assert 2 * terrain.half_extent_x_m >= 512.0 and 2 * terrain.half_extent_y_m >= 512.0
    assert terrain.heights_m.shape == (terrain.rows, terrain.columns)
    xs, ys = terrain.sample_positions()
    assert xs[0, 0] == pytest.approx(-terrain.half_extent_x_m)
    assert ys[-1, -1] == pytest.approx(terrain.half_extent_y_m)
    assert xs[0, 1] - xs[0, 0] == pytest.approx(terrain.spacing_m)


def test_desert_heights_are_finite_with_dunes(terrains):
    terrain = terrains["desert:1"]
    heights = terrain.heights_m
    assert np.isfinite(heights).all()
    assert heights.max() - heights.min() > 4.0, "hardly any relief"
    xs, ys = terrain.sample_positions()
    tilt_deg = angle_deg(terrain.normal_at(xs, ys), np.array([0.0, 0.0, 1.0]))
    assert tilt_deg.max() > 10.0, "no dune faces"
    assert (tilt_deg > 5.0).mean() > 0.1, "hardly any slopes"
    assert (tilt_deg < 2.0).mean() > 0.02, "no flat-ish ground at all"
    assert tilt_deg.max() < 45.0, "cliffs, not dunes"


def test_same_seed_same_heights_different_seed_different(config, terrains):
    again = build_terrain(MapChoice.parse("desert"), config.game.terrain, 1)
    np.testing.assert_array_equal(again.heights_m, terrains["desert:1"].heights_m)
    other = terrains["desert:7"]
    assert other.heights_m.shape == again.heights_m.shape
    assert np.abs(other.heights_m - again.heights_m).max() > 1.0


def test_flat_map_is_flat(terrains):
    terrain = terrains["flat"]
    assert np.all(terrain.heights_m == 0.0)
    xs, ys = random_points(terrain, seed=5, count=50)
    assert np.all(terrain.height_at(xs, ys) == 0.0)
    np.testing.assert_allclose(terrain.normal_at(xs, ys), np.tile([0.0, 0.0, 1.0], (50, 1)))


def test_slope_heights_are_tan_of_the_angle_times_y(terrains, colliders):
    terrain = terrains["slope:20"]
    rise = math.tan(math.radians(20.0))
    quantum_m = terrain.height_range_m / HEIGHT_LEVELS
    xs, ys = random_points(terrain, seed=11)
    np.testing.assert_allclose(terrain.height_at(xs, ys), rise * ys, rtol=0, atol=quantum_m)
    ray_heights, ray_normals, _ = colliders["slope:20"].cast_down(xs, ys)
    np.testing.assert_allclose(ray_heights, rise * ys, rtol=0, atol=quantum_m + 1e-3)
    expected_normal = np.array([0.0, -math.sin(math.radians(20.0)), math.cos(math.radians(20.0))])
    # Each corner is off by up to half a 16-bit step, so a cell may tilt by about step/spacing.
    quantum_deg = math.degrees(quantum_m / terrain.spacing_m)
    assert angle_deg(ray_normals, expected_normal).max() < quantum_deg + 0.01
    assert angle_deg(terrain.normal_at(xs, ys), expected_normal).max() < quantum_deg + 0.01


def test_height_at_clamps_outside_the_map(terrains):
    terrain = terrains["slope:20"]
    edge = terrain.half_extent_y_m
    assert terrain.height_at(0.0, edge + 50.0) == pytest.approx(terrain.height_at(0.0, edge))
    assert np.isfinite(terrain.height_at(-1e4, -1e4))


def interpolated_ground(terrain, xy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Height and unit normal under each point (2, N), straight from the height samples: the
    cell's two triangles split along the diagonal from its (1, 0) corner to its (0, 1)."""
    spacing = terrain.spacing_m
    u = np.clip((xy[0] + terrain.half_extent_x_m) / spacing, 0.0, terrain.columns - 1)
    v = np.clip((xy[1] + terrain.half_extent_y_m) / spacing, 0.0, terrain.rows - 1)
    i = np.minimum(u.astype(int), terrain.columns - 2)
    j = np.minimum(v.astype(int), terrain.rows - 2)
    fu, fv = u - i, v - j
    h = terrain.heights_m
    h00, h10, h01, h11 = h[j, i], h[j, i + 1], h[j + 1, i], h[j + 1, i + 1]
    upper = fu + fv > 1.0
    slope_u = np.where(upper, h11 - h01, h10 - h00) / spacing
    slope_v = np.where(upper, h11 - h10, h01 - h00) / spacing
    height = np.where(upper, h11 - (1.0 - fu) * (h11 - h01) - (1.0 - fv) * (h11 - h10),
                      h00 + fu * (h10 - h00) + fv * (h01 - h00))
    normal = np.stack([-slope_u, -slope_v, np.ones_like(slope_u)])
    return height, normal / np.linalg.norm(normal, axis=0)


def test_the_plane_look_ups_give_the_heights_samples_make(terrains):
    """The compiled look-ups, on and off the map, one point at a time and many at once,
    against the samples' own triangles; a point that is not finite is under nothing."""
    terrain = next(terrain for name, terrain in terrains.items() if name.startswith("desert"))
    xy = np.random.default_rng(3).uniform(-1.2, 1.2, (2, 400)) * terrain.half_extent_x_m
    height, normal = terrain.planes_at(xy)
    expected_height, expected_normal = interpolated_ground(terrain, xy)
    np.testing.assert_allclose(height, expected_height, rtol=0, atol=1e-9)
    np.testing.assert_allclose(normal, expected_normal, rtol=0, atol=1e-9)
    tables = terrain.tables
    one_by_one = np.array([plane_under(tables.planes, tables.directory, tables.lookup, x, y)
                           for x, y in xy.T])
    assert np.array_equal(one_by_one[:, 0], height)
    assert np.array_equal(one_by_one[:, 1:], normal.T)
    nowhere_height, nowhere_normal = terrain.planes_at(np.array([[np.nan, 1.0], [2.0, np.inf]]))
    assert np.isnan(nowhere_height).all() and np.isnan(nowhere_normal).all()


def test_contains(terrains):
    terrain = terrains["flat"]
    half = terrain.half_extent_x_m
    assert terrain.contains(0.0, 0.0) and terrain.contains(half, -half)
    assert not terrain.contains(half + 0.1, 0.0) and not terrain.contains(0.0, -half - 0.1)


# ----- map edges ---------------------------------------------------------------------------


@pytest.mark.parametrize("direction", [(1, 0), (-1, 0), (0, 1), (0, -1)])
@pytest.mark.parametrize("name", ["desert:1", "flat"])
def test_a_ray_along_the_ground_hits_the_edge_wall(colliders, name, direction):
    collider = colliders[name]
    terrain = collider.terrain
    dx, dy = direction
    z = terrain.max_height_m + 1.0  # above every dune, so only a wall can stop it
    start = (0.0, 0.0, z)
    end = (dx * 2 * terrain.half_extent_x_m, dy * 2 * terrain.half_extent_y_m, z)
    hit = collider.cast(start, end)
    assert hit.hasHit(), "the ray left the map"
    assert hit.getNode() == collider.walls
    position = np.array(hit.getHitPos())
    assert abs(position[0]) == pytest.approx(abs(dx) * terrain.half_extent_x_m, abs=1e-3)
    assert abs(position[1]) == pytest.approx(abs(dy) * terrain.half_extent_y_m, abs=1e-3)
    np.testing.assert_allclose(np.array(hit.getHitNormal()), [-dx, -dy, 0.0], atol=1e-6)


def test_the_walls_stand_at_the_height_of_the_ground_too(colliders):
    """A ray low along the flat map (just above the sand) is stopped by the wall."""
    collider = colliders["flat"]
    half = collider.terrain.half_extent_x_m
    hit = collider.cast((0.0, 10.0, 0.3), (3 * half, 10.0, 0.3))
    assert hit.hasHit() and hit.getNode() == collider.walls
    assert hit.getHitPos()[0] == pytest.approx(half, abs=1e-3)


# ----- --map parsing -------------------------------------------------------------------------


@pytest.mark.parametrize("text, kind, degrees", [
    ("desert", "desert", 0.0), ("flat", "flat", 0.0), ("slope:20", "slope", 20.0),
    ("slope:0", "slope", 0.0), ("slope:12.5", "slope", 12.5),
    ("slope:60", "slope", MapChoice.MAX_SLOPE_DEG)])
def test_map_choice_accepts(text, kind, degrees):
    choice = MapChoice.parse(text)
    assert (choice.kind, choice.slope_deg) == (kind, degrees)


@pytest.mark.parametrize("text", ["mountains", "slope:abc", "slope:-5", "slope:90", "slope:",
                                  "slope", "slope:nan", "slope:inf", "flat:3", "Desert", "",
                                  "slope:60.5", "desert "])
def test_map_choice_rejects(text):
    with pytest.raises(ValueError) as caught:
        MapChoice.parse(text)
    assert "desert" in str(caught.value) and "slope:DEG" in str(caught.value)


def test_terrain_rejects_a_degenerate_grid():
    with pytest.raises(ValueError):
        Terrain(np.zeros((1, 5)), 1.0, ())
    with pytest.raises(ValueError):
        Terrain(np.zeros(5), 1.0, ())


@pytest.mark.parametrize("key, value", [("grip_scale", 0.9), ("rolling_resistance", 0.02)])
def test_hardpan_is_the_reference_surface_vehicles_state_their_grip_on(config, key, value):
    """Tracks and tyres state their own grip and rolling resistance on hardpan; other
    surfaces scale the grip and add their drag. So hardpan itself may change neither."""
    spec = config.world.terrain
    surfaces = tuple(dataclasses.replace(surface, **{key: value})
                     if surface.name == REFERENCE_SURFACE else surface
                     for surface in spec.surfaces)
    with pytest.raises(SpecError, match=key):
        dataclasses.replace(spec, surfaces=surfaces)
    reference = next(s for s in spec.surfaces if s.name == REFERENCE_SURFACE)
    assert (reference.grip_scale, reference.rolling_resistance) == (1.0, 0.0)
    assert spec.test_maps.surface == REFERENCE_SURFACE  # flat-ground figures are on it
