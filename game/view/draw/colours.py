"""Colour fields of the view's specs: red, green and blue (and opacity), each checked to lie
in 0..``maximum`` as the spec is made."""

from __future__ import annotations

from typing import Any

from common.spec import tuning


def rgb(doc: str, maximum: float = 1.0) -> Any:
    """A colour field: red, green and blue, each 0..``maximum`` (above 1: brighter than
    white, for light)."""
    return tuning(doc + ", RGB", minimum=0.0, maximum=maximum, length=(3, 3))


def rgba(doc: str, maximum: float = 1.0) -> Any:
    """A colour field with opacity: red, green, blue and alpha."""
    return tuning(doc + ", RGBA", minimum=0.0, maximum=maximum, length=(4, 4))
