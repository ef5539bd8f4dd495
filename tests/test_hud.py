"""The HUD follows the simulation: speed, gear and the lever in the gate, rpm, health, reload,
the minimap and messages, the hit marker, damage wedges and kill feed, compact mode and a
smaller HUD in a narrow view; built under a bare NodePath (no window)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from panda3d.core import GeomVertexReader, NodePath

from game.sim.battle import Battle
from game.sim.controls import Controls
from game.sim.events import Damage, Destroyed, Hit, RoundEnd, ShiftRefused, Shot
from game.sim.simulation import Simulation
from game.view.hud.hud import Hud
from game.view.hud.hud_state import lever_path_point, read_hud_state
from game.view.hud.minimap import EDGE_SHARE
from physics.model.gearbox import gate_layout
from physics.model.terrain import MapChoice


@pytest.fixture
def game(config):
    simulation = Simulation(config.world, MapChoice.parse("flat"), 3)
    battle = Battle(simulation, config.game.battle, config.game.ai, 2)
    for _ in range(60):  # settled on its springs, the start gear engaged
        step(simulation, Controls())
    root = NodePath("aspect2d")
    corners = {"center": root, "bottom_left": root.attachNewNode("bl"),
               "top_right": root.attachNewNode("tr"), "top_center": root.attachNewNode("tc")}
    hud = Hud(corners, config.view.hud)
    yield simulation, battle, hud
    hud.destroy()
    simulation.destroy()


def step(simulation, controls: Controls) -> list[dict]:
    """One step with the bots held still (they would shoot the player)."""
    idle = {vehicle.name: Controls(handbrake=True) for vehicle in simulation.vehicles
            if vehicle is not simulation.player}
    return simulation.step(controls, idle)


def _text(path) -> str:
    return path.node().getText()


def _show(simulation, battle, hud) -> None:
    hud.update(read_hud_state(simulation, battle), 1.0 / 60.0)


def test_hud_values_follow_the_simulation(game, config):
    simulation, battle, hud = game
    player = simulation.player
    _show(simulation, battle, hud)
    assert _text(hud.dashboard.speed_text).split()[0] == "0"
    assert "gear 1" in _text(hud.dashboard.gear_text)
    assert _text(hud.score_text) == "Round 1    you 0 : 0 bots"
    for _ in range(180):
        step(simulation, Controls(throttle=1.0))
    _show(simulation, battle, hud)
    speed_kmh = player.current.forward_speed_mps() * 3.6
    assert speed_kmh > 5.0
    assert _text(hud.dashboard.speed_text).split()[0] == f"{speed_kmh:.0f}"
    assert hud.state.rpm == player.rpm and f"{player.rpm:.0f} rpm" in _text(hud.dashboard.rpm_label)
    assert hud.dashboard.rpm_bar.getSx() == pytest.approx(
        min(player.rpm / player.fleet.gearbox.kind_of(player.index).spec.redline_rpm, 1.0)
        * config.view.hud.bar_size[0], rel=1e-3)
    # Health: a hit shows at once.
    full_width = hud.dashboard.health_bar.getSx()
    bot = next(v for v in simulation.vehicles if v is not player)
    simulation.damage(player, 30.0, bot)
    _show(simulation, battle, hud)
    assert f"health {player.health:.0f}" in _text(hud.dashboard.health_label)
    assert hud.dashboard.health_bar.getSx() == pytest.approx(
        full_width * player.health / player.spec.armour.health, rel=1e-3)
    # Minimap: both bots, as enemies; one becomes a wreck.
    assert sorted(kind for _, _, kind in hud.minimap.dots) == ["enemy", "enemy"]
    simulation.damage(bot, 1e9, player)
    _show(simulation, battle, hud)
    assert sorted(kind for _, _, kind in hud.minimap.dots) == ["enemy", "wreck"]


def test_the_lever_travels_the_gate_through_neutral_during_a_shift(game):
    simulation, battle, hud = game
    player = simulation.player
    gate = player.fleet.gearbox.kind_of(player.index).gate
    step(simulation, Controls(gear="2"))
    state = read_hud_state(simulation, battle)
    assert state.selected == "2" and state.shifting and state.shift_from == "1"
    hud.update(state, 1.0 / 60.0)
    assert "1>2" in _text(hud.dashboard.gear_text)
    for _ in range(60):
        step(simulation, Controls(gear="2"))
    _show(simulation, battle, hud)
    for _ in range(30):  # the drawn knob catches up with the lever
        hud.update(hud.state, 1.0 / 60.0)
    assert not hud.state.shifting
    assert tuple(hud.dashboard.knob_pos) == pytest.approx(gate["2"])
    # Half way through a shift from 1 to 2 the knob is at neutral.
    layout = gate_layout(5)
    assert lever_path_point(layout, "1", "2", 0.5) == pytest.approx((layout["1"][0], 0.0))
    assert lever_path_point(layout, "1", "4", 0.0) == pytest.approx(layout["1"])
    assert lever_path_point(layout, "1", "4", 1.0) == pytest.approx(layout["4"])


def test_reload_ring_and_messages(game, config):
    simulation, battle, hud = game
    player = simulation.player
    _show(simulation, battle, hud)
    reload_s = player.spec.gun.reload_s
    assert hud.state.loaded_share == pytest.approx(1.0 / reload_s)  # loading for 1 s so far
    player.aim.reload_left_s = 0.0  # loaded
    _show(simulation, battle, hud)
    assert hud.state.loaded_share == 1.0
    events = []
    for _ in range(3):
        events += step(simulation, Controls(fire=True))
    assert any(isinstance(e, Shot) and e.vehicle == player.name for e in events)
    _show(simulation, battle, hud)
    assert 0.0 <= hud.state.loaded_share < 0.1
    hud.on_events([ShiftRefused(player.name, "R", "moving"),
                   ShiftRefused("bot-1", "R", "moving"),
                   Destroyed("bot-1", player.name),
                   RoundEnd(1, "player", {"player": 1, "bots": 0})], player.name)
    text = _text(hud.message_text)
    assert "Shift to R refused" in text and "bot-1 destroyed by you" in text
    assert "You win round 1" in text and "bot-1" not in text.splitlines()[0]
    for _ in range(int(config.view.hud.message_s * 60) + 2):
        hud.update(hud.state, 1.0 / 60.0)
    assert _text(hud.message_text) == ""


@pytest.mark.parametrize("winner, seen_by, words", [
    ("alpha", "alpha", "You win round 2"), ("alpha", "beta", "alpha wins round 2"),
    ("nobody", "alpha", "Nobody wins round 2"), ("bots", "alpha", "The bots win round 2")])
def test_an_online_round_end_names_its_winner(winner, seen_by, words):
    from game.view.hud.hud_state import message_for
    score = {"player": 0, "bots": 1} if winner == "bots" else {"alpha": 2, "beta": 1}
    assert message_for(RoundEnd(2, winner, score), seen_by).startswith(words)


FIGURES = ": 110 mm at 63° (241 mm in its path, 150 mm pierced)"


@pytest.mark.parametrize("result, seen_by, words", [
    ("penetrated", "alpha", "Penetrated beta's turret front" + FIGURES),
    ("penetrated", "beta", "Penetrated: alpha hit your turret front"),
    ("ricochet", "alpha", "Ricochet off beta's turret front" + FIGURES),
    ("ricochet", "beta", "alpha's shell glanced off your turret front"),
    ("blocked", "alpha", "Did not penetrate beta's turret front" + FIGURES),
    ("blocked", "beta", "alpha did not penetrate your turret front"),
    ("overmatch", "alpha", "Overmatched beta's turret front" + FIGURES),
    ("penetrated", "carol", None)])
def test_the_shooter_and_the_victim_read_what_a_hit_on_armour_did(result, seen_by, words):
    from game.view.hud.hud_state import message_for
    hit = Hit("alpha", "beta", (0.0, 0.0, 1.0), (0.0, -1.0, 0.0), 700.0, "ap", "turret_front",
              110.0, 63.0, 241.3, 150.0, result)
    assert message_for(hit, seen_by) == words


def test_a_range_plate_is_named_by_itself():
    from game.view.hud.hud_state import message_for
    hit = Hit("alpha", "plate-500m", (0.0, 0.0, 1.0), (0.0, -1.0, 0.0), 700.0, "ap", "face",
              80.0, 44.8, 104.2, 138.1, "penetrated")
    assert message_for(hit, "alpha") == ("Penetrated plate-500m: 80 mm at 45° (104 mm in its "
                                         "path, 138 mm pierced)")


def test_a_hit_off_the_armour_says_nothing():
    from game.view.hud.hud_state import message_for
    assert message_for(Hit("alpha", "terrain", (0.0, 0.0, 0.0), (0.0, 0.0, 1.0), 700.0),
                       "alpha") is None


def test_an_online_score_line_ranks_the_players():
    from game.view.hud.hud_state import HudState
    state = HudState(round=3, score={"beta": 1, "alpha": 2, "carol": 1})
    assert state.score_line == "Round 3    alpha 2   beta 1   carol 1"
    assert HudState(round=1, score={"player": 1, "bots": 0}).score_line.endswith("you 1 : 0 bots")
    assert HudState().score_line is None


def _drawn_centre(path):
    """The middle of what ``path`` draws, in its parent's frame (None: nothing drawn)."""
    bounds = path.getTightBounds(path.getParent())
    if bounds is None:
        return None
    low, high = bounds
    return (low[0] + high[0]) / 2.0, (low[2] + high[2]) / 2.0


