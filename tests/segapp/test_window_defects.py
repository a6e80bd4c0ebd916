"""Window defects a newcomer met (issue "A newcomer's first hour"), each with a test that
failed before its fix."""

from pathlib import Path

import numpy as np
from PySide6.QtGui import QAction, QKeySequence

from segapp import core

from segapp.gui import persistence
from segapp.gui.colours import GROUND_TRUTH_OUTLINE, PALETTE
from segapp.gui.session import SessionModel

from .conftest import RESULT_TIMEOUT_MS, make_window, settle


def _action(w, text):
    return next(a for a in w.findChildren(QAction) if a.text() == text)


def test_undo_keeps_its_text_and_clear_all_has_a_shortcut(qtbot):
    w = make_window(qtbot)
    undo = _action(w, "Undo")
    w.model.add_link("cannot_link", 5, 5, 40, 60)
    settle(qtbot, w)
    assert undo.text() == "Undo" and undo.isEnabled()  # the button keeps its width
    assert undo.toolTip() == "Undo add cannot-link"  # what it would undo is in the tooltip
    undo.trigger()
    assert not w.model.items("cannot_link") and not undo.isEnabled()
    assert _action(w, "Clear all").shortcut() == QKeySequence("Ctrl+Shift+Delete")


def test_ground_truth_outline_is_a_colour_no_segment_uses():
    assert tuple(GROUND_TRUTH_OUTLINE) not in {tuple(int(v) for v in c) for c in PALETTE}


def test_the_number_of_segments_is_remembered(qtbot):
    w = make_window(qtbot)
    w.model.set_segments(4)
    persistence.save_settings(w.model)
    fresh = SessionModel()
    persistence.load_settings(fresh)
    assert fresh.n_segments == 4


def test_a_good_berkeley_folder_replaces_the_error_of_a_rejected_one(qtbot, tmp_path):
    from tests.helpers import make_bsds

    good = make_bsds(tmp_path / "bsds", n=2, h=40, w=60)
    (tmp_path / "empty").mkdir()
    w = make_window(qtbot)
    assert not w.open_berkeley(tmp_path / "empty")  # not in the layout
    assert w.status.text().startswith("⚠")
    assert w.open_berkeley(good)
    assert not w.status.text().startswith("⚠") and "Berkeley folder: 2 images" in w.status.text()


def test_save_dialogs_start_where_the_user_last_saved(qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    w = make_window(qtbot)
    persistence.settings().setValue("last_folder", "/data/set/images")
    asked = []

    def fake(parent, title, start, filt):
        asked.append(start)
        return str(tmp_path / "out" / "mask.png"), filt
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(fake))
    w._save_path("Export", "labels.png")
    w._save_path("Export", "labels.png")
    assert asked[0].startswith("/data/set/images")  # nothing saved yet: the image's folder
    assert asked[1].startswith(str(tmp_path / "out"))  # then where the user last saved


def test_a_labelled_region_keeps_its_value_after_switching_images(qtbot, window, tmp_path):
    """Issue: after 100075 -> 100080 -> back the bear brush region went from index 1 to 3 and a
    block of label 2 exported as 0. A block or brush region of label L is segment L - 1 (its
    legend index and its value in the exported mask), whatever happened in between."""
    from PIL import Image

    from segapp.core.constraints import Kind
    from tests.segapp.test_never_lose_work import _image, _open

    demo = window.model.path
    window.model.set_segments(3)
    settle(qtbot, window)
    window.model.add_block(core.Block(2, 150, 100, 170, 130))
    window.model.add_block(core.Block(3, 20, 20, 40, 60))
    settle(qtbot, window)

    def values():
        res = window.model.result
        labels = res.node_map.full_size(res.node_labels)
        return int(labels[160, 115]), int(labels[30, 40])

    assert values() == (1, 2)
    _open(qtbot, window, _image(tmp_path / "other.png"))
    _open(qtbot, window, demo)
    assert len(window.model.items(Kind.BLOCK)) == 2 and values() == (1, 2)
    out = tmp_path / "mask.png"
    with qtbot.waitSignal(window.controller.exported, timeout=20000):
        window.controller.export("labels", out)
    mask = np.asarray(Image.open(out))
    assert (int(mask[160, 115]), int(mask[30, 40])) == (1, 2)


