"""A screenshot's pixels as one numpy array, read at once rather than pixel by pixel.

:func:`pixels` gives exactly the numbers ``PNMImage.getXel`` (and ``getAlpha``) give one
pixel at a time: an 8-bit channel's value times the float ``1 / maxval``, in single
precision, as Panda3D's linear (generic) encoding reads it. A whole 1280x720 picture read
through ``getXel`` took seconds of Python calls; this takes milliseconds.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from panda3d.core import CS_sRGB, Filename, PNMImage, Texture


def pixels(path: Path | str, alpha: bool = False) -> np.ndarray:
    """The PNG at ``path`` as floats in [0, 1]: (rows top to bottom, columns, RGB), or
    RGBA with ``alpha`` (1.0 where the picture has no alpha, as ``getAlpha`` says)."""
    image = PNMImage()
    assert image.read(Filename.fromOsSpecific(str(path))), f"not a readable PNG: {path}"
    assert image.getMaxval() == 255 and image.getColorSpace() != CS_sRGB, "an 8-bit linear PNG"
    texture = Texture()
    assert texture.load(image) and texture.getComponentWidth() == 1
    width, height = image.getXSize(), image.getYSize()
    channels = "RGBA" if alpha else "RGB"
    raw = np.frombuffer(texture.getRamImageAs(channels), np.uint8)
    raw = raw.reshape(height, width, len(channels))[::-1]  # a texture's rows go upwards
    values = raw.astype(np.float32) * (np.float32(1.0) / np.float32(image.getMaxval()))
    if alpha and not image.hasAlpha():
        values[..., 3] = 1.0
    return values.astype(np.float64)
