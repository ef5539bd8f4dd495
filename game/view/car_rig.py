"""The drawn car: a small desert buggy whose wheels hang, steer and spin as the simulation says.

All geometry is built once, in the body frame (origin at the centre of mass, +Y
forward, +X right, +Z up), in proportion to the hull box of the physics spec:

- a tub with a sloped hood and nose, a raised engine cover at the back, two seats,
  a roll cage of tubes, a nudge bar, headlamps and fenders arching over the wheels
  (merged into one node);
- four wheels, one per anchor: knobbly tyres (staggered tread blocks) and bright
  spokes on dark rims, so their turning shows. Each wheel's centre hangs below its
  anchor along the body's -Z at ``rest_length - compression`` (where the anchor's
  ray put the ground); it is turned by the anchor's steer angle and rolled by its
  spin angle, all from the simulation's last anchor report and blended between the
  last two steps like the body, so nothing jitters.

:class:`CarRig` only reads the vehicle; it never writes physics state.
"""

from __future__ import annotations

from dataclasses import dataclass

import math

import numpy as np
from panda3d.core import GeomNode, LQuaternionf, NodePath, Point3

from game.view.meshes import box_mesh, cylinder_mesh, loft_mesh, prism_x
from game.view.step_latch import StepLatch
from physics.model.pose import blend_poses, rotation_matrix
from physics.model.spec import rgb, Spec, tuning


@dataclass(frozen=True)
class CarRigSpec(Spec):
    """The drawn car, a desert buggy: a tub in proportion to its hull box, a roll cage,
    fenders, and knobbly wheels on the anchors."""

    tub_width_share: float = tuning("the tub's width as a share of the hull box's (the wheels "
                                    "stand outside it)", minimum=0.2, maximum=1.0)
    nose_height_share: float = tuning("height of the nose tip as a share of the hull's height",
                                      minimum=0.0, maximum=1.0)
    deck_height_share: float = tuning("height of the tub's sides as a share of the hull's",
                                      minimum=0.2, maximum=1.0)
    hood_length_share: float = tuning("share of the length taken by the sloped hood",
                                      minimum=0.05, maximum=0.6)
    cage_height_m: float = tuning("roll cage's roof above the tub's sides", minimum=0.1,
                                  maximum=3.0)
    cage_tube_radius_m: float = tuning("roll cage tubes' radius", minimum=0.005, maximum=0.2)
    wheel_width_m: float = tuning("tyre width", minimum=0.05, maximum=1.0)
    wheel_sides: int = tuning("facets round a tyre", minimum=6, maximum=64)
    tread_blocks: int = tuning("tread blocks round a tyre (they show it turning)", minimum=4,
                               maximum=64)
    tread_depth_m: float = tuning("how far the tread blocks stand out", minimum=0.0,
                                  maximum=0.2)
    spokes: int = tuning("spokes on each rim", minimum=2, maximum=12)
    rim_radius_share: float = tuning("rim radius as a share of the wheel's", minimum=0.2,
                                     maximum=0.9)
    fender_gap_m: float = tuning("fenders arch this far above the tyre at ride height",
                                 minimum=0.0, maximum=1.0)
    driver_eye_m: tuple[float, ...] = tuning("the driver's eye (the V view for a car), body "
                                             "frame: right, forward, up", minimum=-10.0,
                                             maximum=10.0, length=(3, 3))
    body_colour: tuple[float, ...] = rgb("paint, 0..1")
    cage_colour: tuple[float, ...] = rgb("roll cage and bumpers, 0..1")
    seat_colour: tuple[float, ...] = rgb("seats, 0..1")
    tyre_colour: tuple[float, ...] = rgb("tyres, 0..1")
    rim_colour: tuple[float, ...] = rgb("rims, 0..1")
    spoke_colour: tuple[float, ...] = rgb("spokes and hub caps, 0..1")
    light_colour: tuple[float, ...] = rgb("headlamps, 0..1")
    specular: float = tuning("sheen of the paint in the sun", minimum=0.0, maximum=2.0)


TAU = 2.0 * math.pi


def tube_mesh(name: str, start, end, radius: float, colour, sides: int = 6) -> GeomNode:
    """A straight faceted tube from ``start`` to ``end``."""
    start, end = np.asarray(start, dtype=np.float64), np.asarray(end, dtype=np.float64)
    axis = end - start
    axis /= np.linalg.norm(axis)
    helper = np.array([0.0, 0.0, 1.0]) if abs(axis[2]) < 0.9 else np.array([1.0, 0.0, 0.0])
    u = np.cross(axis, helper)
    u /= np.linalg.norm(u)
    v = np.cross(axis, u)
    angle = np.arange(sides) * TAU / sides
    ring = radius * (np.cos(angle)[:, None] * u + np.sin(angle)[:, None] * v)
    return loft_mesh(name, [start + ring, end + ring], colour)


