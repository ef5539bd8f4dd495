"""Synthesise the game's sound effects (mono, 22.05 kHz, 16-bit WAV) into assets/sounds/.

Run ``python assets/make_sounds.py``; the output is deterministic (fixed seed), so the
committed files can always be remade. numpy + the standard ``wave`` module only.
"""

from __future__ import annotations

import wave
from pathlib import Path

import numpy as np

RATE_HZ = 22050
SOUNDS_DIR = Path(__file__).resolve().parent / "sounds"

LENGTHS_S = {"engine_loop": 1.0, "gun_fire": 0.8, "impact_metal": 0.5, "impact_sand": 0.4,
             "explosion": 1.5, "gear_grind": 0.5, "ui_click": 0.05}
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


def ui_click(rng) -> np.ndarray:
    t = _time(LENGTHS_S["ui_click"])
    return np.sin(2 * np.pi * 1800.0 * t) * np.exp(-t / 0.008)


MAKERS = {"engine_loop": engine_loop, "gun_fire": gun_fire, "impact_metal": impact_metal,
          "impact_sand": impact_sand, "explosion": explosion, "gear_grind": gear_grind,
          "ui_click": ui_click}


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
