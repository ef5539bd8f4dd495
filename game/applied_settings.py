"""The player's settings in use in a window, and everything that uses them: the sounds'
volumes, the particles, the display (fullscreen, resolution, shadows, antialiasing) and
the HUDs' size. A setting changed by its own key (F11, H) is used at once, saved, and
shown on the settings page; one changed on that page is saved by its Save.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable


class AppliedSettings:
    """``store``: the player's :class:`common.settings.UserSettings` (None in a scripted run:
    ``defaults`` are used and nothing is saved). ``effects()`` is the running session's
    particle system; ``message(text)`` tells the player; ``refresh_page()`` redraws the
    settings page."""

    def __init__(self, store, defaults, *, sounds, display, views, effects: Callable,
                 message: Callable[[str], None], refresh_page: Callable[[], None]):
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