def _merged(name: str, nodes: list) -> GeomNode:
    """One GeomNode holding every piece (each a GeomNode, or a NodePath already placed)."""
    holder = NodePath(name)
    for node in nodes:
        if isinstance(node, NodePath):
            node.reparentTo(holder)
        else:
            holder.attachNewNode(node)
    holder.flattenStrong()
    merged = GeomNode(name)
    for path in holder.findAllMatches("**/+GeomNode"):
        merged.addGeomsFrom(path.node())
    holder.removeNode()
    return merged


def wheel_mesh(name: str, radius: float, spec: CarRigSpec, outward: float) -> GeomNode:
    """A wheel about the X axis, centred on the origin; ``outward`` (+1 or -1): the side its
    rim and spokes face."""
    w = spec.wheel_width_m / 2.0
    depth = spec.tread_depth_m
    core = radius - depth
    shoulder = min(0.04, 0.3 * w)
    pieces = [cylinder_mesh(
        "tyre", 0, np.array([-w, -w + shoulder, w - shoulder, w]) * outward,
        [core - shoulder, core, core, core - shoulder], spec.wheel_sides, [spec.tyre_colour] * 3,
        smooth=False)]
    # Tread blocks, staggered across the tyre: the silhouette shows the wheel turning.
    blocks = spec.tread_blocks
    half_angle = 0.5 * math.pi / blocks
    for k in range(blocks):
        angle = k * TAU / blocks
        corners = []
        for r, a in ((core - 0.005, angle - half_angle), (radius, angle - half_angle),
                     (radius, angle + half_angle), (core - 0.005, angle + half_angle)):
            corners.append((r * math.cos(a), r * math.sin(a)))
        corners = np.array(corners)
        x0, x1 = (-w + 0.01, 0.25 * w) if k % 2 == 0 else (-0.25 * w, w - 0.01)
        rings = [np.column_stack([np.full(4, x * outward), corners]) for x in (x0, x1)]
        pieces.append(loft_mesh("tread", rings, spec.tyre_colour))
    rim = spec.rim_radius_share * radius
    face = w - 0.5 * shoulder
    pieces.append(cylinder_mesh("rim", 0, np.array([face - 0.03, face + 0.01]) * outward,
                                [rim, rim], spec.wheel_sides, [spec.rim_colour], smooth=False))
    hub = 0.17 * radius
    for k in range(spec.spokes):
        angle = k * TAU / spec.spokes
        along = np.array([math.cos(angle), math.sin(angle)])
        across = np.array([-along[1], along[0]]) * 0.025
        section = np.array([along * hub - across, along * rim * 0.93 - across,
                            along * rim * 0.93 + across, along * hub + across])
        rings = [np.column_stack([np.full(4, x * outward), section])
                 for x in (face + 0.005, face + 0.03)]
        pieces.append(loft_mesh("spoke", rings, spec.spoke_colour))
    pieces.append(cylinder_mesh("hub", 0, np.array([face, face + 0.055]) * outward,
                                [hub, hub * 0.8], 8, [spec.spoke_colour], smooth=False))
    return _merged(name, pieces)


class BuggyShape:
    """Body-frame dimensions of the drawn buggy, from the physics hull box and the rig spec."""

    def __init__(self, hull, spec: CarRigSpec):
        self.half_x, self.half_y, half_z = hull.half_extents_m
        self.floor_z = hull.centre_of_mass_drop_m - half_z
        height = 2.0 * half_z
        self.length_m = 2.0 * self.half_y
        self.tub_x = spec.tub_width_share * self.half_x
        self.deck_z = self.floor_z + spec.deck_height_share * height
        self.nose_z = self.floor_z + spec.nose_height_share * height
        self.hood_m = spec.hood_length_share * self.length_m
        self.roof_z = self.deck_z + spec.cage_height_m


