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

Everything random comes from the effects' own generator (seeded), never the
simulation's: effects cannot change a run. ``counts`` tallies the bursts made per
effect (tests read it).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from game.settings import QUALITY_LEVELS
from game.sim.events import Destroyed, Event, Hit, RoundStart, Shot
from game.view.particles import EmitterSpec, ParticleSystem
from physics.model.ballistics import gun_axes
from physics.model.spec import Spec, tuning


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


class Effects:
    """Spawns particles for ``simulation``'s events into one :class:`ParticleSystem`."""

    def __init__(self, simulation, spec: EffectsSpec, parent=None, seed: int = 0,
                 quality: str = "high"):
        self.simulation = simulation
        self.spec = spec
        self.particles = ParticleSystem(spec.capacity, parent,
                                        sort_back_to_front=spec.sort_back_to_front)
        self.rng = np.random.default_rng([seed, EFFECTS_STREAM])
        self.scale = 1.0
        self.set_quality(quality)
        self.counts: Counter = Counter()
        """Bursts made, by effect name (``muzzle_flash``, ``sparks``, ...)."""
        self._wrecks: dict[str, float] = {}
        """Smoking wrecks: vehicle name -> simulated time it was destroyed."""
        self._carry: dict[tuple, float] = {}
        """Streams' fractional particles carried to the next frame, by (emitter, source)."""

    def set_quality(self, quality: str) -> None:
        level = QUALITY_LEVELS.index(quality) if quality in QUALITY_LEVELS else 2
        self.scale = self.spec.quality_scale[level]

    def _count(self, emitter: EmitterSpec) -> int:
        return int(round(emitter.count * self.scale))

    def _burst(self, name: str, point, direction=(0.0, 0.0, 1.0),
               base_velocity=(0.0, 0.0, 0.0)) -> None:
        emitter: EmitterSpec = getattr(self.spec, name)
        self.particles.emit(self.rng, emitter, self._count(emitter), point, direction,
                            base_velocity)
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
        self._burst("smoke_column", centre + up * 1.5, (0.0, 0.0, 1.0))
        self._wrecks[vehicle.name] = self.simulation.time_s

    # ----- streams ----------------------------------------------------------------------

    def _stream(self, key: tuple, emitter: EmitterSpec, rate_per_s: float, dt_s: float,
                point, direction, base_velocity=(0.0, 0.0, 0.0)) -> int:
        """Emit ``rate_per_s`` on average, carrying fractions from frame to frame."""
        due = self._carry.get(key, 0.0) + rate_per_s * self.scale * dt_s
        whole = int(due)
        self._carry[key] = due - whole
        if whole:
            self.particles.emit(self.rng, emitter, whole, point, direction, base_velocity)
        return whole

    def _dust(self, dt_s: float) -> None:
        spec = self.spec
        for vehicle in self.simulation.vehicles:
            anchors = vehicle.anchors()
            if anchors is None:
                continue
            speed = float(np.linalg.norm(vehicle.current.velocity_ws))
            share = np.clip((speed - spec.dust_min_speed_mps)
                            / max(spec.dust_max_speed_mps - spec.dust_min_speed_mps, 1e-6),
                            0.0, 1.0)
            velocity = vehicle.current.velocity_ws
            for a in np.flatnonzero(anchors.on_ground):
                point = anchors.contact_point_ws[a]
                normal = anchors.contact_normal_ws[a]
                # Dust trails: thrown back and up, carried along at a share of the speed.
                if share > 0.0:
                    made = self._stream(("track_dust", vehicle.name, int(a)), spec.track_dust,
                                        spec.track_dust.count * share, dt_s, point,
                                        normal - velocity / max(speed, 1e-6) * 0.5,
                                        velocity * 0.3)
                    if made:
                        self.counts["track_dust"] += made
                if anchors.sliding[a]:
                    made = self._stream(("slide_dust", vehicle.name, int(a)), spec.slide_dust,
                                        spec.slide_dust.count, dt_s, point, normal,
                                        velocity * 0.2)
                    if made:
                        self.counts["slide_dust"] += made

    def _wreck_smoke(self, dt_s: float) -> None:
        now = self.simulation.time_s
        for name, since in list(self._wrecks.items()):
            vehicle = self._vehicle(name)
            if (vehicle is None or not vehicle.destroyed
                    or now - since > self.spec.wreck_smoke_s):
                del self._wrecks[name]
                continue
            up = vehicle.current.axes_ws()[2]
            made = self._stream(("wreck_smoke", name), self.spec.wreck_smoke,
                                self.spec.wreck_smoke.count, dt_s,
                                vehicle.current.position_ws + up * 1.5, (0.0, 0.0, 1.0))
            if made:
                self.counts["wreck_smoke"] += made

    @property
    def smoking_wrecks(self) -> list[str]:
        return list(self._wrecks)

    def update(self, dt_s: float, eye_ws=None, streams: bool = True) -> None:
        """Once a frame: streams (dust, wreck smoke) for ``dt_s`` of game time, then every
        particle ages ``dt_s`` and the system is redrawn (seen from ``eye_ws``)."""
        if dt_s > 0.0 and streams:
            self._dust(dt_s)
            self._wreck_smoke(dt_s)
        self.particles.update(dt_s)
        self.particles.draw(eye_ws)

    def clear(self) -> None:
        self.particles.clear()
        self._wrecks.clear()
        self._carry.clear()

    def destroy(self) -> None:
        self.particles.destroy()
