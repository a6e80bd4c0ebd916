"""Drive the real window offscreen (pytest-qt), waiting on signals, never sleeping."""

import warnings

import numpy as np
import pytest
from PIL import Image

import core
from segapp.gui.canvas import BLOCK, CANNOT, ERASE, MUST
from segapp.gui.synthetic import drag


def _draw(qtbot, window, tool, r1, c1, r2, c2):
    window.canvas.view.tool = tool
    with qtbot.waitSignal(window.model.resultChanged, timeout=20000):
        drag(window, r1, c1, r2, c2)


def test_drags_create_constraints_at_the_right_pixels(qtbot, window):
    _draw(qtbot, window, MUST, 40, 60, 40, 300)
    _draw(qtbot, window, CANNOT, 150, 100, 160, 250)
    window.block_label = 3
    _draw(qtbot, window, BLOCK, 200, 20, 214, 39)
    c = window.model.constraints
    assert [l[:4] for l in c.must_link] == [(40, 60, 40, 300)]
    assert [l[:4] for l in c.cannot_link] == [(150, 100, 160, 250)]
    assert c.blocks == (core.Block(3, 200, 20, 215, 40),)


def test_short_drag_is_ignored(qtbot, window):
    window.canvas.view.tool = MUST
    drag(window, 50, 50, 50, 51)
    assert not window.model.constraints


def test_result_arrives_and_overlay_changes(qtbot, window):
    before = window.model.result.labels.copy()
    overlay_before = window.canvas.overlay_item.image.copy()
    window.method_box.setCurrentText("e2cp")
    _draw(qtbot, window, CANNOT, 150, 100, 160, 250)
    after = window.model.result
    assert after.method == "e2cp"
    assert not np.array_equal(before, after.labels)
    assert not np.array_equal(overlay_before, window.canvas.overlay_item.image)
    assert window.eigen.items[0].image is not None


def test_undo_redo_restore_the_constraint_list(qtbot, window):
    _draw(qtbot, window, MUST, 40, 60, 40, 300)
    _draw(qtbot, window, CANNOT, 150, 100, 160, 250)
    full = window.model.constraints
    window.model.undo.undo()
    assert len(window.model.constraints.cannot_link) == 0 and len(window.model.constraints.must_link) == 1
    window.model.undo.redo()
    assert window.model.constraints == full
    window.model.clear()
    assert not window.model.constraints
    window.model.undo.undo()
    assert window.model.constraints == full


def test_erase_removes_the_clicked_stroke(qtbot, window):
    _draw(qtbot, window, MUST, 40, 60, 40, 300)
    window._erase_at(40.5, 180)
    assert not window.model.constraints.must_link


def test_export_writes_the_result_labels(qtbot, window, tmp_path):
    _draw(qtbot, window, CANNOT, 150, 100, 160, 250)
    out = tmp_path / "demo_labels.png"
    window.export_mask(str(out))
    assert np.array_equal(np.asarray(Image.open(out)), window.model.result.labels)


def test_corrupt_image_keeps_image_and_constraints(qtbot, window, tmp_path):
    _draw(qtbot, window, MUST, 40, 60, 40, 300)
    bad = tmp_path / "broken.png"
    bad.write_bytes(b"\x89PNG\r\n\x1a\nnot really")
    image, cons, result = window.model.image, window.model.constraints, window.model.result
    with qtbot.waitSignal(window.model.errorOccurred, timeout=5000) as sig:
        assert not window.model.open_image(bad)
    assert "broken.png" in sig.args[0] and "broken.png" in window.status.text()
    assert window.model.image is image and window.model.constraints == cons
    assert window.model.result is result


def test_burst_of_strokes_ends_with_the_final_result(qtbot, window):
    from PySide6.QtWidgets import QApplication

    # strokes come faster than any hand: keep pyqtgraph from reading presses as double-clicks
    QApplication.styleHints().setMouseDoubleClickInterval(1)
    window.canvas.view.tool = MUST
    shown = []
    window.runner.finished.connect(lambda rid, seg: shown.append(rid))
    for k in range(20):
        drag(window, 20 + 4 * k, 30, 20 + 4 * k, 320)
        QApplication.processEvents()  # one user action after another, as real input arrives
    with qtbot.waitSignal(window.runner.busyChanged, timeout=60000, check_params_cb=lambda b: b == 0):
        pass
    final = window.model.constraints
    assert len(final.must_link) == 20
    assert shown and shown[-1] == window.runner.latest
    assert all(a < b for a, b in zip(shown, shown[1:]))  # never an older result after a newer one
    with warnings.catch_warnings():  # the worker shows warnings in the status bar, not here
        warnings.simplefilter("ignore", core.SegappWarning)
        expected = core.segment(window.model.image, final, method=window.model.method, n_segments=2)
    assert np.array_equal(window.model.result.labels, expected.labels)


@pytest.mark.parametrize("method", list(core.METHODS))
def test_each_method_gives_a_result_on_the_demo(qtbot, window, method):
    with qtbot.waitSignal(window.model.resultChanged, timeout=30000):
        if method == window.model.method:
            window.k_box.setValue(3)
        else:
            window.method_box.setCurrentText(method)
    assert window.model.result.method == method
    assert window.model.result.labels.shape == window.model.image.shape[:2]


