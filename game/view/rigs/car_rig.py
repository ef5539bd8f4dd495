"""The drawn car: a small desert buggy whose wheels hang, steer and spin as the simulation says.

All geometry is built once, in the body frame (origin at the centre of mass, +Y
forward, +X right, +Z up), in proportion to the hull box of the physics spec:

- a tub with a sloped hood and nose, a raised engine cover at the back, two seats,
  a roll cage of tubes, a nudge bar, headlamps and fenders arching over the wheels
  (merged into one node);
- four wheels, one per anchor: knobbly tyres (staggered tread blocks) and bright
  spokes on dark rims, so their turning shows (:mod:`game.view.rigs.car_wheel`). Each
  wheel's centre hangs below its anchor along the body's -Z at ``rest_length -
  compression`` (where the anchor's ray put the ground); it is turned by the anchor's
  steer angle and rolled by its spin angle, all from the simulation's last anchor
  report and blended between the last two steps like the body, so nothing jitters.

:class:`CarRig` only reads the vehicle; it never writes physics state.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from panda3d.core import LQuaternionf, NodePath, Point3

from common.spec import Spec, tuning
from game.view.draw.colours import rgb
from game.view.draw.meshes import box_mesh, cylinder_mesh, merged_node, prism_x, tube_mesh
from game.view.rigs.car_wheel import wheel_mesh
from game.view.step_latch import StepLatch
from physics.model.pose import blend_poses, rotation_matrix


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
    tail_height_share: float = tuning("the tub's tail stands this share of the way from its "
                                      "floor to its sides' top", minimum=0.0, maximum=1.0)
    tail_undercut_share: float = tuning("the floor starts this share of the length ahead of "
                                        "the tail", minimum=0.0, maximum=0.4)
    nose_undercut_share: float = tuning("and ends this share of it behind the nose",
                                        minimum=0.0, maximum=0.4)
    tail_deck_share: float = tuning("the sides' top starts this share of the length ahead of "
                                    "the tail", minimum=0.0, maximum=0.4)
    engine_cover_rear_share: float = tuning("the engine cover starts this share of the length "
                                            "ahead of the tail", minimum=0.0, maximum=0.5)
    engine_cover_front_share: float = tuning("and ends this share of it behind the middle",
                                             minimum=-0.5, maximum=0.5)
    engine_cover_sink_m: float = tuning("its base sinks this far into the tub", minimum=0.0,
                                        maximum=0.5)
    engine_cover_heights_m: tuple[float, ...] = tuning(
        "its top above the tub's sides at its front and back (the spare lies on the back)",
        minimum=0.0, maximum=1.0, length=(2, 2))
    engine_cover_lean_m: tuple[float, ...] = tuning(
        "its front and back faces lean forward this far, base to top", minimum=-0.5,
        maximum=0.5, length=(2, 2))
    engine_cover_width_share: float = tuning("its width as a share of the tub's", minimum=0.1,
                                             maximum=1.0)
    seat_offset_share: float = tuning("the seats' centres this share of the tub's half width "
                                      "either side of its middle", minimum=0.0, maximum=1.0)
    seat_back_centre_m: tuple[float, ...] = tuning(
        "a seat back's centre: ahead of the engine cover, above the tub's sides",
        minimum=-1.0, maximum=1.0, length=(2, 2))
    seat_back_half_extents_m: tuple[float, ...] = tuning(
        "a seat back's half width, depth and height", minimum=0.01, maximum=1.0,
        length=(3, 3))
    seat_cushion_centre_m: tuple[float, ...] = tuning(
        "a seat cushion's centre: ahead of its back's, above the tub's sides", minimum=-1.0,
        maximum=1.0, length=(2, 2))
    seat_cushion_half_extents_m: tuple[float, ...] = tuning(
        "a seat cushion's half width, depth and height", minimum=0.01, maximum=1.0,
        length=(3, 3))
    cage_height_m: float = tuning("roll cage's roof above the tub's sides", minimum=0.1,
                                  maximum=3.0)
    cage_tube_radius_m: float = tuning("roll cage tubes' radius", minimum=0.005, maximum=0.2)
    cage_tube_sides: int = tuning("facets round a tube of the cage", minimum=3, maximum=32)
    cage_width_share: float = tuning("the cage's feet this share of the tub's half width out",
                                     minimum=0.1, maximum=1.5)
    cage_roof_width_share: float = tuning("its roof this share of its feet's width",
                                          minimum=0.1, maximum=1.5)
    cage_front_hoop_m: tuple[float, ...] = tuning(
        "the front hoop's feet and top, ahead (+) of the cowl", minimum=-2.0, maximum=2.0,
        length=(2, 2))
    cage_rear_hoop_m: tuple[float, ...] = tuning(
        "the rear hoop's feet and top, ahead of the engine cover's front", minimum=-2.0,
        maximum=2.0, length=(2, 2))
    cage_stay_width_share: float = tuning("stays run from the roof's back corners to the tail, "
                                          "this share of the feet's width apart", minimum=0.1,
                                          maximum=1.5)
    cage_stay_foot_m: tuple[float, ...] = tuning(
        "where they meet the tub: ahead of the tail, above its sides", minimum=-1.0,
        maximum=1.0, length=(2, 2))
    nudge_bar_width_share: float = tuning("the nudge bar's uprights this share of the tub's "
                                          "half width out", minimum=0.1, maximum=1.5)
    nudge_bar_crossbar_width_share: float = tuning("its crossbars reach this share of it",
                                                   minimum=0.1, maximum=1.5)
    nudge_bar_profile_m: tuple[float, ...] = tuning(
        "its foot, its front bend and its top, each ahead of the nose and above its tip",
        minimum=-1.0, maximum=1.0, length=(6, 6))
    lamp_offset_share: float = tuning("the headlamps this share of the tub's half width "
                                      "either side of its middle", minimum=0.0, maximum=1.0)
    lamp_height_m: float = tuning("and this far above the tub's sides", minimum=-1.0,
                                  maximum=1.0)
    lamp_stations_m: tuple[float, ...] = tuning(
        "a lamp's back, rim and lens, ahead (+) of the cowl", minimum=-1.0, maximum=1.0,
        length=(3, 3))
    lamp_radii_m: tuple[float, ...] = tuning("a lamp's radius at those three", minimum=0.0,
                                             maximum=0.5, length=(3, 3))
    lamp_sides: int = tuning("facets round a headlamp", minimum=3, maximum=64)
    wheel_width_m: float = tuning("tyre width", minimum=0.05, maximum=1.0)
    wheel_sides: int = tuning("facets round a tyre", minimum=6, maximum=64)
    tyre_shoulder_m: float = tuning("the tyre's edges round off over at most this width",
                                    minimum=0.0, maximum=0.2)
    tyre_shoulder_share: float = tuning("and at most this share of its half width",
                                        minimum=0.0, maximum=1.0)
    tread_blocks: int = tuning("tread blocks round a tyre (they show it turning)", minimum=4,
                               maximum=64)
    tread_depth_m: float = tuning("how far the tread blocks stand out", minimum=0.0,
                                  maximum=0.2)
    tread_block_share: float = tuning("share of the tyre's round the blocks cover (the rest "
                                      "is gaps)", minimum=0.05, maximum=1.0)
    tread_edge_inset_m: float = tuning("each block stops this far inside the tyre's edge",
                                       minimum=0.0, maximum=0.2)
    tread_overlap_share: float = tuning("and reaches this share of the half width past its "
                                        "middle (blocks alternate sides)", minimum=0.0,
                                        maximum=1.0)
    spokes: int = tuning("spokes on each rim", minimum=2, maximum=12)
    rim_radius_share: float = tuning("rim radius as a share of the wheel's", minimum=0.2,
                                     maximum=0.9)
    rim_span_m: tuple[float, ...] = tuning(
        "the rim's back and front, outward from the tyre's face", minimum=-0.5, maximum=0.5,
        length=(2, 2))
    spoke_half_width_m: float = tuning("a spoke's half width", minimum=0.002, maximum=0.2)
    spoke_reach_share: float = tuning("spokes reach this share of the rim's radius",
                                      minimum=0.1, maximum=1.0)
    spoke_span_m: tuple[float, ...] = tuning(
        "the spokes' back and front, outward from the tyre's face", minimum=-0.5,
        maximum=0.5, length=(2, 2))
    hub_radius_share: float = tuning("the hub cap's radius as a share of the wheel's",
                                     minimum=0.01, maximum=0.9)
    hub_length_m: float = tuning("the hub cap stands this far out of the tyre's face",
                                 minimum=0.0, maximum=0.5)
    hub_taper: float = tuning("its front radius as a share of its back's", minimum=0.1,
                              maximum=1.5)
    hub_sides: int = tuning("facets round the hub cap", minimum=3, maximum=64)
    spare_wheel_radius_share: float = tuning("the spare on the engine cover, as a share of a "
                                             "wheel's radius", minimum=0.1, maximum=1.5)
    fender_gap_m: float = tuning("fenders arch this far above the tyre at ride height",
                                 minimum=0.0, maximum=1.0)
    fender_thickness_m: float = tuning("a fender's thickness", minimum=0.005, maximum=0.3)
    fender_arc_deg: tuple[float, ...] = tuning(
        "a fender's arc, from the wheel's front, over the top, to its back", minimum=0.0,
        maximum=180.0, length=(2, 2))
    fender_segments: int = tuning("flat pieces along a fender's arc", minimum=1,
                                  maximum=32)
    fender_overhang_m: float = tuning("fenders reach this far past the tyre's outer face",
                                      minimum=0.0, maximum=0.5)
    fender_inset_m: float = tuning("and start this far inside the tub's side", minimum=0.0,
                                   maximum=0.5)
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


DEFAULT_STEP_S = 1.0 / 60.0
"""The simulation's fixed step, for a rig made without being told it."""
WHEEL_STATE_ROWS = 4
"""Rows of :meth:`CarRig._wheel_state`: compression, steer, spin angle and spin speed."""
SPARE_WHEEL_ROLL_DEG = 90.0
"""The spare lies flat on the engine cover: a quarter turn puts its axle upright."""


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
        self.cowl_y = self.half_y - self.hood_m
        """Where the hood meets the tub's sides."""
        self.cover_rear_y = -self.half_y + spec.engine_cover_rear_share * self.length_m
        self.cover_front_y = -spec.engine_cover_front_share * self.length_m
        """The engine cover's back and front."""


