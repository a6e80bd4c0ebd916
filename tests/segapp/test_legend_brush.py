"""The segment legend and stable colours, the label brush, and a window that fits the screen
(issue 9, points 1, 2, 4 and 5): the real window offscreen, waiting on signals."""

import json
from html import escape

import numpy as np
from PySide6.QtCore import QRect

from segapp import core
from segapp.gui.canvas import BLOCK, BRUSH, MUST
from segapp.gui.colours import label_rgb
from segapp.worker.results import NodeMap, SegmentResult
from tests.segapp.conftest import RESULT_TIMEOUT_MS, draw, settle


def _colour_at(window, r, c):
    """The overlay colour the canvas shows at pixel (r, c) (the demo is its own working copy)."""
    return tuple(int(v) for v in window.canvas.overlay_item.image[r, c, :3])


def _label_at(window, r, c):
    res = window.model.result
    return int(res.node_labels[res.node_map.node_map[r, c]])


def _set_segments(qtbot, window, k):
    with qtbot.waitSignal(window.model.resultChanged, timeout=RESULT_TIMEOUT_MS):
        window.side.k_box.setValue(k)
    settle(qtbot, window)


def _use_method(qtbot, window, method):
    with qtbot.waitSignal(window.model.resultChanged, timeout=RESULT_TIMEOUT_MS):
        window.model.set_method(method)
    settle(qtbot, window)


def test_colours_stay_with_their_segment_across_a_stroke_and_k(qtbot, window):
    # e2cp cuts the demo into the left disc and the rest (the regularised affinity; before it
    # gp-propagation's discs against the background was used here) and keeps that cut after a
    # must-link inside the sky, which it already honours
    _use_method(qtbot, window, "e2cp")
    a, b = (20, 20), (150, 100)  # sky and the left disc of the demo image
    assert _label_at(window, *a) != _label_at(window, *b)
    sky = _colour_at(window, *a)
    draw(qtbot, window, MUST, 8, 8, 20, 60)  # inside the sky: the sky keeps its colour
    assert _colour_at(window, *a) == sky
    qtbot.keyClick(window, "4")
    draw(qtbot, window, BLOCK, 140, 90, 160, 110)  # label 4 on the disc: its segment takes label 4's colour
    assert _colour_at(window, *b) == label_rgb(4)
    assert window.side.legend.name_of(_label_at(window, *b)) == "label 4"
    assert _colour_at(window, *a) == sky
    _set_segments(qtbot, window, 3)
    assert _colour_at(window, *b) == label_rgb(4)  # the block keeps its colour at K = 3
    shown = {tuple(map(int, c)) for c in window.side.legend.info.rgb}
    assert sky in shown and len(shown) == 3  # the sky's best successor kept the sky's colour


def test_a_segment_name_stays_with_its_colour(qtbot, window):
    _use_method(qtbot, window, "gp-propagation")  # a must-link inside the sky keeps its cut
    legend = window.side.legend
    k = _label_at(window, 10, 10)
    legend.table.item(k, 3).setText("sky")
    draw(qtbot, window, MUST, 8, 8, 20, 60)
    assert legend.name_of(_label_at(window, 10, 10)) == "sky"


def _with_an_empty_segment(window, k: int) -> SegmentResult:
    """The shown result's nodes in segments 0 .. k-2 only (K = k asked, the last one empty)."""
    nm = window.model.result.node_map
    n = int(nm.node_map.max()) + 1
    labels = (np.arange(n) % (k - 1)).astype(np.int64)
    return SegmentResult(rid=window.runner.latest, method="csp", n_segments=k, node_labels=labels,
                         node_embedding=np.zeros((n, 3), np.float32), eigenvalues=np.zeros(3), honoured={},
                         warnings=(), info={}, params={}, seconds=0.1, n_nodes=n, map_key=nm.key,
                         node_map=NodeMap(nm.key, nm.node_map, nm.factor, nm.shape))


def test_an_empty_segment_is_said_plainly(qtbot, window):
    window.model.set_result(_with_an_empty_segment(window, 3))  # only segments 0 and 1 used
    legend = window.side.legend
    qtbot.waitUntil(lambda: not window.drawing)  # the table follows the overlay in a later turn
    assert legend.note.isVisible()
    assert "K = 3 asked, 2 non-empty" in legend.note.text() and "#2" in legend.note.text()
    assert legend.table.item(2, 2).text() == "empty"


