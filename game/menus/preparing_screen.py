"""The first start's progress screen: "Preparing the physics for this machine, once", with a
bar, while ``tank-battle --prepare`` compiles the physics in a process of its own (half a
minute on a 2-core machine) and the window keeps drawing; then the title.

The bar follows the preparation's progress lines (:mod:`game.runs.prepare`), a step for each
game it plays, each step as long as the simulated seconds it plays. A preparation that
fails leaves the loops to compile as the game plays, as before, and says so in the log.
"""

from __future__ import annotations

import logging
import queue
import re
import subprocess
import threading

from direct.gui.DirectGui import DirectFrame, DirectLabel, DirectWaitBar

from game.menus.menu_spec import MenuSpec

log = logging.getLogger(__name__)

STEP_LINE = re.compile(r"preparing the physics for this machine \((\d+)/(\d+)\): (.*)")
DONE_PREFIX = "prepared:"
BAR_RANGE = 100.0
TITLE_Z, STEP_Z, BAR_Z = 0.2, -0.2, 0.0
BAR_HALF_SIZE = (0.9, 0.04)
BACKDROP_SIZE = (-4.0, 4.0, -2.0, 2.0)
ABOVE_EVERYTHING = 1000
"""The screen's draw order in the popup bin: over the title and its focus frame (drawn in
that bin too, at 0)."""
TITLE = "Preparing the physics for this machine, once"


class PreparingScreen:
    """Runs ``command`` (``--prepare``) and shows its progress on ``parent`` (aspect2d);
    ``weights``: each step's share of the whole (the seconds each game plays)."""

    def __init__(self, parent, spec: MenuSpec, command: list[str], weights: list[float]):
        self.weights = [weight / sum(weights) for weight in weights]
        self.finished = False
        self.succeeded = False
        self._lines: queue.Queue[str | None] = queue.Queue()
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                        text=True)
        threading.Thread(target=self._read, name="preparing", daemon=True).start()
        self.backdrop = DirectFrame(parent=parent, frameColor=(*spec.panel_colour[:3], 1.0),
                                    frameSize=BACKDROP_SIZE)
        self.backdrop.setBin("gui-popup", ABOVE_EVERYTHING)
        DirectLabel(parent=self.backdrop, text=TITLE, pos=(0, 0, TITLE_Z),
                    text_scale=spec.text_scale, text_fg=spec.text_colour,
                    frameColor=(0, 0, 0, 0))
        self.bar = DirectWaitBar(parent=self.backdrop, range=BAR_RANGE, value=0.0,
                                 pos=(0, 0, BAR_Z), barColor=spec.text_colour,
                                 frameColor=spec.button_colour,
                                 frameSize=(-BAR_HALF_SIZE[0], BAR_HALF_SIZE[0],
                                            -BAR_HALF_SIZE[1], BAR_HALF_SIZE[1]))
        self.step = DirectLabel(parent=self.backdrop, text="Starting ...", pos=(0, 0, STEP_Z),
                                text_scale=spec.text_scale * 0.7, text_fg=spec.text_colour,
                                frameColor=(0, 0, 0, 0))

    def _read(self) -> None:
        for line in self.process.stdout:
            self._lines.put(line.strip())
        self._lines.put(None)

    def update(self) -> bool:
        """Take what the preparation said since; whether it is still going."""
        while True:
            try:
                line = self._lines.get_nowait()
            except queue.Empty:
                return not self.finished
            if line is None:
                self._finish()
            else:
                self._show(line)

    def _show(self, line: str) -> None:
        step = STEP_LINE.fullmatch(line)
        if step is not None:
            number = int(step.group(1))
            done = sum(self.weights[:number - 1])
            self.bar["value"] = BAR_RANGE * done
            self.step["text"] = f"{step.group(3)} ({number} of {step.group(2)})"
        elif line.startswith(DONE_PREFIX):
            self.bar["value"] = BAR_RANGE
            self.step["text"] = "Ready"

    def _finish(self) -> None:
        self.finished = True
        self.succeeded = self.process.wait() == 0
        if not self.succeeded:
            log.warning("preparing the physics failed (exit %d): they compile as the game "
                        "plays", self.process.returncode)

    def destroy(self) -> None:
        if self.process.poll() is None:  # the window closed first: its next start prepares
            self.process.terminate()
            self.process.wait()
        self.backdrop.destroy()
