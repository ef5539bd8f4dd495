"""The kinds of vehicle a fleet drives (:class:`physics.bullet.fleet.VehicleFleet`): each
kind's spec and what follows from it, and each vehicle's rows of those numbers, which the
fleet's steps read over all its vehicles at once."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from physics.bullet.hull_body import collider_hull
from physics.bullet.obstacles import RAY_SLACK_M
from physics.model.anchors import AnchorConstants, derive_constants
from physics.model.hull import HullSpec


@dataclass(frozen=True)
class FleetKind:
    """One kind of vehicle in a fleet: its spec and what the fleet derives from it."""

    spec: Any
    """:class:`physics.model.tracks.TankSpec` or :class:`physics.model.wheels.CarSpec`."""
    constants: AnchorConstants
    collider_hull: HullSpec
    """The hull box grown to hold the body's whole collider (a tank's turret at any
    heading): what the near tests and the hull's pairs measure."""
    collider_reach_m: float
    """Every point of the collider lies within this of the centre of mass."""
    reach_m: float
    """Radius around the centre of mass that holds the hull and every ray."""
    hull_box_half_m: np.ndarray
    """The box round the hull's collider grown by the slack: a ray missing it misses the
    hull."""

    @staticmethod
    def of(spec, gravity_m_s2: float) -> FleetKind:
        constants = derive_constants(spec.suspension, spec.grip, spec.hull.mass_kg,
                                     gravity_m_s2, tracked=spec.tracked)
        hull = collider_hull(spec)
        half = np.asarray(hull.half_extents_m)
        collider_reach_m = float(np.linalg.norm(half) + hull.centre_of_mass_drop_m)
        return FleetKind(spec, constants, hull, collider_reach_m,
                         collider_reach_m + constants.rest_length_m, half + RAY_SLACK_M)


class VehicleRows(NamedTuple):
    """Per vehicle, its kind's numbers that the steps read."""

    collider_reach_m: np.ndarray
    """(V,) every point of its collider lies within this of its centre of mass."""
    hull_drop_m: np.ndarray
    """(V,) how far its hull box's centre stands below its centre of mass."""
    hull_box_half_m: np.ndarray
    """(V, 3) its hull box grown by the rays' slack."""
    ray_length_m: np.ndarray
    """(V,)"""
    patch_offset_m: np.ndarray
    """(V, A) from each anchor to the centre of the stretch of track it carries."""
    static_load_n: np.ndarray
    """(V, A) each anchor's share of the weight."""
    left_anchors: np.ndarray
    """(V, A) which anchors carry the left track."""


def vehicle_rows(kinds: list[FleetKind], kind_numbers: np.ndarray) -> VehicleRows:
    """Each vehicle's numbers the steps read, from its kind (``kind_numbers`` (V,))."""
    chosen = [kinds[kind] for kind in kind_numbers.tolist()]
    anchors = len(kinds[0].constants.position_bs)
    return VehicleRows(
        np.array([kind.collider_reach_m for kind in chosen]),
        np.array([kind.collider_hull.centre_of_mass_drop_m for kind in chosen]),
        np.array([kind.hull_box_half_m for kind in chosen]).reshape(-1, 3),
        np.array([kind.constants.ray_length_m for kind in chosen]),
        np.array([kind.constants.patch_offset_m for kind in chosen]).reshape(-1, anchors),
        np.array([kind.constants.static_load_n for kind in chosen]).reshape(-1, anchors),
        np.array([kind.constants.position_bs[:, 0] < 0.0 for kind in chosen],
                 dtype=bool).reshape(-1, anchors))
