"""View updates spread over event-loop turns, one step per turn, for the whole application.

When a result arrives, the overlay is painted at once; the views' other updates (strokes
drawn dashed, legend, eigenvector thumbnails, eigenvalue plot) are queued here and each runs
in a turn of its own, followed by its own repaint, so the GUI thread's turns stay short
(``bench/gui_latency.py``'s heartbeat measures them) and mouse events and timers get in
between. A step queued under a key that is still waiting replaces it in its place in the
queue: only the newest result is drawn.

One queue serves every view: timers of several views due together would otherwise run in
the same turn and add up.
"""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QApplication


class Turns(QObject):
    """A queue of steps (callables) run one per event-loop turn, oldest first."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._steps: dict = {}  # key -> callable, in queue order
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._run_one)

    def later(self, key, step, first: bool = False) -> None:
        """Run ``step()`` in a later turn; a step still waiting under ``key`` is replaced
        (keeping its place). Keys are hashable, e.g. ``(owner, "table")``. ``first``: ahead
        of every waiting step (what the user just drew)."""
        if first:
            self._steps.pop(key, None)
            self._steps = {key: step, **self._steps}
        else:
            self._steps[key] = step
        if not self._timer.isActive():
            self._timer.start()

    def cancel(self, key) -> None:
        self._steps.pop(key, None)

    def waiting(self, owner=None) -> bool:
        """Steps wait (of ``owner``: keys that are ``owner`` or tuples starting with it);
        those of deleted views do not count (they are dropped unrun)."""
        return any(_live(o) and (owner is None or o is owner) for o in map(_owner, self._steps))

    def _run_one(self) -> None:
        if not self._steps:
            return
        key = next(iter(self._steps))
        step = self._steps.pop(key)
        try:
            if _live(_owner(key)):  # its view may be gone
                step()
        finally:
            if self._steps:
                self._timer.start()


def _owner(key):
    return key[0] if isinstance(key, tuple) and key else key


def _live(owner) -> bool:
    return not isinstance(owner, QObject) or shiboken6.isValid(owner)


_shared: Turns | None = None


def shared() -> Turns:
    """The application's queue (made on first use, lives as long as the QApplication)."""
    global _shared
    if _shared is None:
        _shared = Turns(QApplication.instance())
    return _shared
