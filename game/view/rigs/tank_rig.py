"""The drawn tank: shaped hull, turret, gun, road wheels on the anchors, scrolling tracks.

All geometry is built once, in the body frame (origin at the centre of mass, +Y
forward, +X right, +Z up), in proportion to the hull box of the physics spec:

- hull: its armour plates where the spec has them, the very pieces Bullet collides
  (:mod:`game.view.rigs.rig_plates`), else a sloped glacis and nose, a sloped rear plate and
  fenders over the tracks (:mod:`game.view.rigs.rig_hull`); one node;
- turret on a ring (its plates, or a shaped one), turned by ``vehicle.turret_heading_rad``;
  the gun on trunnions at its front, raised by ``vehicle.gun_elevation_rad``
  (:mod:`game.view.rigs.tank_turret`);
  where the vehicle's spec has a ``gun`` (physics), the ring stands on its
  ``turret_pivot_m``, the trunnions at its ``gun_height_m`` and the muzzle where its
  shells leave (exactly, at zero elevation);
- road wheels: each anchor carries one, more are spread between them; every wheel
  sits where the anchors' last rays put the ground (interpolated along the track
  between anchors), blended between the last two steps like the hull, so nothing
  jitters; they spin with the track;
- tracks: a belt round the road wheels, the rear sprocket and the front idler
  (:mod:`game.view.rigs.track_belt`), whose vertices are rewritten in place (no new nodes)
  each frame the tank may be seen; its links' texture scrolls at the track's ground speed;
- damage (:mod:`game.view.rigs.rig_damage`): a destroyed track lies off its wheels on the
  ground, and a turret an ammo rack threw is drawn, with its gun, where its body is.

The wheels and belts of many tanks are posed together (:mod:`game.view.rigs.rig_pose`): all of a
tank's wheels are one mesh that the ``WHEELS`` shader places and spins from one small
array (:mod:`game.view.rigs.wheel_set`), so a frame poses them with one copy and no node
transforms.

:class:`TankRig` only reads the vehicle; it never writes physics state.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from panda3d.core import NodePath, Point3

from common.spec import Spec, tuning
from game.view.draw.colours import rgb
from game.view.draw.meshes import cylinder_mesh
from game.view.draw.shaders import lit_shader
from game.view.draw.textures import track_texture
from game.view.rigs.rig_culling import geometry_reach_m
from game.view.rigs.rig_damage import DamageLook
from game.view.rigs.rig_hull import HullShape, hull_node
from game.view.rigs.rig_plates import attach_plates, drawn_plates
from game.view.rigs.rig_pose import place_tank_rigs, pose_tank_parts, wheel_height_weights
from game.view.rigs.tank_turret import TurretRig
from game.view.rigs.track_belt import BeltShape, BeltTemplate, belts_node, wheel_stations
from game.view.rigs.wheel_set import WheelSet
from game.view.step_latch import StepLatch

OUTWARD = (-1.0, 1.0)
"""Which way each side's wheels face out: the left (-X), the right (+X)."""