def test_the_brush_shows_its_size_under_the_pointer(qtbot, window):
    from PySide6.QtCore import QEvent, Qt

    from segapp.gui.canvas import BRUSH, MUST
    from tests.probe import _send, pixel_to_viewport

    view = window.canvas.view
    view.tool = BRUSH
    vp = window.canvas.viewport()
    _send(vp, QEvent.MouseMove, pixel_to_viewport(window.canvas, 100, 150), Qt.NoButton)
    assert view._cursor.isVisible()
    rect = view._cursor.rect()
    assert abs(rect.width() - 2 * view.brush_radius) < 1e-6 and abs(rect.center().y() - 100.5) < 1.5
    window.canvas.resize_brush(2.0)  # "]" twice as large: the circle follows at once
    assert abs(view._cursor.rect().width() - 2 * view.brush_radius) < 1e-6
    view.tool = MUST
    _send(vp, QEvent.MouseMove, pixel_to_viewport(window.canvas, 110, 150), Qt.NoButton)
    assert not view._cursor.isVisible()


def test_a_berkeley_set_is_annotated_image_by_image(qtbot, window, tmp_path):
    """Next / previous image keys, each image's status in the browser (not started, in
    progress, done), the done marks kept in the settings."""
    from tests.core.test_bsds_metrics import make_bsds

    root = make_bsds(tmp_path / "bsds", n=3, h=40, w=60)
    with qtbot.waitSignal(window.berkeley.thumbnailsDone, timeout=20000):
        assert window.open_berkeley(root)
    b = window.berkeley

    def go(delta):
        with qtbot.waitSignal(window.model.resultChanged, timeout=RESULT_TIMEOUT_MS):
            b.step(delta)
        settle(qtbot, window)

    go(1)
    assert str(window.model.path) == str(b.items[0].image)
    assert [b.status(it) for it in b.items] == ["not started"] * 3
    window.model.add_link("cannot_link", 5, 5, 30, 50)
    settle(qtbot, window)
    assert b.status(b.items[0]) == "in progress" and b.list.item(0).text().startswith("…")
    go(1)
    assert str(window.model.path) == str(b.items[1].image)
    b.mark_done()
    assert b.status(b.items[1]) == "done" and b.list.item(1).text().startswith("✓")
    go(-1)
    assert str(window.model.path) == str(b.items[0].image)
    assert persistence.settings().value("berkeley/done", [], type=list) == [str(b.items[1].image)]


def test_export_all_masks_of_a_set_writes_those_with_constraints_and_says_what_it_skipped(qtbot, window, tmp_path):
    from PIL import Image

    from tests.core.test_bsds_metrics import make_bsds

    root = make_bsds(tmp_path / "bsds", n=2, h=40, w=60)
    with qtbot.waitSignal(window.berkeley.thumbnailsDone, timeout=20000):
        assert window.open_berkeley(root)
    b = window.berkeley
    with qtbot.waitSignal(window.model.resultChanged, timeout=RESULT_TIMEOUT_MS):
        b.step(1)
    settle(qtbot, window)
    window.model.add_block(core.Block(2, 5, 5, 15, 15))  # the first image only
    settle(qtbot, window)
    out = tmp_path / "masks"
    out.mkdir()
    with qtbot.waitSignal(b.exported, timeout=2 * RESULT_TIMEOUT_MS) as sig:
        b.export_all(out)
    first, second = (Path(it.image).stem for it in b.items)
    mask = np.asarray(Image.open(out / f"{first}_labels.png"))
    assert mask.shape == (40, 60) and mask[10, 10] == 1  # the block of label 2 is segment 1
    assert not (out / f"{second}_labels.png").exists()
    assert "wrote 1 mask" in sig.args[0] and f"skipped 1 without constraints: {second}" in sig.args[0]
    assert b.export_button.isEnabled() and b.info.text() == sig.args[0]


