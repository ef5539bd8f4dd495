"""Turret, gun and shells: traverse and elevation, firing, ballistic flight and impact.

Shells are real Bullet bodies: small dynamic spheres with continuous collision
detection, fired from the muzzle at the muzzle velocity plus the firing tank's
own velocity. After each fixed step every live shell is checked two ways: the
contacts Bullet reports for it (mapped to what it touched through the world's
handle map), and a ray along the path it flew in that step (CCD clamps a shell
at the face it meets, and the ray gives the exact point and normal even for a
thin plate). The first contact retires the shell: it leaves Bullet and the
handle map at once and a hit is reported.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from panda3d.bullet import BulletRigidBodyNode, BulletSphereShape
from panda3d.core import NodePath, Point3, TransformState, Vec3

from physics.model.pose import BodyState
from physics.model.spec import Spec, SpecError, tuning
from physics.model.compiled import compiled
from physics.model.terrain import ABOVE_TERRAIN_MASK, Terrain, plane_under
from physics.bullet.world import PhysicsWorld

CCD_MOTION_SHARE = 0.5
"""CCD starts when a shell moves more than this share of its radius in a substep."""
CCD_SWEPT_SHARE = 0.9
"""The swept sphere CCD uses, as a share of the shell's radius (Bullet's usual recipe)."""
SWEEP_REACH_RADII = 2.0
"""The path ray runs this many radii past the shell, to the face CCD stopped it short of."""


@dataclass(frozen=True)
class GunSpec(Spec):
    """A tank's turret, gun and ammunition."""

    turret_pivot_m: tuple[float, ...] = tuning("turret ring centre in the body frame (x, y, z)",
                                               minimum=-10.0, maximum=10.0, length=(3, 3))
    gun_height_m: float = tuning("gun trunnion above the turret ring", minimum=0.0,
                                 maximum=5.0)
    gun_length_m: float = tuning("trunnion to muzzle", minimum=0.5, maximum=15.0)
    traverse_rate_deg_s: float = tuning("turret turn rate at full stick", minimum=1.0,
                                        maximum=360.0)
    elevation_rate_deg_s: float = tuning("gun raise rate at full stick", minimum=1.0,
                                         maximum=180.0)
    min_elevation_deg: float = tuning("most the gun dips", minimum=-45.0, maximum=0.0)
    max_elevation_deg: float = tuning("most the gun rises", minimum=0.0, maximum=85.0)
    reload_s: float = tuning("time between shots", minimum=0.05, maximum=60.0)
    muzzle_velocity_ms: float = tuning("shell speed leaving the gun", minimum=50.0,
                                       maximum=3000.0)
    shell_mass_kg: float = tuning("shell mass (recoil is its momentum)", minimum=0.1,
                                  maximum=100.0)
    shell_radius_m: float = tuning("shell radius", minimum=0.01, maximum=0.5)
    shell_lifetime_s: float = tuning("a shell that has hit nothing by then is gone",
                                     minimum=0.5, maximum=60.0)
    dispersion_mrad: float = tuning("spread of shots around the gun's axis (standard "
                                    "deviation)", minimum=0.0, maximum=50.0)
    impact_damage: float = tuning("damage of a square hit on a tank", minimum=0.0,
                                  maximum=10000.0)
    splash_damage: float = tuning("damage at the centre of the blast, falling to 0 at its "
                                  "radius", minimum=0.0, maximum=10000.0)
    splash_radius_m: float = tuning("reach of the blast", minimum=0.1, maximum=100.0)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.max_elevation_deg <= self.min_elevation_deg:
            raise SpecError("max_elevation_deg", self.max_elevation_deg,
                            f"above min_elevation_deg ({self.min_elevation_deg})")


@dataclass(frozen=True)
class ArmourSpec(Spec):
    """How much a tank takes."""

    health: float = tuning("damage it takes to destroy", minimum=1.0, maximum=100000.0)
    ricochet_angle_deg: float = tuning("a shell meeting the armour further than this from "
                                       "square glances off without impact damage",
                                       minimum=10.0, maximum=90.0)


@dataclass
class GunState:
    """Where one gun points and when it may fire again."""

    turret_heading_rad: float = 0.0   # from the hull's forward, + to the right
    elevation_rad: float = 0.0
    reload_left_s: float = 0.0


def gun_axes(state: BodyState, gun: GunSpec, aim: GunState) -> tuple[np.ndarray, np.ndarray]:
    """Muzzle position and unit barrel direction in world space."""
    axes = state.axes_ws()
    heading, elevation = aim.turret_heading_rad, aim.elevation_rad
    # In the body frame: the barrel's direction, and the muzzle from the centre of mass.
    cos_elevation = math.cos(elevation)
    barrel_bs = np.array([math.sin(heading) * cos_elevation, math.cos(heading) * cos_elevation,
                          math.sin(elevation)])
    pivot_x, pivot_y, pivot_z = gun.turret_pivot_m
    trunnion_bs = np.array([pivot_x, pivot_y, pivot_z + gun.gun_height_m])
    muzzle_bs = trunnion_bs + barrel_bs * gun.gun_length_m
    return state.position_ws + muzzle_bs @ axes, barrel_bs @ axes


