"""Shells in flight: real Bullet bodies, fired, flown and retired inside one physics world.

Shells are small dynamic spheres with continuous collision detection, fired from the
muzzle at the muzzle velocity plus the firing tank's own velocity. After each fixed
step every live shell is checked two ways: the contacts Bullet reports for it (mapped
to what it touched through the world's handle map), and a ray along the path it flew
in that step (CCD clamps a shell at the face it meets, and the ray gives the exact
point and normal even for a thin plate). The first contact retires the shell: it
leaves Bullet and the handle map at once and a hit is reported.

The aiming and the arc over the height array are :mod:`physics.model.ballistics`'.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from panda3d.bullet import BulletRigidBodyNode, BulletSphereShape
from panda3d.core import NodePath, Point3, TransformState, Vec3

from physics.bullet.bodies import ABOVE_TERRAIN_MASK
from physics.bullet.world import PhysicsWorld
from physics.model.ballistics import GunSpec, GunState, arc_meets_terrain, arc_points, gun_axes
from physics.model.pose import BodyState
from physics.model.terrain import Terrain

CCD_MOTION_SHARE = 0.5
"""CCD starts when a shell moves more than this share of its radius in a substep."""
CCD_SWEPT_SHARE = 0.9
"""The swept sphere CCD uses, as a share of the shell's radius (Bullet's usual recipe)."""
SWEEP_REACH_RADII = 2.0
"""The path ray runs this many radii past the shell, to the face CCD stopped it short of."""


@dataclass(eq=False)  # an owner in the handle map: hashed by identity
class Shell:
    """A shell in flight."""

    owner: object
    path: NodePath
    fired_at_s: float
    last_position_ws: np.ndarray
    last_velocity_ws: np.ndarray
    radius_m: float

    @property
    def body(self) -> BulletRigidBodyNode:
        return self.path.node()

    @property
    def position_ws(self) -> np.ndarray:
        return np.array(self.body.getTransform().getPos())

    @property
    def velocity_ws(self) -> np.ndarray:
        return np.array(self.body.getLinearVelocity())


@dataclass(frozen=True)
class ShellHit:
    """Where and how a shell struck."""

    shell: Shell
    target: object           # the handle map's owner of what was hit (None: unmapped)
    position_ws: np.ndarray
    normal_ws: np.ndarray
    velocity_ws: np.ndarray  # as it arrived (before Bullet's contact response)


@dataclass
class ShellSystem:
    """Every shell in flight, fired, flown and retired inside one physics world."""

    world: PhysicsWorld
    shells: list[Shell] = field(default_factory=list)
    _fired: int = 0

    def fire(self, owner, owner_body: BulletRigidBodyNode, state: BodyState, gun: GunSpec,
             aim: GunState, time_s: float, rng: np.random.Generator) -> Shell:
        """Launch a shell from the muzzle; push the firing body back by its momentum."""
        muzzle, barrel = gun_axes(state, gun, aim)
        spread = rng.normal(0.0, gun.dispersion_mrad / 1000.0, 3)
        direction = barrel + spread - (spread @ barrel) * barrel
        direction /= np.linalg.norm(direction)
        velocity = state.velocity_ws + direction * gun.muzzle_velocity_mps
        body = BulletRigidBodyNode(f"shell-{self._fired}")
        self._fired += 1
        body.addShape(BulletSphereShape(gun.shell_radius_m))
        body.setMass(gun.shell_mass_kg)
        body.setCcdMotionThreshold(gun.shell_radius_m * CCD_MOTION_SHARE)
        body.setCcdSweptSphereRadius(gun.shell_radius_m * CCD_SWEPT_SHARE)
        body.setTransform(TransformState.makePos(Point3(*muzzle)))
        body.setLinearVelocity(Vec3(*velocity))
        body.setDeactivationEnabled(False)
        shell = Shell(owner, None, time_s, muzzle, velocity, gun.shell_radius_m)
        shell.path = self.world.add_body(body, owner=shell)
        recoil = -barrel * gun.shell_mass_kg * gun.muzzle_velocity_mps
        owner_body.applyImpulse(Vec3(*recoil), Point3(*(muzzle - state.position_ws)))
        aim.reload_left_s = gun.reload_s
        self.shells.append(shell)
        return shell

    def _contacts(self) -> dict:
        """What each shell touched in the last step: shell node -> (other node, point)."""
        touching = {}
        for manifold in self.world.bullet.getManifolds():
            if manifold.getNumManifoldPoints() == 0:
                continue
            first, second = manifold.getNode0(), manifold.getNode1()
            point = manifold.getManifoldPoint(0)
            for shell_node, other, position in ((first, second, point.getPositionWorldOnA()),
                                                (second, first, point.getPositionWorldOnB())):
                if isinstance(self.world.handles.owner_of(shell_node), Shell):
                    touching.setdefault(shell_node, (other, np.array(position)))
        return touching

    def update(self, time_s: float, lifetime_s: float) -> tuple[list[ShellHit], int]:
        """After a step: retire shells that struck something or flew too long.

        Returns the hits and how many shells expired unseen.
        """
        touching = self._contacts()
        hits, expired, flying = [], 0, []
        for shell in self.shells:
            body = shell.body
            position = np.array(body.getTransform().getPos())
            velocity = np.array(body.getLinearVelocity())
            hit = self._struck(shell, position, touching.get(body))
            if hit is not None:
                hits.append(hit)
                self.retire(shell)
            elif time_s - shell.fired_at_s > lifetime_s:
                expired += 1
                self.retire(shell)
            else:
                shell.last_position_ws = position
                shell.last_velocity_ws = velocity
                flying.append(shell)
        self.shells = flying
        return hits, expired

    def _struck(self, shell: Shell, position, contact) -> ShellHit | None:
        """The shell's first contact this step, from the swept ray or Bullet's contacts."""
        owner_body = getattr(shell.owner, "body", None)
        travel = position - shell.last_position_ws
        length = np.linalg.norm(travel)
        # CCD stops the sphere a radius short of the face: reach past it to find the face.
        reach = travel / length * SWEEP_REACH_RADII * shell.radius_m if length > 0.0 else 0.0
        ray = self.world.ray_closest(shell.last_position_ws, position + reach, exclude=shell.body)
        if ray is not None and ray.node != owner_body:
            target = self.world.handles.owner_of(ray.node)
            return ShellHit(shell, target, ray.position_ws, ray.normal_ws, shell.last_velocity_ws)
        if contact is not None and contact[0] != owner_body:
            other, point = contact
            normal = -travel / max(length, np.finfo(float).tiny)
            return ShellHit(shell, self.world.handles.owner_of(other), point, normal,
                       shell.last_velocity_ws)
        return None

    def retire(self, shell: Shell) -> None:
        """Take a shell out of Bullet and the handle map."""
        if shell.path is not None:
            self.world.remove_body(shell.path)
            shell.path = None

    def destroy(self) -> None:
        for shell in self.shells:
            self.retire(shell)
        self.shells.clear()


def predicted_impact(world: PhysicsWorld, terrain: Terrain, muzzle_ws, velocity_ws,
                     gravity_m_s2: float, exclude, max_time_s: float, tolerance_m: float
                     ) -> np.ndarray | None:
    """Where a shell fired now would land within ``max_time_s``: on the terrain, or on the
    first body (``exclude`` aside) its arc meets before that."""
    velocity = np.asarray(velocity_ws, dtype=float)
    ground_s, ground_ws = arc_meets_terrain(terrain, np.asarray(muzzle_ws, dtype=float),
                                             velocity, gravity_m_s2, max_time_s)
    hit_ws = _arc_meets_body(world, np.asarray(muzzle_ws, dtype=float), velocity,
                             gravity_m_s2, exclude, ground_s, tolerance_m)
    return hit_ws if hit_ws is not None else ground_ws


def _arc_meets_body(world: PhysicsWorld, muzzle_ws, velocity_ws, gravity_m_s2: float,
                    exclude, until_s: float, tolerance_m: float) -> np.ndarray | None:
    """Where the arc first meets a body other than the terrain before ``until_s``: rays
    along chords that stray at most ``tolerance_m`` from it.

    Over a time t a chord of the parabola sags g t^2 / 8 below the arc at its middle, so
    chords of t = sqrt(8 tolerance / g) are the longest that keep within the tolerance:
    a few rays for a whole flight.
    """
    chords = 1
    if gravity_m_s2 > 0.0:
        chords = max(1, math.ceil(until_s / math.sqrt(8.0 * tolerance_m / gravity_m_s2)))
    ends = arc_points(muzzle_ws, velocity_ws, gravity_m_s2,
                       np.arange(chords + 1) * (until_s / chords))
    for start, end in zip(ends[:-1], ends[1:]):
        hit = world.ray_closest(start, end, exclude=exclude, mask=ABOVE_TERRAIN_MASK)
        if hit is not None:
            return hit.position_ws
    return None


def splash_owners(world: PhysicsWorld, centre_ws: np.ndarray, radius_m: float) -> list:
    """The owners of every body a blast of ``radius_m`` reaches (a Bullet overlap query with
    a sphere). Only which bodies overlap is read: Panda's manifold points from a contact
    test are not reliable to read back, so distances are measured by the caller."""
    probe = BulletRigidBodyNode("blast")
    probe.addShape(BulletSphereShape(radius_m))
    probe.setTransform(TransformState.makePos(Point3(*centre_ws)))
    result = world.bullet.contactTest(probe)
    owners = []
    for contact in result.getContacts():
        other = contact.getNode1() if contact.getNode0() == probe else contact.getNode0()
        owner = world.handles.owner_of(other)
        if owner is not None and owner not in owners:
            owners.append(owner)
    return owners
