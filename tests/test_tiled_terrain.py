"""The big desert (``--map desert:SIZE``): tiles made from the seed in any order, seamless,
streamed round what moves, and a tank that drives 2 km across their borders."""

from __future__ import annotations

import dataclasses
import hashlib
import math
import sys

import numpy as np
import pytest
from panda3d.core import Point3

from bench.usage import resident_memory_mb
from game.sim.controls import AUTOMATIC, Controls
from game.sim.events import Recovered
from game.sim.simulation import Simulation
from game.sim.telemetry import telemetry_record
from physics.bullet.terrain_tiles import StreamedColliders
from physics.bullet.world import ALL_BODIES, PhysicsWorld
from physics.model.anchors import AnchorCommand, BodyStates, derive_constants
from physics.model.ballistics import arc_meets_terrain
from physics.model.flight import Flight
from physics.model.terrain import MapChoice, build_terrain, plane_under
from physics.model.tiled_terrain import TiledTerrain

BIG = "desert:4096"
FLIGHT = Flight(gravity_m_s2=9.81, drag_per_m=1.6e-4, step_s=1.0 / 120.0)
"""A 75 mm shell's flight (drag and all) in the game's substeps."""


@pytest.fixture
def big(config):
    terrain = build_terrain(MapChoice.parse(BIG), config.world.terrain, 1)
    yield terrain
    terrain.destroy()


def _digest(terrain: TiledTerrain, key) -> str:
    return hashlib.sha1(terrain.tile_heights(key).tobytes()
                        + terrain.tile_levels(key).tobytes()).hexdigest()


def test_map_choice_parses_big_deserts_and_refuses_odd_sizes():
    choice = MapChoice.parse("desert:4096")
    assert (choice.kind, choice.size_m, choice.text) == ("desert", 4096, "desert:4096")
    assert MapChoice.parse("desert").size_m is None
    for text in ("desert:0", "desert:256", "desert:1000", "desert:32768", "desert:-512",
                 "desert:4096.0", "desert:"):
        with pytest.raises(ValueError, match="desert:SIZE"):
            MapChoice.parse(text)


def test_a_big_desert_is_as_big_as_asked_and_holds_no_tiles_at_first(big):
    assert isinstance(big, TiledTerrain)
    assert big.half_extent_x_m == big.half_extent_y_m == 2048.0
    assert big.tiles_per_side == 16 and big.resident_tiles == []


def test_neighbouring_tiles_share_their_border_samples_exactly(big):
    for column in (6, 7, 8):
        for row in (6, 7, 8):
            here = big.tile_heights((column, row))
            assert np.array_equal(here[:, -1], big.tile_heights((column + 1, row))[:, 0])
            assert np.array_equal(here[-1, :], big.tile_heights((column, row + 1))[0, :])
            x_m, y_m = big.tile_sample_positions((column, row))
            right_x, _ = big.tile_sample_positions((column + 1, row))
            assert np.array_equal(x_m[:, -1], right_x[:, 0])


def test_the_same_seed_gives_the_same_tiles_in_any_order(config, big):
    keys = [(3, 4), (12, 1), (7, 7), (0, 15), (8, 8)]
    first = {key: _digest(big, key) for key in keys}
    again = build_terrain(MapChoice.parse(BIG), config.world.terrain, 1)
    try:
        again.prepare_box(-2048.0, -2048.0, 2048.0, -1800.0)  # other tiles first
        assert {key: _digest(again, key) for key in reversed(keys)} == first
    finally:
        again.destroy()
    other = build_terrain(MapChoice.parse(BIG), config.world.terrain, 2)
    try:
        assert _digest(other, (7, 7)) != first[(7, 7)]
    finally:
        other.destroy()


