"""The soak: battles with random inputs stay clean for minutes, memory stays flat, and
what the physics guard rescues counts as a failure the soak sees."""

from __future__ import annotations

import json
import math

import pytest
from panda3d.core import Point3, Vec3

from bench.soak import main, soak
from bench.soak_watch import SAMPLE_S, memory_slope
from game.sim.net.link import enet_available

SOAK_MINUTES = 4.0
"""Long enough that a leak of 1 MB a simulated minute (what reading Panda's arrays
through their buffers once leaked) stands far above the settling and the allocator's
steps: three minutes after the first, a dozen samples."""


@pytest.mark.slow
def test_minutes_of_an_eight_tank_battle_stay_clean_and_the_memory_flat():
    result = soak(minutes=SOAK_MINUTES, bots=7, seed=1, report=lambda line: None)
    counters = result.counters
    assert counters.failures() == [], counters
    assert counters.recovered == 0  # the guard had nothing to rescue
    assert result.growth_mb_per_minute < 0.1, [s["memory_mb"] for s in result.samples]
    assert result.failures() == []
    start, end = result.samples[0], result.samples[-1]
    assert len(result.samples) == 1 + round(SOAK_MINUTES * 60.0 / SAMPLE_S)
    # The handle map holds the world's bodies plus the shells in flight and the turrets
    # thrown this round, and nothing more.
    assert end["handles"] - end["shells"] - end["thrown"] == start["handles"] - start["thrown"]
    assert end["bodies"] - end["shells"] - end["thrown"] == start["bodies"] - start["thrown"]
    # Random driving against seven bots of the three classes: rounds do end (three on this
    # seed in four minutes, each opening with the 400 m approach; seeds 1 to 6 end 3, 1,
    # 5, 4, 4 and 3: on seed 2 the player, hit once, outlives the second round).
    assert counters.rounds >= 2


NAN_STEP, SINK_STEP, FLING_STEP = 120, 600, 850
BROKEN_MINUTES = 0.25
"""900 steps at 60 Hz: the player is flung in the last 50."""


def _break_the_player(simulation, step: int) -> None:
    """Once a non-finite state (the player's grip springs blow up), once the player
    sunk 5 m into the ground, and at the end flung upward at 120 m/s."""
    body = simulation.player.body
    if step == NAN_STEP:
        model = simulation.tanks.model
        model._deflection[:, :model.anchors] = math.nan
    elif step == SINK_STEP:
        where = body.getTransform().getPos()
        body.setTransform(body.getTransform().setPos(Point3(where.x, where.y, where.z - 5.0)))
    elif step == FLING_STEP:
        body.setLinearVelocity(Vec3(0.0, 0.0, 120.0))


def test_the_soak_counts_what_the_guard_rescued_and_what_flew_as_failures(config):
    result = soak(minutes=BROKEN_MINUTES, bots=1, seed=2, report=lambda line: None,
                  disturb=_break_the_player)
    counters = result.counters
    assert (counters.non_finite, counters.below_ground, counters.recovered) == (1, 1, 2)
    steps = round(BROKEN_MINUTES * 60.0 * config.game.simulation.step_hz)
    assert counters.too_fast == steps - FLING_STEP  # every step after, still rising fast
    assert counters.failures() == ["non_finite", "below_ground", "too_fast", "recovered"]
    assert result.failures()[:4] == counters.failures()