def test_berkeley_browser_opens_a_bsds_folder(qtbot, window, tmp_path):
    from tests.helpers import make_bsds

    root = make_bsds(tmp_path / "bsds", n=3, h=40, w=60)
    with qtbot.waitSignal(window.berkeley.thumbnailsDone, timeout=20000):
        assert window.open_berkeley(root)
    assert window.berkeley.list.count() == 3
    assert not window.berkeley.list.item(0).icon().isNull()
    with qtbot.waitSignal(window.model.resultChanged, timeout=20000):
        window.berkeley.list.itemClicked.emit(window.berkeley.list.item(1))
    assert window.model.path.name == "101.jpg"
    assert window.berkeley.annotator.maximum() == 2
    window.berkeley.show_gt.setChecked(True)
    assert window.canvas.gt_item.image is not None and window.canvas.gt_item.image[..., 3].any()
    assert "ARI" in window.status.text()
    assert not window.open_berkeley(tmp_path / "nothing-here")
    assert "not a BSDS500 folder" in window.status.text()


def test_exports_and_autosave(qtbot, window, tmp_path):
    import json

    from segapp.gui import persistence

    _draw(qtbot, window, CANNOT, 150, 100, 160, 250)
    def saved():
        try:
            return json.loads(persistence.session_file().read_text())["constraints"]["cannot_link"]
        except (OSError, ValueError, KeyError):
            return None

    qtbot.waitUntil(lambda: saved() == [[150, 100, 160, 250]], timeout=5000)  # debounced autosave
    window.export_overlay(str(tmp_path / "o.png"))
    window.export_eigenvectors(str(tmp_path / "e.png"))
    assert Image.open(tmp_path / "o.png").size == (360, 240)
    assert Image.open(tmp_path / "e.png").size[1] == 240
    data = json.loads(persistence.session_file().read_text())
    assert data["clean"] is False and data["constraints"]["cannot_link"] == [[150, 100, 160, 250]]
    assert persistence.crashed_session() is not None  # as if the app had died here
    assert str(window.model.path) in persistence.recent()


def test_failed_job_keeps_result_and_constraints(qtbot, window):
    _draw(qtbot, window, CANNOT, 150, 100, 160, 250)
    cons = window.model.constraints
    if window.model.method != "csp":
        window.method_box.setCurrentText("csp")
        with qtbot.waitSignal(window.model.resultChanged, timeout=20000):
            pass
    qtbot.waitUntil(lambda: window.runner.running is None and window.runner.pending is None, timeout=30000)
    result = window.model.result
    assert result is not None and window.model.method == "csp"
    with qtbot.waitSignal(window.runner.failed, timeout=20000) as sig:
        window.model.set_param("beta", "1e15")  # beyond lambda_max * vol: csp refuses
    assert "below lambda_max" in sig.args[1] and "below lambda_max" in window.status.text()
    assert window.model.result is result and window.model.constraints == cons


def test_settings_restore_method_and_parameters(qtbot, window):
    from segapp.gui.main_window import MainWindow

    window.method_box.setCurrentText("e2cp")
    window.model.set_param("alpha", 0.6)
    qtbot.waitUntil(lambda: window.runner.running is None and window.runner.pending is None, timeout=30000)
    window.close()
    again = MainWindow()
    qtbot.addWidget(again)
    assert again.model.method == "e2cp" and again.model.params["alpha"] == 0.6
    assert again.method_box.currentText() == "e2cp"
    again.runner.shutdown()


def test_undo_commands_hold_only_what_changed(qtbot, window):
    from segapp.gui.session import AddItem, RemoveItem

    _draw(qtbot, window, MUST, 40, 60, 40, 300)
    cmd = window.model.undo.command(window.model.undo.count() - 1)
    assert isinstance(cmd, AddItem) and cmd.item[:4] == (40, 60, 40, 300)
    window.model.remove("must_link", 0)
    cmd = window.model.undo.command(window.model.undo.count() - 1)
    assert isinstance(cmd, RemoveItem) and cmd.index == 0


def test_space_drag_pans_instead_of_drawing(qtbot, window):
    from PySide6.QtCore import Qt

    before = window.canvas.view.viewRange()
    qtbot.keyPress(window, Qt.Key_Space)
    drag(window, 100, 100, 100, 200)
    qtbot.keyRelease(window, Qt.Key_Space)
    assert not window.model.constraints
    assert window.canvas.view.viewRange() != before


def test_crashed_session_is_restored(qtbot, window, tmp_path):
    import json

    from segapp.gui import persistence
    from segapp.gui.main_window import MainWindow

    _draw(qtbot, window, CANNOT, 150, 100, 160, 250)
    qtbot.waitUntil(lambda: bool((persistence.crashed_session() or {}).get("constraints", {}).get("cannot_link")),
                    timeout=5000)
    data = persistence.crashed_session()  # the app "dies" here: no clean close
    fresh = MainWindow()
    qtbot.addWidget(fresh)
    with qtbot.waitSignal(fresh.model.resultChanged, timeout=20000):
        assert persistence.restore(fresh.model, data)
    assert fresh.model.constraints == window.model.constraints
    assert fresh.model.path == window.model.path
    fresh.close()
    assert json.loads(persistence.session_file().read_text())["clean"] is True
    assert persistence.crashed_session() is None
