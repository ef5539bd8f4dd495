"""Combat rules: firing, what a hit does, splash, wrecks, and the firing range's plates.

A gun fires the shell it has loaded, and that takes one of its rounds; the shell the
gunner chose (``Controls.shell``, ``Controls.next_shell``) is loaded at the next reload
(:class:`~physics.model.ammunition.AmmunitionState`). The physics of a shot (the shell's flight, its first contact) is
:mod:`physics.bullet.shells`; here a hit becomes damage. A shell that strikes a tank
strikes one of its armour plates (:mod:`game.sim.armour_hits`), and the penetration
model decides: only a shell that gets through does damage (the more armour it had to
spare, the more of its own); one that glances off flies on, slower, and may strike
something else. A high-explosive shell also blasts a sphere whose bodies are found with
a Bullet overlap query, each taking splash damage that falls with its distance from the
blast. A tank at zero health is destroyed: it ignores its controls and stays where it is
as a wreck.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from common.spec import Spec, SpecError, tuning
from game.sim.armour_hits import ArmourHit, armour_hit, plate_hit, ricochet_velocity_ws
from game.sim.controls import Controls
from game.sim.events import CraterDug, Damage, Destroyed, Event, Hit, Shot
from game.sim.part_damage import FIRE_CAUSE, PartDamage
from game.sim.spotting import hull_middle_ws
from game.sim.vehicles import DrawnVehicle, PlayerVehicle, Vehicle
from physics.bullet.bodies import make_plate_body
from physics.bullet.shell_arcs import predicted_impact
from physics.bullet.shells import Shell, ShellHit, ShellSystem, splash_owners
from physics.bullet.world import PhysicsWorld
from physics.model.ammunition import HE, MM_PER_M, AmmunitionState, ShellSpec
from physics.model.ballistics import GunState, aim_gun, gun_axes, launch_velocity_ws, widen_or_close
from physics.model.craters import CraterSpec, crater_from_hit
from physics.model.flight import Flight
from physics.model.parts import WHOLE_TANK, DamageSpec
from physics.model.penetration import RICOCHET, ShellsConfig
from physics.model.terrain import TerrainBase

SHOT_STREAM = 0x5407
"""Seeds the random stream of shot dispersion apart from the terrain's and the rocks'."""


@dataclass(frozen=True)
class RangeSpec(Spec):
    """The firing range: armour plates straight ahead of the spawn, each of its own
    thickness and slope, so a player sees what each shell does at each range."""

    plate_distances_m: tuple[float, ...] = tuning("how far ahead of the spawn each plate "
                                                  "stands", minimum=10.0, maximum=3000.0,
                                                  length=(1, 10))
    plate_offsets_m: tuple[float, ...] = tuning("each plate's sideways offset (+ right), so "
                                                "no plate hides another", minimum=-500.0,
                                                maximum=500.0, length=(1, 10))
    plate_thickness_mm: tuple[float, ...] = tuning("each plate's armour", minimum=1.0,
                                                   maximum=1000.0, length=(1, 10))
    plate_slope_deg: tuple[float, ...] = tuning("how far each plate leans back from upright "
                                                "(a level shot meets it this far from its "
                                                "normal)", minimum=0.0, maximum=85.0,
                                                length=(1, 10))
    plate_half_size_m: tuple[float, ...] = tuning("half width, half height", minimum=0.1,
                                                  maximum=20.0, length=(2, 2))
    plate_clearance_m: float = tuning("gap under each plate", minimum=0.0, maximum=10.0)
    spawn_from_edge_m: float = tuning("the spawn's distance from the map's near edge",
                                      minimum=10.0, maximum=1000.0)

    def __post_init__(self) -> None:
        super().__post_init__()
        plates = len(self.plate_distances_m)
        for key in ("plate_offsets_m", "plate_thickness_mm", "plate_slope_deg"):
            if len(getattr(self, key)) != plates:
                raise SpecError(key, getattr(self, key), f"one per plate distance ({plates})")


@dataclass(frozen=True, eq=False)  # owners in the handle map: hashed by identity
class Plate:
    """A static steel target."""

    name: str
    position_ws: np.ndarray
    half_extents_m: tuple[float, ...]
    """Half width, half thickness (its armour's), half height."""
    heading_deg: float = 0.0
    slope_deg: float = 0.0
    """How far it leans back from upright (its top away from whoever faces it)."""
    thickness_mm: float = 0.0


def build_plates(world: PhysicsWorld, spec: RangeSpec, spawn_xy, ground_m: float) -> list[Plate]:
    """Plates straight ahead (+Y) of the spawn, facing it, registered in the handle map."""
    plates = []
    half_width, half_height = spec.plate_half_size_m
    for distance, offset, thickness_mm, slope_deg in zip(
            spec.plate_distances_m, spec.plate_offsets_m, spec.plate_thickness_mm,
            spec.plate_slope_deg):
        half = (half_width, thickness_mm / MM_PER_M / 2.0, half_height)
        centre = np.array([spawn_xy[0] + offset, spawn_xy[1] + distance,
                           ground_m + spec.plate_clearance_m + half_height])
        plate = Plate(f"plate-{distance:g}m", centre, half, slope_deg=slope_deg,
                      thickness_mm=thickness_mm)
        world.add_body(make_plate_body(plate.name, centre, half, slope_deg), owner=plate)
        plates.append(plate)
    return plates


def target_name(target) -> str:
    """What a hit struck, in words for the event log."""
    name = getattr(target, "name", None)
    if name is not None:
        return name
    return type(target).__name__.lower() if target is not None else "nothing"


def distance_to_box(point_ws: np.ndarray, centre_ws: np.ndarray, axes_ws: np.ndarray,
                    half_extents_m) -> float:
    """Distance from a point to an oriented box (0 inside). ``axes_ws`` rows: box axes."""
    local = axes_ws @ (np.asarray(point_ws) - centre_ws)
    outside = np.maximum(np.abs(local) - np.asarray(half_extents_m), 0.0)
    return float(np.linalg.norm(outside))


def splash_damage(shell: ShellSpec, distance_m: float) -> float:
    """Blast damage at a distance: full at the centre, nothing at the radius."""
    return shell.splash_damage * max(0.0, 1.0 - distance_m / shell.splash_radius_m)


def hit_event(hit: ShellHit, shooter_name: str, shell_name: str,
              struck: ArmourHit | None) -> Hit:
    armour = (() if struck is None else
              (struck.plate, struck.strike.thickness_mm, round(struck.strike.angle_deg, 2),
               round(struck.strike.effective_mm, 2), round(struck.strike.penetration_mm, 2),
               struck.strike.result))
    return Hit(shooter_name, target_name(hit.target),
               tuple(round(float(v), 3) for v in hit.position_ws),
               tuple(round(float(v), 4) for v in hit.normal_ws),
               round(float(np.linalg.norm(hit.velocity_ws)), 2), shell_name, *armour)


class Combat:
    """The guns of every vehicle and the shells they fire, inside one physics world: shots,
    shells flown and retired, hits turned into damage and wrecks."""

    def __init__(self, world: PhysicsWorld, terrain: TerrainBase, seed: int, gravity_m_s2: float,
                 shells: ShellsConfig, damage: DamageSpec, crater_spec: CraterSpec | None = None):
        """``shells``: what the guns fire (config/shells.toml); ``damage``: what a shell
        inside a tank breaks; ``crater_spec``: how shells that hit sand dig into it (None:
        they do not)."""
        self.world = world
        self.parts = PartDamage(world, damage, seed, gravity_m_s2)
        """Tanks' parts: struck, burning, mended; turrets thrown."""
        self.terrain = terrain
        self.crater_spec = crater_spec
        self.gravity_m_s2 = gravity_m_s2
        self.shells_config = shells
        self._shell_names = {id(spec): name for name, spec in shells.shells.items()}
        self.shell_system: ShellSystem[Vehicle] = ShellSystem(world, shells.air)
        self.rng = np.random.default_rng([seed, SHOT_STREAM])
        self._next_held: set[str] = set()
        """The vehicles whose gunner holds the next-shell button (it counts as it goes
        down)."""

    @property
    def shells(self) -> list[Shell[Vehicle]]:
        """Shells in flight (each with ``position_ws`` and ``velocity_ws``)."""
        return self.shell_system.shells

    def aim_and_fire(self, vehicle: Vehicle, controls: Controls, time_s: float,
                     step_s: float) -> list[Event]:
        """Turn an armed vehicle's turret and gun by its controls; fire if asked and loaded
        (an unarmed one has nothing to aim)."""
        aim = vehicle.aim
        if aim is None:
            return []
        gun = vehicle.spec.gun
        able = vehicle.parts.effects if vehicle.parts is not None else WHOLE_TANK
        turret = controls.turret * able.traverse
        aim_gun(aim, gun, turret, controls.elevation * able.laying, step_s)
        state = vehicle.current
        widen_or_close(aim, gun.aiming, math.hypot(*state.velocity_ws.tolist()),
                       math.hypot(*state.angular_velocity_ws.tolist()),
                       (turret if turret > 0.0 else -turret) * gun.traverse_rate_rad_s, step_s,
                       able.spread_factor, able.aim_time_factor)
        ammunition = aim.ammunition
        if ((controls.shell is not None and controls.shell != ammunition.selected)
                or controls.next_shell or self._next_held):
            self._choose_shell(vehicle.name, ammunition, controls)
        if not (controls.fire and aim.reload_left_s == 0.0 and ammunition.can_fire
                and able.can_fire):
            return []
        shell = gun.ammunition[ammunition.loaded].shell
        self.shell_system.fire(vehicle, vehicle.body, vehicle.current, gun,
                               self.shells_config.shells[shell], aim, time_s, self.rng)
        vehicle.fleet.disturbed()  # the recoil pushed the body since the last step's end
        aim.reload_left_s *= able.reload_factor
        ammunition.fired()
        vehicle.fired_at_s = time_s
        return [Shot(vehicle.name, shell)]

    def _choose_shell(self, name: str, ammunition: AmmunitionState, controls: Controls
                      ) -> None:
        """A gunner's choice of shell for the next reload: the next slot on the step its
        button goes down (``name``'s button, held or not, is noted), then a slot named."""
        if controls.next_shell:
            if name not in self._next_held:
                self._next_held.add(name)
                ammunition.choose_next()
        else:
            self._next_held.discard(name)
        if controls.shell is not None:
            ammunition.choose(controls.shell)

    def resolve(self, vehicles: list[Vehicle], time_s: float) -> list[Event]:
        """Shells that struck something this step: hit events, damage, wrecks."""
        if not self.shell_system.shells:  # most steps: no contact manifold to look through
            return []
        lifetime = max((v.spec.gun.shell_lifetime_s for v in vehicles if v.aim), default=0.0)
        starts = [(shell, shell.last_position_ws) for shell in self.shell_system.followed()]
        hits, _ = self.shell_system.update(time_s, lifetime)
        hits += self.shell_system.under_ground(self.terrain, self.terrain)
        ends = {id(hit.shell): np.asarray(hit.position_ws, dtype=float) for hit in hits}
        events: list[Event] = self.parts.crossed(vehicles, [
            (shell, start, ends.get(id(shell), shell.last_position_ws))
            for shell, start in starts])
        for hit in hits:
            shooter, shell = hit.shell.owner, hit.shell.spec
            struck = None
            if isinstance(hit.target, Vehicle) and hit.target.health is not None:
                struck = armour_hit(hit.target, hit.position_ws, hit.velocity_ws, shell,
                                    self.shells_config.penetration)
            elif isinstance(hit.target, Plate):
                struck = plate_hit(hit.target.thickness_mm, hit.normal_ws, hit.velocity_ws,
                                   shell, self.shells_config.penetration)
            events.append(hit_event(hit, shooter.name, self._shell_names[id(shell)], struck))
            blasted = ([victim for victim in splash_owners(self.world, hit.position_ws,
                                                           shell.splash_radius_m)
                        if isinstance(victim, Vehicle)] if shell.kind == HE else [])
            for victim, amount in self._damage_of(hit, struck, blasted).items():
                events += self.damage(victim, amount, shooter)
                if (victim is hit.target and struck is not None and struck.point_bs is not None
                        and struck.direction_bs is not None):
                    events += self.parts.penetrated(victim, struck.point_bs,
                                                    struck.direction_bs, amount, shooter)
            for victim in blasted:  # the blast's splash on the tracks it reaches
                events += self.parts.blasted(victim, hit.position_ws,
                                             lambda distance_m: splash_damage(shell, distance_m),
                                             shooter)
            if struck is not None and struck.strike.result == RICOCHET:
                self._glance(hit, struck, time_s)
            events += self._crater(hit)
        return events

    def _glance(self, hit: ShellHit[Vehicle], struck: ArmourHit, time_s: float) -> None:
        """A ricochet: the shell flies on from the plate, mirrored in its face and slowed
        (clear of the plate by its own radius, so it does not strike it again)."""
        shell = hit.shell
        velocity = ricochet_velocity_ws(hit.velocity_ws, struck.normal_ws,
                                        self.shells_config.penetration.ricochet_speed_share)
        start = np.asarray(hit.position_ws, dtype=float) + struck.normal_ws * (
            2.0 * shell.radius_m)
        self.shell_system.launch(shell.owner, start, velocity, shell.owner.spec.gun,
                                 shell.spec, time_s, shell.firer_body)

    def _crater(self, hit: ShellHit[Vehicle]) -> list[Event]:
        """The crater a shell digs where it hit sand (none elsewhere: a hit on the
        terrain above its highest ground is on the wall round the map)."""
        x_m, y_m = float(hit.position_ws[0]), float(hit.position_ws[1])
        if (self.crater_spec is None or hit.target is not self.terrain
                or hit.position_ws[2] > self.terrain.max_height_m
                or self.terrain.surface_name_at(x_m, y_m) != "sand"):
            return []
        crater = crater_from_hit(self.crater_spec, hit.position_ws, hit.shell.spec.mass_kg,
                                 float(np.linalg.norm(hit.velocity_ws)))
        return [CraterDug(crater.x_m, crater.y_m, crater.radius_m, crater.depth_m)]

    def _damage_of(self, hit: ShellHit[Vehicle], struck: ArmourHit | None,
                   blasted: list[Vehicle]) -> dict[Vehicle, float]:
        """What a hit does to each vehicle: to the one struck, the shell's damage if it got
        through its armour (by how much armour it had to spare); a high-explosive shell's
        splash to every one its blast reaches (``blasted``, by its distance)."""
        shell = hit.shell.spec
        damage: dict[Vehicle, float] = {}
        if struck is not None and isinstance(hit.target, Vehicle):
            damage[hit.target] = shell.damage * struck.strike.damage_share(
                self.shells_config.penetration)
        for victim in blasted:
            if victim.health is not None:
                distance = vehicle_distance(victim, hit.position_ws)
                damage[victim] = damage.get(victim, 0.0) + splash_damage(shell, distance)
        return damage

    @staticmethod
    def damage(victim: Vehicle, amount: float, shooter: Vehicle, cause: str | None = None
               ) -> list[Event]:
        """Take ``amount`` off a tank's health; at zero it is destroyed and becomes a wreck
        (a vehicle without health, a car, takes no damage). ``cause``: what did it besides
        a shell's damage (a fire)."""
        if victim.destroyed or victim.health is None or amount <= 0.0:
            return []
        victim.health = max(0.0, victim.health - float(amount))
        events: list[Event] = [Damage(victim.name, shooter.name, round(float(amount), 3),
                                      round(victim.health, 3))]
        if victim.health == 0.0:
            victim.destroyed = True
            events.append(Destroyed(victim.name, shooter.name, cause))
        return events

    def crews_work(self, vehicles: list[Vehicle]) -> list[Event]:
        """A step of the crews' repairs and of fires burning."""
        return self.parts.update(vehicles, self.world.step_s,
                                 lambda victim, amount, by: self.damage(victim, amount, by,
                                                                        FIRE_CAUSE))

    def predicted_impact(self, vehicle: PlayerVehicle, max_time_s: float | None = None,
                         make_tiles: bool = True,
                         before_rays: Callable[[np.ndarray], object] | None = None
                         ) -> np.ndarray | None:
        """Where a shell the vehicle fired now would land (for the crosshair and the bots'
        fire check), looking at most ``max_time_s`` of flight ahead (default: the shell's
        whole life); a view asks with ``make_tiles`` False (a big desert's far ground is
        then read from its field, and no physics tile is made). ``before_rays``: see
        :func:`physics.bullet.shells.predicted_impact`."""
        if vehicle.aim is None:
            return None
        shell, muzzle, velocity = self.launch(vehicle, vehicle.aim)
        return predicted_impact(self.world, self.terrain, muzzle, velocity,
                                self.flight_of(shell), vehicle.body,
                                max_time_s or vehicle.spec.gun.shell_lifetime_s,
                                shell.radius_m, make_tiles, before_rays)

    def launch(self, vehicle: PlayerVehicle, aim: GunState
               ) -> tuple[ShellSpec, np.ndarray, np.ndarray]:
        """What an armed vehicle (its gun laid as ``aim``) would fire now: its loaded shell,
        the muzzle it would leave and its velocity leaving it (the gun's axis, undispersed)."""
        shell = self.loaded_shell(vehicle)
        muzzle, barrel = gun_axes(vehicle.current, vehicle.spec.gun, aim)
        return shell, muzzle, launch_velocity_ws(vehicle.current, muzzle, barrel,
                                                 shell.muzzle_velocity_mps)

    def loaded_shell(self, vehicle: DrawnVehicle) -> ShellSpec:
        """The shell in an armed vehicle's breech (or being loaded into it): the loaded
        slot of its gun's ammunition; with none loaded (no round left, or another
        player's gun online, known only by its pose) the selected slot's."""
        ammunition = vehicle.spec.gun.ammunition
        slot = 0
        if vehicle.aim is not None:
            state = vehicle.aim.ammunition
            slot = state.loaded if state.loaded is not None else state.selected
        return self.shells_config.shells[ammunition[slot if slot < len(ammunition) else 0].shell]

    def flight_of(self, shell: ShellSpec) -> Flight:
        """How a ``shell`` flies here (drag and all): what the crosshair and the bots fly."""
        return self.shell_system.flight_of(shell)

    def clear(self) -> None:
        """Every shell in flight and every thrown turret gone (a round restarts)."""
        self.shell_system.destroy()
        self.parts.clear()

    def destroy(self) -> None:
        self.shell_system.destroy()
        self.parts.destroy()


def vehicle_distance(vehicle: Vehicle, point_ws) -> float:
    """From a point to the nearest face of a vehicle's hull box (0 inside)."""
    return distance_to_box(point_ws, hull_middle_ws(vehicle), vehicle.current.axes_ws(),
                           vehicle.spec.hull.half_extents_m)
