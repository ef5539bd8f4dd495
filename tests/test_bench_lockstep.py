"""``python -m bench.lockstep``: two checkouts' battles, each in a process of its own,
stepped in turn; here the same checkout twice."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest

from bench import lockstep


def test_two_checkouts_battles_take_as_many_steps_each_in_turn(repo_root, config):
    report = lockstep.run(str(repo_root), f"{repo_root}:heavy", seed=2, tanks=2,
                          seconds=0.25, map_text="flat")
    steps = round(0.25 * config.game.simulation.step_hz)
    assert report["steps"] == [steps, steps]
    ms = report["ms_per_step"]
    assert ms["before"] > 0.0 and ms["after"] > 0.0
    assert report["after_speed"] == pytest.approx(ms["before"] / ms["after"], rel=0.01)
    assert report["parameters"]["map"] == "flat"
    assert report["bots_driven_at_random"] == [0, 0]


def test_random_bots_drive_every_bots_tank_at_random_in_both(repo_root):
    report = lockstep.run(str(repo_root), str(repo_root), seed=3, tanks=3, seconds=0.1,
                          map_text="flat", random_bots=True)
    assert report["bots_driven_at_random"] == [2, 2]
    assert report["parameters"]["random_bots"] is True


def test_a_folder_that_is_not_a_checkout_is_one_line_and_exit_2(tmp_path, repo_root):
    done = subprocess.run([sys.executable, "-m", "bench.lockstep", str(tmp_path),
                           str(repo_root)], cwd=repo_root, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2
    assert str(tmp_path) in done.stderr.strip().splitlines()[-1]
    assert "expected a checkout of the game" in done.stderr


def test_starts_set_both_battles_vehicles_down_there_by_name(repo_root):
    starts = {"player": [12.0, -25.0, 90.0], "bot-1": [-40.0, 30.0, 200.0]}
    report = lockstep.run(str(repo_root), str(repo_root), seed=2, tanks=2, seconds=0.05,
                          map_text="flat", starts=starts)
    assert report["placed"] == [2, 2]
    for placed_at in report["starts"]:
        for name, (x_m, y_m, heading_deg) in starts.items():
            assert placed_at[name][:2] == pytest.approx([x_m, y_m], abs=0.2)
            assert math.remainder(placed_at[name][2] - heading_deg, 360.0) == pytest.approx(
                0.0, abs=1.0)


def test_same_start_sets_the_befores_vehicles_where_the_afters_start(repo_root):
    report = lockstep.run(str(repo_root), str(repo_root), seed=4, tanks=3, seconds=0.05,
                          map_text="flat", same_start=True)
    assert report["placed"] == [3, 0]
    before, after = report["starts"]
    assert sorted(before) == sorted(after) == ["bot-1", "bot-2", "player"]
    for name, (x_m, y_m, _) in after.items():
        assert before[name][:2] == pytest.approx([x_m, y_m], abs=0.2)
