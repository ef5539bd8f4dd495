"""Tanks' parts in the game: what shells break, fires, the crew's repairs, and the turret an
ammo rack throws.

The parts and what their damage does are :mod:`physics.model.parts`; here they meet the
shells and the vehicles. A shell that gets through strikes the parts on its line and in its
spall cone; any shell whose line crosses a track strikes it, and a high-explosive blast
strikes the tracks it reaches. A damaged engine may catch fire, which burns health until the
crew put it out. A destroyed part is mended to damaged after its repair time. An ammo rack
destroyed destroys the tank and throws its turret off as a loose Bullet body. Each change
of a part's state is an event and goes at once to what the part acts on: the fleet's drive
(tracks, engine) and, read each step, the gun, the driver's controls and the crew's eyes
(``vehicle.parts.effects``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from panda3d.bullet import BulletRigidBodyNode
from panda3d.core import NodePath, Point3, Quat, TransformState, Vec3

from game.sim.controls import Controls, with_drive
from game.sim.events import (Damage, Destroyed, Event, FireOut, FireStarted, PartDamaged,
                             PartDestroyed, PartRepaired)
from physics.bullet.hull_body import TurretCollider, fit_turret
from physics.bullet.poses import vector_array
from physics.bullet.shells import Shell
from physics.bullet.world import PhysicsWorld
from physics.model.parts import (AMMO_RACK, ENGINE, OUTSIDE, PART_NAMES,
                                 STATES, WHOLE_TANK, DamageSpec, PartEffects,
                                 PartsLayout, part_effects, parts_on_line, state_of,
                                 strikes_inside)

FIRE_STREAM = 0xF12E
"""Seeds the random stream of engine fires apart from the shots' and the terrain's."""
_OUTSIDE = np.array([name in OUTSIDE for name in PART_NAMES])
Burn = Callable[[Any, float, Any], list[Event]]
"""Takes health off a burning tank: (the tank, the amount, whoever set the fire)."""
AMMO_RACK_CAUSE, FIRE_CAUSE = "ammo_rack", "fire"
"""Why a tank was destroyed besides damage (:class:`~game.sim.events.Destroyed`'s ``cause``)."""


class TankParts:
    """One tank's parts as they stand: hit points, repairs under way, an engine fire."""

    def __init__(self, layout: PartsLayout, spec: DamageSpec):
        self.layout = layout
        self.spec = spec
        self.whole = np.array([part.hit_points for part in layout.ordered])
        self.repair_s = np.array([part.repair_s for part in layout.ordered])
        self.reset()

    def reset(self) -> None:
        """Every part whole, no fire (a new round)."""
        self.hit_points = self.whole.copy()
        self.repair_left_s = np.zeros(len(PART_NAMES))
        """Per part: the time left until a destroyed one is mended (0: none under way)."""
        self.fire_left_s = 0.0
        """Until the crew have the fire out (0: no fire)."""
        self.fire_by: object = None
        """Whoever set it (a vehicle: the kill is theirs)."""
        self._burnt_s = 0.0
        self._told_fire = False
        """Another machine says it burns (a client's copy: the server burns it)."""
        self.effects: PartEffects = WHOLE_TANK
        self._codes: tuple[int, ...] | None = None
        """:meth:`codes` as last worked out (None: the hit points changed since)."""

    @property
    def on_fire(self) -> bool:
        return self.fire_left_s > 0.0 or self._told_fire

    def state(self, name: str) -> str:
        index = PART_NAMES.index(name)
        return state_of(float(self.hit_points[index]), float(self.whole[index]))

    def states(self) -> dict[str, str]:
        """Every part's state by name, in :data:`PART_NAMES`' order."""
        return {name: state_of(hit_points, whole) for name, hit_points, whole
                in zip(PART_NAMES, self.hit_points.tolist(), self.whole.tolist())}

    def codes(self) -> tuple[int, ...]:
        """The states as indices into :data:`~physics.model.parts.STATES` (for the wire:
        every snapshot, so kept until the hit points change)."""
        if self._codes is None:
            self._codes = tuple(STATES.index(state) for state in self.states().values())
        return self._codes

    def show(self, codes, repair_left_s, fire: bool) -> None:
        """Stand as another machine reports them (a client's copy of the server's): each
        part at its state's hit points (a damaged one at the mended share), repairs and the
        fire as told (it burns nothing here: the server takes the health)."""
        shares = np.array([(1.0, self.spec.repaired_share, 0.0)[code] for code in codes])
        self.hit_points = self.whole * shares
        self.repair_left_s = np.array(repair_left_s, dtype=float)
        self._told_fire = fire
        self.refresh()

    def record(self) -> dict:
        """The parts as telemetry writes them: ``parts`` (each part's state by name),
        ``on_fire``, and ``repair_s`` (the seconds left on each repair under way; left out
        with none)."""
        record: dict = {"parts": self.states(), "on_fire": self.on_fire}
        repairs = {name: round(left_s, 3) for name, left_s
                   in zip(PART_NAMES, self.repair_left_s.tolist()) if left_s > 0.0}
        if repairs:
            record["repair_s"] = repairs
        return record

    def refresh(self) -> PartEffects:
        """What the parts leave the tank, worked out afresh (after its hit points changed)."""
        self._codes = None
        self.effects = part_effects(self.states(), self.spec)
        return self.effects


def tank_parts(spec, damage: DamageSpec) -> TankParts | None:
    """A new vehicle's parts, every one whole (None: a vehicle of ``spec`` has none, as the
    car)."""
    layout = getattr(spec, "parts", None)
    return None if layout is None else TankParts(layout, damage)


@dataclass(eq=False)  # an owner in the handle map: hashed by identity
class ThrownTurret:
    """A turret an ammo rack threw off its hull: a loose body that falls and tumbles."""

    vehicle: str
    """Whose turret it was."""
    path: NodePath

    @property
    def name(self) -> str:
        return self.path.getName()

    def pose(self) -> tuple[np.ndarray, np.ndarray]:
        """Where it is: the turret ring's centre in the world and the rotation (w, x, y, z)."""
        transform = self.path.getTransform()
        return vector_array(transform.getPos()), vector_array(transform.getQuat())


class PartDamage:
    """The parts of every tank in one physics world: struck, burning, mended, thrown."""

    def __init__(self, world: PhysicsWorld, spec: DamageSpec, seed: int, gravity_m_s2: float):
        self.world = world
        self.spec = spec
        self.gravity_m_s2 = gravity_m_s2
        self.rng = np.random.default_rng([seed, FIRE_STREAM])
        self.thrown: list[ThrownTurret] = []
        self._busy: set = set()
        """The tanks with a repair or a fire under way (the crews' work looks at no other)."""
        self._tracks_struck: dict[int, set[tuple[str, int]]] = {}
        """Per shell in flight (by id): the tracks (vehicle, part) it has struck."""

    def penetrated(self, vehicle, entry_bs: np.ndarray, direction_bs: np.ndarray,
                   amount: float, shooter) -> list[Event]:
        """A shell got through ``vehicle``'s armour at ``entry_bs`` (body frame), flying along
        ``direction_bs``, with ``amount`` of damage: the parts on its line and in its spall
        cone take their shares."""
        parts = vehicle.parts
        if parts is None or vehicle.destroyed:
            return []
        shares = strikes_inside(parts.layout, self.spec, entry_bs, direction_bs,
                                vehicle.turret_heading_rad, vehicle.spec.gun.turret_pivot_m)
        return self.strike(vehicle, shares * amount, shooter)

    def crossed(self, vehicles, flights: list[tuple[Shell, np.ndarray, np.ndarray]]
                ) -> list[Event]:
        """Shells flew this step, each from a start to an end point (where it struck
        something, or where it is now): the tracks their lines crossed take each shell's
        share of its damage, once per shell (a shell flies on through a track)."""
        events: list[Event] = []
        flying = {id(shell) for shell, _, _ in flights}
        self._tracks_struck = {key: struck for key, struck in self._tracks_struck.items()
                               if key in flying}
        armoured = [vehicle for vehicle in vehicles
                    if vehicle.parts is not None and not vehicle.destroyed]
        if not armoured or not flights:
            return events
        # Which tanks each shell's line passes near: the middle of the line within the
        # tank's reach and half the line's length of its centre. In plain floats, each sum
        # as numpy's: a few shells and tanks, where numpy's calls cost more than the sums.
        centres = [(vehicle, *vehicle.current.position_ws.tolist(), vehicle.collider_reach_m)
                   for vehicle in armoured]
        for shell, start_ws, end_ws in flights:
            start_x, start_y, start_z = np.asarray(start_ws, dtype=float).tolist()
            end_x, end_y, end_z = np.asarray(end_ws, dtype=float).tolist()
            line_x, line_y, line_z = end_x - start_x, end_y - start_y, end_z - start_z
            length_m = math.sqrt(line_x * line_x + line_y * line_y + line_z * line_z)
            if not length_m > 0.0:
                continue
            middle_x, middle_y = start_x + line_x / 2.0, start_y + line_y / 2.0
            middle_z, half_m = start_z + line_z / 2.0, length_m / 2.0
            for vehicle, centre_x, centre_y, centre_z, reach_m in centres:
                gap_x, gap_y, gap_z = middle_x - centre_x, middle_y - centre_y, middle_z - centre_z
                if (math.sqrt(gap_x * gap_x + gap_y * gap_y + gap_z * gap_z) <= reach_m + half_m
                        and vehicle is not shell.owner):
                    events += self._track_crossed(vehicle, shell, start_ws, np.array(
                        [line_x, line_y, line_z]) / length_m, length_m)
        return events

    def _track_crossed(self, vehicle, shell: Shell, start_ws, direction_ws,
                       length_m: float) -> list[Event]:
        parts = vehicle.parts
        origin_bs, direction_bs = vehicle.current.in_body_frame(start_ws, direction_ws)
        met = parts_on_line(parts.layout, origin_bs, direction_bs, length_m, 0.0,
                            vehicle.spec.gun.turret_pivot_m)
        struck = self._tracks_struck.setdefault(id(shell), set())
        fresh = [index for index in np.flatnonzero(np.isfinite(met) & _OUTSIDE).tolist()
                 if (vehicle.name, index) not in struck]
        if not fresh:
            return []
        struck.update((vehicle.name, index) for index in fresh)
        losses = np.zeros(len(PART_NAMES))
        losses[fresh] = shell.spec.damage * self.spec.outside_damage_share
        return self.strike(vehicle, losses, shell.owner)

    def blasted(self, vehicle, point_ws: np.ndarray, damage_at: Callable[[float], float],
                shooter) -> list[Event]:
        """A blast at ``point_ws`` reached ``vehicle``: each track takes ``damage_at`` its
        distance from the blast."""
        parts = vehicle.parts
        if parts is None or vehicle.destroyed:
            return []
        centres, halves, _ = parts.layout.boxes
        point_bs, _ = vehicle.current.in_body_frame(point_ws, np.zeros(3))
        outside = np.maximum(np.abs(point_bs - centres) - halves, 0.0)
        distances = np.linalg.norm(outside, axis=1).tolist()
        losses = np.array([damage_at(distance) if crossed else 0.0
                           for distance, crossed in zip(distances, _OUTSIDE.tolist())])
        return self.strike(vehicle, losses, shooter) if losses.any() else []

    def strike(self, vehicle, losses: np.ndarray, shooter) -> list[Event]:
        """Take ``losses`` (P,) off ``vehicle``'s parts' hit points: the events of every part
        that changed state or lost hit points; an engine struck may catch fire; an ammo rack
        destroyed destroys the tank and throws its turret."""
        parts = vehicle.parts
        events: list[Event] = []
        rack_went = False
        for index, loss in enumerate(losses.tolist()):
            if loss <= 0.0:
                continue
            name = PART_NAMES[index]
            before = parts.hit_points[index]
            parts.hit_points[index] = left = max(0.0, before - loss)
            if left == 0.0:
                parts.repair_left_s[index] = parts.repair_s[index]
                if before > 0.0:
                    events.append(PartDestroyed(vehicle.name, name, shooter.name,
                                                float(parts.repair_s[index])))
            else:
                events.append(PartDamaged(vehicle.name, name, shooter.name, round(left, 3)))
            if name == AMMO_RACK and left == 0.0 and before > 0.0:
                rack_went = True
            if name == ENGINE and not parts.on_fire and self.rng.random() < self.spec.fire_chance:
                parts.fire_left_s, parts.fire_by, parts._burnt_s = (self.spec.fire_duration_s,
                                                                    shooter, 0.0)
                events.append(FireStarted(vehicle.name, shooter.name))
        self._acted(vehicle)
        if parts.repair_left_s.any() or parts.fire_left_s > 0.0:
            self._busy.add(vehicle)
        if rack_went:
            events += self._ammo_rack(vehicle, shooter)
        return events

    def _acted(self, vehicle) -> None:
        """What the parts now leave the tank, handed to its fleet's drive."""
        effects = vehicle.parts.refresh()
        vehicle.fleet.set_damage(vehicle.index, effects.track_drive, effects.engine_power,
                                 self.spec.broken_track_drag_share)

    def _ammo_rack(self, vehicle, shooter) -> list[Event]:
        """The ammo rack went up: the tank is destroyed (what health it had left is taken,
        by whoever set it off) and its turret thrown."""
        left = vehicle.health
        vehicle.health = 0.0
        vehicle.destroyed = True
        events: list[Event] = [Damage(vehicle.name, shooter.name, round(float(left), 3), 0.0)]
        vehicle.parts.fire_left_s = 0.0
        if vehicle.turret_collider is not None:
            self._throw(vehicle, vehicle.turret_collider)
            vehicle.turret_collider = None
        return events + [Destroyed(vehicle.name, shooter.name, AMMO_RACK_CAUSE)]

    def _throw(self, vehicle, collider: TurretCollider) -> None:
        """``vehicle``'s turret (``collider``'s pieces) thrown up off its hull, tumbling."""
        state = vehicle.current
        right, _, up = state.axes_ws()
        speed_mps = math.sqrt(2.0 * self.gravity_m_s2 * self.spec.turret_throw_height_m)
        body = collider.throw(f"{vehicle.name}-turret", vehicle.spec.parts.turret_mass_kg,
                              vehicle.turret_heading_rad, state.velocity_ws + up * speed_mps,
                              right * self.spec.turret_throw_spin_rad_s)
        thrown = ThrownTurret(vehicle.name, self.world.add_body(body))
        self.world.handles.register(body, thrown)
        self.thrown.append(thrown)

    def show_thrown(self, vehicle) -> None:
        """A turret the server threw off ``vehicle`` (an ammo rack: a client's copy), thrown
        here too from where the vehicle is drawn, to be drawn falling (the server's own
        lands where it lands: nothing here strikes it)."""
        if any(thrown.vehicle == vehicle.name for thrown in self.thrown):
            return
        collider = getattr(vehicle, "turret_collider", None)
        if collider is None:  # another player's, drawn from snapshots: no body of its own
            stand_in = BulletRigidBodyNode(f"{vehicle.name}-drawn")
            state = vehicle.current
            stand_in.setTransform(TransformState.makePosQuatScale(
                Point3(*state.position_ws), Quat(*state.orientation_ws), Vec3(1.0, 1.0, 1.0)))
            collider = fit_turret(vehicle.spec, stand_in)
            if collider is None:
                return
        else:
            vehicle.turret_collider = None
        self._throw(vehicle, collider)

    def update(self, vehicles, step_s: float, burn: Burn) -> list[Event]:
        """A step of the crews' work on ``vehicles``: repairs run down (a part mended is
        damaged again), fires burn health through ``burn(vehicle, amount, by)`` in ticks
        and go out. Only tanks with work under way are looked at."""
        events: list[Event] = []
        if not self._busy:
            return events
        self._busy.intersection_update(vehicles)  # none that left the game
        for vehicle in [vehicle for vehicle in vehicles if vehicle in self._busy]:
            parts = vehicle.parts
            if vehicle.destroyed:
                self._busy.discard(vehicle)
                continue
            # np.count_nonzero: a C call, where ndarray.any() goes through Python.
            if np.count_nonzero(parts.repair_left_s):
                events += self._mend(vehicle, parts, step_s)
            if parts.fire_left_s > 0.0:
                events += self._burn(vehicle, parts, step_s, burn)
            if not (np.count_nonzero(parts.repair_left_s) or parts.fire_left_s > 0.0):
                self._busy.discard(vehicle)
        return events

    def _mend(self, vehicle, parts: TankParts, step_s: float) -> list[Event]:
        events: list[Event] = []
        # Plain floats: a few parts, every step a crew works.
        before_s = parts.repair_left_s.tolist()
        left_s = [max(left - step_s, 0.0) if left > 0.0 else left for left in before_s]
        mended = [index for index, (before, now) in enumerate(zip(before_s, left_s))
                  if before > 0.0 and now == 0.0]
        parts.repair_left_s[:] = left_s
        for index in mended:
            parts.hit_points[index] = parts.whole[index] * self.spec.repaired_share
            events.append(PartRepaired(vehicle.name, PART_NAMES[index],
                                       round(float(parts.hit_points[index]), 3)))
        if events:
            self._acted(vehicle)
        return events

    def _burn(self, vehicle, parts: TankParts, step_s: float,
              burn: Burn) -> list[Event]:
        spec = self.spec
        parts.fire_left_s = max(0.0, parts.fire_left_s - step_s)
        parts._burnt_s += step_s
        events: list[Event] = []
        out = parts.fire_left_s == 0.0
        if parts._burnt_s >= spec.fire_tick_s or out:
            events += burn(vehicle, spec.fire_damage_per_s * parts._burnt_s, parts.fire_by)
            parts._burnt_s = 0.0
        if out and not vehicle.destroyed:
            events.append(FireOut(vehicle.name))
        return events

    def show(self, vehicle, codes, repair_left_s, fire: bool) -> None:
        """``vehicle``'s parts as the server tells them (a client's): shown, and what they
        leave of its drive handed to its fleet (its prediction drives as the server's)."""
        vehicle.parts.show(codes, repair_left_s, fire)
        self._acted(vehicle)
        if vehicle.parts.repair_left_s.any():
            self._busy.add(vehicle)

    def reset(self, vehicle) -> None:
        """A tank set up for a new round: every part whole, its turret back on."""
        if vehicle.parts is not None:
            vehicle.parts.reset()
            if vehicle.turret_collider is None:
                vehicle.turret_collider = fit_turret(vehicle.spec, vehicle.body)
            self._acted(vehicle)

    def clear(self) -> None:
        """Thrown turrets gone (a new round)."""
        for thrown in self.thrown:
            self.world.remove_body(thrown.path)
        self.thrown.clear()

    def destroy(self) -> None:
        self.clear()


def damaged_controls(controls: Controls, able: PartEffects) -> Controls:
    """What a tank's broken parts leave of its driver's controls: a hurt driver drives at
    his pace; an engine that gives nothing steers nothing (the steer unit runs off it)."""
    steering = able.driving if able.engine_power > 0.0 else 0.0
    if able.driving == 1.0 and steering == 1.0:  # the gun or the crew's work hurt: as asked
        return controls
    return with_drive(controls, controls.throttle * able.driving, controls.steer * steering)
