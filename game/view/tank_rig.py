"""The drawn tank: shaped hull, turret, gun, road wheels on the anchors, scrolling tracks.

All geometry is built once, in the body frame (origin at the centre of mass, +Y
forward, +X right, +Z up), in proportion to the hull box of the physics spec:

- hull: a sloped glacis and nose, a sloped rear plate, fenders over the tracks;
- turret on a ring, turned by ``vehicle.turret_heading_rad``; the gun on trunnions at
  its front, raised by ``vehicle.gun_elevation_rad``; where the vehicle's spec has a
  ``gun`` (physics), the ring stands on its ``turret_pivot_m``, the trunnions at its
  ``gun_height_m`` and the muzzle where its shells leave (exactly, at zero elevation);
- road wheels: each anchor carries one, more are spread between them; every wheel
  sits where the anchors' last rays put the ground (interpolated along the track
  between anchors), blended between the last two steps like the hull, so nothing
  jitters; they spin with the track;
- tracks: a belt round the road wheels, the rear sprocket and the front idler, whose
  vertices are rewritten in place each frame (no new nodes); its links' texture
  scrolls at the track's ground speed.

:class:`TankRig` only reads the vehicle; it never writes physics state.
"""

from __future__ import annotations

from dataclasses import dataclass

import math

import numpy as np
from panda3d.core import GeomNode, LQuaternionf, NodePath, Point3

from game.view.meshes import cylinder_mesh, loft_mesh, make_mesh, prism_x, write_rows
from game.view.shaders import lit_shader
from game.view.step_latch import StepLatch
from game.view.textures import track_texture
from physics.model.pose import blend_poses, rotation_matrix
from physics.model.spec import rgb, Spec, tuning


@dataclass(frozen=True)
class TankRigSpec(Spec):
    """The drawn tank's shape, in proportion to its hull box where it can be."""

    road_wheels_per_side: int = tuning("road wheels on each side, spread from the rearmost to "
                                       "the foremost anchor", minimum=2, maximum=16)
    road_wheel_radius_m: float = tuning("road wheel radius", minimum=0.05, maximum=2.0)
    drive_wheel_radius_m: float = tuning("radius of the sprocket (rear) and idler (front)",
                                         minimum=0.05, maximum=2.0)
    drive_wheel_gap_m: float = tuning("sprocket and idler stand this far beyond the end road "
                                      "wheels", minimum=0.0, maximum=3.0)
    drive_wheel_raise_m: float = tuning("and this far above the road wheels' centres at "
                                        "ride height", minimum=0.0, maximum=2.0)
    track_thickness_m: float = tuning("track belt thickness", minimum=0.01, maximum=0.5)
    track_link_length_m: float = tuning("length of one track link (one texture repeat)",
                                        minimum=0.05, maximum=2.0)
    track_arc_segments: int = tuning("segments round each end of the track belt",
                                     minimum=2, maximum=32)
    wheel_sides: int = tuning("facets round a wheel", minimum=6, maximum=64)
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
    gun_length_m: float = tuning("barrel length from the mantlet", minimum=0.5, maximum=12.0)
    gun_radius_m: float = tuning("barrel radius", minimum=0.02, maximum=0.5)
    muzzle_length_m: float = tuning("muzzle brake length", minimum=0.0, maximum=2.0)
    muzzle_radius_m: float = tuning("muzzle brake radius", minimum=0.02, maximum=1.0)
    wheel_colour: tuple[float, ...] = rgb("road wheels, 0..1")
    rubber_colour: tuple[float, ...] = rgb("wheel rims' rubber, 0..1")
    metal_colour: tuple[float, ...] = rgb("bare steel (muzzle, hubs), 0..1")
    specular: float = tuning("sheen of the paint in the sun", minimum=0.0, maximum=2.0)
    track_texture_px: tuple[float, ...] = tuning("generated track texture: pixels across, "
                                                 "along one link", minimum=2.0, maximum=256.0,
                                                 length=(2, 2))


