"""Drive the real window offscreen (pytest-qt), waiting on signals, never sleeping."""

import json
import warnings

import numpy as np
import pytest
from PIL import Image

from segapp import core
from segapp.core.eval.metrics import adjusted_rand
from segapp.gui.canvas import BLOCK, CANNOT, ERASE, MUST
from tests.segapp.conftest import RESULT_TIMEOUT_MS, click, drag, draw, settle


def _expected(window, **params):
    """What core.segment gives for the window's image, constraints and settings."""
    m = window.model
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", core.SegappWarning)
        return core.segment(m.image, m.constraints, method=m.method, n_segments=m.n_segments,
                            **{**m.params, **params})


def _label_image(result):
    """A window result's labels at full size (the demo image is its own working copy)."""
    nm = result.node_map
    assert nm.factor == 1
    return np.asarray(result.node_labels)[nm.node_map]


def test_drags_create_constraints_at_the_right_pixels(qtbot, window):
    draw(qtbot, window, MUST, 40, 60, 40, 300)
    draw(qtbot, window, CANNOT, 150, 100, 160, 250)
    qtbot.keyClick(window, "3")  # block label 3
    draw(qtbot, window, BLOCK, 200, 20, 214, 39)
    c = window.model.constraints
    assert [l[:4] for l in c.must_link] == [(40, 60, 40, 300)]
    assert [l[:4] for l in c.cannot_link] == [(150, 100, 160, 250)]
    assert c.blocks == (core.Block(3, 200, 20, 215, 40),)


def test_strokes_outside_the_image_are_clamped_to_its_edge(qtbot, window):
    h, w = window.model.shape
    draw(qtbot, window, MUST, 10, 10, h + 30, w + 30)
    assert window.model.constraints.must_link[0][:4] == (10, 10, h - 1, w - 1)


def test_short_drag_is_ignored(qtbot, window):
    window.canvas.view.tool = MUST
    drag(window.canvas, 50, 50, 50, 51)
    assert not window.model.constraints
    assert window.runner.idle  # nothing was requested


def test_result_is_what_core_gives_and_the_overlay_shows_it(qtbot, window):
    """The labels painted on screen are core.segment's, through the cached node map, in the
    legend's colours: tinted inside, opaque along the segment boundaries."""
    from segapp.gui.paint import boundaries

    with qtbot.waitSignal(window.model.resultChanged, timeout=RESULT_TIMEOUT_MS):
        window.side.method_box.setCurrentText("e2cp")
    settle(qtbot, window)
    before = window.model.result  # the stroke is segmented with the result on screen as previous
    draw(qtbot, window, CANNOT, 150, 100, 160, 250)
    res = window.model.result
    expected = _expected(window, previous=_label_image(before))
    assert res.method == "e2cp" and res.params["method"] == "e2cp"
    assert np.array_equal(res.node_labels, expected.node_labels)
    assert np.array_equal(res.node_map.full_size(res.node_labels), expected.labels)
    shown = window.canvas.overlay_item.image  # RGBA at working resolution
    colours = window.side.legend.info.rgb
    assert len(set(map(tuple, colours))) == 2
    assert np.array_equal(shown[..., :3], colours[expected.labels])
    edge = boundaries(expected.labels)
    assert (shown[..., 3][~edge] == round(0.45 * 255)).all() and (shown[..., 3][edge] == 255).all()
    assert window.side.eigen.items[0].image is not None


