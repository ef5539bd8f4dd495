"""The Bullet adapter of the vehicle model: gathers poses, casts rays, applies impulses.

A :class:`VehicleFleet` holds vehicles of one or several kinds (one spec each: the tank
classes share one fleet, the car has its own) and steps them together: once per fixed
step the gearbox turns controls into track commands; before every Bullet substep the
model pushes every anchor. Each vehicle reads its own kind's constants inside the same
compiled loops, so a battle of three classes costs what a battle of one does.

Rays: the anchor kernel casts every anchor's against the terrain's height array; the
anchors whose rays could meet something else that could be ground (a crate, a rock,
another vehicle) are cast through Bullet as well, past its terrain collider, before the
substep (:class:`physics.bullet.ground.BulletRays`), and the kernel keeps the nearer hit.
The fleet decides which those are: the vehicles near something, and which of them near each
other (once a step), then those of their rays that pass within a body's bounding sphere and
a hull's box (every substep, :mod:`physics.model.ray_narrowing`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from panda3d.bullet import BulletRigidBodyNode

from physics.bullet.ground import BulletRays
from physics.bullet.fleet_kinds import FleetKind, vehicle_rows
from physics.bullet.hull_body import collider_parts
from physics.bullet.hull_pairs import HullPairs
from physics.bullet.near_tests import NearTests
from physics.bullet.obstacles import RAY_SLACK_M, Obstacles
from physics.bullet.poses import FleetPoses, body_states, call_each, fleet_poses
from physics.bullet.world import PhysicsWorld
from physics.model.anchors import AnchorCommand, AnchorImpulses, BodyStates
from physics.model.broadphase import reached
from physics.model.gearbox import Gearbox, GearboxSpec, GearboxStep, GearRequest
from physics.model.ray_narrowing import fleet_rays_meeting_links
from physics.model.terrain import TerrainBase

_apply_central_impulse = BulletRigidBodyNode.applyCentralImpulse
_apply_torque_impulse = BulletRigidBodyNode.applyTorqueImpulse


@dataclass
class _StepPlan:
    """What a fleet read of its bodies at the start of fixed step ``step``."""

    step: int
    states: BodyStates | None
    """For the step's first substep (taken by it): nothing has moved since."""
    near: np.ndarray
    """Per vehicle: may meet something besides the terrain during the step."""
    links: np.ndarray
    """(L, 2) each vehicle and a body it may meet during the step: another vehicle, or one
    of the ``others`` (the vehicles' count on)."""
    others: tuple[np.ndarray, np.ndarray]
    """Bounding spheres of the bodies besides this fleet's vehicles, centres (S, 3) and
    radii (S,), each grown by as far as it may move during the step."""


