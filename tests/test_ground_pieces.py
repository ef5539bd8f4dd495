"""The 512 m desert's ground collider in pieces: together they are the one heightfield's
surface, and a crater builds again only the pieces under it."""

from __future__ import annotations

import numpy as np
import pytest
from panda3d.bullet import BulletWorld
from panda3d.core import Point3

from game.sim.simulation import Simulation
from physics.bullet.bodies import terrain_collider
from physics.bullet.ground_pieces import GroundPieces
from physics.bullet.terrain_tiles import StreamedColliders
from physics.bullet.world import PhysicsWorld
from physics.model.craters import Crater
from physics.model.terrain import MapChoice, build_terrain

RAYS = 300
SAME_SURFACE_M = 1e-4


@pytest.fixture
def desert(config):
    return build_terrain(MapChoice.parse("desert"), config.game.terrain, 3)


def heights_down(world: BulletWorld, terrain, xs, ys) -> np.ndarray:
    """Where rays straight down from above the map first meet something."""
    top, bottom = terrain.max_height_m + 10.0, terrain.min_height_m - 10.0
    found = []
    for x_m, y_m in zip(xs.tolist(), ys.tolist()):
        hit = world.rayTestClosest(Point3(x_m, y_m, top), Point3(x_m, y_m, bottom))
        assert hit.hasHit(), f"no ground under ({x_m:.2f}, {y_m:.2f})"
        found.append(hit.getHitPos()[2])
    return np.array(found)


def points_near_seams(terrain, piece_cells: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Points anywhere on the map, and as many within a cell of a seam between pieces."""
    rng = np.random.default_rng(seed)
    half_x, half_y, spacing = terrain.half_extent_x_m, terrain.half_extent_y_m, terrain.spacing_m
    xs = rng.uniform(-half_x + spacing / 4, half_x - spacing / 4, RAYS)
    ys = rng.uniform(-half_y + spacing / 4, half_y - spacing / 4, RAYS)
    seams_x = np.arange(-half_x + piece_cells * spacing, half_x, piece_cells * spacing)
    near_x = rng.choice(seams_x, RAYS) + rng.uniform(-spacing, spacing, RAYS)
    return np.concatenate([xs, near_x]), np.concatenate([ys, ys])


@pytest.mark.parametrize("piece_cells", [64, 100])
def test_the_pieces_are_the_whole_heightfields_surface(config, desert, piece_cells):
    whole = BulletWorld()
    whole.attachRigidBody(terrain_collider(desert))
    world = PhysicsWorld(config.game.simulation)
    pieces = GroundPieces.of_map(world, desert, piece_cells)
    cells = desert.levels.shape[0] - 1
    assert pieces.count == (-(-cells // piece_cells)) ** 2  # the last row and column ragged
    xs, ys = points_near_seams(desert, piece_cells, piece_cells)
    assert heights_down(world.bullet, desert, xs, ys) == pytest.approx(
        heights_down(whole, desert, xs, ys), abs=SAME_SURFACE_M)
    pieces.destroy()
    assert world.body_count() == 0


def test_a_crater_builds_again_only_the_pieces_under_it(config, desert):
    world = PhysicsWorld(config.game.simulation)
    pieces = GroundPieces.of_map(world, desert, 64)
    spacing = desert.spacing_m
    # On the seam between the first two pieces along x, inside the third row of pieces.
    x_m, y_m = -desert.half_extent_x_m + 64 * spacing, 50.0
    crater = Crater(x_m, y_m, 3.0, 1.0)
    before = dict(pieces._bodies)
    untouched_m = float(desert.height_at(x_m, y_m))
    pieces.refresh([desert.dig(crater)])
    rebuilt = [key for key, path in pieces._bodies.items() if path is not before[key]]
    assert sorted(rebuilt) == [(0, 128), (64, 128)]
    dug_m = float(desert.height_at(x_m, y_m))
    assert dug_m < untouched_m - 0.5
    xs = np.array([x_m, x_m - 1.3, x_m + 1.1])
    ys = np.array([y_m, y_m + 0.7, y_m - 0.9])
    assert heights_down(world.bullet, desert, xs, ys) == pytest.approx(
        [float(desert.height_at(x, y)) for x, y in zip(xs, ys)], abs=0.01)
    assert pieces.count == 16 and world.body_count() == 16


def test_pieces_must_have_a_cell(config, desert):
    with pytest.raises(ValueError, match="piece_cells"):
        GroundPieces.of_map(PhysicsWorld(config.game.simulation), desert, 0)


def test_the_512_m_desert_stands_on_its_pieces(config):
    simulation = Simulation(config.world, MapChoice.parse("desert"), seed=2)
    try:
        cells = simulation.terrain.levels.shape[0] - 1
        per_side = -(-cells // config.world.terrain.craters.collider_piece_cells)
        assert simulation.arena.colliders_resident == per_side * per_side > 1
    finally:
        simulation.destroy()


def test_a_crater_on_a_big_desert_rebuilds_only_its_piece_of_the_tile(config):
    big = build_terrain(MapChoice.parse("desert:4096"), config.world.terrain, 1)
    world = PhysicsWorld(config.world.simulation)
    colliders = StreamedColliders(world, big, piece_cells=64)
    try:
        spot = (100.0, 100.0)  # tile (8, 8) spans 0 to 256 m; its first piece, 0 to 128 m
        colliders.update(np.array([spot]))
        big.prepare_box(spot[0] - 5.0, spot[1] - 5.0, spot[0] + 5.0, spot[1] + 5.0)
        tile = colliders._bodies[(8, 8)]
        assert tile.count == 4
        before = dict(tile._bodies)
        colliders.refresh([big.dig(Crater(*spot, 3.0, 1.0))])
        assert [key for key, path in tile._bodies.items() if path is not before[key]] == [
            (0, 0)]
        x_m, y_m = spot
        assert heights_down(world.bullet, big, np.array([x_m]), np.array([y_m])) == (
            pytest.approx([float(big.height_at(x_m, y_m))], abs=2e-3))
    finally:
        colliders.destroy()
        world.destroy()
        big.destroy()
