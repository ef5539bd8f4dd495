"""The Bullet bodies of the model's objects: hulls, rocks, plates, the terrain and the edges.

The model (:mod:`physics.model`) describes each thing in numbers; here each becomes the
collider Bullet steps: a hull whose origin is the centre of mass (a tank's armour plates
as convex pieces, :mod:`physics.bullet.hull_body`; a box for a vehicle without plates), a
rock's convex hull of exactly the vertices it is drawn with, the heightfield built from
the same 16-bit levels the height look-ups read, and four planes that keep everything on
the map. Each is made in its collision group (:mod:`physics.bullet.groups`).
"""

from __future__ import annotations

import numpy as np
from panda3d.bullet import (BulletBoxShape, BulletConvexHullShape, BulletHeightfieldShape,
                            BulletPlaneShape, BulletRigidBodyNode, ZUp)
from panda3d.core import (PTA_LVecBase3f, LQuaternionf, LVecBase3f, PNMImage, Point3,
                          Texture, TransformState, Vec3)

from physics.bullet import groups
from physics.model.hull import HullSpec
from physics.model.rocks import Rock
from physics.model.terrain import Terrain, TerrainBase

TERRAIN_NAME = "terrain"
"""The collider's node name: how a ray knows it met the terrain."""
TERRAIN_MASK = groups.mask_of(groups.TERRAIN)
"""The heightfield's group, as a query filter."""
ABOVE_TERRAIN_MASK = groups.ALL_GROUPS & ~TERRAIN_MASK
"""A filter of every group but the terrain: a ray cast with it passes through the
heightfield. Long rays over a heightfield cost Bullet a triangle test per cell under the
ray's bounds; the terrain is our own array, so those rays are better answered from it."""


def make_hull_body(spec: HullSpec, name: str) -> BulletRigidBodyNode:
    """A dynamic box body; its shape sits above the origin so the mass centre is low.
    (A vehicle with armour plates: :func:`physics.bullet.hull_body.make_vehicle_body`.)"""
    body = BulletRigidBodyNode(name)
    shape = BulletBoxShape(Vec3(*spec.half_extents_m))
    body.addShape(shape, TransformState.makePos(Point3(0.0, 0.0, spec.centre_of_mass_drop_m)))
    body.setMass(spec.mass_kg)
    body.setFriction(spec.friction)
    body.setAngularDamping(spec.angular_damping)
    body.setDeactivationEnabled(False)
    body.setIntoCollideMask(groups.mask_of(groups.HULL))
    return body


def make_rock_body(rock: Rock, name: str) -> BulletRigidBodyNode:
    """A static convex-hull collider of the rock's vertices."""
    shape = BulletConvexHullShape()
    shape.addArray(PTA_LVecBase3f([LVecBase3f(*point) for point in rock.points_bs.tolist()]))
    body = BulletRigidBodyNode(name)
    body.addShape(shape)
    body.setIntoCollideMask(groups.mask_of(groups.ROCK))
    rotation = LQuaternionf()
    rotation.setHpr(Vec3(-rock.heading_deg, 0.0, 0.0))
    body.setTransform(TransformState.makePosQuatScale(Point3(*rock.position_ws), rotation,
                                                      Vec3(1.0, 1.0, 1.0)))
    return body


def terrain_collider(terrain: Terrain) -> BulletRigidBodyNode:
    """A static Bullet heightfield body that matches the terrain's ``heights_m``."""
    return heightfield_body(terrain.levels, terrain.min_height_m, terrain.height_range_m,
                            terrain.spacing_m, (0.0, 0.0))


def heightfield_body(levels: np.ndarray, min_height_m: float, height_range_m: float,
                     spacing_m: float, centre_xy_m: tuple[float, float]
                     ) -> BulletRigidBodyNode:
    """A static Bullet heightfield from 16-bit ``levels`` (rows by y) over a height range,
    its samples ``spacing_m`` apart, centred on a point (Bullet centres the shape)."""
    rows, columns = levels.shape
    texture = Texture("terrain-heights")
    texture.setup2dTexture(columns, rows, Texture.T_unsigned_short, Texture.F_luminance)
    texture.setRamImage(np.ascontiguousarray(levels, dtype=np.uint16).tobytes())
    image = PNMImage()
    texture.store(image)
    shape = BulletHeightfieldShape(image, height_range_m, ZUp)
    body = BulletRigidBodyNode(TERRAIN_NAME)
    body.addShape(shape)
    body.setIntoCollideMask(TERRAIN_MASK)
    body.setTransform(TransformState.makePosHprScale(
        Point3(centre_xy_m[0], centre_xy_m[1], min_height_m + height_range_m / 2),
        Vec3(0.0, 0.0, 0.0), Vec3(spacing_m, spacing_m, 1.0)))
    return body


def map_walls(terrain: TerrainBase) -> BulletRigidBodyNode:
    """Four static planes at the map's edges, facing in, so nothing leaves the map."""
    body = BulletRigidBodyNode("map-edge")
    for normal, distance in ((Vec3(1, 0, 0), -terrain.half_extent_x_m),
                             (Vec3(-1, 0, 0), -terrain.half_extent_x_m),
                             (Vec3(0, 1, 0), -terrain.half_extent_y_m),
                             (Vec3(0, -1, 0), -terrain.half_extent_y_m)):
        body.addShape(BulletPlaneShape(normal, distance))
    body.setIntoCollideMask(groups.mask_of(groups.EDGE))
    return body


def make_plate_body(name: str, centre_ws, half_extents_m, slope_deg: float = 0.0
                    ) -> BulletRigidBodyNode:
    """A static steel box (a firing-range plate) centred at ``centre_ws``, facing -Y and
    leaning back ``slope_deg`` from upright (its top towards +Y)."""
    body = BulletRigidBodyNode(name)
    body.addShape(BulletBoxShape(Vec3(*half_extents_m)))
    body.setIntoCollideMask(groups.mask_of(groups.PROP))
    body.setTransform(TransformState.makePosHpr(Point3(*centre_ws), Vec3(0.0, -slope_deg, 0.0)))
    return body