def test_tiles_the_worker_makes_are_the_same_even_when_the_pool_grows_meanwhile(config, big):
    """The worker writes a tile into a slot set aside for it; if the pool grows before the
    tile is taken (a copy of every slot), the tile is written again into the new pool."""
    terrain_spec = config.world.terrain
    small = dataclasses.replace(terrain_spec,
                                tiles=dataclasses.replace(terrain_spec.tiles, pool_tiles=1))
    grown = build_terrain(MapChoice.parse(BIG), small, 1)
    try:
        grown.stream(np.array([[300.0, -700.0]]))  # queues several tiles on the worker
        queued = sorted(grown._pending)
        assert len(queued) > 1
        grown.prepare_box(-2048.0, 1800.0, -1500.0, 2048.0)  # others now: the pool grows
        assert all(grown._pending[key].pools[0] is not grown.tables.planes for key in queued)
        assert {key: _digest(grown, key) for key in queued} == {
            key: _digest(big, key) for key in queued}
    finally:
        grown.destroy()


def test_the_compiled_look_up_reads_the_tiles_as_the_array_one_does(big):
    xy = np.random.default_rng(4).uniform(-2100.0, 2100.0, (2, 300))
    height, normal = big.planes_at(xy)
    tables = big.tables  # after planes_at: it made every tile these points need
    one_by_one = np.array([plane_under(tables.planes, tables.directory, tables.lookup, x, y)
                           for x, y in xy.T])
    assert np.array_equal(one_by_one[:, 0], height)
    assert np.array_equal(one_by_one[:, 1:], normal.T)
    assert np.isfinite(height).all() and (normal[2] > 0.5).all()


@pytest.mark.parametrize("piece_cells", [None, 5])
def test_rays_across_tile_borders_meet_the_streamed_colliders_where_the_tiles_say(
        config, big, piece_cells):
    """A grid of rays across the corner of four tiles, cast through Bullet at the
    colliders streamed round it: no gap, no step at a border (nor at a border between a
    tile's pieces, 10 m apart, the last of a tile's rows and columns narrower)."""
    world = PhysicsWorld(config.world.simulation)
    colliders = StreamedColliders(world, big, piece_cells=piece_cells)
    try:
        corner_xy = np.array([[256.0, -256.0]])  # a corner shared by four tiles
        colliders.update(corner_xy)
        assert colliders.resident == 4
        offsets = np.linspace(-9.7, 9.7, 15)
        for dx in offsets:
            for dy in offsets:
                x, y = 256.0 + dx, -256.0 + dy
                hit = world.bullet.rayTestClosest(Point3(x, y, 100.0), Point3(x, y, -100.0),
                                                  ALL_BODIES)
                assert hit.hasHit(), (x, y)
                assert hit.getHitPos().z == pytest.approx(float(big.height_at(x, y)),
                                                          abs=2e-3)
    finally:
        colliders.destroy()
        world.destroy()