@dataclass(frozen=True)
class TankRigSpec(Spec):
    """The drawn tank's shape, in proportion to its hull box where it can be."""

    road_wheel_pitch_m: float = tuning("road wheels about this far apart on each side, from "
                                       "the rearmost to the foremost anchor (a longer hull "
                                       "has more)", minimum=0.2, maximum=5.0)
    road_wheel_radius_m: float = tuning("road wheel radius", minimum=0.05, maximum=2.0)
    drive_wheel_radius_m: float = tuning("radius of the sprocket (rear) and idler (front)",
                                         minimum=0.05, maximum=2.0)
    drive_wheel_gap_m: float = tuning("sprocket and idler stand this far beyond the end road "
                                      "wheels", minimum=0.0, maximum=3.0)
    drive_wheel_raise_m: float = tuning("and this far above the road wheels' centres at "
                                        "ride height", minimum=0.0, maximum=2.0)
    wheel_width_share: float = tuning("road wheels', sprocket's and idler's width as a share "
                                      "of the track's", minimum=0.2, maximum=1.0)
    tyre_shoulder_inset_m: float = tuning("a wheel's rubber rounds in from this far inside its "
                                          "outer face", minimum=0.0, maximum=0.5)
    wheel_disc_inset_m: float = tuning("and its steel disc shows from this far inside it",
                                       minimum=0.0, maximum=0.5)
    wheel_disc_radius_shares: tuple[float, ...] = tuning(
        "the disc's radius there and at the outer face, as shares of the wheel's",
        minimum=0.1, maximum=1.0, length=(2, 2))
    wheel_hub_length_m: float = tuning("the hub's cone stands this far out of the outer face",
                                       minimum=0.0, maximum=0.5)
    wheel_hub_tip_radius_share: float = tuning("the hub's tip radius as a share of the "
                                               "wheel's", minimum=0.0, maximum=1.0)
    track_thickness_m: float = tuning("track belt thickness", minimum=0.01, maximum=0.5)
    track_link_length_m: float = tuning("length of one track link (one texture repeat)",
                                        minimum=0.05, maximum=2.0)
    track_arc_segments: int = tuning("segments round each end of the track belt",
                                     minimum=2, maximum=32)
    wheel_sides: int = tuning("facets round a wheel", minimum=6, maximum=64)
    sprocket_sides: int = tuning("facets round the sprocket (few: they read as its teeth)",
                                 minimum=3, maximum=64)
    fender_height_share: float = tuning("underside of the fenders over the tracks, as a share "
                                        "of the hull's height from its floor", minimum=0.1,
                                        maximum=0.9)
    glacis_length_share: float = tuning("share of the hull's length taken by the sloped upper "
                                        "front plate", minimum=0.05, maximum=0.6)
    nose_height_share: float = tuning("height of the nose (where the front plates meet) as a "
                                      "share of the hull's height", minimum=0.05,
                                      maximum=0.9)
    rear_slope_share: float = tuning("share of the hull's length taken by the sloped rear "
                                     "plate", minimum=0.0, maximum=0.4)
    lower_rear_plate_run_per_drop: float = tuning(
        "the lower rear plate runs forward this far per metre it drops from the fenders to "
        "the floor", minimum=0.0, maximum=5.0)
    turret_width_share: float = tuning("turret width as a share of the hull's", minimum=0.2,
                                       maximum=1.0)
    turret_length_share: float = tuning("turret length as a share of the hull's",
                                        minimum=0.1, maximum=1.0)
    turret_height_m: float = tuning("turret height above the deck", minimum=0.1, maximum=3.0)
    turret_offset_share: float = tuning("turret ring's centre ahead (+) of the hull's middle, "
                                        "as a share of the half length", minimum=-1.0,
                                        maximum=1.0)
    turret_taper: float = tuning("turret roof size as a share of its base", minimum=0.3,
                                 maximum=1.0)
    turret_front_half_width_share: float = tuning(
        "half the turret's flat front face, as a share of its width (chamfers join it to "
        "the sides)", minimum=0.05, maximum=0.5)
    turret_front_corner_share: float = tuning("the turret's sides end this share of its length "
                                              "ahead of its middle", minimum=0.0, maximum=0.5)
    turret_rear_corner_share: float = tuning("and this share behind it (chamfers to the back)",
                                             minimum=0.0, maximum=0.5)
    turret_rear_half_width_share: float = tuning("half the turret's flat back face, as a share "
                                                 "of its width", minimum=0.05, maximum=0.5)
    turret_roof_setback_share: float = tuning("the roof sits this share of the turret's "
                                              "length behind its base", minimum=-0.3,
                                              maximum=0.3)
    turret_sink_share: float = tuning("the turret's base sinks this share of its height into "
                                      "the deck (no gap shows)", minimum=0.0, maximum=0.5)
    cupola_sink_m: float = tuning("the commander's cupola starts this far below the turret "
                                  "roof", minimum=0.0, maximum=0.5)
    cupola_height_m: float = tuning("and stands this high above it", minimum=0.01,
                                    maximum=1.0)
    cupola_radii_m: tuple[float, ...] = tuning("the cupola's radius at its base and its top",
                                               minimum=0.02, maximum=1.0, length=(2, 2))
    cupola_offset_shares: tuple[float, ...] = tuning(
        "the cupola's centre from the ring's: right and forward, as shares of the turret's "
        "width and length", minimum=-0.5, maximum=0.5, length=(2, 2))
    trunnion_forward_share: float = tuning("the gun's trunnions stand this share of the "
                                           "turret's half length ahead of the ring's centre",
                                           minimum=0.0, maximum=1.5)
    trunnion_max_height_share: float = tuning(
        "the trunnions at most this share of the turret's height above the ring (lower where "
        "the physics gun is)", minimum=0.1, maximum=1.0)
    trunnion_height_share: float = tuning("their height as a share of the turret's where the "
                                          "tank's spec has no gun", minimum=0.1, maximum=1.0)
    mantlet_height_share: float = tuning("the mantlet's (the gun's shield) height as a share "
                                         "of the turret's", minimum=0.1, maximum=1.5)
    mantlet_back_m: float = tuning("the mantlet's back face stands this far behind the "
                                   "trunnions", minimum=0.0, maximum=2.0)
    mantlet_front_m: float = tuning("and its front face this far ahead of them", minimum=0.0,
                                    maximum=2.0)
    mantlet_back_half_width_m: float = tuning(
        "half the back face's width on a 0.9 m wide turret (it scales with the turret's "
        "width)", minimum=0.02, maximum=2.0)
    mantlet_front_half_width_m: float = tuning("the same for the front face", minimum=0.02,
                                               maximum=2.0)
    mantlet_front_half_height_share: float = tuning(
        "half the front face's height as a share of the mantlet's", minimum=0.05,
        maximum=0.5)
    gun_length_m: float = tuning("barrel length from the mantlet", minimum=0.5, maximum=12.0)
    gun_calibre_mm: float = tuning("the bore of a tank whose spec has no gun",
                                   minimum=5.0, maximum=250.0)
    barrel_radius_calibres: float = tuning("the barrel's outer radius in calibres of its bore",
                                           minimum=0.5, maximum=3.0)
    barrel_start_m: float = tuning("the barrel starts this far ahead of the trunnions (inside "
                                   "the mantlet)", minimum=0.0, maximum=2.0)
    barrel_breech_radius_share: float = tuning("the barrel's radius at its start as a share of "
                                               "its radius", minimum=0.5, maximum=4.0)
    fume_extractor_share: float = tuning("the fume extractor (the bulge on the barrel) sits "
                                         "this share of the way along it", minimum=0.0,
                                         maximum=1.0)
    fume_extractor_stations_m: tuple[float, ...] = tuning(
        "along the barrel from there: where it starts to swell, reaches the extractor, and "
        "where the extractor starts and ends its taper", minimum=-2.0, maximum=2.0,
        length=(4, 4))
    fume_extractor_radius_shares: tuple[float, ...] = tuning(
        "the barrel's radius at those four points as shares of its radius", minimum=0.5,
        maximum=4.0, length=(4, 4))
    muzzle_length_m: float = tuning("muzzle brake length", minimum=0.0, maximum=2.0)
    muzzle_radius_calibres: float = tuning("muzzle brake radius in calibres", minimum=0.5,
                                           maximum=5.0)
    muzzle_taper: float = tuning("the muzzle brake's front radius as a share of its back's",
                                 minimum=0.3, maximum=1.5)
    muzzle_sides: int = tuning("facets round the muzzle brake", minimum=3, maximum=64)
    wheel_colour: tuple[float, ...] = rgb("road wheels, 0..1")
    rubber_colour: tuple[float, ...] = rgb("wheel rims' rubber, 0..1")
    metal_colour: tuple[float, ...] = rgb("bare steel (muzzle, hubs), 0..1")
    specular: float = tuning("sheen of the paint in the sun", minimum=0.0, maximum=2.0)
    track_texture_px: tuple[float, ...] = tuning("generated track texture: pixels across, "
                                                 "along one link", minimum=2.0, maximum=256.0,
                                                 length=(2, 2))
    track_plate_shade: float = tuning("a link's plate: brightness on the track colour",
                                      minimum=0.0, maximum=2.0)
    track_grouser_shade: float = tuning("its raised grouser bar's", minimum=0.0, maximum=2.0)
    track_gap_shade: float = tuning("the gap to the next link's", minimum=0.0, maximum=2.0)
    track_grouser_share: float = tuning("the grouser's share of a link's length", minimum=0.0,
                                        maximum=1.0)
    track_gap_share: float = tuning("the gap's share of a link's length", minimum=0.0,
                                    maximum=1.0)
    broken_track_lead_m: float = tuning("a broken track lies from this far ahead of the front "
                                        "road wheel ...", minimum=0.0, maximum=5.0)
    broken_track_trail_m: float = tuning("... under the road wheels to this far behind the "
                                         "rear one", minimum=0.1, maximum=20.0)
    broken_track_slew_m: float = tuning("its trailing end lies this far outward of where the "
                                        "track ran", minimum=0.0, maximum=5.0)


