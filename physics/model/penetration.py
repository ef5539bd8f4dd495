"""What a shell does to a plate it strikes: how much armour it can pierce, the plate's
effective thickness at the angle it is met, and the result (penetrated, blocked,
ricochet, overmatch). docs/armour.md sets our figures beside published tables.

Piercing shot follows de Marre's formula (1886), the naval and army ballisticians'
standard for uncapped and capped steel shot against rolled homogeneous armour:

    v = K · d^0.75 · b^0.7 / m^0.5

with v the striking velocity (m/s), d the calibre and b the thickness pierced (both in
decimetres), m the mass (kg) and K a constant of the shot and the armour steel, which we
calibrate against published tables (:class:`PenetrationSpec`). Solved for b:

    b = (v · m^0.5 / (K · d^0.75))^(1/0.7)

An APCR shell pierces with its core: its mass and calibre, and a constant of its own
(tungsten carbide bites deeper than steel of the same mass). High explosive pierces by
its charge alone, whatever its speed: ``he_constant_mm`` times the cube root of the
charge's mass (the blast's reach scales with it).

At an angle the plate is thicker along the shell's path: its thickness over the cosine
of the angle from the plate's normal, after normalisation (a piercing shell's nose bites
and turns it a few degrees towards the normal). Past ``ricochet_angle_deg`` a piercing
shell glances off, unless its calibre overmatches the plate (``overmatch_ratio`` times
its thickness or more): a plate that thin is punched through however it is sloped, so
its thickness counts as it is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping

from common.spec import Spec, tuning
from physics.model.ammunition import APCR, HE, AirSpec, ShellSpec

DE_MARRE_CALIBRE_POWER = 0.75
DE_MARRE_THICKNESS_POWER = 0.7
DE_MARRE_MASS_POWER = 0.5
MM_PER_DM = 100.0

PENETRATED, BLOCKED, RICOCHET, OVERMATCH = "penetrated", "blocked", "ricochet", "overmatch"
RESULTS = (PENETRATED, BLOCKED, RICOCHET, OVERMATCH)
PIERCED = (PENETRATED, OVERMATCH)
"""The results in which the shell got through the plate."""


@dataclass(frozen=True)
class PenetrationSpec(Spec):
    """config/shells.toml ``[penetration]``: the constants of the penetration model."""

    ap_constant: float = tuning("de Marre's K for full-calibre steel shot",
                                minimum=500.0, maximum=10000.0)
    apcr_constant: float = tuning("de Marre's K for an APCR shell's core", minimum=500.0,
                                  maximum=10000.0)
    he_constant_mm: float = tuning("armour a high-explosive shell pierces per cube root of "
                                   "a kilogram of charge", minimum=0.0, maximum=1000.0)
    ap_normalisation_deg: float = tuning("how far an AP shell turns towards the plate's "
                                         "normal as it bites", minimum=0.0, maximum=20.0)
    apcr_normalisation_deg: float = tuning("the same for an APCR core", minimum=0.0,
                                           maximum=20.0)
    ricochet_angle_deg: float = tuning("a piercing shell meeting a plate further than this "
                                       "from its normal glances off", minimum=30.0,
                                       maximum=89.0)
    overmatch_ratio: float = tuning("a calibre this many times the plate's thickness "
                                    "punches it whatever its slope", minimum=1.0,
                                    maximum=10.0)
    ricochet_speed_share: float = tuning("share of its speed a shell keeps as it glances "
                                         "off", minimum=0.0, maximum=1.0)
    barely_through_damage_share: float = tuning("share of its damage a shell that only "
                                                "just gets through does (one with armour "
                                                "to spare does all of it)", minimum=0.0,
                                                maximum=1.0)
    uncertain_share: float = tuning("the crosshair calls a shot uncertain when what the "
                                    "shell pierces is within this share of the armour "
                                    "either way (the spread of the shots, the aim)",
                                    minimum=0.0, maximum=0.5)


def penetration_mm(shell: ShellSpec, velocity_mps: float, spec: PenetrationSpec) -> float:
    """Armour (mm, square on) the shell pierces striking at ``velocity_mps``."""
    if shell.kind == HE:
        return spec.he_constant_mm * shell.explosive_mass_kg ** (1.0 / 3.0)
    constant = (shell.penetration_constant
                or (spec.apcr_constant if shell.kind == APCR else spec.ap_constant))
    calibre_dm = shell.piercing_calibre_mm / MM_PER_DM
    pierced_dm = (max(velocity_mps, 0.0) * shell.piercing_mass_kg ** DE_MARRE_MASS_POWER
                  / (constant * calibre_dm ** DE_MARRE_CALIBRE_POWER)
                  ) ** (1.0 / DE_MARRE_THICKNESS_POWER)
    return pierced_dm * MM_PER_DM


def normalisation_deg(shell: ShellSpec, spec: PenetrationSpec) -> float:
    if shell.kind == HE:
        return 0.0
    return spec.apcr_normalisation_deg if shell.kind == APCR else spec.ap_normalisation_deg


def overmatches(shell: ShellSpec, thickness_mm: float, spec: PenetrationSpec) -> bool:
    """Whether the shell's piercing calibre dwarfs the plate (a high-explosive shell
    pierces by its charge, never by overmatch)."""
    return shell.kind != HE and shell.piercing_calibre_mm >= spec.overmatch_ratio * thickness_mm


def effective_thickness_mm(thickness_mm: float, angle_deg: float, normalised_deg: float
                           ) -> float:
    """The plate's thickness along the shell's path, after it turned ``normalised_deg``
    towards the normal."""
    angle = math.radians(max(0.0, min(angle_deg - normalised_deg, 89.9)))
    return thickness_mm / math.cos(angle)


@dataclass(frozen=True)
class Strike:
    """What happened where a shell met a plate."""

    result: str
    """One of :data:`RESULTS`."""
    thickness_mm: float
    angle_deg: float
    """From the plate's normal: 0 is square on."""
    effective_mm: float
    """The thickness along the shell's path (as it is, overmatched)."""
    penetration_mm: float
    """What the shell could pierce, square on, at its striking velocity."""

    @property
    def pierced(self) -> bool:
        return self.result in PIERCED

    def damage_share(self, spec: PenetrationSpec) -> float:
        """Of the shell's damage, what this strike does: none unless it got through; then
        from ``barely_through_damage_share`` (no armour to spare) to all of it (the plate
        took nothing of it)."""
        if not self.pierced:
            return 0.0
        spare = 1.0 - self.effective_mm / self.penetration_mm if self.penetration_mm else 0.0
        least = spec.barely_through_damage_share
        return least + (1.0 - least) * min(max(spare, 0.0), 1.0)


def strike(shell: ShellSpec, velocity_mps: float, angle_deg: float, thickness_mm: float,
           spec: PenetrationSpec) -> Strike:
    """The result of ``shell`` meeting a plate ``thickness_mm`` thick at ``angle_deg`` from
    its normal, at ``velocity_mps``."""
    pierces_mm = penetration_mm(shell, velocity_mps, spec)
    if overmatches(shell, thickness_mm, spec):
        result = OVERMATCH if pierces_mm >= thickness_mm else BLOCKED
        return Strike(result, thickness_mm, angle_deg, thickness_mm, pierces_mm)
    effective_mm = effective_thickness_mm(thickness_mm, angle_deg,
                                          normalisation_deg(shell, spec))
    if shell.kind != HE and angle_deg > spec.ricochet_angle_deg:
        result = RICOCHET
    else:
        result = PENETRATED if pierces_mm >= effective_mm else BLOCKED
    return Strike(result, thickness_mm, angle_deg, effective_mm, pierces_mm)


@dataclass(frozen=True)
class ShellsConfig:
    """config/shells.toml: every shell by name, the air they fly through, and the
    penetration model's constants."""

    shells: Mapping[str, ShellSpec]
    air: AirSpec
    penetration: PenetrationSpec
