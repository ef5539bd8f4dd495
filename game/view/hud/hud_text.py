"""A line of HUD text: the default font, the HUD's text colour and a drop shadow, so it
reads over sand and sky alike."""

from __future__ import annotations

from panda3d.core import NodePath, TextNode

SHADOW_OFFSET = 0.06
"""The drop shadow's offset, in text heights (a property of the look, the same at any
text size)."""


def hud_text(parent: NodePath, spec, scale: float, align=TextNode.ALeft) -> NodePath:
    """An empty line of text under ``parent``, ``scale`` high, in ``spec.text_colour`` with
    a shadow in ``spec.shadow_colour``."""
    node = TextNode("hud-text")
    node.setFont(TextNode.getDefaultFont())
    node.setTextColor(*spec.text_colour)
    node.setShadow(SHADOW_OFFSET, SHADOW_OFFSET)
    node.setShadowColor(*spec.shadow_colour)
    node.setAlign(align)
    path = parent.attachNewNode(node)
    path.setScale(scale)
    return path
