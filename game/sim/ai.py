"""Enemy tanks: bots that see the simulation's state and answer with the same Controls a
player makes, so they go through the same drive, gearbox, turret and gun as anyone.

A bot looks round ``think_hz`` times a second (bots take turns, so a side's thinking is
spread over the steps): it notes what to keep clear of, chooses where to point the gun
(its level's point of the target's hull, where it will be when a shell gets there; the
elevation from the ballistic arc; off by its misjudgement) and the shell its next reload
loads (:mod:`game.sim.gunnery`). It fires only at a target it sees (in range, no ground
between its gun and the hull: :mod:`game.sim.spotting`) and has seen for its reaction
time, when a shot fired now would pass within its margin of the hull where it judges it
will be, with nothing in the way, and its gun's aiming circle has closed as far as its
level waits for. Its aim errs, more far off and on the move, less the longer it holds the
target in sight. Every step it steers toward a point that keeps it at fighting distance
(closing in from afar, circling inside the band the way it faces, backing off when too
close, in reverse if it faces the target), pushed away from what it saw nearby (other
vehicles from where the two come closest a moment on, so two closing turn aside early;
beside another tank it drives out of the other's turning circle before it turns on the
spot: :mod:`game.sim.avoidance`), braking where its gear drives the other way, and turns
the turret and gun toward the direction it chose, against the hull's turning and
pitching. A level that halts to fire stands still, with the target in sight, for its
shot. A bot that has not seen its target for a while goes looking for it
(:mod:`game.sim.search`), and one that is stuck backs off and tries again
(:mod:`game.sim.stuck`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from common.spec import Spec, SpecError, tuning
from game.sim.avoidance import Surroundings
from game.sim.combat import distance_to_box
from game.sim.controls import AUTOMATIC, Controls, made_controls
from game.sim.crippled import STAND, crippled_drive
from game.sim.difficulty import DIFFICULTIES, DifficultySpec
from game.sim.gunnery import Gunnery, GunnerySpec, aim_error_rad, gun_sticks
from game.sim.gunnery import direction as _direction
from game.sim.search import Search, SearchGoal, SearchSpec
from game.sim.spotting import SpottingSpec, hull_middle_ws, spotted
from game.sim.stuck import StuckSpec, Unsticker, brakes_to_turn_back
from physics.model.ballistics import gun_axes, muzzle_ws
from physics.model.ammunition import ShellSpec
from physics.model.flight import Flight, elevation_to_reach, flight_to_distance
from physics.model.parts import WHOLE_TANK
from physics.model.scalars import float_dot

_TINY = np.finfo(float).tiny
_STAND = Controls(brake=1.0, gear=AUTOMATIC)
"""A bot's controls with no one to fight."""


@dataclass(frozen=True)
class AISpec(Spec):
    difficulty: str = tuning("how good the bots are", choices=DIFFICULTIES)
    easy: DifficultySpec = tuning("easy bots")
    normal: DifficultySpec = tuning("normal bots")
    hard: DifficultySpec = tuning("hard bots")
    near_distance_m: float = tuning("closer than this a bot backs away", minimum=5.0,
                                    maximum=2000.0)
    far_distance_m: float = tuning("further than this a bot closes in", minimum=10.0,
                                   maximum=3000.0)
    avoid_ahead_s: float = tuning("other vehicles push a bot away from where they will come "
                                  "closest to it within this long, both moving as they "
                                  "move now (0: from where they are)", minimum=0.0,
                                  maximum=10.0)
    avoid_radius_m: float = tuning("vehicles, wrecks and rocks closer than this push a bot "
                                   "aside", minimum=1.0, maximum=200.0)
    avoid_spare_m: float = tuning("room a bot leaves between its hull's side and a rock in "
                                  "its way as it turns aside", minimum=0.0, maximum=20.0)
    steer_per_rad: float = tuning("stick per radian of heading error", minimum=0.1,
                                  maximum=50.0)
    turret_per_rad: float = tuning("traverse stick per radian of aim error", minimum=0.1,
                                   maximum=500.0)
    elevation_per_rad: float = tuning("elevation stick per radian of aim error", minimum=0.1,
                                      maximum=500.0)
    full_throttle_within_deg: float = tuning("drives at full throttle when the heading error "
                                             "is below this; slower otherwise",
                                             minimum=1.0, maximum=180.0)
    turning_throttle: float = tuning("throttle while turning toward a heading", minimum=0.0,
                                     maximum=1.0)
    jammed_lay_within_deg: float = tuning(
        "with its turret jammed a bot lays the gun with the hull: it pivots at full stick "
        "(less stalls on the tracks' grip) until the gun bears within this of the way it "
        "wants", minimum=0.01, maximum=10.0)
    halt_before_loaded_s: float = tuning("a bot that halts to fire stops this long before its "
                                         "gun is loaded ...", minimum=0.0, maximum=60.0)
    halt_most_s: float = tuning("... and moves on if it has not fired this long after its gun "
                                "was loaded (one that sees its target only once loaded "
                                "halts as long in all)",
                                minimum=0.0, maximum=60.0)
    think_hz: float = tuning("how often a bot looks round for what to avoid and checks "
                             "whether a shot would hit; between, it steers and aims on what "
                             "it saw last", minimum=1.0, maximum=1000.0)
    spotting: SpottingSpec = tuning("who can see whom (the bots fire only at what they see)")
    search: SearchSpec = tuning("how a bot looks for a target it has lost sight of")
    stuck: StuckSpec = tuning("how a bot gets off what holds it")
    gunnery: GunnerySpec = tuning("where on a target the bots aim and which shell they load")

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.far_distance_m <= self.near_distance_m:
            raise SpecError("far_distance_m", self.far_distance_m,
                            f"more than near_distance_m ({self.near_distance_m})")

    @cached_property
    def level(self) -> DifficultySpec:
        return getattr(self, self.difficulty)

    @cached_property
    def full_throttle_within_rad(self) -> float:
        return math.radians(self.full_throttle_within_deg)

    @cached_property
    def jammed_lay_within_rad(self) -> float:
        return math.radians(self.jammed_lay_within_deg)


