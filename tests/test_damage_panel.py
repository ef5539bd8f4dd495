"""The HUD's damage panel: the tank's parts on a silhouette in their states' colours, a
line naming every part that is not whole (a destroyed one with its repair countdown) and
FIRE while the engine burns; the turret's parts turn with the turret; the car shows no
panel; it redraws only on a change and stands clear of the dashboard and the crosshair.
Built under a bare NodePath (no window)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from panda3d.core import NodePath

from game.sim.controls import Controls
from game.sim.simulation import Simulation
from game.view.hud.damage_panel import DamagePanel, damage_lines
from game.view.hud.hud import Hud
from game.view.hud.hud_state import read_hud_state
from physics.model.parts import ENGINE, GUN, LEFT_TRACK, PART_NAMES, TURRET_RING
from physics.model.terrain import MapChoice
from tests.part_losses import losses

STEP_S = 1.0 / 60.0


def _simulation(config, vehicle: str = "tank") -> Simulation:
    return Simulation(config.world, MapChoice.parse("flat"), 3, player_vehicle=vehicle)


@pytest.fixture
def tank(config):
    simulation = _simulation(config)
    panel = DamagePanel(NodePath("bottom-left"), config.view.hud.damage_panel, config.view.hud)
    yield simulation, panel
    panel.destroy()
    simulation.destroy()


def _texts(panel: DamagePanel) -> list[str]:
    """The lines the panel's text nodes show, top down, empty ones left out."""
    return [text for text in (path.node().getText() for path in panel.texts) if text]


def _colour(path) -> tuple:
    return tuple(path.node().getTextColor())


def _centre(panel: DamagePanel, name: str) -> np.ndarray:
    return panel.corners[name].mean(axis=0)


def _count_writes(shape) -> list:
    """Each :meth:`DynamicGeoms.write` to ``shape`` from now on appends its geom's index."""
    writes, write = [], shape.write
    shape.write = lambda index, *args: writes.append(index) or write(index, *args)
    return writes


def test_a_whole_tank_shows_every_part_and_no_lines(tank):
    simulation, panel = tank
    assert not panel.shown  # nothing drawn until it has a vehicle
    panel.update(simulation.player)
    assert panel.shown
    assert sorted(panel.corners) == sorted(PART_NAMES)
    assert panel.lines == () and _texts(panel) == []


def test_a_destroyed_left_track_is_named_with_its_repair_countdown(tank, config):
    simulation, panel = tank
    player = simulation.player
    repair_s = player.parts.layout.ordered[PART_NAMES.index(LEFT_TRACK)].repair_s
    assert repair_s > 2.0
    simulation.combat.parts.strike(player, losses(left_track=1000.0), player)
    panel.update(player)
    assert _texts(panel) == [f"L track: destroyed {math.ceil(repair_s)} s"]
    destroyed_colour = config.view.hud.damage_panel.destroyed_colour
    assert _colour(panel.texts[0]) == pytest.approx(destroyed_colour, abs=1e-6)
    for _ in range(90):  # the crew mend it meanwhile: the countdown follows
        simulation.step(Controls())
    panel.update(player)
    left_s = float(player.parts.repair_left_s[PART_NAMES.index(LEFT_TRACK)])
    assert left_s == pytest.approx(repair_s - 1.5, abs=0.05)
    assert _texts(panel) == [f"L track: destroyed {math.ceil(left_s)} s"]


def test_a_damaged_engine_on_fire_reads_fire_first(tank, config):
    simulation, panel = tank
    player = simulation.player
    spec = config.view.hud.damage_panel
    simulation.combat.parts.strike(player, losses(left_track=1000.0, engine=10.0), player)
    player.parts.fire_left_s = 5.0
    panel.update(player)
    texts = _texts(panel)
    assert texts[0] == "FIRE" and texts[2] == "Engine: damaged" and len(texts) == 3
    assert texts[1].startswith("L track: destroyed")
    assert _colour(panel.texts[0]) == pytest.approx(spec.fire_colour, abs=1e-6)
    assert _colour(panel.texts[2]) == pytest.approx(spec.damaged_colour, abs=1e-6)
    player.parts.fire_left_s = 0.0  # put out
    panel.update(player)
    assert "FIRE" not in _texts(panel) and "Engine: damaged" in _texts(panel)


def test_the_lines_name_parts_in_order_and_a_part_never_mended_has_no_countdown():
    states = dict.fromkeys(PART_NAMES, "whole")
    assert damage_lines(states, np.zeros(len(PART_NAMES)), False) == ()
    states.update(gun="destroyed", right_track="damaged", commander="destroyed")
    left_s = np.zeros(len(PART_NAMES))
    left_s[PART_NAMES.index("commander")] = 3.2
    assert damage_lines(states, left_s, True) == (
        ("FIRE", "fire"), ("R track: damaged", "damaged"), ("Gun: destroyed", "destroyed"),
        ("Commander: destroyed 4 s", "destroyed"))


