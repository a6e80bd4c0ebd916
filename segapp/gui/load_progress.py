"""Progress of a long load: the steps from choosing an image to its first result.

Opening a 12-megapixel photo takes seconds: decoding it (file thread), handing it to the
worker, building the graph, then the method. :class:`LoadSteps` follows the controller
through those steps; :class:`LoadBar` (the status bar's busy bar) shows them as
"step k of 4" with what runs, and is the plain busy bar for a stroke's computation.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QProgressBar

STEPS = ("opening the file", "to the worker", "building the graph", "segmenting")


class LoadSteps(QObject):
    """The steps of one load, tied to the image it opens and to the requests made for it, so
    a late answer about the image before never moves or ends it.

    Signals

    changed(step) : 1..len(STEPS) while an image loads, 0 when no load is in progress
    """

    changed = Signal(int)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.step = 0
        self.first_rid = None  # requests with a larger id are for the image being loaded

    def _go(self, step: int) -> None:
        if step != self.step:
            self.step = step
            self.changed.emit(step)

    def start(self) -> None:
        """Step 1: a file is being decoded (a new load replaces one in progress)."""
        self.first_rid = None
        self._go(1)

    def image_sent(self, last_rid: int) -> None:
        """Step 2: the decoded image goes to the worker; ``last_rid`` is the newest request
        made before it (its answers are about another image)."""
        if self.step == 1:
            self.first_rid = last_rid
            self._go(2)

    def worker_says(self, rid: int, text: str) -> None:
        """The worker's word for the step it began on request ``rid``: building the graph,
        then the method."""
        if self.step >= 2 and self.first_rid is not None and rid > self.first_rid:
            step = 3 if text.startswith("preparing") else 4
            if step > self.step:
                self._go(step)

    def answered(self, rid: int) -> None:
        """A result (or a failure) for request ``rid``: the load is over if it is for this image."""
        if self.step >= 2 and self.first_rid is not None and rid > self.first_rid:
            self._go(0)

    def cancel(self) -> None:
        """The file could not be opened."""
        self._go(0)


class LoadBar(QProgressBar):
    """Busy while a stroke computes (no steps); "k/4: what" while an image loads."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setRange(0, 0)
        self.setFixedWidth(240)  # "3/4: building the graph" on one line
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
