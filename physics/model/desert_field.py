"""The procedural desert as a field: the height at any point of a map, from its seed.

Everything random about a desert (the wind's direction and the lattices of its noise) is
drawn once, when the field is made, for the whole map; after that a height is a pure
function of the point. So a map can be made all at once (the 512 m ``desert``) or a tile
at a time in any order (``desert:SIZE``, :mod:`physics.model.tiled_terrain`), and a
sample two tiles share has the same height in both.

The lattices are small whatever the map's size (one number per noise feature: a 16 km
map's finest noise, the undulation's last octave, is a few hundred values a side).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from common.spec import Spec, SpecError, tuning
from physics.model import field_kernel


class NoiseLattice:
    """Smooth noise in [-1, 1] with features about ``scale_m`` across: random values on a
    square lattice ``scale_m`` apart from an origin, blended with a quintic fade."""

    def __init__(self, origin_u_m: float, origin_v_m: float, extent_u_m: float,
                 extent_v_m: float, scale_m: float, rng: np.random.Generator):
        """A lattice that covers ``extent_u_m`` by ``extent_v_m`` from the origin."""
        self.origin_u_m, self.origin_v_m, self.scale_m = origin_u_m, origin_v_m, scale_m
        self.values = rng.uniform(-1.0, 1.0, size=(int(extent_v_m / scale_m) + 2,
                                                   int(extent_u_m / scale_m) + 2))

    def __call__(self, u_m: np.ndarray, v_m: np.ndarray) -> np.ndarray:
        u = (u_m - self.origin_u_m) / self.scale_m
        v = (v_m - self.origin_v_m) / self.scale_m
        i, j = np.floor(u).astype(np.int64), np.floor(v).astype(np.int64)
        fu, fv = u - i, v - j
        fu = fu * fu * fu * (fu * (fu * 6 - 15) + 10)
        fv = fv * fv * fv * (fv * (fv * 6 - 15) + 10)
        lattice = self.values
        bottom = lattice[j, i] * (1 - fu) + lattice[j, i + 1] * fu
        top = lattice[j + 1, i] * (1 - fu) + lattice[j + 1, i + 1] * fu
        return bottom * (1 - fv) + top * fv


class FractalNoise:
    """Octaves of :class:`NoiseLattice`, each half the size and half the amplitude of the
    last; about [-1, 1]."""

    def __init__(self, bounds_m: tuple[float, float, float, float], scale_m: float,
                 octaves: int, rng: np.random.Generator):
        """``bounds_m``: the least and greatest u, then v, the noise is read at."""
        u_min, u_max, v_min, v_max = bounds_m
        self.octaves = [NoiseLattice(u_min, v_min, u_max - u_min, v_max - v_min,
                                     scale_m / 2 ** octave, rng) for octave in range(octaves)]

    def __call__(self, u_m: np.ndarray, v_m: np.ndarray) -> np.ndarray:
        total = np.zeros_like(u_m)
        amplitude, norm = 1.0, 0.0
        for lattice in self.octaves:
            total += amplitude * lattice(u_m, v_m)
            norm += amplitude
            amplitude *= 0.5
        return total / norm


def fractal_noise(x_m, y_m, scale_m: float, octaves: int, rng) -> np.ndarray:
    """Fractal noise over the points given, its lattices drawn to cover just them."""
    bounds = (float(x_m.min()), float(x_m.max()), float(y_m.min()), float(y_m.max()))
    return FractalNoise(bounds, scale_m, octaves, rng)(x_m, y_m)


def _corner_bounds(values: list[float]) -> tuple[float, float]:
    return min(values), max(values)


class DesertField:
    """Dune ridges across a seeded wind, on rolling ground, with ripples: the height of a
    ``size_m`` square map centred on the origin, at any points of it."""

    def __init__(self, spec, seed: int, size_m: float):
        """``spec``: a :class:`~physics.model.terrain.DesertSpec` (its ``size_m`` aside)."""
        self.spec = spec
        self.seed, self.size_m = seed, size_m
        rng = np.random.default_rng(seed)
        half = size_m / 2.0
        self.wind_rad = rng.uniform(0.0, 2.0 * math.pi)
        cos_wind, sin_wind = math.cos(self.wind_rad), math.sin(self.wind_rad)
        corners = [(-half, -half), (half, -half), (-half, half), (half, half)]
        xy_bounds = (-half, half, -half, half)
        along = _corner_bounds([x * cos_wind + y * sin_wind for x, y in corners])
        across = _corner_bounds([-x * sin_wind + y * cos_wind for x, y in corners])
        self._wander = FractalNoise(xy_bounds, spec.ridge_wander_scale_m, 2, rng)
        self._crest = FractalNoise(along + across, spec.crest_variation_scale_m, 1, rng)
        self._undulation = FractalNoise(xy_bounds, spec.undulation_scale_m,
                                        spec.undulation_octaves, rng)
        self.compiled_form = (
            np.array([cos_wind, sin_wind, spec.ridge_wander_m, spec.dune_wavelength_m,
                      spec.lee_fraction, spec.dune_height_m, spec.crest_variation,
                      spec.undulation_height_m, spec.ripple_wavelength_m, spec.ripple_height_m]),
            *field_kernel.pack_lattices((self._wander, self._crest, self._undulation)))
        """The field as :mod:`~physics.model.field_kernel`'s loops take it: its shape
        numbers, each noise's octaves, and the lattices' table and values."""

    @property
    def bounds_m(self) -> tuple[float, float]:
        """Heights the field can never leave: the dunes' trough and crest with the
        undulation and ripples at their extremes."""
        spec = self.spec
        low = -spec.undulation_height_m - spec.ripple_height_m * 0.5
        high = spec.dune_height_m + spec.undulation_height_m + spec.ripple_height_m * 0.5
        return low, high

    def heights(self, x_m: np.ndarray, y_m: np.ndarray) -> np.ndarray:
        """Heights at points (any shape, x and y alike)."""
        if field_kernel.AVAILABLE:
            x_flat = np.ascontiguousarray(x_m, dtype=float).reshape(-1)
            heights_m = np.empty(x_flat.shape)
            field_kernel.field_heights(*self.compiled_form, x_flat,
                                       np.ascontiguousarray(y_m, dtype=float).reshape(-1),
                                       heights_m)
            return heights_m.reshape(np.shape(x_m))
        spec = self.spec
        cos_wind, sin_wind = math.cos(self.wind_rad), math.sin(self.wind_rad)
        along_m = x_m * cos_wind + y_m * sin_wind
        across_m = -x_m * sin_wind + y_m * cos_wind
        wander_m = spec.ridge_wander_m * self._wander(x_m, y_m)
        phase = (along_m + wander_m) / spec.dune_wavelength_m
        position = phase - np.floor(phase)  # 0..1 through one dune, windward face first
        windward = 1.0 - spec.lee_fraction
        rise = np.where(position < windward, position / windward,
                        (1.0 - position) / spec.lee_fraction)
        profile = rise * rise * (3.0 - 2.0 * rise)  # rounded crests and troughs
        crest_scale = 1.0 - spec.crest_variation * 0.5 * (1.0 + self._crest(along_m, across_m))
        dunes = spec.dune_height_m * profile * crest_scale
        undulation = spec.undulation_height_m * self._undulation(x_m, y_m)
        ripple_phase = 2.0 * math.pi * (along_m + wander_m) / spec.ripple_wavelength_m
        ripples = spec.ripple_height_m * 0.5 * np.sin(ripple_phase)
        return dunes + undulation + ripples


@dataclass(frozen=True)
class TileSpec(Spec):
    """How a big desert (``desert:SIZE``) is made and kept: in square tiles, made ahead
    of what moves and dropped behind it."""

    tile_size_m: float = tuning("side of a tile (divides 512 m, a whole number of samples)",
                                minimum=64.0, maximum=512.0)
    load_radius_m: float = tuning("tiles within this of a vehicle or a shell are made ahead "
                                  "of need", minimum=16.0, maximum=2000.0)
    unload_radius_m: float = tuning("... and dropped once further than this from all of "
                                    "them (more than load_radius_m: no coming and going at "
                                    "a border)", minimum=32.0, maximum=4000.0)
    collider_radius_m: float = tuning("tiles within this of a vehicle or a shell have a "
                                      "Bullet collider ...", minimum=16.0, maximum=2000.0)
    collider_unload_radius_m: float = tuning("... until further than this from all of them",
                                             minimum=32.0, maximum=4000.0)
    tiles_queued_ahead: int = tuning("tiles the worker thread makes ahead of need at a "
                                     "time at most (the ones needed now are made at once)",
                                     minimum=1, maximum=64)
    restream_after_m: float = tuning("the tiles and colliders wanted are worked out afresh "
                                     "once something has moved this far since the last time "
                                     "(or something came or went)", minimum=0.0,
                                     maximum=64.0)
    shell_lookahead_s: float = tuning("the tiles a flying shell will pass over within this "
                                      "time are made ahead on the worker thread (it makes "
                                      "one in about 10 ms; a shell crosses one in 0.2 s)",
                                      minimum=0.0, maximum=5.0)
    spare_tiles: int = tuning("tiles a look far off made (a sight line, a shell's path) "
                              "kept besides the ones near what moves, the least lately used "
                              "dropped first", minimum=0, maximum=256)
    pool_tiles: int = tuning("room set aside at the start for this many tiles (address "
                             "space: memory is used only by the tiles made); past it the "
                             "pool doubles, a copy of every tile made (a hitch)",
                             minimum=1, maximum=4096)
    overview_samples: int = tuning("samples a side of the coarse overview of the whole map "
                                   "(its relief sets where hardpan lies; the minimap)",
                                   minimum=16, maximum=1024)

    def __post_init__(self) -> None:
        super().__post_init__()
        if 512.0 % self.tile_size_m:
            raise SpecError("tile_size_m", self.tile_size_m, "a divisor of 512")
        if self.collider_radius_m <= 2.0 * self.restream_after_m:
            raise SpecError("restream_after_m", self.restream_after_m,
                            f"less than half collider_radius_m ({self.collider_radius_m})")
        for near, far in (("load_radius_m", "unload_radius_m"),
                          ("collider_radius_m", "collider_unload_radius_m")):
            if getattr(self, far) <= getattr(self, near):
                raise SpecError(far, getattr(self, far), f"more than {near} "
                                f"({getattr(self, near)})")
