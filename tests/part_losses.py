"""Hit points to take off a tank's parts, by name, as
:meth:`game.sim.part_damage.PartDamage.strike` takes them: the tests' one way to break
parts by hand."""

from __future__ import annotations

import numpy as np

from physics.model.parts import PART_NAMES


def losses(**hit_points: float) -> np.ndarray:
    """(P,) in :data:`~physics.model.parts.PART_NAMES`' order: each named part's loss, the
    rest none (ValueError for a name that is no part)."""
    taken = np.zeros(len(PART_NAMES))
    for name, loss in hit_points.items():
        taken[PART_NAMES.index(name)] = loss
    return taken