def test_streaming_keeps_a_bounded_set_of_tiles_and_colliders_on_a_long_trip(config, big):
    world = PhysicsWorld(config.world.simulation)
    colliders = StreamedColliders(world, big)
    spec = big.tile_spec
    tiles_near = ((2 * spec.unload_radius_m + spec.tile_size_m) // spec.tile_size_m + 1) ** 2
    try:
        most_tiles = most_colliders = 0
        for x_m in np.arange(-1900.0, 1900.0, 10.0):  # one point, 3.8 km east
            points = np.array([[x_m, 0.3 * x_m]])
            big.prepare_box(x_m - 5.0, 0.3 * x_m - 5.0, x_m + 5.0, 0.3 * x_m + 5.0)
            big.take_finished()
            big.stream(points)
            colliders.update(points)
            most_tiles = max(most_tiles, len(big.resident_tiles))
            most_colliders = max(most_colliders, colliders.resident)
            assert set(colliders.tiles) <= set(big.resident_tiles)
        assert most_tiles <= tiles_near + spec.spare_tiles
        assert 1 <= most_colliders <= 4
        assert big.tiles_made > most_tiles  # the trip crossed more tiles than it kept
    finally:
        colliders.destroy()
        world.destroy()


def _tiles_near_one_by_one(grid, points_xy, radius_m, ordered=False):
    """The tiles near the points as the plain loop finds them: per point, the columns and
    rows of its box (clamped to the map), each tile whose gap to the point is within
    the radius."""
    size, half = grid.tile_size_m, grid.tile_size_m / 2
    offset = half - grid.half_extent_x_m
    last = grid.tiles_per_side - 1

    def tile_range(low_m, high_m):
        return range(min(max(math.floor((low_m + grid.half_extent_x_m) / size), 0), last),
                     min(max(math.floor((high_m + grid.half_extent_x_m) / size), 0), last) + 1)

    near = {}
    points = np.asarray(points_xy, dtype=float).reshape(-1, 2)
    radii = np.broadcast_to(np.asarray(radius_m, dtype=float), len(points)).tolist()
    for (x_m, y_m), radius in zip(points.tolist(), radii):
        for column in tile_range(x_m - radius, x_m + radius):
            gap_x = max(abs(column * size + offset - x_m) - half, 0.0)
            for row in tile_range(y_m - radius, y_m + radius):
                gap_y = max(abs(row * size + offset - y_m) - half, 0.0)
                if gap_x * gap_x + gap_y * gap_y <= radius * radius:
                    near[column, row] = None
    return list(near) if ordered else sorted(near)


def test_the_tiles_near_points_are_the_ones_a_plain_loop_finds(big):
    """Inside and outside the map, on tile borders and corners, one radius for all or one
    each, none: the same tiles, in the same order."""
    rng = np.random.default_rng(7)
    edge_m = big.half_extent_x_m
    borders = np.arange(-edge_m, edge_m + 1.0, big.tile_size_m)
    cases = [(rng.uniform(-1.2 * edge_m, 1.2 * edge_m, (40, 2)), 150.0),
             (rng.uniform(-edge_m, edge_m, (25, 2)), rng.uniform(0.0, 600.0, 25)),
             (np.stack(np.meshgrid(borders[::3], borders[1::4]), -1).reshape(-1, 2), 0.0),
             (np.array([[borders[2], 10.0], [5.0 * edge_m, -3.0 * edge_m]]), 256.0),
             (np.zeros((0, 2)), 100.0),
             (np.array([0.5, -700.25]), 3000.0)]
    for points, radius in cases:
        for ordered in (False, True):
            assert big.tiles_near(points, radius, ordered) == \
                _tiles_near_one_by_one(big, points, radius, ordered)
        radii = np.broadcast_to(radius, len(points)).tolist()
        for (x_m, y_m), radius_m in zip(np.reshape(points, (-1, 2)).tolist(), radii):
            assert big.tiles_near_point(x_m, y_m, radius_m) == big.tiles_near(
                np.array([x_m, y_m]), radius_m, ordered=True)


def test_the_tiles_follow_the_vehicles_once_one_has_moved_far_enough(config, big,
                                                                      monkeypatch):
    """:meth:`StreamedColliders.follow`, the game's rule: the tiles wanted are worked out
    again only once some vehicle moved ``restream_after_m``; between, the spares are
    trimmed; a shell has colliders under it while it flies low."""
    world = PhysicsWorld(config.world.simulation)
    colliders = StreamedColliders(world, big)
    streamed, trimmed = [], []
    stream, trim = big.stream, big.trim
    monkeypatch.setattr(big, "stream", lambda points: streamed.append(points) or stream(points))
    monkeypatch.setattr(big, "trim", lambda: trimmed.append(1) or trim())
    restream_m = big.tile_spec.restream_after_m
    try:
        start = np.array([[300.0, -700.0], [-900.0, 400.0]])
        colliders.follow(start)
        wanted = colliders.tiles
        assert len(streamed) == 1 and set(big.tiles_near(start, 0.0)) <= set(wanted)
        trims = len(trimmed)
        colliders.follow(start + [[restream_m * 0.9, 0.0], [0.0, 0.0]])
        assert len(streamed) == 1 and len(trimmed) == trims + 1 and colliders.tiles == wanted
        far = np.array([[-1500.0, 1500.0, float(big.height_at(-1500.0, 1500.0)) + 1.0]])
        colliders.follow(start, far, 5.0, np.array([[0.0, 0.0, 0.0]]), 9.81)
        assert set(big.tiles_near(far[:, :2], 0.0)) <= set(colliders.tiles)
        colliders.follow(start)  # the shell is gone: so is its collider
        assert colliders.tiles == wanted and len(streamed) == 1
        # Shells high above the highest rock: only one diving low within the look-ahead
        # counts, and one that stays high gets no collider.
        above = np.array([[-1500.0, 1500.0, big.ceiling_m + 100.0]] * 3)
        velocities = np.array([[300.0, 0.0, 0.0],
                               [300.0, 0.0, -150.0 / big.tile_spec.shell_lookahead_s],
                               [0.0, 0.0, 0.0]])
        assert big.coming_low(above, velocities, 5.0, 9.81) == [1]
        colliders.follow(start, above[[0, 2]], 5.0, velocities[[0, 2]], 9.81)
        assert colliders.tiles == wanted and len(streamed) == 1
        moved = start + [[0.0, 0.0], [0.0, -restream_m]]
        colliders.follow(moved)
        assert len(streamed) == 2 and np.array_equal(streamed[-1], moved)
    finally:
        colliders.destroy()
        world.destroy()


@pytest.mark.slow
def test_a_tank_drives_2_km_across_tile_borders_without_falling_through(config):
    """Full throttle straight ahead through the big desert: it never sinks below the ground,
    its height changes step by step no more than the ground's under it does (plus a
    little), and the colliders it needs come and go, a few at a time. (No rocks: nothing
    steers round them.)"""
    world = dataclasses.replace(config.world,
                                rocks=dataclasses.replace(config.world.rocks, count=0))
    simulation = Simulation(world, MapChoice.parse(BIG), seed=1)
    try:
        start = simulation.player.current.position_ws.copy()
        terrain = simulation.terrain
        previous, worst_excess_m, lowest_m, colliders = None, 0.0, np.inf, set()
        crossed = set()
        for _ in range(60 * 240):
            events = simulation.step(Controls(throttle=1.0, gear=AUTOMATIC))
            assert not [event for event in events if isinstance(event, Recovered)]
            position = simulation.player.current.position_ws
            ground_m = float(terrain.height_at(position[0], position[1]))
            if previous is not None:
                worst_excess_m = max(worst_excess_m, abs(position[2] - previous[0])
                                     - abs(ground_m - previous[1]))
            previous = (position[2], ground_m)
            lowest_m = min(lowest_m, position[2] - ground_m)
            record = telemetry_record(simulation, [])
            colliders.add(record["colliders_resident"])
            crossed.add(tuple(np.floor((position[:2] + 2048.0) / 256.0).astype(int)))
            if np.linalg.norm(position[:2] - start[:2]) >= 2000.0:
                break
        assert np.linalg.norm(position[:2] - start[:2]) >= 2000.0
        assert lowest_m > 0.0
        assert worst_excess_m < 0.05
        assert len(crossed) >= 8  # it crossed tile borders
        assert max(colliders) <= 4 and min(colliders) >= 1
    finally:
        simulation.destroy()


def test_a_shell_far_from_everything_still_hits_the_ground(config):
    """Fired at ground 1.5 km from any vehicle, where no tile was made: the tiles and
    colliders follow the shell, and a shell that got below the height tiles anyway
    strikes them where it is."""
    simulation = Simulation(config.world, MapChoice.parse(BIG), seed=1)
    try:
        gun = simulation.player.spec.gun
        loaded = simulation.combat.loaded_shell(simulation.player)
        far_xy = (1500.0, -1500.0)
        assert not any(abs(x - 1500.0) < 300 for x, _ in
                       [simulation.terrain.tile_centre(key)
                        for key in simulation.terrain.resident_tiles])
        simulation.combat.shell_system.launch(
            simulation.player, np.array([*far_xy, 80.0]), np.array([30.0, 0.0, -400.0]), gun,
            loaded, simulation.time_s)
        hits = []
        for _ in range(30):
            hits += [event for event in simulation.step() if event.TYPE == "hit"]
            if hits:
                break
        assert len(hits) == 1 and hits[0].target == "terrain"
        ground_m = float(simulation.terrain.height_at(*hits[0].point[:2]))
        assert hits[0].point[2] == pytest.approx(ground_m, abs=0.5)
        # Below the height tiles without Bullet seeing it: struck where it is.
        shells = simulation.combat.shell_system
        shell = shells.launch(simulation.player, np.array([*far_xy, -50.0]),
                              np.array([0.0, 0.0, -10.0]), gun, loaded, simulation.time_s)
        struck = shells.under_ground(simulation.terrain, simulation.terrain)
        assert [hit.shell for hit in struck] == [shell] and not shells.shells
        assert struck[0].position_ws[2] == pytest.approx(
            float(simulation.terrain.height_at(*far_xy)), abs=1e-6)
    finally:
        simulation.destroy()


def test_the_tiles_at_the_edges_and_corners_of_a_rocky_big_desert_are_made(config):
    simulation = Simulation(config.world, MapChoice.parse(BIG), seed=1)
    try:
        terrain = simulation.terrain
        last = terrain.tiles_per_side - 1
        for key in ((0, 0), (last, 0), (0, last), (last, last), (0, 7), (7, last)):
            heights = terrain.tile_heights(key)
            assert np.isfinite(heights).all()
            box = terrain.tile_box(key)
            for rock in terrain.tile_rocks(key):
                assert box[0] <= rock.position_ws[0] <= box[2]
                assert box[1] <= rock.position_ws[1] <= box[3]
                assert np.abs(rock.position_ws[:2]).max() <= (
                    terrain.half_extent_x_m - config.world.rocks.edge_clearance_m)
    finally:
        simulation.destroy()


def test_a_big_desert_has_rocks_tile_by_tile_with_their_ground_and_colliders(config):
    simulation = Simulation(config.world, MapChoice.parse(BIG), seed=1)
    try:
        terrain, arena = simulation.terrain, simulation.arena
        simulation.step()
        rocks = simulation.rocks
        tiles = arena.colliders.tiles
        assert rocks and rocks == [rock for key in tiles for rock in terrain.tile_rocks(key)]
        per_tile = config.world.rocks.count * (256.0 / config.world.terrain.desert.size_m) ** 2
        assert 0.4 * per_tile * len(tiles) < len(rocks) < 2.0 * per_tile * len(tiles)
        for rock in rocks:
            assert terrain.surface_name_at(*rock.position_ws[:2]) == "rock"
            assert np.linalg.norm(rock.position_ws[:2]) > config.world.rocks.spawn_clearance_m
        anchors = simulation.tanks  # anchors may stand on them: the fleet knows them all
        assert len(anchors.obstacles.static_radii) == len(rocks)
        again = build_terrain(MapChoice.parse(BIG), config.world.terrain, 1)
        try:
            again.scatter_rocks(terrain._contents.rocks)
            key = tiles[0]
            assert [rock.position_ws.tolist() for rock in again.tile_rocks(key)] == \
                [rock.position_ws.tolist() for rock in terrain.tile_rocks(key)]
        finally:
            again.destroy()
    finally:
        simulation.destroy()


@pytest.mark.slow
def test_an_arc_makes_only_the_tiles_it_passes_and_a_view_makes_none(config):
    shots = [((30.0, -20.0), (900.0, 700.0, 8.0)), ((-10.0, 40.0), (-1100.0, 300.0, 4.0)),
             ((0.0, 0.0), (0.0, -1150.0, 1.5))]
    whole = build_terrain(MapChoice.parse(BIG), config.world.terrain, 1)  # made once: has
    whole.prepare_box(-2048.0, -2048.0, 2048.0, 2048.0)  # every tile, the same for each shot
    for (x_m, y_m), velocity in shots:
        lazy = build_terrain(MapChoice.parse(BIG), config.world.terrain, 1)
        view = build_terrain(MapChoice.parse(BIG), config.world.terrain, 1)
        try:
            muzzle = np.array([x_m, y_m, float(lazy.height_at(x_m, y_m)) + 2.5])
            expected = arc_meets_terrain(whole, muzzle, velocity, FLIGHT, 8.0)
            assert expected[1] is not None
            when_s, where = arc_meets_terrain(lazy, muzzle, velocity, FLIGHT, 8.0)
            assert when_s == expected[0] and np.array_equal(where, expected[1])
            # Only the tiles under the arc up to where it lands are made.
            path = np.linspace(muzzle[:2], where[:2], 200)
            assert set(lazy.resident_tiles) <= set(lazy.tiles_near(path, 1.0))
            # A view's question makes nothing and lands within the ground's quantisation.
            seen_s, seen = arc_meets_terrain(view, muzzle, velocity, FLIGHT, 8.0,
                                             make_tiles=False)
            assert view.resident_tiles == []
            assert np.linalg.norm(seen - where) < 0.05 and abs(seen_s - when_s) < 1e-4
        finally:
            for terrain in (lazy, view):
                terrain.destroy()
    whole.destroy()


def test_an_arc_over_the_whole_desert_map_lands_on_its_ground(config):
    terrain = build_terrain(MapChoice.parse("desert"), config.world.terrain, 1)
    muzzle = np.array([0.0, 0.0, float(terrain.height_at(0.0, 0.0)) + 2.5])
    when_s, where = arc_meets_terrain(terrain, muzzle, (300.0, 200.0, 3.0), FLIGHT, 8.0)
    assert 0.0 < when_s < 8.0
    assert where[2] == pytest.approx(float(terrain.height_at(*where[:2])), abs=0.01)
    assert arc_meets_terrain(terrain, muzzle, (300.0, 200.0, 3.0), FLIGHT, 8.0,
                             make_tiles=False) == (when_s, pytest.approx(where))


@pytest.mark.slow
def test_the_anchors_make_the_tiles_under_them_before_they_cast(config, big):
    """A tank set down where no tile is made yet: the anchor model has the big desert make
    the tiles its rays may reach before its compiled loop reads them, and every anchor
    stands on the ground there."""
    tank = config.tank
    constants = derive_constants(tank.suspension, tank.grip, tank.hull.mass_kg,
                                 config.world.simulation.gravity_m_s2, tracked=True)
    model = tank.make_model(constants)
    model.resize(1)
    anchors_xy = constants.position_bs[:, :2]
    spots = np.random.default_rng(5).uniform(1000.0, 1900.0, (200, 2)) * (1.0, -1.0)
    rises = [np.ptp(big.field.heights(*(spot + anchors_xy).T)) for spot in spots]
    x_m, y_m = spots[int(np.argmin(rises))]  # a flat spot far from the map's middle
    assert big.tiles_on_demand and big.tables.directory.max() < 0  # no tile made yet
    ground_m = float(big.field.heights(np.array([x_m]), np.array([y_m]))[0])
    height_m = ground_m + tank.suspension.ride_height_m - constants.position_bs[:, 2].mean()
    states = BodyStates(np.array([[x_m, y_m, height_m]]), np.eye(3)[None],
                        np.zeros((1, 3)), np.zeros((1, 3)))
    model.step(states, AnchorCommand.idle(1, model.anchors), config.world.simulation.step_s,
               big)
    assert model.report.on_ground.all()
    heights = model.report.contact_point_ws[0, :, 2]
    assert heights == pytest.approx(ground_m, abs=1.0)


def test_a_box_prepared_again_after_its_tiles_were_trimmed_makes_them_again(config, big):
    """A box's tiles are made once per step however often it is asked for; a step later,
    after the spares were trimmed away, asking again makes them again (and marks them
    used, so the trim keeps them)."""
    spare = config.world.terrain.tiles.spare_tiles
    box = (1500.0, 1500.0, 1510.0, 1510.0)  # one corner tile, far from everything
    big.prepare_box(*box)
    made = big.tiles_made
    [key] = big.resident_tiles
    big.prepare_box(*box)
    assert big.tiles_made == made  # asked again in the same step: nothing to do
    far = [(-1920.0 + 256.0 * (number % 16), -1920.0 + 256.0 * (number // 16))
           for number in range(spare + 2)]  # tiles along the far rows, each its own
    for x_m, y_m in far:  # more spares than are kept, each used later than the corner
        big.trim()
        big.prepare_box(x_m, y_m, x_m, y_m)
    big.trim()
    assert key not in big.resident_tiles  # the least lately used spare went
    big.prepare_box(*box)
    assert key in big.resident_tiles and big.tiles_made == made + len(far) + 1
    big.trim()
    assert key in big.resident_tiles  # used this step: kept


def test_a_look_up_makes_the_tiles_it_reads_and_the_trim_keeps_the_ones_read_lately(big):
    """``planes_at`` makes a tile it reads that is not made yet (the height is the
    ground's, not the missing tile's far depth), and every tile it reads counts as used in
    that step: of the spares, the trim drops the least lately read, and keeps one read
    every step however many others come after it."""
    corner = np.array([[1500.0], [1500.0]])  # one corner tile, far from everything
    ground_m, _ = big.planes_at(corner)
    assert ground_m[0] == pytest.approx(float(big.field.heights(*corner)[0]), abs=0.5)
    [corner_key] = big.resident_tiles
    spare = big.tile_spec.spare_tiles
    far = [(-1920.0 + 256.0 * (number % 16), -1920.0 + 256.0 * (number // 16))
           for number in range(spare + 2)]  # more spares than are kept, one tile each
    first_key = None
    for x_m, y_m in far:
        big.trim()
        big.planes_at(corner)  # read every step: kept
        big.planes_at(np.array([[x_m], [y_m]]))
        first_key = first_key or next(key for key in big.resident_tiles if key != corner_key)
    big.trim()
    assert corner_key in big.resident_tiles
    assert first_key not in big.resident_tiles  # read once, then least lately: dropped
    assert len(big.resident_tiles) == spare


def test_reserving_the_pool_takes_its_memory_and_changes_no_tile(big):
    """The soak reserves a big desert's caches before it watches the memory: every free
    slot of the tile pool is written over (a dropped tile's leavings become zeros, and its
    memory is taken now, not as tiles come), and no tile made changes."""
    spare = big.tile_spec.spare_tiles
    far = np.array([[-1920.0 + 256.0 * (number % 16) for number in range(spare + 4)],
                    [-1920.0 + 256.0 * (number // 16) for number in range(spare + 4)]])
    big.planes_at(far)  # more spares than are kept, in one step: the next trims drop some
    big.trim()
    big.trim()
    made = {key: _digest(big, key) for key in big.resident_tiles}
    free = list(big._free)
    assert any(pool[free].any() for pool in big._pools())  # dropped tiles' leavings
    before_mb = resident_memory_mb()
    big.reserve()
    assert {key: _digest(big, key) for key in big.resident_tiles} == made
    assert not any(pool[free].any() for pool in big._pools())
    if sys.platform.startswith("linux"):  # the free slots' memory is resident now
        free_mb = sum(pool[free].nbytes for pool in big._pools()) / 2 ** 20
        assert resident_memory_mb() - before_mb > 0.5 * free_mb


def test_reserving_a_rocky_big_deserts_caches_works_out_the_rocks_kept(config):
    """The rocks of as many tiles as are kept are worked out at once (the whole 4 km
    desert's), and a tile's rocks stay the same objects (its colliders' owners)."""
    simulation = Simulation(config.world, MapChoice.parse(BIG), seed=2)
    terrain = simulation.terrain
    simulation.step(Controls())
    key = terrain.resident_tiles[0]
    rocks = terrain.tile_rocks(key)
    terrain.reserve()
    assert terrain.tile_rocks(key) is rocks
    kept = terrain._contents.rocks._cached.cache_info()
    assert kept.currsize == kept.maxsize == terrain.tiles_per_side ** 2
    simulation.destroy()
