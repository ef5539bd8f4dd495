"""The penetration model (physics/model/penetration.py) and the shells' config
(config/shells.toml): what a shell pierces, a plate's effective thickness, the ricochet
and overmatch boundaries, and bad shells refused in one line."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from common.errors import UserError
from game.config import load_config
from physics.model.ammunition import ShellSpec
from physics.model.penetration import (BLOCKED, DE_MARRE_THICKNESS_POWER, OVERMATCH,
                                       PENETRATED, RICOCHET, effective_thickness_mm,
                                       penetration_mm, strike)
from tests.test_config import assert_names, set_key


@pytest.fixture(scope="module")
def shells():
    return load_config().shells


def test_penetration_rises_with_velocity_and_with_mass(shells):
    spec, ap = shells.penetration, shells.shells["ap"]
    speeds = [300.0, 500.0, 700.0, 900.0]
    pierced = [penetration_mm(ap, speed, spec) for speed in speeds]
    assert pierced == sorted(pierced) and pierced[0] < pierced[-1] / 3.0
    heavier = replace(ap, mass_kg=ap.mass_kg * 1.5)
    assert penetration_mm(heavier, 700.0, spec) > penetration_mm(ap, 700.0, spec)
    # de Marre: b grows as (v m^0.5)^(1/0.7): doubling the speed is 2^(1/0.7) the armour.
    assert penetration_mm(ap, 800.0, spec) / penetration_mm(ap, 400.0, spec) == pytest.approx(
        2.0 ** (1.0 / 0.7))


def test_an_apcr_shell_pierces_with_its_core_and_he_with_its_charge(shells):
    spec, all_shells = shells.penetration, shells.shells
    apcr, he = all_shells["apcr"], all_shells["he"]
    assert penetration_mm(apcr, 900.0, spec) > penetration_mm(all_shells["ap"], 900.0, spec)
    assert penetration_mm(he, 200.0, spec) == penetration_mm(he, 700.0, spec)
    bigger_charge = replace(he, explosive_mass_kg=he.explosive_mass_kg * 8.0)
    assert penetration_mm(bigger_charge, 700.0, spec) == pytest.approx(
        2.0 * penetration_mm(he, 700.0, spec))


@pytest.mark.parametrize("angle_deg, normalised_deg, expected_mm", [
    (0.0, 5.0, 80.0), (5.0, 5.0, 80.0), (65.0, 5.0, 160.0), (60.0, 0.0, 160.0)])
def test_the_effective_thickness_is_the_plate_over_the_cosine_after_normalisation(
        angle_deg, normalised_deg, expected_mm):
    assert effective_thickness_mm(80.0, angle_deg, normalised_deg) == pytest.approx(expected_mm)


def test_normalisation_turns_ap_more_than_apcr_and_he_not_at_all(shells):
    spec, all_shells = shells.penetration, shells.shells
    thickness_mm, angle_deg = 20.0, 40.0
    effective = {name: strike(shell, shell.muzzle_velocity_mps, angle_deg, thickness_mm,
                              spec).effective_mm for name, shell in all_shells.items()}
    assert effective["ap"] < effective["apcr"] < effective["he"]
    assert effective["he"] == pytest.approx(thickness_mm / math.cos(math.radians(angle_deg)))


def test_a_piercing_shell_glances_off_past_the_ricochet_angle(shells):
    spec, ap = shells.penetration, shells.shells["ap"]
    thick_mm = ap.calibre_mm / spec.overmatch_ratio * 1.5  # not overmatched
    limit = spec.ricochet_angle_deg
    assert strike(ap, 900.0, limit - 0.1, thick_mm, spec).result == PENETRATED
    assert strike(ap, 900.0, limit + 0.1, thick_mm, spec).result == RICOCHET
    assert strike(shells.shells["he"], 700.0, limit + 10.0, 5.0, spec).result == PENETRATED


def test_a_plate_the_calibre_overmatches_is_punched_whatever_its_slope(shells):
    spec, ap = shells.penetration, shells.shells["ap"]
    boundary_mm = ap.calibre_mm / spec.overmatch_ratio
    steep = spec.ricochet_angle_deg + 10.0
    overmatched = strike(ap, 900.0, steep, boundary_mm * 0.99, spec)
    assert overmatched.result == OVERMATCH and overmatched.pierced
    assert overmatched.effective_mm == pytest.approx(boundary_mm * 0.99)
    assert strike(ap, 900.0, steep, boundary_mm * 1.01, spec).result == RICOCHET


def test_the_same_shell_is_blocked_by_the_glacis_and_pierces_the_side(shells):
    spec, ap = shells.penetration, shells.shells["ap"]
    velocity = 800.0
    plate_mm = 0.6 * penetration_mm(ap, velocity, spec)  # one plate, met two ways
    glacis = strike(ap, velocity, 60.0, plate_mm, spec)
    side = strike(ap, velocity, 10.0, plate_mm, spec)
    assert glacis.result == BLOCKED and side.result == PENETRATED


def test_only_a_shell_that_gets_through_does_damage_and_more_with_armour_to_spare(shells):
    spec, ap = shells.penetration, shells.shells["ap"]
    blocked = strike(ap, 300.0, 0.0, 200.0, spec)
    assert blocked.result == BLOCKED and blocked.damage_share(spec) == 0.0
    barely = strike(ap, 900.0, 0.0, penetration_mm(ap, 900.0, spec) * 0.999, spec)
    easy = strike(ap, 900.0, 0.0, ap.calibre_mm / spec.overmatch_ratio * 1.2, spec)
    assert barely.damage_share(spec) == pytest.approx(spec.barely_through_damage_share,
                                                      abs=0.01)
    assert barely.damage_share(spec) < easy.damage_share(spec) <= 1.0


# ----- the config --------------------------------------------------------------------------


@pytest.mark.parametrize("table, key, raw, dotted, phrase", [
    ("shells.ap", "kind", '"sabot"', "shells.ap.kind", "'ap'"),
    ("shells.ap", "mass_kg", "0.0", "shells.ap.mass_kg", "a number in"),
    ("shells.ap", "calibre_mm", "-75.0", "shells.ap.calibre_mm", "a number in"),
    ("shells.apcr", "muzzle_velocity_mps", "0", "shells.apcr.muzzle_velocity_mps", "in"),
    ("shells.apcr", "core_calibre_mm", "80.0", "shells.apcr.core_calibre_mm",
     "less than the shell's calibre_mm"),
    ("shells.he", "explosive_mass_kg", "0.0", "shells.he.explosive_mass_kg", "above 0"),
    ("penetration", "ricochet_angle_deg", "95.0", "penetration.ricochet_angle_deg", "in"),
])
def test_a_bad_shell_names_file_key_and_what_was_expected(config_copy, table, key, raw,
                                                          dotted, phrase):
    path = config_copy / "shells.toml"
    set_key(path, table, key, raw)
    with pytest.raises(UserError) as caught:
        load_config(config_copy)
    assert_names(str(caught.value), path, dotted, phrase)


def test_a_key_of_another_kind_of_shell_is_refused(config_copy):
    path = config_copy / "shells.toml"
    path.write_text(path.read_text().replace('[shells.ap]\nkind = "ap"',
                                             '[shells.ap]\nkind = "ap"\ncore_mass_kg = 1.0'))
    with pytest.raises(UserError) as caught:
        load_config(config_copy)
    assert_names(str(caught.value), path, "shells.ap.core_mass_kg", "only apcr")


def test_an_unknown_key_or_table_is_refused(config_copy):
    path = config_copy / "shells.toml"
    path.write_text(path.read_text().replace("drag_coefficient = 0.40\ndamage = 45.0",
                                             "drag_coefficient = 0.40\ndamage = 45.0\nfuse = 1"))
    with pytest.raises(UserError) as caught:
        load_config(config_copy)
    assert_names(str(caught.value), path, "shells.ap.fuse", "no such key")
    path.write_text("[cannons]\nsize = 1\n" + path.read_text())
    with pytest.raises(UserError) as caught:
        load_config(config_copy)
    assert_names(str(caught.value), path, "cannons", "no such table")


@pytest.mark.parametrize("shell, said", [
    ("sabot", ("sabot", "ap, apcr, he")),         # no such shell: the shells named
    ("kwk43_apcr", ("75 mm", "88 mm"))],          # another gun's: both calibres named
    ids=["unknown", "another calibre"])
def test_a_gun_loading_a_shell_it_cannot_exits_2_in_one_line(config_copy, run_forked, shell,
                                                              said):
    path = config_copy / "tanks" / "medium.toml"
    path.write_text(path.read_text().replace('shell = "apcr"', f'shell = "{shell}"'))
    result = run_forked("--headless", "--seconds", "0.1", "--config", config_copy)
    assert result.returncode == 2, result.stderr
    [line] = result.stderr.strip().splitlines()
    assert str(path) in line and "gun.ammunition[1].shell" in line, line
    assert all(words in line for words in said), line


def test_a_shell_with_its_own_constant_pierces_by_it(config):
    """A shell calibrated on its own gun's table (penetration_constant) pierces by its
    constant, not its kind's: a smaller constant, more armour, as de Marre has it."""
    spec = config.shells.penetration
    shot = config.shells.shells["ap"]
    own = replace(shot, penetration_constant=spec.ap_constant * 0.8)
    ratio = penetration_mm(own, 800.0, spec) / penetration_mm(shot, 800.0, spec)
    assert ratio == pytest.approx(0.8 ** (-1.0 / DE_MARRE_THICKNESS_POWER), rel=1e-9)
    with pytest.raises(ValueError, match="penetration_constant"):
        replace(config.shells.shells["he"], penetration_constant=2000.0)
    with pytest.raises(ValueError, match="penetration_constant"):
        replace(shot, penetration_constant=100.0)


def test_a_shell_spec_checks_itself():
    with pytest.raises(ValueError, match="core_mass_kg"):
        ShellSpec("apcr", 4.0, 75.0, 1000.0, 0.4, 30.0, core_mass_kg=5.0, core_calibre_mm=30.0)
