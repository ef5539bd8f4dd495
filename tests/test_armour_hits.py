"""Shells striking a tank's armour in the simulation: the plate struck, the angle, and the
result decided by the penetration model; only a penetration does damage, a ricochet flies
on, a high-explosive shell's blast still reaches."""

from __future__ import annotations

import math

import numpy as np
import pytest

from game.sim.controls import Controls
from game.sim.events import Damage, Hit
from game.sim.simulation import Simulation
from physics.model.terrain import MapChoice

STRIKING_MPS = 800.0
"""The striking speed of the shells fired here (an AP shell's at about 900 m)."""
RANGE_M = 40.0


@pytest.fixture
def range_with_a_target(config):
    simulation = Simulation(config.world, MapChoice.parse("flat"), seed=1)
    target = simulation.spawn("tank", "target", 30.0, 0.0, 0.0)  # facing +Y
    for _ in range(40):
        simulation.step(Controls(brake=1.0))
    yield simulation, target
    simulation.destroy()


def _fire_at(simulation, target, config, shell_name: str, point_bs, from_bs,
             speed_mps: float = STRIKING_MPS) -> list:
    """Fire ``shell_name`` at the target's body-frame ``point_bs`` from the direction
    ``from_bs``; step until it has struck. The events of those steps."""
    state = target.current
    axes = state.axes_ws()
    point_ws = state.position_ws + np.asarray(point_bs, dtype=float) @ axes
    towards_ws = -(np.asarray(from_bs, dtype=float) @ axes)
    towards_ws /= np.linalg.norm(towards_ws)
    start_ws = point_ws - towards_ws * RANGE_M
    shooter = simulation.player
    simulation.combat.shell_system.launch(shooter, start_ws, towards_ws * speed_mps,
                                          shooter.spec.gun, config.shells.shells[shell_name],
                                          simulation.time_s)
    events: list = []
    for _ in range(30):
        events += simulation.step(Controls(brake=1.0))
        if any(isinstance(event, Hit) and event.target == "target" for event in events):
            break
    return events


def _hit(events) -> Hit:
    [hit] = [event for event in events if isinstance(event, Hit) and event.target == "target"]
    return hit


def _damage(events) -> float:
    return sum(event.amount for event in events
               if isinstance(event, Damage) and event.vehicle == "target")


def test_the_same_shell_is_blocked_by_the_glacis_and_pierces_the_side(range_with_a_target,
                                                                      config):
    simulation, target = range_with_a_target
    front = _fire_at(simulation, target, config, "ap", (0.0, 2.9, 0.6), (0.0, 1.0, 0.0))
    glacis = _hit(front)
    assert glacis.plate == "glacis" and glacis.result == "blocked"
    assert glacis.angle_deg == pytest.approx(60.0, abs=2.0)
    assert glacis.effective_mm > glacis.penetration_mm > glacis.thickness_mm
    assert _damage(front) == 0.0
    side = _fire_at(simulation, target, config, "ap", (1.7, 0.0, 0.3), (1.0, 0.0, 0.0))
    pierced = _hit(side)
    assert pierced.plate == "right_side" and pierced.result == "penetrated"
    assert pierced.angle_deg == pytest.approx(0.0, abs=2.0)
    assert pierced.penetration_mm == pytest.approx(glacis.penetration_mm, rel=0.02)
    assert 0.0 < _damage(side) <= config.shells.shells["ap"].damage


def test_a_glancing_shell_ricochets_and_flies_on_slower(range_with_a_target, config):
    simulation, target = range_with_a_target
    steep = math.radians(78.0)  # from the side plate's normal, past the ricochet angle
    events = _fire_at(simulation, target, config, "ap", (1.7, 0.5, 0.3),
                      (math.cos(steep), -math.sin(steep), 0.0))
    hit = _hit(events)
    assert hit.plate == "right_side" and hit.result == "ricochet"
    assert _damage(events) == 0.0
    [flying] = simulation.shells
    share = config.shells.penetration.ricochet_speed_share
    assert np.linalg.norm(flying.velocity_ws) == pytest.approx(hit.speed_mps * share, rel=0.05)
    assert float(flying.velocity_ws @ target.current.axes_ws()[0]) > 0.0  # away from the side


def test_a_thin_roof_is_overmatched_whatever_its_slope(range_with_a_target, config):
    simulation, target = range_with_a_target
    steep = math.radians(75.0)  # a shot from behind skimming the roof, clear of the turret
    events = _fire_at(simulation, target, config, "ap", (0.0, -2.6, 0.9),
                      (0.0, -math.sin(steep), math.cos(steep)))
    hit = _hit(events)
    assert hit.plate == "roof" and hit.result == "overmatch"
    assert hit.effective_mm == hit.thickness_mm
    assert _damage(events) > 0.0


def test_a_high_explosive_shell_blocked_by_the_armour_still_harms_by_its_blast(
        range_with_a_target, config):
    simulation, target = range_with_a_target
    events = _fire_at(simulation, target, config, "he", (0.0, 2.9, 0.6), (0.0, 1.0, 0.0))
    hit = _hit(events)
    assert hit.plate == "glacis" and hit.result == "blocked"
    he = config.shells.shells["he"]
    assert 0.0 < _damage(events) < he.damage


