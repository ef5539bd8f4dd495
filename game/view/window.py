"""The game's window: its spec and the Panda3D settings it opens with."""

from __future__ import annotations

from dataclasses import dataclass

from panda3d.core import loadPrcFileData

from physics.model.spec import Spec, tuning


@dataclass(frozen=True)
class WindowSpec(Spec):
    title: str = tuning("window title")
    width_px: int = tuning("window width", minimum=320, maximum=7680)
    height_px: int = tuning("window height", minimum=200, maximum=4320)
    multisamples: int = tuning("antialiasing samples per pixel (0: off; costly on a software "
                               "renderer)", minimum=0, maximum=16)


def configure_window(window: WindowSpec, offscreen: bool) -> None:
    """Panda's settings for the window (or offscreen buffer) about to open: its title and
    size, antialiasing, vsync on a real window, and no sound device offscreen."""
    loadPrcFileData("tank-battle", f"""
        window-title {window.title}
        win-size {window.width_px} {window.height_px}
        window-type {'offscreen' if offscreen else 'onscreen'}
        framebuffer-multisample {1 if window.multisamples else 0}
        multisamples {window.multisamples}
        sync-video {'false' if offscreen else 'true'}
        {'audio-library-name null' if offscreen else ''}
    """)
