"""Parts that break (physics/model/parts.py, game/sim/part_damage.py): what strikes them,
and each part's effect through the whole simulation: a broken track turns the tank, a
damaged engine slows it, a jammed turret stays put, a destroyed gun cannot fire, an ammo
rack hit destroys the tank and throws its turret, fires burn, the crew mend."""

from __future__ import annotations

import dataclasses
import math
import shutil

import numpy as np
import pytest

from common.errors import UserError
from game.config import CONFIG_DIR, load_config, load_spec
from game.sim.controls import Controls
from game.sim.events import (Destroyed, FireOut, FireStarted, PartDamaged, PartDestroyed,
                             PartRepaired, Shot)
from game.sim.simulation import Simulation
from physics.model.parts import (DAMAGED, DESTROYED, PART_NAMES, WHOLE, WHOLE_TANK,
                                 boxes_on_line, part_effects, spall_directions)
from physics.model.terrain import MapChoice
from physics.model.tracks import TankSpec
from tests.part_losses import losses

KMH = 3.6
TARGET_OFFSET_M = 60.0
"""The target tank stands this far to the player's right (+x), facing the same way."""


@pytest.fixture(scope="module")
def config():
    return load_config()


def world(config, **damage_changes):
    specs = config.world
    return dataclasses.replace(specs, damage=dataclasses.replace(specs.damage, **damage_changes))


def settled(specs, with_target: bool = False) -> Simulation:
    simulation = Simulation(specs, MapChoice("flat"), 1)
    if with_target:
        x_m, y_m = simulation.player.current.position_ws[:2].tolist()
        simulation.spawn("tank", "target", x_m + TARGET_OFFSET_M, y_m, 0.0)
    run(simulation, 1.0)
    return simulation


def run(simulation: Simulation, seconds: float, controls: Controls = Controls()) -> list:
    events = []
    for _ in range(round(seconds / simulation.step_s)):
        events += simulation.step(controls)
    return events


def heading_deg(simulation: Simulation) -> float:
    return simulation.player.current.heading_pitch_roll_deg()[0]


def fire_from_side(simulation: Simulation, target, shell_name: str, height_bs_m: float,
                   along_bs_m: float, drop_deg: float = 0.0) -> list:
    """A shell from 20 m off ``target``'s left side, flying at it square across its hull
    (tilted down ``drop_deg``), aimed at body-frame height ``height_bs_m`` on its side
    plate, ``along_bs_m`` from its middle; the events until it struck."""
    state = target.current
    right, forward, up = state.axes_ws()
    half_width_m = target.spec.hull.half_extents_m[0]
    drop = math.radians(drop_deg)
    direction = right * math.cos(drop) - up * math.sin(drop)
    aim = state.position_ws + right * -half_width_m + forward * along_bs_m + up * height_bs_m
    start = aim - direction * 20.0
    shell = simulation.combat.shells_config.shells[shell_name]
    shooter = simulation.player
    simulation.combat.shell_system.launch(shooter, start, direction * shell.muzzle_velocity_mps,
                                          shooter.spec.gun, shell, simulation.time_s)
    return run(simulation, 0.2)


# ----- the model ---------------------------------------------------------------------------

def test_a_segment_enters_the_boxes_it_crosses_and_no_other():
    centres = np.array([[5.0, 0.0, 0.0], [5.0, 3.0, 0.0], [-5.0, 0.0, 0.0]])
    halves = np.full((3, 3), 1.0)
    met = boxes_on_line(np.zeros(3), np.array([1.0, 0.0, 0.0]), 10.0, centres, halves)
    assert met[0] == pytest.approx(4.0) and np.isinf(met[1]) and np.isinf(met[2])
    short = boxes_on_line(np.zeros(3), np.array([1.0, 0.0, 0.0]), 3.5, centres, halves)
    assert np.isinf(short[0])  # it ends before the box
    inside = boxes_on_line(np.array([5.0, 0.5, 0.0]), np.array([0.0, 0.0, 1.0]), 1.0,
                           centres, halves)
    assert inside[0] == 0.0 and np.isinf(inside[1])


def test_spall_spreads_evenly_round_the_shells_line():
    along = np.array([0.0, 1.0, 0.0])
    rays = spall_directions(along, 8, math.radians(25.0))
    assert np.allclose(np.linalg.norm(rays, axis=1), 1.0)
    assert np.allclose(rays @ along, math.cos(math.radians(25.0)))
    assert np.allclose(rays.mean(axis=0) / np.linalg.norm(rays.mean(axis=0)), along)


