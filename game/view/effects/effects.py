"""Effects: the simulation's events (and its vehicles' anchors) turned into particles.

- ``shot``: a muzzle flash and smoke at the muzzle, along the barrel
  (:func:`physics.model.ballistics.gun_axes` of the firing vehicle's last state and aim).
- ``hit``: a flash, then sparks off metal (the target is a vehicle or a plate) or
  sand thrown up and clods falling back (the ground, rocks), leaving along the
  hit's normal.
- ``destroyed``: a fireball, debris and a rising column of smoke; after it the
  wreck keeps smoking (``wreck_smoke`` per second) until it is whole again (the
  next round) or ``wreck_smoke_s`` has passed.
- Dust: every anchor on the ground raises dust at its contact point, more the
  faster the vehicle goes, and more again where it slides (the controller's
  reports: ``Vehicle.anchors()``; no ray of our own).

A frame's streams (the dust of every vehicle, the wrecks' smoke) are gathered into
arrays and spawned in one call (:func:`game.view.effects.emission.emit_streams`), each
stream keeping its fraction of a particle to the next frame; an event's burst is one
such call of its own.

Everything random comes from the effects' own generator (seeded), never the
simulation's: effects cannot change a run. ``counts`` tallies the bursts made per
effect, and the particles each stream made (tests read it).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, fields
from typing import NamedTuple

import numpy as np

from common.settings import QUALITY_LEVELS
from common.spec import Spec, tuning
from game.sim.events import Destroyed, Event, Hit, RoundStart, Shot
from game.sim.vehicles import Vehicle
from game.view.effects.dust_kernel import dust_streams_loop
from game.view.effects.emission import EmitterTable, StreamCarry, emit_streams
from game.view.effects.particles import EmitterSpec, ParticleSystem
from physics.model.ballistics import gun_axes


@dataclass(frozen=True)
class EffectsSpec(Spec):
    """Particles spawned from the simulation's events, and dust under moving vehicles."""

    capacity: int = tuning("most particles alive at once (the oldest make room for new ones)",
                           minimum=16, maximum=200000)
    quality_scale: tuple[float, ...] = tuning("share of each emitter's count drawn at the "
                                              "low, medium and high graphics quality",
                                              minimum=0.0, maximum=1.0, length=(3, 3))
    sort_back_to_front: bool = tuning("draw far particles first (correct smoke over smoke; "
                                      "costs a sort a frame)")
    dust_min_speed_mps: float = tuning("tracks and wheels raise no dust slower than this",
                                      minimum=0.0, maximum=50.0)
    dust_max_speed_mps: float = tuning("dust grows with speed up to this speed", minimum=0.1,
                                      maximum=200.0)
    wreck_smoke_s: float = tuning("a wreck smokes this long after it is destroyed (it keeps "
                                  "smoking until the round restarts if longer)",
                                  minimum=0.0, maximum=3600.0)
    muzzle_flash: EmitterSpec = tuning("the burst of flame out of the muzzle")
    muzzle_smoke: EmitterSpec = tuning("the smoke of a shot, along the barrel")
    sparks: EmitterSpec = tuning("a hit on metal (a tank or a plate): sparks off the face")
    impact_flash: EmitterSpec = tuning("the flash of any hit")
    sand_burst: EmitterSpec = tuning("a hit on the ground: sand thrown up along the normal")
    sand_clods: EmitterSpec = tuning("heavier clods of a ground hit, falling back")
    explosion: EmitterSpec = tuning("a tank destroyed: the fireball")
    debris: EmitterSpec = tuning("a tank destroyed: dark fragments thrown out, falling")
    smoke_column: EmitterSpec = tuning("a tank destroyed: the column of smoke rising")
    wreck_smoke: EmitterSpec = tuning("a wreck's smoke (count: particles per second)")
    track_dust: EmitterSpec = tuning("dust behind each track or wheel on the ground (count: "
                                     "particles per second at dust_max_speed_mps)")
    slide_dust: EmitterSpec = tuning("extra dust where a track or wheel slides (count: "
                                     "particles per second)")


EFFECTS_STREAM = 0xEFF3
"""Seeds the effects' random stream apart from everything the simulation draws."""
DUST_THROWN_BACK = 0.5
"""Track dust leaves along the ground's normal tipped back against the motion by this
share of it."""
TRACK_DUST_CARRIED = 0.3
"""Track dust is carried along at this share of the vehicle's velocity."""
SLIDE_DUST_CARRIED = 0.2
"""Slide dust is carried along at this share of the vehicle's velocity."""
WRECK_SMOKE_RISE_M = 1.5
"""A wreck's smoke (and the column of its explosion) leaves this far up its hull."""
SLOWEST_MPS = 1e-6
"""A vehicle slower than this has no direction of travel."""
NARROWEST_DUST_BAND_MPS = 1e-6
"""The speed band over which dust grows is at least this wide."""
UP = (0.0, 0.0, 1.0)
DUST_FIELDS = ("on_ground", "sliding", "contact_point_ws", "contact_normal_ws")
"""What dust reads of each anchor from the controller's last report."""
STREAMS = ("track_dust", "slide_dust", "wreck_smoke")
"""The emitters that stream (particles per second) rather than burst."""