def test_a_hit_by_the_player_flashes_the_x_and_a_kill_a_bigger_one(game, config):
    simulation, battle, hud = game
    player = simulation.player.name
    spec = config.view.hud.hit_marker
    _show(simulation, battle, hud)
    hud.on_events([Hit("bot-1", "bot-2", (0, 0, 0), (0, 0, 1), 900.0),
                   Hit(player, "terrain", (0, 0, 0), (0, 0, 1), 900.0)], player)
    assert hud.hit_marker.hit_x.isHidden() and hud.hit_marker.kill_x.isHidden()
    hud.on_events([Hit(player, "bot-1", (0, 0, 0), (0, 0, 1), 900.0)], player)
    assert not hud.hit_marker.hit_x.isHidden()
    for _ in range(int(spec.hit_s * 60) + 2):
        hud.update(hud.state, 1.0 / 60.0)
    assert hud.hit_marker.hit_x.isHidden()
    hud.on_events([Destroyed("bot-2", player)], player)
    assert not hud.hit_marker.kill_x.isHidden() and hud.hit_marker.hit_x.isHidden()
    hit_size = hud.hit_marker.hit_x.getTightBounds()
    kill_size = hud.hit_marker.kill_x.getTightBounds()
    assert (kill_size[1] - kill_size[0]).length() > (hit_size[1] - hit_size[0]).length()
    for _ in range(int(spec.kill_s * 60) + 2):
        hud.update(hud.state, 1.0 / 60.0)
    assert hud.hit_marker.kill_x.isHidden()