def wheel_stations(anchor_y: np.ndarray, count: int) -> np.ndarray:
    """Wheel positions along one track: every anchor's, then midpoints of the largest gaps
    until there are ``count`` (sorted rear to front)."""
    stations = sorted(set(float(y) for y in anchor_y))
    while len(stations) < count:
        gaps = np.diff(stations)
        widest = int(np.argmax(gaps))
        stations.insert(widest + 1, (stations[widest] + stations[widest + 1]) / 2.0)
    return np.array(stations)


class HullShape:
    """Body-frame dimensions of the drawn hull, from the physics hull box and the rig spec."""

    def __init__(self, hull, anchors_bs: np.ndarray, ride_height_m: float, spec: TankRigSpec):
        self.half_x, self.half_y, half_z = hull.half_extents_m
        self.floor_z = hull.centre_of_mass_drop_m - half_z
        self.deck_z = hull.centre_of_mass_drop_m + half_z
        height = self.deck_z - self.floor_z
        self.length_m = 2.0 * self.half_y
        self.fender_z = self.floor_z + spec.fender_height_share * height
        self.nose_z = self.floor_z + spec.nose_height_share * height
        self.glacis_m = spec.glacis_length_share * self.length_m
        self.rear_m = spec.rear_slope_share * self.length_m
        left = anchors_bs[:, 0] < 0.0
        self.track_x = np.array([anchors_bs[left, 0].mean(), anchors_bs[~left, 0].mean()])
        self.track_half_width = max(self.half_x - float(np.abs(self.track_x).min()),
                                    spec.track_thickness_m)
        self.inner_x = float(np.abs(self.track_x).min()) - self.track_half_width
        self.anchor_z = float(anchors_bs[:, 2].mean())
        self.wheel_centre_rest_z = (self.anchor_z - ride_height_m + spec.track_thickness_m
                                    + spec.road_wheel_radius_m)


def _hull_nodes(shape: HullShape, colour) -> list[GeomNode]:
    hy, zt, zb, zn = shape.half_y, shape.deck_z, shape.floor_z, shape.nose_z
    zf = shape.fender_z
    front_floor = hy - (zn - zb)
    rear_floor = -hy + (zf - zb) * 0.8
    centre = [(-hy + shape.rear_m, zt), (hy - shape.glacis_m, zt), (hy, zn), (front_floor, zb),
              (rear_floor, zb), (-hy, zf)]
    nodes = [prism_x("hull", centre, -shape.inner_x, shape.inner_x, colour)]
    # Fenders over the tracks: the glacis carried out to the sides, cut off at the fender.
    glacis_y = hy - shape.glacis_m + shape.glacis_m * (zt - zf) / max(zt - zn, 1e-6)
    fender = [(-hy + shape.rear_m, zt), (hy - shape.glacis_m, zt), (min(glacis_y, hy), zf),
              (-hy, zf)]
    nodes.append(prism_x("fender-left", fender, -shape.half_x, -shape.inner_x, colour))
    nodes.append(prism_x("fender-right", fender, shape.inner_x, shape.half_x, colour))
    return nodes


def _turret_rings(width: float, length: float, height: float, taper: float):
    outline = np.array([(0.30, 0.50), (0.50, 0.20), (0.50, -0.38), (0.40, -0.50),
                        (-0.40, -0.50), (-0.50, -0.38), (-0.50, 0.20), (-0.30, 0.50)])
    base = outline * (width, length)
    roof = outline * (width * taper, length * taper) + (0.0, -0.05 * length)
    sink = 0.05 * height
    return [np.hstack([base, np.full((len(base), 1), -sink)]),
            np.hstack([roof, np.full((len(roof), 1), height)])]


