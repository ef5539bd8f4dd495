"""Shells in flight: real Bullet bodies, fired, flown and retired inside one physics world.

Shells are small dynamic spheres with continuous collision detection (CCD), each of its
:class:`~physics.model.ammunition.ShellSpec`'s calibre and mass, fired from the muzzle at
its muzzle velocity plus the firing tank's own velocity. Before every Bullet substep each
shell in flight loses ``k |v| v`` of the substep off its velocity to air drag, ``k`` being
its spec's ``drag_per_m`` at the air's density: the flight
:mod:`physics.model.flight` steps, so the predicted impact is where it lands. After each fixed
step every live shell is checked two ways: the contacts Bullet reports for it (mapped to
what it touched through the world's handle map), and a sphere of its radius swept along
the path it flew in that step (CCD clamps a shell at the face it meets, and the sweep
gives the exact point and normal even for a thin plate). The first contact retires the
shell: it leaves Bullet and the handle map at once and a hit is reported.

For its first ``firer_pass_m`` (the gun's) a shell passes through the tank that fired
it: neither its sweep nor its contacts strike it. Bullet filters by group, not by body,
so until a step ends with it past that reach it flies in the fresh-shell group, which
passes through every hull, and without CCD (which heeds no groups); its sweep finds the
other hulls it meets meanwhile.

The aiming and the arc over the height array are :mod:`physics.model.ballistics`'; where a
shell fired now would land, :mod:`physics.bullet.shell_arcs`'.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Generic, TypeVar

import numpy as np
from panda3d.bullet import BulletRigidBodyNode, BulletSphereShape
from panda3d.core import NodePath, PandaNode, Point3, TransformState, Vec3

from physics.bullet import groups
from physics.bullet.poses import vector_array
from physics.bullet.world import PhysicsWorld
from physics.model.ammunition import AirSpec, ShellSpec
from physics.model.ballistics import (GunSpec, GunState, gun_axes, launch_velocity_ws,
                                      shot_direction)
from physics.model.flight import Flight
from physics.model.pose import BodyState
from physics.model.scalars import float_dot

CCD_MOTION_SHARE = 0.5
"""CCD starts when a shell moves more than this share of its radius in a substep."""
CCD_SWEPT_SHARE = 0.9
"""The swept sphere CCD uses, as a share of the shell's radius (Bullet's usual recipe)."""
QUIET_SLACK_M = 2.0
"""Room kept between the lowest a shell may come in a step and the highest thing it could
meet, for the step to go unchecked (:meth:`ShellSystem.to_follow`): more than a turret
turned since its hull's bounds were taken, Bullet's margins and a body's rise in a step."""
SWEEP_REACH_RADII = 1.0
"""The swept sphere runs on this many radii past the shell: its front reaches the face CCD
stopped the shell short of."""
_SHELL_GROUP = groups.mask_of(groups.SHELL)
_FRESH_SHELL_GROUP = groups.mask_of(groups.FRESH_SHELL)


Owner = TypeVar("Owner")
"""What fires the shells (the game's vehicles): each shell names its own."""


@dataclass(eq=False)  # an owner in the handle map: hashed by identity
class Shell(Generic[Owner]):
    """A shell in flight."""

    owner: Owner
    path: NodePath
    fired_at_s: float
    last_position_ws: np.ndarray
    last_velocity_ws: np.ndarray
    radius_m: float
    muzzle_ws: np.ndarray
    """Where it left the gun."""
    firer_pass_m: float
    """Within this distance of the muzzle it passes through the tank that fired it."""
    spec: ShellSpec
    """What was fired (what decides, at impact, what it pierces)."""
    drag_per_m: float
    """k in its drag deceleration k v² (its spec's, in the world's air)."""
    firer_body: BulletRigidBodyNode | None = None
    """The body of the tank that fired it (a ricochet keeps its shell's). Kept here, not
    read from its owner: the owner may leave the world while the shell flies on (a
    player who left the server)."""

    @property
    def body(self) -> BulletRigidBodyNode:
        return self.path.node()

    @property
    def position_ws(self) -> np.ndarray:
        return vector_array(self.body.getTransform().getPos())

    @property
    def velocity_ws(self) -> np.ndarray:
        return vector_array(self.body.getLinearVelocity())


