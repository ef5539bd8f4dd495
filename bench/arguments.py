"""Argument types the benchmarks and the soak share: values checked as the game checks
them, so a bad one is one line and exit status 2."""

from __future__ import annotations

import argparse

from physics.model.terrain import MapChoice


def map_name(text: str) -> str:
    """A ``--map`` value, checked as the game checks it."""
    try:
        MapChoice.parse(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"{text!r}: expected {error}") from None
    return text
