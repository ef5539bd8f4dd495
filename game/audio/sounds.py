"""Sound: loops that follow the player's vehicle (the engine note with rpm and throttle;
a tank's track clatter with its track speed; a car's tyre roar with its speed and its
squeal with how much of it slides), and one-shot sounds placed in 3D for the
simulation's events (shots, hits, wrecks, grinding gears).

:class:`GameAudio` decides what to play; a player object plays it. :class:`PandaSoundPlayer`
is the Panda3D player (``Audio3DManager``: positions and distance falloff); tests use a
fake. Sounds are the WAVs ``assets/make_sounds.py`` synthesises.

The player's three volumes (:class:`Volumes`) mix them: one-shot sounds (and the menus'
click) play at master × effects, the loops (engine, tracks, tyres) at master × engine
times the level :class:`GameAudio` gives them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from common.resources import sounds_folder
from common.spec import KMH_PER_MPS, Spec, tuning
from game.sim.events import Destroyed, Event, Hit, ShiftRefused, Shot
from game.sim.vehicles import Vehicle, side_track_x_m

SOUNDS_DIR = sounds_folder()
"""The synthesised WAVs, assets/sounds, wherever the game is installed."""
SOUND_NAMES = ("engine_loop", "gun_fire", "impact_metal", "impact_sand", "explosion",
               "gear_grind", "ui_click", "track_clatter", "tyre_roll", "tyre_skid",
               "penetration", "ricochet")
LOOPS = ("engine_loop", "track_clatter", "tyre_roll", "tyre_skid")
"""Sounds that play all the time, following the player's vehicle (silent when not heard)."""
CLATTER_LINKS_HZ = 12.0
"""Track links striking in a second of ``track_clatter.wav`` at its recorded pitch."""
UI_CLICK = "ui_click"
"""The menus' click."""
UI_SOUNDS = (UI_CLICK,)
STRIKE_SOUNDS = {"penetrated": "penetration", "overmatch": "penetration",
                 "ricochet": "ricochet", "blocked": "impact_metal"}
"""What a hit on armour sounds like, by its result."""
"""Sounds of the interface: played as they are, not placed in the world."""


@dataclass(frozen=True)
class AudioSpec(Spec):
    idle_rpm: float = tuning("rpm at which the engine loop plays at its recorded pitch",
                             minimum=100.0, maximum=5000.0)
    min_play_rate: float = tuning("lowest engine pitch (play rate)", minimum=0.1,
                                  maximum=4.0)
    max_play_rate: float = tuning("highest engine pitch (play rate)", minimum=0.2,
                                  maximum=8.0)
    idle_volume: float = tuning("engine volume with the throttle closed", minimum=0.0,
                                maximum=1.0)
    full_throttle_volume: float = tuning("engine volume at full throttle", minimum=0.0,
                                         maximum=1.0)
    drop_off_factor: float = tuning("3D distance falloff (1: physical inverse distance)",
                                    minimum=0.0, maximum=10.0)
    track_link_pitch_m: float = tuning("length of one track link: the clatter clicks at the "
                                       "track's speed over it", minimum=0.05, maximum=1.0)
    clatter_play_rates: tuple[float, ...] = tuning("slowest and fastest clatter (play rate)",
                                                   minimum=0.05, maximum=8.0, length=(2, 2))
    clatter_full_kmh: float = tuning("the clatter grows louder with track speed up to this",
                                     minimum=1.0, maximum=200.0)
    clatter_volume: float = tuning("the clatter's volume from there", minimum=0.0,
                                   maximum=1.0)
    tyre_full_kmh: float = tuning("the tyres' roar grows louder and higher with speed up to "
                                  "this", minimum=1.0, maximum=400.0)
    tyre_roll_play_rates: tuple[float, ...] = tuning("the roar's play rate at a standstill "
                                                     "and from that speed", minimum=0.05,
                                                     maximum=8.0, length=(2, 2))
    tyre_roll_volume: float = tuning("the roar's volume from that speed", minimum=0.0,
                                     maximum=1.0)
    skid_full_kmh: float = tuning("sliding this fast or faster squeals at full volume",
                                  minimum=1.0, maximum=400.0)
    skid_volume: float = tuning("the squeal's volume with every wheel on the ground sliding",
                                minimum=0.0, maximum=1.0)


def sound_for_event(event: Event, is_metal=lambda name: False,
                    player_name: str | None = None) -> str | None:
    """Which sound an event makes, or None. A hit on armour sounds its result: a crunch
    through it, a whine glancing off, the plate's ring where it held; another hit on a
    vehicle or steel plate rings metal, on anything else thuds into sand; a shift refused
    while moving (``reason`` "moving") grinds the gears, for the player's vehicle only."""
    if isinstance(event, Shot):
        return "gun_fire"
    if isinstance(event, Hit):
        if event.result is not None:
            return STRIKE_SOUNDS[event.result]
        return "impact_metal" if is_metal(event.target) else "impact_sand"
    if isinstance(event, Destroyed):
        return "explosion"
    if (isinstance(event, ShiftRefused) and event.reason == "moving"
            and (player_name is None or event.vehicle == player_name)):
        return "gear_grind"
    return None