def test_each_parts_state_has_its_effect(config):
    spec = config.game.damage
    whole = {name: WHOLE for name in PART_NAMES}
    assert part_effects(whole, spec) == WHOLE_TANK
    broken = part_effects({**whole, "left_track": DESTROYED, "engine": DAMAGED,
                           "turret_ring": DESTROYED, "gun": DESTROYED, "loader": DESTROYED,
                           "commander": DAMAGED}, spec)
    assert broken.track_drive == (0.0, 1.0)
    assert broken.engine_power == spec.damaged_engine_power_share
    assert broken.traverse == 0.0 and not broken.can_fire
    assert broken.reload_factor == pytest.approx(spec.damaged_gun_reload_factor
                                                 / spec.lost_crew_work_share)
    assert broken.view_share == spec.hurt_crew_work_share


@pytest.mark.parametrize("name", ["light", "medium", "heavy"])
def test_every_class_has_each_part_inside_its_hull(config, name):
    tank = config.tanks[name]
    assert [part.name for part in tank.parts.ordered] == list(PART_NAMES)
    half = np.array(tank.hull.half_extents_m)
    drop = tank.hull.centre_of_mass_drop_m
    for part in tank.parts.ordered:
        if part.mounted_in == "hull":
            low = np.array(part.centre_m) - part.half_extents_m
            high = np.array(part.centre_m) + part.half_extents_m
            assert np.all(np.abs(low[:2]) <= half[:2] + 1e-9) and np.all(
                np.abs(high[:2]) <= half[:2] + 1e-9), part.name
            assert high[2] <= drop + half[2] + 0.2, part.name  # the ring stands on the roof


def test_a_tank_file_missing_a_part_names_the_file_and_key(tmp_path):
    source = CONFIG_DIR / "tanks" / "medium.toml"
    text = source.read_text()
    cut = text.index('[[parts.part]]\nname = "commander"')
    broken = tmp_path / "medium.toml"
    broken.write_text(text[:cut])
    with pytest.raises(UserError) as caught:
        load_spec(broken, TankSpec)
    assert "medium.toml" in str(caught.value) and "parts.part" in str(caught.value)
    shutil.copy(source, tmp_path / "again.toml")
    (tmp_path / "again.toml").write_text(text.replace('name = "commander"', 'name = "cook"'))
    with pytest.raises(UserError, match="parts.part"):
        load_spec(tmp_path / "again.toml", TankSpec)


# ----- through the whole simulation --------------------------------------------------------

def test_a_shell_across_the_exposed_track_breaks_it(config):
    simulation = settled(config.world, with_target=True)
    target = simulation.vehicle_named("target")
    events = fire_from_side(simulation, target, "ap", -0.6, 0.0, drop_deg=5.0)
    destroyed = [event.part for event in events
                 if isinstance(event, PartDestroyed) and event.vehicle == "target"]
    assert destroyed == ["left_track"]
    assert target.parts.state("right_track") == WHOLE
    assert simulation.tanks.track_drive[target.index].tolist() == [0.0, 1.0]
    simulation.destroy()


def test_a_destroyed_left_track_turns_the_tank_left_under_full_throttle(config):
    turned = {}
    for broken in (False, True):
        simulation = settled(config.world)
        player = simulation.player
        if broken:
            simulation.combat.parts.strike(player, losses(left_track=1000.0), player)
        start = heading_deg(simulation)
        run(simulation, 6.0, Controls(throttle=1.0))
        turned[broken] = (heading_deg(simulation) - start + 180.0) % 360.0 - 180.0
        simulation.destroy()
    assert abs(turned[False]) < 1.0
    assert turned[True] < -20.0  # a compass heading falls turning left


def time_to_kmh(simulation: Simulation, kmh: float, most_s: float) -> float:
    for step in range(round(most_s / simulation.step_s)):
        simulation.step(Controls(throttle=1.0))
        if simulation.player.fleet.forward_speeds_mps()[simulation.player.index] * KMH >= kmh:
            return (step + 1) * simulation.step_s
    return math.inf


def test_a_damaged_engine_gets_to_30_kmh_later(config):
    times = {}
    for damaged in (False, True):
        simulation = settled(dataclasses.replace(
            config.world, spawn=dataclasses.replace(config.world.spawn, start_gear="A")))
        if damaged:
            player = simulation.player
            simulation.combat.parts.strike(player, losses(engine=1.0), player)
            assert player.parts.state("engine") == DAMAGED
        times[damaged] = time_to_kmh(simulation, 30.0, 60.0)
        simulation.destroy()
    assert times[False] < 15.0
    assert times[True] > times[False] * 1.3


