"""A big desert's streamed terrain view: tiles come and go round the cameras, their number
stays bounded, the nearest draw the collider's own samples, and drawing changes nothing
in the game.

Built under a plain NodePath (no window), as in test_frame_culling.py.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from panda3d.core import Filename, NodePath, PNMImage

from common.spec import SpecError, build_spec
from game.sim.controls import Controls
from game.sim.simulation import Simulation
from game.view.ground.desert_scene import rocks_mesh
from game.view.ground.sand_mesh import BlendMask
from game.view.ground.streamed_rocks import StreamedRocks
from game.view.ground.streamed_terrain_view import StreamedTerrainView
from game.view.ground.terrain_view import TerrainView, terrain_view_for
from physics.model.craters import Crater
from physics.model.terrain import MapChoice, build_terrain

MAP = "desert:4096"
SEED = 4
LIGHT, DARK = (0.92, 0.76, 0.53), (0.78, 0.58, 0.38)
SAND_REDDER_THAN_BLUE = 0.25
"""Lit sand's red less its blue is about 0.3 to 0.45; the haze's (its colour) 0.16."""
FLOATS_PER_VERTEX = 10
"""Position, normal and RGBA colour (game.view.draw.meshes.VERTEX_FORMAT)."""


@pytest.fixture
def terrain(config):
    terrain = build_terrain(MapChoice.parse(MAP), config.game.terrain, SEED)
    yield terrain
    terrain.destroy()


def make_view(terrain, config, **changes) -> StreamedTerrainView:
    spec = config.view.terrain_view
    spec = replace(spec, streamed=replace(spec.streamed, **changes))
    return terrain_view_for(NodePath("render"), terrain, spec, LIGHT, DARK,
                            config.view.sand.blend_mask_tile_m)


def settle(view: StreamedTerrainView, camera_xy, most: int = 400) -> None:
    """Update at one place until every tile is drawn at its level."""
    for _ in range(most):
        view.update(camera_xy)
        if not view.waiting:
            return
    raise AssertionError(f"{view.waiting} tiles still waiting")


def piece_grid(path: NodePath) -> np.ndarray:
    """A drawn piece's grid of vertices (samples, samples, 3) in world space: the first
    rows of its vertex buffer (its skirt's come after)."""
    node = path.node()
    rows = np.frombuffer(memoryview(node.getGeom(0).getVertexData().getArray(0)),
                         dtype=np.float32).reshape(-1, FLOATS_PER_VERTEX)
    samples = next(n for n in range(2, 1025) if n * n + 8 * (n - 1) == len(rows))
    positions = rows[:samples * samples, :3].astype(np.float64).reshape(samples, samples, 3)
    offset = path.getParent().getPos()
    return positions + np.array([offset[0], offset[1], offset[2]])


def test_a_big_desert_gets_the_streamed_view_and_other_maps_the_whole_one(config, terrain):
    view = make_view(terrain, config)
    assert isinstance(view, StreamedTerrainView)
    whole = build_terrain(MapChoice.parse("flat"), config.game.terrain, SEED)
    assert isinstance(terrain_view_for(NodePath("render"), whole, config.view.terrain_view,
                                       LIGHT, DARK, 170.0), TerrainView)


def test_the_near_tiles_draw_the_colliders_own_samples(config, terrain):
    camera_xy = np.array([300.0, -500.0])
    terrain.prepare_box(*(camera_xy - 300.0), *(camera_xy + 300.0))
    view = make_view(terrain, config)
    settle(view, camera_xy)
    under = (int((camera_xy[0] + terrain.half_extent_x_m) // terrain.tile_size_m),
             int((camera_xy[1] + terrain.half_extent_y_m) // terrain.tile_size_m))
    assert view.levels[under] == 0
    exact = 0
    for key in [key for key, level in view.levels.items() if level == 0]:
        heights = terrain.tile_heights(key)
        x_m, y_m = terrain.tile_sample_positions(key)
        for piece in view.tiles[key].path.findAllMatches("level-0-piece-*"):
            i0, j0 = (int(part) for part in piece.getName().split("-")[3:5])
            grid = piece_grid(piece)
            window = (slice(j0, j0 + len(grid)), slice(i0, i0 + len(grid)))
            np.testing.assert_array_equal(grid[..., 2].astype(np.float32),
                                          heights[window].astype(np.float32))
            np.testing.assert_allclose(grid[..., 0], x_m[window], atol=1e-3)
            np.testing.assert_allclose(grid[..., 1], y_m[window], atol=1e-3)
            exact += 1
    assert exact >= 4  # the pieces round the camera


def test_pieces_of_a_near_tile_are_finer_nearer_the_camera(config, terrain):
    camera_xy = np.array([300.0, -500.0])
    terrain.prepare_box(*(camera_xy - 300.0), *(camera_xy + 300.0))
    view = make_view(terrain, config)
    settle(view, camera_xy)
    spec = config.view.terrain_view.streamed
    piece_m = spec.piece_cells * terrain.spacing_m
    pieced = [key for key, shown in view.tiles.items() if len(shown.levels) > 1]
    assert pieced
    for key in pieced:
        centre = np.array(terrain.tile_centre(key))
        for index, level in enumerate(view.tiles[key].levels):
            row, column = divmod(index, terrain.tile_cells // spec.piece_cells)
            piece_centre = (centre - terrain.tile_size_m / 2
                            + (np.array([column, row]) + 0.5) * piece_m)
            gap = np.maximum(np.abs(piece_centre - camera_xy) - piece_m / 2, 0.0)
            expected = int(np.searchsorted(spec.level_distances_m, np.hypot(*gap),
                                           side="right"))
            assert level == expected, (key, index)


def test_farther_tiles_are_coarser_and_none_lies_beyond_the_draw_distance(config, terrain):
    view = make_view(terrain, config)
    camera_xy = np.array([0.0, 100.0])
    settle(view, camera_xy)
    spec = config.view.terrain_view.streamed
    by_distance = []
    for key, level in view.levels.items():
        centre = np.array(terrain.tile_centre(key))
        gap = np.maximum(np.abs(centre - camera_xy) - terrain.tile_size_m / 2, 0.0)
        distance_m = float(np.hypot(*gap))
        assert distance_m <= spec.draw_distance_m
        expected = int(np.searchsorted(spec.level_distances_m, distance_m, side="right"))
        assert level == max(expected, 1 if key not in terrain.resident_tiles else 0)
        by_distance.append((distance_m, level))
    levels = [level for _, level in sorted(by_distance)]
    assert levels == sorted(levels)
    assert len(set(levels)) == len(spec.level_distances_m)  # level 0 needs made tiles


def test_far_tiles_never_make_physics_tiles(config, terrain):
    view = make_view(terrain, config)
    settle(view, np.array([-900.0, 700.0]))
    assert len(view.tiles) > 50
    assert terrain.resident_tiles == []


def test_tiles_come_and_go_as_the_camera_moves_and_stay_bounded(config, terrain):
    spec = config.view.terrain_view.streamed
    view = make_view(terrain, config)
    start, end = np.array([-1700.0, -1700.0]), np.array([1700.0, 1700.0])
    view.update(start)
    first = set(view.tiles)
    reach_m = spec.draw_distance_m + spec.switch_margin_m
    most = len(terrain.tiles_near(np.zeros((1, 2)), reach_m))
    for fraction in np.linspace(0.0, 1.0, 120):
        builds = view.builds
        camera_xy = start + fraction * (end - start)
        view.update(camera_xy)
        assert view.builds - builds <= spec.builds_per_frame + 4  # + the tiles under it
        assert len(view.tiles) <= most
        assert set(view.tiles) <= set(terrain.tiles_near(camera_xy[None], reach_m))
        assert view.root.getNumChildren() == len(view.tiles) + 1  # and the apron
    settle(view, end)
    shown = set(view.tiles)
    assert set(terrain.tiles_near(end[None], spec.draw_distance_m)) <= shown
    assert shown <= set(terrain.tiles_near(end[None], reach_m))  # kept within the margin
    assert not first & set(view.tiles)


def test_a_camera_idling_at_a_level_boundary_builds_nothing_more(config, terrain):
    spec = config.view.terrain_view.streamed
    view = make_view(terrain, config)
    # The camera sways either side of where a tile's level changes, within the margin.
    x_m = -terrain.half_extent_x_m + 3 * terrain.tile_size_m + spec.level_distances_m[1]
    settle(view, np.array([x_m, 10.0]))
    builds = view.builds
    for sway in np.tile([-0.4, 0.4], 20) * spec.switch_margin_m:
        view.update(np.array([x_m + sway, 10.0]))
    assert view.builds == builds


def test_a_jump_builds_the_ground_under_the_camera_at_once(config, terrain):
    view = make_view(terrain, config)
    settle(view, np.array([-1500.0, -1500.0]))
    landing = np.array([1500.0, 1500.0])
    view.update(landing)
    under = terrain.tiles_near(landing[None], config.view.terrain_view.streamed
                               .immediate_radius_m)
    assert all(key in view.tiles for key in under)


def test_split_screen_cameras_each_get_their_ground(config, terrain):
    view = make_view(terrain, config)
    cameras = np.array([[-1700.0, -1700.0], [1700.0, 1700.0]])
    settle(view, cameras)
    for camera_xy in cameras:
        assert all(key in view.tiles for key in terrain.tiles_near(camera_xy[None], 500.0))


def test_the_apron_is_drawn_only_near_the_maps_edge(config, terrain):
    view = make_view(terrain, config)
    blocks = len(view.apron.getChildren()) + len(view.apron.getStashedChildren())
    assert blocks > 4
    view.update(np.zeros(2))  # 2 km from every edge: beyond the draw distance
    assert len(view.apron.getChildren()) == 0
    view.update(np.array([terrain.half_extent_x_m - 50.0, 0.0]))
    assert 0 < len(view.apron.getChildren()) < blocks
    assert len(view.apron.getChildren()) + len(view.apron.getStashedChildren()) == blocks


def test_the_blend_mask_on_a_coarse_grid_stays_close_to_the_exact_one():
    mask = BlendMask(1024.0, 170.0)
    x_m, y_m = np.meshgrid(np.arange(129) * 2.0 - 300.0, np.arange(129) * 2.0 + 40.0)
    blended = mask.on_grid(x_m, y_m, 4)
    exact = mask(x_m, y_m)
    np.testing.assert_array_equal(blended[::4, ::4], exact[::4, ::4])
    assert np.abs(blended - exact).max() < 0.05  # of 0..1: a shade of the detail


def test_drawing_the_big_desert_changes_nothing_in_the_game(config):
    def run(draw: bool) -> np.ndarray:
        simulation = Simulation(config.world, MapChoice.parse(MAP), seed=SEED)
        view = make_view(simulation.terrain, config) if draw else None
        try:
            for _ in range(90):
                simulation.step(Controls(throttle=1.0, steer=0.3))
                if view is not None:
                    view.update(simulation.player.current.position_ws[:2])
            return np.array(simulation.player.current.position_ws)
        finally:
            if view is not None:
                view.destroy()
            simulation.destroy()
    np.testing.assert_array_equal(run(True), run(False))


@pytest.mark.slow
def test_the_windowed_game_draws_a_big_desert_for_two_players(run_forked, tmp_path, config):
    """The whole game offscreen on a big desert, split screen (two cameras): it runs, and
    the bottom of each half is lit sand, not the sky showing through."""
    png = tmp_path / "big.png"
    result = run_forked("--offscreen", "--map", "desert:1024", "--players", "2", "--seconds",
                        "1", "--seed", str(SEED), "--screenshot", png)
    assert result.returncode == 0, result.stderr[-2000:]
    image = PNMImage()
    assert image.read(Filename.fromOsSpecific(str(png)))
    width, height = image.getXSize(), image.getYSize()
    half = width // 2
    for left in (0, half):  # near each half's bottom right corner: clear of the HUD and tank
        pixels = np.array([image.getXel(x, y)
                           for x in range(left + int(half * 0.6), left + int(half * 0.95), 8)
                           for y in range(int(height * 0.85), int(height * 0.95), 8)])
        # Sunlit sand is far redder than blue; the haze and the sky behind it are not.
        assert np.median(pixels[:, 0] - pixels[:, 2]) > SAND_REDDER_THAN_BLUE, (
            left, pixels.mean(axis=0))


def test_the_streamed_spec_checks_its_levels(config):
    shipped = config.view.terrain_view.streamed
    table = {name: list(value) if isinstance(value, tuple) else value
             for name, value in vars(shipped).items()}
    table.update(level_distances_m=[100.0, 90.0], skirt_depths_m=[1.0, 2.0, 3.0],
                 pieced_below_level=1)
    cls = type(shipped)
    with pytest.raises(SpecError, match="level_distances_m"):
        build_spec(cls, table)
    with pytest.raises(SpecError, match="skirt_depths_m"):
        build_spec(cls, {**table, "level_distances_m": [90.0, 100.0],
                         "skirt_depths_m": [1.0, 2.0]})
    with pytest.raises(SpecError, match="pieced_below_level"):
        build_spec(cls, {**table, "level_distances_m": [90.0, 100.0], "pieced_below_level": 3})


def test_a_crater_is_drawn_at_once_where_the_anchors_feel_it(config, terrain):
    """A crater dug near the camera: the next update draws the finest pieces under it
    again, their heights the dug ones (the 200-point check the colliders get)."""
    camera_xy = np.array([300.0, -500.0])
    terrain.prepare_box(*(camera_xy - 300.0), *(camera_xy + 300.0))
    view = make_view(terrain, config)
    settle(view, camera_xy)
    crater = Crater(camera_xy[0] + 10.0, camera_xy[1] + 5.0, 3.0, 1.0)
    before = float(terrain.height_at(crater.x_m, crater.y_m))
    terrain.dig(crater)
    view.update(camera_xy)
    under = (int((crater.x_m + terrain.half_extent_x_m) // terrain.tile_size_m),
             int((crater.y_m + terrain.half_extent_y_m) // terrain.tile_size_m))
    heights = terrain.tile_heights(under)
    assert float(terrain.height_at(crater.x_m, crater.y_m)) < before - 0.5
    checked = 0
    for piece in view.tiles[under].path.findAllMatches("level-0-piece-*"):
        i0, j0 = (int(part) for part in piece.getName().split("-")[3:5])
        grid = piece_grid(piece)
        window = (slice(j0, j0 + len(grid)), slice(i0, i0 + len(grid)))
        np.testing.assert_array_equal(grid[..., 2].astype(np.float32),
                                      heights[window].astype(np.float32))
        checked += grid.shape[0] * grid.shape[1]
    assert checked >= 200


def test_a_crater_on_the_whole_map_is_drawn_from_the_dug_heights(config):
    whole = build_terrain(MapChoice.parse("desert"), config.game.terrain, SEED)
    view = terrain_view_for(NodePath("render"), whole, config.view.terrain_view, LIGHT, DARK,
                            170.0)
    crater = Crater(20.0, -12.0, 3.0, 1.0)
    whole.dig(crater)
    view.update(np.zeros(2))
    cells = config.view.terrain_view.tile_cells
    i = int((crater.x_m + whole.half_extent_x_m) / whole.spacing_m)
    j = int((crater.y_m + whole.half_extent_y_m) / whole.spacing_m)
    key = (i - i % cells, j - j % cells)
    node = view.tiles[key].find("level-0").node()
    rows = np.frombuffer(memoryview(node.getGeom(0).getVertexData().getArray(0)),
                         dtype=np.float32).reshape(-1, FLOATS_PER_VERTEX)
    samples = cells + 1
    grid = rows[:samples * samples, 2].reshape(samples, samples)
    np.testing.assert_array_equal(
        grid, whole.heights_m[key[1]:key[1] + samples, key[0]:key[0] + samples].astype(
            np.float32))
    assert grid.min() < float(whole.heights_m.max())


def _rock_vertices(rocks: StreamedRocks) -> np.ndarray:
    """Every drawn rock vertex, in world space (the meshes are built in it)."""
    blocks = []
    for path in rocks.tiles.values():
        if path is not None:
            data = path.node().getGeom(0).getVertexData().getArray(0)
            blocks.append(np.frombuffer(memoryview(data), dtype=np.float32)
                          .reshape(-1, FLOATS_PER_VERTEX)[:, :3])
    return np.concatenate(blocks) if blocks else np.zeros((0, 3))


def test_a_big_deserts_rocks_are_drawn_tile_by_tile_near_the_cameras(config):
    simulation = Simulation(config.world, MapChoice.parse(MAP), seed=SEED)
    spec = config.view.terrain_view.streamed
    rocks = StreamedRocks(NodePath("render"), simulation.terrain, spec,
                          lambda tile_rocks: rocks_mesh(tile_rocks, config.view.scene))
    try:
        terrain = simulation.terrain
        made = terrain.tiles_made
        start = np.array([100.0, -200.0])
        rocks.update(start)  # the first frame draws every near tile's rocks
        near = terrain.tiles_near(start[None], spec.rocks_draw_distance_m)
        assert sorted(rocks.tiles) == near
        standing = [rock for key in near for rock in terrain.tile_rocks(key)]
        assert len(standing) > 20
        vertices = _rock_vertices(rocks)
        # Each rock is its triangles' corners, drawn where the colliders stand.
        assert len(vertices) == sum(3 * len(rock.triangles) for rock in standing)
        centres = np.array([rock.position_ws for rock in standing])
        reach = max(rock.radius_m for rock in standing) * 1.5
        gaps = np.linalg.norm(vertices[::97, None, :] - centres[None, :, :], axis=2)
        assert gaps.min(axis=1).max() < reach

        end = start + np.array([1500.0, 0.0])  # then nearest first, a few a frame
        rocks.update(end)
        assert 0 < len(rocks.tiles) <= spec.builds_per_frame
        for _ in range(60):
            rocks.update(end)
        reach_m = spec.rocks_draw_distance_m + spec.switch_margin_m
        assert set(terrain.tiles_near(end[None], spec.rocks_draw_distance_m)) <= set(rocks.tiles)
        assert set(rocks.tiles) <= set(terrain.tiles_near(end[None], reach_m))
        assert rocks.root.getNumChildren() == sum(path is not None
                                                  for path in rocks.tiles.values())
        assert terrain.tiles_made == made  # drawing never makes a physics tile
    finally:
        rocks.destroy()
        simulation.destroy()


def test_a_crater_across_a_tile_border_shades_the_same_on_both_sides(config, terrain):
    """The border samples' normals read a sample beyond the border: the dug one, so the
    two tiles' meshes meet without a crease."""
    camera_xy = np.array([0.0, -10.0])  # the map's centre is a corner of four tiles
    terrain.prepare_box(-300.0, -300.0, 300.0, 300.0)
    view = make_view(terrain, config)
    settle(view, camera_xy)
    terrain.dig(Crater(1.0, 15.0, 3.0, 1.0))  # across the border at x = 0
    view.update(camera_xy)
    border = {}
    for key in ((7, 8), (8, 8)):
        for piece in view.tiles[key].path.findAllMatches("level-0-piece-*"):
            node = piece.node()
            rows = np.frombuffer(memoryview(node.getGeom(0).getVertexData().getArray(0)),
                                 dtype=np.float32).reshape(-1, FLOATS_PER_VERTEX)
            rows = rows[:len(piece_grid(piece).reshape(-1, 3))]  # the grid, not the skirt
            world_x = rows[:, 0] + piece.getParent().getPos()[0]
            world_y = rows[:, 1] + piece.getParent().getPos()[1]
            near = (np.abs(world_x) < 1e-3) & (np.abs(world_y - 15.0) < 6.0)
            for y_m, z_m, normal in zip(world_y[near], rows[near, 2], rows[near, 3:6]):
                border.setdefault(round(float(y_m), 3), []).append((float(z_m), normal))
    assert len(border) >= 5
    dug = [samples for samples in border.values() if len(samples) == 2]
    assert len(dug) >= 5
    for (first_z, first_normal), (second_z, second_normal) in dug:
        assert first_z == second_z
        np.testing.assert_allclose(first_normal, second_normal, atol=1e-3)  # levels