def _tub(shape: BuggyShape, spec: CarRigSpec) -> list:
    """The tub's side profile, from the tail round under the floor to the nose and hood."""
    hy, L = shape.half_y, shape.length_m
    zf, zd, zn = shape.floor_z, shape.deck_z, shape.nose_z
    profile = [(-hy, zf + spec.tail_height_share * (zd - zf)),
               (-hy + spec.tail_undercut_share * L, zf), (hy - spec.nose_undercut_share * L, zf),
               (hy, zn), (shape.cowl_y, zd), (-hy + spec.tail_deck_share * L, zd)]
    return [prism_x("tub", profile, -shape.tub_x, shape.tub_x, spec.body_colour)]


def _engine_cover(shape: BuggyShape, spec: CarRigSpec) -> list:
    """The engine cover at the back, behind the seats."""
    zd = shape.deck_z
    rear_y, front_y = shape.cover_rear_y, shape.cover_front_y
    sink = spec.engine_cover_sink_m
    front_height, rear_height = spec.engine_cover_heights_m
    front_lean, rear_lean = spec.engine_cover_lean_m
    profile = [(rear_y, zd - sink), (front_y, zd - sink), (front_y + front_lean, zd + front_height),
               (rear_y + rear_lean, zd + rear_height)]
    half_width = spec.engine_cover_width_share * shape.tub_x
    return [prism_x("engine-cover", profile, -half_width, half_width, spec.body_colour)]


