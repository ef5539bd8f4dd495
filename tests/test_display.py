"""The display settings: the resolutions offered (the display's modes, deduplicated and
sorted, or the configured fallbacks), what the window opens with, and on an offscreen
ShowBase (a process of its own) the graphics quality switching the sun's shadows and
antialiasing, and fullscreen doing nothing there."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from types import SimpleNamespace

import pytest
from panda3d.core import ConfigVariableBool, ConfigVariableInt, unloadPrcFile

from game.view.display import ANTIALIASING, VSYNC, Display, display_modes, resolution_choices
from game.view.window import configure_window


class FakeDisplayInformation:
    def __init__(self, modes):
        self.modes = modes

    def getTotalDisplayModes(self):
        return len(self.modes)

    def getDisplayModeWidth(self, index):
        return self.modes[index][0]

    def getDisplayModeHeight(self, index):
        return self.modes[index][1]


def test_the_displays_modes_come_once_each_smallest_first():
    # Modes differ in refresh rate and depth too: the same size comes several times.
    information = FakeDisplayInformation([(1920, 1080), (1280, 720), (1920, 1080), (800, 600),
                                          (1280, 1024), (1280, 720), (0, 0)])
    assert display_modes(information) == [(800, 600), (1280, 720), (1280, 1024), (1920, 1080)]


def test_the_choices_are_the_modes_as_the_settings_write_them(config):
    information = FakeDisplayInformation([(2560, 1440), (1024, 768), (2560, 1440)])
    assert resolution_choices(information, config.view.window) == ["1024x768", "2560x1440"]


@pytest.mark.parametrize("information", [None, FakeDisplayInformation([])])
def test_without_modes_the_configured_fallbacks_are_offered(config, information):
    window = config.view.window
    choices = resolution_choices(information, window)
    expected = sorted((size.width_px, size.height_px) for size in window.fallback_resolutions)
    assert choices == [f"{width}x{height}" for width, height in expected]
    assert f"{window.width_px}x{window.height_px}" in choices


def test_without_a_window_fullscreen_and_sizes_do_nothing(config):
    render = SimpleNamespace(clearAntialias=lambda: None, setAntialias=lambda mode: None)
    display = Display(SimpleNamespace(win=None, pipe=None), render, config.view.window,
                      config.view.graphics_quality)
    settings = config.view.user_settings
    assert display.toggle_fullscreen(settings) is settings
    display.apply(dataclasses.replace(settings, fullscreen=True, resolution="1920x1080"))
    assert display.resolutions()  # the fallbacks
    assert VSYNC not in display.needs_restart(dataclasses.replace(settings, vsync=False))


@pytest.fixture
def loaded_page():
    pages = []
    yield pages.append
    for page in pages:
        unloadPrcFile(page)


def test_a_window_opens_with_the_players_size_vsync_and_samples(config, loaded_page):
    settings = dataclasses.replace(config.view.user_settings, resolution="1600x900",
                                   fullscreen=True, vsync=False, quality="high")
    loaded_page(configure_window(config.view.window, False, settings,
                                 config.view.graphics_quality))
    assert ConfigVariableInt("win-size").getValue() == 1600
    assert ConfigVariableInt("win-size").getWord(1) == 900
    assert ConfigVariableBool("fullscreen").getValue() is True
    assert ConfigVariableBool("sync-video").getValue() is False
    assert (ConfigVariableInt("multisamples").getValue()
            == config.view.graphics_quality.high.multisamples > 0)


def test_an_offscreen_buffer_keeps_the_configured_size_and_samples(config, loaded_page):
    settings = dataclasses.replace(config.view.user_settings, resolution="1600x900",
                                   fullscreen=True, quality="high")
    loaded_page(configure_window(config.view.window, True, settings,
                                 config.view.graphics_quality))
    window = config.view.window
    assert ConfigVariableInt("win-size").getValue() == window.width_px
    assert ConfigVariableInt("multisamples").getValue() == window.multisamples
    assert ConfigVariableBool("fullscreen").getValue() is False


OFFSCREEN = """
import dataclasses, json
import numpy as np
from direct.showbase.ShowBase import ShowBase
from panda3d.core import AntialiasAttrib
from game.view.display import Display
from game.view.ground.shadows import SunShadow
from game.view.window import configure_window
from game.window_config import load_window_config

