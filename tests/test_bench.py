"""``python -m bench``: runs at a tiny size through the command line; shape, not speed.

No speed is asserted (the suite runs on machines of every speed): only that the JSON
document has its parts, that its figures are what such figures must be (finite, positive
where they measure work done, in agreement with each other and with the parameters asked
for, up to the digits they are rounded to), that both vehicle models really drove, and
that benchmarks that do not exist yet are reported as skipped rather than faked.
"""

from __future__ import annotations

import json
import math
import subprocess
import time

import pytest

from tests.cli_fork import forked_run

TIMEOUT_S = 300.0


def finite(value) -> bool:
    """A number (not None, not a bool) and finite."""
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value))


def bench(*args: str) -> subprocess.CompletedProcess:
    """``python -m bench ARGS``, forked from a process with the game imported already
    (:mod:`tests.cli_fork`: no report here is compared with another process's)."""
    return forked_run(*args, module="bench", timeout=TIMEOUT_S)


@pytest.fixture(scope="module")
def vehicles_json() -> dict:
    done = bench("vehicles", "--counts", "1,2", "--steps", "5", "--repeats", "1", "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_json_names_the_machine_and_the_parameters(vehicles_json):
    machine = vehicles_json["machine"]
    for key in ("python", "numpy", "panda3d", "numba", "platform", "cpu_count"):
        assert machine[key], key
    parameters = vehicles_json["results"]["vehicles"]["parameters"]
    assert parameters["counts"] == [1, 2]
    assert parameters["steps"] == 5 and parameters["repeats"] == 1
    assert parameters["map"] == "desert" and parameters["substeps"] >= 1
    assert vehicles_json["skipped"] == {}


def test_both_models_are_timed_and_really_drive(vehicles_json):
    results = vehicles_json["results"]["vehicles"]["results"]
    assert [result["count"] for result in results] == [1, 2]
    for result in results:
        for model in ("ours", "bullet_vehicle"):
            figures = result[model]
            assert finite(figures["ms_per_step"]) and figures["ms_per_step"] > 0.0
            assert figures["ms_per_tank"] == pytest.approx(figures["ms_per_step"]
                                                           / result["count"])
            # One repeat: its run (rounded to 4 decimals) is the median.
            (run_ms,) = figures["runs_ms_per_step"]
            assert run_ms == pytest.approx(figures["ms_per_step"], abs=5e-5)
            assert figures["finite"]
            # Every tank drove: the least distance is above nothing, the mean at least it.
            assert figures["min_distance_m"] > 0.0, (result["count"], model)
            assert finite(figures["mean_distance_m"])
            assert figures["mean_distance_m"] >= figures["min_distance_m"]
        assert result["ratio"] == pytest.approx(result["ours"]["ms_per_step"]
                                                / result["bullet_vehicle"]["ms_per_step"])
        assert result["per_tank_growth"] == result["ours"]["per_tank_growth"]
    # Per tank at 2 against per tank at 1, each model against itself (one repeat: the
    # growth is that ratio); the first count against itself is 1.
    first, second = results
    for model in ("ours", "bullet_vehicle"):
        assert first[model]["per_tank_growth"] == pytest.approx(1.0)
        assert second[model]["per_tank_growth"] == pytest.approx(
            second[model]["ms_per_tank"] / first[model]["ms_per_tank"])


def test_the_battle_benchmark_runs_a_real_battle(config):
    done = bench("battle", "--seconds", "3", "--bots", "2", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)["results"]["battle"]
    assert report["parameters"] == {"tanks": [3], "simulated_s": 3, "seed": 1,
                                    "map": "desert", "evict_mib": 0, "against": None,
                                    "bot_tanks": list(config.game.battle.bot_tanks)}
    (result,) = report["results"]
    assert result["tanks"] == 3 and "against" not in result
    assert report["realtime_factor"] == {"3": result["realtime_factor"]}
    for key in ("wall_s", "realtime_factor", "ms_per_step", "timed_ms_per_step"):
        assert finite(result[key]) and result[key] > 0.0, key
    # The figures of the untimed run agree with each other: 3 s of fixed steps (the first
    # left out: it loads the compiled loops) took wall_s, ms_per_step each, and ran
    # realtime_factor times faster than real time. Each is rounded: wall_s and the ms to
    # the thousandth, the factor to the hundredth; the tolerances are those roundings.
    step_hz = config.game.simulation.step_hz
    timed_steps = round(3 * step_hz) - 1
    factor, ms_per_step = result["realtime_factor"], result["ms_per_step"]
    assert result["wall_s"] == pytest.approx(timed_steps * ms_per_step / 1000.0,
                                             abs=0.0005 + timed_steps * 0.0005 / 1000.0)
    assert factor * ms_per_step == pytest.approx(
        1000.0 / step_hz, rel=(1.0 + 0.0005 / ms_per_step) * (1.0 + 0.005 / factor) - 1.0 + 1e-9)
    events = result["events"]
    assert set(events) == {"shot", "hit", "destroyed", "round_end", "recovered"}
    assert all(isinstance(count, int) and count >= 0 for count in events.values()), events
    assert events["recovered"] == 0  # a battle the guard had to rescue is not a battle
    split = result["step_ms"]
    assert list(split) == ["bots", "drive", "physics", "guard", "combat", "other"]
    assert all(finite(ms) for ms in split.values()), split
    assert all(split[part] > 0.0 for part in ("bots", "drive", "physics", "guard", "combat"))
    assert sum(split.values()) == pytest.approx(result["timed_ms_per_step"], abs=0.01)


def test_the_battle_benchmark_runs_one_battle_per_size():
    done = bench("battle", "--seconds", "1", "--tanks", "1,4", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)["results"]["battle"]
    assert report["parameters"]["tanks"] == [1, 4]
    assert [result["tanks"] for result in report["results"]] == [1, 4]
    assert report["realtime_factor"] == {str(result["tanks"]): result["realtime_factor"]
                                         for result in report["results"]}
    assert all(finite(factor) and factor > 0.0 for factor in report["realtime_factor"].values())


def test_the_battle_benchmark_can_fight_on_two_maps_in_turns(monkeypatch):
    """``--against MAP``: the battle is fought again on MAP and on ``--map`` in one process,
    one step of each in turn, as many of each; the ratio is the first's ms over the
    second's. A map that does not exist exits 2, naming the flag."""
    from bench import battle
    from game.config import load_config
    from game.sim.step_loop import StepLoop
    stepped: dict[object, int] = {}
    step = StepLoop.step

    def counted(loop):
        stepped[loop.simulation.terrain] = stepped.get(loop.simulation.terrain, 0) + 1
        return step(loop)
    monkeypatch.setattr(StepLoop, "step", counted)
    turns = battle.in_turns(load_config(), 2, 0.5, 1, "flat", "slope:10")
    assert sorted(stepped.values()) == [turns["steps"] + 1] * 2  # the first untimed
    assert turns["map"] == "slope:10" and turns["ms_per_step"] > 0.0
    assert turns["ratio"] == pytest.approx(turns["ms_per_step"] / turns["against_ms_per_step"],
                                           rel=0.01)
    done = bench("battle", "--seconds", "1", "--bots", "1", "--map", "flat",
                 "--against", "slope:10")
    assert done.returncode == 0, done.stderr
    assert "in turns with a battle on slope:10:" in done.stdout
    refused = bench("battle", "--against", "moon")
    assert refused.returncode == 2
    assert "--against" in refused.stderr and "moon" in refused.stderr.strip().splitlines()[-1]


def test_the_battle_benchmark_can_evict_the_caches_before_every_step():
    done = bench("battle", "--seconds", "1", "--bots", "1", "--evict-mib", "4")
    assert done.returncode == 0, done.stderr
    assert "every step after writing through 4 MiB" in done.stdout
    assert "2 tanks:" in done.stdout
    refused = bench("battle", "--evict-mib", "4096")
    assert refused.returncode == 2
    assert "--evict-mib" in refused.stderr and "[0, 1024]" in refused.stderr


def test_the_eviction_writes_its_whole_buffer_once_before_each_step(monkeypatch):
    from bench import battle
    from game.config import load_config

    passes = []
    evict = battle._Evictor.evict
    monkeypatch.setattr(battle._Evictor, "evict",
                        lambda evictor: (passes.append(evictor.mib), evict(evictor)))
    evictor = battle._Evictor(1)
    _, steps, _, _, _ = battle._battle(load_config(), 2, 0.25, 1, "flat", evictor,
                                       timed_parts=False)
    assert passes == [1] * steps
    assert evictor._buffer.nbytes == 1 << 20
    assert (evictor._buffer == steps).all()  # every number written at every pass


class _Worker:
    def __init__(self):
        self.calls = []

    def work(self, seconds, label=""):
        self.calls.append(label)
        time.sleep(seconds)
        return label

    def fail(self):
        raise KeyError("broken")


def test_a_part_timer_sums_each_part_over_its_methods_until_read():
    from bench.parts import PartTimer
    timer = PartTimer(("work", "idle"))
    first, second = _Worker(), _Worker()
    timer.wrap(first, "work", "work")
    timer.wrap(second, "work", "work")
    timer.wrap(second, "fail", "idle")
    assert first.work(0.004, label="a") == "a" and second.work(0.003) == ""
    assert first.calls == ["a"] and second.calls == [""]
    with pytest.raises(KeyError):  # what a method raises passes through, timed
        second.fail()
    taken = timer.take()
    assert taken["work"] >= 7.0 and 0.0 < taken["idle"] < taken["work"]
    assert timer.take() == {"work": 0.0, "idle": 0.0}  # read and reset
    with pytest.raises(ValueError, match="'draw' is not one of the parts"):
        timer.wrap(first, "work", "draw")


def test_a_part_timer_counts_on_the_clock_it_is_given():
    from bench.parts import PartTimer
    ticks = iter([10.0, 10.25, 20.0, 20.5])
    timer = PartTimer(("work",), clock=lambda: next(ticks))
    worker = _Worker()
    timer.wrap(worker, "work", "work")
    worker.work(0.0)
    worker.work(0.0)
    assert timer.take() == {"work": 750.0}  # 0.25 s and 0.5 s on that clock, in ms


def test_the_battle_benchmark_mixes_the_classes_or_plays_one(config):
    mixed = bench("battle", "--seconds", "1", "--bots", "3", "--json")
    assert mixed.returncode == 0, mixed.stderr
    parameters = json.loads(mixed.stdout)["results"]["battle"]["parameters"]
    assert parameters["bot_tanks"] == list(config.game.battle.bot_tanks)
    single = bench("battle", "--seconds", "1", "--bots", "3", "--bot-tanks", "heavy")
    assert single.returncode == 0, single.stderr
    assert "the bots' classes in turn: heavy)" in single.stdout
    refused = bench("battle", "--seconds", "1", "--bot-tanks", "superheavy")
    assert refused.returncode == 2
    assert "--bot-tanks superheavy" in refused.stderr and "light, medium, heavy" in refused.stderr


def test_the_battle_benchmark_takes_tanks_or_bots_not_both():
    done = bench("battle", "--tanks", "8", "--bots", "7")
    assert done.returncode == 2
    assert "--bots" in done.stderr


def test_the_particle_benchmark_measures_both_systems():
    done = bench("particles", "--count", "300", "--frames", "3", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)["results"]["particles"]
    assert (report["count"], report["frames"]) == (300, 3)
    empty_ms = report["empty_frame_ms"]
    assert finite(empty_ms) and empty_ms > 0.0
    for system in ("ours", "panda_particle_effect", "panda_sprite_effect"):
        figures = report[system]
        assert figures["alive"] == 300, system  # long-lived: every particle is still there
        assert finite(figures["update_ms"]) and figures["update_ms"] > 0.0, system
        # draw_ms is a frame's time less an empty frame's: noise may make it a little
        # negative, but never more than the empty frame (rounded to the thousandth).
        assert finite(figures["draw_ms"]) and figures["draw_ms"] + empty_ms > -0.001, system
    assert finite(report["ours"]["draw_ms_at_16px"])
    assert report["ours"]["draw_ms_at_16px"] + empty_ms > -0.001
    costs = {name: report[name]["update_ms"] + report[name]["draw_ms"]
             for name in ("ours", "panda_particle_effect")}
    assert report["faster"] == min(costs, key=costs.get)


def test_a_bad_count_is_one_line_and_status_2():
    done = bench("vehicles", "--counts", "1,zero")
    assert done.returncode == 2
    assert "--counts" in done.stderr and "expected whole numbers" in done.stderr


@pytest.mark.slow
def test_the_net_benchmark_measures_a_real_server_and_clients(config):
    from bench.net import DEFAULT_NET_SIM, TARGETS, WARMUP_S
    done = bench("net", "--clients", "2", "--bots", "1", "--seconds", "6", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)["results"]["net"]
    assert report["client_failures"] == []
    parameters = report["parameters"]
    assert parameters == {"clients": 2, "bots": 1, "seconds": 6, "net_sim": DEFAULT_NET_SIM,
                          "seed": 1, "warmup_s": WARMUP_S}
    for key in ("down_kbit_s", "down_kbit_s_p99", "down_kbit_s_peak", "up_kbit_s",
                "own_rms_m", "drawn_jump_m", "remote_rms_m", "remote_behind_s",
                "remote_behind_s_median", "remote_behind_s_p99", "server_step_ms",
                "server_step_ms_p99"):
        assert finite(report[key]) and report[key] >= 0.0, key
    # Both clients drove, past their warm-up: rows of driving, but no more than the
    # steps each client ran after it.
    most_rows = 2 * ((6 - WARMUP_S) * config.game.simulation.step_hz + 1)
    assert 100 < report["own_rows"] <= most_rows
    assert report["down_kbit_s"] > report["up_kbit_s"] > 0.0
    assert report["down_kbit_s"] <= report["down_kbit_s_peak"]
    assert report["down_kbit_s_p99"] <= report["down_kbit_s_peak"]
    # Other vehicles are drawn between snapshots the server sent earlier: behind it.
    assert 0.0 < report["remote_behind_s_median"] <= report["remote_behind_s_p99"] <= (
        report["remote_behind_s"])
    assert report["server_step_ms"] > 0.0 and report["server_step_ms_p99"] > 0.0
    assert report["targets"] == TARGETS
    assert report["met"] == {key: report[key] <= most for key, most in TARGETS.items()}


def test_the_ai_tournament_plays_every_pairing_and_counts_blind_shots():
    done = bench("ai", "--seeds", "1", "--round-seconds", "20", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)["results"]["ai"]
    assert set(report["pairings"]) == {"hard_vs_easy", "normal_vs_easy", "hard_vs_normal",
                                       "normal_vs_normal"}
    for pairing in report["pairings"].values():
        assert pairing["rounds"] == 1
        assert pairing["player_wins"] + pairing["bot_wins"] + pairing["undecided"] == 1
    assert report["blind_shots"] == 0 and report["shots"] >= 0
    assert 0.0 < report["idle_survival_s"] <= 20.0
    classes = report["classes"]
    assert set(classes["pairings"]) == {"light_vs_medium", "light_vs_heavy", "medium_vs_heavy"}
    for name, pairing in classes["pairings"].items():
        assert pairing["rounds"] == 2  # a seed, each class the player's tank once
        assert set(pairing["wins"]) == set(name.split("_vs_"))
        assert sum(pairing["wins"].values()) + pairing["undecided"] == 2
    assert set(classes["win_share"]) == {"light", "medium", "heavy"}
    assert all(0.0 <= share <= 1.0 for share in classes["win_share"].values())


@pytest.fixture(scope="module")
def frame_report() -> dict:
    done = bench("frame", "--frames", "20", "--bots", "1", "--json")
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)["results"]["frame"]


