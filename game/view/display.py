"""The player's display settings applied to a ShowBase window: fullscreen and resolution
(at once, through ``WindowProperties``), the graphics quality's sun shadows and
antialiasing, and the resolutions the settings page offers.

What can change while the game runs and what waits for the next start:

- Fullscreen and the resolution: at once (``base.win.requestProperties``).
- Sun shadows and their map size: at once (:class:`game.view.ground.shadows.SunShadow`).
- Antialiasing: the framebuffer's samples are asked for as the window opens
  (:func:`game.view.window.configure_window`). A window opened with them turns
  multisampling on and off at once (``AntialiasAttrib.MMultisample`` on ``render``);
  one opened without gets it on the next start.
- Vsync: Panda3D reads ``sync-video`` once, as the window's graphics context is made
  (``glXSwapIntervalSGI`` / ``wglSwapIntervalEXT`` in the GSG's set-up): the next start.

:meth:`Display.needs_restart` names the settings waiting for a restart. An offscreen
buffer (or no window) has no fullscreen, size or vsync to change: those do nothing there.
"""

from __future__ import annotations

import dataclasses

from panda3d.core import (AntialiasAttrib, ConfigVariableBool, GraphicsWindow, NodePath,
                          WindowProperties)

from common.settings import AUTO_RESOLUTION
from game.view.window import GraphicsQualitySpec, WindowSpec, opening_size

VSYNC = "vsync"
ANTIALIASING = "antialiasing"
"""The names :meth:`Display.needs_restart` gives the settings that wait for a restart."""


def display_modes(information) -> list[tuple[int, int]]:
    """The display's modes (a ``DisplayInformation``, or None) as (width, height): each size
    once (modes differ in refresh rate and colour depth too), smallest first."""
    if information is None:
        return []
    sizes = {(information.getDisplayModeWidth(index), information.getDisplayModeHeight(index))
             for index in range(information.getTotalDisplayModes())}
    return sorted((width, height) for width, height in sizes if width > 0 and height > 0)


def resolution_choices(information, window: WindowSpec) -> list[str]:
    """The resolutions to offer, as the settings write them (WIDTHxHEIGHT): the display's
    modes, or the configured fallbacks where it lists none (an offscreen buffer, some
    drivers)."""
    modes = display_modes(information)
    if not modes:
        modes = sorted({(size.width_px, size.height_px)
                        for size in window.fallback_resolutions})
    return [f"{width}x{height}" for width, height in modes]


class Display:
    """Applies the window settings and the graphics quality to ``base``'s window.

    ``render``: where antialiasing is switched; ``shadow``: the scene's
    :class:`game.view.ground.shadows.SunShadow` (None: no shadows to switch)."""

    def __init__(self, base, render: NodePath, window: WindowSpec,
                 quality: GraphicsQualitySpec, shadow=None):
        self.base = base
        self.render = render
        self.window = window
        self.quality = quality
        self.shadow = shadow
        self.opened_with_vsync = ConfigVariableBool("sync-video").getValue()
        """What the window's graphics context was made with (a change waits for a restart)."""
        win = getattr(base, "win", None)
        self.samples = win.getFbProperties().getMultisamples() if win is not None else 0
        """The framebuffer's antialiasing samples (0: none, whatever the quality says)."""
        self._requested = self._current_mode() if self.is_window else None
        """(fullscreen, (width, height)) last asked of the window."""

    @property
    def is_window(self) -> bool:
        """A real window (not an offscreen buffer, not none): it can change mode."""
        return isinstance(getattr(self.base, "win", None), GraphicsWindow)

    def _current_mode(self) -> tuple[bool, tuple[int, int]]:
        win = self.base.win
        return (win.getProperties().getFullscreen(), (win.getXSize(), win.getYSize()))

    def resolutions(self) -> list[str]:
        """The resolutions the settings page offers ("auto" not included)."""
        pipe = getattr(self.base, "pipe", None)
        return resolution_choices(pipe.getDisplayInformation() if pipe is not None else None,
                                  self.window)

    def size_for(self, settings) -> tuple[int, int]:
        """The window size ``settings`` ask for: their resolution, or with ``auto`` the
        configured size in a window and the desktop's in fullscreen (the configured size
        where the display does not say)."""
        if settings.fullscreen and settings.resolution == AUTO_RESOLUTION:
            pipe = getattr(self.base, "pipe", None)
            desktop = ((pipe.getDisplayWidth(), pipe.getDisplayHeight()) if pipe is not None
                       else (0, 0))
            if desktop[0] > 0 and desktop[1] > 0:
                return desktop
        return opening_size(self.window, settings.resolution)

    def apply(self, settings) -> None:
        """Use ``settings`` (a ``UserSettingsSpec``) now: fullscreen and size (asked of the
        window only when they changed), sun shadows, antialiasing."""
        level = self.quality.level(settings.quality)
        if self.shadow is not None:
            self.shadow.set_quality(level.sun_shadows, level.shadow_map_size_px)
        if level.multisamples > 0 and self.samples > 0:
            self.render.setAntialias(AntialiasAttrib.MMultisample)
        else:
            self.render.clearAntialias()
        if not self.is_window:
            return
        wanted = (settings.fullscreen, self.size_for(settings))
        if wanted == self._requested:
            return
        properties = WindowProperties()
        properties.setFullscreen(wanted[0])
        properties.setSize(*wanted[1])
        self.base.win.requestProperties(properties)
        self._requested = wanted

    def toggle_fullscreen(self, settings):
        """F11: fullscreen on or off, applied now. Returns ``settings`` with ``fullscreen``
        turned over, for the caller to keep (and save); on an offscreen buffer (or without
        a window) nothing changes and ``settings`` come back as they were."""
        if not self.is_window:
            return settings
        changed = dataclasses.replace(settings, fullscreen=not settings.fullscreen)
        self.apply(changed)
        return changed

    def needs_restart(self, settings) -> list[str]:
        """The settings that take effect only on the next start: ``vsync`` (changed since
        the window opened) and ``antialiasing`` (the quality wants it, the window was
        opened without samples)."""
        waiting = []
        if self.is_window and settings.vsync != self.opened_with_vsync:
            waiting.append(VSYNC)
        if self.quality.level(settings.quality).multisamples > 0 and self.samples == 0:
            waiting.append(ANTIALIASING)
        return waiting

    def destroy(self) -> None:
        self.render.clearAntialias()
