"""The last two per-step values of something a view reads from the simulation.

Views draw between the last two fixed steps. Whatever a view reads per step
(the wheels' compression, steer and spin) is latched here when the vehicle's
state changes, so the view can blend the pair with the frame's alpha.
"""

from __future__ import annotations

from typing import Callable, Generic, TypeVar

Value = TypeVar("Value")


class StepLatch(Generic[Value]):
    """Calls ``read()`` once per new step; keeps that value and the one before it."""

    def __init__(self, read: Callable[[], Value]):
        self._read = read
        self._seen = None
        self.previous: Value | None = None
        self.current: Value | None = None

    def update(self, step_state) -> tuple[Value, Value]:
        """``step_state``: an object that changes identity every step (``vehicle.current``)."""
        if step_state is not self._seen:
            value = self._read()
            self.previous = value if self.current is None else self.current
            self.current = value
            self._seen = step_state
        return self.previous, self.current
