"""Enemy markers: over each enemy the player's vehicle has spotted (the bots' own rules), a
chevron and the distance; at the view's edge with an arrow when the enemy is off the view;
grey for a wreck. Checked with a camera in a bare scene graph (no window) and a HUD under
a bare NodePath, on stand-in vehicles and terrain, a real battle and a network client."""

from __future__ import annotations

import math
from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest
from panda3d.core import Camera, NodePath, PerspectiveLens

from game.sim.events import Shot
from game.sim.spotting import hull_middle_ws
from game.view.draw.view_projection import ViewProjection, place_on_overlay
from game.view.hud.hud import Hud
from game.view.hud.hud_state import HudState, Marker
from game.view.hud.markers import EnemyMarkers, clear_of_panels
from game.view.player_view import RegionOverlay
from physics.model.pose import BodyState

ASPECT = 16.0 / 9.0
STEP_S = 1.0 / 60.0


class Ridge:
    """Flat ground at 0 m with a 12 m high ridge across y = 100 m (20 m wide)."""

    @staticmethod
    def height_at(x_m, y_m):
        return np.where(np.abs(np.asarray(y_m) - 100.0) < 10.0, 12.0, 0.0)


def tank(name: str, x_m: float, y_m: float, fired: bool = True, armed: bool = True):
    """A stand-in vehicle (``fired=False``: one that, like a network client's remote
    vehicles, carries no time of its last shot; ``armed=False``: it sees from its hull's
    middle)."""
    state = BodyState(np.array([x_m, y_m, 1.0]), np.array([1.0, 0.0, 0.0, 0.0]),
                      np.zeros(3), np.zeros(3), np.eye(3))
    vehicle = SimpleNamespace(name=name, current=state, destroyed=False,
                              aim=SimpleNamespace() if armed else None,
                              spec=SimpleNamespace(hull=SimpleNamespace(
                                  centre_of_mass_drop_m=0.3)))
    if fired:
        vehicle.fired_at_s = -math.inf
    return vehicle


class World:
    """A stand-in simulation: the player at the origin facing +y, and ``others``."""

    def __init__(self, *others, terrain=Ridge):
        self.player = tank("player", 0.0, 0.0, armed=False)
        self.vehicles = [self.player, *others]
        self.terrain = terrain
        self.time_s = 0.0


def camera_behind(origin=(0.0, 0.0, 1.0), toward=(0.0, 1.0)) -> ViewProjection:
    """A chase camera 12 m behind and 5 m over ``origin``, looking along ``toward``."""
    root = NodePath("render")
    lens = PerspectiveLens()
    lens.setAspectRatio(ASPECT)
    lens.setMinFov(60.0)
    camera = root.attachNewNode(Camera("camera", lens))
    ox, oy, oz = origin
    tx, ty = toward
    camera.setPos(ox - 12.0 * tx, oy - 12.0 * ty, oz + 5.0)
    camera.lookAt(ox + 50.0 * tx, oy + 50.0 * ty, oz)
    return ViewProjection(camera, lens, ASPECT)


@pytest.fixture
def hud(config):
    root = NodePath("aspect2d")
    made = Hud({"center": root}, config.view.hud)
    yield made
    made.destroy()


def run(markers: EnemyMarkers, world: World, seconds: float, battle=None,
        projection=None) -> list:
    """Frames for ``seconds`` of the world's time; the markers of the last one."""
    projection = projection or camera_behind()
    battle = battle or SimpleNamespace(bots={vehicle.name: None for vehicle in world.vehicles
                                             if vehicle is not world.player})
    drawn = []
    for _ in range(max(1, round(seconds / STEP_S))):
        drawn = markers.update(world, battle, world.player, projection)
        world.time_s += STEP_S
    return drawn


def draw(hud: Hud, drawn: list) -> list[dict]:
    hud.update(HudState(markers=drawn), STEP_S)
    return hud.markers.drawn()


def test_a_spotted_enemy_in_front_is_marked_over_it_with_its_distance(config, hud):
    world = World(tank("bot-1", 10.0, 80.0))
    markers = EnemyMarkers(config.view.hud.markers, config.game.ai.spotting)
    [marker] = run(markers, world, 0.1)
    assert marker.on_screen and not marker.wreck
    distance = math.dist(hull_middle_ws(world.player).tolist(),
                         hull_middle_ws(world.vehicles[1]).tolist())
    assert marker.distance_m == pytest.approx(distance)
    [shown] = draw(hud, [marker])
    assert shown["text"] == "80 m"
    assert shown["chevron"] and not shown["arrow"]
    assert shown["colour"] == pytest.approx(config.view.hud.markers.enemy_colour, abs=1e-3)
    # Over the enemy: a little right of the middle (it is 10 m to the right), above the
    # point the enemy's hull is drawn at.
    assert 0.0 < shown["x"] < 0.5
    hull = camera_behind().place(hull_middle_ws(world.vehicles[1]), 0.0)
    assert shown["y"] > hull.y


