"""The busy indicator's words: what the worker runs now and for how long (``csp on 707 nodes… 0.4 s``).

A timer on the GUI thread rewrites one short line a few times a second while a computation
runs; nothing is computed here.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QObject, QTimer, Signal

TICK_MS = 100


class BusyClock(QObject):
    """Signals

    textChanged(text) : ``"<what runs>… <seconds> s"``, every :data:`TICK_MS` while running
    """

    textChanged = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self._what = ""
        self._t0 = 0.0
        self._timer = QTimer(self, interval=TICK_MS)
        self._timer.timeout.connect(self._tick)

    @property
    def running(self) -> bool:
        return self._timer.isActive()

    def start(self, what: str) -> None:
        """Count from now for ``what`` (the worker's words for the step it began)."""
        self._what, self._t0 = what, time.monotonic()
        self._timer.start()
        self._tick()

    def stop(self) -> None:
        self._timer.stop()

    def _tick(self) -> None:
        self.textChanged.emit(f"{self._what} {time.monotonic() - self._t0:.1f} s")
