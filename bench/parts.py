"""Time by part: timed wrappers set in place of the methods of the game's own objects, so
that a benchmark can say where a step's or a frame's time goes without a profiler (which
slows small calls many times over and shifts the split)."""

from __future__ import annotations

import time


class PartTimer:
    """Seconds spent in each of ``parts``, summed over the wrapped methods of each part
    until :meth:`take` reads and resets them: wall time, or whatever ``clock`` counts (a
    function returning seconds; ``time.thread_time``: this thread's processor time). A
    wrapper costs a fraction of a microsecond a call: set them on the few calls a step or
    a frame makes per part, not inner loops."""

    def __init__(self, parts, clock=time.perf_counter):
        self.spent_s = dict.fromkeys(parts, 0.0)
        self.clock = clock

    def wrap(self, owner, name: str, part: str) -> None:
        """Time ``owner.name`` (a bound method, replaced on the object) as ``part``."""
        spent = self.spent_s
        if part not in spent:
            raise ValueError(f"{part!r} is not one of the parts {tuple(spent)}")
        function, clock = getattr(owner, name), self.clock

        def timed(*arguments, **keywords):
            began = clock()
            try:
                return function(*arguments, **keywords)
            finally:
                spent[part] += clock() - began
        setattr(owner, name, timed)

    def take(self) -> dict[str, float]:
        """Milliseconds spent in each part since the last call (or since the start)."""
        taken = {part: spent_s * 1000.0 for part, spent_s in self.spent_s.items()}
        self.clear()
        return taken

    def clear(self) -> None:
        for part in self.spent_s:
            self.spent_s[part] = 0.0
