"""Where a world point shows on a view's 2-D overlay, or, when it is off the view (or
behind the camera), where on the view's edge to point toward it.

The overlay is the view's aspect2d: x from -aspect to +aspect, y from -1 to +1. A point
in front of the camera and inside its field of view is where the lens draws it. Any other
point is placed on a rectangle ``margin`` inside the view's edges, along the direction
from the view's middle toward it: for a point in front, the direction of its projection;
for one behind the camera, its side (left or right) and down, so a target straight behind
is pointed at from the bottom edge and one behind to the right from the bottom right.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from panda3d.core import NodePath, Point3

TINY = 1e-9
ARRAYS_FROM_POINTS = 16
""":func:`places_on_overlay` works on arrays from this many points on (numpy's cost per
call outweighs the arithmetic below that) and places fewer one at a time."""


@dataclass(frozen=True)
class Placement:
    """A point's place on the overlay."""

    x: float
    y: float
    on_screen: bool
    toward_rad: float
    """Off screen: the direction from the view's middle toward the point, counterclockwise
    from +x (right); 0 on screen."""


def place_on_overlay(local, tan_half_fov: tuple[float, float], aspect: float,
                     margin: float) -> Placement:
    """``local``: the point in the camera's frame (x right, y forward, z up);
    ``tan_half_fov``: tangents of half the horizontal and vertical fields of view."""
    x, depth, z = (float(value) for value in local)
    tan_across, tan_up = tan_half_fov
    if depth > TINY:
        across, up = x / (depth * tan_across), z / (depth * tan_up)
        if abs(across) <= 1.0 and abs(up) <= 1.0:
            return Placement(across * aspect, up, True, 0.0)
        toward_x, toward_y = across * aspect, up
    else:  # behind: which side, and down
        toward_x, toward_y = x / tan_across * aspect, -abs(depth) / tan_up
        if abs(toward_x) < TINY and abs(toward_y) < TINY:  # straight above or below the eye
            toward_y = math.copysign(1.0, z)
    half_x, half_y = max(aspect - margin, TINY), max(1.0 - margin, TINY)
    stretch = min(half_x / abs(toward_x) if abs(toward_x) > TINY else math.inf,
                  half_y / abs(toward_y) if abs(toward_y) > TINY else math.inf)
    return Placement(toward_x * stretch, toward_y * stretch, False,
                     math.atan2(toward_y, toward_x))


def places_on_overlay(local: np.ndarray, tan_half_fov: tuple[float, float], aspect: float,
                      margin: float) -> tuple[list, list, list, list]:
    """:func:`place_on_overlay` of every row of ``local`` (N, 3) at once, the same numbers:
    the places' x, y, whether each is on screen and its ``toward_rad``, as lists."""
    local = np.asarray(local, np.float64).reshape(-1, 3)
    if len(local) < ARRAYS_FROM_POINTS:
        places = [place_on_overlay(point, tan_half_fov, aspect, margin)
                  for point in local.tolist()]
        return ([place.x for place in places], [place.y for place in places],
                [place.on_screen for place in places], [place.toward_rad for place in places])
    x, depth, z = local.T
    tan_across, tan_up = tan_half_fov
    front = depth > TINY
    safe_depth = np.where(front, depth, 1.0)
    across, up = x / (safe_depth * tan_across), z / (safe_depth * tan_up)
    on_screen = front & (np.abs(across) <= 1.0) & (np.abs(up) <= 1.0)
    toward_x = np.where(front, across * aspect, x / tan_across * aspect)
    toward_y = np.where(front, up, -np.abs(depth) / tan_up)
    # Straight above or below the eye, behind: point up or down.
    level = ~front & (np.abs(toward_x) < TINY) & (np.abs(toward_y) < TINY)
    toward_y = np.where(level, np.copysign(1.0, z), toward_y)
    half_x, half_y = max(aspect - margin, TINY), max(1.0 - margin, TINY)
    wide_x, wide_y = np.abs(toward_x) > TINY, np.abs(toward_y) > TINY
    stretch = np.where(on_screen, 1.0, np.minimum(  # on screen: where the lens draws it
        np.where(wide_x, half_x / np.where(wide_x, np.abs(toward_x), 1.0), math.inf),
        np.where(wide_y, half_y / np.where(wide_y, np.abs(toward_y), 1.0), math.inf)))
    toward_rad = np.where(on_screen, 0.0, np.arctan2(toward_y, toward_x))
    return ((toward_x * stretch).tolist(), (toward_y * stretch).tolist(), on_screen.tolist(),
            toward_rad.tolist())


class ViewProjection:
    """A view's camera and lens, for :func:`place_on_overlay`."""

    def __init__(self, camera: NodePath, lens, aspect: float):
        self.camera = camera
        self.aspect = aspect
        fov_x_deg, fov_y_deg = lens.getFov()
        self.tan_half_fov = (math.tan(math.radians(fov_x_deg) / 2.0),
                             math.tan(math.radians(fov_y_deg) / 2.0))

    def local(self, point_ws) -> tuple[float, float, float]:
        """A world point in the camera's frame."""
        point = self.camera.getRelativePoint(self.camera.getTop(), Point3(*map(float, point_ws)))
        return float(point[0]), float(point[1]), float(point[2])

    def place(self, point_ws, margin: float) -> Placement:
        return place_on_overlay(self.local(point_ws), self.tan_half_fov, self.aspect, margin)

    def heading_rad(self) -> float:
        """The camera's heading on the ground: 0 north (+y), + toward east (+x)."""
        forward = self.camera.getQuat(self.camera.getTop()).getForward()
        return math.atan2(float(forward[0]), float(forward[1]))