@pytest.mark.slow
def test_the_frame_benchmark_times_our_work_panda_s_drawing_and_the_static_floor(frame_report):
    parameters = frame_report["parameters"]
    assert parameters["tanks"] == 2 and parameters["frames"] == 20
    assert parameters["size"] == "640x360" and parameters["player_ai"] == "normal"
    for key in ("app_ms", "steps_ms", "render_ms", "frame_ms", "static_ms", "draw_cpu_ms"):
        assert 0.0 < frame_report[key]["median"] <= frame_report[key]["p95"], key
    # The processor time of the work outside the steps is part of the app's frame task.
    assert frame_report["draw_cpu_ms"]["median"] <= frame_report["app_ms"]["median"]
    frame_ms = frame_report["frame_ms"]["median"]
    # A frame holds our work and the drawing: its median is at least either's.
    assert frame_ms >= frame_report["app_ms"]["median"] >= frame_report["steps_ms"]["median"]
    assert frame_ms >= frame_report["render_ms"]["median"]
    assert frame_report["frame_over_static"] == pytest.approx(
        frame_ms / frame_report["static_ms"]["median"], abs=0.01)
    assert frame_report["steps"] == 20  # one fixed step a frame
    assert frame_report["tanks_in_view"]["fewest"] >= 1


@pytest.mark.slow
def test_the_frame_benchmark_splits_our_work_beside_the_steps_into_its_parts(frame_report):
    from bench.frame import DRAW_PARTS
    split = frame_report["draw_ms"]
    assert list(split) == [*DRAW_PARTS, "other"]
    app_ms = frame_report["app_ms"]["median"]
    for part in ("vehicles", "rigs", "camera", "hud", "effects"):  # work done every frame
        assert 0.0 < split[part]["median"] <= split[part]["p95"], part
    for part, summary in split.items():
        # Each part is inside the app's frame task, and "other" is what the timed parts
        # and the steps leave of it (never below nothing, but for the timers' rounding).
        assert -0.01 <= summary["median"] <= app_ms, part