class TankRig:
    """The tank's nodes under ``root``; :meth:`update` poses them from the vehicle."""

    def __init__(self, parent: NodePath, vehicle, spec: TankRigSpec, paint, track_colour):
        self.vehicle = vehicle
        self.spec = spec
        constants = vehicle.constants
        self.anchors_bs = np.array(constants.position_bs, dtype=np.float64)
        self.rest_length_m = float(constants.rest_length_m)
        ride_height_m = vehicle.spec.suspension.ride_height_m
        self.shape = HullShape(vehicle.spec.hull, self.anchors_bs, ride_height_m, spec)
        self.root = parent.attachNewNode(vehicle.name + "-rig")
        self.root.setShaderInput("specular_strength", spec.specular)
        plates = getattr(vehicle.spec, "plates", None)
        hull_plates = drawn_plates(plates, "hull")
        if hull_plates:
            attach_plates(self.root, "hull", hull_plates, paint)
        else:
            self.root.attachNewNode(hull_node(self.shape, paint))
        self.turret_rig = TurretRig(self.root, spec, self.shape,
                                    getattr(vehicle.spec, "gun", None), paint,
                                    drawn_plates(plates, "turret"))
        self.turret, self.gun = self.turret_rig.turret, self.turret_rig.gun
        self.muzzle_bs = self.turret_rig.muzzle_bs
        """The muzzle in the gun node's frame."""
        self.travel_m = float(constants.ray_length_m)
        """The most a wheel's centre moves from where it was built (a whole ray's length)."""
        self._build_wheels()
        self._build_belts(track_colour)
        self.step_latch = StepLatch(self._step_values)
        rest = np.full(len(self.anchors_bs), self.rest_length_m)
        self.step_pair = ((rest, np.zeros(2)), (rest, np.zeros(2)))
        """The per-step values (anchor distances, track speeds) of the last two steps."""
        self.step_alpha = 0.0
        """How far from the first of them to the second the last :meth:`update` drew."""
        self.parts_posed = False
        """The wheels and belts show this frame's pose (:meth:`pose_parts` ran since the
        last :meth:`update`)."""
        self.shown_wheel_z = np.full(len(self.wheel_xy), self.shape.wheel_centre_rest_z)
        self.shown_travelled_m = np.zeros(2)
        self.shown_belt_colour = self.belt_colour
        """What the wheels' and belts' nodes show (as built: at rest, not run): posing
        rewrites only what changed."""
        self.position = np.zeros(3)
        self.rotation = np.eye(3)
        self.damage = DamageLook(self, OUTWARD)
        """Its broken tracks and thrown turret (:mod:`game.view.rigs.rig_damage`)."""

    # ----- wheels and tracks ------------------------------------------------------------

    def _build_wheels(self) -> None:
        """A road wheel at each anchor and more between, on each side, then each side's
        sprocket (behind) and idler (ahead), raised: one :class:`WheelSet`, the road wheels
        first. Each anchor's nearest road wheel stands for it (:meth:`anchor_contacts_ws`)."""
        spec, shape = self.spec, self.shape
        half_width = spec.wheel_width_share * shape.track_half_width
        self.station_y: list[np.ndarray] = []
        self.anchor_wheel = np.zeros(len(self.anchors_bs), dtype=np.int64)
        left = self.anchors_bs[:, 0] < 0.0
        sides = [np.nonzero(left)[0], np.nonzero(~left)[0]]
        pieces, centres = [], []
        for side, on_side in enumerate(sides):
            along_y = self.anchors_bs[on_side, 1]
            stations = wheel_stations(along_y, round(float(np.ptp(along_y))
                                                     / spec.road_wheel_pitch_m) + 1)
            self.station_y.append(stations)
            wheel = self._wheel_node(spec.road_wheel_radius_m, half_width, OUTWARD[side],
                                     paint=spec.wheel_colour)
            for anchor in on_side:
                self.anchor_wheel[anchor] = len(centres) + int(np.argmin(
                    np.abs(stations - self.anchors_bs[anchor, 1])))
            pieces += [wheel] * len(stations)
            centres += [(shape.track_x[side], y, shape.wheel_centre_rest_z) for y in stations]
        self.wheel_xy = np.array(centres)[:, :2]
        """Each road wheel's centre across and along the hull (its height moves)."""
        self.wheel_weights = wheel_height_weights(self.anchors_bs, sides, self.station_y)
        """Road wheels' centre heights from the anchors' ground heights (before the lift)."""
        self.wheel_lift_m = spec.track_thickness_m + spec.road_wheel_radius_m
        """A road wheel's centre stands this far above the ground under it."""
        drive_z = shape.wheel_centre_rest_z + spec.drive_wheel_raise_m
        self.drive_centres = []  # per side: (rear (sprocket) y, front (idler) y, z)
        self.drive_wheel_sides: list[int] = []
        """Each sprocket's and idler's side (0 left, 1 right), in the set's order."""
        for side in (0, 1):
            stations = self.station_y[side]
            rear_y = stations[0] - spec.drive_wheel_gap_m
            front_y = stations[-1] + spec.drive_wheel_gap_m
            self.drive_centres.append((rear_y, front_y, drive_z))
            for y, teeth in ((rear_y, True), (front_y, False)):
                pieces.append(self._wheel_node(
                    spec.drive_wheel_radius_m, half_width, OUTWARD[side],
                    paint=spec.metal_colour if teeth else spec.wheel_colour,
                    sides=spec.sprocket_sides if teeth else spec.wheel_sides))
                centres.append((shape.track_x[side], y, drive_z))
                self.drive_wheel_sides.append(side)
        centres = np.array(centres)
        reach = (np.linalg.norm(centres, axis=1).max() + self.travel_m
                 + max(geometry_reach_m(piece) for piece in pieces))
        self.wheels = WheelSet(self.root, pieces, centres, reach)
        self.wheel_poses = np.column_stack([centres, np.zeros(len(centres))])
        """Each wheel's centre (rig frame) and spin (radians), as last written."""

    def _wheel_node(self, radius: float, half_width: float, outward: float, paint,
                    sides: int | None = None):
        """A wheel about the X axis: a rubber tyre, a steel disc on its ``outward`` face
        (-1 left, +1 right) and a hub cone standing out of it."""
        spec = self.spec
        sides = sides or spec.wheel_sides
        face = half_width
        stations = np.array([-half_width, face - spec.tyre_shoulder_inset_m,
                             face - spec.wheel_disc_inset_m, face,
                             face + spec.wheel_hub_length_m]) * outward
        disc, disc_edge = spec.wheel_disc_radius_shares
        radii = [radius, radius, radius * disc, radius * disc_edge,
                 radius * spec.wheel_hub_tip_radius_share]
        return cylinder_mesh("wheel", 0, stations, radii, sides,
                             [spec.rubber_colour, spec.rubber_colour, paint, paint],
                             smooth=False)

    def _build_belts(self, track_colour) -> None:
        """Both sides' track belts, textured with links, at ride height: one mesh."""
        spec = self.spec
        self.travelled_m = np.zeros(2)
        """Metres each track's belt has run (drives the links' scroll and the wheels' spin)."""
        width_px, length_px = spec.track_texture_px
        self.track_tex = track_texture(int(width_px), int(length_px), spec.track_plate_shade,
                                       spec.track_grouser_shade, spec.track_gap_shade,
                                       spec.track_grouser_share, spec.track_gap_share)
        self._track_colour = np.asarray(track_colour, dtype=np.float64)[:3]
        self.belt_colour = self._track_colour
        self.belt_shapes = [self._belt_shape(side) for side in (0, 1)]
        self.belt_template = BeltTemplate.of(self.belt_shapes)
        """Both belts' fixed geometry, for the batched pass (:mod:`game.view.rigs.rig_pose`)."""
        rest_z = [np.full(len(belt.stations_y), self.shape.wheel_centre_rest_z)
                  for belt in self.belt_shapes]
        node = belts_node("tracks", self.belt_shapes, rest_z, track_colour)
        path = self.root.attachNewNode(node)
        path.setShader(lit_shader("TEXTURED"))
        path.setTexture(self.track_tex)
        path.setShaderInput("specular_strength", 0.0)
        self.belts: list[NodePath] = [path]
        self.belt_data = node.modifyGeom(0).modifyVertexData()
        """Both belts' vertex rows, the left belt's first (one copy rewrites them)."""

    def _belt_shape(self, side: int) -> BeltShape:
        spec = self.spec
        rear_y, front_y, drive_z = self.drive_centres[side]
        return BeltShape(
            track_x_m=self.shape.track_x[side], half_width_m=self.shape.track_half_width,
            stations_y=self.station_y[side], rear_y_m=rear_y, front_y_m=front_y,
            drive_z_m=drive_z, road_wheel_radius_m=spec.road_wheel_radius_m,
            drive_wheel_radius_m=spec.drive_wheel_radius_m, thickness_m=spec.track_thickness_m,
            link_length_m=spec.track_link_length_m, arc_segments=spec.track_arc_segments)

    def set_belt_shade(self, shade) -> None:
        """Multiply the belts' colour (a wreck is burnt); (1, 1, 1) puts it back."""
        self.belt_colour = self._track_colour * np.asarray(shade, dtype=np.float64)[:3]

    # ----- per frame ------------------------------------------------------------------

    def _anchor_distances(self) -> np.ndarray:
        """Each anchor's distance from its origin to the ground along its ray, from the
        controller's last substep (unloaded length where it is off the ground)."""
        anchors = self.vehicle.anchors()
        if anchors is None:
            return np.full(len(self.anchors_bs), self.rest_length_m)
        along = np.einsum("ai,ai->a", anchors.contact_point_ws - anchors.origin_ws,
                          anchors.direction_ws)
        return np.where(anchors.on_ground, along, anchors.rest_length_m)

    def _step_values(self) -> tuple[np.ndarray, np.ndarray]:
        """Per step: the anchors' distances to the ground and the tracks' ground speeds."""
        return (self._anchor_distances(),
                np.array(self.vehicle.track_speeds_mps(), dtype=np.float64))

    def update(self, alpha: float, frame_s: float = 0.0, pose_parts: bool = True,
               thrown_turret=None) -> None:
        """Pose the hull at the state ``alpha`` of the way from the previous step to the
        last one; ``frame_s`` advances the tracks' and wheels' spin. The turret, gun, wheels
        and belts follow only with ``pose_parts`` (else :meth:`pose_parts` may, this frame).
        Many rigs at once: :func:`game.view.rigs.rig_pose.place_tank_rigs`, then
        :meth:`follow_damage` (``thrown_turret``)."""
        place_tank_rigs([self], alpha, frame_s)
        self.follow_damage(thrown_turret)
        if pose_parts:
            self.pose_parts()

    def follow_damage(self, thrown_turret=None) -> None:
        """After the hull is placed: a destroyed track lies off its wheels, and a turret an
        ammo rack threw (``thrown_turret``: its ThrownTurret, None: none) is drawn where it
        flies or lies, with its gun."""
        self.damage.follow(thrown_turret)

    def pose_parts(self) -> None:
        """Turret, gun, road wheels, sprockets, idlers and belts at the pose of the last
        :meth:`update` (once a frame: a second call does nothing). Many rigs at once:
        :func:`game.view.rigs.rig_pose.pose_tank_parts`."""
        pose_tank_parts([self])

    # ----- queries --------------------------------------------------------------------

    def anchor_contacts_ws(self) -> np.ndarray:
        """Where the track under each anchor's wheel meets the ground, world space (A, 3)."""
        render = self.root.getTop()
        drop = self.spec.track_thickness_m + self.spec.road_wheel_radius_m
        return np.array([render.getRelativePoint(self.root, Point3(
            *self.wheel_xy[w], self.shown_wheel_z[w] - drop)) for w in self.anchor_wheel])

    def aim_turret(self) -> None:
        """Turn the turret and raise the gun as the vehicle's last step has them (not one
        that was thrown off)."""
        if self.damage.thrown is None:
            self.turret_rig.aim(self.vehicle.turret_heading_rad,
                                self.vehicle.gun_elevation_rad)

    def gun_pose_ws(self, offset_m=(0.0, 0.0, 0.0)) -> tuple[np.ndarray, np.ndarray]:
        """A point fixed to the gun (``offset_m``: right, forward, up from the trunnion) and
        the gun's axes as columns (right, along the bore, up), world space: the turret
        aimed first (a frame reads it before the seen rigs' parts are posed)."""
        self.aim_turret()
        render = self.root.getTop()
        point = np.array(render.getRelativePoint(self.gun, Point3(*offset_m)))
        quat = self.gun.getQuat(render)
        axes = np.column_stack([np.array(quat.getRight()), np.array(quat.getForward()),
                                np.array(quat.getUp())])
        return point, axes

    def destroy(self) -> None:
        self.damage.destroy()
        self.root.removeNode()