def test_the_turret_parts_turn_with_the_turret_and_the_hull_parts_stay(tank):
    simulation, panel = tank
    player = simulation.player
    player.aim.turret_heading_rad = 0.0
    panel.update(player)
    ring, gun, engine = (_centre(panel, name) for name in (TURRET_RING, GUN, ENGINE))
    ahead = gun - ring
    assert ahead[1] > 0.0 and ahead[0] == pytest.approx(0.0, abs=1e-6)  # gun forward: up
    player.aim.turret_heading_rad = math.pi / 2.0  # turned to the right
    panel.update(player)
    turned = _centre(panel, GUN) - _centre(panel, TURRET_RING)
    assert turned == pytest.approx([ahead[1], 0.0], abs=1e-6)  # right on the panel
    assert _centre(panel, ENGINE) == pytest.approx(engine)
    assert _centre(panel, TURRET_RING) == pytest.approx(ring)


def test_the_car_shows_no_panel(config):
    simulation = _simulation(config, "car")
    panel = DamagePanel(NodePath("bottom-left"), config.view.hud.damage_panel, config.view.hud)
    try:
        assert simulation.player.parts is None
        panel.update(simulation.player)
        assert not panel.shown and panel.corners == {} and _texts(panel) == []
    finally:
        panel.destroy()
        simulation.destroy()


def test_the_panel_redraws_only_on_a_change(tank, config):
    simulation, panel = tank
    player = simulation.player
    step_rad = math.radians(config.view.hud.damage_panel.turret_step_deg)
    shapes, lines = _count_writes(panel.shape), []
    write_lines = panel._write_lines
    panel._write_lines = lambda drawn: lines.append(drawn) or write_lines(drawn)
    for _ in range(3):
        panel.update(player)
    assert shapes == [0] and len(lines) == 1, "the same tank drawn again"
    player.aim.turret_heading_rad = step_rad * 0.2  # less than a step: as it was
    panel.update(player)
    assert shapes == [0]
    player.aim.turret_heading_rad = step_rad * 1.2
    panel.update(player)
    assert shapes == [0, 0] and len(lines) == 1
    simulation.combat.parts.strike(player, losses(left_track=1000.0), player)
    panel.update(player)
    assert shapes == [0, 0, 0] and len(lines) == 2
    index = PART_NAMES.index(LEFT_TRACK)
    player.parts.repair_left_s[index] = 6.9
    panel.update(player)
    player.parts.repair_left_s[index] = 6.2  # the same whole second: not written again
    panel.update(player)
    assert len(lines) == 3 and _texts(panel) == ["L track: destroyed 7 s"]
    player.parts.repair_left_s[index] = 5.9
    panel.update(player)
    assert len(lines) == 4 and _texts(panel) == ["L track: destroyed 6 s"]
    assert len(shapes) == 3  # the countdown never redraws the silhouette


def _bounds(path: NodePath, root: NodePath) -> tuple[np.ndarray, np.ndarray]:
    low, high = path.getTightBounds(root)
    return np.array([low[0], low[2]]), np.array([high[0], high[2]])


def _apart(a, b) -> bool:
    """Two (low, high) boxes in x and y share no area."""
    return bool(np.any(a[1] <= b[0]) or np.any(b[1] <= a[0]))


@pytest.mark.parametrize("compact", [False, True])
def test_the_hud_puts_the_panel_above_the_dashboard_clear_of_the_crosshair(config, compact):
    """In a 4:3 view (the narrowest), with every part broken and the engine on fire: the
    panel stands over the dashboard's backing (full or compact), shares no area with it
    nor with the crosshair's reload ring round the view's middle, and stays under the
    view's top."""
    simulation = _simulation(config)
    aspect = 4.0 / 3.0
    root = NodePath("aspect2d")
    corners = {"center": root, "bottom_left": root.attachNewNode("bl")}
    corners["bottom_left"].setPos(-aspect, 0.0, -1.0)
    hud = Hud(corners, config.view.hud)
    try:
        hud.set_compact(compact)
        player = simulation.player
        player.aim.turret_heading_rad = math.pi / 4.0
        simulation.combat.parts.strike(player, np.full(len(PART_NAMES), 5.0), player)
        player.parts.fire_left_s = 5.0
        hud.update(read_hud_state(simulation), STEP_S)
        assert not hud.damage_panel.shown, "no vehicle given: the panel stays as it was"
        hud.update(read_hud_state(simulation), STEP_S, player)
        assert hud.damage_panel.shown and len(_texts(hud.damage_panel)) == len(PART_NAMES) + 1
        dashboard = hud.dashboard
        backing = dashboard.compact_panel if compact else dashboard.full_panel
        panel, under = _bounds(hud.damage_panel.backing, root), _bounds(backing, root)
        assert _apart(panel, under) and panel[0][1] > under[1][1]
        assert panel[0][0] == pytest.approx(under[0][0])
        for path in hud.damage_panel.texts + [hud.damage_panel.silhouette]:
            low, high = _bounds(path, root)
            assert np.all(low >= panel[0] - 1e-6) and np.all(high <= panel[1] + 1e-6)
        radius = config.view.hud.reload_radius
        assert _apart(panel, (np.array([-radius, -radius]), np.array([radius, radius])))
        assert panel[1][1] < 1.0
    finally:
        hud.destroy()
        simulation.destroy()
