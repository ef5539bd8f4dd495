"""Sound: an engine note that follows the player's rpm and throttle, and one-shot sounds
placed in 3D for the simulation's events (shots, hits, wrecks, grinding gears).

:class:`GameAudio` decides what to play; a player object plays it. :class:`PandaSoundPlayer`
is the Panda3D player (``Audio3DManager``: positions and distance falloff); tests use a
fake. Sounds are the WAVs ``assets/make_sounds.py`` synthesises.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from physics.spec import Spec, tuning

SOUNDS_DIR = Path(__file__).resolve().parent.parent / "assets" / "sounds"
SOUND_NAMES = ("engine_loop", "gun_fire", "impact_metal", "impact_sand", "explosion",
               "gear_grind", "ui_click")
UI_CLICK = "ui_click"
"""The menus' click."""
UI_SOUNDS = (UI_CLICK,)
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


def sound_for_event(event: dict, is_metal=lambda name: False,
                    player_name: str | None = None) -> str | None:
    """Which sound an event makes, or None. A hit on a vehicle or steel plate rings metal,
    on anything else thuds into sand; a shift refused while moving (``reason`` "moving")
    grinds the gears, for the player's vehicle only."""
    kind = event.get("type")
    if kind == "shot":
        return "gun_fire"
    if kind == "hit":
        return "impact_metal" if is_metal(event.get("target")) else "impact_sand"
    if kind == "destroyed":
        return "explosion"
    if (kind == "shift_refused" and event.get("reason") == "moving"
            and (player_name is None or event.get("vehicle") == player_name)):
        return "gear_grind"
    return None


def engine_note(spec: AudioSpec, rpm: float, throttle: float) -> tuple[float, float]:
    """Play rate and volume of the engine loop at ``rpm`` with ``throttle`` (0..1)."""
    rate = min(max(float(rpm) / spec.idle_rpm, spec.min_play_rate), spec.max_play_rate)
    throttle = min(max(abs(float(throttle)), 0.0), 1.0)
    volume = spec.idle_volume + (spec.full_throttle_volume - spec.idle_volume) * throttle
    return rate, volume


class SoundPlayer(Protocol):
    def play(self, name: str, position) -> None:
        """Play a sound once, at a world position (None, or an interface sound: as it is)."""
    def engine(self, play_rate: float, volume: float, position) -> None: ...
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

    def _position(self, event: dict):
        if "point" in event:
            return tuple(event["point"])
        for vehicle in self.simulation.vehicles:
            if vehicle.name == event.get("vehicle"):
                return tuple(float(v) for v in vehicle.current.position_ws)
        return None

    def on_events(self, events: list[dict]) -> None:
        player_name = self.simulation.player.name
        for event in events:
            name = sound_for_event(event, self._is_metal, player_name)
            if name is not None:
                self.player.play(name, self._position(event))

    def update(self, throttle: float) -> None:
        """Once a frame: the engine note follows the player's rpm and throttle."""
        vehicle = self.simulation.player
        rate, volume = engine_note(self.spec, vehicle.rpm, throttle)
        self.player.engine(rate, volume, tuple(float(v) for v in vehicle.current.position_ws))

    def destroy(self) -> None:
        self.player.destroy()


class PandaSoundPlayer:
    """Panda3D's Audio3DManager: each one-shot is placed at its world position and fades
    with distance from the camera (the listener). Interface sounds (``UI_SOUNDS``) go
    through the plain sound-effects manager, at full level wherever the camera is."""

    def __init__(self, base, spec: AudioSpec, folder: Path = SOUNDS_DIR):
        from direct.showbase.Audio3DManager import Audio3DManager
        from panda3d.core import Filename, NodePath
        self.base = base
        self.manager = Audio3DManager(base.sfxManagerList[0], base.camera)
        self.manager.setDropOffFactor(spec.drop_off_factor)
        self.root = base.render.attachNewNode("sound-emitters")
        self.sounds = {}
        self._emitters = []
        for name in SOUND_NAMES:
            path = folder / f"{name}.wav"
            if not path.exists():
                continue
            filename = Filename.fromOsSpecific(str(path))
            self.sounds[name] = (base.loader.loadSfx(filename) if name in UI_SOUNDS
                                 else self.manager.loadSfx(filename))
        self._engine_node = self.root.attachNewNode("engine")
        self.engine_sound = self.sounds.get("engine_loop")
        if self.engine_sound is not None:
            self.manager.attachSoundToObject(self.engine_sound, self._engine_node)
            self.engine_sound.setLoop(True)
            self.engine_sound.play()
        self._NodePath = NodePath

    def play(self, name: str, position) -> None:
        sound = self.sounds.get(name)
        if sound is None:
            return
        if position is not None and name not in UI_SOUNDS:
            node = self.root.attachNewNode(name)
            node.setPos(*position)
            self.manager.attachSoundToObject(sound, node)
            self._emitters.append(node)
            if len(self._emitters) > 16:
                old = self._emitters.pop(0)
                old.removeNode()
        sound.play()

    def engine(self, play_rate: float, volume: float, position) -> None:
        if self.engine_sound is None:
            return
        self._engine_node.setPos(*position)
        self.engine_sound.setPlayRate(play_rate)
        self.engine_sound.setVolume(volume)

    def destroy(self) -> None:
        for sound in self.sounds.values():
            sound.stop()
        self.manager.disable()
        self.root.removeNode()
