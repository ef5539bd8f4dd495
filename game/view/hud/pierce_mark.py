"""The crosshair's verdict on the armour it is on: whether the loaded shell would pierce
the plate there, in three steps. Each step has its own mark and word beside the
crosshair, and its own colour, so none is told by colour alone.

The verdict is the simulation's (:meth:`game.sim.simulation.Simulation.aim_verdict`):
this only draws it, and redraws only when it changes.
"""

from __future__ import annotations

from dataclasses import dataclass

from panda3d.core import NodePath, TextNode

from common.spec import Spec, tuning
from game.view.draw.colours import rgba
from game.view.draw.overlay import keep_alpha

WORDS = {"pierces": "+ PIERCES", "may pierce": "? MAY PIERCE",
         "will not pierce": "x WILL NOT PIERCE"}
"""What each verdict reads (a mark, then the words)."""


@dataclass(frozen=True)
class PierceMarkSpec(Spec):
    """The verdict beside the crosshair: sizes in the crosshair's frame (aspect2d units)."""

    text_scale: float = tuning("the words' height", minimum=0.01, maximum=0.2)
    offset: tuple[float, ...] = tuning("where the words start from the crosshair's middle "
                                       "(right, up)", minimum=-1.0, maximum=1.0,
                                       length=(2, 2))
    pierces_colour: tuple[float, ...] = rgba("the words when the shell would pierce")
    may_pierce_colour: tuple[float, ...] = rgba("... when it may")
    will_not_pierce_colour: tuple[float, ...] = rgba("... when it would not")
    shadow_colour: tuple[float, ...] = rgba("the words' shadow, for light backgrounds")


class PierceMark:
    """The words under ``crosshair`` (the HUD's crosshair node: they move with it)."""

    def __init__(self, crosshair: NodePath, spec: PierceMarkSpec):
        self.spec = spec
        self.colours = {"pierces": spec.pierces_colour, "may pierce": spec.may_pierce_colour,
                        "will not pierce": spec.will_not_pierce_colour}
        text = TextNode("pierce-mark")
        text.setFont(TextNode.getDefaultFont())
        text.setAlign(TextNode.ALeft)
        text.setShadow(0.06, 0.06)
        text.setShadowColor(*spec.shadow_colour)
        self.text = text
        self.path = crosshair.attachNewNode(text)
        self.path.setScale(spec.text_scale)
        self.path.setPos(spec.offset[0], 0.0, spec.offset[1])
        keep_alpha(self.path)
        self.verdict: str | None = None
        self.path.hide()

    def show(self, verdict: str | None) -> None:
        """The verdict to show (None: none, the crosshair is not on a tank's armour)."""
        if verdict == self.verdict:
            return
        self.verdict = verdict
        if verdict is None:
            self.path.hide()
            return
        self.text.setText(WORDS[verdict])
        self.text.setTextColor(*self.colours[verdict])
        self.path.show()

    def destroy(self) -> None:
        self.path.removeNode()