def _body_pieces(shape: BuggyShape, spec: CarRigSpec, wheels_bs: np.ndarray,
                 wheel_radius: float) -> list:
    hy, L = shape.half_y, shape.length_m
    zf, zd, zn = shape.floor_z, shape.deck_z, shape.nose_z
    tx = shape.tub_x
    paint = spec.body_colour
    cowl_y = hy - shape.hood_m
    profile = [(-hy, zf + 0.75 * (zd - zf)), (-hy + 0.08 * L, zf), (hy - 0.1 * L, zf),
               (hy, zn), (cowl_y, zd), (-hy + 0.04 * L, zd)]
    pieces = [prism_x("tub", profile, -tx, tx, paint)]
    # Engine cover at the back, behind the seats.
    rear_y, front_y = -hy + 0.06 * L, -0.24 * L
    pieces.append(prism_x("engine-cover", [(rear_y, zd - 0.02), (front_y, zd - 0.02),
                                           (front_y + 0.05, zd + 0.14), (rear_y + 0.08, zd + 0.2)],
                          -0.72 * tx, 0.72 * tx, paint))
    # Seats.
    seat_y = front_y + 0.16
    for x in (-0.5 * tx, 0.5 * tx):
        pieces.append(box_mesh("seat-back", (0.2, 0.05, 0.28), spec.seat_colour,
                               centre=(x, seat_y, zd + 0.3)))
        pieces.append(box_mesh("seat", (0.2, 0.22, 0.05), spec.seat_colour,
                               centre=(x, seat_y + 0.26, zd + 0.05)))
    # Roll cage.
    r, cage = spec.cage_tube_radius_m, spec.cage_colour
    cx = 0.92 * tx
    front_foot, front_top = cowl_y + 0.05, cowl_y - 0.45
    rear_foot, rear_top = front_y + 0.02, front_y + 0.12
    tubes = []
    for s in (-1.0, 1.0):
        tubes += [((s * cx, front_foot, zd), (s * 0.85 * cx, front_top, shape.roof_z)),
                  ((s * cx, rear_foot, zd), (s * 0.85 * cx, rear_top, shape.roof_z)),
                  ((s * 0.85 * cx, front_top, shape.roof_z), (s * 0.85 * cx, rear_top, shape.roof_z)),
                  ((s * 0.85 * cx, rear_top, shape.roof_z), (s * 0.7 * cx, -hy + 0.1, zd + 0.12)),
                  ((s * 0.7 * tx, hy - 0.02, zn + 0.02), (s * 0.7 * tx, hy + 0.1, zn + 0.1)),
                  ((s * 0.7 * tx, hy + 0.1, zn + 0.1), (s * 0.7 * tx, hy + 0.05, zn + 0.38))]
    tubes += [((-0.85 * cx, front_top, shape.roof_z), (0.85 * cx, front_top, shape.roof_z)),
              ((-0.85 * cx, rear_top, shape.roof_z), (0.85 * cx, rear_top, shape.roof_z)),
              ((-0.85 * cx, rear_top, shape.roof_z), (cx, rear_foot, zd)),
              ((-0.75 * tx, hy + 0.1, zn + 0.1), (0.75 * tx, hy + 0.1, zn + 0.1)),
              ((-0.75 * tx, hy + 0.05, zn + 0.38), (0.75 * tx, hy + 0.05, zn + 0.38))]
    pieces += [tube_mesh("cage", a, b, r, cage) for a, b in tubes]
    # Headlamps on the cowl.
    for x in (-0.55 * tx, 0.55 * tx):
        lamp = cylinder_mesh("lamp", 1, [cowl_y - 0.02, cowl_y + 0.08, cowl_y + 0.1],
                             [0.08, 0.09, 0.085], 10, [cage, spec.light_colour], smooth=False)
        path = NodePath(lamp)
        path.setPos(x, 0.0, zd + 0.1)
        pieces.append(path)
    # Fenders: arcs over each wheel at ride height, from the tub out past the tyre.
    arc_r = wheel_radius + spec.fender_gap_m
    for centre in wheels_bs:
        side = 1.0 if centre[0] > 0.0 else -1.0
        outer = abs(centre[0]) + spec.wheel_width_m / 2.0 + 0.05
        angles = np.radians(np.linspace(20.0, 160.0, 5))
        for a0, a1 in zip(angles[:-1], angles[1:]):
            quad = [(centre[1] + rad * math.cos(a), centre[2] + rad * math.sin(a))
                    for rad, a in ((arc_r, a0), (arc_r + 0.03, a0), (arc_r + 0.03, a1),
                                   (arc_r, a1))]
            x0, x1 = sorted((side * (tx - 0.02), side * outer))
            pieces.append(prism_x("fender", quad, x0, x1, paint))
    # A spare wheel lying on the engine cover.
    spare = NodePath(wheel_mesh("spare", wheel_radius * 0.9, spec, 1.0))
    spare.setR(90.0)
    spare.setPos(0.0, (rear_y + front_y) / 2.0, zd + 0.2 + spec.wheel_width_m / 2.0)
    pieces.append(spare)
    return pieces