def test_brush_stroke_is_one_undo_step_and_a_version_2_file(qtbot, window, tmp_path):
    qtbot.keyClick(window, "2")
    before = window.canvas.brush_radius
    qtbot.keyClick(window, "]")
    assert window.canvas.brush_radius > before
    draw(qtbot, window, BRUSH, 60, 40, 80, 160)
    (block,) = window.model.constraints.blocks
    assert block.is_region and block.label == 2
    r = window.canvas.brush_radius
    assert block.contains(60, 40) and block.contains(70, 100) and block.contains(80, 160)
    assert not block.contains(60 + 2 * r + 2, 40) and block.n_pixels < (block.bottom - block.top) * (block.right - block.left)
    assert window.model.undo.count() == 1 and window.model.undo.undoText() == "paint region"
    assert window.model.result.honoured["blocks"].tolist() == [True]
    assert window.canvas.layer.hit(100, 70, 1.0) == ("blocks", 0)  # on the stroke
    assert window.canvas.layer.hit(45, 78, 1.0) is None  # in its box, off the stroke

    path = tmp_path / "c.json"
    with qtbot.waitSignal(window.controller.saved, timeout=RESULT_TIMEOUT_MS):
        window.controller.save_constraints(path)
    data = json.loads(path.read_text())
    assert data["version"] == 2 and "runs" in data["blocks"][0]
    assert core.Constraints.from_json(path) == window.model.constraints

    with qtbot.waitSignal(window.model.resultChanged, timeout=RESULT_TIMEOUT_MS):
        window.model.undo.undo()
    assert not window.model.constraints
    with qtbot.waitSignal(window.model.resultChanged, timeout=RESULT_TIMEOUT_MS):
        window.model.undo.redo()
    assert window.model.constraints.blocks == (block,)


def test_newest_constraint_is_last_in_the_order_whatever_its_kind(qtbot, window):
    draw(qtbot, window, BRUSH, 60, 40, 80, 160)
    draw(qtbot, window, MUST, 8, 8, 20, 60)
    assert window.model.constraints.sequence() == [("blocks", 0), ("must_link", 0)]


def test_window_fits_a_1366x768_laptop_and_never_grows(qtbot, window):
    window.resize(1600, 1000)
    window.fit_to(QRect(0, 0, 1366, 768))
    qtbot.waitUntil(lambda: window.height() <= 0.9 * 768 and window.width() <= 0.9 * 1366)
    window.resize(1366, 740)  # maximised, under a 28 px panel
    qtbot.waitUntil(lambda: window.size().height() == 740)
    inside = window.rect()
    for w in (window.statusBar(), window.side.eigen.plot, window.side.legend.table, window.canvas):
        assert w.isVisible()
        box = QRect(w.mapTo(window, w.rect().topLeft()), w.size())
        assert inside.contains(box), (type(w).__name__, box, inside)
    assert window.side.eigen.plot.height() >= 100 and window.side.eigen.glw.height() >= 100
    size = window.size()
    for method in ("ssap", "gp-propagation", "csp"):  # the longest parameter forms scroll
        window.side.method_box.setCurrentText(method)
        qtbot.waitUntil(lambda: window.controller.idle, timeout=RESULT_TIMEOUT_MS)
        assert window.size() == size


def test_zoom_to_fit_and_help(qtbot, window):
    window.canvas.view.scaleBy((0.2, 0.2))
    fit = next(a for a in window.findChildren(type(window.menuBar().actions()[0]))
               if a.text() == "Zoom to fit")
    assert {s.toString() for s in fit.shortcuts()} == {"F", "Ctrl+0"}
    fit.trigger()
    (x0, x1), (y0, y1) = window.canvas.view.viewRange()
    h, w = window.model.shape
    assert x0 <= 0 and x1 >= w and y0 <= 0 and y1 >= h

    from segapp.gui import help as help_menu

    assert "Help" in [a.text().replace("&", "") for a in window.menuBar().actions()]
    dlg = help_menu.show_shortcuts(window)
    assert "brush" in dlg.findChild(type(dlg.layout().itemAt(0).widget())).toPlainText()
    about = help_menu.show_about(window)
    assert all(escape(spec.reference.split(",")[0]) in about.text() for spec in core.METHODS.values())
    dlg.close()
    about.close()


def test_at_1366x768_the_empty_segment_note_leaves_every_row_visible(qtbot, window):
    """Issue: at 1366x768 the empty-segment warning squeezed the legend to 1.5 rows and was cut
    off itself. Now the note is one line (what to do in its tooltip) and the table keeps a row
    for every segment."""
    window.resize(1366, 740)  # a 1366x768 screen less a panel
    window.model.set_result(_with_an_empty_segment(window, 5))  # segment 4 empty
    legend = window.side.legend
    qtbot.waitUntil(lambda: not window.drawing)
    qtbot.wait(50)  # the layout settles
    t = legend.table
    assert legend.note.isVisible() and legend.note.sizeHint().width() <= legend.note.width() + 1
    assert "lower the number of segments" in legend.note.toolTip()
    visible = t.viewport().height() // t.verticalHeader().defaultSectionSize()
    assert visible >= 5, visible
