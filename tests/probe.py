"""Probes for the tests and ``bench/gui_latency.py``: real mouse events, a GUI-thread heartbeat.

Events go through Qt's event delivery to the canvas viewport, so they take the same path as
a person's: pyqtgraph's drag handling, the canvas's hit-testing, the typed edit, the model.
The heartbeat is a timer on the GUI thread; the longest gap between its ticks is the longest
time the GUI thread was blocked.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QEvent, QObject, QPoint, QPointF, Qt, QTimer
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication


def pixel_to_viewport(canvas, row: float, col: float) -> QPoint:
    """Viewport coordinates of the centre of image pixel (row, col)."""
    scene = canvas.view.mapViewToScene(QPointF(col + 0.5, row + 0.5))
    return canvas.mapFromScene(scene)


def _send(widget, kind, pos, buttons, button=Qt.NoButton) -> None:
    p = QPointF(pos)
    ev = QMouseEvent(kind, p, widget.mapToGlobal(p), button, buttons, Qt.NoModifier)
    QApplication.sendEvent(widget, ev)


def stroke_events(canvas, r1, c1, r2, c2, steps: int = 6) -> list:
    """A drag from pixel (r1, c1) to (r2, c2) as a list of callables, one mouse event each:
    press, ``steps`` moves with the left button held, release. Deliver them one per
    event-loop turn to pace them as a person's arrive."""
    vp = canvas.viewport()
    a, b = pixel_to_viewport(canvas, r1, c1), pixel_to_viewport(canvas, r2, c2)
    events = [lambda: _send(vp, QEvent.MouseButtonPress, a, Qt.LeftButton, Qt.LeftButton)]
    for k in range(1, steps + 1):
        t = k / steps
        p = QPoint(round(a.x() + t * (b.x() - a.x())), round(a.y() + t * (b.y() - a.y())))
        events.append(lambda p=p: _send(vp, QEvent.MouseMove, p, Qt.LeftButton))
    events.append(lambda: _send(vp, QEvent.MouseButtonRelease, b, Qt.NoButton, Qt.LeftButton))
    return events


def drag(canvas, r1, c1, r2, c2, steps: int = 6) -> None:
    """Press at pixel (r1, c1), move with the left button held, release at (r2, c2), at once."""
    for send in stroke_events(canvas, r1, c1, r2, c2, steps):
        send()


def click(canvas, row: float, col: float) -> None:
    """A left click (press and release without moving) at image position (row, col)."""
    vp = canvas.viewport()
    a = pixel_to_viewport(canvas, row - 0.5, col - 0.5)
    _send(vp, QEvent.MouseButtonPress, a, Qt.LeftButton, Qt.LeftButton)
    _send(vp, QEvent.MouseButtonRelease, a, Qt.NoButton, Qt.LeftButton)


# The most CPU time the GUI thread may spend between two heartbeats in a test: a stutter a
# person notices. It catches work on the wrong thread (the old window blocked 1.35 s on rapid
# strokes, 71 s on 10^4 links; a 12 MP result coloured on the GUI thread takes longer), not
# the 50 ms, which bench/gui_latency.py measures and the README quotes: one fresh
# clone's run measured 82 ms here, others 11-25 ms, the same code (tests never time speed).
STALL_MS = 100


class Heartbeat(QObject):
    """Ticks every ``interval_ms`` on the GUI thread while running.

    ``longest_gap_ms()`` is the largest wall time between two ticks beyond the interval (0:
    never blocked); ``longest_busy_ms()`` the most CPU time the GUI thread itself spent
    between two ticks (its own work, whatever other processes do to the wall time).
    """

    def __init__(self, interval_ms: int = 5):
        super().__init__()
        self.interval_ms = interval_ms
        self.ticks: list[float] = []
        self.cpu: list[float] = []
        self._timer = QTimer(self, interval=interval_ms)
        self._timer.setTimerType(Qt.PreciseTimer)
        self._timer.timeout.connect(self._tick)

    def _tick(self) -> None:
        self.ticks.append(time.perf_counter())
        self.cpu.append(time.thread_time())

    def start(self) -> None:
        self.ticks, self.cpu = [], []
        self._tick()
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    def gaps_ms(self) -> list[float]:
        return [1000 * (b - a) for a, b in zip(self.ticks, self.ticks[1:])]

    def longest_gap_ms(self) -> float:
        return max([g - self.interval_ms for g in self.gaps_ms()] + [0.0])

    def longest_busy_ms(self) -> float:
        return max([1000 * (b - a) for a, b in zip(self.cpu, self.cpu[1:])] + [0.0])