def test_the_frame_benchmark_sets_every_tank_in_the_camera_s_view():
    done = bench("frame", "--tanks", "9", "--frames", "2", "--warmup", "1", "--size", "320x200",
                 "--json")
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)["results"]["frame"]
    assert report["parameters"]["bots"] == 8 and report["parameters"]["arranged_in_view"]
    assert report["tanks_in_view"]["fewest"] == 9


def test_the_static_floor_is_timed_in_turns_with_the_game_s_frames():
    """Every block of measured frames is followed by as many static ones: all the frames
    asked for are measured, none twice, in blocks no longer than the block size."""
    from bench.frame import STATIC_BLOCK_FRAMES, blocks
    for frames in (1, STATIC_BLOCK_FRAMES - 1, STATIC_BLOCK_FRAMES, 3 * STATIC_BLOCK_FRAMES + 7,
                   600):
        taken = blocks(frames)
        assert sum(taken) == frames
        assert all(0 < block <= STATIC_BLOCK_FRAMES for block in taken)
        assert len(taken) == math.ceil(frames / STATIC_BLOCK_FRAMES)


def test_fan_spots_stay_inside_the_angle_and_apart():
    from bench.frame import FAN_SPACING_M, fan_spots
    half_angle_rad = 0.4
    spots = fan_spots(99, half_angle_rad)
    assert len(spots) == 99
    for ahead_m, across_m in spots:
        assert abs(across_m) <= ahead_m * math.tan(half_angle_rad) + 1e-9
    points = [complex(ahead_m, across_m) for ahead_m, across_m in spots]
    closest_m = min(abs(one - other) for index, one in enumerate(points)
                    for other in points[index + 1:])
    assert closest_m >= FAN_SPACING_M - 1e-9


