"""The game's window: its spec, what each graphics quality draws, and the Panda3D settings
the window opens with.

Two of the player's settings can only be chosen as the window opens, because Panda3D
reads them when it makes the window's graphics context: vsync (``sync-video``, handed to
``glXSwapIntervalSGI`` / ``wglSwapIntervalEXT`` once, as the context is set up) and the
framebuffer's antialiasing samples (``framebuffer-multisample`` and ``multisamples``). A
change to either applies on the next start; :mod:`game.view.display` says which are
waiting. Fullscreen and the resolution change at any time.

Where no window can open, the game says so in one line (:func:`require_display`, and
:func:`panda_lines_held` keeps Panda3D's own list of the displays it tried off the
console: it goes to the log).

And what it saves: a frame as a PNG (F12, ``--screenshot``).
"""

from __future__ import annotations

import logging
import os
import sys
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from panda3d.core import Filename, loadPrcFileData

from common.errors import UserError
from common.settings import parse_resolution
from common.spec import Spec, tuning

log = logging.getLogger(__name__)

GL_VERSION = (3, 2)
"""The OpenGL context asked for: 3.2 is the least that gives a core profile, which macOS
needs for the game's ``#version 330`` shaders (elsewhere the driver gives that or newer)."""


@dataclass(frozen=True)
class ResolutionSpec(Spec):
    """A window size."""

    width_px: int = tuning("width", minimum=320, maximum=7680)
    height_px: int = tuning("height", minimum=200, maximum=4320)

    @property
    def text(self) -> str:
        """As the settings write it: WIDTHxHEIGHT."""
        return f"{self.width_px}x{self.height_px}"


@dataclass(frozen=True)
class WindowSpec(Spec):
    title: str = tuning("window title")
    width_px: int = tuning("window width", minimum=320, maximum=7680)
    height_px: int = tuning("window height", minimum=200, maximum=4320)
    multisamples: int = tuning("antialiasing samples per pixel of an offscreen buffer (0: off; "
                               "a window takes its graphics quality's)", minimum=0, maximum=16)
    fallback_resolutions: tuple[ResolutionSpec, ...] = tuning(
        "the resolutions offered when the display lists no modes of its own",
        length=(1, 64))


@dataclass(frozen=True)
class QualityLevelSpec(Spec):
    """What one graphics quality level draws (besides its share of particles)."""

    sun_shadows: bool = tuning("the sun casts shadows")
    shadow_map_size_px: int = tuning("side of the sun's shadow map", minimum=128, maximum=8192)
    multisamples: int = tuning("antialiasing samples per pixel (0: off); the framebuffer gets "
                               "them only as the window opens", minimum=0, maximum=16)


@dataclass(frozen=True)
class GraphicsQualitySpec(Spec):
    """The graphics quality levels the settings offer (``common.settings.QUALITY_LEVELS``)."""

    low: QualityLevelSpec = tuning("the cheapest")
    medium: QualityLevelSpec = tuning("between")
    high: QualityLevelSpec = tuning("the best looking")

    def level(self, quality: str) -> QualityLevelSpec:
        """The level named ``quality`` ("low", "medium" or "high")."""
        return getattr(self, quality)


def opening_size(window: WindowSpec, resolution: str) -> tuple[int, int]:
    """The size a window opens at: the resolution's, or the configured one for ``auto``."""
    size = parse_resolution(resolution)
    return size if size is not None else (window.width_px, window.height_px)


def configure_window(window: WindowSpec, offscreen: bool, settings=None,
                     quality: GraphicsQualitySpec | None = None):
    """Panda's settings for the window (or offscreen buffer) about to open.

    An offscreen buffer: the configured size, ``window.multisamples``, no vsync, no sound
    device. A window with the player's ``settings`` (a ``UserSettingsSpec``) and the
    ``quality`` levels: their size, fullscreen, vsync and the quality's samples; with
    ``resolution = "auto"`` in fullscreen it opens in a window of the configured size and
    :class:`game.view.display.Display` then fills the desktop (its size is known only once
    the display is open). A window without them: the configured size, ``window.multisamples``,
    vsync on. Returns the loaded ``ConfigPage`` (``unloadPrcFile`` takes it back)."""
    size = (window.width_px, window.height_px)
    multisamples, vsync, fullscreen = window.multisamples, not offscreen, False
    if settings is not None and quality is not None and not offscreen:
        size = opening_size(window, settings.resolution)
        multisamples = quality.level(settings.quality).multisamples
        vsync = settings.vsync
        fullscreen = settings.fullscreen and parse_resolution(settings.resolution) is not None
    return loadPrcFileData("tank-battle", f"""
        window-title {window.title}
        win-size {size[0]} {size[1]}
        fullscreen {'true' if fullscreen else 'false'}
        window-type {'offscreen' if offscreen else 'onscreen'}
        framebuffer-multisample {1 if multisamples else 0}
        multisamples {multisamples}
        sync-video {'true' if vsync else 'false'}
        gl-version {GL_VERSION[0]} {GL_VERSION[1]}
        {'audio-library-name null' if offscreen else ''}
    """)


WITHOUT_A_DISPLAY = "without one, use --offscreen or --headless"
"""What to do where no window can open: said at the end of the one line."""


def require_display() -> None:
    """Where windows open through X11 or Wayland (Linux), a window needs one of them named
    in the environment: without, say so at once (Panda3D would try X display :0 anyway,
    and list every display it tried on stderr before failing)."""
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY")
                                                 or os.environ.get("WAYLAND_DISPLAY")):
        raise UserError("window", None, "a display to open the game window on (DISPLAY and "
                        f"WAYLAND_DISPLAY are not set); {WITHOUT_A_DISPLAY}")


@contextmanager
def panda_lines_held():
    """What is written to stderr inside (Panda3D's lines, from C++ and from Python alike,
    so the file descriptor itself), held back: written out after if the block ends well,
    only logged (INFO: a log file keeps them) if it raises, so that a window that does not
    open is the game's one line, not under Panda's list of the displays it tried."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (AttributeError, OSError, ValueError):  # no stderr (a build without a console)
        yield
        return
    opened = False
    with tempfile.TemporaryFile() as held:
        os.dup2(held.fileno(), 2)
        try:
            yield
            opened = True
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            held.seek(0)
            lines = held.read()
            if opened:
                os.write(2, lines)
            else:
                for line in lines.decode(errors="replace").splitlines():
                    log.info("Panda3D: %s", line)


def save_screenshot(graphics_engine, window, path: Path) -> None:
    """This frame, rendered now, as a PNG at ``path``; a UserError where it is not written."""
    graphics_engine.renderFrame()
    if not window.saveScreenshot(Filename.fromOsSpecific(str(path))):
        raise UserError(path, None, "a writable PNG file")


def screenshot_to(path: Path, save: Callable[[Path], None],
                  message: Callable[[str], None]) -> Path | None:
    """F12: ``save(path)`` (its folder made first); ``message`` says where, or why not (the
    game goes on either way). The path, or None where nothing was saved."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        save(path)
    except (OSError, UserError) as error:
        message(f"Screenshot not saved: {error}")
        return None
    message(f"Screenshot saved: {path}")
    return path
