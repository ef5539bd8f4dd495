"""The offscreen smoke test: one real render through `main.py --offscreen --screenshot`.

The picture must show sky at the top, lit sand at the bottom and the vehicle near the
centre. Colours are judged against config/game.toml's scene colours, with tolerances
for lighting and fog.
"""

from __future__ import annotations

import colorsys
import json

import numpy as np
import pytest
from panda3d.core import Filename, PNMImage

SECONDS = 2
SAMPLE_EVERY_PX = 4


@pytest.fixture(scope="module")
def render(run_cli, tmp_path_factory):
    folder = tmp_path_factory.mktemp("render")
    png, telemetry = folder / "shot.png", folder / "telemetry.jsonl"
    result = run_cli("--offscreen", "--seconds", SECONDS, "--seed", "1", "--map", "desert",
                     "--screenshot", png, "--telemetry", telemetry)
    return result, png, telemetry


@pytest.fixture(scope="module")
def pixels(render) -> np.ndarray:
    """The screenshot as floats in [0, 1], rows top to bottom, every few pixels: (H, W, 4)."""
    result, png, _ = render
    assert result.returncode == 0, result.stderr[-2000:]
    image = PNMImage()
    assert image.read(Filename.fromOsSpecific(str(png))), "not a readable PNG"
    rows = []
    for y in range(0, image.getYSize(), SAMPLE_EVERY_PX):
        rows.append([(*image.getXel(x, y), image.getAlpha(x, y) if image.hasAlpha() else 1.0)
                     for x in range(0, image.getXSize(), SAMPLE_EVERY_PX)])
    return np.array(rows)


def test_offscreen_run_exits_0_and_writes_the_png(render, config):
    result, png, _ = render
    assert result.returncode == 0, result.stderr[-2000:]
    assert "Traceback" not in result.stderr
    image = PNMImage()
    assert image.read(Filename.fromOsSpecific(str(png)))
    window = config.game.window
    assert (image.getXSize(), image.getYSize()) == (window.width_px, window.height_px)


def test_offscreen_telemetry_has_one_line_per_step(render):
    _, _, telemetry = render
    lines = telemetry.read_text(encoding="utf-8").splitlines()
    assert len(lines) == SECONDS * 60
    assert json.loads(lines[-1])["t"] == pytest.approx(SECONDS)


def test_the_picture_is_opaque_and_not_blank(pixels):
    assert np.all(pixels[..., 3] > 0.99), "transparent pixels: no opaque background"
    rgb = pixels[..., :3]
    assert rgb.std(axis=(0, 1)).max() > 0.05, "one flat colour"


def test_sky_at_the_top(pixels, config):
    top = pixels[: len(pixels) // 8, :, :3]
    sky = np.array(config.game.scene.sky_colour)
    close = np.all(np.abs(top - sky) < 0.06, axis=-1)
    assert close.mean() > 0.9, f"only {close.mean():.0%} of the top is sky-coloured"


def _hue_saturation(rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    flat = rgb.reshape(-1, 3)
    hsv = np.array([colorsys.rgb_to_hsv(*pixel) for pixel in flat])
    return hsv[:, 0] * 360.0, hsv[:, 1]


def test_lit_sand_at_the_bottom(pixels, config):
    bottom = pixels[-len(pixels) // 5:, :, :3]
    red, green, blue = bottom[..., 0], bottom[..., 1], bottom[..., 2]
    ordered = (red > green) & (green > blue)
    assert ordered.mean() > 0.95, "the bottom is not sand-coloured (red > green > blue)"
    hue, saturation = _hue_saturation(bottom)
    scene = config.game.scene
    sand_hues = [_hue_saturation(np.array([colour]))[0][0]
                 for colour in (scene.sand_light_colour, scene.sand_dark_colour)]
    low, high = min(sand_hues) - 15.0, max(sand_hues) + 15.0
    sandy = (hue > low) & (hue < high) & (saturation > 0.25)
    assert sandy.mean() > 0.9, f"only {sandy.mean():.0%} of the bottom has a sand hue"
    # The sun lights it: brighter than the brightest sand under the sky light alone.
    ambient_only = np.array(scene.sand_light_colour) * np.array(scene.ambient_colour)
    assert np.median(red) > 1.2 * ambient_only.max(), "the sand is not sunlit"


def test_the_vehicle_is_near_the_centre(pixels, config):
    height, width = pixels.shape[:2]
    rgb = pixels[..., :3]
    paint = np.array(config.game.scene.vehicle_colour)
    chroma = rgb / np.maximum(rgb.sum(axis=-1, keepdims=True), 1e-6)
    olive = (np.abs(chroma - paint / paint.sum()).max(axis=-1) < 0.04) & (rgb.max(axis=-1) < 0.6)
    rows, columns = np.nonzero(olive)
    assert len(rows) > 0.005 * height * width, "no vehicle-coloured pixels"
    assert abs(columns.mean() / width - 0.5) < 0.15, "the vehicle is not near the middle"
    assert 0.3 < rows.mean() / height < 0.85, "the vehicle is not near the middle"
    # Nothing vehicle-coloured in the sky.
    assert not olive[: height // 8].any()
