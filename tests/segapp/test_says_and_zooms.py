"""Issue 9, the rest of points 4 and 5: the eigenvector tooltip, 100% zoom, the busy line with
what runs and for how long, plain-words parameter tooltips. The real window offscreen,
waiting on signals."""

import re

import numpy as np
from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication, QFormLayout

from segapp import core
from tests.segapp.conftest import RESULT_TIMEOUT_MS, draw, settle
from segapp.gui.canvas import MUST


def _hover(view, k, row, col):
    """A mouse move (no button) over image pixel (row, col) of thumbnail ``k``."""
    scene = view.boxes[k].mapViewToScene(QPointF(col + 0.5, row + 0.5))
    vp = view.glw.viewport()
    p = QPointF(view.glw.mapFromScene(scene))
    QApplication.sendEvent(vp, QMouseEvent(QEvent.MouseMove, p, vp.mapToGlobal(p), Qt.NoButton, Qt.NoButton,
                                           Qt.NoModifier))


def test_eigenvector_thumbnails_say_the_value_under_the_cursor(qtbot, window):
    view, res = window.side.eigen, window.model.result
    h, w = window.model.shape
    for k, (row, col) in ((1, (h // 3, w // 4)), (0, (h - 5, w - 7))):
        with qtbot.waitSignal(view.hovered, timeout=5000) as sig:
            _hover(view, k, row, col)
        m = re.fullmatch(rf"eigenvector {k + 1} at \((\d+), (\d+)\): (\S+)", sig.args[0])
        assert m, sig.args[0]
        r, c = int(m[1]), int(m[2])
        assert abs(r - row) <= 1 and abs(c - col) <= 1  # the pixel under the cursor
        painted = res.node_map.full_size(res.node_embedding[:, k])  # the full-size picture
        assert float(m[3]) == float(f"{painted[r, c]:.4g}")
        assert view.glw.toolTip() == sig.args[0]


def test_actual_size_shows_one_image_pixel_per_screen_pixel(qtbot, window):
    view = window.canvas.view
    window.canvas.zoom_to_fit()
    assert abs(view.viewPixelSize()[0] - 1.0) > 0.05  # the demo does not fit at exactly 100%
    centre = view.viewRect().center()
    qtbot.keyClick(window.canvas, Qt.Key_1, Qt.ControlModifier)  # View → Actual size
    qtbot.waitUntil(lambda: np.allclose(view.viewPixelSize(), 1.0, atol=0.01), timeout=5000)
    assert abs(view.viewRect().center().x() - centre.x()) < 1 and abs(view.viewRect().center().y() - centre.y()) < 1
    qtbot.keyClick(window.canvas, Qt.Key_0, Qt.ControlModifier)  # back to fit
    (x0, x1), (y0, y1) = view.viewRange()
    h, w = window.model.shape
    assert x0 <= 0 and x1 >= w and y0 <= 0 and y1 >= h


def test_busy_line_says_what_runs_and_for_how_long(qtbot, window):
    said = []
    window.controller.progressChanged.connect(said.append)
    draw(qtbot, window, MUST, 40, 60, 200, 300)
    n = window.model.result.n_nodes  # the method's graph
    running = [t for t in said if t]
    assert running and all(re.fullmatch(rf"csp on {n} nodes… \d+\.\d s", t) for t in running), said
    assert said[-1] == "" and window.progress.text() == ""  # cleared when the result is in


def test_busy_clock_counts_up_while_it_runs(qtbot, window):
    clock, said = window.controller.clock, []
    clock.textChanged.connect(said.append)
    clock.start("csp on 707 nodes…")
    qtbot.waitUntil(lambda: len(said) >= 3, timeout=5000)  # rewritten by the timer, not by the worker
    clock.stop()
    seconds = [float(re.fullmatch(r"csp on 707 nodes… (\d+\.\d) s", t)[1]) for t in said]
    assert seconds == sorted(seconds) and seconds[-1] >= 0.1
    assert window.progress.text() == said[-1]
    assert not clock.running


def _tooltips(form):
    lay = form.form
    return {lay.itemAt(r, QFormLayout.LabelRole).widget().text(): lay.itemAt(r, QFormLayout.FieldRole).widget().toolTip()
            for r in range(lay.rowCount())}


def test_parameter_tooltips_say_plain_words_before_the_paper(qtbot, window):
    assert window.model.method == "csp"
    beta = core.METHODS["csp"].params[0]
    tip = _tooltips(window.side.params)["beta"]
    assert beta.plain and tip.startswith(beta.plain + "\n(Paper: " + beta.help + ")")
    assert "eq. 15" not in tip.split("\n")[0]  # the first line has no equation
    rep = {p.name: p for p in core.REPRESENTATION_PARAMS}
    for name, tip in _tooltips(window.side.rep_form).items():  # no plain sentence: the help alone
        assert tip.startswith(rep[name].plain or rep[name].help)
