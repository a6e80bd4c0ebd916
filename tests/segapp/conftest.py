import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
_HOME = __import__("tempfile").mkdtemp(prefix="segapp-test-home-")
os.environ["XDG_CONFIG_HOME"] = os.path.join(_HOME, "config")  # QSettings and autosave stay
os.environ["XDG_DATA_HOME"] = os.path.join(_HOME, "data")      # out of the user's home

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt  # noqa: E402
from PySide6.QtGui import QMouseEvent  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402


@pytest.fixture(autouse=True)
def _every_mouse_move_counts():
    """Synthetic moves arrive back to back; pyqtgraph drops moves faster than 100/s
    (``mouseRateLimit``), which could swallow a whole injected stroke."""
    import pyqtgraph as pg

    old = pg.getConfigOption("mouseRateLimit")
    pg.setConfigOption("mouseRateLimit", 0)
    yield
    pg.setConfigOption("mouseRateLimit", old)


@pytest.fixture
def window(qtbot):
    from segapp.gui import persistence
    from segapp.gui.main_window import MainWindow
    from segapp.resources import DEMO_IMAGE

    persistence.settings().clear()  # every test starts from a fresh install
    w = MainWindow()
    qtbot.addWidget(w)
    w.resize(1200, 720)
    w.show()
    with qtbot.waitSignal(w.model.resultChanged, timeout=20000):
        assert w.model.open_image(DEMO_IMAGE)
    yield w
    qtbot.waitUntil(lambda: w.runner.running is None and w.runner.pending is None, timeout=60000)
    w.close()


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