config = load_window_config()
view = config.view
user = dataclasses.replace(view.user_settings, quality="high")
window = dataclasses.replace(view.window, multisamples=SAMPLES)
configure_window(window, True, user, view.graphics_quality)
base = ShowBase()
report = {"samples": base.win.getFbProperties().getMultisamples()}
shadow = SunShadow(base, base.render, np.array([0.0, -0.6, 0.8]), view.shadows)
report["start"] = [shadow.enabled, shadow.map_size_px]
display = Display(base, base.render, window, view.graphics_quality, shadow)
for quality in ("high", "low", "medium", "high"):
    display.apply(dataclasses.replace(user, quality=quality))
    shadow.follow(np.array([10.0, 20.0, 0.0]))
    base.graphicsEngine.renderFrame()
    size = (shadow.buffer.getXSize() if shadow.buffer is not None else 0)
    params = base.render.getShaderInput("shadow_params")  # held: getVector() points into it
    report[quality] = [shadow.enabled, shadow.map_size_px, size,
                       base.render.hasAntialias(), params.getVector()[0]]
before = (base.win.getXSize(), base.win.getYSize())
toggled = display.toggle_fullscreen(user)
base.graphicsEngine.renderFrame()
report["toggled"] = [toggled == user, toggled.fullscreen, before ==
                     (base.win.getXSize(), base.win.getYSize())]
display.apply(dataclasses.replace(user, fullscreen=True, resolution="1920x1080"))
base.graphicsEngine.renderFrame()
report["after_apply"] = [base.win.getXSize(), base.win.getYSize()]
report["resolutions"] = display.resolutions()
report["restart"] = display.needs_restart(dataclasses.replace(user, vsync=not user.vsync))
shadow.destroy()
display.destroy()
print("REPORT", json.dumps(report))
base.destroy()
"""


def _run_offscreen(repo_root, samples: int) -> dict:
    script = OFFSCREEN.replace("SAMPLES", str(samples))
    done = subprocess.run([sys.executable, "-c", script], cwd=repo_root, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    line = next(line for line in done.stdout.splitlines() if line.startswith("REPORT "))
    return json.loads(line[len("REPORT "):])


@pytest.fixture(scope="module")
def offscreen(repo_root):
    """A buffer opened as the shipped config opens one: no antialiasing samples."""
    return _run_offscreen(repo_root, 0)


@pytest.fixture(scope="module")
def multisampled(repo_root):
    """A buffer opened with antialiasing samples."""
    return _run_offscreen(repo_root, 4)


def test_shadows_start_off_until_the_quality_turns_them_on(offscreen):
    assert offscreen["start"] == [False, 0]


def test_each_quality_level_switches_the_shadows_and_sizes_their_map(offscreen, config):
    levels = config.view.graphics_quality
    for quality in ("low", "medium", "high"):
        level = levels.level(quality)
        enabled, size, buffer_size, _, texel_uv = offscreen[quality]
        assert enabled is level.sun_shadows, quality
        if level.sun_shadows:
            assert size == buffer_size == level.shadow_map_size_px, quality
            assert texel_uv == pytest.approx(1.0 / level.shadow_map_size_px)
        else:
            assert size == buffer_size == 0, quality
    assert levels.low.sun_shadows is False and levels.high.sun_shadows is True
    assert levels.high.shadow_map_size_px > levels.medium.shadow_map_size_px


def test_multisampling_is_left_off_where_the_buffer_has_no_samples(offscreen, config):
    # The offscreen buffer opens with [window] multisamples (0): "high" cannot turn it on,
    # and says so.
    assert config.view.window.multisamples == 0
    assert not any(offscreen[quality][3] for quality in ("low", "medium", "high"))
    assert ANTIALIASING in offscreen["restart"]


def test_fullscreen_on_an_offscreen_buffer_does_nothing(offscreen, config):
    assert offscreen["toggled"] == [True, False, True]
    window = config.view.window
    assert offscreen["after_apply"] == [window.width_px, window.height_px]
    assert VSYNC not in offscreen["restart"]  # no display to sync with


def test_an_offscreen_buffer_offers_the_configured_resolutions(offscreen, config):
    # The offscreen pipe lists no display modes.
    assert offscreen["resolutions"] == resolution_choices(None, config.view.window)


def test_with_samples_the_quality_turns_multisampling_on_and_off_at_once(multisampled, config):
    if multisampled["samples"] == 0:
        pytest.skip("this renderer gives offscreen buffers no multisamples")
    levels = config.view.graphics_quality
    for quality in ("low", "medium", "high"):
        assert multisampled[quality][3] is (levels.level(quality).multisamples > 0), quality
    assert ANTIALIASING not in multisampled["restart"]