@pytest.mark.parametrize("method", list(core.METHODS))
def test_each_method_shows_what_core_gives_and_dashes_what_it_breaks(qtbot, window, method):
    """Labels, eigenvalues and honoured flags are core.segment's for the same input; a stroke
    the result does not honour is drawn dashed and named in the status tooltip."""
    if method != window.model.method:
        with qtbot.waitSignal(window.model.resultChanged, timeout=RESULT_TIMEOUT_MS):
            window.side.method_box.setCurrentText(method)
    settle(qtbot, window)
    shown = window.model.result  # the worker segments the stroke with this one as previous
    draw(qtbot, window, CANNOT, 150, 100, 160, 250)  # both ends in one segment without constraints
    res, expected = window.model.result, _expected(window, previous=_label_image(shown))
    assert res.method == method and window.status.text().startswith(method)
    assert np.array_equal(res.node_labels, expected.node_labels)
    assert np.allclose(res.eigenvalues, expected.eigenvalues, equal_nan=True)
    honoured = bool(expected.honoured["cannot_link"][0])
    assert res.honoured["cannot_link"].tolist() == [honoured]
    assert window.canvas.layer.dashed("cannot_link") == ([] if honoured else [0])
    assert ("not honoured" in window.status.toolTip()) != honoured
    assert ("the 1st cannot-link" in window.status.toolTip()) != honoured


def test_undo_redo_restore_the_constraint_list(qtbot, window):
    draw(qtbot, window, MUST, 40, 60, 40, 300)
    draw(qtbot, window, CANNOT, 150, 100, 160, 250)
    full = window.model.constraints
    window.model.undo.undo()
    assert len(window.model.constraints.cannot_link) == 0 and len(window.model.constraints.must_link) == 1
    window.model.undo.redo()
    assert window.model.constraints == full
    window.model.clear()
    assert not window.model.constraints
    window.model.undo.undo()
    assert window.model.constraints == full
    settle(qtbot, window)
    assert len(window.canvas.layer.links["must_link"].ids) == 1


def test_erase_click_goes_through_the_canvas(qtbot, window):
    draw(qtbot, window, MUST, 40, 60, 40, 300)
    draw(qtbot, window, CANNOT, 150, 100, 160, 250)
    qtbot.keyClick(window, "2")
    draw(qtbot, window, BLOCK, 200, 20, 230, 60)
    qtbot.keyClick(window, "e")  # the Erase tool's shortcut
    assert window.canvas.view.tool == ERASE
    edits = []
    window.canvas.edited.connect(edits.append)
    click(window.canvas, 100, 100)  # far from every stroke and block: nothing
    assert edits == [] and len(window.model.constraints) == 3
    with qtbot.waitSignal(window.model.resultChanged, timeout=RESULT_TIMEOUT_MS):
        click(window.canvas, 41.5, 180)  # 1 pixel below the must-link
    assert [type(e).__name__ for e in edits] == ["EraseEdit"] and edits[0].kind == "must_link"
    c = window.model.constraints
    assert not c.must_link and len(c.cannot_link) == 1 and len(c.blocks) == 1
    settle(qtbot, window)
    with qtbot.waitSignal(window.model.resultChanged, timeout=RESULT_TIMEOUT_MS):
        click(window.canvas, 215, 40)  # inside the block
    assert not window.model.constraints.blocks and len(window.model.constraints.cannot_link) == 1
    window.model.undo.undo()
    assert window.model.constraints.blocks == (core.Block(2, 200, 20, 231, 61),)


def test_export_writes_the_result_labels_at_full_size(qtbot, window, tmp_path):
    before = window.model.result
    draw(qtbot, window, CANNOT, 150, 100, 160, 250)
    res = window.model.result
    for kind, export in (("labels", window.export_mask), ("overlay", window.export_overlay),
                         ("eigenvectors", window.export_eigenvectors)):
        with qtbot.waitSignal(window.controller.exported, timeout=RESULT_TIMEOUT_MS):
            export(str(tmp_path / f"{kind}.png"))
    labels = np.asarray(Image.open(tmp_path / "labels.png"))
    assert np.array_equal(labels, res.node_map.full_size(res.node_labels))
    assert np.array_equal(labels, _expected(window, previous=_label_image(before)).labels)
    h, w = window.model.shape
    assert Image.open(tmp_path / "overlay.png").size == (w, h)
    from segapp.core.render import CAPTION_PX

    strip = np.asarray(Image.open(tmp_path / "eigenvectors.png"))
    assert strip.shape[0] == h + CAPTION_PX and (strip[h:] < 100).any()  # a caption under each panel


