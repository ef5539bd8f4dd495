"""The ``--map`` choice: which terrain a game is played on."""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class MapChoice:
    """A parsed ``--map`` value."""

    kind: str
    slope_deg: float = 0.0
    size_m: int | None = None
    """``desert:SIZE``: the side of a big desert made in tiles (None: the 512 m desert)."""

    MAX_SLOPE_DEG = 60.0
    DESERT_SIZES_M = (512, 16384)
    """The least and the greatest ``desert:SIZE``."""
    DESERT_SIZE_STEP_M = 512
    """A big desert's side is a whole number of these (of its tiles)."""

    @property
    def text(self) -> str:
        """The ``--map`` value that gives this choice."""
        if self.kind == "slope":
            return f"slope:{self.slope_deg:g}"
        return f"desert:{self.size_m}" if self.size_m is not None else self.kind

    @classmethod
    def parse(cls, text: str) -> "MapChoice":
        """Parse ``desert``, ``desert:SIZE``, ``flat``, ``slope:DEG`` or ``range``;
        ValueError says what was expected. The range is flat ground (steel plates stand
        on it)."""
        least, most = cls.DESERT_SIZES_M
        expected = (f"desert, desert:SIZE with SIZE in metres in [{least}, {most}] and a "
                    f"multiple of {cls.DESERT_SIZE_STEP_M}, flat, slope:DEG with DEG in "
                    f"[0, {cls.MAX_SLOPE_DEG:g}] or range")
        if text in ("desert", "flat", "range"):
            return cls(text)
        kind, _, value = text.partition(":")
        if kind == "slope":
            try:
                slope_deg = float(value)
            except ValueError:
                raise ValueError(expected) from None
            if math.isfinite(slope_deg) and 0.0 <= slope_deg <= cls.MAX_SLOPE_DEG:
                return cls("slope", slope_deg)
        if kind == "desert" and value.isdigit():
            size_m = int(value)
            if least <= size_m <= most and size_m % cls.DESERT_SIZE_STEP_M == 0:
                return cls("desert", size_m=size_m)
        raise ValueError(expected)