def flights_now(shells: list[Shell], ahead_s: float) -> list[tuple[float, ...]]:
    """Every shell's position and velocity (the numbers :attr:`Shell.position_ws` and
    :attr:`Shell.velocity_ws` read) and how far it may go in ``ahead_s`` (its speed for
    that long, and its radius): seven floats a shell, read in one pass."""
    flights: list[tuple[float, ...]] = []
    for shell in shells:
        body = shell.body
        x_m, y_m, z_m = body.getTransform().getPos()
        x_mps, y_mps, z_mps = body.getLinearVelocity()
        flights.append((x_m, y_m, z_m, x_mps, y_mps, z_mps, ahead_s * math.sqrt(
            x_mps * x_mps + y_mps * y_mps + z_mps * z_mps) + shell.radius_m))
    return flights


@dataclass(frozen=True)
class ShellHit(Generic[Owner]):
    """Where and how a shell struck."""

    shell: Shell[Owner]
    target: object           # the handle map's owner of what was hit (None: unmapped)
    position_ws: np.ndarray
    normal_ws: np.ndarray
    velocity_ws: np.ndarray  # as it arrived (before Bullet's contact response)


@dataclass
class ShellSystem(Generic[Owner]):
    """Every shell in flight, fired, flown and retired inside one physics world."""

    world: PhysicsWorld
    air: AirSpec
    """What the shells fly through (their drag)."""
    shells: list[Shell[Owner]] = field(default_factory=list)
    _fired: int = 0
    _flights: dict[int, tuple[ShellSpec, Flight]] = field(default_factory=dict)
    """:meth:`flight_of`'s, by the shell spec's identity (with the spec, which it keeps)."""
    _quiet: set[int] = field(default_factory=set)
    """The shells (by identity) that can meet nothing in this step (:meth:`to_follow`)."""

    def __post_init__(self) -> None:
        self.world.add_substep_hook(self._drag)

    def flight_of(self, shell: ShellSpec) -> Flight:
        """How a shell of ``shell``'s flies in this world: its gravity, the shell's drag in
        this air, stepped in the world's substeps (as :meth:`_drag` and Bullet fly it).
        Worked out once a shell (the bots ask at every look)."""
        known = self._flights.get(id(shell))
        if known is None or known[0] is not shell:
            known = shell, Flight(self.world.spec.gravity_m_s2,
                                  shell.drag_per_m(self.air.density_kg_m3),
                                  self.world.substep_s)
            self._flights[id(shell)] = known
        return known[1]

    def fire(self, owner: Owner, owner_body: BulletRigidBodyNode, state: BodyState,
             gun: GunSpec, shell: ShellSpec, aim: GunState, time_s: float,
             rng: np.random.Generator) -> Shell[Owner]:
        """Launch a ``shell`` from the gun's muzzle; push the firing body back by its
        momentum."""
        muzzle, barrel = gun_axes(state, gun, aim)
        direction = shot_direction(barrel, aim.aim_circle_rad, rng)
        velocity = launch_velocity_ws(state, muzzle, direction, shell.muzzle_velocity_mps)
        flying = self.launch(owner, muzzle, velocity, gun, shell, time_s, owner_body)
        recoil = -barrel * shell.mass_kg * shell.muzzle_velocity_mps
        owner_body.applyImpulse(Vec3(*recoil), Point3(*(muzzle - state.position_ws)))
        aim.reload_left_s = gun.reload_s
        return flying

    def launch(self, owner: Owner, muzzle_ws, velocity_ws, gun: GunSpec, shell: ShellSpec,
               time_s: float, firer_body: BulletRigidBodyNode | None = None) -> Shell[Owner]:
        """Put a ``shell`` fired from ``gun`` into flight at ``muzzle_ws`` (what firing does
        once the gun has been aimed); ``firer_body``: the body it passes through in its
        first metres (the firing tank's)."""
        muzzle, velocity = np.asarray(muzzle_ws, dtype=float), np.asarray(velocity_ws, float)
        body = BulletRigidBodyNode(f"shell-{self._fired}")
        self._fired += 1
        body.addShape(BulletSphereShape(shell.radius_m))
        body.setMass(shell.mass_kg)
        body.setTransform(TransformState.makePos(Point3(*muzzle)))
        body.setLinearVelocity(Vec3(*velocity))
        body.setDeactivationEnabled(False)
        flying = Shell(owner, None, time_s, muzzle, velocity, shell.radius_m, muzzle,
                       gun.firer_pass_m, shell, self.flight_of(shell).drag_per_m, firer_body)
        fresh = _passing(flying, muzzle)
        body.setIntoCollideMask(_FRESH_SHELL_GROUP if fresh else _SHELL_GROUP)
        if not fresh:
            _armed(body, flying.radius_m)
        flying.path = self.world.add_body(body, owner=flying)
        self.shells.append(flying)
        return flying

    def _drag(self, substep_s: float) -> None:
        """Before a Bullet substep: each shell's velocity loses ``k |v| v`` of the substep
        (:func:`physics.model.flight.flight_step` does the same)."""
        for shell in self.shells:
            body = shell.body
            velocity = body.getLinearVelocity()
            x_mps, y_mps, z_mps = velocity
            slowed = 1.0 - shell.drag_per_m * math.sqrt(
                x_mps * x_mps + y_mps * y_mps + z_mps * z_mps) * substep_s
            body.setLinearVelocity(velocity * slowed)

    def _contacts(self) -> dict[PandaNode, tuple[PandaNode, np.ndarray]]:
        """What each shell touched in the last step: shell node -> (other node, point). Of
        the world's manifolds (every pair of bodies in touch: tanks on the ground, on rocks)
        only a shell's are read.

        Only right after a world step: once a body has left the world, Bullet's list of
        manifolds may hold its pairs until the next step, and reading such a pair's node
        reads freed memory (seen: a retired shell's, read after the step that retired it,
        crashed the process)."""
        touching: dict[PandaNode, tuple[PandaNode, np.ndarray]] = {}
        shell_nodes = {shell.body for shell in self.shells if id(shell) not in self._quiet}
        for manifold in self.world.bullet.getManifolds():
            first, second = manifold.getNode0(), manifold.getNode1()
            if (first not in shell_nodes and second not in shell_nodes
                    or manifold.getNumManifoldPoints() == 0):
                continue
            point = manifold.getManifoldPoint(0)
            for shell_node, other, position in ((first, second, point.getPositionWorldOnA()),
                                                (second, first, point.getPositionWorldOnB())):
                if shell_node in shell_nodes:
                    touching.setdefault(shell_node, (other, vector_array(position)))
        return touching

    def to_follow(self, ahead_s: float, ground_top_m: float, half_extents_m: tuple[float, float]
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[Shell[Owner]]] | None:
        """Before a step: the shells that may meet something in it, with where each is, its
        velocity and how far it may go in ``ahead_s`` (:func:`flights_now`), rows (S, 3),
        (S, 3) and (S,); None: none.

        The others are not looked at after the step (:meth:`update` keeps where they are):
        those whose lowest point within that reach stays :data:`QUIET_SLACK_M` above the
        ground's highest (``ground_top_m``) and every body a shell meets
        (:meth:`~physics.bullet.world.PhysicsWorld.top_m`), and inside the map's edges
        (``half_extents_m``, x and y, about the origin). A shell fired into the sky flies
        seconds with nothing near it."""
        self._quiet.clear()
        if not self.shells:
            return None
        flights = flights_now(self.shells, ahead_s)
        half_x_m, half_y_m = half_extents_m
        clear = [(shell, z_m - reach - QUIET_SLACK_M) for shell, (x_m, y_m, z_m, *_, reach)
                 in zip(self.shells, flights)
                 if abs(x_m) + reach < half_x_m and abs(y_m) + reach < half_y_m]
        if any(lowest_m > ground_top_m for _, lowest_m in clear):
            top_m = max(ground_top_m, self.world.top_m(groups.SHELL_PATH))
            self._quiet = {id(shell) for shell, lowest_m in clear if lowest_m > top_m}
        followed = [(shell, flight) for shell, flight in zip(self.shells, flights)
                    if id(shell) not in self._quiet]
        if not followed:
            return None
        table = np.array([flight for _, flight in followed])
        return table[:, :3], table[:, 3:6], table[:, 6], [shell for shell, _ in followed]

    def followed(self) -> list[Shell[Owner]]:
        """The shells in flight this step but those :meth:`to_follow` left unchecked."""
        return [shell for shell in self.shells if id(shell) not in self._quiet]

    def update(self, time_s: float, lifetime_s: float) -> tuple[list[ShellHit[Owner]], int]:
        """After a step: retire shells that struck something or flew too long (of those
        :meth:`to_follow` left unchecked, only the latter).

        Returns the hits and how many shells expired unseen.
        """
        quiet = self._quiet
        touching = self._contacts() if len(quiet) < len(self.shells) else {}
        hits, expired, flying = [], 0, []
        for shell in self.shells:
            body = shell.body
            position = vector_array(body.getTransform().getPos())
            velocity = vector_array(body.getLinearVelocity())
            hit = None if id(shell) in quiet else self._struck(shell, touching.get(body))
            if hit is not None:
                hits.append(hit)
                self.retire(shell)
            elif time_s - shell.fired_at_s > lifetime_s:
                expired += 1
                self.retire(shell)
            else:
                shell.last_position_ws = position
                shell.last_velocity_ws = velocity
                if body.getIntoCollideMask() != _SHELL_GROUP and not _passing(shell, position):
                    _armed(body, shell.radius_m)
                    self.world.set_collide_mask(body, _SHELL_GROUP)
                flying.append(shell)
        self.shells = flying
        self._quiet = set()
        return hits, expired

    def _struck(self, shell: Shell[Owner], contact) -> ShellHit[Owner] | None:
        """The shell's first contact this step, from the swept sphere or Bullet's contacts.

        The sphere is swept along the path the shell would have flown this step had it met
        nothing (:meth:`_unhindered_end`), not to where Bullet left it: CCD stops it short
        of a face, and a shell that grazed the ground has bounced up off it, where a sweep
        to it would pass over the ground it touched. In plain floats (one shell, every step
        it flies; numpy's calls on 3-vectors cost more than their arithmetic)."""
        owner_body = shell.firer_body
        start = shell.last_position_ws.tolist()
        travel = [end - at for end, at in zip(self._unhindered_end(shell), start)]
        length = math.sqrt(float_dot(travel, travel))
        # Reach on past the path's end: drag shortened the step a little.
        reach = ([part / length * SWEEP_REACH_RADII * shell.radius_m for part in travel]
                 if length > 0.0 else [0.0, 0.0, 0.0])
        swept = self._sweep(shell, start, [at + part + more for at, part, more
                                           in zip(start, travel, reach)], owner_body)
        if swept is not None:
            target = self.world.handles.owner_of(swept.node)
            return ShellHit(shell, target, swept.position_ws, swept.normal_ws,
                            shell.last_velocity_ws)
        if contact is not None and not (contact[0] == owner_body
                                        and _passing(shell, contact[1])):
            other, point = contact
            normal = -np.array(travel) / max(length, np.finfo(float).tiny)
            return ShellHit(shell, self.world.handles.owner_of(other), point, normal,
                            shell.last_velocity_ws)
        return None

    def _unhindered_end(self, shell: Shell) -> tuple[float, float, float]:
        """Where a shell would be after the last step had it met nothing: from where it was
        at its velocity then, falling under gravity substep by substep as Bullet moves it
        (its drag, a thousandth of the step's path, aside: the sweep reaches past it)."""
        substeps, substep_s = self.world.spec.substeps, self.world.substep_s
        step_s = substeps * substep_s
        drop_m = self.world.spec.gravity_m_s2 * substep_s ** 2 * substeps * (substeps + 1) / 2
        x_m, y_m, z_m = shell.last_position_ws.tolist()
        x_mps, y_mps, z_mps = shell.last_velocity_ws.tolist()
        return x_m + x_mps * step_s, y_m + y_mps * step_s, z_m + z_mps * step_s - drop_m

    def _sweep(self, shell: Shell, start_ws: list[float], end_ws: list[float], owner_body):
        """The shell's sphere (its body's own shape) swept from ``start_ws`` to ``end_ws``:
        the first hit, where the tank that fired it is passed through for as long as the
        shell is within ``firer_pass_m`` of the muzzle (the path is cut where it leaves that
        reach)."""
        shape = shell.body.getShape(0)
        if owner_body is None or not _passing(shell, start_ws):
            return self.world.sweep_closest(shape, start_ws, end_ws, groups.SHELL_PATH)
        start, end = np.asarray(start_ws), np.asarray(end_ws)
        leaves = _leaves_sphere(start, end, shell.muzzle_ws, shell.firer_pass_m)
        cut_ws = start + (end - start) * leaves
        hit = self.world.sweep_closest(shape, start, cut_ws, groups.SHELL_PATH,
                                       exclude=owner_body)
        if hit is not None or leaves >= 1.0:
            return hit
        return self.world.sweep_closest(shape, cut_ws, end, groups.SHELL_PATH)

    def under_ground(self, terrain, owner) -> list[ShellHit[Owner]]:
        """Shells in flight that are below ``terrain``'s height array (a big desert's tile
        whose collider came too late, a tunnel through a thin edge): each strikes the
        ground where it is, on ``owner`` (the terrain's handle), and is retired. Shells
        above the highest ground there is are not looked under (a big desert makes no
        tile for them)."""
        ceiling_m = terrain.max_height_m
        # Where each shell is now (:meth:`update` kept it), in plain floats: a shell or
        # two, every step they fly, nearly always high above the ground.
        low = [shell for shell in self.shells if shell.last_position_ws[2] < ceiling_m]
        if not low:
            return []
        positions = np.array([shell.last_position_ws for shell in low])
        ground_m, normals = terrain.planes_at(positions[:, :2].T)
        hits, under = [], set()
        for index, shell in enumerate(low):
            if positions[index, 2] >= ground_m[index]:
                continue
            point = np.array([positions[index, 0], positions[index, 1], ground_m[index]])
            hits.append(ShellHit(shell, owner, point, normals[:, index].copy(),
                                 shell.last_velocity_ws))
            under.add(id(shell))
            self.retire(shell)
        if under:
            self.shells = [shell for shell in self.shells if id(shell) not in under]
        return hits

    def retire(self, shell: Shell) -> None:
        """Take a shell out of Bullet and the handle map."""
        if shell.path is not None:
            self.world.remove_body(shell.path)
            shell.path = None

    def destroy(self) -> None:
        for shell in self.shells:
            self.retire(shell)
        self.shells.clear()