def test_export_into_a_missing_folder_says_so(qtbot, window, tmp_path):
    with qtbot.waitSignal(window.runner.taskFailed, timeout=RESULT_TIMEOUT_MS) as sig:
        window.export_mask(str(tmp_path / "missing" / "labels.png"))
    assert "missing" in sig.args[1] and "⚠" in window.status.text()


def test_corrupt_image_keeps_image_constraints_and_result(qtbot, window, tmp_path):
    draw(qtbot, window, MUST, 40, 60, 40, 300)
    bad = tmp_path / "broken.png"
    bad.write_bytes(b"\x89PNG\r\n\x1a\nnot really")
    image, cons, result = window.model.image, window.model.constraints, window.model.result
    with qtbot.waitSignal(window.model.errorOccurred, timeout=10000) as sig:
        window.controller.open_image(bad)
    assert "broken.png" in sig.args[0] and "broken.png" in window.status.text()
    assert window.model.image is image and window.model.constraints == cons
    assert window.model.result is result


def _replay(window, sent, rid):
    """The result ``core.segment`` gives for request ``rid`` of ``sent`` (rid -> the
    request's constraints and the id of the result on screen it passed on), the results it
    passed on computed the same way first: what the worker computes, in this process."""
    cons, previous = sent[rid]
    shown = _replay(window, sent, previous) if previous is not None else None
    m = window.model
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", core.SegappWarning)
        return core.segment(m.image, cons, method=m.method, n_segments=m.n_segments,
                            previous=shown, **m.params)


def test_burst_of_strokes_ends_with_the_final_result(qtbot, window):
    from PySide6.QtWidgets import QApplication

    # strokes come faster than any hand: keep pyqtgraph from reading presses as double-clicks
    QApplication.styleHints().setMouseDoubleClickInterval(1)
    window.canvas.view.tool = MUST
    start = window.model.result  # the result without strokes, on screen before the burst
    assert start is not None and not window.model.constraints.must_link
    shown, sent = [], {start.rid: (core.Constraints(), None)}
    window.runner.finished.connect(lambda rid, res: shown.append(rid))
    request = window.runner.request

    def spy(image_token, must_link, cannot_link, blocks, *args, order=None, previous=None, **kw):
        rid = request(image_token, must_link, cannot_link, blocks, *args, order=order, previous=previous, **kw)
        sent[rid] = (core.Constraints(must_link, cannot_link, blocks, order=order), previous)
        return rid
    window.runner.request = spy
    for k in range(20):
        drag(window.canvas, 20 + 4 * k, 30, 20 + 4 * k, 320)
        QApplication.processEvents()  # one user action after another, as real input arrives
    settle(qtbot, window)
    assert len(window.model.constraints.must_link) == 20
    assert shown and shown[-1] == window.runner.latest
    assert len(shown) < 20  # requests coalesced: only the newest waits
    assert all(a < b for a, b in zip(shown, shown[1:]))  # never an older result after a newer one
    # the final constraints' partition, read with the result that was on screen when the last
    # request left (which the burst's timing decides; the result on screen decides which
    # must-link groups are read as one region): the worker's chain of results replayed here.
    # Segment numbers follow the screen, and the refined parts are numbered by segment, so
    # compare pixels.
    final_cons, _ = sent[window.runner.latest]
    assert final_cons.must_link == window.model.constraints.must_link
    expected = _replay(window, sent, window.runner.latest)
    assert adjusted_rand(_label_image(window.model.result).ravel(), expected.labels.ravel()) == 1.0