class VehicleFleet:
    """Vehicles driven by the anchor model inside one Bullet world.

    ``spec`` is the first kind's spec (:class:`physics.model.tracks.TankSpec`,
    :class:`physics.model.wheels.CarSpec`): it has ``hull``, ``suspension``, ``grip``,
    ``tracked`` and ``make_drive(constants)``, the object that turns controls into
    per-anchor commands. :meth:`add_kind` adds further kinds of tank (as many anchors
    each); :meth:`add` puts a body of a kind in.
    """

    def __init__(self, world: PhysicsWorld, terrain: TerrainBase, spec,
                 gearbox_spec: GearboxSpec, *, always_bullet_rays: bool = False):
        self.world = world
        first = FleetKind.of(spec, world.spec.gravity_m_s2)
        self.kinds = [first]
        """Each kind's spec and what follows from it, by kind number."""
        self.spec = spec
        """The first kind's spec (a fleet's only one, but for the tanks')."""
        self.constants = first.constants
        """The first kind's constants (a vehicle's own: :meth:`kind_of`)."""
        self.drive = spec.make_drive(self.constants)
        self.model = spec.make_model(self.constants)
        self.gearbox = Gearbox(gearbox_spec, 0,
                               driveline=spec.driveline(gearbox_spec, self.constants))
        self.bodies: list[BulletRigidBodyNode] = []
        self.kind = np.zeros(0, dtype=np.int64)
        """Each vehicle's kind."""
        self.obstacles = Obstacles()
        """What anchors may stand on besides the terrain and these vehicles."""
        self.always_bullet_rays = always_bullet_rays
        self.terrain = terrain
        self._bullet_rays = BulletRays(world, terrain, self.bodies,
                                       len(self.constants.position_bs))
        self.reach_m = first.reach_m
        """Radius around the centre of mass that holds the hull and every ray, of every
        vehicle: the largest of their kinds' (the first kind's while there are none)."""
        self.throttle = np.zeros(0)
        self.steer = np.zeros(0)
        self.brake = np.zeros(0)
        self.handbrake = np.zeros(0, dtype=bool)
        self.faulted = np.zeros(0, dtype=bool)
        """Per vehicle: its anchor maths went non-finite since the last ``recover``."""
        self.track_drive = np.ones((0, 2))
        """Per vehicle: whether its left and right tracks drive and brake (1) or lie broken
        (0): a broken track's bare road wheels only drag (:meth:`set_damage`)."""
        self._broken_drag_n = np.zeros((0, len(self.constants.position_bs)))
        """Per vehicle and anchor: the drag of road wheels whose track lies broken."""
        self._track_shares: tuple[np.ndarray, np.ndarray] | None = None  # :meth:`_broken_tracks`
        self._rows = vehicle_rows(self.kinds, self.kind)
        self.command = AnchorCommand.idle(0, len(self.constants.position_bs))
        self._near = NearTests()
        self.hull_pairs = HullPairs(world, terrain, first.collider_hull, collider_parts(spec))
        """Which of Bullet's pairs each hull is in (the terrain's, the map's edges')."""
        self._plan: _StepPlan | None = None
        """What ``update_drive`` read for the step about to be taken."""
        self._ended: tuple[int, BodyStates] | None = None
        """The bodies' states as :meth:`poses` read them after the step numbered so, which
        the next step starts from unless a body was moved since (:meth:`disturbed`)."""
        world.add_substep_hook(self._substep)

    def add_kind(self, spec, gearbox_spec: GearboxSpec) -> int:
        """Drive tanks of another class (``spec``, a :class:`~physics.model.tracks.TankSpec`
        with as many anchors) in this fleet too; return its kind number for :meth:`add`."""
        if not (spec.tracked and self.spec.tracked):
            raise ValueError("only tanks share a fleet with other kinds")
        kind = FleetKind.of(spec, self.world.spec.gravity_m_s2)
        number = len(self.kinds)
        for made in (self.model.add_kind(spec.make_model(kind.constants)),
                     self.drive.add_kind(spec.make_drive(kind.constants)),
                     self.gearbox.add_kind(gearbox_spec,
                                           spec.driveline(gearbox_spec, kind.constants)),
                     self.hull_pairs.add_kind(kind.collider_hull, collider_parts(spec))):
            assert made == number, "a fleet's parts number their kinds alike"
        self.kinds.append(kind)
        return number

    def _kinds_changed(self) -> None:
        """The vehicles' rows of their kinds' numbers, and the reach of the largest kind
        among them (the near tests' radius: a battle of one class tests with its own)."""
        self._rows = vehicle_rows(self.kinds, self.kind)
        self._track_shares = None
        present = {self.kinds[kind].reach_m for kind in self.kind.tolist()}
        self.reach_m = max(present, default=self.kinds[0].reach_m)
        self._near.forget()

    def kind_of(self, index: int) -> FleetKind:
        """The kind of the vehicle at ``index``."""
        return self.kinds[int(self.kind[index])]

    def __len__(self) -> int:
        return len(self.bodies)

    def add(self, body: BulletRigidBodyNode, automatic: bool = False, kind: int = 0) -> int:
        """Drive ``body`` (already in the world) as a vehicle of ``kind`` with this fleet;
        return its index."""
        if not 0 <= kind < len(self.kinds):
            raise ValueError(f"kind {kind} of a fleet of {len(self.kinds)}")
        self.bodies.append(body)
        self.kind = np.append(self.kind, np.int64(kind))
        index = self.gearbox.add_vehicle(automatic, kind)
        self.model.resize(len(self.bodies), kind)
        self.drive.add_vehicle(kind)
        for name in ("throttle", "steer", "brake"):
            setattr(self, name, np.append(getattr(self, name), 0.0))
        self.handbrake = np.append(self.handbrake, False)
        self.faulted = np.append(self.faulted, False)
        self.track_drive = np.append(self.track_drive, [[1.0, 1.0]], axis=0)
        self._broken_drag_n = np.append(self._broken_drag_n,
                                        np.zeros((1, len(self.constants.position_bs))), axis=0)
        self._kinds_changed()
        self.hull_pairs.add(kind)
        self.command = AnchorCommand.idle(len(self.bodies), len(self.constants.position_bs))
        self._ended = None
        return index

    def remove(self, index: int) -> None:
        """Stop driving the body at ``index`` (the caller takes it out of the world); the
        vehicles after it move down one index."""
        self.bodies.pop(index)
        self.gearbox.remove_vehicle(index)
        self.model.remove(index)
        self.drive.remove(index)
        for name in ("kind", "throttle", "steer", "brake", "handbrake", "faulted",
                     "track_drive", "_broken_drag_n"):
            setattr(self, name, np.delete(getattr(self, name), index, axis=0))
        self._kinds_changed()
        self.hull_pairs.remove(index)
        self.command = AnchorCommand.idle(len(self.bodies), len(self.constants.position_bs))
        self._plan = self._ended = None

    def vehicle_state(self, index: int) -> tuple:
        """What the fleet carries over between steps for one vehicle (its gearbox, anchors
        and drive), to set it back with :meth:`set_vehicle_state` (a network client
        rewinding its prediction)."""
        return (self.gearbox.vehicle_state(index), self.model.vehicle_state(index),
                self.drive.vehicle_state(index))

    def set_vehicle_state(self, index: int, state: tuple) -> None:
        gearbox, model, drive = state
        self.gearbox.set_vehicle_state(index, gearbox)
        self.model.set_vehicle_state(index, model)
        self.drive.set_vehicle_state(index, drive)
        self._near.forget()

    @property
    def rpm(self) -> np.ndarray:
        """Each vehicle's engine speed (rpm): its gearbox's engine."""
        return self.gearbox.rpm

    def remove_obstacle(self, body: BulletRigidBodyNode) -> None:
        """A body anchors could stand on is gone."""
        self.remove_obstacles([body])

    def remove_obstacles(self, bodies: list[BulletRigidBodyNode]) -> None:
        """Bodies anchors could stand on are gone (at once: a tile's rocks)."""
        if self.obstacles.remove(bodies):
            self._near.forget()

    def add_obstacle(self, body: BulletRigidBodyNode, box_bs=None) -> None:
        """Something besides the terrain that anchors may stand on (a crate, a rock).

        A static body's bounds are taken once; a moving one's every step. ``box_bs``:
        bounds round a static body's shapes in its own frame, a box (centre, half extents)
        or a rock's k-DOP (``Rock.bounds_bs``), which spare Bullet the rays that pass near
        its bounding sphere but beside them (None: the sphere alone).
        """
        self.add_obstacles([body], None if box_bs is None else [box_bs])

    def add_obstacles(self, bodies: list[BulletRigidBodyNode], boxes_bs=None) -> None:
        """Several things anchors may stand on (at once: a tile's rocks), with a box for
        each (or None) as :meth:`add_obstacle` takes it."""
        if self.obstacles.add(bodies, boxes_bs):
            self._near.forget()

    def set_controls(self, index: int, throttle: float, steer: float, brake: float,
                     handbrake: bool) -> None:
        self.throttle[index] = throttle
        self.steer[index] = steer
        self.brake[index] = brake
        self.handbrake[index] = handbrake

    def set_damage(self, index: int, track_drive: tuple[float, float], engine_power: float,
                   broken_drag_share: float) -> None:
        """What a vehicle's broken parts leave of its drive: whether each track (left,
        right) drives and brakes, and its engine's torque as a share of its own. A broken
        track's anchors are neither driven nor braked: their bare road wheels plough,
        dragging toward standing still with ``broken_drag_share`` of their static load."""
        self.track_drive[index] = track_drive
        self._broken_drag_n[index] = broken_drag_share * self._rows.static_load_n[index]
        self._track_shares = None
        self.gearbox.power_share[index] = engine_power

    def forward_speeds_mps(self) -> np.ndarray:
        """Each vehicle's velocity along its hull's forward axis (+ forward)."""
        return self._survey(self._states_now())[0]

    def _states_now(self) -> BodyStates:
        """The bodies' states: as the last step's end read them, if none moved since."""
        ended = self._ended
        return (ended[1] if ended is not None and ended[0] == self.world.step_count
                else body_states(self.bodies))

    def poses(self) -> FleetPoses:
        """Every body's state now, read in one pass (for the end of a step). A body whose
        motion ran away in the step (the world held it) counts as not finite."""
        poses = fleet_poses(self.bodies)
        runaway = self.world.runaway
        if runaway:
            poses.finite[[body in runaway for body in self.bodies]] = False
        self._ended = self.world.step_count, poses.arrays
        return poses

    def disturbed(self) -> None:
        """A body was set or pushed between steps (set down, set to the server's state, a
        gun's recoil): the next step reads the bodies afresh, not as :meth:`poses` left
        them."""
        self._ended = None

    def request_gear(self, index: int, gear: str) -> GearRequest:
        return self.gearbox.request(index, gear, float(self.forward_speeds_mps()[index]))

    def update_drive(self, step_s: float) -> GearboxStep | None:
        """Once per fixed step: the gearbox and the controls become track commands.

        The bodies are read here once for the whole step: the forward speeds the gearbox
        needs, which vehicles come near something other than the terrain during the step,
        and the states the step's first substep starts from (nothing moves a body between
        this call and the world step that follows it: set a body down before it, not after).
        Where the last step's end was read (:meth:`poses`) and no body moved since, that
        read is taken: the same numbers, without asking Bullet again.
        A big desert's tiles under every ray of the step are made here too, once: within
        each ray's reach of anywhere the fastest vehicle could go in the step, and as far
        again to spare.
        """
        if not self.bodies:
            return None
        states, self._ended = self._states_now(), None
        speeds, fastest_mps, strayed_m = self._survey(states)
        self._plan = _StepPlan(self.world.step_count, states,
                               *self._near_something(states, step_s, fastest_mps, strayed_m))
        self.model.prepare_ground(states, self.terrain, 2.0 * fastest_mps * step_s)
        self.hull_pairs.update(self.bodies, states, step_s)
        gears = self.gearbox.step(step_s, speeds, self.throttle, self.model.driveline)
        self.command = self.drive.command(gears.command, self.gearbox.shifting, self.steer,
                                          self.brake, self.handbrake, step_s, speeds)
        if np.count_nonzero(self.track_drive < 1.0):  # a C call; .any() goes through Python
            self.command = self._broken_tracks(self.command)
        return gears

    def _broken_tracks(self, command: AnchorCommand) -> AnchorCommand:
        """``command`` with each broken track's anchors neither driven nor braked: they
        pull toward standing still with only their bare wheels' drag."""
        if self._track_shares is None:  # worked out again when a track breaks or mends
            working = np.where(self._rows.left_anchors, self.track_drive[:, :1],
                               self.track_drive[:, 1:])
            self._track_shares = working, self._broken_drag_n * (1.0 - working)
        working, drag_n = self._track_shares
        bias = None if command.force_bias_n is None else command.force_bias_n * working
        return AnchorCommand(command.surface_speed_mps * working,
                             command.force_limit_n * working + drag_n,
                             command.steer_rad, command.grip_scale, bias)

    def in_touch(self) -> np.ndarray:
        """Per vehicle, for the step :meth:`update_drive` read: may its collider meet
        another body (the near test's), the ground (its pair with the terrain) or the
        map's edges in it? Every vehicle where the step was not read."""
        plan = self._plan
        if plan is None or plan.step != self.world.step_count:
            return np.ones(len(self.bodies), dtype=bool)
        return plan.near | self.hull_pairs.meets_terrain | self.hull_pairs.meets_edges

    def within_reach(self, points_ws: np.ndarray, reach_m: np.ndarray | list[float]
                     ) -> list[bool]:
        """Per vehicle: may one of ``points_ws`` (P, 3), each reaching ``reach_m`` (P,),
        meet its collider (shells: where each is and how far it may go)?"""
        plan = self._plan
        centres = (plan.states.position_ws if plan is not None and plan.states is not None
                   else body_states(self.bodies).position_ws)
        return reached(centres, self._rows.collider_reach_m, points_ws, reach_m)

    def _survey(self, states: BodyStates) -> tuple[np.ndarray, float, float]:
        """Each body's speed along its hull, the fastest speed, and how far the bodies
        strayed from where the near test was made."""
        return self._near.survey(states)

    def _near_something(self, states: BodyStates, within_s: float, fastest_mps: float,
                        strayed_m: float
                        ) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray]]:
        """Per vehicle: could any ray meet something other than the terrain in the next
        ``within_s`` seconds (:meth:`NearTests.near`; every vehicle, with no links, where
        every ray is cast through Bullet)? With the links and the obstacles' spheres."""
        if self.always_bullet_rays:
            return (np.ones(len(self.bodies), dtype=bool), np.zeros((0, 2), dtype=np.int64),
                    self.obstacles.spheres(within_s))
        return self._near.near(states.position_ws, within_s, fastest_mps, strayed_m,
                               self.reach_m, self.obstacles)

    def _substep(self, substep_s: float) -> None:
        if not self.bodies:
            return
        plan = self._plan
        if plan is not None and plan.step == self.world.step_count:
            states, plan.states = plan.states or body_states(self.bodies), None
            near, links, others = plan.near, plan.links, plan.others
            ground_ready = True
        else:  # stepped without update_drive: read and look round every substep
            states = body_states(self.bodies)
            _, fastest_mps, strayed_m = self._survey(states)
            near, links, others = self._near_something(states, substep_s, fastest_mps,
                                                       strayed_m)
            everyone = np.ones(len(self.bodies), dtype=bool)
            self.hull_pairs.set(self.bodies, everyone, everyone)  # nobody tests them
            ground_ready = False
        exact = self._rays_near_bodies(states, near, links, others)
        impulses = self.model.step(states, self.command, substep_s, self.terrain,
                                   self._bullet_rays, exact, ground_ready)
        linear_ws, angular_ws = self._guarded(impulses,
                                              self.drive.body_impulses(states, substep_s))
        # Each row handed over as a tuple of floats (Panda makes its vector in C), by map
        # with the methods looked up once: a third less than making a Vec3 of each row,
        # and about half the time of a loop of body.applyCentralImpulse(Vec3(*row)).
        call_each(_apply_central_impulse, self.bodies, zip(*linear_ws.T.tolist()))
        call_each(_apply_torque_impulse, self.bodies, zip(*angular_ws.T.tolist()))
        if exact is not None and self._bullet_rays.pushed_bodies:
            self._bullet_rays.push_back(impulses.anchor_ws.reshape(-1, 3), self.model.report,
                                        states.axes_ws, self._rows.patch_offset_m)

    def _rays_near_bodies(self, states: BodyStates, near: np.ndarray, links: np.ndarray,
                          others: tuple[np.ndarray, np.ndarray]) -> np.ndarray | None:
        """Per anchor of the vehicles ``near`` something: could its ray meet a body besides
        the terrain (another of these vehicles where it is now, one of the ``others``)?
        None: no ray could. Each body stands for its bounding sphere and
        :data:`~physics.bullet.obstacles.RAY_SLACK_M`, each of these vehicles for its
        hull's box as well, and a static obstacle for its box where it was given one (a
        rock's); a ray passing within them is cast through Bullet.

        Only the near vehicles' rays are worked out, each vehicle's measured only against
        the bodies it is linked to (``links``, from the near test): a body it is not linked
        to lies further from it than its reach and that body's bounds (the near test's
        room is kept for the whole step), so none of its rays can meet it."""
        if not np.count_nonzero(near):  # a C call; ndarray.any() goes through Python
            return None
        anchors = len(self.constants.position_bs)
        if self.always_bullet_rays:
            return np.repeat(near, anchors)
        rows = self._rows
        meets = fleet_rays_meeting_links(
            states.position_ws, states.axes_ws, self.model.table, rows.ray_length_m,
            self.model.ray_reach_m, links, rows.collider_reach_m + RAY_SLACK_M,
            rows.hull_drop_m, rows.hull_box_half_m, others[0], others[1] + RAY_SLACK_M,
            self.obstacles.static_boxes)
        return meets if np.count_nonzero(meets) else None

    def _guarded(self, impulses: AnchorImpulses, extra_ws: np.ndarray | None
                 ) -> tuple[np.ndarray, np.ndarray]:
        """The bodies' impulses, with the drive's own (a car's drag) added; a vehicle whose
        maths went non-finite gets none (Panda would refuse it) and is marked faulted: the
        simulation's guard sets it back on the ground after the step."""
        linear_ws, angular_ws = impulses.linear_ws, impulses.angular_ws
        if extra_ws is not None:
            linear_ws = linear_ws + extra_ws
        elif impulses.finite:  # the anchors' loop looked at every sum after making them
            return linear_ws, angular_ws
        # Every number finite in two calls; a NaN or an infinity anywhere makes the total
        # one of them too, and the rows are looked at one by one.
        if math.isfinite(linear_ws.sum() + angular_ws.sum()):
            return linear_ws, angular_ws
        finite = np.isfinite(linear_ws.sum(axis=1) + angular_ws.sum(axis=1))
        if np.count_nonzero(finite) < len(finite):
            broken = ~finite
            self.faulted |= broken
            linear_ws, angular_ws = linear_ws.copy(), angular_ws.copy()
            linear_ws[broken] = 0.0
            angular_ws[broken] = 0.0
        return linear_ws, angular_ws

    def recover(self, index: int) -> None:
        """A vehicle was set down afresh: clear its fault, its anchors' state, its drive's
        (a car's steering) and its engine's speed."""
        self.disturbed()
        self.faulted[index] = False
        self.model.relax(index)
        self.drive.relax(index)
        self.gearbox.relax(index)

    def destroy(self) -> None:
        self.world.remove_substep_hook(self._substep)
        self.bodies.clear()
        self.obstacles.clear()