def test_a_plain_folder_of_images_is_a_set_too(qtbot, window, tmp_path):
    """Any folder of images opens as a set (issue 23 item 4): thumbnails, next image,
    status, export of every mask; an empty folder says it holds no images."""
    from PIL import Image

    folder = tmp_path / "photos"
    folder.mkdir()
    rng = np.random.RandomState(0)
    for name in ("b.png", "a.jpg", "a.png"):
        Image.fromarray(rng.randint(0, 255, (30, 50, 3)).astype(np.uint8)).save(folder / name)
    (folder / "notes.txt").write_text("not an image")
    with qtbot.waitSignal(window.berkeley.thumbnailsDone, timeout=20000):
        assert window.open_berkeley(folder)
    b = window.berkeley
    assert [it.id for it in b.items] == ["a.jpg", "a.png", "b.png"] and "Image set: 3 images" in window.status.text()
    assert all(not b.list.item(k).icon().isNull() for k in range(3))
    with qtbot.waitSignal(window.model.resultChanged, timeout=RESULT_TIMEOUT_MS):
        b.step(1)
    settle(qtbot, window)
    assert str(window.model.path) == str(folder / "a.jpg")
    window.model.add_link("cannot_link", 5, 5, 20, 40)
    settle(qtbot, window)
    assert b.status(b.items[0]) == "in progress" and b.list.item(0).toolTip() == "a.jpg: in progress (no ground truth)"
    out = tmp_path / "masks"
    out.mkdir()
    with qtbot.waitSignal(b.exported, timeout=2 * RESULT_TIMEOUT_MS) as sig:
        b.export_all(out)
    # a.jpg and a.png share a stem: the mask is named by the whole file name
    assert (out / "a.jpg_labels.png").exists() and "skipped 2 without constraints: a, b" in sig.args[0]
    (tmp_path / "empty").mkdir()
    assert not window.open_berkeley(tmp_path / "empty")
    assert "holds no images" in window.status.text()


def test_a_long_load_shows_its_steps_in_the_status_bar(qtbot, window, tmp_path):
    """Issue 23 item 3: opening an image shows "k/4: step" in the status bar's bar, through
    decoding, the hand-over to the worker, the graph and the method, and hides it after."""
    from PIL import Image

    path = tmp_path / "photo.png"
    Image.fromarray(np.random.RandomState(1).randint(0, 255, (50, 70, 3)).astype(np.uint8)).save(path)
    seen = []
    window.controller.load.changed.connect(lambda step: seen.append((step, window.busy.format(),
                                                                     window.busy.isVisibleTo(window))))
    with qtbot.waitSignal(window.model.resultChanged, timeout=RESULT_TIMEOUT_MS):
        window.controller.open_image(path)
    settle(qtbot, window)
    assert [s for s, _f, _v in seen] == [1, 2, 3, 4, 0]
    assert [f for _s, f, _v in seen[:4]] == ["1/4: opening the file", "2/4: to the worker",
                                             "3/4: building the graph", "4/4: segmenting"]
    metrics = window.busy.fontMetrics()  # each step's words fit the bar on one line
    assert all(metrics.horizontalAdvance(f) < window.busy.width() - 20 for _s, f, _v in seen[:4])
    assert all(v for _s, _f, v in seen[:4]) and not window.busy.isVisibleTo(window)
    seen.clear()
    window.model.add_link("cannot_link", 5, 5, 40, 60)  # a stroke is no load: no steps
    settle(qtbot, window)
    assert seen == []


def test_a_late_answer_about_the_image_before_never_moves_or_ends_a_load():
    from segapp.gui.load_progress import LoadSteps

    load, seen = LoadSteps(), []
    load.changed.connect(seen.append)
    load.start()
    load.answered(5)  # the image before's result arrives while the file is decoded
    load.worker_says(5, "e2cp on 700 nodes…")
    assert load.step == 1
    load.image_sent(10)  # requests up to 10 were for the image before
    load.worker_says(9, "e2cp on 700 nodes…")
    load.answered(9)
    assert load.step == 2
    load.worker_says(11, "preparing superpixels on the 481×321 image, then e2cp…")
    load.worker_says(11, "e2cp on 707 nodes…")
    load.worker_says(11, "preparing…")  # never back
    load.answered(11)
    assert seen == [1, 2, 3, 4, 0]
