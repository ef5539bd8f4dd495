"""Slip tyres: wheels that spin on their own and pull by how much they slip.

Each wheel is a spinning body with its own inertia, turned by the engine and
slowed by the brake (both through the drive's per-wheel command: a surface
speed to pull the rim toward, with at most a force at the rim). The tyre's pull
follows a curve of the combined slip, ``s = |(slip ratio / peak ratio, tan slip
angle / tan peak angle)|``: it rises to ``grip`` at ``s = 1`` and falls toward
``sliding_share`` of it beyond, so braking in a corner leaves less to turn
with. The peak grows less than in proportion to load (``load_sensitivity``).

The wheel's spin is integrated implicitly (the tyre force is linearised in the
spin), so stiff tyres on light wheels stay stable at the physics step. At
walking pace the anchors' stick-slip grip model takes over, so a braked car
stands still on a slope instead of creeping.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from physics.model.spec import KMH_PER_MPS, Spec, tuning
from physics.model.anchors import (SLIP_REFERENCE_SPEED_MPS, TAU, AnchorConstants,
                                   AnchorModel, FlatCommand, GripSpec)

_DERIVATIVE_STEP_RAD_S = 1e-3
"""Spin change used to measure how the tyre force changes with spin."""


@dataclass(frozen=True)
class SlipTyreSpec(Spec):
    wheel_inertia_kg_m2: float = tuning("each wheel's inertia about its axle, with what turns "
                                        "with it", minimum=0.05, maximum=100.0)
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


class SlipTyreModel(AnchorModel):
    """The anchor core with slip tyres in place of the friction-circle grip."""

    def __init__(self, constants: AnchorConstants, grip: GripSpec, slip: SlipTyreSpec):
        super().__init__(constants, grip)
        self.slip = slip
        self._peak_angle_tan = math.tan(math.radians(slip.peak_slip_angle_deg))
        self._blend_mps = slip.grip_model_below_kmh / KMH_PER_MPS

    def _tyre_forces(self, spin, along_mps, across_mps, load, peak_grip):
        """Longitudinal and lateral tyre force for a spin, and whether past the peak."""
        spec = self.slip
        reference = np.maximum(np.abs(along_mps), SLIP_REFERENCE_SPEED_MPS)
        ratio = (spin * self.constants.wheel_radius_m - along_mps) / reference / spec.peak_slip_ratio
        angle = across_mps / reference / self._peak_angle_tan
        combined = np.hypot(ratio, angle)
        rising = combined * (2.0 - combined)
        falling = spec.sliding_share + (1.0 - spec.sliding_share) * np.exp(-(combined - 1.0) ** 2)
        grip = peak_grip * np.where(combined <= 1.0, rising, falling)
        scale = np.divide(grip * load, combined, out=np.zeros_like(load),
                          where=combined > 0.0)
        return scale * ratio, -scale * angle, combined > 1.0

    def _grip(self, hit, load, along_mps, across_mps, command: FlatCommand, substep_s):
        c, k, spec = self.constants, self._per_anchor, self.slip
        grip_along, grip_across, grip_sliding = super()._grip(hit, load, along_mps, across_mps,
                                                              command, substep_s)
        radius, inertia = c.wheel_radius_m, spec.wheel_inertia_kg_m2
        relative_load = np.maximum(load, np.finfo(float).tiny) / k.static_load_n
        peak = self.grip.grip * self.surface_grip * relative_load ** -spec.load_sensitivity
        contact_load = np.where(hit, load, 0.0)

        shape = self.spin_speed_rad_s.shape
        spin = self.spin_speed_rad_s.reshape(-1)
        force, _, _ = self._tyre_forces(spin, along_mps, across_mps, contact_load, peak)
        # Engine or brake: the rim force that would bring the wheel to the asked speed this
        # substep against the tyre's pull, within what they can give (a brake holds a
        # stopped wheel like static friction; it never turns it backwards).
        wanted = ((command.surface_speed_mps - spin * radius) * inertia / (radius ** 2 * substep_s)
                  + force)
        drive = np.clip(wanted, -command.force_limit_n, command.force_limit_n)
        nudged, _, _ = self._tyre_forces(spin + _DERIVATIVE_STEP_RAD_S, along_mps, across_mps,
                                         contact_load, peak)
        stiffness = (nudged - force) / _DERIVATIVE_STEP_RAD_S
        spin = spin + radius * (drive - force) / (inertia / substep_s + radius * stiffness)
        along, across, past_peak = self._tyre_forces(spin, along_mps, across_mps, contact_load,
                                                     peak)
        resistance = (self.grip.rolling_resistance + self.surface_rolling) * contact_load
        along = along + np.clip(-along_mps * k.mass_share_kg / substep_s, -resistance, resistance)

        # At walking pace the stick-slip model holds (and the wheel rolls with the ground).
        weight = np.where(hit, np.clip(np.abs(along_mps) / self._blend_mps, 0.0, 1.0), 1.0)
        grip_weight = 1.0 - weight
        self.spin_speed_rad_s = (weight * spin + grip_weight * along_mps / radius).reshape(shape)
        along = weight * along + grip_weight * grip_along
        across = weight * across + grip_weight * grip_across
        sliding = np.where(weight >= 0.5, past_peak, grip_sliding)
        return along, across, sliding

    def _spin(self, hit, sliding, ground_along_mps, command: FlatCommand, substep_s) -> None:
        """The spin was integrated with the tyre forces; only the angle is left to turn."""
        self.spin_angle_rad = (self.spin_angle_rad + self.spin_speed_rad_s * substep_s) % TAU