def _seats(shape: BuggyShape, spec: CarRigSpec) -> list:
    """Two seats, each a back and a cushion, just ahead of the engine cover."""
    zd = shape.deck_z
    back_y, back_z = spec.seat_back_centre_m
    cushion_y, cushion_z = spec.seat_cushion_centre_m
    seat_y = shape.cover_front_y + back_y
    pieces = []
    for x in (-spec.seat_offset_share * shape.tub_x, spec.seat_offset_share * shape.tub_x):
        pieces.append(box_mesh("seat-back", spec.seat_back_half_extents_m, spec.seat_colour,
                               centre=(x, seat_y, zd + back_z)))
        pieces.append(box_mesh("seat", spec.seat_cushion_half_extents_m, spec.seat_colour,
                               centre=(x, seat_y + cushion_y, zd + cushion_z)))
    return pieces


def _cage_tubes(shape: BuggyShape, spec: CarRigSpec) -> list[tuple]:
    """The roll cage (two hoops, the roof between them, stays back to the tail) and the
    nudge bar at the nose, as the (start, end) points of their tubes."""
    hy, zd, zn, roof_z = shape.half_y, shape.deck_z, shape.nose_z, shape.roof_z
    tx = shape.tub_x
    cx = spec.cage_width_share * tx
    roof_x, stay_x = spec.cage_roof_width_share * cx, spec.cage_stay_width_share * cx
    front_foot, front_top = (shape.cowl_y + y for y in spec.cage_front_hoop_m)
    rear_foot, rear_top = (shape.cover_front_y + y for y in spec.cage_rear_hoop_m)
    stay_y, stay_z = spec.cage_stay_foot_m
    bar_x = spec.nudge_bar_width_share * tx
    crossbar_x = spec.nudge_bar_crossbar_width_share * tx
    profile = spec.nudge_bar_profile_m
    foot, bend, top = ((hy + y, zn + z) for y, z in zip(profile[0::2], profile[1::2]))
    tubes = []
    for s in (-1.0, 1.0):
        tubes += [((s * cx, front_foot, zd), (s * roof_x, front_top, roof_z)),
                  ((s * cx, rear_foot, zd), (s * roof_x, rear_top, roof_z)),
                  ((s * roof_x, front_top, roof_z), (s * roof_x, rear_top, roof_z)),
                  ((s * roof_x, rear_top, roof_z), (s * stay_x, -hy + stay_y, zd + stay_z)),
                  ((s * bar_x, *foot), (s * bar_x, *bend)),
                  ((s * bar_x, *bend), (s * bar_x, *top))]
    tubes += [((-roof_x, front_top, roof_z), (roof_x, front_top, roof_z)),
              ((-roof_x, rear_top, roof_z), (roof_x, rear_top, roof_z)),
              ((-roof_x, rear_top, roof_z), (cx, rear_foot, zd)),
              ((-crossbar_x, *bend), (crossbar_x, *bend)),
              ((-crossbar_x, *top), (crossbar_x, *top))]
    return tubes


