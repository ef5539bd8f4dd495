"""Slip tyres: wheels that spin on their own and pull by how much they slip.

Each wheel is a spinning body with its own inertia (:class:`WheelSpinSpec`, which the
grip tyres' wheels share), turned by the engine and slowed by the brake (both through the drive's per-wheel command: a surface
speed to pull the rim toward, with at most a force at the rim). The tyre's pull
follows a curve of the combined slip, ``s = |(slip ratio / peak ratio, tan slip
angle / tan peak angle)|``: it rises to ``grip`` at ``s = 1`` and falls toward
``sliding_share`` of it beyond, so braking in a corner leaves less to turn
with. The peak grows less than in proportion to load (``load_sensitivity``).

The wheel's spin is integrated implicitly (the tyre force is linearised in the
spin), so stiff tyres on light wheels stay stable at the physics step. At
walking pace the anchors' stick-slip grip model takes over, so a braked car
stands still on a slope instead of creeping.

This is the tyre's spec; its maths is a stage of the anchor kernel
(:func:`physics.model.wheel_stages.slip_tyre`).
"""

from __future__ import annotations

from dataclasses import dataclass

from common.spec import Spec, tuning


@dataclass(frozen=True)
class WheelSpinSpec(Spec):
    """How a car's wheel spins on its own, whichever tyre model holds the ground: spun up
    by the engine in the air or in wheelspin, stopped by the brake until it locks, slowed
    by its bearings when nothing drives it."""

    wheel_inertia_kg_m2: float = tuning("each wheel's inertia about its axle, with what turns "
                                        "with it", minimum=0.05, maximum=100.0)
    bearing_drag_n_m: float = tuning("torque of the bearings and brake pads slowing a free "
                                     "wheel", minimum=0.0, maximum=1000.0)


@dataclass(frozen=True)
class SlipTyreSpec(Spec):
    peak_slip_ratio: float = tuning("slip ratio the tyre pulls hardest at", minimum=0.01,
                                    maximum=1.0)
    peak_slip_angle_deg: float = tuning("slip angle the tyre corners hardest at",
                                        minimum=0.5, maximum=45.0)
    sliding_share: float = tuning("share of the peak grip left well past the peak",
                                  minimum=0.05, maximum=1.0)
    load_sensitivity: float = tuning("k in grip x (load / static load)^-k", minimum=0.0,
                                     maximum=1.0)
    grip_model_below_kmh: float = tuning("below this the stick-slip grip model takes over",
                                         minimum=0.5, maximum=30.0)
