"""The shortened soak: a minute of an 8-tank battle with random inputs stays clean."""

from __future__ import annotations

from bench.soak import soak


def test_one_minute_of_an_eight_tank_battle_with_random_inputs_stays_clean():
    counters, samples = soak(minutes=1.0, bots=7, seed=2, report=lambda line: None)
    assert counters.non_finite == 0
    assert counters.below_ground == 0
    assert counters.shells_through == 0
    start, end = samples[0], samples[-1]
    # The handle map holds the world's bodies plus the shells in flight, and nothing more.
    assert end["handles"] - end["shells"] == start["handles"]
    assert end["bodies"] - end["shells"] == start["bodies"]
    assert counters.rounds >= 1  # random driving against seven bots: rounds do end