def test_berkeley_browser_opens_a_bsds_folder(qtbot, window, tmp_path):
    from tests.core.test_bsds_metrics import make_bsds

    root = make_bsds(tmp_path / "bsds", n=3, h=40, w=60)
    with qtbot.waitSignal(window.berkeley.thumbnailsDone, timeout=20000):
        assert window.open_berkeley(root)
    assert window.berkeley.list.count() == 3
    assert not window.berkeley.list.item(0).icon().isNull()
    with qtbot.waitSignal(window.model.groundTruthChanged, timeout=20000,
                          check_params_cb=lambda *a: bool(window.model.ground_truth)):
        window.berkeley.list.itemClicked.emit(window.berkeley.list.item(1))
    settle(qtbot, window)
    assert window.model.path.name == "101.jpg"
    assert window.berkeley.annotator.maximum() == 2
    window.berkeley.show_gt.setChecked(True)
    assert window.canvas.gt_item.image is not None and window.canvas.gt_item.image[..., 3].any()
    res = window.model.result
    gt = window.model.current_ground_truth()
    ari = adjusted_rand(gt, res.node_map.full_size(res.node_labels))
    assert window.controller.ari == pytest.approx(ari)
    assert f"ARI {ari:.3f} vs annotator 1" in window.status.text()
    window.berkeley.annotator.setValue(2)  # scored again in the worker
    other = adjusted_rand(window.model.ground_truth[1], res.node_map.full_size(res.node_labels))
    qtbot.waitUntil(lambda: f"ARI {other:.3f} vs annotator 2" in window.status.text(), timeout=20000)
    assert not window.open_berkeley(tmp_path / "nothing-here")
    assert "not a folder of images: it does not exist" in window.status.text()


def test_autosave_and_recent_files(qtbot, window):
    from segapp.gui import persistence

    draw(qtbot, window, CANNOT, 150, 100, 160, 250)
    window.autosave.flush()
    (s,) = [s for s in persistence.unfinished() if s["image"] == str(window.model.path.absolute())]
    assert s["items"]["cannot_link"] == [[150, 100, 160, 250, 1.0]]  # written at once, no debounce
    assert s["dirty"] and s["end"] is None  # as if the app had died here
    assert str(window.model.path.absolute()) in persistence.recent()


def test_settings_restore_method_and_parameters(qtbot, window, shared_worker):
    from segapp.gui.main_window import MainWindow
    from segapp.gui.runner import SegmentRunner

    window.side.method_box.setCurrentText("e2cp")
    window.model.set_param("alpha", 0.6)
    window.model.set_param("max_nodes", 300)
    settle(qtbot, window)
    window.close()
    again = MainWindow(SegmentRunner(shared_worker))
    qtbot.addWidget(again)
    assert again.model.method == "e2cp" and again.model.params == {"alpha": 0.6, "max_nodes": 300}
    assert again.side.method_box.currentText() == "e2cp"
    again.close()


def test_space_drag_pans_instead_of_drawing(qtbot, window):
    from PySide6.QtCore import Qt

    before = window.canvas.view.viewRange()
    qtbot.keyPress(window, Qt.Key_Space)
    drag(window.canvas, 100, 100, 100, 200)
    qtbot.keyRelease(window, Qt.Key_Space)
    assert not window.model.constraints
    assert window.canvas.view.viewRange() != before


def test_crashed_session_is_restored(qtbot, window, shared_worker):
    from segapp.gui import persistence
    from segapp.gui.main_window import MainWindow
    from segapp.gui.runner import SegmentRunner

    window.model.set_param("max_nodes", 300)
    draw(qtbot, window, CANNOT, 150, 100, 160, 250)
    window.autosave.flush()
    (data,) = persistence.unfinished()  # the app "dies" here: no clean close
    fresh = MainWindow(SegmentRunner(shared_worker))
    qtbot.addWidget(fresh)
    with qtbot.waitSignal(fresh.model.resultChanged, timeout=RESULT_TIMEOUT_MS):
        persistence.restore(fresh.controller, data)
    settle(qtbot, fresh)
    assert fresh.model.constraints == window.model.constraints
    assert fresh.model.path == window.model.path
    assert fresh.model.rep_params == {"max_nodes": 300} and fresh.model.result.params["max_nodes"] == 300
    fresh.close()
    window.close()
    assert persistence.unfinished() == []  # both closed cleanly: nothing left to offer