def test_an_enemy_behind_a_ridge_is_not_marked_and_one_that_ducks_behind_it_fades(config,
                                                                                   hud):
    spec = config.view.hud.markers
    hidden = tank("bot-1", 0.0, 200.0)
    world = World(hidden)
    markers = EnemyMarkers(spec, config.game.ai.spotting)
    assert run(markers, world, 1.0) == []
    assert draw(hud, []) == []
    # In sight short of the ridge, then behind it: marked a while longer, then not.
    hidden.current = replace(hidden.current, position_ws=np.array([0.0, 60.0, 1.0]))
    assert [m.name for m in run(markers, world, 0.5)] == ["bot-1"]
    hidden.current = replace(hidden.current, position_ws=np.array([0.0, 200.0, 1.0]))
    assert [m.name for m in run(markers, world, spec.memory_s * 0.5)] == ["bot-1"]
    assert run(markers, world, spec.memory_s * 0.5 + 2.0 * spec.recheck_s) == []


def test_an_enemy_off_the_view_is_marked_at_its_edge_with_an_arrow(config, hud):
    spec = config.view.hud.markers
    right, behind = tank("bot-1", 150.0, 0.0), tank("bot-2", -20.0, -150.0)
    world = World(right, behind, terrain=SimpleNamespace(
        height_at=lambda x, y: np.zeros_like(np.asarray(x, dtype=float))))
    markers = EnemyMarkers(spec, config.game.ai.spotting)
    drawn = {marker.name: marker for marker in run(markers, world, 0.1)}
    assert set(drawn) == {"bot-1", "bot-2"} and markers.spotter.checks >= 2
    shown = draw(hud, [drawn["bot-1"], drawn["bot-2"]])
    for marker in shown:
        assert marker["arrow"] and not marker["chevron"]
        assert marker["text"].endswith(" m")
    to_right, to_back = shown
    # Off to the right: on the right edge, a margin in, the arrow pointing right.
    assert to_right["x"] == pytest.approx(ASPECT - spec.edge_margin)
    assert abs(to_right["y"]) < 1.0 - spec.edge_margin
    assert math.cos(to_right["arrow_tip_towards"]) > 0.9
    # Behind, a little to the left: on the bottom edge, left of the middle, pointing down.
    assert to_back["y"] == pytest.approx(-(1.0 - spec.edge_margin))
    assert to_back["x"] < 0.0
    assert math.sin(to_back["arrow_tip_towards"]) < -0.7


def test_edge_placement_follows_the_direction_and_stays_inside_the_margin():
    tangents = (math.tan(math.radians(40.0)), math.tan(math.radians(25.0)))
    inside = place_on_overlay((1.0, 10.0, 0.5), tangents, ASPECT, 0.1)
    assert inside.on_screen and 0.0 < inside.x < ASPECT and 0.0 < inside.y < 1.0
    above = place_on_overlay((0.0, 10.0, 50.0), tangents, ASPECT, 0.1)
    assert not above.on_screen and above.y == pytest.approx(0.9) and above.x == 0.0
    assert above.toward_rad == pytest.approx(math.pi / 2)
    behind_left = place_on_overlay((-30.0, -30.0, 0.0), tangents, ASPECT, 0.1)
    assert behind_left.x < 0.0 and behind_left.y < 0.0
    assert max(abs(behind_left.x) - (ASPECT - 0.1), abs(behind_left.y) - 0.9) \
        == pytest.approx(0.0, abs=1e-9)


def _off_view(x: float, y: float, name: str = "bot-1") -> Marker:
    return Marker(name, x, y, False, 0.0, 245.0, False)