def test_a_bad_frame_size_is_one_line_and_status_2():
    done = bench("frame", "--size", "300x200")
    assert done.returncode == 2
    assert "--size" in done.stderr and "expected a width of 320 to 7680" in done.stderr


def test_every_count_and_model_is_timed_in_turns(monkeypatch):
    """Each repeat times ours and Bullet's at every count before the next repeat begins,
    so that all meet the same stretch of machine noise (per tank at 1000 against 100)."""
    from bench import vehicles
    from game.config import load_config

    order = []

    def recorded(harness, steps, warmup_steps):
        order.append((len(harness.bodies), harness.label))
        return {"ms_per_step": 1.0, "mean_distance_m": 1.0, "min_distance_m": 1.0,
                "finite": True}

    monkeypatch.setattr(vehicles, "_timed_run", recorded)
    report = vehicles.run(load_config(), counts=(1, 2), steps=1, repeats=2, warmup_steps=0)
    one_turn = [(1, "ours"), (1, "bullet_vehicle"), (2, "ours"), (2, "bullet_vehicle")]
    assert order == one_turn * 2
    assert [result["count"] for result in report["results"]] == [1, 2]
    assert all(len(result["ours"]["runs_ms_per_step"]) == 2 for result in report["results"])


def test_per_tank_growth_pairs_each_repeat_s_runs(monkeypatch):
    """Ours per tank at a count against the first count: each repeat's two runs compared,
    then the median, so that a slow minute in one repeat does not set one count's median
    against the other's."""
    from bench import vehicles
    from game.config import load_config

    # ms a step by (tanks, repeat): the second repeat ran in a minute three times slower.
    ours_ms = {(1, 0): 1.0, (2, 0): 2.4, (1, 1): 3.0, (2, 1): 7.2, (1, 2): 1.1, (2, 2): 2.2}
    seen = {}

    def recorded(harness, steps, warmup_steps):
        count = len(harness.bodies)
        repeat = seen.get((count, harness.label), 0)
        seen[(count, harness.label)] = repeat + 1
        ms = ours_ms[(count, repeat)] if harness.label == "ours" else 1.0
        return {"ms_per_step": ms, "mean_distance_m": 1.0, "min_distance_m": 1.0,
                "finite": True}

    monkeypatch.setattr(vehicles, "_timed_run", recorded)
    report = vehicles.run(load_config(), counts=(1, 2), steps=1, repeats=3, warmup_steps=0)
    first, second = report["results"]
    assert first["per_tank_growth"] == pytest.approx(1.0)
    # Each repeat's ratio: 1.2, 1.2, 1.0; the medians' (2.4 / 2 against 1.1) would say 1.09.
    assert second["per_tank_growth"] == second["ours"]["per_tank_growth"]
    assert second["per_tank_growth"] == pytest.approx(1.2)
    # The yardstick's own, the same way: 1 ms a step for both counts, half as much a tank.
    assert second["bullet_vehicle"]["per_tank_growth"] == pytest.approx(0.5)
    assert "per tank x" in vehicles.table(report) and "Bullet x" in vehicles.table(report)