def engine_note(spec: AudioSpec, rpm: float, throttle: float) -> tuple[float, float]:
    """Play rate and volume of the engine loop at ``rpm`` with ``throttle`` (0..1)."""
    rate = min(max(float(rpm) / spec.idle_rpm, spec.min_play_rate), spec.max_play_rate)
    throttle = min(max(abs(float(throttle)), 0.0), 1.0)
    volume = spec.idle_volume + (spec.full_throttle_volume - spec.idle_volume) * throttle
    return rate, volume


def track_clatter(spec: AudioSpec, track_speed_mps: float) -> tuple[float, float]:
    """Play rate and volume of the track clatter at a track speed (either sign)."""
    speed_mps = abs(float(track_speed_mps))
    slowest, fastest = spec.clatter_play_rates
    rate = min(max(speed_mps / spec.track_link_pitch_m / CLATTER_LINKS_HZ, slowest), fastest)
    return rate, spec.clatter_volume * min(speed_mps * KMH_PER_MPS / spec.clatter_full_kmh, 1.0)


def tyre_noise(spec: AudioSpec, speed_mps: float, sliding_share: float
               ) -> tuple[float, float, float]:
    """Play rate and volume of the tyres' roar, and the squeal's volume, at a speed with a
    share (0..1) of the wheels sliding on the ground."""
    speed_kmh = abs(float(speed_mps)) * KMH_PER_MPS
    share = min(speed_kmh / spec.tyre_full_kmh, 1.0)
    standstill, full = spec.tyre_roll_play_rates
    squeal = spec.skid_volume * min(max(float(sliding_share), 0.0), 1.0) * min(
        speed_kmh / spec.skid_full_kmh, 1.0)
    return standstill + (full - standstill) * share, spec.tyre_roll_volume * share, squeal


@dataclass(frozen=True)
class Volumes:
    """The player's volumes, each 0..1 (full until the settings are applied)."""

    master: float = 1.0
    effects: float = 1.0
    engine: float = 1.0

    def of(self, name: str) -> float:
        """The share of its own level sound ``name`` plays at: a loop (``LOOPS``) at
        master × engine, anything else at master × effects."""
        return self.master * (self.engine if name in LOOPS else self.effects)


class SoundPlayer(Protocol):
    def play(self, name: str, position) -> None:
        """Play a sound once, at a world position (None, or an interface sound: as it is)."""
    def loop(self, name: str, play_rate: float, volume: float, position) -> None:
        """Set one of the ``LOOPS`` playing at this rate and volume, from ``position``."""
    def destroy(self) -> None: ...


class GameAudio:
    """Turns the simulation's state and events into sounds through a ``SoundPlayer``."""

    def __init__(self, simulation, player: SoundPlayer, spec: AudioSpec):
        self.simulation = simulation
        self.player = player
        self.spec = spec

    def _is_metal(self, name) -> bool:
        sim = self.simulation
        return (any(v.name == name for v in sim.vehicles)
                or any(p.name == name for p in getattr(sim, "plates", ())))

    def _position(self, event: Event):
        """Where an event's sound comes from: a hit's point, or its vehicle (None: an
        interface sound, or nobody's)."""
        if isinstance(event, Hit):
            return tuple(event.point)
        name = getattr(event, "vehicle", None)
        for vehicle in self.simulation.vehicles:
            if vehicle.name == name:
                return tuple(float(v) for v in vehicle.current.position_ws)
        return None

    def on_events(self, events: list[Event]) -> None:
        player_name = self.simulation.player.name
        for event in events:
            name = sound_for_event(event, self._is_metal, player_name)
            if name is not None:
                self.player.play(name, self._position(event))

    def update(self, throttle: float) -> None:
        """Once a frame: the loops follow the player's vehicle (a tank clatters, a car's
        tyres roar and squeal; the other kind's loops fall silent)."""
        vehicle = self.simulation.player
        spec, position = self.spec, tuple(vehicle.current.position_ws.tolist())
        self.player.loop("engine_loop", *engine_note(spec, vehicle.rpm, throttle), position)
        clatter, roll, skid = (1.0, 0.0), (1.0, 0.0), 0.0
        if vehicle.spec.tracked:
            left, right = (track_speeds_of(vehicle) if isinstance(vehicle, Vehicle)
                           else vehicle.track_speeds_mps())
            clatter = track_clatter(spec, (abs(left) + abs(right)) / 2.0)
        else:
            anchors = vehicle.anchors()
            sliding = (0.0 if anchors is None
                       else float((anchors.sliding & anchors.on_ground).mean()))
            rate, volume, skid = tyre_noise(spec, vehicle.current.forward_speed_mps(), sliding)
            roll = (rate, volume)
        self.player.loop("track_clatter", *clatter, position)
        self.player.loop("tyre_roll", *roll, position)
        self.player.loop("tyre_skid", 1.0, skid, position)