class CarRig:
    """The car's nodes under ``root``; :meth:`update` poses them from the vehicle."""

    def __init__(self, parent: NodePath, vehicle, spec: CarRigSpec, step_s: float = 1.0 / 60.0):
        self.vehicle = vehicle
        self.spec = spec
        self.step_s = step_s
        """The simulation's fixed step: unwraps the wheels' spin between two steps."""
        constants = vehicle.fleet.constants
        self.anchors_bs = np.array(constants.position_bs, dtype=np.float64)
        self.rest_length_m = float(constants.rest_length_m)
        self.wheel_radius_m = float(vehicle.spec.suspension.wheel_radius_m)
        suspension = vehicle.spec.suspension
        self.shape = shape = BuggyShape(vehicle.spec.hull, spec)
        self.length_m = shape.length_m
        self.root = parent.attachNewNode(vehicle.name + "-rig")
        self.root.setShaderInput("specular_strength", spec.specular)
        rest_drop = suspension.ride_height_m - self.wheel_radius_m
        wheels_rest = self.anchors_bs - np.array([0.0, 0.0, rest_drop])
        self.body = self.root.attachNewNode(_merged(
            "buggy-body", _body_pieces(shape, spec, wheels_rest, self.wheel_radius_m)))
        self.eye = self.root.attachNewNode("driver-eye")
        self.eye.setPos(*spec.driver_eye_m)

        wheel_geoms = {side: wheel_mesh(f"wheel-{side}", self.wheel_radius_m, spec, side)
                       for side in (-1.0, 1.0)}
        self.wheel_mounts: list[NodePath] = []
        self.wheel_steers: list[NodePath] = []
        self.wheel_spinners: list[NodePath] = []
        for anchor in self.anchors_bs:
            mount = self.root.attachNewNode("wheel-mount")
            mount.setPos(anchor[0], anchor[1], anchor[2] - rest_drop)
            steer = mount.attachNewNode("steer")
            spinner = steer.attachNewNode("spin")
            spinner.attachNewNode(wheel_geoms[1.0 if anchor[0] > 0.0 else -1.0])
            self.wheel_mounts.append(mount)
            self.wheel_steers.append(steer)
            self.wheel_spinners.append(spinner)
        count = len(self.anchors_bs)
        self._wheels = StepLatch(self._wheel_state)
        self.compression_m = np.zeros(count)
        self.steer_rad = np.zeros(count)
        self.spin_rad = np.zeros(count)
        """The drawn (blended) compression, steer and spin of each wheel."""
        self.position = np.zeros(3)
        self.rotation = np.eye(3)

    # ----- per frame ------------------------------------------------------------------

    def _wheel_state(self) -> np.ndarray:
        """Rows (compression, steer, spin angle, spin speed) per anchor, from the last report."""
        count = len(self.anchors_bs)
        report = self.vehicle.fleet.model.report
        if report is None:
            return np.zeros((4, count))
        i = self.vehicle.index
        return np.array([report.compression_m[i], report.steer_rad[i], report.spin_angle_rad[i],
                         report.spin_speed_rad_s[i]], dtype=np.float64)

    def update(self, alpha: float, frame_s: float = 0.0) -> None:
        """Pose everything at the state ``alpha`` of the way from the previous step to the
        last one."""
        vehicle = self.vehicle
        previous, current = self._wheels.update(vehicle.current)
        self.compression_m = previous[0] + (current[0] - previous[0]) * alpha
        self.steer_rad = previous[1] + (current[1] - previous[1]) * alpha
        # The spin angle wraps: take the turn that matches the wheels' speed.
        turned = current[2] - previous[2]
        expected = 0.5 * (previous[3] + current[3]) * self.step_s
        turned -= TAU * np.round((turned - expected) / TAU)
        self.spin_rad = previous[2] + turned * alpha

        position, orientation = blend_poses(vehicle.previous, vehicle.current, alpha)
        self.position, self.rotation = position, rotation_matrix(orientation)
        self.root.setPosQuat(Point3(*position), LQuaternionf(*orientation))
        drop = self.rest_length_m - self.compression_m
        for a, anchor in enumerate(self.anchors_bs):
            self.wheel_mounts[a].setPos(anchor[0], anchor[1], anchor[2] - drop[a])
            self.wheel_steers[a].setH(-math.degrees(self.steer_rad[a]))
            self.wheel_spinners[a].setP(-math.degrees(self.spin_rad[a]))

    # ----- queries --------------------------------------------------------------------

    def anchor_contacts_ws(self) -> np.ndarray:
        """Where each tyre meets the ground (straight below its centre along the body's -Z),
        world space (A, 3)."""
        render = self.root.getTop()
        return np.array([render.getRelativePoint(mount, Point3(0.0, 0.0, -self.wheel_radius_m))
                         for mount in self.wheel_mounts])

    def gun_pose_ws(self, offset_m=(0.0, 0.0, 0.0)) -> tuple[np.ndarray, np.ndarray]:
        """The car has no gun: the driver's eye and the body's axes (right, forward, up),
        world space (``offset_m`` is the gun sight's and does not apply)."""
        render = self.root.getTop()
        point = np.array(render.getRelativePoint(self.eye, Point3(0.0, 0.0, 0.0)))
        quat = self.root.getQuat(render)
        axes = np.column_stack([np.array(quat.getRight()), np.array(quat.getForward()),
                                np.array(quat.getUp())])
        return point, axes

    def destroy(self) -> None:
        self.root.removeNode()
