"""The crosshair's pierce verdict drawn: a mark and words for each of the three steps
(not told by colour alone), hidden off the armour, redrawn only on a change."""

from __future__ import annotations

from panda3d.core import NodePath

from game.view.hud.pierce_mark import WORDS, PierceMark


def test_each_verdict_has_its_own_mark_and_words_and_none_hides_it(config):
    crosshair = NodePath("crosshair")
    mark = PierceMark(crosshair, config.view.pierce_mark)
    assert mark.path.isHidden()
    marks = set()
    for verdict in ("pierces", "may pierce", "will not pierce"):
        mark.show(verdict)
        assert not mark.path.isHidden() and mark.text.getText() == WORDS[verdict]
        marks.add(mark.text.getText().split()[0])
    assert len(marks) == 3  # three marks: + ? x, whatever the colours
    mark.show(None)
    assert mark.path.isHidden()
    mark.destroy()


def test_the_words_move_with_the_crosshair(config):
    crosshair = NodePath("crosshair")
    mark = PierceMark(crosshair, config.view.pierce_mark)
    assert mark.path.getParent() == crosshair
    mark.destroy()