class Bot:
    """One enemy tank's driver and gunner."""

    def __init__(self, spec: AISpec, rng: np.random.Generator, phase: int = 0):
        """``phase``: bots numbered in turn think on different steps, so the thinking of
        a whole side is spread over the steps rather than all on one."""
        self.spec = spec
        self.rng = rng
        self._phase = phase
        self._steps_between: int | None = None
        """Fixed steps from one look round to the next."""
        self._push = (0.0, 0.0)
        """The push away from obstacles, from the last look round."""
        self._aim_unit = np.zeros(2)
        """This reload's misjudgement, in standard deviations (scaled by the moment's error)."""
        self._offset_age_s = math.inf
        self._seen_since_s: float | None = None
        """Since when the target has been in sight (None: it is not)."""
        self._last_seen_s: float | None = None
        """When it last had the target in sight (at first, when it started)."""
        self._looked = False
        self._wanted_ws: tuple[float, float, float] | None = None
        """The gun's direction chosen at the last look (None: the target is out of range)."""
        self._surroundings = Surroundings(spec.avoid_radius_m, spec.avoid_ahead_s,
                                          spec.avoid_spare_m)
        self._way_out = 0.0
        """From the last look round: the way along its hull out of another vehicle's turning
        circle (+1 ahead, -1 back; 0: none is that near)."""
        self._pivoting = False
        """This step it turns on the spot (its heading is far off the way it wants)."""
        self._search = Search(spec.search, spec.spotting, spec.near_distance_m,
                              spec.far_distance_m, spec.avoid_radius_m)
        self._unsticker = Unsticker(spec.stuck)
        self._gunnery: Gunnery | None = None
        """Where it aims on its target and which shell it loads next (made at its first
        look: the shells are the simulation's)."""
        self._flight: tuple[ShellSpec, Flight] | None = None
        """The shell last loaded and how it flies."""
        self._loaded_since_s: float | None = None
        """Since when its gun has been loaded (None: it is loading)."""
        self._halted_since_s: float | None = None
        """Since when it has halted (or moved on) for its next shot (None: it need not)."""
        self._standing = False
        """It has arrived where it was going (a vantage point, the zone) and brakes there."""
        self._circling: float | None = None
        """Which way round the target this bot circles: +1 with the target on its left, -1
        on its right; chosen as it starts circling (the way it already faces) and kept, so
        it does not dither; None while it does something else."""

    def controls(self, simulation, me, target, objective: SearchGoal | None = None
                 ) -> Controls:
        """This step's controls for ``me``, fighting ``target``; with an ``objective`` (a
        capture zone to hold) it drives there first, and there it stands and fights."""
        if target is None or target.destroyed:
            return _STAND
        if self._steps_between is None:  # the step never changes in a simulation
            self._steps_between = max(1, round(1.0 / (self.spec.think_hz * simulation.step_s)))
        world = simulation.world
        thinking = (world.step_count + self._phase) % self._steps_between == 0
        now_s = world.time_s  # one look-up: the step's time holds while it decides
        if self._last_seen_s is None:
            self._last_seen_s = now_s
        state = me.current
        here_x, here_y, _ = state.position_ws.tolist()
        rows = state.axes_ws().tolist()  # right, forward, up: plain floats are cheaper here
        spin = state.angular_velocity_ws.tolist()
        if thinking:
            self._push, self._way_out = self._surroundings.look(simulation, me, here_x,
                                                                here_y)
        turret, elevation, fire = self._gun(simulation, me, target, thinking, rows, spin)
        parts = me.parts  # a whole tank's parts leave its driving to it
        held = None if parts is None or parts.effects is WHOLE_TANK else crippled_drive(
            parts.effects, rows[1], me.turret_heading_rad, self._wanted_ws,
            self.spec.jammed_lay_within_rad)
        if held is not None or self._halting(now_s, me):
            throttle, steer, brake = held or STAND
            return made_controls(throttle=throttle, steer=steer, brake=brake, gear=AUTOMATIC,
                                 turret=turret, elevation=elevation, fire=fire,
                                 shell=self._shell())
        searching = now_s - self._last_seen_s >= self.spec.search.after_s
        goal = objective
        if goal is None and searching:
            goal = self._search.goal(simulation, me, target)
        self._standing = self._pivoting = False
        throttle, steer = self._drive(here_x, here_y, rows[1], target, goal)
        if self._pivoting and self._way_out:  # first out of the other's turning circle
            throttle, steer = self._way_out, 0.0
        speed_mps = float_dot(state.velocity_ws.tolist(), rows[1])
        throttle, steer = self._unsticker.drive(now_s, speed_mps, float_dot(spin, rows[2]),
                                                throttle, steer)
        braking = self._standing or brakes_to_turn_back(throttle, speed_mps, me)
        return made_controls(throttle=throttle, steer=steer, brake=1.0 if braking else 0.0,
                             gear=AUTOMATIC, turret=turret, elevation=elevation, fire=fire,
                             shell=self._shell())

    def _loaded(self, combat, me) -> tuple[ShellSpec, Flight]:
        """The shell in its gun's breech and how it flies (worked out again only when
        another shell is loaded)."""
        shell = combat.loaded_shell(me)
        known = self._flight
        if known is None or known[0] is not shell:
            known = self._flight = (shell, combat.flight_of(shell))
        return known

    def _shell(self) -> int | None:
        """The ammunition slot it has chosen for the next reload (None: none yet)."""
        return self._gunnery.slot if self._gunnery is not None else None

    def _halting(self, time_s: float, me) -> bool:
        """Whether it stands to fire: its level halts to fire, the target is in sight, the
        gun is nearly loaded and it has not stood too long for its shot: ``halt_most_s``
        from when its gun was loaded or, where it saw the target only later, from
        ``halt_before_loaded_s`` after it halted (a halt stands as long either way). Once it
        has moved on it halts again only after its next shot or a new sighting."""
        spec = self.spec
        reload_left_s = me.aim.reload_left_s
        if reload_left_s > 0.0:
            self._loaded_since_s = None
        elif self._loaded_since_s is None:
            self._loaded_since_s = time_s
        if not (spec.level.halts_to_fire and self._seen_since_s is not None
                and reload_left_s <= spec.halt_before_loaded_s):
            self._halted_since_s = None
            return False
        if self._halted_since_s is None:
            self._halted_since_s = time_s
        waited_from_s = self._halted_since_s + spec.halt_before_loaded_s
        if self._loaded_since_s is not None and self._loaded_since_s > waited_from_s:
            waited_from_s = self._loaded_since_s
        return time_s - waited_from_s < spec.halt_most_s

    def _drive(self, here_x: float, here_y: float, forward, target,
               goal: SearchGoal | None) -> tuple[float, float]:
        """Throttle and steer from ``here`` with the hull's ``forward``: toward the target
        from afar, away from it when too close, round it in between; or, searching, toward
        ``goal``; pushed aside by what is near."""
        spec = self.spec
        target_x, target_y, _ = target.current.position_ws.tolist()
        to_x, to_y = target_x - here_x, target_y - here_y
        distance = math.hypot(to_x, to_y)
        scale = 1.0 / (_TINY if _TINY > distance else distance)  # max(distance, tiny), NaN kept
        toward_x, toward_y = to_x * scale, to_y * scale
        if goal is not None:
            point_x, point_y = goal.point_xy.tolist()
            goal_x, goal_y = point_x - here_x, point_y - here_y
            arrived = math.hypot(goal_x, goal_y) < goal.stop_within_m
            if arrived and goal.vantage:  # there: stop, and watch for the target
                self._circling = None
                self._standing = True
                return 0.0, 0.0
            if not arrived:
                self._circling = None
                return self._steer_toward(forward, goal_x, goal_y)
        elif distance > spec.far_distance_m:
            self._circling = None
            return self._steer_toward(forward, toward_x, toward_y)
        elif distance < spec.near_distance_m:
            self._circling = None
            return self._back_away(forward, toward_x, toward_y)
        if self._circling is None:  # round the target the way it faces
            self._circling = 1.0 if forward[0] * toward_y - forward[1] * toward_x >= 0.0 else -1.0
        return self._steer_toward(forward, self._circling * toward_y, -self._circling * toward_x)

    def _back_away(self, forward, toward_x: float, toward_y: float) -> tuple[float, float]:
        """Away from the target: driving off if the hull already faces away from it, else
        in reverse with the hull's front (and the turret's easy arc) toward it."""
        if forward[0] * toward_x + forward[1] * toward_y < 0.0:
            return self._steer_toward(forward, -toward_x, -toward_y)
        throttle, steer = self._steer_toward(forward, toward_x, toward_y)
        return -throttle, steer

    def _steer_toward(self, forward, wanted_x: float, wanted_y: float) -> tuple[float, float]:
        """Throttle and steer from the hull's ``forward`` toward a direction (any length),
        pushed aside by what is near."""
        spec = self.spec
        length = math.hypot(wanted_x, wanted_y)
        scale = 1.0 / (_TINY if _TINY > length else length)  # max(length, tiny), NaN kept
        push_x, push_y = self._push
        # The signed angle on the ground from the hull's forward to the wanted way (+ to
        # the right), and the stick clamped as min(1, max(-1, x)): written out, since every
        # bot steers every step.
        wanted_x, wanted_y = wanted_x * scale + push_x, wanted_y * scale + push_y
        forward_x, forward_y = forward[0], forward[1]
        error = math.atan2(forward_y * wanted_x - forward_x * wanted_y,
                           forward_x * wanted_x + forward_y * wanted_y)
        steer = error * spec.steer_per_rad
        steer = 1.0 if steer > 1.0 else (steer if steer > -1.0 else -1.0)
        aligned = abs(error) < spec.full_throttle_within_rad
        self._pivoting = not aligned
        return (1.0 if aligned else spec.turning_throttle), steer

    def _gun(self, simulation, me, target, thinking: bool, rows, spin
             ) -> tuple[float, float, bool]:
        """Turret and gun sticks toward the direction chosen at the last look (every step,
        as the hull turns under them, whose axes are ``rows`` and angular velocity
        ``spin``), and whether to fire (only on a look)."""
        spec = self.spec
        self._offset_age_s += simulation.step_s
        fire = False
        if thinking or not self._looked:
            fire = self._look(simulation, me, target)
        if self._wanted_ws is None:  # out of range
            return 0.0, 0.0, False
        if fire:  # the gun turns before the shell leaves: hold it where the check found it
            return 0.0, 0.0, True
        aim, gun = me.aim, me.spec.gun
        turret, elevation = gun_sticks(
            self._wanted_ws, rows, spin, aim.turret_heading_rad, aim.elevation_rad,
            spec.turret_per_rad, spec.elevation_per_rad, gun.traverse_rate_rad_s,
            gun.elevation_rate_rad_s)
        return turret, elevation, fire

    def _sight(self, simulation, me, target, eye_ws, middle_ws) -> float | None:
        """How long the target has been in sight, from the gun (None: it is not now), its
        hull's middle being ``middle_ws``."""
        now_s = simulation.time_s
        if not spotted(self.spec.spotting, simulation.terrain, eye_ws, target, now_s,
                       simulation.world, me, middle_ws, simulation.sight_screens):
            self._seen_since_s = None
            return None
        if self._seen_since_s is None:
            self._seen_since_s = now_s
        self._last_seen_s = now_s
        self._search.forget()
        return now_s - self._seen_since_s

    def _look(self, simulation, me, target) -> bool:
        """Choose where to point the gun (leading the target, with this reload's
        misjudgement); return whether a shot fired now would land where the bot judges the
        target to be."""
        level = self.spec.level
        self._looked = True
        combat = simulation.combat
        gun, (shell, flight) = me.spec.gun, self._loaded(combat, me)
        muzzle = muzzle_ws(me.current, gun, me.aim)
        muzzle_x, muzzle_y, muzzle_z = muzzle.tolist()
        middle = hull_middle_ws(target)
        gunnery = self._gunnery
        if gunnery is None:
            gunnery = self._gunnery = Gunnery(self.spec.gunnery,
                                              combat.shells_config.penetration)
        aim_x, aim_y, aim_z = gunnery.aim(level, simulation, me, target,
                                          (muzzle_x, muzzle_y, muzzle_z), middle,
                                          self.spec.spotting, me.aim.reload_left_s == 0.0
                                          and self._seen_since_s is not None)
        distance = math.hypot(aim_x - muzzle_x, aim_y - muzzle_y, aim_z - muzzle_z)
        if level.leads_target:  # where it will be when the shell, slowing, gets there
            velocity_x, velocity_y, velocity_z = target.current.velocity_ws.tolist()
            flight_s = flight.time_to_m(distance, shell.muzzle_velocity_mps)
            aim_x += velocity_x * flight_s
            aim_y += velocity_y * flight_s
            aim_z += velocity_z * flight_s
        offset_x, offset_y, offset_z = aim_x - muzzle_x, aim_y - muzzle_y, aim_z - muzzle_z
        elevation_ws = elevation_to_reach(
            math.hypot(offset_x, offset_y), offset_z, shell.muzzle_velocity_mps, flight,
            gun.shell_lifetime_s)
        if elevation_ws is None:
            self._wanted_ws = None
            return False
        heading_ws = math.atan2(offset_x, offset_y)
        held_s = self._sight(simulation, me, target, muzzle, middle)
        if self._offset_age_s >= gun.reload_s:  # a fresh misjudgement every reload time
            self._aim_unit = self.rng.normal(0.0, 1.0, 2)
            self._offset_age_s = 0.0
        error_rad = aim_error_rad(level, distance, me, target, held_s)
        unit_heading, unit_elevation = self._aim_unit.tolist()
        self._wanted_ws = _direction(heading_ws + unit_heading * error_rad,
                                     elevation_ws + unit_elevation * error_rad)
        if me.aim.reload_left_s > 0.0 or held_s is None or held_s < level.reaction_s:
            return False  # loading, not seen, or seen too lately to have reacted
        if level.fires_within_circle and (me.aim.aim_circle_rad > level.fires_within_circle
                                          * gun.aiming.aimed_rad):
            return False  # its aim has not settled yet
        exact_ws = _direction(heading_ws, elevation_ws)
        misjudged_ws = np.subtract(self._wanted_ws, exact_ws) * distance
        return self._lands_as_judged(simulation, me, target, misjudged_ws)

    def _lands_as_judged(self, simulation, me, target, misjudged_ws: np.ndarray) -> bool:
        """Whether a shot fired now would pass within the level's margin of the target's
        hull where the bot judges it to be (``misjudged_ws`` off where it is; where it will
        be, for a level that leads), with nothing in its way before it gets there."""
        level = self.spec.level
        gun, (shell, flight) = me.spec.gun, self._loaded(simulation.combat, me)
        muzzle, barrel = gun_axes(me.current, gun, me.aim)
        shell_mps = me.current.velocity_ws + barrel * shell.muzzle_velocity_mps
        middle = hull_middle_ws(target)
        judged = middle + misjudged_ws
        if level.leads_target:  # the shot is judged where the target will be, near or far
            judged = judged + target.current.velocity_ws * flight.time_to_m(
                math.hypot(*(judged - muzzle)), shell.muzzle_velocity_mps)
        there = flight_to_distance(muzzle, shell_mps, flight,
                                   math.dist(muzzle[:2].tolist(), judged[:2].tolist()),
                                   gun.shell_lifetime_s)
        if there is None:
            return False
        flight_s, passing, _ = there
        half_extents = target.spec.hull.half_extents_m
        if distance_to_box(passing, judged, target.current.axes_ws(), half_extents) \
                > level.fire_margin_m:
            return False
        impact = simulation.predicted_impact(me, flight_s + simulation.step_s)
        reach_m = math.hypot(*half_extents) + level.fire_margin_m
        return impact is None or (math.hypot(*(impact - muzzle))
                                  >= math.hypot(*(middle - muzzle)) - reach_m)
