"""Draw the game's icon (a tank seen from above on sand, 256×256 RGBA) into assets/icon.png.

Run ``python assets/make_icon.py``; the drawing is exact geometry, so the committed file can
always be remade. numpy and the standard ``zlib`` only: each shape is a signed distance
field, and a pixel's cover is its distance clipped to one pixel, which antialiases edges.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np

SIZE_PX = 256
ICON_PATH = Path(__file__).resolve().parent / "icon.png"

SAND = (0.86, 0.72, 0.48)
HULL = (0.30, 0.34, 0.20)
TRACKS = (0.16, 0.16, 0.14)
TURRET = (0.38, 0.43, 0.25)
OUTLINE_PX = 6.0
CORNER_PX = 44.0


def _box(x, y, centre, half, corner=0.0):
    """Signed distance (px, negative inside) to a box with rounded corners."""
    qx = np.abs(x - centre[0]) - half[0] + corner
    qy = np.abs(y - centre[1]) - half[1] + corner
    outside = np.hypot(np.maximum(qx, 0.0), np.maximum(qy, 0.0))
    return outside + np.minimum(np.maximum(qx, qy), 0.0) - corner


def _circle(x, y, centre, radius):
    return np.hypot(x - centre[0], y - centre[1]) - radius


def _cover(distance):
    """How much of each pixel a shape covers, from its signed distance."""
    return np.clip(0.5 - distance, 0.0, 1.0)


def draw() -> np.ndarray:
    """The icon as an array of rows × columns × RGBA bytes."""
    y, x = np.mgrid[0:SIZE_PX, 0:SIZE_PX] + 0.5
    middle = SIZE_PX / 2.0
    tile = _box(x, y, (middle, middle), (middle - 4.0, middle - 4.0), CORNER_PX)
    layers = [
        (SAND, _cover(tile)),
        (TRACKS, _cover(_box(x, y, (middle - 50.0, middle + 8.0), (20.0, 88.0), 8.0))),
        (TRACKS, _cover(_box(x, y, (middle + 50.0, middle + 8.0), (20.0, 88.0), 8.0))),
        (HULL, _cover(_box(x, y, (middle, middle + 8.0), (38.0, 80.0), 10.0))),
        (TRACKS, _cover(_box(x, y, (middle, middle - 56.0), (8.0, 64.0), 3.0) - OUTLINE_PX / 2)),
        (TURRET, _cover(_box(x, y, (middle, middle - 56.0), (5.0, 62.0), 2.0))),
        (TRACKS, _cover(_circle(x, y, (middle, middle + 14.0), 36.0 + OUTLINE_PX / 2))),
        (TURRET, _cover(_circle(x, y, (middle, middle + 14.0), 33.0))),
    ]
    colour = np.zeros((SIZE_PX, SIZE_PX, 3))
    for rgb, cover in layers:
        colour += (np.asarray(rgb) - colour) * cover[..., None]
    alpha = _cover(tile)
    rgba = np.concatenate([colour, alpha[..., None]], axis=2)
    return np.round(rgba * 255.0).astype(np.uint8)


def png_bytes(rgba: np.ndarray) -> bytes:
    """An 8-bit RGBA PNG of ``rgba`` (rows × columns × 4)."""
    height, width = rgba.shape[:2]

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = b"".join(b"\x00" + row.tobytes() for row in rgba)
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))


def main() -> None:
    ICON_PATH.write_bytes(png_bytes(draw()))


if __name__ == "__main__":
    main()
