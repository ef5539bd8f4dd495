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

    def stale(self, step_state) -> bool:
        """Whether ``step_state`` is a step this latch has not read yet."""
        return step_state is not self._seen

    def offer(self, step_state, value: Value) -> None:
        """Latch ``value``, read elsewhere (for many latches at once), as ``step_state``'s,
        unless that step is latched already."""
        if step_state is not self._seen:
            self.previous = value if self.current is None else self.current
            self.current = value
            self._seen = step_state

    def update(self, step_state) -> tuple[Value, Value]:
        """``step_state``: an object that changes identity every step (``vehicle.current``)."""
        if step_state is not self._seen:
            self.offer(step_state, self._read())
        return self.previous, self.current