def track_speeds_of(vehicle: Vehicle) -> tuple[float, float]:
    """:meth:`Vehicle.track_speeds_mps` worked out in plain floats (one vehicle's few
    numbers cost less so than as numpy arrays); equal to it to rounding."""
    state = vehicle.current
    (rx, ry, rz), (fx, fy, fz), _ = state.axes_ws().tolist()
    vx, vy, vz = state.velocity_ws.tolist()
    wx, wy, wz = state.angular_velocity_ws.tolist()
    along = vx * fx + vy * fy + vz * fz
    # The point under a track moves at v + w x (right * x): along the hull, v.f + x (w x right).f.
    turning = (wy * rz - wz * ry) * fx + (wz * rx - wx * rz) * fy + (wx * ry - wy * rx) * fz
    left_x, right_x = _side_tracks(vehicle.constants)
    return along + turning * left_x, along + turning * right_x


_SIDE_TRACKS: dict[int, tuple] = {}
"""Each fleet's constants (by id, with the constants) and its tracks' x across the hull."""


def _side_tracks(constants) -> tuple[float, float]:
    """The left and right tracks' x across the hull (:func:`side_track_x_m`) of a fleet's
    ``constants``, worked out once for them."""
    known = _SIDE_TRACKS.get(id(constants))
    if known is None or known[0] is not constants:
        known = _SIDE_TRACKS[id(constants)] = (
            constants, tuple(side_track_x_m(constants.position_bs).tolist()))
    return known[1]


class PandaSoundPlayer:
    """Panda3D's Audio3DManager: each one-shot is placed at its world position and fades
    with distance from the camera (the listener). Interface sounds (``UI_SOUNDS``) go
    through the plain sound-effects manager, at full level wherever the camera is."""

    def __init__(self, base, spec: AudioSpec, folder: Path = SOUNDS_DIR):
        from direct.showbase.Audio3DManager import Audio3DManager
        from panda3d.core import Filename
        self.base = base
        self.volumes = Volumes()
        self.manager = Audio3DManager(base.sfxManagerList[0], base.camera, base.render)
        self.manager.setDropOffFactor(spec.drop_off_factor)
        self.root = base.render.attachNewNode("sound-emitters")
        self.sounds = {}
        self._emitters: dict = {}
        """Where each positioned sound plays from, by name: one sound per name, so one node,
        made here and moved to each play (none is made or removed in play)."""
        for name in SOUND_NAMES:
            path = folder / f"{name}.wav"
            if not path.exists():
                continue
            filename = Filename.fromOsSpecific(str(path))
            if name in UI_SOUNDS:
                self.sounds[name] = base.loader.loadSfx(filename)
                continue
            self.sounds[name] = self.manager.loadSfx(filename)
            self._emitters[name] = self.root.attachNewNode(name)
            self.manager.attachSoundToObject(self.sounds[name], self._emitters[name])
        self._loop_nodes = {name: self._emitters[name] for name in LOOPS if name in self.sounds}
        """Each loop's emitter, set where the player's vehicle is every frame."""
        self._loop_levels: dict[str, float] = {}
        """Each loop's level as :meth:`loop` last set it, before the player's volumes."""
        self._loop_shown: dict[str, tuple] = {}
        """Each loop's rate, level and position as last set: only what changes is set."""
        for name in self._loop_nodes:
            sound = self.sounds[name]
            sound.setLoop(True)
            sound.setVolume(0.0)
            sound.play()

    def play(self, name: str, position) -> None:
        sound = self.sounds.get(name)
        if sound is None:
            return
        if position is not None and name in self._emitters:
            self._emitters[name].setPos(*position)
        sound.setVolume(self.volumes.of(name))
        sound.play()

    def loop(self, name: str, play_rate: float, volume: float, position) -> None:
        node = self._loop_nodes.get(name)
        if node is None:
            return
        shown = self._loop_shown.get(name)
        if shown is None or shown[2] != position:
            node.setPos(*position)
        sound = self.sounds[name]
        if shown is None or shown[0] != play_rate:
            sound.setPlayRate(play_rate)
        if shown is None or shown[1] != volume:
            self._loop_levels[name] = volume
            sound.setVolume(volume * self.volumes.of(name))
        self._loop_shown[name] = (play_rate, volume, position)

    def set_volumes(self, master: float, effects: float, engine: float) -> None:
        """The player's volumes (0..1): the loops change at once (also while the game is
        paused), one-shots from the next one played."""
        self.volumes = Volumes(master, effects, engine)
        for name, level in self._loop_levels.items():
            self.sounds[name].setVolume(level * self.volumes.of(name))

    def destroy(self) -> None:
        for sound in self.sounds.values():
            sound.stop()
        self.manager.disable()
        self.root.removeNode()