def test_an_edge_marker_moves_along_the_edge_off_the_panels():
    dashboard, damage_panel = (-1.7, -0.95, -1.2, -0.2), (-1.7, -0.15, -1.45, 0.3)
    panels, reach = [dashboard, damage_panel], 0.1
    # On the left edge over the dashboard: up past it and the damage panel stacked on it.
    [moved] = clear_of_panels([_off_view(-1.6, -0.5)], panels, reach, 1.6, 0.9)
    assert (moved.x, moved.y) == (-1.6, pytest.approx(0.3 + reach))
    # On the bottom edge over the dashboard's right end: across to the right of it.
    [moved] = clear_of_panels([_off_view(-1.3, -0.9)], panels, reach, 1.6, 0.9)
    assert (moved.x, moved.y) == (pytest.approx(-1.2 + reach), -0.9)
    # Toward the nearer end of the panel, or the other way where that leaves the edge.
    [near_top] = clear_of_panels([_off_view(-1.6, 0.7)], [(-1.7, -0.2, -1.2, 0.8)], reach,
                                 1.6, 0.9)
    [no_room_up] = clear_of_panels([_off_view(-1.6, 0.75)], [(-1.7, -0.2, -1.2, 0.85)],
                                   reach, 1.6, 0.9)
    assert near_top.y == pytest.approx(0.9) and no_room_up.y == pytest.approx(-0.3)
    # No room either way, or over an enemy in view: where it was.
    kept = [_off_view(-1.6, 0.0), replace(_off_view(-1.5, -0.5, "bot-2"), on_screen=True)]
    assert clear_of_panels(kept, [(-1.7, -1.0, -1.2, 0.85)], reach, 1.6, 0.9) == kept
    # Clear of every panel already: where it was.
    clear = [_off_view(-1.6, 0.5)]
    assert clear_of_panels(clear, panels, reach, 1.6, 0.9) == clear


def test_the_hud_draws_edge_markers_clear_of_its_dashboard_and_minimap(config):
    root = NodePath("aspect2d")
    root.setScale(1.0 / ASPECT, 1.0, 1.0)  # as a view's aspect2d
    corners = {"center": root}
    for name, (across, up) in RegionOverlay.CORNERS.items():
        corners[name] = root.attachNewNode(name)
        corners[name].setPos(across * ASPECT, 0.0, up)
    hud = Hud(corners, config.view.hud)
    edge_x, edge_y = ASPECT - config.view.hud.markers.edge_margin, 0.5
    try:
        # Left, low: on the dashboard; right, high: on the minimap.
        shown = draw(hud, [_off_view(-edge_x, -edge_y), _off_view(edge_x, edge_y, "bot-2")])
        for panel in (hud.dashboard.full_panel, hud.minimap.root):
            low, high = panel.getTightBounds(root)
            assert not any(low[0] <= marker["x"] <= high[0] and low[2] <= marker["y"] <= high[2]
                           for marker in shown)
        left, right = shown
        assert left["x"] == pytest.approx(-edge_x) and left["y"] > -edge_y
        assert right["x"] == pytest.approx(edge_x) and right["y"] < edge_y
    finally:
        hud.destroy()


def test_a_seen_wreck_is_marked_grey_until_it_is_whole_again(config, hud):
    spec = config.view.hud.markers
    enemy = tank("bot-1", 0.0, 60.0)
    world = World(enemy)
    markers = EnemyMarkers(spec, config.game.ai.spotting)
    run(markers, world, 0.2)
    enemy.destroyed = True
    enemy.current = replace(enemy.current, position_ws=np.array([0.0, 200.0, 1.0]))
    [wreck] = run(markers, world, spec.memory_s + 1.0)  # behind the ridge now: still marked
    assert wreck.wreck
    [shown] = draw(hud, [wreck])
    assert shown["colour"] == pytest.approx(spec.wreck_colour, abs=1e-3)
    enemy.destroyed = False  # a new round: whole, behind the ridge, not seen again
    assert run(markers, world, 0.5) == []


def test_sight_lines_are_cast_a_few_times_a_second_not_every_frame(config):
    spec = config.view.hud.markers
    world = World(*(tank(f"bot-{n}", 20.0 * n, 60.0) for n in range(1, 5)))
    markers = EnemyMarkers(spec, config.game.ai.spotting)
    seconds = 2.0
    run(markers, world, seconds)
    enemies = len(world.vehicles) - 1
    assert enemies * (seconds / spec.recheck_s - 1) <= markers.spotter.checks \
        <= enemies * (seconds / spec.recheck_s + 1)


def test_only_the_other_side_is_marked(config):
    world = World(tank("bot-1", 10.0, 60.0), tank("friend", -10.0, 60.0))
    markers = EnemyMarkers(config.view.hud.markers, config.game.ai.spotting)
    assert [m.name for m in run(markers, world, 0.1, SimpleNamespace(
        bots={"bot-1": None}))] == ["bot-1"]
    everyone = SimpleNamespace(bots={}, free_for_all=True)
    assert sorted(m.name for m in run(markers, world, 0.1, everyone)) == ["bot-1", "friend"]


