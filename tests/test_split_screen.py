"""Two players on one machine, through `main.py --players 2 --offscreen --screenshot`.

The picture must show two views side by side (config/view.toml ``[split_screen]``):
a divider line down the middle, each half with a HUD of its own hanging from that half's
corners (the right half's is the left half's moved by exactly half the window) and drawn
smaller than a whole window's (a half is narrower for its height than the window), each
half with its own crosshair and reload ring in its middle, different scenes in the two
halves (player 2's tank stands beside player 1's), and, with no gamepad connected (none
is read in an offscreen run), the "connect a gamepad" notice in player 2's half only.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.pixels import pixels

pytestmark = pytest.mark.slow  # every test reads one split-screen window's picture

SECONDS = 1
COLOUR_TOLERANCE = 0.05
"""Flat HUD colours come out of the renderer within this of their config value."""


@pytest.fixture(scope="module")
def picture(run_forked, tmp_path_factory, config):
    assert config.view.split_screen.split == "side_by_side", "the checks expect left | right"
    png = tmp_path_factory.mktemp("split") / "two.png"
    result = run_forked("--offscreen", "--players", "2", "--bots", "2", "--seconds", SECONDS,
                        "--seed", "1", "--screenshot", png)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "Traceback" not in result.stderr
    return pixels(png)


def _near(pixels: np.ndarray, colour, tolerance: float = COLOUR_TOLERANCE) -> np.ndarray:
    return np.abs(pixels - np.asarray(colour[:3])).max(axis=-1) < tolerance


def _halves(mask: np.ndarray):
    """(rows, columns) of the set pixels in the left half and in the right half."""
    rows, columns = np.nonzero(mask)
    middle = mask.shape[1] // 2
    left, right = columns < middle, columns >= middle
    return (rows[left], columns[left]), (rows[right], columns[right])


def test_the_picture_has_the_windows_size(picture, config):
    window = config.view.window
    assert picture.shape[:2] == (window.height_px, window.width_px)


def test_a_divider_runs_down_the_middle(picture, config):
    spec = config.view.split_screen
    middle = picture.shape[1] // 2
    half_width_px = spec.divider_width * picture.shape[1] / 2.0
    assert half_width_px >= 1.0, "the divider is too thin to check"
    for column in (middle - 1, middle):
        assert _near(picture[:, column], spec.divider_colour).all(), column
    # Beside it, a picture on either side, not more divider.
    outside = int(np.ceil(half_width_px)) + 1
    for column in (middle - 1 - outside, middle + outside):
        assert _near(picture[:, column], spec.divider_colour).mean() < 0.2, column


def test_each_half_has_its_own_hud_in_its_own_corner(picture, config):
    """The health bar (a colour found nowhere else) in each half's bottom-left corner; the
    right half's is the left half's moved by half the window."""
    hud = config.view.hud
    (left_rows, left_columns), (right_rows, right_columns) = _halves(
        _near(picture, hud.health_colour, 0.1))
    height, width = picture.shape[:2]
    assert len(left_columns) > 200 and len(right_columns) > 200, "a HUD is missing"
    assert len(left_columns) == len(right_columns)
    assert left_columns.max() < width // 4 and left_rows.min() > height * 3 // 4
    assert right_columns.min() - left_columns.min() == pytest.approx(width // 2, abs=2)
    assert right_columns.max() - left_columns.max() == pytest.approx(width // 2, abs=2)
    assert (right_rows.min(), right_rows.max()) == (left_rows.min(), left_rows.max())


def test_each_halfs_hud_is_drawn_smaller_than_a_whole_windows(picture, config):
    """A half as wide as the window is drawn with a smaller HUD: its health bar (full at
    the start) is ``hud_scale`` of a whole window's."""
    from game.view.hud.hud import hud_scale
    from game.view.player_view import SPLIT_REGIONS
    hud = config.view.hud
    (_, left_columns), (_, right_columns) = _halves(_near(picture, hud.health_colour, 0.1))
    scale = hud_scale(SPLIT_REGIONS["side_by_side"][0], hud.least_view_scale)
    whole_window_px = hud.bar_size[0] * picture.shape[0] / 2.0
    assert scale < 1.0
    for columns in (left_columns, right_columns):
        width_px = columns.max() - columns.min() + 1
        assert width_px == pytest.approx(whole_window_px * scale, abs=3)


def test_each_half_has_its_crosshair_and_reload_ring_in_its_middle(picture, config):
    hud = config.view.hud
    (left_rows, left_columns), (right_rows, right_columns) = _halves(
        _near(picture, hud.reload_colour, 0.08))
    width = picture.shape[1]
    assert len(left_columns) > 50 and len(right_columns) > 50
    for columns, middle in ((left_columns, width // 4), (right_columns, width * 3 // 4)):
        assert abs(np.median(columns) - middle) < width // 16


def test_the_two_halves_show_different_scenes(picture):
    height, width = picture.shape[:2]
    middle = width // 2
    span = middle - 8
    band = slice(height // 5, height * 3 // 5)  # between the minimap and the HUD panel
    left = picture[band, :span]
    right = picture[band, middle + 8:middle + 8 + span]
    assert np.abs(left - right).mean() > 0.02, "the halves show the same picture"
    for half in (left, right):
        assert half.std(axis=(0, 1)).max() > 0.05, "a blank half"


def test_player_two_without_a_pad_is_asked_to_connect_one(picture, config):
    spec = config.view.split_screen
    height = picture.shape[0]
    notice = _near(picture, spec.notice_colour, 0.04)
    notice[height * 3 // 5:] = False  # below: the HUD panels (the gear knob is yellow too)
    (_, left_columns), (right_rows, right_columns) = _halves(notice)
    assert len(right_columns) > 100, "no notice in player 2's half"
    assert len(left_columns) < 10, "the notice shows in player 1's half"
    assert height // 4 < np.median(right_rows) < height // 2