def aim_gun(aim: GunState, gun: GunSpec, turret: float, elevation: float, step_s: float) -> None:
    """Turn the turret and raise the gun at their rates (controls -1..1)."""
    aim.turret_heading_rad = math.remainder(
        aim.turret_heading_rad + turret * math.radians(gun.traverse_rate_deg_s) * step_s, math.tau)
    aim.elevation_rad = min(max(
        aim.elevation_rad + elevation * math.radians(gun.elevation_rate_deg_s) * step_s,
        math.radians(gun.min_elevation_deg)), math.radians(gun.max_elevation_deg))
    aim.reload_left_s = max(0.0, aim.reload_left_s - step_s)


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
class Hit:
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
        velocity = state.velocity_ws + direction * gun.muzzle_velocity_ms
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
        recoil = -barrel * gun.shell_mass_kg * gun.muzzle_velocity_ms
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

    def update(self, time_s: float, lifetime_s: float) -> tuple[list[Hit], int]:
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

    def _struck(self, shell: Shell, position, contact) -> Hit | None:
        """The shell's first contact this step, from the swept ray or Bullet's contacts."""
        owner_body = getattr(shell.owner, "body", None)
        travel = position - shell.last_position_ws
        length = np.linalg.norm(travel)
        # CCD stops the sphere a radius short of the face: reach past it to find the face.
        reach = travel / length * SWEEP_REACH_RADII * shell.radius_m if length > 0.0 else 0.0
        ray = self.world.ray_closest(shell.last_position_ws, position + reach, exclude=shell.body)
        if ray is not None and ray.node != owner_body:
            target = self.world.handles.owner_of(ray.node)
            return Hit(shell, target, ray.position_ws, ray.normal_ws, shell.last_velocity_ws)
        if contact is not None and contact[0] != owner_body:
            other, point = contact
            normal = -travel / max(length, np.finfo(float).tiny)
            return Hit(shell, self.world.handles.owner_of(other), point, normal,
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
    ground_s, ground_ws = _arc_meets_terrain(terrain, np.asarray(muzzle_ws, dtype=float),
                                             velocity, gravity_m_s2, max_time_s)
    hit_ws = _arc_meets_body(world, np.asarray(muzzle_ws, dtype=float), velocity,
                             gravity_m_s2, exclude, ground_s, tolerance_m)
    return hit_ws if hit_ws is not None else ground_ws


def _arc_points(muzzle_ws, velocity_ws, gravity_m_s2: float, times_s: np.ndarray
                ) -> np.ndarray:
    """Points of the ballistic arc at each time, (T, 3)."""
    points = muzzle_ws + times_s[:, None] * velocity_ws
    points[:, 2] -= 0.5 * gravity_m_s2 * times_s ** 2
    return points


def _arc_meets_terrain(terrain: Terrain, muzzle_ws, velocity_ws, gravity_m_s2: float,
                       max_time_s: float) -> tuple[float, np.ndarray | None]:
    """When and where the arc first goes below the ground, from the height array: samples
    half a terrain cell apart along the arc, and a straight line between the two around
    the crossing (exact to well under a centimetre: the ground is planar in each
    triangle and the arc nearly straight over a metre). ``(max_time_s, None)`` if never."""
    fastest_ms = math.hypot(*velocity_ws) + gravity_m_s2 * max_time_s
    samples = max(2, math.ceil(fastest_ms * max_time_s / (terrain.spacing_m / 2.0)) + 1)
    when_s = _march_arc(terrain.plane_table, terrain.plane_lookup, muzzle_ws, velocity_ws,
                        gravity_m_s2, max_time_s, samples)
    if when_s < 0.0:
        return max_time_s, None
    return when_s, _arc_points(muzzle_ws, velocity_ws, gravity_m_s2, np.array([when_s]))[0]


def _march_arc(planes, lookup, muzzle_ws, velocity_ws, gravity_m_s2, max_time_s, samples):
    """The time the arc first goes below the ground, sampled at ``samples`` even times
    (-1: never); compiled where numba is installed."""
    step_s = max_time_s / (samples - 1)
    clearance_before, time_before = 0.0, 0.0
    for sample in range(samples):
        time_s = sample * step_s
        x = muzzle_ws[0] + time_s * velocity_ws[0]
        y = muzzle_ws[1] + time_s * velocity_ws[1]
        z = (muzzle_ws[2] + time_s * velocity_ws[2]) - 0.5 * gravity_m_s2 * time_s ** 2
        clearance = z - plane_under(planes, lookup, x, y)[0]
        if clearance <= 0.0:
            if sample == 0:
                return 0.0
            share = clearance_before / (clearance_before - clearance)
            return time_before + share * (time_s - time_before)
        clearance_before, time_before = clearance, time_s
    return -1.0


_march_arc = compiled(_march_arc) or _march_arc


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
    ends = _arc_points(muzzle_ws, velocity_ws, gravity_m_s2,
                       np.arange(chords + 1) * (until_s / chords))
    for start, end in zip(ends[:-1], ends[1:]):
        hit = world.ray_closest(start, end, exclude=exclude, mask=ABOVE_TERRAIN_MASK)
        if hit is not None:
            return hit.position_ws
    return None
