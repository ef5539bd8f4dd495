"""A vehicle's hull: one rigid box whose origin is the centre of mass (its Bullet body is
:func:`physics.bullet.bodies.make_hull_body`)."""

from __future__ import annotations

from dataclasses import dataclass

from common.spec import Spec, SpecError, tuning


@dataclass(frozen=True)
class HullSpec(Spec):
    mass_kg: float = tuning("total mass", minimum=100.0, maximum=200000.0)
    half_extents_m: tuple[float, ...] = tuning("half width (x), half length (y), half height (z)"
                                               " of the hull box", minimum=0.1, maximum=10.0,
                                               length=(3, 3))
    centre_of_mass_drop_m: float = tuning("how far below the box's centre the centre of mass "
                                          "lies (low = hard to roll)", minimum=0.0,
                                          maximum=5.0)
    friction: float = tuning("Bullet friction of the hull against what it scrapes",
                             minimum=0.0, maximum=2.0)
    angular_damping: float = tuning("share of spin lost per second (calms pitching and "
                                    "rocking over bumps)", minimum=0.0, maximum=1.0)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.centre_of_mass_drop_m >= self.half_extents_m[2]:
            raise SpecError("centre_of_mass_drop_m", self.centre_of_mass_drop_m,
                            f"less than the half height {self.half_extents_m[2]}")
