"""Synthesise the game's sound effects (mono, 22.05 kHz, 16-bit WAV) into assets/sounds/.

Run ``python assets/make_sounds.py``; the output is deterministic (fixed seed), so the
committed files can always be remade. numpy + the standard ``wave`` module only.
"""

from __future__ import annotations

import wave
from pathlib import Path

import numpy as np

from game.audio.sounds import CLATTER_LINKS_HZ

RATE_HZ = 22050
SOUNDS_DIR = Path(__file__).resolve().parent / "sounds"

LENGTHS_S = {"engine_loop": 1.0, "gun_fire": 0.8, "impact_metal": 0.5, "impact_sand": 0.4,
             "explosion": 1.5, "gear_grind": 0.5, "ui_click": 0.05, "track_clatter": 0.5,
             "tyre_roll": 0.5, "tyre_skid": 0.5, "penetration": 0.5, "ricochet": 0.5}
"""Each sound's length; tests check the files against these."""


def _time(length_s: float) -> np.ndarray:
    return np.arange(int(round(length_s * RATE_HZ))) / RATE_HZ


def _lowpass(signal: np.ndarray, cutoff_hz: float) -> np.ndarray:
    """One-pole low-pass (run as a cumulative filter over the array)."""
    alpha = 1.0 - np.exp(-2.0 * np.pi * cutoff_hz / RATE_HZ)
    out = np.empty_like(signal)
    state = 0.0
    for index, value in enumerate(signal):
        state += alpha * (value - state)
        out[index] = state
    return out


def engine_loop(rng) -> np.ndarray:
    # 30 Hz firing note with harmonics; whole cycles in 1 s so it loops without a click.
    t = _time(LENGTHS_S["engine_loop"])
    base = 30.0
    wave_ = sum(np.sin(2 * np.pi * base * k * t) / k for k in (1, 2, 3, 4, 6))
    pulses = 0.5 + 0.5 * np.sin(2 * np.pi * base * 2 * t) ** 8
    rumble = _lowpass(rng.standard_normal(t.size), 400.0)
    rumble -= np.linspace(rumble[0], rumble[-1], t.size)  # same level at both ends
    return wave_ * pulses + 2.0 * rumble


def gun_fire(rng) -> np.ndarray:
    t = _time(LENGTHS_S["gun_fire"])
    crack = rng.standard_normal(t.size) * np.exp(-t / 0.02)
    boom = _lowpass(rng.standard_normal(t.size), 250.0) * np.exp(-t / 0.25) * 6.0
    thump = np.sin(2 * np.pi * 55.0 * t) * np.exp(-t / 0.15)
    return crack + boom + thump


def impact_metal(rng) -> np.ndarray:
    t = _time(LENGTHS_S["impact_metal"])
    ring = sum(np.sin(2 * np.pi * f * t) * np.exp(-t / d) * a
               for f, d, a in ((523.0, 0.18, 1.0), (1387.0, 0.09, 0.6), (2711.0, 0.05, 0.4)))
    clang = rng.standard_normal(t.size) * np.exp(-t / 0.01)
    return ring + clang


def impact_sand(rng) -> np.ndarray:
    t = _time(LENGTHS_S["impact_sand"])
    thud = _lowpass(rng.standard_normal(t.size), 180.0) * np.exp(-t / 0.08) * 8.0
    hiss = _lowpass(rng.standard_normal(t.size), 3000.0) * np.exp(-t / 0.12) * 0.3
    return thud + hiss


def explosion(rng) -> np.ndarray:
    t = _time(LENGTHS_S["explosion"])
    roar = _lowpass(rng.standard_normal(t.size), 150.0) * np.exp(-t / 0.5) * 10.0
    crackle = rng.standard_normal(t.size) * (rng.random(t.size) < 0.01) * np.exp(-t / 0.4)
    return roar + crackle * 2.0 + np.sin(2 * np.pi * 40.0 * t) * np.exp(-t / 0.3)


def gear_grind(rng) -> np.ndarray:
    t = _time(LENGTHS_S["gear_grind"])
    teeth = np.sign(np.sin(2 * np.pi * 180.0 * t + 3.0 * np.sin(2 * np.pi * 23.0 * t)))
    scrape = _lowpass(rng.standard_normal(t.size), 2500.0)
    envelope = np.minimum(t / 0.02, 1.0) * np.minimum((t[-1] - t) / 0.05, 1.0)
    return (teeth * 0.6 + scrape) * envelope


def penetration(rng) -> np.ndarray:
    # A shell through the armour: the plate's clang cut short by a deep crunch inside.
    t = _time(LENGTHS_S["penetration"])
    clang = sum(np.sin(2 * np.pi * f * t) * np.exp(-t / d) * a
                for f, d, a in ((311.0, 0.06, 1.0), (977.0, 0.04, 0.5)))
    crunch = _lowpass(rng.standard_normal(t.size), 600.0) * np.exp(-t / 0.12) * 6.0
    thump = np.sin(2 * np.pi * 48.0 * t) * np.exp(-t / 0.2) * 1.5
    return clang + crunch + thump