def test_a_shot_gives_away_a_vehicle_that_carries_no_shot_time(config):
    """A network client's vehicles carry no ``fired_at_s``: the shot events stand in."""
    spotting = config.game.ai.spotting
    far = spotting.sight_range_m + (spotting.firing_range_m - spotting.sight_range_m) / 2
    world = World(tank("beta", 0.0, far, fired=False),
                  terrain=SimpleNamespace(height_at=lambda x, y: np.zeros_like(
                      np.asarray(x, dtype=float))))
    markers = EnemyMarkers(config.view.hud.markers, spotting)
    assert run(markers, world, 0.5) == []
    markers.on_events([Shot("beta")])
    assert [m.name for m in run(markers, world, 0.5)] == ["beta"]
    assert run(markers, world, spotting.firing_seen_s + config.view.hud.markers.memory_s
               + 1.0) == []


def test_a_battle_marks_the_bots_the_players_gun_sees(config):
    from game.sim.battle import Battle
    from game.sim.simulation import Simulation
    from physics.model.terrain import MapChoice
    simulation = Simulation(config.world, MapChoice.parse("flat"), 3)
    try:
        battle = Battle(simulation, config.game.battle, config.game.ai, 2)
        player = simulation.player
        bots = [simulation.vehicle_named(name) for name in battle.bots]
        forward = player.current.axes_ws()[1]
        projection = camera_behind(tuple(player.current.position_ws), tuple(forward[:2]))
        markers = EnemyMarkers(config.view.hud.markers, config.game.ai.spotting)
        drawn = {m.name: m for m in markers.update(simulation, battle, player, projection)}
        assert set(drawn) == {bot.name for bot in bots}
        for bot in bots:
            assert drawn[bot.name].distance_m == pytest.approx(math.dist(
                hull_middle_ws(player).tolist(), hull_middle_ws(bot).tolist()))
        assert any(marker.on_screen for marker in drawn.values())  # the player faces them
    finally:
        simulation.destroy()


def test_a_network_client_marks_the_servers_bot(config):
    """Online, the markers read the client's world (our vehicle as predicted, the others
    interpolated from snapshots): the bot the server runs is marked at its distance."""
    from game.sim.net.link import enet_available
    if not enet_available():
        pytest.skip("pyenet is not installed")
    from game.sim.controls import Controls
    from game.sim.net.shown import ClientLoop, ClientSession
    from tests.net_harness import NetHarness
    net = NetHarness(config, bots=1)
    try:
        alpha = net.join("alpha")
        server = net.server.simulation
        server.place(net.server_vehicle("alpha"), 0.0, 0.0, 0.0)
        server.place(server.vehicle_named("bot-1"), 30.0, 150.0, 180.0)
        session = ClientSession(alpha)
        loop = ClientLoop(session, lambda _world: Controls(handbrake=True))
        del net.clients["alpha"]  # the window's loop steps alpha from here on
        for _ in range(60):
            net.step()
            loop.advance(STEP_S)
        world, player = session.simulation, session.simulation.player
        bot = world.vehicle_named("bot-1")
        markers = EnemyMarkers(config.view.hud.markers, config.game.ai.spotting)
        projection = camera_behind(tuple(player.current.position_ws), (0.0, 1.0))
        [marker] = markers.update(world, session.battle, player, projection)
        assert marker.name == "bot-1" and marker.on_screen
        assert marker.distance_m == pytest.approx(math.dist(
            hull_middle_ws(player).tolist(), hull_middle_ws(bot).tolist()))
        session.destroy()
    finally:
        net.close()


def test_a_wreck_between_hides_an_enemy_from_the_markers_as_from_the_bots(config):
    from game.sim.battle import Battle
    from game.sim.simulation import Simulation
    from physics.model.terrain import MapChoice
    simulation = Simulation(config.world, MapChoice.parse("flat"), 3)
    try:
        battle = Battle(simulation, config.game.battle, config.game.ai, 1)
        player, bot = simulation.player, simulation.vehicle_named("bot-1")
        here, there = player.current.position_ws, bot.current.position_ws
        middle = (here + there) / 2.0
        heading = math.degrees(math.atan2(*(there - here)[:2]))
        wreck = simulation.spawn("tank", "wreck", float(middle[0]), float(middle[1]),
                                 heading + 90.0)
        wreck.health, wreck.destroyed = 0.0, True
        for _ in range(30):  # everybody settled on the ground
            simulation.step()
        projection = camera_behind(tuple(here), tuple((there - here)[:2]))
        markers = EnemyMarkers(config.view.hud.markers, config.game.ai.spotting)
        assert [m.name for m in markers.update(simulation, battle, player, projection)] == []
        simulation.remove(wreck)
        markers = EnemyMarkers(config.view.hud.markers, config.game.ai.spotting)
        assert [m.name for m in markers.update(simulation, battle, player,
                                               projection)] == ["bot-1"]
    finally:
        simulation.destroy()