def test_damage_from_the_left_shows_a_wedge_on_the_left_that_fades(game, config):
    simulation, battle, hud = game
    player = simulation.player
    bot = simulation.vehicle_named("bot-1")
    offset = bot.current.position_ws - player.current.position_ws
    to_bot = math.atan2(offset[0], offset[1])
    state = read_hud_state(simulation, battle)
    state.view_heading_rad = to_bot + math.pi / 2  # looking 90 degrees right of the bot
    hud.update(state, 1.0 / 60.0)
    assert _drawn_centre(hud.damage.root) is None
    hud.on_events([Damage(player.name, "bot-1", 10.0, 90.0),
                   Damage("bot-2", player.name, 10.0, 90.0)], player.name)
    hud.update(state, 1.0 / 60.0)
    x, y = _drawn_centre(hud.damage.root)
    spec = config.view.hud.damage
    assert x == pytest.approx(-spec.radius + spec.width / 2, abs=spec.width)
    assert abs(y) < spec.width
    for _ in range(int(spec.shown_s * 60) + 2):
        hud.update(state, 1.0 / 60.0)
    assert _drawn_centre(hud.damage.root) is None


def test_the_kill_feed_lists_kills_and_lets_them_go(game, config):
    simulation, battle, hud = game
    spec = config.view.hud.kill_feed
    hud.on_events([Destroyed("bot-1", "player"), Destroyed("player", "bot-2")], "player")
    assert hud.kill_feed.lines == ["player destroyed bot-1", "bot-2 destroyed player"]
    assert _text(hud.kill_feed.texts[1]) == "bot-2 destroyed player"
    # Under the minimap, in the top right corner.
    minimap_bottom = hud.minimap.root.getTightBounds()[0][2]
    assert hud.kill_feed.texts[0].getZ() < minimap_bottom
    for _ in range(int(spec.shown_s * 60) + 2):
        hud.update(hud.state or read_hud_state(simulation, battle), 1.0 / 60.0)
    assert hud.kill_feed.lines == [] and _text(hud.kill_feed.texts[0]) == ""