def _headlamps(shape: BuggyShape, spec: CarRigSpec) -> list:
    """Two headlamps on the cowl."""
    stations = [shape.cowl_y + y for y in spec.lamp_stations_m]
    pieces = []
    for x in (-spec.lamp_offset_share * shape.tub_x, spec.lamp_offset_share * shape.tub_x):
        lamp = cylinder_mesh("lamp", 1, stations, spec.lamp_radii_m, spec.lamp_sides,
                             [spec.cage_colour, spec.light_colour], smooth=False)
        path = NodePath(lamp)
        path.setPos(x, 0.0, shape.deck_z + spec.lamp_height_m)
        pieces.append(path)
    return pieces


def _fenders(shape: BuggyShape, spec: CarRigSpec, wheels_bs: np.ndarray,
             wheel_radius: float) -> list:
    """Arcs over each wheel at ride height (centres ``wheels_bs``), from the tub out past
    the tyre."""
    arc_r = wheel_radius + spec.fender_gap_m
    outer_r = arc_r + spec.fender_thickness_m
    pieces = []
    for centre in wheels_bs:
        side = 1.0 if centre[0] > 0.0 else -1.0
        outer = abs(centre[0]) + spec.wheel_width_m / 2.0 + spec.fender_overhang_m
        angles = np.radians(np.linspace(*spec.fender_arc_deg, spec.fender_segments + 1))
        for a0, a1 in zip(angles[:-1], angles[1:]):
            quad = [(centre[1] + rad * math.cos(a), centre[2] + rad * math.sin(a))
                    for rad, a in ((arc_r, a0), (outer_r, a0), (outer_r, a1), (arc_r, a1))]
            x0, x1 = sorted((side * (shape.tub_x - spec.fender_inset_m), side * outer))
            pieces.append(prism_x("fender", quad, x0, x1, spec.body_colour))
    return pieces