def test_a_hit_on_the_ground_writes_no_armour_fields(range_with_a_target, config):
    simulation, target = range_with_a_target
    shooter = simulation.player
    start = np.array([-30.0, 0.0, 5.0])
    simulation.combat.shell_system.launch(shooter, start, np.array([0.0, 300.0, -300.0]),
                                          shooter.spec.gun, config.shells.shells["ap"],
                                          simulation.time_s)
    hits = []
    for _ in range(30):
        hits += [event for event in simulation.step(Controls(brake=1.0))
                 if isinstance(event, Hit)]
    [ground] = hits
    assert ground.target == "terrain" and ground.shell == "ap" and ground.result is None
    assert "plate" not in ground.to_json() and ground.to_json()["shell"] == "ap"


@pytest.mark.parametrize("plate_name, result", [("plate-100m", "penetrated"),
                                                ("plate-500m", "penetrated"),
                                                ("plate-1000m", "ricochet")])
def test_the_range_plates_show_what_a_shell_does_to_each(config, plate_name, result):
    simulation = Simulation(config.world, MapChoice.parse("range"), seed=1)
    plate = next(plate for plate in simulation.plates if plate.name == plate_name)
    index = [p.name for p in simulation.plates].index(plate_name)
    assert plate.thickness_mm == config.game.range.plate_thickness_mm[index]
    shooter = simulation.player
    start = plate.position_ws - np.array([0.0, RANGE_M, 0.0])  # level, straight at its face
    simulation.combat.shell_system.launch(shooter, start, np.array([0.0, STRIKING_MPS, 0.0]),
                                          shooter.spec.gun, config.shells.shells["ap"],
                                          simulation.time_s)
    hits = []
    for _ in range(30):
        hits += [event for event in simulation.step(Controls(brake=1.0))
                 if isinstance(event, Hit)]
        if hits:
            break
    [hit] = hits
    assert hit.target == plate_name and hit.result == result and hit.plate == "face"
    assert hit.angle_deg == pytest.approx(config.game.range.plate_slope_deg[index], abs=1.0)
    assert hit.thickness_mm == plate.thickness_mm
    simulation.destroy()


def test_the_crosshair_says_whether_the_loaded_shell_would_pierce_where_it_is(config):
    """At 480 m the AP shell pierces about 137 mm: not the glacis (157 mm along a level
    shot), surely the lower front plate (109 mm); off the tank there is no verdict."""
    simulation = Simulation(config.world, MapChoice.parse("flat"), seed=1)
    target = simulation.spawn("tank", "target", 0.0, 480.0, 180.0)  # facing the player
    for _ in range(40):
        simulation.step(Controls(brake=1.0))
    player, state = simulation.player, target.current
    on_target = {name: state.position_ws + np.asarray(point_bs) @ state.axes_ws()
                 for name, point_bs in (("glacis", (0.0, 2.9, 0.6)),
                                        ("lower_front", (0.0, 3.3, 0.0)))}
    assert simulation.aim_verdict(player, on_target["glacis"]) == "will not pierce"
    assert simulation.aim_verdict(player, on_target["lower_front"]) == "pierces"
    assert simulation.aim_verdict(player, state.position_ws + np.array([30.0, 0.0, 0.0])) \
        is None
    simulation.destroy()


@pytest.mark.parametrize("penetration_share, verdict", [(1.2, "pierces"), (1.05, "may pierce"),
                                                        (0.95, "may pierce"),
                                                        (0.8, "will not pierce")])
def test_the_verdict_has_three_steps(config, penetration_share, verdict):
    from game.sim.armour_hits import aim_verdict
    simulation = Simulation(config.world, MapChoice.parse("flat"), seed=1)
    target = simulation.spawn("tank", "target", 30.0, 0.0, 0.0)
    state = target.current
    side_ws = state.position_ws + np.array([1.7, 0.0, 0.3]) @ state.axes_ws()
    spec = config.shells.penetration
    side_mm = 45.0
    # A shell that pierces the given share of the side plate's 45 mm, square on.
    ap = config.shells.shells["ap"]
    from physics.model.penetration import penetration_mm
    speed = 900.0 * (side_mm * penetration_share / penetration_mm(ap, 900.0, spec)) ** 0.7
    arrival = -state.axes_ws()[0] * speed
    assert aim_verdict(target, side_ws, arrival, ap, spec) == verdict
    simulation.destroy()


@pytest.mark.parametrize("map_text, thin", [("range", True), ("flat", False),
                                            ("desert", False)])
def test_the_range_is_drawn_in_a_thin_haze_so_its_far_plates_show(config, map_text, thin):
    from game.view.ground.desert_scene import haze_density_per_m
    from physics.model.terrain import build_terrain
    terrain = build_terrain(MapChoice.parse(map_text), config.game.terrain, 1)
    scene = config.view.scene
    expected = scene.big_desert_fog_density_per_m if thin else scene.fog_density_per_m
    assert haze_density_per_m(scene, terrain) == expected
