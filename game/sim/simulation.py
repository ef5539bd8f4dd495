"""The headless game: an arena and its vehicles, advanced one fixed step at a time.

Nothing here draws. A :class:`Simulation` is built from the world's specs, a map and a
seed (:class:`game.sim.session.GameSession` builds one for every kind of run) and is
driven by ``step(controls)`` once per fixed step; its vehicles and the step's typed
events (:mod:`game.sim.events`) are what everything else reads.

A step: the player's buttons (swap vehicle, reset), every driver's controls (bots, a
second local player) through the vehicles' fleets and guns, the gearboxes, one physics
step, the guard that keeps every vehicle's state and recovers broken ones, the shells
that struck something, then any rules (a battle's rounds).
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np

from common import compiled
from game.sim.arena import CAR, TANK, Arena, WorldSpecs
from game.sim.armour_hits import aim_verdict
from game.sim.combat import Combat
from game.sim.controls import ButtonEdges, Controls
from game.sim.events import CraterDug, Event, Reset, SwapVehicle
from game.sim.guard import PhysicsGuard
from game.sim.part_damage import damaged_controls, tank_parts
from game.sim.spotting import SightScreens
from game.sim.vehicles import PlayerVehicle, Vehicle, step_events
from physics.bullet.fleet import VehicleFleet
from physics.bullet.hull_body import (TURRET_CONTACT_FOLLOW_M, TURRET_FOLLOW_M,
                                      make_vehicle_body)
from physics.bullet.poses import ground_aligned_rotation, set_at_rest
from physics.model.broadphase import points_near_path
from physics.model.flight import flight_to_distance
from physics.model.parts import WHOLE_TANK
from physics.model.terrain import MapChoice

Driver = Callable[["Simulation"], Controls]
"""Gives one vehicle its controls each step (a bot, a local player without a pad)."""
IDLE = Controls()
"""No hands on the controls."""
HANDBRAKE = Controls(handbrake=True)
"""A wreck's controls, and those of a vehicle left behind by a swap."""
Rules = Callable[["Simulation", list[Event]], list[Event]]
"""After each step, may add events (a battle's rounds)."""

TANK_REACH_SHARE = 1.3
"""A tank's reach, as a share of its hull's half diagonal: the turret stands above it."""


class ShellPaths(NamedTuple):
    """The shells in flight at the start of a step (rows in the combat's order)."""

    positions_ws: np.ndarray
    velocities_ws: np.ndarray
    reach_m: np.ndarray
    shells: list
    """The shells followed (those that may meet something in the step), in those rows."""


