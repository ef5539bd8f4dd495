"""Textures generated at start-up with numpy (a few milliseconds; nothing is downloaded).

- :func:`sand_detail_texture`: a seamlessly tiling RGBA texture: RG hold the slope of
  fine sand ripples and grain (normal detail), B a fine brightness variation, A a
  coarse blotchy one (also used, sampled at a large scale, as the mask that blends the
  shader's two detail scales, which breaks up any visible repetition).
- :func:`track_texture`: one track link per repeat along U: a plate, a raised grouser
  bar and the dark gap between links.

Periodic noise comes from filtering white noise in the frequency domain: whatever the
filter, the result tiles exactly.
"""

from __future__ import annotations

import numpy as np
from panda3d.core import SamplerState, Texture


def _periodic_noise(rng: np.random.Generator, size: int, weight) -> np.ndarray:
    """White noise shaped by ``weight(kx, ky)`` (frequencies in cycles per tile), unit std."""
    frequencies = np.fft.fftfreq(size, 1.0 / size)
    kx, ky = np.meshgrid(frequencies, frequencies)
    spectrum = np.fft.fft2(rng.standard_normal((size, size))) * weight(kx, ky)
    field = np.real(np.fft.ifft2(spectrum))
    return (field - field.mean()) / max(field.std(), 1e-12)


def _to_unit(field: np.ndarray) -> np.ndarray:
    """Map a unit-std field to 0..1 (about +-2.5 std), clipped."""
    return np.clip(0.5 + field / 5.0, 0.0, 1.0)


def _texture(name: str, rgba: np.ndarray, *, mipmaps: bool) -> Texture:
    height, width = rgba.shape[:2]
    texture = Texture(name)
    texture.setup2dTexture(width, height, Texture.T_unsigned_byte, Texture.F_rgba8)
    data = np.ascontiguousarray((np.clip(rgba, 0.0, 1.0) * 255.0 + 0.5).astype(np.uint8))
    texture.setRamImageAs(data.tobytes(), "RGBA")
    texture.setWrapU(SamplerState.WM_repeat)
    texture.setWrapV(SamplerState.WM_repeat)
    texture.setMagfilter(SamplerState.FT_linear)
    texture.setMinfilter(SamplerState.FT_linear_mipmap_nearest if mipmaps
                         else SamplerState.FT_linear)
    return texture


def sand_detail_texture(size_px: int, ripples_per_tile: float, ripple_slope: float,
                        grain_slope: float, seed: int) -> Texture:
    """The tiling sand detail texture (see the module's description)."""
    rng = np.random.default_rng([seed, 0x5A4D])

    def ripple_weight(kx, ky):
        # A ring of wavelengths around ripples_per_tile, mostly along one direction.
        k = np.hypot(kx, ky)
        along = np.abs(kx) / np.maximum(k, 1e-9)
        ring = np.exp(-((k - ripples_per_tile) / (0.25 * ripples_per_tile)) ** 2)
        return ring * along ** 6

    def grain_weight(kx, ky):
        k = np.hypot(kx, ky)
        return (k > size_px / 16) * 1.0

    def blotch_weight(kx, ky):
        k = np.hypot(kx, ky)
        return np.exp(-(k / 3.0) ** 2) * (k > 0)

    ripples = _periodic_noise(rng, size_px, ripple_weight)
    grain = _periodic_noise(rng, size_px, grain_weight)
    # Slopes per pixel of a unit-amplitude field, turned into tilt of the normal.
    ripple_dy, ripple_dx = np.gradient(np.pad(ripples, 1, mode="wrap"))
    ripple_dx, ripple_dy = ripple_dx[1:-1, 1:-1], ripple_dy[1:-1, 1:-1]
    ripple_scale = ripple_slope / max(np.abs(ripple_dx).std(), 1e-9)
    tilt_x = -ripple_dx * ripple_scale + grain_slope * grain
    tilt_y = -ripple_dy * ripple_scale + grain_slope * _periodic_noise(rng, size_px,
                                                                       grain_weight)
    fine = _to_unit(0.6 * grain + 0.8 * ripples)
    coarse = _to_unit(_periodic_noise(rng, size_px, blotch_weight) * 1.6)
    rgba = np.stack([np.clip(0.5 + 0.5 * tilt_x, 0, 1), np.clip(0.5 + 0.5 * tilt_y, 0, 1),
                     fine, coarse], axis=-1)
    return _texture("sand-detail", rgba, mipmaps=True)


def track_texture(width_px: int, length_px: int, plate: float, grouser: float, gap: float,
                  grouser_share: float, gap_share: float) -> Texture:
    """One link along U (``length_px``), across the track along V (``width_px``).

    Values multiply the track colour: ``plate`` on the link's plate, ``grouser`` on its
    raised bar, ``gap`` in the gap before the next link.
    """
    u = (np.arange(length_px) + 0.5) / length_px
    profile = np.full(length_px, plate)
    profile[np.abs(u - 0.5) < grouser_share / 2] = grouser
    profile[u > 1.0 - gap_share] = gap
    v = (np.arange(width_px) + 0.5) / width_px
    # The middle guide horn and the edges read a little darker.
    across = 1.0 - 0.25 * (np.abs(v - 0.5) < 0.06) - 0.15 * (np.abs(v - 0.5) > 0.44)
    value = across[:, None] * profile[None, :]
    rgba = np.stack([value, value, value, np.ones_like(value)], axis=-1)
    return _texture("track-links", rgba, mipmaps=True)