def test_a_jammed_turret_does_not_turn_and_a_damaged_ring_turns_slower(config):
    simulation = settled(config.world)
    player = simulation.player
    run(simulation, 1.0, Controls(turret=1.0))
    whole_rad = player.aim.turret_heading_rad
    simulation.combat.parts.strike(player, losses(turret_ring=1.0), player)
    run(simulation, 1.0, Controls(turret=1.0))
    damaged_rad = player.aim.turret_heading_rad - whole_rad
    assert damaged_rad == pytest.approx(whole_rad * config.game.damage.damaged_ring_traverse_share)
    simulation.combat.parts.strike(player, losses(turret_ring=1000.0), player)
    before = player.aim.turret_heading_rad
    run(simulation, 2.0, Controls(turret=1.0))
    assert player.aim.turret_heading_rad == before
    simulation.destroy()


def test_a_destroyed_gun_cannot_fire_and_a_damaged_one_loads_slower(config):
    simulation = settled(config.world)
    player = simulation.player
    run(simulation, player.spec.gun.reload_s)
    simulation.combat.parts.strike(player, losses(gun=1.0), player)
    assert any(isinstance(event, Shot) for event in simulation.step(Controls(fire=True)))
    assert player.aim.reload_left_s == pytest.approx(
        player.spec.gun.reload_s * config.game.damage.damaged_gun_reload_factor)
    run(simulation, 10.0)
    simulation.combat.parts.strike(player, losses(gun=1000.0), player)
    assert not any(isinstance(event, Shot) for event in run(simulation, 1.0, Controls(fire=True)))
    simulation.destroy()


def test_an_ammo_rack_hit_destroys_the_tank_and_throws_its_turret(config):
    simulation = settled(config.world, with_target=True)
    target = simulation.vehicle_named("target")
    events = fire_from_side(simulation, target, "kwk43_ap", -0.1, 0.4)
    assert any(isinstance(event, PartDestroyed) and event.part == "ammo_rack"
               for event in events)
    assert Destroyed("target", "player", "ammo_rack") in events
    assert target.destroyed and target.health == 0.0 and target.turret_collider is None
    (thrown,) = simulation.thrown_turrets
    assert thrown.vehicle == "target"
    hull_top_m = float(target.current.position_ws[2])
    heights = [float(thrown.pose()[0][2]) for _ in range(60) if not simulation.step()]
    assert max(heights) > hull_top_m + 2.0  # thrown up
    run(simulation, 4.0)
    assert float(thrown.pose()[0][2]) < hull_top_m + 1.5  # and fallen back
    simulation.combat.clear()
    simulation.combat.parts.reset(target)
    assert not simulation.thrown_turrets and target.turret_collider is not None
    assert target.parts.states() == {name: WHOLE for name in PART_NAMES}
    simulation.destroy()


def test_an_engine_fire_burns_health_until_it_is_put_out(config):
    spec = world(config, fire_chance=1.0)
    simulation = settled(spec)
    player = simulation.player
    health = player.health
    events = simulation.combat.parts.strike(player, losses(engine=1.0), player)
    assert FireStarted("player", "player") in events
    events = run(simulation, spec.damage.fire_duration_s + 1.0)
    assert events.count(FireOut("player")) == 1
    assert health - player.health == pytest.approx(
        spec.damage.fire_damage_per_s * spec.damage.fire_duration_s, abs=0.5)
    assert not player.parts.on_fire
    simulation.destroy()


def test_a_destroyed_track_is_mended_to_damaged_and_drives_again(config):
    simulation = settled(config.world)
    player = simulation.player
    events = simulation.combat.parts.strike(player, losses(left_track=1000.0), player)
    repair_s = player.spec.parts.ordered[0].repair_s
    assert PartDestroyed("player", "left_track", "player", repair_s) in events
    events = run(simulation, repair_s - 0.5)
    assert player.parts.state("left_track") == DESTROYED and not any(
        isinstance(event, PartRepaired) for event in events)
    events = run(simulation, 1.0)
    assert any(isinstance(event, PartRepaired) and event.part == "left_track" for event in events)
    assert player.parts.state("left_track") == DAMAGED
    assert player.fleet.track_drive[player.index].tolist() == [1.0, 1.0]
    start = heading_deg(simulation)
    run(simulation, 4.0, Controls(throttle=1.0))
    assert abs(heading_deg(simulation) - start) < 1.0
    simulation.destroy()


def test_a_hit_that_does_not_destroy_a_part_reports_what_it_has_left(config):
    simulation = settled(config.world)
    player = simulation.player
    events = simulation.combat.parts.strike(player, losses(loader=10.0), player)
    whole = player.spec.parts.ordered[PART_NAMES.index("loader")].hit_points
    assert events == [PartDamaged("player", "loader", "player", whole - 10.0)]
    assert player.parts.effects.reload_factor == pytest.approx(
        1.0 / config.game.damage.hurt_crew_work_share)
    simulation.destroy()