def _spare_wheel(shape: BuggyShape, spec: CarRigSpec, wheel_radius: float) -> list:
    """A spare wheel lying on the engine cover."""
    spare = NodePath(wheel_mesh("spare", wheel_radius * spec.spare_wheel_radius_share, spec,
                                1.0))
    spare.setR(SPARE_WHEEL_ROLL_DEG)
    spare.setPos(0.0, (shape.cover_rear_y + shape.cover_front_y) / 2.0,
                 shape.deck_z + spec.engine_cover_heights_m[1] + spec.wheel_width_m / 2.0)
    return [spare]


def _body_pieces(shape: BuggyShape, spec: CarRigSpec, wheels_bs: np.ndarray,
                 wheel_radius: float) -> list:
    """Every piece of the buggy's body, to be merged into one node."""
    cage = [tube_mesh("cage", start, end, spec.cage_tube_radius_m, spec.cage_colour,
                      spec.cage_tube_sides) for start, end in _cage_tubes(shape, spec)]
    return (_tub(shape, spec) + _engine_cover(shape, spec) + _seats(shape, spec) + cage
            + _headlamps(shape, spec) + _fenders(shape, spec, wheels_bs, wheel_radius)
            + _spare_wheel(shape, spec, wheel_radius))


class CarRig:
    """The car's nodes under ``root``; :meth:`update` poses them from the vehicle."""

    def __init__(self, parent: NodePath, vehicle, spec: CarRigSpec, step_s: float = DEFAULT_STEP_S):
        self.vehicle = vehicle
        self.spec = spec
        self.step_s = step_s
        """The simulation's fixed step: unwraps the wheels' spin between two steps."""
        constants = vehicle.constants
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
        self.body = self.root.attachNewNode(merged_node(
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
        self.parts_posed = False
        """The wheels show this frame's pose (:meth:`pose_parts` ran since :meth:`update`)."""
        self.position = np.zeros(3)
        self.rotation = np.eye(3)

    # ----- per frame ------------------------------------------------------------------

    def _wheel_state(self) -> np.ndarray:
        """Rows (compression, steer, spin angle, spin speed) per anchor, from the last report."""
        rows = self.vehicle.wheel_state()
        return rows if rows is not None else np.zeros((WHEEL_STATE_ROWS, len(self.anchors_bs)))

    def update(self, alpha: float, frame_s: float = 0.0, pose_parts: bool = True) -> None:
        """Pose the body at the state ``alpha`` of the way from the previous step to the
        last one; the wheels follow only with ``pose_parts`` (else :meth:`pose_parts` may,
        this frame). The wheels' spin is the simulation's, not summed over frames."""
        vehicle = self.vehicle
        previous, current = self._wheels.update(vehicle.current)
        self.compression_m = previous[0] + (current[0] - previous[0]) * alpha
        self.steer_rad = previous[1] + (current[1] - previous[1]) * alpha
        # The spin angle wraps: take the turn that matches the wheels' speed.
        turned = current[2] - previous[2]
        expected = 0.5 * (previous[3] + current[3]) * self.step_s
        turned -= math.tau * np.round((turned - expected) / math.tau)
        self.spin_rad = previous[2] + turned * alpha

        position, orientation = blend_poses(vehicle.previous, vehicle.current, alpha)
        self.position, self.rotation = position, rotation_matrix(orientation)
        self.root.setPosQuat(Point3(*position), LQuaternionf(*orientation))
        self.parts_posed = False
        if pose_parts:
            self.pose_parts()

    def pose_parts(self) -> None:
        """The wheels at the pose of the last :meth:`update` (once a frame)."""
        if self.parts_posed:
            return
        self.parts_posed = True
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