def test_an_undisturbed_short_soak_passes_and_says_so(capsys):
    assert main(["--minutes", "0.5", "--bots", "1", "--seed", "3", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["failures"] == [] and summary["recovered"] == 0
    assert summary["bots"] == 1 and summary["minutes"] == 0.5


@pytest.mark.parametrize("flag", [["--minutes", "-1"], ["--map", "moon"],
                                  ["--clients", "2"], ["--bots", "many"]])
def test_a_bad_soak_flag_is_one_line_and_exit_2(capsys, flag):
    with pytest.raises(SystemExit) as exit_:
        main(flag)
    assert exit_.value.code == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert flag[0] in error[-1]


def test_the_memory_slope_follows_a_leak_and_not_a_one_off_step():
    minutes = [quarter / 4 for quarter in range(25)]  # six minutes, a sample a quarter

    def samples(memory):
        return [{"minute": minute, "memory_mb": memory(minute)} for minute in minutes]

    assert memory_slope(samples(lambda m: 300.0 + 1.1 * m)) == pytest.approx(1.1)
    assert memory_slope(samples(lambda m: 300.0 + 0.5 * (m >= 3.0))) < 0.1  # one step
    assert memory_slope(samples(lambda m: 300.0 + 5.0 * (m < 1.0))) == 0.0  # settling
    assert memory_slope(samples(lambda m: 300.0), settle_minutes=10.0) == 0.0


@pytest.mark.slow
@pytest.mark.skipif(not enet_available(), reason="pyenet is not installed")
def test_a_dedicated_server_soaks_with_its_clients_in_lockstep():
    from bench.server_soak import server_soak
    result = server_soak(minutes=0.5, clients=2, bots=1, seed=3, report=lambda line: None)
    assert result.counters.failures() == []
    assert [sample["minute"] for sample in result.samples] == [0.0, 0.25, 0.5]
    assert all(sample["clients"] == 2 for sample in result.samples[1:])  # nobody put out



def test_a_shell_path_through_a_tanks_armour_counts_one_past_its_nose_does_not(config):
    """The soak counts shells that fly through a hull: through the collider that the
    armour plates make, not the hull box (a box corner in front of the glacis is air)."""
    import numpy as np

    from bench.soak_watch import _crosses_vehicle
    from game.sim.simulation import Simulation
    from physics.model.terrain import MapChoice
    simulation = Simulation(config.world, MapChoice.parse("flat"), seed=1)
    tank = simulation.player
    state = tank.current
    axes = state.axes_ws()

    def world(point_bs):
        return state.position_ws + np.asarray(point_bs, dtype=float) @ axes
    assert _crosses_vehicle(tank, world((-5.0, 0.0, 0.3)), world((5.0, 0.0, 0.3)))
    # Across the nose just above the hull box's bottom front edge: inside the box, in
    # front of the sloped plates.
    assert not _crosses_vehicle(tank, world((-5.0, 3.38, 0.85)), world((5.0, 3.38, 0.85)))
    simulation.destroy()


def test_a_shell_counts_as_through_a_tank_only_where_it_crosses_it_at_both_ends_of_the_step(
        config):
    """A turret that swings into where a shell was moments before holds the shell's start
    as it stands at the step's end, though the shell never was inside it: the soak counts a
    path that crosses the tank as it stood at the step's start and at its end, not one that
    crosses only one of them."""
    import math
    from types import SimpleNamespace

    import numpy as np

    from bench.soak_watch import shells_through
    from game.sim.simulation import Simulation
    from physics.model.terrain import MapChoice
    simulation = Simulation(config.world, MapChoice.parse("flat"), seed=1)
    tank = simulation.player
    tank.previous = state = tank.current
    axes = state.axes_ws()
    pivot = np.asarray(config.tank.gun.turret_pivot_m)

    def path(side_m):
        """Across the tank (body frame x) at ``side_m`` along it, through the turret's
        height: (start, end) in the world."""
        return [state.position_ws + np.array([x_m, side_m, pivot[2] + 0.4]) @ axes
                for x_m in (-5.0, 5.0)]
    behind_start, behind_end = path(pivot[1] - 1.3)  # the turret's rear, facing ahead
    middle_start, middle_end = path(pivot[1])
    world = SimpleNamespace(
        shells=[SimpleNamespace(owner=None, position_ws=behind_end),
                SimpleNamespace(owner=None, position_ws=middle_end)],
        vehicles=[tank], plates=[])
    flying_before = {id(world.shells[0]): behind_start, id(world.shells[1]): middle_start}
    tank.aim.turret_heading_rad = 0.0  # at the step's end, facing ahead
    assert shells_through(world, flying_before) == 2  # the tank as it stands now
    swung = {id(tank): math.pi / 2}  # at the step's start, facing to the right
    assert shells_through(world, flying_before, swung) == 1  # the middle one alone
    simulation.destroy()
