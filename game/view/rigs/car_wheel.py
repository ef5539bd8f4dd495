"""The drawn car's wheel: a knobbly tyre and a spoked rim, merged into one node.

The tread blocks are staggered across the tyre and the spokes are bright on a dark
rim, so a turning wheel shows it. The shape comes from the rig's
:class:`game.view.rigs.car_rig.CarRigSpec`.
"""

from __future__ import annotations

import math

import numpy as np
from panda3d.core import GeomNode

from game.view.draw.meshes import cylinder_mesh, loft_mesh, merged_node

TREAD_SINK_M = 0.005
"""Each tread block starts this far inside the tyre's core, so no seam shows between
them."""


def _tyre(radius: float, spec, outward: float) -> list:
    """The tyre's core with rounded shoulders, and its tread blocks."""
    w = spec.wheel_width_m / 2.0
    core = radius - spec.tread_depth_m
    shoulder = min(spec.tyre_shoulder_m, spec.tyre_shoulder_share * w)
    stations = np.array([-w, -w + shoulder, w - shoulder, w]) * outward
    pieces = [cylinder_mesh(
        "tyre", 0, stations, [core - shoulder, core, core, core - shoulder], spec.wheel_sides,
        [spec.tyre_colour] * (len(stations) - 1), smooth=False)]
    # Tread blocks, staggered across the tyre: the silhouette shows the wheel turning.
    blocks = spec.tread_blocks
    half_angle = spec.tread_block_share * math.pi / blocks
    inset, overlap = spec.tread_edge_inset_m, spec.tread_overlap_share
    for k in range(blocks):
        angle = k * math.tau / blocks
        corners = np.array([(r * math.cos(a), r * math.sin(a)) for r, a in (
            (core - TREAD_SINK_M, angle - half_angle), (radius, angle - half_angle),
            (radius, angle + half_angle), (core - TREAD_SINK_M, angle + half_angle))])
        x0, x1 = (-w + inset, overlap * w) if k % 2 == 0 else (-overlap * w, w - inset)
        rings = [np.column_stack([np.full(len(corners), x * outward), corners])
                 for x in (x0, x1)]
        pieces.append(loft_mesh("tread", rings, spec.tyre_colour))
    return pieces


def _rim(radius: float, spec, outward: float) -> list:
    """The rim in the tyre's outer face, its spokes and the hub cap."""
    w = spec.wheel_width_m / 2.0
    shoulder = min(spec.tyre_shoulder_m, spec.tyre_shoulder_share * w)
    rim = spec.rim_radius_share * radius
    face = w - 0.5 * shoulder
    back, front = spec.rim_span_m
    pieces = [cylinder_mesh("rim", 0, np.array([face + back, face + front]) * outward,
                            [rim, rim], spec.wheel_sides, [spec.rim_colour], smooth=False)]
    hub = spec.hub_radius_share * radius
    for k in range(spec.spokes):
        angle = k * math.tau / spec.spokes
        along = np.array([math.cos(angle), math.sin(angle)])
        across = np.array([-along[1], along[0]]) * spec.spoke_half_width_m
        reach = spec.spoke_reach_share
        section = np.array([along * hub - across, along * rim * reach - across,
                            along * rim * reach + across, along * hub + across])
        rings = [np.column_stack([np.full(len(section), x * outward), section])
                 for x in (face + spec.spoke_span_m[0], face + spec.spoke_span_m[1])]
        pieces.append(loft_mesh("spoke", rings, spec.spoke_colour))
    pieces.append(cylinder_mesh("hub", 0, np.array([face, face + spec.hub_length_m]) * outward,
                                [hub, hub * spec.hub_taper], spec.hub_sides,
                                [spec.spoke_colour], smooth=False))
    return pieces


def wheel_mesh(name: str, radius: float, spec, outward: float) -> GeomNode:
    """A wheel about the X axis, centred on the origin; ``outward`` (+1 or -1): the side its
    rim and spokes face. ``spec``: the rig's CarRigSpec."""
    return merged_node(name, _tyre(radius, spec, outward) + _rim(radius, spec, outward))