def test_compact_hides_the_minimap_gate_rpm_and_kill_feed_and_keeps_the_rest(game):
    simulation, battle, hud = game
    _show(simulation, battle, hud)
    panel = hud.dashboard.full_panel.getParent()
    full = hud.dashboard.full_panel.getTightBounds(panel)
    speed_top = hud.dashboard.speed_text.getTightBounds(panel)[1][2]
    hud.set_compact(True)
    _show(simulation, battle, hud)
    hidden = [hud.minimap.root, hud.kill_feed.root, hud.dashboard.rpm_root,
              hud.dashboard.gate_root]
    kept = [hud.dashboard.speed_text, hud.dashboard.gear_text, hud.dashboard.health_bar,
            hud.crosshair, hud.markers.root, hud.damage.root, hud.hit_marker.root]
    assert all(path.isHidden() for path in hidden)
    assert not any(path.isHidden() for path in kept)
    compact = hud.dashboard.compact_panel.getTightBounds(panel)
    assert compact[1][2] < full[1][2] * 0.7  # a shorter backing ...
    compact_speed_top = hud.dashboard.speed_text.getTightBounds(panel)[1][2]
    assert compact_speed_top < min(compact[1][2], speed_top)  # ... the speed moved down on it
    hud.set_compact(False)
    assert not any(path.isHidden() for path in hidden)


def test_a_view_narrower_than_the_window_draws_a_smaller_hud(config):
    from game.view.hud.hud import hud_scale
    from game.view.player_view import FULL_WINDOW, SPLIT_REGIONS
    least = config.view.hud.least_view_scale
    assert hud_scale(FULL_WINDOW, least) == 1.0
    assert all(hud_scale(region, least) == 1.0 for region in SPLIT_REGIONS["stacked"])
    half = hud_scale(SPLIT_REGIONS["side_by_side"][0], least)
    assert least <= half < 1.0
    assert hud_scale(SPLIT_REGIONS["side_by_side"][0], 0.3) == pytest.approx(math.sqrt(0.5))
    sizes = []
    for scale in (1.0, half):
        root = NodePath("aspect2d")
        corner = root.attachNewNode("bottom_left")
        hud = Hud({"center": root, "bottom_left": corner}, config.view.hud, scale)
        low, high = hud.dashboard.full_panel.getTightBounds(corner)
        sizes.append((high[0] - low[0], high[2] - low[2]))
        hud.destroy()
    (full_width, full_height), (width, height) = sizes
    assert width == pytest.approx(full_width * half) and height == pytest.approx(
        full_height * half)


def _count_writes(shape) -> list:
    """Each :meth:`DynamicGeoms.write` to ``shape`` from now on appends its geom's index."""
    writes, write = [], shape.write
    shape.write = lambda index, *args: writes.append(index) or write(index, *args)
    return writes


