"""The minimap's ground: the map's relief as a shaded texture, made once from the terrain's
heights, of which the minimap shows the window round the player (north up).

Each texel is the ground's colour by its height (``relief_low_colour`` in the lowest
hollow to ``relief_high_colour`` on the highest crest), lit by a sun from
``relief_light_deg`` (compass, 45 degrees up), so a dune's lit face and its shadowed lee
read as they do on the ground. Off the map's edge the texture is the backing's colour.
"""

from __future__ import annotations

import math

import numpy as np
from panda3d.core import (GeomVertexReader, GeomVertexWriter, NodePath, SamplerState, Texture)

from game.view.draw.overlay import card

SUN_ELEVATION_DEG = 45.0
"""The shading sun's height above the horizon."""
DARKEST_SHADE = 0.45
"""A face turned away from the sun keeps this share of its colour (the sky lights it)."""


def overview_heights(terrain, most_samples: int) -> np.ndarray:
    """The whole map's heights (rows by y from the south, columns by x from the west), at
    most ``most_samples`` a side: a big desert's coarse overview (no tile is made), else
    every n-th sample of the height array."""
    heights = getattr(terrain, "overview_m", None)
    if heights is None:
        heights = terrain.heights_m
    step = max(1, int(math.ceil(max(heights.shape) / most_samples)))
    return np.asarray(heights[::step, ::step], dtype=float)


def relief_image(heights_m: np.ndarray, spacing_m: float, low_colour, high_colour,
                 light_deg: float) -> np.ndarray:
    """RGBA bytes (rows, columns, 4) of the shaded relief of ``heights_m`` (samples
    ``spacing_m`` apart)."""
    rise_y, rise_x = np.gradient(heights_m, spacing_m)
    normals = np.stack([-rise_x, -rise_y, np.ones_like(heights_m)], axis=-1)
    normals /= np.linalg.norm(normals, axis=-1, keepdims=True)
    bearing, elevation = math.radians(light_deg), math.radians(SUN_ELEVATION_DEG)
    sun = np.array([math.sin(bearing) * math.cos(elevation),
                    math.cos(bearing) * math.cos(elevation), math.sin(elevation)])
    lit = np.clip(normals @ sun, 0.0, 1.0)
    shade = DARKEST_SHADE + (1.0 - DARKEST_SHADE) * lit
    low, high = float(heights_m.min()), float(heights_m.max())
    share = (heights_m - low) / max(high - low, 1e-9)
    low_colour, high_colour = np.asarray(low_colour, float), np.asarray(high_colour, float)
    colour = low_colour + (high_colour - low_colour) * share[..., None]
    colour[..., :3] *= shade[..., None]
    return np.round(np.clip(colour, 0.0, 1.0) * 255.0).astype(np.uint8)


def relief_texture(image: np.ndarray) -> Texture:
    """A texture of an RGBA image (row 0 at the bottom), its edge texels repeated beyond
    its edges (:func:`framed` makes them the backing's colour)."""
    rows, columns = image.shape[:2]
    texture = Texture("minimap-relief")
    texture.setup2dTexture(columns, rows, Texture.T_unsigned_byte, Texture.F_rgba8)
    texture.setRamImage(np.ascontiguousarray(image[..., [2, 1, 0, 3]]).tobytes())  # BGRA
    texture.setWrapU(SamplerState.WM_clamp)
    texture.setWrapV(SamplerState.WM_clamp)
    texture.setMinfilter(SamplerState.FT_linear)
    texture.setMagfilter(SamplerState.FT_linear)
    return texture


def framed(image: np.ndarray, frame_colour, least_frame: int) -> tuple[np.ndarray, int]:
    """``image`` in a frame of ``frame_colour`` texels at least ``least_frame`` wide, grown
    to a power of two a side (Panda would pad it to one itself, and the card's texture
    coordinates would no longer match it); and the frame's width before the image's first
    row and column."""
    rows, columns = image.shape[:2]
    side = 1 << int(math.ceil(math.log2(max(rows, columns) + 2 * least_frame)))
    first = (side - columns) // 2
    canvas = np.empty((side, side, 4), np.uint8)
    canvas[...] = np.round(np.asarray(frame_colour, float) * 255.0).astype(np.uint8)
    canvas[first:first + rows, first:first + columns] = image
    return canvas, first


class MinimapRelief:
    """The relief card filling the minimap's square (``left``..``right``,
    ``bottom``..``top`` on ``parent``): the ``window_m`` metres round a point, of a texture
    whose texel (0, 0) is centred on ``first_xy_m`` and whose texels are ``texel_m``
    apart."""

    def __init__(self, parent: NodePath, square: tuple[float, float, float, float],
                 texture: Texture, first_xy_m: tuple[float, float], texel_m: float,
                 window_m: float):
        self.square = square
        left, right, bottom, top = square
        self.path = card(parent, "minimap-relief", left, right, bottom, top, (1, 1, 1, 1))
        self.path.setTexture(texture)
        self.width_m = (texture.getXSize() * texel_m, texture.getYSize() * texel_m)
        """What the whole texture spans, west to east and south to north."""
        self.origin_m = (first_xy_m[0] - texel_m / 2.0, first_xy_m[1] - texel_m / 2.0)
        """The texture's south-west corner (its texel (0, 0)'s outer corner)."""
        self.window_m = window_m
        self.centre_uv = (0.5, 0.5)

    def uv(self, x_m: float, y_m: float) -> tuple[float, float]:
        """Where a point of the map is on the texture."""
        return ((x_m - self.origin_m[0]) / self.width_m[0],
                (y_m - self.origin_m[1]) / self.width_m[1])

    def follow(self, x_m: float, y_m: float) -> None:
        """Show the window round (x, y): the card's corners' texture coordinates (written
        into its four vertices: a texture matrix is not honoured by every 2D pipeline)."""
        u, v = self.uv(x_m, y_m)
        half_u, half_v = self.window_m / self.width_m[0], self.window_m / self.width_m[1]
        left, right, bottom, top = self.square
        data = self.path.node().modifyGeom(0).modifyVertexData()
        reader = GeomVertexReader(data, "vertex")
        writer = GeomVertexWriter(data, "texcoord")
        while not reader.isAtEnd():
            corner = reader.getData3()
            share_x = (corner[0] - left) / (right - left)
            share_z = (corner[2] - bottom) / (top - bottom)
            writer.setData2(u + half_u * (2.0 * share_x - 1.0), v + half_v * (2.0 * share_z - 1.0))
        self.centre_uv = (u, v)

    def destroy(self) -> None:
        self.path.removeNode()
