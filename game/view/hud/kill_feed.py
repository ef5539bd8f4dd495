"""The kill feed: in the top right corner under the minimap, the last few kills as
"bot-2 destroyed player" lines (killer, then victim), newest at the bottom; each fades
out at the end of its time. Lines naming the player stand out in their own colour."""

from __future__ import annotations

from dataclasses import dataclass

from panda3d.core import NodePath, TextNode

from common.spec import Spec, tuning
from game.sim.events import Destroyed, Event
from game.view.draw.colours import rgba
from game.view.hud.hud_draw import colour_steps
from game.view.hud.hud_text import hud_text

LINE_SPACING = 1.25
"""Lines are this many text heights apart."""


@dataclass(frozen=True)
class KillFeedSpec(Spec):
    """Kills under the minimap: sizes in shares of the view's half height."""

    lines: int = tuning("most kills listed at once (the oldest goes first)", minimum=1,
                        maximum=12)
    shown_s: float = tuning("a kill is listed this long", minimum=0.5, maximum=60.0)
    fade_s: float = tuning("... fading out over the last this many seconds", minimum=0.0,
                           maximum=10.0)
    text_scale: float = tuning("the lines' height", minimum=0.01, maximum=0.2)
    gap: float = tuning("from the minimap's bottom edge down to the first line",
                        minimum=0.0, maximum=0.5)
    own_colour: tuple[float, ...] = rgba("a line naming the player")


class KillFeed:
    """The feed's lines under ``corner`` (the view's top right); ``hud_spec`` gives the
    margin, the minimap's size (the feed hangs below it) and the text colours."""

    def __init__(self, corner: NodePath, spec: KillFeedSpec, hud_spec):
        self.spec = spec
        self.hud_spec = hud_spec
        self.root = corner.attachNewNode("kill-feed")
        top = -hud_spec.margin - hud_spec.minimap_size - spec.gap - spec.text_scale
        self.texts = []
        for index in range(spec.lines):
            text = hud_text(self.root, hud_spec, spec.text_scale, TextNode.ARight)
            text.setPos(-hud_spec.margin, 0.0, top - index * spec.text_scale * LINE_SPACING)
            self.texts.append(text)
        self.entries: list[list] = []
        """[line, seconds left, names the player] of the kills listed, oldest first."""
        self._fades = [colour_steps(1.0)] * spec.lines
        """Each line's opacity as last set, in colour steps."""

    def on_events(self, events: list[Event], player_name: str) -> None:
        changed = False
        for event in events:
            if isinstance(event, Destroyed):
                mine = player_name in (event.by, event.vehicle)
                self.entries.append([f"{event.by} destroyed {event.vehicle}",
                                     self.spec.shown_s, mine])
                changed = True
        if changed:
            del self.entries[:-self.spec.lines]
            self._show()

    def update(self, frame_s: float) -> None:
        """Age the lines: each fades over its last ``fade_s``, then goes."""
        if not self.entries:
            return
        for entry in self.entries:
            entry[1] -= frame_s
        before = len(self.entries)
        self.entries = [entry for entry in self.entries if entry[1] > 0.0]
        if len(self.entries) != before:
            self._show()
        for index, (text, (_, left_s, _)) in enumerate(zip(self.texts, self.entries)):
            fade = min(left_s / self.spec.fade_s, 1.0) if self.spec.fade_s > 0.0 else 1.0
            if colour_steps(fade) != self._fades[index]:
                self._fades[index] = colour_steps(fade)
                text.setAlphaScale(fade)

    def _show(self) -> None:
        for index, text in enumerate(self.texts):
            if index >= len(self.entries):
                text.node().setText("")
                continue
            line, _, mine = self.entries[index]
            text.node().setText(line)
            text.node().setTextColor(*(self.spec.own_colour if mine
                                       else self.hud_spec.text_colour))
            text.setAlphaScale(1.0)
            self._fades[index] = colour_steps(1.0)

    @property
    def lines(self) -> list[str]:
        """The lines listed now, oldest first."""
        return [line for line, _, _ in self.entries]

    def show(self, visible: bool) -> None:
        (self.root.show if visible else self.root.hide)()