def test_the_hud_redraws_only_what_moved_by_a_pixel(game, config):
    simulation, battle, hud = game
    view_height_px = 720
    hud.set_view_height(view_height_px)
    spec = config.view.hud
    ring, dots = _count_writes(hud.reload_shape), _count_writes(hud.minimap.shapes)
    state = read_hud_state(simulation, battle)
    for _ in range(3):
        hud.update(state, 1.0 / 60.0)
    assert ring == [0] and dots == [0, 1], "the same state drawn again"
    # The reload ring's end, set on a pixel: a tenth of a pixel further along it is not
    # redrawn, two pixels are.
    px_per_unit = view_height_px / 2.0
    share_per_px = 1.0 / (math.tau * spec.reload_radius * px_per_unit)
    share = round(state.loaded_share / share_per_px) * share_per_px
    state.reload_left_s = (1.0 - share) * state.reload_s
    hud.update(state, 1.0 / 60.0)
    for share_moved, redrawn in ((share_per_px * 0.1, False), (share_per_px * 2.0, True)):
        ring.clear()
        state.reload_left_s = (1.0 - share - share_moved) * state.reload_s
        hud.update(state, 1.0 / 60.0)
        assert bool(ring) == redrawn
    # A minimap dot, set on a pixel: a tenth of a pixel is not redrawn, two pixels are (a
    # bot well within the minimap's range: the sides start further apart than it shows).
    m_per_unit = spec.minimap_range_m / (spec.minimap_size / 2.0 * EDGE_SHARE)
    here_x, here_y, _ = simulation.player.current.position_ws.tolist()
    state.contacts[0] = (here_x + 100.0, here_y + 50.0, state.contacts[0][2])
    hud.update(state, 1.0 / 60.0)
    dot_x = hud.minimap.dots[0][0] * px_per_unit
    x, y, kind = state.contacts[0]
    x += (round(dot_x) - dot_x) / px_per_unit * m_per_unit
    state.contacts[0] = (x, y, kind)
    hud.update(state, 1.0 / 60.0)
    for moved_px, redrawn in ((0.1, False), (2.0, True)):
        dots.clear()
        state.contacts[0] = (x + moved_px / px_per_unit * m_per_unit, y, kind)
        hud.update(state, 1.0 / 60.0)
        assert bool(dots) == redrawn
    assert hud.minimap.dots[0][0] * px_per_unit == pytest.approx(round(dot_x) + 2.0)


def test_text_is_written_only_when_it_changes():
    from game.view.hud.hud_draw import LastDrawn, set_text

    class Line:
        def __init__(self):
            self.writes = []

        def node(self):
            return self

        def setText(self, text):
            self.writes.append(text)

    line, drawn = Line(), LastDrawn()
    for text in ("12 km/h", "12 km/h", "13 km/h", "13 km/h", ""):
        set_text(line, text, drawn)
    assert line.writes == ["12 km/h", "13 km/h", ""]


def test_the_crosshair_never_covers_the_score_line(game, config):
    """A predicted impact high in the view (the gun raised toward the sky) puts the
    crosshair, ring and all, just under the score line, not over it; lower ones stand where
    they are."""
    simulation, battle, hud = game
    hud.score_text.getParent().setZ(1.0)  # the view's top edge, as aspect2d's a2dTopCenter
    _show(simulation, battle, hud)
    root = hud.crosshair.getParent()
    low, _ = hud.score_text.getTightBounds(root)
    ring_m = config.view.hud.reload_radius
    for y in (0.3, 0.8, 0.95, 1.0, 1.4):
        hud.set_crosshair((0.02, y))
        assert hud.crosshair.getZ() + ring_m <= low[2] + 1e-6
        assert hud.crosshair.getZ() == pytest.approx(min(y, hud.crosshair_ceiling()))
    hud.set_crosshair((0.02, 0.3))
    assert hud.crosshair.getZ() == pytest.approx(0.3)


