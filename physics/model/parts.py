"""A tank's parts: the tracks, engine, turret ring, gun, ammo rack and crew inside its armour,
what strikes them, and what their damage does.

Each part is a box (``[[parts.part]]`` in config/tanks/NAME.toml) in its mount's frame: a
hull part in the body frame (origin at the centre of mass, +X right, +Y forward, +Z up), a
turret part in the turret's (origin at the turret ring centre, +Y along the gun), turning
with the turret as the turret plates do (:mod:`physics.model.armour`). A part has hit points
and is whole (all of them), damaged (some lost) or destroyed (none left); a destroyed part
is mended to damaged after its ``repair_s``.

A shell that gets through the armour goes on along its line inside (``path_length_m``) and
throws spall in a cone about that line (:class:`DamageSpec`): every part either crosses
takes its share of the shell's damage. The tracks lie outside the armour, below the hull's
sides: a shell's line that crosses one strikes it, whatever the plates did.

What damage does (:func:`part_effects`) is read by the drive, the gun and the crew's eyes:
a destroyed track's anchors neither drive nor brake, a damaged engine gives a share of its
torque, a damaged turret ring turns slower and a destroyed one is jammed, a damaged gun
loads slower and spreads wider and a destroyed one cannot fire, a hurt or lost crewman
does his work slower. Knows nothing of Panda or Bullet.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

import numpy as np

from common.spec import Spec, SpecError, tuning
from physics.model.armour import PARTS as MOUNTS
from physics.model.armour import turret_turn

LEFT_TRACK, RIGHT_TRACK = "left_track", "right_track"
ENGINE, TURRET_RING, GUN, AMMO_RACK = "engine", "turret_ring", "gun", "ammo_rack"
DRIVER, GUNNER, LOADER, COMMANDER = "driver", "gunner", "loader", "commander"
PART_NAMES = (LEFT_TRACK, RIGHT_TRACK, ENGINE, TURRET_RING, GUN, AMMO_RACK, DRIVER, GUNNER,
              LOADER, COMMANDER)
"""Every tank has each of these once, in this order (events, telemetry and the HUD name
them so)."""
CREW = (DRIVER, GUNNER, LOADER, COMMANDER)
OUTSIDE = (LEFT_TRACK, RIGHT_TRACK)
"""Parts outside the armour: any shell whose line crosses one strikes it."""
WHOLE, DAMAGED, DESTROYED = "whole", "damaged", "destroyed"
STATES = (WHOLE, DAMAGED, DESTROYED)
_PARALLEL = 1e-12
"""A line whose direction along an axis is smaller than this runs parallel to the box's
faces across that axis."""


@dataclass(frozen=True)
class PartSpec(Spec):
    """One part: where it sits, how much it takes, how long it takes to mend."""

    name: str = tuning("which part (each once)", choices=PART_NAMES)
    mounted_in: str = tuning("the frame its box is given in: the hull's body frame or the "
                             "turret's (it turns with the turret)", choices=MOUNTS)
    centre_m: tuple[float, ...] = tuning("the box's centre [x, y, z] in its frame",
                                         minimum=-20.0, maximum=20.0, length=(3, 3))
    half_extents_m: tuple[float, ...] = tuning("the box's half sizes [x, y, z]", minimum=0.01,
                                               maximum=20.0, length=(3, 3))
    hit_points: float = tuning("damage it takes to destroy", minimum=1.0, maximum=10000.0)
    repair_s: float = tuning("a destroyed part is mended to damaged after this", minimum=0.0,
                             maximum=600.0)


@dataclass(frozen=True)
class PartsLayout(Spec):
    """A tank's parts (config/tanks/NAME.toml ``[parts]``)."""

    turret_mass_kg: float = tuning("the turret's mass: what an ammo rack's blast throws",
                                   minimum=10.0, maximum=100000.0)
    part: tuple[PartSpec, ...] = tuning("the parts, each of " + ", ".join(PART_NAMES) + " once",
                                        length=(len(PART_NAMES), len(PART_NAMES)))

    def __post_init__(self) -> None:
        super().__post_init__()
        seen: dict[str, int] = {}
        for index, part in enumerate(self.part):
            if part.name in seen:
                raise SpecError(f"part[{index}].name", part.name,
                                f"a part of its own (part[{seen[part.name]}] is it)")
            seen[part.name] = index

    @cached_property
    def ordered(self) -> tuple[PartSpec, ...]:
        """The parts in :data:`PART_NAMES`' order."""
        by_name = {part.name: part for part in self.part}
        return tuple(by_name[name] for name in PART_NAMES)

    @cached_property
    def boxes(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Centres (P, 3), half extents (P, 3) and whether each is in the turret (P,), in
        :data:`PART_NAMES`' order. Read-only."""
        parts = self.ordered
        arrays = (np.array([part.centre_m for part in parts], dtype=float),
                  np.array([part.half_extents_m for part in parts], dtype=float),
                  np.array([part.mounted_in == "turret" for part in parts]))
        for array in arrays:
            array.setflags(write=False)
        return arrays


@dataclass(frozen=True)
class DamageSpec(Spec):
    """How a shell inside strikes the parts, and what a damaged part does
    (config/game.toml ``[damage]``: the same for every tank)."""

    path_length_m: float = tuning("a shell that gets through goes on this far inside",
                                  minimum=0.1, maximum=20.0)
    spall_rays: int = tuning("spall: lines thrown from where it got through, round its own",
                             minimum=0, maximum=64)
    spall_cone_deg: float = tuning("the spall cone's half angle about the shell's line",
                                   minimum=0.0, maximum=80.0)
    spall_length_m: float = tuning("how far spall flies inside", minimum=0.0, maximum=20.0)
    spall_damage_share: float = tuning("each spall line's damage, a share of the shell's",
                                       minimum=0.0, maximum=1.0)
    outside_damage_share: float = tuning("what a track struck by a shell takes, a share of "
                                         "the shell's damage", minimum=0.0, maximum=1.0)
    broken_track_drag_share: float = tuning("a broken track's bare road wheels plough: they "
                                            "drag toward standing still with this share of "
                                            "their load", minimum=0.0, maximum=2.0)
    repaired_share: float = tuning("a mended part's hit points, a share of its whole",
                                   minimum=0.01, maximum=1.0)
    damaged_engine_power_share: float = tuning("a damaged engine's torque, a share of its own",
                                               minimum=0.0, maximum=1.0)
    damaged_ring_traverse_share: float = tuning("a damaged turret ring's traverse rate, a share",
                                                minimum=0.0, maximum=1.0)
    damaged_gun_reload_factor: float = tuning("a damaged gun's reload, times its own",
                                              minimum=1.0, maximum=10.0)
    damaged_gun_spread_factor: float = tuning("a damaged gun's aiming circle, times its own",
                                              minimum=1.0, maximum=10.0)
    hurt_crew_work_share: float = tuning("a damaged crewman's pace (driving, laying, loading, "
                                         "looking), a share of a whole one's", minimum=0.05,
                                         maximum=1.0)
    lost_crew_work_share: float = tuning("a destroyed crewman's work done by the others: its "
                                         "pace, a share", minimum=0.05, maximum=1.0)
    fire_chance: float = tuning("chance that a shell which damages the engine sets it on fire",
                                minimum=0.0, maximum=1.0)
    fire_damage_per_s: float = tuning("health a fire burns each second", minimum=0.0,
                                      maximum=1000.0)
    fire_duration_s: float = tuning("the crew put a fire out after this", minimum=0.1,
                                    maximum=600.0)
    fire_tick_s: float = tuning("a fire's damage is taken (and reported) in steps of this",
                                minimum=0.05, maximum=10.0)
    turret_throw_height_m: float = tuning("an ammo rack going up throws the turret this high",
                                          minimum=0.0, maximum=100.0)
    turret_throw_spin_rad_s: float = tuning("and sets it tumbling this fast", minimum=0.0,
                                            maximum=50.0)


def state_of(hit_points: float, whole: float) -> str:
    """A part's state from its hit points left of ``whole``."""
    if hit_points <= 0.0:
        return DESTROYED
    return WHOLE if hit_points >= whole else DAMAGED


def boxes_on_line(origin: np.ndarray, direction: np.ndarray, length_m: float,
                  centres: np.ndarray, half_extents: np.ndarray) -> np.ndarray:
    """Where a segment from ``origin`` along the unit ``direction`` (``length_m`` long)
    enters each axis-aligned box (centres, half extents (P, 3)): the distance along it
    (0 if it starts inside), inf where it misses (the slab method)."""
    low, high = centres - half_extents - origin, centres + half_extents - origin
    parallel = np.abs(direction) < _PARALLEL
    safe = np.where(parallel, 1.0, direction)
    near, far = low / safe, high / safe
    enter = np.where(parallel, np.where((low <= 0.0) & (high >= 0.0), -np.inf, np.inf),
                     np.minimum(near, far)).max(axis=1)
    leave = np.where(parallel, np.where((low <= 0.0) & (high >= 0.0), np.inf, -np.inf),
                     np.maximum(near, far)).min(axis=1)
    crossed = (enter <= leave) & (leave >= 0.0) & (enter <= length_m)
    return np.where(crossed, np.maximum(enter, 0.0), np.inf)


def parts_on_line(layout: PartsLayout, origin_bs, direction_bs, length_m: float,
                  turret_heading_rad: float, turret_pivot_m) -> np.ndarray:
    """Where a segment in the body frame (``direction_bs`` a unit vector) enters each part
    (P,), the turret's turned with the turret; inf where it misses."""
    centres, halves, in_turret = layout.boxes
    origin = np.asarray(origin_bs, dtype=float)
    direction = np.asarray(direction_bs, dtype=float)
    turn = turret_turn(turret_heading_rad)
    turret_origin = (origin - np.asarray(turret_pivot_m, dtype=float)) @ turn
    distances = boxes_on_line(origin, direction, length_m, centres, halves)
    turret = boxes_on_line(turret_origin, direction @ turn, length_m, centres, halves)
    return np.where(in_turret, turret, distances)


def spall_directions(direction: np.ndarray, rays: int, cone_rad: float) -> np.ndarray:
    """(rays, 3) unit lines spread evenly round the cone of half angle ``cone_rad`` about
    ``direction``: a fixed pattern, so the same hit breaks the same parts."""
    if rays == 0:
        return np.zeros((0, 3))
    along = np.asarray(direction, dtype=float)
    helper = (0.0, 0.0, 1.0) if abs(along[2]) < 0.9 else (1.0, 0.0, 0.0)
    across = np.cross(along, helper)
    across /= np.linalg.norm(across)
    over = np.cross(across, along)
    bearings = np.linspace(0.0, math.tau, rays, endpoint=False)
    sideways = np.outer(np.cos(bearings), across) + np.outer(np.sin(bearings), over)
    return along * math.cos(cone_rad) + sideways * math.sin(cone_rad)


def strikes_inside(layout: PartsLayout, spec: DamageSpec, entry_bs, direction_bs,
                   turret_heading_rad: float, turret_pivot_m) -> np.ndarray:
    """Each part's share of a penetrating shell's damage (P,): 1 for a part on its line (from
    where it got through, ``path_length_m`` on), plus ``spall_damage_share`` for each spall
    line that crosses it. Outside parts are not inside: they take none."""
    direction = np.asarray(direction_bs, dtype=float)
    direction = direction / np.linalg.norm(direction)
    shares = np.isfinite(parts_on_line(layout, entry_bs, direction, spec.path_length_m,
                                       turret_heading_rad, turret_pivot_m)).astype(float)
    for spall in spall_directions(direction, spec.spall_rays,
                                  math.radians(spec.spall_cone_deg)):
        shares += spec.spall_damage_share * np.isfinite(parts_on_line(
            layout, entry_bs, spall, spec.spall_length_m, turret_heading_rad, turret_pivot_m))
    shares[[PART_NAMES.index(name) for name in OUTSIDE]] = 0.0
    return shares


class PartEffects(NamedTuple):
    """What the parts' states leave a tank able to do: shares of a whole tank's."""

    track_drive: tuple[float, float]
    """Left and right track: 1 drives and brakes, 0 neither (destroyed)."""
    engine_power: float
    """The engine's torque, a share (0: no drive, nor steering through it)."""
    driving: float
    """The driver's pace: throttle and steer, a share."""
    traverse: float
    """The turret's traverse rate, a share (0: jammed)."""
    laying: float
    """The gun's elevation rate (the gunner's pace), a share."""
    reload_factor: float
    """The reload, times its own."""
    spread_factor: float
    """The aiming circle, times its own."""
    aim_time_factor: float
    """The time the aiming circle takes to close, times its own."""
    can_fire: bool
    view_share: float
    """How far the crew see, a share (the commander's eyes)."""


WHOLE_TANK = PartEffects((1.0, 1.0), 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, True, 1.0)


def part_effects(states: dict[str, str], spec: DamageSpec) -> PartEffects:
    """What a tank whose parts stand as ``states`` (by name) can do: :data:`WHOLE_TANK`
    itself where every part is whole (a reader may tell a whole tank by identity)."""
    if all(state == WHOLE for state in states.values()):
        return WHOLE_TANK

    def crew(name: str) -> float:
        return {WHOLE: 1.0, DAMAGED: spec.hurt_crew_work_share,
                DESTROYED: spec.lost_crew_work_share}[states[name]]

    def working(name: str, damaged_share: float) -> float:
        return {WHOLE: 1.0, DAMAGED: damaged_share, DESTROYED: 0.0}[states[name]]

    gun = states[GUN]
    gunner = crew(GUNNER)
    return PartEffects(
        (0.0 if states[LEFT_TRACK] == DESTROYED else 1.0,
         0.0 if states[RIGHT_TRACK] == DESTROYED else 1.0),
        working(ENGINE, spec.damaged_engine_power_share), crew(DRIVER),
        working(TURRET_RING, spec.damaged_ring_traverse_share) * gunner, gunner,
        (1.0 if gun == WHOLE else spec.damaged_gun_reload_factor) / crew(LOADER),
        1.0 if gun == WHOLE else spec.damaged_gun_spread_factor, 1.0 / gunner,
        gun != DESTROYED, crew(COMMANDER))
