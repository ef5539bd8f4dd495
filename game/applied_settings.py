"""The player's settings in use in a window, and everything that uses them: the sounds'
volumes, the particles, the display (fullscreen, resolution, shadows, antialiasing) and
the HUDs' size. A setting changed by its own key (F11, H) is used at once, saved, and
shown on the settings page; one changed on that page is saved by its Save.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable


SOFTWARE_RENDERERS = ("llvmpipe", "softpipe", "swiftshader", "software rasterizer",
                      "software renderer", "gdi generic", "microsoft basic render")
"""Words in an OpenGL renderer's name that say it draws on the processor: Mesa's llvmpipe
and softpipe, SwiftShader, Apple's and Windows' fallbacks."""
SOFTWARE_QUALITY = "low"
"""The quality a first start on such a renderer picks: no sun shadows, no multisampling,
fewer particles, each drawn by the processor there."""


def software_renderer(renderer: str) -> bool:
    """Whether an OpenGL renderer's name (``GraphicsStateGuardian.getDriverRenderer``) is
    one of :data:`SOFTWARE_RENDERERS`."""
    name = renderer.lower()
    return any(word in name for word in SOFTWARE_RENDERERS)


def pick_first_quality(store, renderer: str) -> bool:
    """A first start (no quality saved in ``store``, the player's
    :class:`common.settings.UserSettings`) on a software renderer starts at
    :data:`SOFTWARE_QUALITY`, saved, so later starts open their window without
    multisampling too; a quality saved before (the player's own choice) is kept. Whether it
    picked."""
    if store is None or "quality" in store.saved or not software_renderer(renderer):
        return False
    store.change(quality=SOFTWARE_QUALITY)
    try:
        store.save()
    except OSError:  # a settings file that cannot be written: picked again next start
        pass
    return True


class AppliedSettings:
    """``store``: the player's :class:`common.settings.UserSettings` (None in a scripted run:
    ``defaults`` are used and nothing is saved). ``effects()`` is the running session's
    particle system; ``message(text)`` tells the player; ``refresh_page()`` redraws the
    settings page."""

    def __init__(self, store, defaults, *, sounds, display, views, effects: Callable,
                 message: Callable[[str], None], refresh_page: Callable[[], None],
                 renderer: str = ""):
        """``renderer``: the OpenGL renderer's name (:func:`pick_first_quality`)."""
        pick_first_quality(store, renderer)
        self.store = store
        self.current = store.current if store is not None else defaults
        self.sounds, self.display, self.views = sounds, display, views
        self._effects = effects
        self._message = message
        self.refresh_page = refresh_page

    def apply(self, settings) -> None:
        """Use ``settings`` now: volumes, quality (particles, sun shadows, antialiasing),
        fullscreen and resolution, the HUDs' size (field of view and mouse axes are read
        where they are used)."""
        self.current = settings
        self.sounds.set_volumes(settings.master_volume, settings.effects_volume,
                                settings.engine_volume)
        self._effects().set_quality(settings.quality)
        self.display.apply(settings)
        for player in self.views:
            player.set_compact(settings.hud_compact)

    def toggle_fullscreen(self) -> None:
        """F11: fullscreen on or off (an offscreen buffer stays as it is)."""
        changed = self.display.toggle_fullscreen(self.current)
        if changed is not self.current:
            self.keep(fullscreen=changed.fullscreen)

    def toggle_compact_hud(self) -> None:
        """H: the compact HUD or the full one."""
        self.keep(hud_compact=not self.current.hud_compact)

    def keep(self, **values) -> None:
        """Settings changed by their keys: used now, saved (a file that cannot be written
        only costs remembering them), shown on the settings page."""
        if self.store is None:
            self.apply(replace(self.current, **values))
            return
        self.apply(self.store.change(**values))
        try:
            self.store.save()
        except OSError as error:
            self._message(f"Settings not saved: {error.strerror or error}")
        self.refresh_page()
