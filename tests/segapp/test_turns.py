"""A result's views are updated over several event-loop turns, newest result only.

The overlay is painted in the turn the result arrives; strokes, legend, eigenvector
thumbnails and the eigenvalue plot follow one step per turn (``segapp.gui.turns``), so no
turn of the GUI thread holds them all; ``MainWindow.drawing`` says while any is pending.
"""

import dataclasses

import numpy as np
from PySide6.QtCore import QObject
from PySide6.QtWidgets import QApplication

from segapp.gui.paint import OverlayPainter, overlay_rgba, working_labels
from segapp.gui.turns import Turns
from tests.segapp.conftest import settle


def _turn():
    """One pass of the event loop."""
    QApplication.processEvents()


def test_steps_run_one_per_turn_in_order_and_a_newer_step_replaces_a_waiting_one(qtbot):
    turns, ran = Turns(), []
    turns.later("a", lambda: ran.append("a1"))
    turns.later("b", lambda: ran.append("b"))
    turns.later("a", lambda: ran.append("a2"))  # replaces a1, keeps its place
    turns.later("c", lambda: ran.append("c"), first=True)  # ahead of all
    assert turns.waiting() and not ran
    _turn()
    assert ran == ["c"]
    _turn()
    assert ran == ["c", "a2"]
    qtbot.waitUntil(lambda: not turns.waiting())
    assert ran == ["c", "a2", "b"]


def test_a_step_of_a_deleted_view_is_dropped_unrun(qtbot):
    turns, ran = Turns(), []
    owner = QObject()
    turns.later((owner, "x"), lambda: ran.append("x"))
    assert turns.waiting(owner)
    import shiboken6

    shiboken6.delete(owner)
    assert not turns.waiting()
    _turn()
    assert ran == []


def test_the_overlay_painter_paints_what_the_per_pixel_overlay_paints():
    rng = np.random.RandomState(0)
    node_map = (np.arange(61)[:, None] // 7 * 100 + np.arange(83)[None] // 9).astype(np.int32)
    _, node_map = np.unique(node_map, return_inverse=True)
    node_map = node_map.reshape(61, 83).astype(np.int32)
    painter = OverlayPainter(node_map)
    n = int(node_map.max()) + 1
    for k in (2, 3, 7):
        labels = rng.randint(k, size=n)
        colours = rng.randint(0, 256, size=(k, 3)).astype(np.uint8)
        for only in (False, True):
            for c in (None, colours):
                want = overlay_rgba(working_labels(labels, node_map), 0.45, only, c)
                assert np.array_equal(painter.rgba(labels, 0.45, only, c), want)


def _variant(res, rid, other):
    """``res`` as request ``rid``; ``other``: a different partition (every other node)."""
    labels = (np.arange(len(res.node_labels)) % 2).astype(res.node_labels.dtype) if other else res.node_labels
    return dataclasses.replace(res, rid=rid, node_labels=np.ascontiguousarray(labels),
                               eigenvalues=np.asarray(res.eigenvalues) + rid)


def test_a_result_paints_the_overlay_at_once_and_the_other_views_in_later_turns(qtbot, window):
    res = window.model.result
    new = _variant(res, res.rid + 1000, other=True)
    before = window.canvas.overlay_item.image.copy()
    eigen, legend = window.side.eigen, window.side.legend
    shown = [lbl.text for lbl in eigen.labels]
    window.model.set_result(new)
    assert not np.array_equal(window.canvas.overlay_item.image, before)  # in the same turn
    assert window.drawing and eigen.pending and legend.pending
    assert [lbl.text for lbl in eigen.labels] == shown  # not yet
    turns_needed = 0
    while window.drawing:
        _turn()
        turns_needed += 1
        assert turns_needed < 50
    assert turns_needed >= 3  # legend, thumbnails, plot: never all in one turn
    assert all(r is new for r in eigen._shown)
    ev = new.eigenvalues[0]
    assert eigen.labels[0].text.endswith(f"λ={ev:.3g}")
    assert np.allclose(eigen.curve.yData, np.asarray(new.eigenvalues)[np.isfinite(new.eigenvalues)])
    k = int(new.node_labels[0])
    assert legend.table.item(k, 3).text() == legend.name_of(k)
    assert legend.info is not None and legend._result is new


def test_only_the_newest_of_two_results_is_drawn(qtbot, window):
    res = window.model.result
    first, second = _variant(res, res.rid + 1000, True), _variant(res, res.rid + 1001, False)
    eigen = window.side.eigen
    drawn = []
    piece = eigen._draw_piece
    eigen._draw_piece = lambda r, p: (drawn.append(r.rid), piece(r, p))
    window.model.set_result(first)
    window.model.set_result(second)  # before the first's views were drawn
    settle(qtbot, window)
    assert set(drawn) == {second.rid}
    assert all(r is second for r in eigen._shown)
    colours = window.side.legend.info.rgb
    assert np.array_equal(window.canvas.overlay_item.image[..., :3],
                          colours[working_labels(second.node_labels, res.node_map.node_map)])
