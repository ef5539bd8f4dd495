"""``python -m bench.lockstep``: two checkouts' battles, each in a process of its own,
stepped in turn; here the same checkout twice."""

from __future__ import annotations

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