class Simulation:
    """Everything physical in one game, stepped in fixed steps."""

    def __init__(self, specs: WorldSpecs, map_choice: MapChoice, seed: int,
                 player_vehicle: str | None = TANK, player_name: str = "player",
                 player_start_gear: str | None = None, player_tank: str | None = None):
        compiled.load_cached()  # every compiled loop now, none first met mid-battle
        self.specs = specs
        self.seed = seed
        self.player_start_gear = player_start_gear or specs.spawn.start_gear
        """The gear the player's vehicles start in ("A": the automatic gearbox)."""
        self.arena = Arena(specs, map_choice, seed)
        self.world, self.terrain = self.arena.world, self.arena.terrain
        self.fleets = self.arena.fleets
        self.combat = Combat(self.world, self.terrain, seed, specs.simulation.gravity_m_s2,
                             specs.shells, specs.damage, self.arena.crater_spec)
        self.guard = PhysicsGuard(self.terrain, specs.spawn.below_ground_limit_m, self.place)
        self.vehicles: list[Vehicle] = []
        self._by_name: dict[str, Vehicle] = {}
        self.roster_revision = 0
        """Counts the vehicles spawned and removed: a list of vehicles kept from before is
        still whole while it is unchanged."""
        self._positions_xy: tuple[int, np.ndarray, np.ndarray] | None = None
        """The step the vehicles' ground positions and velocities were gathered at, and
        those (:meth:`vehicle_motion_xy`)."""
        self.sight_screens = SightScreens(self)
        """What may hide one vehicle from another besides the ground, for sight lines."""
        self._buttons = ButtonEdges()
        self._drivers: dict[str, Driver] = {}
        self._rules: list[Rules] = []
        self.player: Vehicle | None = None
        """The vehicle the step's ``player_controls`` drive (None on a dedicated server:
        every vehicle there has a driver)."""
        self.player_tank = specs.tank_class(player_tank)
        """The player's tank class: theirs from the start, or the one a swap from the car
        brings up."""
        if player_vehicle is not None:
            x_m, y_m = self.arena.spawn_points[0]
            self.player = self.spawn(player_vehicle, player_name, x_m=x_m, y_m=y_m,
                                     heading_deg=0.0, start_gear=self.player_start_gear,
                                     tank_class=self.player_tank)

    # ----- what the world holds ----------------------------------------------------------

    @property
    def rocks(self):
        return self.arena.rocks

    @property
    def plates(self):
        return self.arena.plates

    @property
    def thrown_turrets(self):
        return self.combat.parts.thrown

    @property
    def tanks(self) -> VehicleFleet:
        """The fleet of the player's tank class (every class's with as many anchors)."""
        return self.arena.fleet_for(TANK, self.player_tank)[0]

    @property
    def cars(self) -> VehicleFleet:
        return self.fleets[CAR]

    @property
    def shells(self):
        """Shells in flight (each with ``position_ws`` and ``velocity_ws``)."""
        return self.combat.shells

    @property
    def time_s(self) -> float:
        return self.world.time_s

    @property
    def step_s(self) -> float:
        return self.world.step_s

    @property
    def gravity_m_s2(self) -> float:
        return self.specs.simulation.gravity_m_s2

    def vehicle_named(self, name: str) -> Vehicle | None:
        """The vehicle called ``name`` (names are unique), or None."""
        return self._by_name.get(name)

    def vehicle_positions_xy(self) -> np.ndarray:
        """Every vehicle's x and y (V, 2, read-only) as the last step left them, gathered
        once a step for all who look round."""
        return self.vehicle_motion_xy()[0]

    def vehicle_motion_xy(self) -> tuple[np.ndarray, np.ndarray]:
        """Every vehicle's x, y and its velocity's (V, 2 each, read-only) as the last step
        left them: gathered once a step, in one pass, for every bot that looks round."""
        step = self.world.step_count
        if self._positions_xy is None or self._positions_xy[0] != step \
                or len(self._positions_xy[1]) != len(self.vehicles):
            # Whole rows, not their numbers one by one: each would be a numpy scalar.
            motion = np.array([(vehicle.current.position_ws, vehicle.current.velocity_ws)
                               for vehicle in self.vehicles], dtype=float).reshape(-1, 2, 3)
            gathered = (np.ascontiguousarray(motion[:, 0, :2]),
                        np.ascontiguousarray(motion[:, 1, :2]))
            for values in gathered:
                values.setflags(write=False)
            self._positions_xy = step, *gathered
        return self._positions_xy[1], self._positions_xy[2]

    # ----- who drives, and what else happens --------------------------------------------

    def add_driver(self, vehicle_name: str, driver: Driver) -> None:
        """Let ``driver(simulation)`` give the named vehicle its controls each step (a bot)."""
        self._drivers[vehicle_name] = driver

    def add_rules(self, rules: Rules) -> None:
        """After each step, ``rules(simulation, events)`` may add events (a battle's rounds)."""
        self._rules.append(rules)

    # ----- vehicles ------------------------------------------------------------------------

    def spawn(self, kind: str, name: str, x_m: float, y_m: float, heading_deg: float,
              start_gear: str | None = None, tank_class: str | None = None) -> Vehicle:
        """Put a vehicle of ``kind`` ("tank" or "car"; a tank of ``tank_class``, None: the
        default one) on its springs at (x, y), lined up with the ground, in ``start_gear``
        (None: config/game.toml's ``[spawn] start_gear``). KeyError: no such class."""
        fleet, fleet_kind = self.arena.fleet_for(kind, tank_class)
        spec = fleet.kinds[fleet_kind].spec
        body, turret = make_vehicle_body(spec, name)
        path = self.world.add_body(body)
        vehicle = Vehicle(name, kind, fleet, fleet.add(body, kind=fleet_kind), path,
                          None if kind == CAR else self.specs.tank_class(tank_class))
        vehicle.turret_collider = turret
        vehicle.parts = tank_parts(spec, self.specs.damage)
        self.place(vehicle, x_m, y_m, heading_deg)
        self.world.handles.register(body, vehicle)
        self.vehicles.append(vehicle)
        self._by_name[name] = vehicle
        self.roster_revision += 1
        for other in self.fleets.values():  # vehicles can stand on each other
            if other is not fleet:
                other.add_obstacle(body)
        vehicle.apply_controls(Controls(gear=start_gear or self.specs.spawn.start_gear))
        if vehicle.aim is not None:  # the gun starts loading: nobody fires the moment it appears
            vehicle.aim.reload_left_s = vehicle.spec.gun.reload_s
        return vehicle

    def remove(self, vehicle: Vehicle) -> None:
        """Take a vehicle out of the game: its body, its slot in its fleet, its driver (a
        network player left). Shells it fired fly on."""
        fleet = vehicle.fleet
        fleet.remove(vehicle.index)
        for other in self.vehicles:
            if other.fleet is fleet and other.index > vehicle.index:
                other.index -= 1
        for kind_fleet in self.fleets.values():
            kind_fleet.remove_obstacle(vehicle.body)
        self.world.remove_body(vehicle.path)
        self.vehicles.remove(vehicle)
        del self._by_name[vehicle.name]
        self.roster_revision += 1
        self._drivers.pop(vehicle.name, None)
        self._positions_xy = None
        if vehicle is self.player:
            self.player = None

    def place(self, vehicle: Vehicle, x_m: float, y_m: float, heading_deg: float) -> None:
        """Set a vehicle upright on the ground at (x, y), still, facing ``heading_deg``."""
        fleet = vehicle.fleet
        ground_m, normal = self.terrain.surface_at(x_m, y_m)
        anchor_depth_m = -float(vehicle.constants.position_bs[:, 2].mean())
        lift_m = vehicle.spec.suspension.ride_height_m + anchor_depth_m
        position = np.array([x_m, y_m, float(ground_m)]) + normal * lift_m
        position[2] += self.specs.spawn.drop_height_m
        set_at_rest(vehicle.body, position, ground_aligned_rotation(normal, heading_deg))
        fleet.recover(vehicle.index)  # nothing of before (grip stretch, spin) carries over
        vehicle.record_state()
        vehicle.previous = vehicle.current

    def reset_vehicle(self, vehicle: Vehicle) -> Reset:
        """Set a vehicle back on its wheels where it stands, facing the same way."""
        state = vehicle.current
        self.place(vehicle, state.position_ws[0], state.position_ws[1],
                   state.heading_pitch_roll_deg()[0])
        return Reset(vehicle.name)

    def damage(self, victim: Vehicle, amount: float, shooter: Vehicle) -> list[Event]:
        """Take ``amount`` off a tank's health; at zero it is destroyed and becomes a wreck."""
        return self.combat.damage(victim, amount, shooter)

    def predicted_impact(self, vehicle: PlayerVehicle, max_time_s: float | None = None,
                         make_tiles: bool = True) -> np.ndarray | None:
        """Where a shell the vehicle fired now would land (see :meth:`Combat.predicted_impact`),
        the turrets its arc passes standing where they are."""
        return self.combat.predicted_impact(vehicle, max_time_s, make_tiles,
                                            self._turrets_caught_up)

    def _turrets_caught_up(self, path_ws: np.ndarray) -> None:
        """The turret colliders left behind (:meth:`_turn_turrets`) of the vehicles whose
        collider a path (its points, chords between them) may pass through, turned to
        where their turrets stand."""
        behind = [(vehicle, vehicle.turret_collider) for vehicle in self.vehicles
                  if vehicle.turret_collider is not None and vehicle.turret_collider.behind]
        if not behind:
            return
        centres = np.array([vehicle.current.position_ws for vehicle, _ in behind])
        reach_m = np.array([vehicle.collider_reach_m for vehicle, _ in behind])
        for index in np.flatnonzero(points_near_path(centres, path_ws, reach_m)).tolist():
            behind[index][1].catch_up()

    def aim_verdict(self, vehicle: PlayerVehicle, impact_ws: np.ndarray) -> str | None:
        """Whether the shell ``vehicle`` has loaded would pierce the armour where its
        crosshair (``impact_ws``, :meth:`predicted_impact`) meets another tank
        (:func:`crosshair_verdict`)."""
        return crosshair_verdict(self.combat, self.vehicles, vehicle, impact_ws)

    def _swap_from(self, current: Vehicle) -> Vehicle:
        """The vehicle the player hops into from ``current`` (left on its handbrake): the
        nearest free vehicle of the other kind (not one a driver has: a bot, a second local
        player), or a new one beside this one."""
        other_kind = CAR if current.kind == TANK else TANK
        position = current.current.position_ws
        others = [v for v in self.vehicles
                  if v.kind == other_kind and v.name not in self._drivers]
        current.apply_controls(HANDBRAKE)
        if others:
            return min(others, key=lambda v: np.linalg.norm(v.current.position_ws - position))
        right, _, _ = current.current.axes_ws()
        beside = position + right * self.specs.spawn.swap_offset_m
        heading = current.current.heading_pitch_roll_deg()[0]
        return self.spawn(other_kind, f"player-{other_kind}", beside[0], beside[1], heading,
                          start_gear=self.player_start_gear, tank_class=self.player_tank)

    # ----- the step ---------------------------------------------------------------------

    def step(self, player_controls: Controls | None = None,
             others: dict[str, Controls] | None = None) -> list[Event]:
        """Advance one fixed step with the player's controls and any other drivers' (by
        vehicle name: bots, a second local player or network players, whose ``reset`` also
        works); return what happened in it."""
        others = others or {}
        player_controls = player_controls or IDLE
        events = self._buttons_pressed(player_controls, others)
        drivers = {name: driver(self) for name, driver in self._drivers.items()}
        drivers.update(others)
        if self.player is not None:
            drivers[self.player.name] = player_controls
        time_s, step_s = self.time_s, self.step_s
        for vehicle in self.vehicles:
            if vehicle.name in drivers:
                events += self._drive(vehicle, drivers[vehicle.name], time_s, step_s)
        shell_paths = self._shell_paths()  # read once: nothing moves before the world step
        self._stream(shell_paths)
        for fleet in self.fleets.values():
            events += step_events(fleet, fleet.update_drive(step_s), self.vehicles)
        self._turn_turrets(shell_paths)
        self.world.step()
        events += self.guard.record_and_guard(self.vehicles, list(self.fleets.values()))
        fought = self.combat.resolve(self.vehicles, self.time_s)
        for event in fought:
            if isinstance(event, CraterDug):
                self.dig(event)
        events += fought
        events += self.combat.crews_work(self.vehicles)
        for rules in self._rules:
            events += rules(self, events)
        return events

    def _turn_turrets(self, shell_paths: ShellPaths | None) -> None:
        """Each turret's collider (:class:`~physics.bullet.hull_body.TurretCollider`) to
        where its gun was aimed this step, where anything may touch it in the step: closely
        where a shell may reach it (its path for the step, :meth:`_shell_paths`, and its
        blast), less so where only another body or the ground may (the fleet's test)."""
        touched: dict[VehicleFleet, tuple[list, list | None]] = {}
        for vehicle in self.vehicles:
            collider, aim = vehicle.turret_collider, vehicle.aim
            if collider is None or aim is None:
                continue
            heading_rad = aim.turret_heading_rad
            if collider.lag_m(heading_rad) <= TURRET_FOLLOW_M:  # whatever may touch it,
                collider.turn(heading_rad, None)                # the pieces do the same
                continue
            by_body, by_shell = touched.get(vehicle.fleet) or touched.setdefault(
                vehicle.fleet, _touched(vehicle.fleet, shell_paths))  # once a fleet, if needed
            collider.turn(heading_rad, TURRET_FOLLOW_M if by_shell and by_shell[vehicle.index]
                          else (TURRET_CONTACT_FOLLOW_M if by_body[vehicle.index] else None))

    def dig(self, crater: CraterDug) -> None:
        """Dig a crater into the ground (ValueError: its numbers are not a shell's)."""
        self.arena.dig(crater.x_m, crater.y_m, crater.radius_m, crater.depth_m)

    def _shell_paths(self) -> ShellPaths | None:
        """Where each shell that may meet something in the step is, its velocity, and how
        far it may go in the step (its speed times the step, and as far again to spare, and
        its radius): :meth:`~physics.bullet.shells.ShellSystem.to_follow`; None: none."""
        terrain = self.arena.terrain
        followed = self.combat.shell_system.to_follow(
            2.0 * self.step_s, terrain.ceiling_m, (terrain.half_extent_x_m,
                                                   terrain.half_extent_y_m))
        return None if followed is None else ShellPaths(*followed)

    def _stream(self, shell_paths: ShellPaths | None) -> None:
        """A big desert follows the vehicles, and the shells for the step ahead
        (:meth:`_shell_paths`) and the way they fly."""
        if not self.arena.streams:  # every tile is there from the start
            return
        if shell_paths is None:
            self.arena.stream(self.vehicle_positions_xy())
            return
        self.arena.stream(self.vehicle_positions_xy(), shell_paths.positions_ws,
                          shell_paths.reach_m, shell_paths.velocities_ws, self.gravity_m_s2)

    def _buttons_pressed(self, player_controls: Controls, others: dict[str, Controls]
                         ) -> list[Event]:
        """The player's swap and reset, and another person's reset (local player 2), on the
        step each button goes down."""
        events: list[Event] = []
        if self.player is not None:
            if self._buttons.pressed("swap_vehicle", player_controls.swap_vehicle):
                previous = self.player
                self.player = self._swap_from(previous)
                events.append(SwapVehicle(previous.name, self.player.name))
            if self._buttons.pressed("reset", player_controls.reset):
                events.append(self.reset_vehicle(self.player))
        for vehicle in self.vehicles if others else ():
            if vehicle.name in others and self._buttons.pressed(
                    "reset:" + vehicle.name, others[vehicle.name].reset):
                events.append(self.reset_vehicle(vehicle))
        return events

    def _drive(self, vehicle: Vehicle, controls: Controls, time_s: float, step_s: float
               ) -> list[Event]:
        """A vehicle's controls for the step of ``step_s`` from ``time_s``: drive, aim and
        fire (a wreck holds still)."""
        if vehicle.destroyed:
            vehicle.apply_controls(HANDBRAKE)
            return []
        if vehicle.parts is not None and vehicle.parts.effects is not WHOLE_TANK:
            controls = damaged_controls(controls, vehicle.parts.effects)
        events = vehicle.apply_controls(controls)
        if vehicle.aim is not None:
            events += self.combat.aim_and_fire(vehicle, controls, time_s, step_s)
        return events

    def destroy(self) -> None:
        self.combat.destroy()
        self.arena.destroy()
        self.vehicles.clear()
        self._by_name.clear()


