"""``python -m bench penetration``: the rows' shape, penetration falling with range, the
30-degree rows as the plate they pierce, ``--config DIR``; and the shipped shells kept
calibrated against the published German test figures for the 7.5 cm KwK 42 (docs/armour.md).
"""

from __future__ import annotations

import json
import math
import shutil

import pytest

from bench.penetration import ANGLES_DEG, RANGES_M, rows
from game.config import load_config
from physics.model.penetration import normalisation_deg
from tests.conftest import CONFIG_DIR
from tests.test_bench import bench

ROW_KEYS = {"shell", "range_m", "angle_deg", "impact_velocity_mps", "penetration_mm"}
PUBLISHED_30_DEG_MM = {
    # Pzgr. 39/42 (APCBC, 6.8 kg, 925 m/s) and Pzgr. 40/42 (APCR, 4.75 kg, 1120 m/s)
    # against a plate at 30 degrees, at 100, 500, 1000, 1500 and 2000 m.
    "ap": (138.0, 124.0, 111.0, 99.0, 89.0),
    "apcr": (194.0, 174.0, 150.0, 127.0, 106.0),
    # The heavy tank's 8.8 cm KwK 43: Pzgr. 39/43 (APCBC, 10.16 kg, 1000 m/s) and Pzgr. 40/43
    # (APCR, 7.3 kg, 1130 m/s), the same trials' figures; each shell has its own calibrated
    # constant and drag (the 75 mm's constants put ours 7 to 16 % under them).
    "kwk43_ap": (203.0, 185.0, 165.0, 148.0, 132.0),
    "kwk43_apcr": (237.0, 217.0, 193.0, 171.0, 153.0),
}
CALIBRATED_WITHIN = 0.20
"""The most any of our figures may stray from the published one, as a share of it."""


@pytest.fixture(scope="module")
def report() -> dict:
    done = bench("penetration", "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["results"]["penetration"]


def test_every_shell_has_a_row_at_every_range_and_angle(report):
    shells = load_config().shells
    assert report["parameters"]["ranges_m"] == list(RANGES_M)
    assert report["parameters"]["angles_deg"] == list(ANGLES_DEG)
    results = report["results"]
    assert all(set(row) == ROW_KEYS for row in results)
    assert {(row["shell"], row["range_m"], row["angle_deg"]) for row in results} == {
        (name, range_m, angle_deg) for name in shells.shells for range_m in RANGES_M
        for angle_deg in ANGLES_DEG}
    assert len(results) == len(shells.shells) * len(RANGES_M) * len(ANGLES_DEG)


def test_shells_slow_and_pierce_less_with_range_and_at_an_angle(report):
    shells = load_config().shells
    for name, shell in shells.shells.items():
        for angle_deg in ANGLES_DEG:
            mine = [row for row in report["results"]
                    if row["shell"] == name and row["angle_deg"] == angle_deg]
            speeds = [row["impact_velocity_mps"] for row in mine]
            pierced = [row["penetration_mm"] for row in mine]
            assert speeds == sorted(speeds, reverse=True) and speeds[0] < \
                shell.muzzle_velocity_mps
            if shell.kind == "he":  # its charge's, whatever its speed
                assert len(set(pierced)) == 1
            else:
                assert all(near > far for near, far in zip(pierced, pierced[1:])), name
        square, sloped = ([row["penetration_mm"] for row in report["results"]
                           if row["shell"] == name and row["angle_deg"] == angle_deg]
                          for angle_deg in ANGLES_DEG)
        turned = math.radians(ANGLES_DEG[1] - normalisation_deg(shell, shells.penetration))
        assert sloped == pytest.approx([mm * math.cos(turned) for mm in square], abs=0.1)


def test_another_config_folder_gives_its_own_figures(tmp_path, report):
    folder = tmp_path / "config"
    shutil.copytree(CONFIG_DIR, folder)
    path = folder / "shells.toml"
    text = path.read_text(encoding="utf-8")
    assert "ap_constant = 2209.0" in text
    path.write_text(text.replace("ap_constant = 2209.0", "ap_constant = 3000.0"),
                    encoding="utf-8")
    done = bench("penetration", "--json", "--config", str(folder))
    assert done.returncode == 0, done.stderr
    theirs = json.loads(done.stdout)["results"]["penetration"]["results"]
    shells = load_config().shells.shells
    for ours, other in zip(report["results"], theirs):
        assert ours["impact_velocity_mps"] == other["impact_velocity_mps"]
        shell = shells[ours["shell"]]
        if shell.kind == "ap" and not shell.penetration_constant:  # the kind's constant
            assert other["penetration_mm"] < ours["penetration_mm"]
        else:
            assert other["penetration_mm"] == ours["penetration_mm"]


@pytest.mark.parametrize("shell_name", sorted(PUBLISHED_30_DEG_MM))
def test_the_shipped_shells_pierce_within_a_fifth_of_the_published_figures(shell_name):
    """The rows docs/armour.md tabulates, from the shipped config: every range from 100 to
    2000 m within 20 % of the published figure (the calibration keeps them within 2 %)."""
    ours = [row for row in rows(load_config())
            if row["shell"] == shell_name and row["angle_deg"] == 30.0]
    assert [row["range_m"] for row in ours] == list(RANGES_M)
    for row, published_mm in zip(ours, PUBLISHED_30_DEG_MM[shell_name]):
        assert abs(row["penetration_mm"] / published_mm - 1.0) <= CALIBRATED_WITHIN, row
