"""Fixed steps: their tuning, and the accumulator that turns rendered frames of any length
into whole physics steps.

Physics always advances in steps of exactly ``step_s``. Each rendered frame adds
its duration to an accumulator; whole steps are taken out of it, at most
``max_steps_per_frame`` of them, so a long hitch slows the game down instead of
making it take hundreds of steps at once (the classic "spiral of death"). What
is left over is the interpolation fraction the renderer blends the last two
steps with.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from common.spec import Spec, tuning


@dataclass(frozen=True)
class SimulationSpec(Spec):
    step_hz: float = tuning("fixed physics steps per simulated second", minimum=30.0,
                            maximum=1000.0)
    substeps: int = tuning("Bullet steps (and vehicle force updates) per fixed step",
                           minimum=1, maximum=16)
    max_steps_per_frame: int = tuning("most fixed steps one rendered frame may run; beyond it "
                                      "time slows instead of catching up", minimum=1, maximum=30)
    gravity_m_s2: float = tuning("downward acceleration of gravity", minimum=0.0, maximum=100.0)

    @property
    def step_s(self) -> float:
        return 1.0 / self.step_hz


class FixedStepClock:
    """Turns variable frame times into a count of fixed steps."""

    def __init__(self, step_s: float, max_steps_per_frame: int):
        if step_s <= 0:
            raise ValueError(f"step_s must be positive, got {step_s}")
        if max_steps_per_frame < 1:
            raise ValueError(f"max_steps_per_frame must be at least 1, got {max_steps_per_frame}")
        self.step_s = step_s
        self.max_steps_per_frame = max_steps_per_frame
        self._accumulated_s = 0.0
        self.dropped_s = 0.0
        """Frame time thrown away because a frame needed more than the allowed steps."""

    def advance(self, frame_s: float) -> int:
        """Add one frame's duration; return how many fixed steps to run now."""
        if not math.isfinite(frame_s):  # a broken clock reads as the longest hitch
            frame_s = (self.max_steps_per_frame + 1) * self.step_s
        self._accumulated_s += max(0.0, frame_s)
        steps = int(self._accumulated_s / self.step_s)
        if steps > self.max_steps_per_frame:
            excess_s = (steps - self.max_steps_per_frame) * self.step_s
            self.dropped_s += excess_s
            self._accumulated_s -= excess_s
            steps = self.max_steps_per_frame
        self._accumulated_s -= steps * self.step_s
        return steps

    @property
    def alpha(self) -> float:
        """How far the present lies between the last step and the next, in [0, 1)."""
        return min(max(self._accumulated_s / self.step_s, 0.0), 1.0)