def test_every_run_drives_the_same_tanks_the_same_way(monkeypatch):
    """Each timed run starts from nothing left by the run before (a world's contacts, a
    fleet's springs and gears): the repeats drive the very same paths, so that they time
    the same work."""
    from bench import vehicles
    from game.config import load_config

    timed_run = vehicles._timed_run
    ends = {"ours": [], "bullet_vehicle": []}

    def recorded(harness, steps, warmup_steps):
        figures = timed_run(harness, steps, warmup_steps)
        ends[harness.label].append(harness.positions())
        return figures

    monkeypatch.setattr(vehicles, "_timed_run", recorded)
    vehicles.run(load_config(), counts=(6,), steps=40, repeats=2, warmup_steps=20)
    for label, (first, second) in ends.items():
        assert first.tolist() == second.tolist(), label
        assert (first != 0.0).any()


@pytest.mark.slow
def test_a_big_desert_s_tiles_follow_the_tanks_by_the_game_s_rule(monkeypatch):
    """On ``desert:SIZE`` both harnesses stream the tiles and colliders round the tanks as
    the game does: worked out again once a tank has moved far enough, not every step."""
    from bench import vehicles
    from game.config import load_config
    from physics.model.terrain import MapChoice, build_terrain

    config = load_config()
    terrain = build_terrain(MapChoice.parse("desert:1024"), config.game.terrain, 1)
    streamed = []
    stream = terrain.stream
    monkeypatch.setattr(terrain, "stream", lambda points: streamed.append(1) or stream(points))
    points = vehicles.start_points(4, terrain)
    for model in (vehicles.AnchorTanks, vehicles.BulletVehicleTanks):
        streamed.clear()
        harness = model(config, terrain, points)
        try:
            for _ in range(90):
                harness.step()
            under = terrain.tiles_near(harness.positions()[:, :2], 0.0)
            assert set(under) <= set(harness.ground.colliders.tiles), model.label
            assert 1 <= len(streamed) < 10, model.label
        finally:
            harness.destroy()
