"""The offscreen smoke test: one real render through `main.py --offscreen --screenshot`.

The picture must show a sky gradient at the top, lit sand at the bottom, the vehicle
near the centre and its shadow on the sand on the side away from the sun. Colours are
judged against config/view.toml's scene colours, with tolerances for lighting and fog.
"""

from __future__ import annotations

import colorsys
import json

import numpy as np
import pytest
from panda3d.core import Filename, PNMImage

from tests.pixels import pixels as read_pixels

pytestmark = pytest.mark.slow  # every test reads one offscreen run's picture

SECONDS = 2
SAMPLE_EVERY_PX = 4


@pytest.fixture(scope="module")
def render(run_forked, tmp_path_factory):
    folder = tmp_path_factory.mktemp("render")
    png, telemetry = folder / "shot.png", folder / "telemetry.jsonl"
    result = run_forked("--offscreen", "--seconds", SECONDS, "--seed", "1", "--map", "desert",
                        "--screenshot", png, "--telemetry", telemetry)
    return result, png, telemetry


@pytest.fixture(scope="module")
def pixels(render) -> np.ndarray:
    """The screenshot as floats in [0, 1], rows top to bottom, every few pixels: (H, W, 4)."""
    result, png, _ = render
    assert result.returncode == 0, result.stderr[-2000:]
    return read_pixels(png, alpha=True)[::SAMPLE_EVERY_PX, ::SAMPLE_EVERY_PX]


def test_offscreen_run_exits_0_and_writes_the_png(render, config):
    result, png, _ = render
    assert result.returncode == 0, result.stderr[-2000:]
    assert "Traceback" not in result.stderr
    image = PNMImage()
    assert image.read(Filename.fromOsSpecific(str(png)))
    window = config.view.window
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


def test_a_sky_gradient_at_the_top(pixels, config):
    scene = config.view.scene
    top = pixels[: len(pixels) // 10, :, :3].reshape(-1, 3)
    zenith, horizon = np.array(scene.sky_colour), np.array(scene.fog_colour)
    # Every sky pixel lies between the horizon and zenith colours (plus the sun's glow).
    blueness = top[:, 2] - top[:, 0]
    assert (blueness > 0.0).mean() > 0.9, "the top of the picture is not sky-blue"
    # The sky gets bluer upward: the top row is nearer the zenith colour than the horizon
    # band just above the ground.
    ground_rows = np.nonzero(_is_sand(pixels[..., :3]).mean(axis=1) > 0.5)[0]
    horizon_row = ground_rows.min() - 2
    assert horizon_row > len(pixels) // 8, "no sky above the ground"
    top_colour = pixels[0, :, :3].mean(axis=0)
    band_colour = pixels[horizon_row, :, :3].mean(axis=0)
    assert np.linalg.norm(top_colour - band_colour) > 0.08, "flat sky: no gradient"
    assert np.linalg.norm(top_colour - zenith) < np.linalg.norm(top_colour - horizon)
    assert np.linalg.norm(band_colour - horizon) < np.linalg.norm(band_colour - zenith)


def _is_sand(rgb: np.ndarray) -> np.ndarray:
    red, green, blue = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    return (red > green) & (green > blue) & (red - blue > 0.15)


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
    scene = config.view.scene
    sand_hues = [_hue_saturation(np.array([colour]))[0][0]
                 for colour in (scene.sand_light_colour, scene.sand_dark_colour)]
    low, high = min(sand_hues) - 15.0, max(sand_hues) + 15.0
    sandy = (hue > low) & (hue < high) & (saturation > 0.25)
    assert sandy.mean() > 0.9, f"only {sandy.mean():.0%} of the bottom has a sand hue"
    # The sun lights it: brighter than the brightest sand under the sky light alone.
    ambient_only = np.array(scene.sand_light_colour) * np.array(scene.ambient_colour)
    assert np.median(red) > 1.2 * ambient_only.max(), "the sand is not sunlit"


def _olive(pixels, config) -> np.ndarray:
    """Pixels of the vehicles' paint, in the scene (not the minimap, whose shaded sand can
    come close to it)."""
    rgb = pixels[..., :3]
    paint = np.array(config.view.scene.vehicle_colour)
    chroma = rgb / np.maximum(rgb.sum(axis=-1, keepdims=True), 1e-6)
    olive = (np.abs(chroma - paint / paint.sum()).max(axis=-1) < 0.04) & (rgb.max(axis=-1) < 0.75)
    # The minimap's square in the top right corner: its size and margin are in shares of
    # the picture's half height.
    height, width = pixels.shape[:2]
    half_height = height / 2.0
    hud = config.view.hud
    reach = int(np.ceil((hud.margin + hud.minimap_size) * half_height)) + 1
    olive[:reach, width - reach:] = False
    # The panels down the left edge (the dashboard, the damage panel over it), whose
    # translucent backing over sand comes close too: as wide as the bars and their margins.
    olive[:, :int(np.ceil((3.0 * hud.margin + hud.bar_size[0]) * half_height)) + 1] = False
    return olive


def test_the_vehicle_is_near_the_centre(pixels, config):
    height, width = pixels.shape[:2]
    olive = _olive(pixels, config)
    rows, columns = np.nonzero(olive)
    assert len(rows) > 0.005 * height * width, "no vehicle-coloured pixels"
    assert abs(columns.mean() / width - 0.5) < 0.15, "the vehicle is not near the middle"
    assert 0.3 < rows.mean() / height < 0.85, "the vehicle is not near the middle"
    # Nothing vehicle-coloured in the sky.
    assert not olive[: height // 8].any()


def test_the_vehicle_casts_a_shadow_away_from_the_sun(pixels, config):
    """The sun shines from the south-west (behind and left of a camera looking north):
    beside the tank on its right the sand is in shadow, on its left it is not."""
    scene = config.view.scene
    sun_from = np.radians(scene.sun_heading_deg)
    assert np.sin(sun_from) < 0.0, "the test expects sunlight from the west (camera looks +Y)"
    olive = _olive(pixels, config)
    rows, columns = np.nonzero(olive)
    top, bottom = np.percentile(rows, [20, 95]).astype(int)
    left, right = np.percentile(columns, [2, 98]).astype(int)
    span = right - left
    luminance = pixels[..., :3].mean(axis=-1)
    rgb = pixels[..., :3]
    sand = (rgb[..., 0] > rgb[..., 1]) & (rgb[..., 1] > rgb[..., 2])  # shaded sand too
    away = (slice(top, bottom), slice(right + 2, right + 2 + span // 2))
    toward = (slice(top, bottom), slice(max(left - 2 - span // 2, 0), left - 2))
    assert sand[away].mean() > 0.8 and sand[toward].mean() > 0.8, "no sand beside the tank"
    shaded = np.median(luminance[away])
    sunlit = np.median(luminance[toward])
    assert shaded < 0.8 * sunlit, f"no shadow: {shaded:.2f} beside vs {sunlit:.2f} opposite"
