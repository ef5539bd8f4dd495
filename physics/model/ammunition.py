"""The shells a gun fires (config/shells.toml): what each is made of, and the air it flies
through.

A shell is armour-piercing shot (``ap``: full-calibre steel), armour-piercing composite
rigid (``apcr``: a light body round a dense sub-calibre core, faster and losing speed
sooner) or high explosive (``he``: a thin case round a charge). Its mass, calibre and
drag coefficient decide how it flies (:mod:`physics.model.ballistics`); its mass and
calibre (an APCR's core's) and its striking velocity how much armour it pierces
(:mod:`physics.model.penetration`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Sequence

from common.spec import Spec, SpecError, tuning

AP, APCR, HE = "ap", "apcr", "he"
SHELL_KINDS = (AP, APCR, HE)
MM_PER_M = 1000.0
MIN_DE_MARRE_CONSTANT = 500.0
"""The least de Marre constant a shell may state (as [penetration]'s)."""
AMMUNITION_SLOTS = 8
"""The most shells a gun lists (its ammunition slots, numbered from 0)."""


@dataclass(frozen=True)
class ShellSpec(Spec):
    """One kind of shell: a table ``[shells.NAME]`` of config/shells.toml."""

    kind: str = tuning('"ap" (full-calibre shot), "apcr" (a core in a light body) or "he" '
                       "(high explosive)", choices=SHELL_KINDS)
    mass_kg: float = tuning("the whole shell's mass", minimum=0.01, maximum=200.0)
    calibre_mm: float = tuning("its diameter", minimum=5.0, maximum=500.0)
    muzzle_velocity_mps: float = tuning("its speed leaving the gun", minimum=50.0,
                                        maximum=3000.0)
    drag_coefficient: float = tuning("air drag against the calibre's cross-section",
                                     minimum=0.01, maximum=2.0)
    damage: float = tuning("damage a penetration does at most (it carries less when it "
                           "barely gets through)", minimum=0.0, maximum=10000.0)
    core_mass_kg: float = tuning("apcr: the core's mass", minimum=0.0, maximum=200.0,
                                 default=0.0)
    core_calibre_mm: float = tuning("apcr: the core's diameter", minimum=0.0, maximum=500.0,
                                    default=0.0)
    explosive_mass_kg: float = tuning("he: the charge's mass", minimum=0.0, maximum=100.0,
                                      default=0.0)
    splash_damage: float = tuning("he: damage at the blast's centre, falling to none at its "
                                  "radius", minimum=0.0, maximum=10000.0, default=0.0)
    splash_radius_m: float = tuning("he: the blast's reach", minimum=0.0, maximum=100.0,
                                    default=0.0)
    penetration_constant: float = tuning(
        "ap, apcr: de Marre's K for this shell alone, calibrated on its own gun's table (0: "
        "its kind's, [penetration])", minimum=0.0, maximum=10000.0, default=0.0)

    def __post_init__(self) -> None:
        super().__post_init__()
        own = {APCR: ("core_mass_kg", "core_calibre_mm"),
               HE: ("explosive_mass_kg", "splash_damage", "splash_radius_m")}
        for kind, keys in own.items():
            for key in keys:
                value = getattr(self, key)
                if self.kind == kind and value <= 0.0:
                    raise SpecError(key, value, f"above 0 for an {kind} shell")
                if self.kind != kind and value != 0.0:
                    raise SpecError(key, value, f"no {key} on an {self.kind} shell (only {kind})")
        if self.kind == APCR:
            if self.core_mass_kg >= self.mass_kg:
                raise SpecError("core_mass_kg", self.core_mass_kg,
                                f"less than the shell's mass_kg ({self.mass_kg})")
            if self.core_calibre_mm >= self.calibre_mm:
                raise SpecError("core_calibre_mm", self.core_calibre_mm,
                                f"less than the shell's calibre_mm ({self.calibre_mm})")
        if self.kind == HE and self.penetration_constant != 0.0:
            raise SpecError("penetration_constant", self.penetration_constant,
                            "none on an he shell (its charge decides what it pierces)")
        if 0.0 < self.penetration_constant < MIN_DE_MARRE_CONSTANT:
            raise SpecError("penetration_constant", self.penetration_constant,
                            f"0 (its kind's) or at least {MIN_DE_MARRE_CONSTANT:g}")
        if self.kind == HE and self.explosive_mass_kg >= self.mass_kg:
            raise SpecError("explosive_mass_kg", self.explosive_mass_kg,
                            f"less than the shell's mass_kg ({self.mass_kg})")

    @cached_property
    def radius_m(self) -> float:
        return self.calibre_mm / MM_PER_M / 2.0

    @cached_property
    def cross_section_m2(self) -> float:
        return math.pi * self.radius_m ** 2

    @cached_property
    def piercing_mass_kg(self) -> float:
        """What strikes the plate: the whole shot, or an APCR's core."""
        return self.core_mass_kg if self.kind == APCR else self.mass_kg

    @cached_property
    def piercing_calibre_mm(self) -> float:
        return self.core_calibre_mm if self.kind == APCR else self.calibre_mm

    def drag_per_m(self, air_density_kg_m3: float) -> float:
        """k in the drag deceleration k v² (per metre): ½ ρ C_d A / m."""
        return 0.5 * air_density_kg_m3 * self.drag_coefficient * self.cross_section_m2 \
            / self.mass_kg


@dataclass(frozen=True)
class AirSpec(Spec):
    """The air the shells fly through."""

    density_kg_m3: float = tuning("air density (sea level, 15 °C: 1.225)", minimum=0.1,
                                  maximum=2.0)


@dataclass(frozen=True)
class AmmunitionLoad(Spec):
    """One of the shells a gun fires, and how many it carries."""

    shell: str = tuning("the name of a table [shells.NAME] in config/shells.toml")
    rounds: int = tuning("how many it carries at the start of a round", minimum=0,
                         maximum=1000)


@dataclass
class AmmunitionState:
    """What one gun carries: rounds left per ammunition slot (the gun's ``ammunition`` in
    order), the slot whose shell is in the breech or being loaded into it, and the slot
    the gunner has selected for the next reload.

    ``rounds`` counts every round of a slot, the one in the breech too: a shot takes one
    of the loaded slot's. Choosing a slot changes only what the next reload loads: the
    shell in the breech stays there until it is fired. Firing reloads with the selected
    slot, or, where it has no rounds left, with the next slot after it (in order, round
    to the first) that has; with no round left at all nothing is loaded (``loaded`` None)
    and the gun cannot fire."""

    rounds: list[int] = field(default_factory=list)
    loaded: int | None = None
    selected: int = 0

    @classmethod
    def carried(cls, loads: Sequence[AmmunitionLoad]) -> AmmunitionState:
        """A gun's ammunition at the start of a round: every slot full, the first with
        rounds loaded and selected."""
        state = cls()
        state.restock(loads)
        return state

    def restock(self, loads: Sequence[AmmunitionLoad]) -> None:
        """Every slot full again (a new round, a respawn); the first slot selected and the
        first with rounds loaded."""
        self.rounds = [load.rounds for load in loads]
        self.selected = 0
        self.loaded = self._with_rounds_from(0)

    @property
    def can_fire(self) -> bool:
        return self.loaded is not None

    def choose(self, slot: int) -> None:
        """Select ``slot`` for the next reload (a slot the gun does not have is ignored;
        an empty one is selected, and the reload passes it by)."""
        if 0 <= slot < len(self.rounds):
            self.selected = slot

    def choose_next(self) -> None:
        """Select the next slot after the selected one that has rounds (round to the
        first); with no other slot holding any, the selection stays."""
        count = len(self.rounds)
        for step in range(1, count):
            slot = (self.selected + step) % count
            if self.rounds[slot] > 0:
                self.selected = slot
                return

    def fired(self) -> None:
        """A round of the loaded slot is gone; the reload takes the selected slot (or the
        next with rounds)."""
        if self.loaded is None:
            return
        self.rounds[self.loaded] -= 1
        self.loaded = self._with_rounds_from(self.selected)

    def _with_rounds_from(self, first: int) -> int | None:
        """The first slot from ``first`` on (round to the start) with rounds left."""
        count = len(self.rounds)
        for step in range(count):
            slot = (first + step) % count
            if self.rounds[slot] > 0:
                return slot
        return None