class TankRig:
    """The tank's nodes under ``root``; :meth:`update` poses them from the vehicle."""

    def __init__(self, parent: NodePath, vehicle, spec: TankRigSpec, paint, track_colour):
        self.vehicle = vehicle
        self.spec = spec
        constants = vehicle.fleet.constants
        self.anchors_bs = np.array(constants.position_bs, dtype=np.float64)
        self.rest_length_m = float(constants.rest_length_m)
        ride_height_m = vehicle.spec.suspension.ride_height_m
        self.shape = shape = HullShape(vehicle.spec.hull, self.anchors_bs, ride_height_m, spec)
        self.root = parent.attachNewNode(vehicle.name + "-rig")
        self.root.setShaderInput("specular_strength", spec.specular)
        for node in _hull_nodes(shape, paint):
            self.root.attachNewNode(node)

        # Turret and gun.
        turret_width = spec.turret_width_share * 2.0 * shape.half_x
        turret_length = spec.turret_length_share * shape.length_m
        self.turret = self.root.attachNewNode("turret")
        gun_spec = getattr(vehicle.spec, "gun", None)
        """The physics gun, where the tank has one: the drawn turret turns on its ring and
        the drawn muzzle sits where shells leave (at zero elevation)."""
        if gun_spec is not None:
            self.turret.setPos(*gun_spec.turret_pivot_m)
        else:
            self.turret.setPos(0.0, spec.turret_offset_share * shape.half_y, shape.deck_z)
        self.turret.attachNewNode(loft_mesh("turret-body", _turret_rings(
            turret_width, turret_length, spec.turret_height_m, spec.turret_taper), paint))
        cupola = self.turret.attachNewNode(cylinder_mesh(
            "cupola", 2, [spec.turret_height_m - 0.02, spec.turret_height_m + 0.16],
            [0.26, 0.22], spec.wheel_sides, [paint], smooth=False))
        cupola.setPos(-0.22 * turret_width, -0.15 * turret_length, 0.0)
        self.gun = self.turret.attachNewNode("gun")
        trunnion_y = 0.5 * turret_length * 0.92
        trunnion_z = (min(gun_spec.gun_height_m, 0.8 * spec.turret_height_m)
                      if gun_spec is not None else 0.5 * spec.turret_height_m)
        self.gun.setPos(0.0, trunnion_y, trunnion_z)
        mantlet_h = 0.55 * spec.turret_height_m
        mantlet = [np.array([(-0.22, -0.25, -mantlet_h / 2), (0.22, -0.25, -mantlet_h / 2),
                             (0.22, -0.25, mantlet_h / 2), (-0.22, -0.25, mantlet_h / 2)]) * (
                       turret_width / 0.9, 1.0, 1.0),
                   np.array([(-0.15, 0.35, -mantlet_h * 0.35), (0.15, 0.35, -mantlet_h * 0.35),
                             (0.15, 0.35, mantlet_h * 0.35), (-0.15, 0.35, mantlet_h * 0.35)]) * (
                       turret_width / 0.9, 1.0, 1.0)]
        self.gun.attachNewNode(loft_mesh("mantlet", mantlet, paint))
        barrel_end = spec.gun_length_m
        if gun_spec is not None:
            barrel_end = max(gun_spec.gun_length_m - trunnion_y - spec.muzzle_length_m, 1.0)
        barrel_start = 0.3
        sleeve = barrel_start + 0.55 * (barrel_end - barrel_start)
        r = spec.gun_radius_m
        self.gun.attachNewNode(cylinder_mesh(
            "barrel", 1, [barrel_start, sleeve - 0.3, sleeve, sleeve + 0.5, sleeve + 0.7,
                          barrel_end],
            [r * 1.15, r * 1.05, r * 1.45, r * 1.45, r, r], spec.wheel_sides,
            [paint, paint, paint, paint, paint]))
        muzzle_end = barrel_end + spec.muzzle_length_m
        if spec.muzzle_length_m > 0.0:
            self.gun.attachNewNode(cylinder_mesh(
                "muzzle", 1, [barrel_end, muzzle_end], [spec.muzzle_radius_m,
                                                        spec.muzzle_radius_m * 0.9],
                8, [spec.metal_colour], smooth=False))
        self.muzzle_bs = np.array([0.0, muzzle_end, 0.0])
        """The muzzle in the gun node's frame."""

        # Road wheels, sprockets and idlers.
        r = spec.road_wheel_radius_m
        self.wheel_mounts: list[NodePath] = []
        self.wheel_spinners: list[NodePath] = []
        self.side_of_wheel: list[int] = []
        self.station_y: list[np.ndarray] = []
        self.anchor_wheel = np.zeros(len(self.anchors_bs), dtype=np.int64)
        left = self.anchors_bs[:, 0] < 0.0
        half_w = shape.track_half_width
        for side, on_side in enumerate((left, ~left)):
            stations = wheel_stations(self.anchors_bs[on_side, 1], spec.road_wheels_per_side)
            self.station_y.append(stations)
            outward = -1.0 if side == 0 else 1.0
            wheel = self._wheel_node(r, 0.8 * half_w, outward, paint=spec.wheel_colour)
            first = len(self.wheel_mounts)
            for y in stations:
                mount = self.root.attachNewNode("wheel-mount")
                mount.setPos(shape.track_x[side], y, shape.wheel_centre_rest_z)
                spinner = mount.attachNewNode("wheel")
                spinner.attachNewNode(wheel)  # instanced: one geometry per side
                self.wheel_mounts.append(mount)
                self.wheel_spinners.append(spinner)
                self.side_of_wheel.append(side)
            for anchor in np.nonzero(on_side)[0]:
                self.anchor_wheel[anchor] = first + int(np.argmin(
                    np.abs(stations - self.anchors_bs[anchor, 1])))
        self.side_of_wheel = np.array(self.side_of_wheel)
        rd = spec.drive_wheel_radius_m
        drive_z = shape.wheel_centre_rest_z + spec.drive_wheel_raise_m
        self.drive_wheels: list[tuple[NodePath, int]] = []
        self.drive_centres = []  # per side: (rear (sprocket) y, front (idler) y, z)
        for side in (0, 1):
            outward = -1.0 if side == 0 else 1.0
            stations = self.station_y[side]
            rear_y = stations[0] - spec.drive_wheel_gap_m
            front_y = stations[-1] + spec.drive_wheel_gap_m
            self.drive_centres.append((rear_y, front_y, drive_z))
            for y, teeth in ((rear_y, True), (front_y, False)):
                mount = self.root.attachNewNode("drive-wheel")
                mount.setPos(shape.track_x[side], y, drive_z)
                spinner = mount.attachNewNode("spin")
                spinner.attachNewNode(self._wheel_node(rd, 0.8 * half_w, outward,
                                                       paint=spec.metal_colour if teeth
                                                       else spec.wheel_colour,
                                                       sides=10 if teeth else spec.wheel_sides))
                self.drive_wheels.append((spinner, side))

        # Track belts.
        self._travelled = np.zeros(2)
        """Metres each track's belt has run (drives the links' scroll and the wheels' spin)."""
        self.track_tex = track_texture(int(spec.track_texture_px[0]),
                                       int(spec.track_texture_px[1]), 0.75, 1.0, 0.3,
                                       0.3, 0.12)
        self.belts: list[NodePath] = []
        self._belt_data = []
        points = self._belt_path(0, np.full(len(self.station_y[0]),
                                             shape.wheel_centre_rest_z))
        self._belt_points = len(points) + 1
        for side in (0, 1):
            node = self._belt_node(side, track_colour)
            path = self.root.attachNewNode(node)
            path.setShader(lit_shader("TEXTURED"))
            path.setTexture(self.track_tex)
            path.setShaderInput("specular_strength", 0.0)
            self.belts.append(path)
            self._belt_data.append(node.modifyGeom(0).modifyVertexData())
        self._distances = StepLatch(self._anchor_distances)
        self.position = np.zeros(3)
        self.rotation = np.eye(3)

    # ----- geometry -------------------------------------------------------------------

    def _wheel_node(self, radius: float, half_width: float, outward: float, paint,
                    sides: int | None = None):
        sides = sides or self.spec.wheel_sides
        spec = self.spec
        stations = np.array([-half_width, half_width - 0.04, half_width - 0.02, half_width,
                             half_width + 0.05]) * outward
        stations[-1] = (half_width + 0.05) * outward
        radii = [radius, radius, radius * 0.82, radius * 0.8, radius * 0.3]
        return cylinder_mesh("wheel", 0, stations, radii, sides,
                             [spec.rubber_colour, spec.rubber_colour, paint, paint],
                             smooth=False)

    def _belt_path(self, side: int, centre_z: np.ndarray) -> np.ndarray:
        """The belt's inner surface round one side, (N, 2) points (y, z), clockwise seen
        from the right: along the top to the front, down round the idler, back along the
        bottom under the road wheels, up round the sprocket."""
        spec = self.spec
        r, rd = spec.road_wheel_radius_m, spec.drive_wheel_radius_m
        rear_y, front_y, drive_z = self.drive_centres[side]
        stations = self.station_y[side]
        n = spec.track_arc_segments
        points = []
        # Round the idler's front, from its top, down toward the front road wheel.
        for angle in np.linspace(math.pi / 2, -math.pi / 3, n + 1):
            points.append((front_y + rd * math.cos(angle), drive_z + rd * math.sin(angle)))
        points.append((stations[-1] + r * math.cos(-math.pi / 4),
                       centre_z[-1] + r * math.sin(-math.pi / 4)))
        for y, z in zip(stations[::-1], centre_z[::-1]):
            points.append((y, z - r))
        points.append((stations[0] - r * math.cos(-math.pi / 4),
                       centre_z[0] + r * math.sin(-math.pi / 4)))
        for angle in np.linspace(-2 * math.pi / 3, -3 * math.pi / 2, n + 1):
            points.append((rear_y + rd * math.cos(angle), drive_z + rd * math.sin(angle)))
        return np.array(points)

    def _belt_rows(self, side: int, centre_z: np.ndarray, colour) -> np.ndarray:
        spec = self.spec
        inner = self._belt_path(side, centre_z)
        inner = np.vstack([inner, inner[:1]])  # closed: the first point again at the end
        tangent = np.roll(inner[:-1], -1, axis=0) - np.roll(inner[:-1], 1, axis=0)
        tangent /= np.maximum(np.linalg.norm(tangent, axis=1, keepdims=True), 1e-9)
        tangent = np.vstack([tangent, tangent[:1]])
        outward = np.stack([-tangent[:, 1], tangent[:, 0]], axis=1)
        outer = inner + outward * spec.track_thickness_m
        arc = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(inner, axis=0), axis=1))])
        links = max(round(arc[-1] / spec.track_link_length_m), 1)
        u = (arc - self._travelled[side]) * links / arc[-1]
        x0 = self.shape.track_x[side] - self.shape.track_half_width
        x1 = self.shape.track_x[side] + self.shape.track_half_width
        count = len(inner)

        def strip(yz_a, x_a, yz_b, x_b, normal, v_a, v_b):
            pa = np.column_stack([np.full(count, x_a), yz_a])
            pb = np.column_stack([np.full(count, x_b), yz_b])
            positions = np.empty((2 * count, 3))
            positions[0::2], positions[1::2] = pa, pb
            normals = np.repeat(normal, 2, axis=0)
            uv = np.empty((2 * count, 2))
            uv[:, 0] = np.repeat(u, 2)
            uv[0::2, 1], uv[1::2, 1] = v_a, v_b
            return positions, normals, uv

        zero = np.zeros((count, 1))
        out_n = np.hstack([zero, outward])
        side_n = np.tile([1.0, 0.0, 0.0], (count, 1))
        parts = [strip(outer, x0, outer, x1, out_n, 0.0, 1.0),
                 strip(inner, x1, inner, x0, -out_n, 1.0, 0.0),
                 strip(inner, x1, outer, x1, side_n, 0.0, 0.1),
                 strip(outer, x0, inner, x0, -side_n, 0.1, 0.0)]
        positions = np.concatenate([p[0] for p in parts])
        normals = np.concatenate([p[1] for p in parts])
        uvs = np.concatenate([p[2] for p in parts])
        colours = np.tile(np.append(np.asarray(colour, dtype=np.float64), 1.0),
                          (len(positions), 1))
        return np.hstack([positions, normals, colours, uvs])

    def set_belt_shade(self, shade) -> None:
        """Multiply the belts' colour (a wreck is burnt); (1, 1, 1) puts it back."""
        self._belt_colour = np.asarray(self._track_colour, dtype=np.float64) * np.asarray(shade)

    def _belt_node(self, side: int, colour):
        self._belt_colour = colour
        self._track_colour = colour
        rows = self._belt_rows(side, np.full(len(self.station_y[side]),
                                             self.shape.wheel_centre_rest_z), colour)
        count = self._belt_points
        triangles = []
        for strip_index in range(4):
            base = strip_index * 2 * count
            for k in range(count - 1):
                a, b = base + 2 * k, base + 2 * k + 1
                c, d = a + 2, b + 2
                triangles += [(a, c, d), (a, d, b)]
        triangles = np.array(triangles)
        # Wind each quad to face along its normal.
        p = rows[:, :3]
        n = rows[:, 3:6]
        face = np.einsum("ij,ij->i", np.cross(p[triangles[:, 1]] - p[triangles[:, 0]],
                                              p[triangles[:, 2]] - p[triangles[:, 0]]),
                         n[triangles[:, 0]])
        triangles[face < 0] = triangles[face < 0][:, [0, 2, 1]]
        return make_mesh(f"track-{side}", rows[:, :3], rows[:, 3:6], rows[:, 6:10], triangles,
                         uvs=rows[:, 10:12], dynamic=True)

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

    def update(self, alpha: float, frame_s: float = 0.0) -> None:
        """Pose everything at the state ``alpha`` of the way from the previous step to the
        last one; ``frame_s`` advances the tracks' and wheels' spin."""
        vehicle = self.vehicle
        previous_d, current_d = self._distances.update(vehicle.current)
        distances = previous_d + (current_d - previous_d) * alpha
        position, orientation = blend_poses(vehicle.previous, vehicle.current, alpha)
        self.position, self.rotation = position, rotation_matrix(orientation)
        self.root.setPosQuat(Point3(*position), LQuaternionf(*orientation))
        self.turret.setH(-math.degrees(vehicle.turret_heading_rad))
        self.gun.setP(math.degrees(vehicle.gun_elevation_rad))

        speeds = np.array(vehicle.track_speeds_mps(), dtype=np.float64)
        self._travelled += speeds * frame_s
        spec = self.spec
        lift = spec.track_thickness_m + spec.road_wheel_radius_m
        left = self.anchors_bs[:, 0] < 0.0
        wheel = 0
        for side, on_side in enumerate((left, ~left)):
            order = np.argsort(self.anchors_bs[on_side, 1])
            ys = self.anchors_bs[on_side, 1][order]
            ground_z = (self.anchors_bs[on_side, 2] - distances[on_side])[order]
            stations = self.station_y[side]
            centre_z = np.interp(stations, ys, ground_z) + lift
            spin = -math.degrees(self._travelled[side] / spec.road_wheel_radius_m)
            for y, z in zip(stations, centre_z):
                self.wheel_mounts[wheel].setPos(self.shape.track_x[side], y, z)
                self.wheel_spinners[wheel].setP(spin)
                wheel += 1
            rows = self._belt_rows(side, centre_z, self._belt_colour)
            write_rows(self._belt_data[side], rows)
        for spinner, side in self.drive_wheels:
            spinner.setP(-math.degrees(self._travelled[side] / spec.drive_wheel_radius_m))

    # ----- queries --------------------------------------------------------------------

    def anchor_contacts_ws(self) -> np.ndarray:
        """Where the track under each anchor's wheel meets the ground, world space (A, 3)."""
        render = self.root.getTop()
        drop = self.spec.track_thickness_m + self.spec.road_wheel_radius_m
        return np.array([render.getRelativePoint(self.wheel_mounts[w], Point3(0.0, 0.0, -drop))
                         for w in self.anchor_wheel])

    def gun_pose_ws(self, offset_m=(0.0, 0.0, 0.0)) -> tuple[np.ndarray, np.ndarray]:
        """A point fixed to the gun (``offset_m``: right, forward, up from the trunnion) and
        the gun's axes as columns (right, along the bore, up), world space."""
        render = self.root.getTop()
        point = np.array(render.getRelativePoint(self.gun, Point3(*offset_m)))
        quat = self.gun.getQuat(render)
        axes = np.column_stack([np.array(quat.getRight()), np.array(quat.getForward()),
                                np.array(quat.getUp())])
        return point, axes

    def destroy(self) -> None:
        self.root.removeNode()
