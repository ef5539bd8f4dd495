"""Online play on the HUD: the ping in the top left corner, and the scoreboard (Tab shows
and hides it) in the middle: every player and bot with kills, deaths and ping.

It draws what :class:`game.view.hud.hud_state.HudState` holds (``ping_ms``, ``board``), and
nothing in a game that is not online (both are None there).
"""

from __future__ import annotations

from panda3d.core import NodePath, TextNode

from game.view.draw.overlay import card, keep_alpha

COLUMNS = (("name", TextNode.ALeft, 0.0), ("kills", TextNode.ARight, 12.0),
           ("deaths", TextNode.ARight, 16.0), ("ping", TextNode.ARight, 20.0))
"""Each column: its heading, its alignment and where it is aligned, in text heights from
the board's left edge."""
BOARD_WIDTH_EMS = 20.0


class ScoreboardView:
    """The ping line and the scoreboard panel."""

    def __init__(self, top_left: NodePath, center: NodePath, spec, make_text):
        self.spec = spec
        self.ping_text = make_text(top_left, spec, spec.text_scale * 0.8, TextNode.ALeft)
        self.ping_text.setPos(spec.margin, 0, -spec.margin - spec.text_scale)
        self.panel = center.attachNewNode("scoreboard")
        keep_alpha(self.panel)
        self.columns = [make_text(self.panel, spec, spec.text_scale * 0.8, align)
                        for _, align, _ in COLUMNS]
        self.visible = False
        self._rows: list | None = None
        self._ping_line: str | None = None
        self._backing = card(self.panel, "scoreboard-backing", 0.0, 1.0, 0.0, 1.0,
                             spec.panel_colour)
        """A unit card, placed and stretched to fit the columns (:meth:`_place`)."""
        self._backing.setBin("fixed", 0)
        for column in self.columns:
            column.setBin("fixed", 1)
        self.panel.hide()

    def toggle(self) -> None:
        self.visible = not self.visible
        (self.panel.show if self.visible and self._rows is not None else self.panel.hide)()

    def update(self, ping_ms: float | None, board: list | None) -> None:
        line = "" if ping_ms is None else f"ping {ping_ms:.0f} ms"
        if line != self._ping_line:
            self._ping_line = line
            self.ping_text.node().setText(line)
        if board is None or board == self._rows:
            return
        self._rows = list(board)
        cells = [[row.name[:18], str(row.kills), str(row.deaths),
                  "bot" if row.ping_ms is None else str(row.ping_ms)] for row in board]
        for index, (column, (heading, _, _)) in enumerate(zip(self.columns, COLUMNS)):
            column.node().setText("\n".join([heading if index else ""]
                                             + [cell[index] for cell in cells]))
        self._place(len(cells) + 1)
        (self.panel.show if self.visible else self.panel.hide)()

    def _place(self, line_count: int) -> None:
        """The columns centred, on a backing that fits them."""
        s = self.spec
        scale = s.text_scale * 0.8
        width = BOARD_WIDTH_EMS * scale
        height = line_count * scale * 1.2
        for column, (_, _, at) in zip(self.columns, COLUMNS):
            column.setPos(-width / 2.0 + at * scale, 0, height / 2.0 - scale)
        self._backing.setPos(-width / 2.0 - s.margin, 0, -height / 2.0 - s.margin)
        self._backing.setScale(width + 2.0 * s.margin, 1.0, height + 2.0 * s.margin)

    def destroy(self) -> None:
        self.ping_text.removeNode()
        self.panel.removeNode()
