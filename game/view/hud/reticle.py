"""The gun sight's reticle: a few lines on the 2-D overlay, shown only in the sight view."""

from __future__ import annotations

from panda3d.core import LineSegs, NodePath


class Reticle:
    """A chevron and stadia lines centred on the screen (the bore's line of sight)."""

    def __init__(self, overlay: NodePath | None, colour, size: float, thickness_px: float):
        self.path = None
        if overlay is None:
            return
        lines = LineSegs("reticle")
        lines.setColor(*colour, 1.0)
        lines.setThickness(thickness_px)
        s = size
        for (x0, y0), (x1, y1) in (((-s, 0.0), (-0.25 * s, 0.0)), ((0.25 * s, 0.0), (s, 0.0)),
                                   ((0.0, -s), (0.0, -0.25 * s)),
                                   ((-0.12 * s, -0.12 * s), (0.0, 0.0)),
                                   ((0.0, 0.0), (0.12 * s, -0.12 * s))):
            lines.moveTo(x0, 0.0, y0)
            lines.drawTo(x1, 0.0, y1)
        for step in (1, 2, 3):
            y = -0.25 * s * step - 0.25 * s
            lines.moveTo(-0.05 * s * (4 - step), 0.0, y)
            lines.drawTo(0.05 * s * (4 - step), 0.0, y)
        self.path = overlay.attachNewNode(lines.create())
        self.path.hide()

    def show(self, visible: bool) -> None:
        if self.path is not None:
            (self.path.show if visible else self.path.hide)()

    def destroy(self) -> None:
        if self.path is not None:
            self.path.removeNode()
            self.path = None