def ricochet(rng) -> np.ndarray:
    # A shell glancing off: a sharp tick, then a whine falling away as it flies on.
    t = _time(LENGTHS_S["ricochet"])
    pitch_hz = 2600.0 * np.exp(-t / 0.35) + 500.0
    whine = np.sin(2 * np.pi * np.cumsum(pitch_hz) / RATE_HZ) * np.exp(-t / 0.25)
    tick = rng.standard_normal(t.size) * np.exp(-t / 0.004)
    return whine + tick * 0.8


def ui_click(rng) -> np.ndarray:
    t = _time(LENGTHS_S["ui_click"])
    return np.sin(2 * np.pi * 1800.0 * t) * np.exp(-t / 0.008)


LOOP_OVERLAP = int(round(0.05 * RATE_HZ))
"""Samples a loop is made longer by, to fade its end into its start (:func:`_seamless`)."""


def _loop_time(length_s: float) -> np.ndarray:
    """Sample times of a loop ``length_s`` long, plus its overlap."""
    return np.arange(int(round(length_s * RATE_HZ)) + LOOP_OVERLAP) / RATE_HZ


def _seamless(signal: np.ndarray) -> np.ndarray:
    """A loop that joins without a click, the overlap shorter than ``signal``: its start
    fades in from what follows its end, so the end runs on into the start."""
    fade = np.linspace(0.0, 1.0, LOOP_OVERLAP)
    looped = signal[:-LOOP_OVERLAP].copy()
    looped[:LOOP_OVERLAP] = looped[:LOOP_OVERLAP] * fade + signal[-LOOP_OVERLAP:] * (1.0 - fade)
    return looped


def track_clatter(rng) -> np.ndarray:
    """Track links striking the sprockets and road wheels: CLATTER_LINKS_HZ metallic clicks a
    second (a whole number in the loop, so it repeats in step), each a little different,
    over the low grind of the running gear; made to loop."""
    length_s = LENGTHS_S["track_clatter"]
    t = _loop_time(length_s)
    signal = _lowpass(rng.standard_normal(t.size), 120.0)
    for click in range(int(round(CLATTER_LINKS_HZ * length_s)) + 1):  # + the next loop's first
        since = t - click / CLATTER_LINKS_HZ
        struck = since >= 0.0
        ring = np.sin(2 * np.pi * rng.uniform(700.0, 950.0) * since) * np.exp(-since / 0.012)
        knock = rng.standard_normal(t.size) * np.exp(-since / 0.004)
        signal += struck * (ring + 0.6 * knock) * rng.uniform(0.6, 1.0)
    return _seamless(signal)


def tyre_roll(rng) -> np.ndarray:
    """Tread on the ground: a rushing noise, low-passed, made to loop."""
    t = _loop_time(LENGTHS_S["tyre_roll"])
    rush = _lowpass(rng.standard_normal(t.size), 600.0)
    hum = 0.3 * _lowpass(rng.standard_normal(t.size), 90.0) * 4.0
    return _seamless(rush + hum)


def tyre_skid(rng) -> np.ndarray:
    """Rubber sliding: a squeal wavering round 900 Hz (whole cycles of both in the loop)
    over scrubbing noise, made to loop."""
    length_s = LENGTHS_S["tyre_skid"]
    t = _loop_time(length_s)
    waver_hz = 8.0 / length_s
    phase = 2 * np.pi * 900.0 * t + 6.0 * np.sin(2 * np.pi * waver_hz * t)
    squeal = np.sin(phase) + 0.4 * np.sin(2 * phase)
    scrub = _lowpass(rng.standard_normal(t.size), 2000.0) * 0.8
    return _seamless(squeal + scrub)


MAKERS = {"engine_loop": engine_loop, "gun_fire": gun_fire, "impact_metal": impact_metal,
          "impact_sand": impact_sand, "explosion": explosion, "gear_grind": gear_grind,
          "ui_click": ui_click, "track_clatter": track_clatter, "tyre_roll": tyre_roll,
          "tyre_skid": tyre_skid, "penetration": penetration, "ricochet": ricochet}


def write_wav(path: Path, signal: np.ndarray, peak: float = 0.9) -> None:
    signal = np.asarray(signal, dtype=np.float64)
    signal = signal / max(float(np.max(np.abs(signal))), 1e-9) * peak
    pcm = np.round(signal * 32767.0).astype("<i2")
    with wave.open(str(path), "wb") as stream:
        stream.setnchannels(1)
        stream.setsampwidth(2)
        stream.setframerate(RATE_HZ)
        stream.writeframes(pcm.tobytes())


def make_all(folder: Path = SOUNDS_DIR, seed: int = 7) -> dict[str, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, make in MAKERS.items():
        path = folder / f"{name}.wav"
        write_wav(path, make(np.random.default_rng(seed)))
        paths[name] = path
    return paths


if __name__ == "__main__":
    for name, path in make_all().items():
        print(f"{path} {path.stat().st_size} bytes")