def splash_owners(world: PhysicsWorld, centre_ws: np.ndarray, radius_m: float) -> list:
    """The owners of every body a blast of ``radius_m`` may harm (the blast group) that the
    blast's sphere reaches: the world's overlap query. Only which bodies overlap is read;
    the caller measures distances."""
    return world.overlap_sphere(centre_ws, radius_m, groups.BLAST)


def _armed(body: BulletRigidBodyNode, radius_m: float) -> None:
    """A shell past its first metres (or fired with none) gets CCD (it is off before,
    as Bullet's CCD heeds no collision groups and would stop the shell at the hull it
    passes through; the swept sphere finds what it meets meanwhile)."""
    body.setCcdMotionThreshold(radius_m * CCD_MOTION_SHARE)
    body.setCcdSweptSphereRadius(radius_m * CCD_SWEPT_SHARE)


def _passing(shell: Shell, point_ws) -> bool:
    """Whether a point is within the reach from the muzzle where the shell passes through
    the tank that fired it."""
    point = point_ws.tolist() if isinstance(point_ws, np.ndarray) else point_ws
    offset = [at - muzzle for at, muzzle in zip(point, shell.muzzle_ws.tolist())]
    return float_dot(offset, offset) < shell.firer_pass_m ** 2


def _leaves_sphere(start_ws, end_ws, centre_ws, radius_m: float) -> float:
    """The share of the way from ``start_ws`` (inside the sphere) to ``end_ws`` at which a
    straight path leaves the sphere; 1.0 when it does not."""
    path, offset = end_ws - start_ws, start_ws - centre_ws
    a, b, c = float(path @ path), float(path @ offset), float(offset @ offset) - radius_m ** 2
    if a == 0.0:
        return 1.0
    share = (-b + math.sqrt(max(b * b - a * c, 0.0))) / a
    return min(max(share, 0.0), 1.0)