def _touched(fleet: VehicleFleet, paths: ShellPaths | None) -> tuple[list, list | None]:
    """Per vehicle of ``fleet``: may a body or the ground, and a shell or its blast (None:
    none flies near anything), touch its collider in the step?"""
    return fleet.in_touch().tolist(), None if paths is None else fleet.within_reach(
        paths.positions_ws, [reach_m + shell.spec.splash_radius_m for reach_m, shell
                             in zip(paths.reach_m.tolist(), paths.shells)])


def crosshair_verdict(combat: Combat, vehicles, shooter: PlayerVehicle, impact_ws: np.ndarray
                      ) -> str | None:
    """Whether the shell ``shooter`` has loaded would pierce the armour where its crosshair
    (``impact_ws``) meets one of ``vehicles`` (as they stand or are drawn): the verdicts
    of :func:`game.sim.armour_hits.aim_verdict`, at the speed the shell keeps over the
    range (``combat``: the shells and how they fly); None off the tanks."""
    if shooter.aim is None:
        return None
    target = _tank_at(vehicles, impact_ws, shooter)
    if target is None:
        return None
    gun = shooter.spec.gun
    shell, muzzle, velocity = combat.launch(shooter, shooter.aim)
    across_m = float(np.hypot(*(np.asarray(impact_ws)[:2] - muzzle[:2])))
    flown = flight_to_distance(muzzle, velocity, combat.flight_of(shell), across_m,
                               gun.shell_lifetime_s)
    return aim_verdict(target, impact_ws, velocity if flown is None else flown[2], shell,
                       combat.shells_config.penetration)


def _tank_at(vehicles, point_ws: np.ndarray, shooter: PlayerVehicle):
    """The armed vehicle of ``vehicles`` (not ``shooter``) whose hull ``point_ws`` lies on:
    the nearest whose reach (its hull's half diagonal and its turret) holds it."""
    best, best_m = None, np.inf
    for vehicle in vehicles:
        if vehicle is shooter or vehicle.aim is None:
            continue
        reach_m = float(np.linalg.norm(vehicle.spec.hull.half_extents_m)) * TANK_REACH_SHARE
        distance_m = float(np.linalg.norm(vehicle.current.position_ws - point_ws))
        if distance_m <= reach_m and distance_m < best_m:
            best, best_m = vehicle, distance_m
    return best