def test_the_minimap_shows_the_grounds_relief_and_the_rocks_round_the_player(config):
    """The minimap's ground is the map's shaded relief (a face toward the sun lighter than
    one away, hollows darker than crests), of which it shows the window round the player,
    and the rocks within its range are dots; the ones beyond it are not pinned."""
    from game.view.hud.minimap_relief import relief_image
    spec = config.view.hud
    x_m = np.linspace(-100.0, 100.0, 101)
    ridge = np.maximum(0.0, 10.0 - np.abs(x_m) * 0.2)[None, :].repeat(5, axis=0)
    image = relief_image(ridge, 2.0, spec.relief_low_colour, spec.relief_high_colour, 270.0)
    west_face, east_face = image[2, 40, :3].astype(int), image[2, 60, :3].astype(int)
    assert (west_face > east_face).all()  # lit from the west
    assert image[2, 50, :3].sum() > image[2, 0, :3].sum()  # the crest above the flat

    simulation = Simulation(config.world, MapChoice.parse("desert"), 2)
    root = NodePath("aspect2d")
    hud = Hud({"center": root, "top_right": root.attachNewNode("tr")}, spec)
    hud.set_view_height(720)
    minimap = hud.minimap
    minimap.set_ground(simulation.terrain)
    texture = minimap.relief.path.getTexture()
    side = texture.getXSize()
    assert side == texture.getYSize() and side & (side - 1) == 0  # a power of two
    samples = 129  # the 257 heights a side, every second one (at most relief_samples)
    assert samples <= spec.relief_samples
    first = (side - samples) // 2
    texel_m = 2.0 * simulation.terrain.half_extent_x_m / (samples - 1)
    texels = np.frombuffer(texture.getRamImage(), np.uint8).reshape(side, side, 4)
    backing = np.round(np.asarray(spec.minimap_colour) * 255.0).tolist()
    assert texels[0, 0, [2, 1, 0, 3]].tolist() == backing  # off the map: the backing
    assert texels[first, first, [2, 1, 0, 3]].tolist() != backing  # the map's corner

    def expected_uv(x_m, y_m):  # texel first + i is sample i, -half + i * texel_m
        half = simulation.terrain.half_extent_x_m
        return ((first + (x_m + half) / texel_m + 0.5) / side,
                (first + (y_m + half) / texel_m + 0.5) / side)
    state = read_hud_state(simulation)
    rocks = np.array(state.rocks)
    assert len(rocks) == len(simulation.rocks) > 0
    state.position_xy = (-200.0, -150.0)  # off the middle: the far rocks are out of range
    here = np.asarray(state.position_xy)
    near = np.abs(rocks - here).max(axis=1) <= spec.minimap_range_m
    assert 0 < near.sum() < len(rocks)
    hud.update(state, 1.0 / 60.0)
    drawn = minimap.rock_shapes.node.getGeom(0).getVertexData().getNumRows()
    assert drawn == near.sum()
    assert minimap.relief.centre_uv == pytest.approx(expected_uv(*here))
    state.position_xy = (here[0] + 50.0, here[1] - 30.0)
    hud.update(state, 1.0 / 60.0)
    assert minimap.relief.centre_uv == pytest.approx(expected_uv(here[0] + 50.0,
                                                                 here[1] - 30.0))
    # The card's corners read the window round the player, ±range (to the dots' edge).
    reach_uv = spec.minimap_range_m / EDGE_SHARE / (side * texel_m)
    data = minimap.relief.path.node().getGeom(0).getVertexData()
    reader = GeomVertexReader(data, "texcoord")
    corners = []
    while not reader.isAtEnd():
        corners.append(tuple(reader.getData2()))
    u, v = minimap.relief.centre_uv
    assert sorted({round(c[0], 9) for c in corners}) == pytest.approx([u - reach_uv,
                                                                      u + reach_uv])
    assert sorted({round(c[1], 9) for c in corners}) == pytest.approx([v - reach_uv,
                                                                      v + reach_uv])
    hud.destroy()
    simulation.destroy()