def test_drop_opens_the_image(qtbot, window, tmp_path):
    from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
    from PySide6.QtGui import QDragEnterEvent, QDropEvent
    from PySide6.QtWidgets import QApplication

    path = tmp_path / "dropped.png"
    Image.fromarray(np.tile(np.linspace(0, 255, 90, dtype=np.uint8), (60, 1))).save(path)
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    enter = QDragEnterEvent(QPoint(10, 10), Qt.CopyAction, mime, Qt.LeftButton, Qt.NoModifier)
    QApplication.sendEvent(window, enter)
    assert enter.isAccepted()
    drop = QDropEvent(QPointF(10, 10), Qt.CopyAction, mime, Qt.LeftButton, Qt.NoModifier)
    with qtbot.waitSignal(window.model.resultChanged, timeout=RESULT_TIMEOUT_MS):
        QApplication.sendEvent(window, drop)
    assert window.model.path == path and window.model.shape == (60, 90)
    assert window.canvas.image_item.image.shape == (60, 90, 3)  # grey shown as RGB


def test_a_stroke_is_segmented_with_the_result_on_screen_as_previous(qtbot, window, monkeypatch):
    """Each request names the result on screen when the edit was made, so the worker keeps
    earlier strokes in their segments (core.segment(previous=...))."""
    sent = []
    real = window.runner.request

    def spy(*args, **kwargs):
        sent.append(kwargs.get("previous"))
        return real(*args, **kwargs)

    monkeypatch.setattr(window.runner, "request", spy)
    shown = window.model.result.rid
    with qtbot.waitSignal(window.runner.finished, timeout=RESULT_TIMEOUT_MS):
        draw(qtbot, window, MUST, 40, 60, 40, 300)
    settle(qtbot, window)
    assert sent and sent[0] == shown
    assert window.model.result.rid != shown


def test_a_cannot_link_kept_apart_only_by_a_small_segment_is_dashed_and_said(qtbot, shared_worker, tmp_path):
    """A cannot-link from a 9 x 9 square (0.3% of the image) to the rest: the result honours it
    by the square's segment alone, so the canvas dashes it and the status bar says why."""
    import shiboken6
    from PySide6.QtCore import Qt

    from segapp.gui.runner import SegmentRunner
    from tests.segapp.conftest import make_window

    arr = np.full((160, 240, 3), (70, 110, 60), np.uint8)
    arr[20:29, 20:29] = (230, 200, 40)
    path = tmp_path / "square.png"
    Image.fromarray(arr).save(path)
    w = make_window(qtbot, image=str(path), runner=SegmentRunner(shared_worker))
    try:
        draw(qtbot, w, CANNOT, 24, 24, 120, 200)
        res = w.model.result
        assert res.honoured["cannot_link"].tolist() == [True]
        assert [i for i, _ in res.info["small_cannot_links"]] == [0]
        assert w.canvas.layer.dashed("cannot_link") == [0]
        assert "the 1st cannot-link (dashed) is kept apart only by a 0." in w.status.text()
        assert "kept apart only by a segment under 3% of the image (drawn dashed): the 1st cannot-link (" \
            in w.status.toolTip()
        qtbot.keyClick(w, "z", modifier=Qt.ControlModifier)  # undone: nothing left dashed
        settle(qtbot, w)
        assert not w.model.constraints and w.canvas.layer.dashed("cannot_link") == []
        assert "kept apart" not in w.status.text()
    finally:
        settle(qtbot, w)
        if shiboken6.isValid(w):
            w.close()
