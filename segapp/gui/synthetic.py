"""Synthetic mouse input on the canvas: drags as a person makes them, for the GUI tests
(``tests/segapp``) and the latency benchmark (``bench/gui_latency.py``)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication


def pixel_to_viewport(window, row, col):
    """Viewport coordinates of the centre of image pixel (row, col)."""
    view = window.canvas.view
    scene = view.mapViewToScene(QPointF(col + 0.5, row + 0.5))
    return window.canvas.mapFromScene(scene)


def _send(widget, kind, pos, buttons, button=Qt.NoButton):
    p = QPointF(pos)
    ev = QMouseEvent(kind, p, widget.mapToGlobal(p), button, buttons, Qt.NoModifier)
    QApplication.sendEvent(widget, ev)


def drag(window, r1, c1, r2, c2, steps=6):
    """Press at pixel (r1, c1), move with the button held, release at (r2, c2)."""
    vp = window.canvas.viewport()
    a, b = pixel_to_viewport(window, r1, c1), pixel_to_viewport(window, r2, c2)
    _send(vp, QEvent.MouseButtonPress, a, Qt.LeftButton, Qt.LeftButton)
    for k in range(1, steps + 1):
        t = k / steps
        p = QPoint(round(a.x() + t * (b.x() - a.x())), round(a.y() + t * (b.y() - a.y())))
        _send(vp, QEvent.MouseMove, p, Qt.LeftButton)
    _send(vp, QEvent.MouseButtonRelease, b, Qt.NoButton, Qt.LeftButton)
