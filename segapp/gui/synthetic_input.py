"""Real mouse events on the canvas, for the tests and ``bench/gui_latency.py``.

Events go through Qt's event delivery to the canvas viewport, so they take the same path as
a person's: pyqtgraph's drag handling, the canvas's hit-testing, the typed edit, the model.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
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


def drag(canvas, r1, c1, r2, c2, steps: int = 6) -> None:
    """Press at pixel (r1, c1), move with the left button held, release at (r2, c2)."""
    vp = canvas.viewport()
    a, b = pixel_to_viewport(canvas, r1, c1), pixel_to_viewport(canvas, r2, c2)
    _send(vp, QEvent.MouseButtonPress, a, Qt.LeftButton, Qt.LeftButton)
    for k in range(1, steps + 1):
        t = k / steps
        p = QPoint(round(a.x() + t * (b.x() - a.x())), round(a.y() + t * (b.y() - a.y())))
        _send(vp, QEvent.MouseMove, p, Qt.LeftButton)
    _send(vp, QEvent.MouseButtonRelease, b, Qt.NoButton, Qt.LeftButton)


def click(canvas, row: float, col: float) -> None:
    """A left click (press and release without moving) at image position (row, col)."""
    vp = canvas.viewport()
    a = pixel_to_viewport(canvas, row - 0.5, col - 0.5)
    _send(vp, QEvent.MouseButtonPress, a, Qt.LeftButton, Qt.LeftButton)
    _send(vp, QEvent.MouseButtonRelease, a, Qt.NoButton, Qt.LeftButton)
