"""Progress of a long load: the steps from choosing an image to its first result.

Opening a 12-megapixel photo takes seconds: decoding it (file thread), handing it to the
worker, building the graph, then the method. :class:`LoadSteps` follows the controller
through those steps; :class:`LoadBar` (the status bar's busy bar) shows them as
"step k of 4" with what runs, and is the plain busy bar for a stroke's computation.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QProgressBar

STEPS = ("opening the file", "sending it to the worker", "building the graph", "segmenting")


class LoadSteps(QObject):
    """Signals

    changed(step) : 1..len(STEPS) while an image loads, 0 when no load is in progress
    """

    changed = Signal(int)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.step = 0

    def go(self, step: int) -> None:
        """Move to ``step`` (never back, except to 0 or to 1: a new load)."""
        if (step == 0 and self.step) or step == 1 or step > self.step > 0:
            self.step = step
            self.changed.emit(step)

    def worker_says(self, text: str) -> None:
        """The worker's word for the step it began: building the graph, then the method."""
        if self.step >= 2:
            self.go(3 if text.startswith("preparing") else 4)


class LoadBar(QProgressBar):
    """Busy while a stroke computes (no steps); "k/4: what" while an image loads."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setRange(0, 0)
        self.setMaximumWidth(220)
        self._busy = False
        self._step = 0
        self.hide()

    def set_busy(self, busy: bool) -> None:
        self._busy = busy
        self._update()

    def set_step(self, step: int) -> None:
        self._step = step
        self._update()

    def _update(self) -> None:
        if self._step:
            self.setRange(0, len(STEPS))
            self.setValue(self._step - 1)
            self.setFormat(f"{self._step}/{len(STEPS)}: {STEPS[self._step - 1]}")
            self.setTextVisible(True)
        else:
            self.setRange(0, 0)
            self.setTextVisible(False)
        self.setVisible(self._busy or bool(self._step))