def _anchor_field(source, name: str, picked: list | None) -> np.ndarray:
    """One field of anchors, a row per anchor: of a fleet's report (``source``) the rows of
    its vehicles ``picked``, or all of one vehicle's AnchorView (``picked`` None)."""
    field = getattr(source, name)
    if picked is None:
        return field
    rows = field[picked]
    return rows.reshape((-1,) + rows.shape[2:])


class _AnchorLayout(NamedTuple):
    """Whose anchors a frame's dust reads, in order."""

    vehicles: list
    layout: tuple
    """(name, anchors) of each vehicle: the streams' carries are kept by it."""
    per_vehicle: np.ndarray
    """How many anchors each vehicle has."""
    owner: np.ndarray
    """Each anchor's vehicle: its place in ``vehicles``."""


class Effects:
    """Spawns particles for ``simulation``'s events into one :class:`ParticleSystem`."""

    def __init__(self, simulation, spec: EffectsSpec, parent=None, seed: int = 0,
                 quality: str = "high"):
        self.simulation = simulation
        self.spec = spec
        self.particles = ParticleSystem(spec.capacity, parent,
                                        sort_back_to_front=spec.sort_back_to_front)
        self.table = EmitterTable({field.name: getattr(spec, field.name)
                                   for field in fields(spec)
                                   if isinstance(getattr(spec, field.name), EmitterSpec)})
        self.rng = np.random.default_rng([seed, EFFECTS_STREAM])
        self.scale = 1.0
        self.set_quality(quality)
        self.counts: Counter = Counter()
        """Bursts made, by effect name (``muzzle_flash``, ``sparks``, ...); streams: the
        particles they made."""
        self._wrecks: dict[str, float] = {}
        """Smoking wrecks: vehicle name -> simulated time it was destroyed."""
        self._carry = {name: StreamCarry() for name in STREAMS}
        """Each stream's fraction of a particle carried to the next frame."""
        self._runs: tuple[object, list] | None = None
        """The roster the vehicles' runs were gathered from, and the runs
        (:meth:`_fleet_runs`)."""
        self._layout: tuple[tuple | None, _AnchorLayout] | None = None
        """The roster and which of its runs had anchors when the layout was last made (None:
        a roster not counted), and that layout."""

    def set_quality(self, quality: str) -> None:
        level = QUALITY_LEVELS.index(quality) if quality in QUALITY_LEVELS else 2
        self.scale = self.spec.quality_scale[level]

    def _count(self, emitter: EmitterSpec) -> int:
        return int(round(emitter.count * self.scale))

    def _burst(self, name: str, point, direction=(0.0, 0.0, 1.0),
               base_velocity=(0.0, 0.0, 0.0)) -> None:
        emit_streams(self.particles, self.rng, self.table, [self.table.index[name]],
                     [self._count(getattr(self.spec, name))], point, direction, base_velocity)
        self.counts[name] += 1

    def _vehicle(self, name):
        return next((v for v in self.simulation.vehicles if v.name == name), None)

    def _is_metal(self, target_name: str) -> bool:
        if any(v.name == target_name for v in self.simulation.vehicles):
            return True
        return any(p.name == target_name for p in getattr(self.simulation, "plates", ()))

    # ----- events -----------------------------------------------------------------------

    def on_events(self, events: list[Event]) -> None:
        """Once per fixed step, with the events that step returned."""
        handlers = {Shot: self._shot, Hit: self._hit, Destroyed: self._destroyed,
                    RoundStart: self._round_start}
        for event in events:
            handler = handlers.get(type(event))
            if handler is not None:
                handler(event)

    def _round_start(self, event: RoundStart) -> None:
        self._wrecks.clear()

    def _shot(self, event: Shot) -> None:
        vehicle = self._vehicle(event.vehicle)
        if vehicle is None or vehicle.aim is None:
            return
        muzzle, barrel = gun_axes(vehicle.current, vehicle.spec.gun, vehicle.aim)
        moving = vehicle.current.velocity_ws
        self._burst("muzzle_flash", muzzle, barrel, moving)
        self._burst("muzzle_smoke", muzzle, barrel, moving)

    def _hit(self, event: Hit) -> None:
        point = np.asarray(event.point, dtype=np.float64)
        normal = np.asarray(event.normal, dtype=np.float64)
        if not np.all(np.isfinite(normal)) or np.linalg.norm(normal) < 1e-6:
            normal = np.array([0.0, 0.0, 1.0])
        self._burst("impact_flash", point + normal * 0.2, normal)
        if self._is_metal(event.target):
            self._burst("sparks", point + normal * 0.05, normal)
        else:
            self._burst("sand_burst", point, normal)
            self._burst("sand_clods", point, normal)

    def _destroyed(self, event: Destroyed) -> None:
        vehicle = self._vehicle(event.vehicle)
        if vehicle is None:
            return
        centre = vehicle.current.position_ws
        up = vehicle.current.axes_ws()[2]
        self._burst("explosion", centre + up * 1.0, up)
        self._burst("debris", centre + up * 0.8, up)
        self._burst("smoke_column", centre + up * WRECK_SMOKE_RISE_M, UP)
        self._wrecks[vehicle.name] = self.simulation.time_s

    # ----- streams ----------------------------------------------------------------------

    def _streams(self, name: str, layout: tuple, rates_per_s, active, dt_s: float, points,
                 directions, base_velocities) -> list:
        """One kind's streams for this frame: the whole particles due of each (carrying
        the fractions), as [kinds, counts, points, directions, velocities] of those
        that make any."""
        due = self._carry[name].due(layout, np.asarray(rates_per_s) * (self.scale * dt_s),
                                    active)
        making = np.flatnonzero(due)
        self.counts[name] += int(due.sum())
        return [np.full(len(making), self.table.index[name]), due[making], points[making],
                directions[making], base_velocities[making]]

    def _fleet_runs(self) -> list[tuple]:
        """The simulation's vehicles in order, as runs of one fleet's: (fleet, their indices
        in it, the vehicles), and (None, None, [vehicle]) for each that is not one of ours
        (an online stand-in, which has its own anchors). Gathered again only when the
        roster changed (a simulation that does not count its roster: every frame)."""
        roster = getattr(self.simulation, "roster_revision", None)
        if roster is not None and self._runs is not None and self._runs[0] == roster:
            return self._runs[1]
        runs: list[tuple] = []
        for vehicle in self.simulation.vehicles:
            if not isinstance(vehicle, Vehicle):
                runs.append((None, None, [vehicle]))
            elif runs and runs[-1][0] is vehicle.fleet:
                runs[-1][1].append(vehicle.index)
                runs[-1][2].append(vehicle)
            else:
                runs.append((vehicle.fleet, [vehicle.index], [vehicle]))
        runs = [(fleet, None if picked is None else np.array(picked), group)
                for fleet, picked, group in runs]
        self._runs = (roster, runs) if roster is not None else None
        return runs

    def _anchor_rows(self) -> tuple[_AnchorLayout, dict]:
        """Every vehicle's anchors (those with a report), in the simulation's order: whose
        they are (:class:`_AnchorLayout`) and the report's rows of them (on_ground,
        sliding, contact_point_ws, contact_normal_ws) concatenated, read a run of one
        fleet's vehicles at a time rather than vehicle by vehicle."""
        blocks: list[tuple] = []  # (report or AnchorView, fleet rows or None, vehicles)
        present = []
        for fleet, picked, group in self._fleet_runs():
            source = group[0].anchors() if fleet is None else fleet.model.report
            present.append(source is not None)
            if source is not None:
                blocks.append((source, picked, group))
        # The same runs with anchors in the same ones: the same vehicles and layout.
        key = None if self._runs is None else (self._runs[0], tuple(present))
        if key is None or self._layout is None or self._layout[0] != key:
            vehicles = [vehicle for _, _, group in blocks for vehicle in group]
            sizes = [source.on_ground.shape[-1] for source, _, group in blocks for _ in group]
            per_vehicle = np.array(sizes, dtype=np.int64)
            self._layout = (key, _AnchorLayout(
                vehicles, tuple(zip((vehicle.name for vehicle in vehicles), sizes)),
                per_vehicle, np.repeat(np.arange(len(vehicles)), per_vehicle)))
        rows = {name: np.concatenate([_anchor_field(source, name, picked)
                                      for source, picked, _ in blocks]) if blocks else None
                for name in DUST_FIELDS}
        return self._layout[1], rows

    def _dust(self, dt_s: float) -> list[list]:
        """Dust under every anchor on the ground: thrown back and up, carried along at a
        share of the speed, more the faster; and more where it slides."""
        spec = self.spec
        anchors, rows = self._anchor_rows()
        if not anchors.vehicles:
            return []
        velocity = np.array([vehicle.current.velocity_ws for vehicle in anchors.vehicles],
                            np.float64)
        if dust_streams_loop is not None:
            return self._dust_compiled(dt_s, anchors, rows, velocity)
        layout = anchors.layout
        velocity = np.repeat(velocity, anchors.per_vehicle, axis=0)
        speed = np.sqrt(np.einsum("ij,ij->i", velocity, velocity))
        share = np.clip((speed - spec.dust_min_speed_mps)
                        / max(spec.dust_max_speed_mps - spec.dust_min_speed_mps,
                              NARROWEST_DUST_BAND_MPS),
                        0.0, 1.0)
        on_ground = rows["on_ground"].astype(bool)
        sliding = rows["sliding"].astype(bool)
        points, normals = rows["contact_point_ws"], rows["contact_normal_ws"]
        travel = velocity / np.maximum(speed, SLOWEST_MPS)[:, None]
        return [self._streams("track_dust", layout, spec.track_dust.count * share,
                              on_ground & (share > 0.0), dt_s, points,
                              normals - travel * DUST_THROWN_BACK,
                              velocity * TRACK_DUST_CARRIED),
                self._streams("slide_dust", layout, np.full(len(speed), spec.slide_dust.count),
                              on_ground & sliding, dt_s, points, normals,
                              velocity * SLIDE_DUST_CARRIED)]

    def _dust_compiled(self, dt_s: float, anchors: _AnchorLayout, rows: dict,
                       velocity: np.ndarray) -> list[list]:
        """:meth:`_dust`'s streams, their carries carried on, in one compiled loop."""
        spec = self.spec
        count = len(rows["on_ground"])
        counts, points = np.empty(2 * count, np.int64), np.empty((2 * count, 3))
        directions, base_velocities = np.empty((2 * count, 3)), np.empty((2 * count, 3))
        track, made = dust_streams_loop(
            rows["on_ground"].astype(bool), rows["sliding"].astype(bool),
            rows["contact_point_ws"], rows["contact_normal_ws"],
            anchors.owner, velocity,
            spec.dust_min_speed_mps, spec.dust_max_speed_mps, NARROWEST_DUST_BAND_MPS,
            SLOWEST_MPS, spec.track_dust.count, spec.slide_dust.count, self.scale * dt_s,
            DUST_THROWN_BACK, TRACK_DUST_CARRIED, SLIDE_DUST_CARRIED,
            self._carry["track_dust"].fitted(anchors.layout),
            self._carry["slide_dust"].fitted(anchors.layout), counts, points, directions,
            base_velocities)
        self.counts["track_dust"] += int(counts[:track].sum())
        self.counts["slide_dust"] += int(counts[track:made].sum())
        kinds = np.full(made, self.table.index["slide_dust"])
        kinds[:track] = self.table.index["track_dust"]
        return [[kinds, counts[:made], points[:made], directions[:made],
                 base_velocities[:made]]]

    def _wreck_smoke(self, dt_s: float) -> list[list]:
        """Smoke rising from every wreck still smoking."""
        now = self.simulation.time_s
        smoking = []
        for name, since in list(self._wrecks.items()):
            vehicle = self._vehicle(name)
            if (vehicle is None or not vehicle.destroyed
                    or now - since > self.spec.wreck_smoke_s):
                del self._wrecks[name]
                continue
            smoking.append(vehicle)
        if not smoking:
            return []
        tops = np.array([vehicle.current.position_ws
                         + vehicle.current.axes_ws()[2] * WRECK_SMOKE_RISE_M
                         for vehicle in smoking], np.float64)
        count = len(smoking)
        return [self._streams("wreck_smoke", tuple((vehicle.name, 1) for vehicle in smoking),
                              np.full(count, self.spec.wreck_smoke.count),
                              np.ones(count, bool), dt_s, tops, np.tile(UP, (count, 1)),
                              np.zeros((count, 3)))]

    @property
    def smoking_wrecks(self) -> list[str]:
        return list(self._wrecks)

    def update(self, dt_s: float, eye_ws=None, streams: bool = True) -> None:
        """Once a frame: streams (dust, wreck smoke) for ``dt_s`` of game time, then every
        particle ages ``dt_s`` and the system is redrawn (seen from ``eye_ws``)."""
        if dt_s > 0.0 and streams:
            parts = self._dust(dt_s) + self._wreck_smoke(dt_s)
            if parts:  # every stream of the frame in one spawn
                emit_streams(self.particles, self.rng, self.table,
                             *(parts[0] if len(parts) == 1
                               else (np.concatenate(column) for column in zip(*parts))))
        self.particles.update(dt_s)
        self.particles.draw(eye_ws)

    def clear(self) -> None:
        self.particles.clear()
        self._wrecks.clear()
        for carry in self._carry.values():
            carry.clear()

    def destroy(self) -> None:
        self.particles.destroy()
