"""Never lose work (issue 9 point 3): constraints per image, Quit with a prompt, the journal,
the restore offer, recent files, focus after "segments", Erase never pans, exports by umask."""

import json
import os
import stat
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QFileDialog

from segapp import core
from segapp.gui import journal, persistence, recovery
from segapp.gui.canvas import CANNOT, ERASE, MUST
from segapp.resources import DEMO_IMAGE
from tests.segapp.conftest import RESULT_TIMEOUT_MS, drag, draw, make_window, settle


@pytest.fixture(autouse=True)
def _no_sessions_left_from_other_tests():
    root = persistence.sessions_dir()
    for folder in root.glob("*") if root.is_dir() else []:
        journal.remove_session(folder)


def _image(path, h=60, w=90, seed=0):
    a = np.zeros((h, w, 3), np.uint8)
    a[:, w // 2:] = 200
    a += np.random.RandomState(seed).randint(0, 20, a.shape).astype(np.uint8)
    Image.fromarray(a).save(path)
    return path


def _open(qtbot, window, path):
    with qtbot.waitSignal(window.model.resultChanged, timeout=RESULT_TIMEOUT_MS):
        window.controller.open_image(path)
    settle(qtbot, window)


def _restored(s):
    """The constraints a relaunch restores from a journal read back, creation order included."""
    return core.Constraints.from_dict({**s["items"], "order": s["order"]})


def _session(window):
    """The journal of the shown image, read back as a relaunch would."""
    window.autosave.flush()
    return journal.read_session(window.autosave.journal().folder)


def test_switching_images_keeps_each_images_constraints_and_undo(qtbot, window, tmp_path):
    demo = window.model.path
    draw(qtbot, window, MUST, 40, 60, 40, 300)
    draw(qtbot, window, CANNOT, 150, 100, 160, 250)
    first = window.model.constraints
    other = _image(tmp_path / "other.png")
    _open(qtbot, window, other)
    assert not window.model.constraints  # a new image starts empty
    draw(qtbot, window, CANNOT, 10, 10, 50, 80)
    _open(qtbot, window, demo)  # back: its strokes and its undo history are there
    assert window.model.constraints == first
    window.model.undo.undo()
    assert window.model.constraints.must_link == first.must_link and not window.model.constraints.cannot_link
    _open(qtbot, window, other)
    assert len(window.model.constraints.cannot_link) == 1
    assert set(window.model.unsaved()) == {other, demo}


def test_berkeley_thumbnails_keep_each_images_constraints(qtbot, window, tmp_path):
    from tests.core.test_bsds_metrics import make_bsds

    root = make_bsds(tmp_path / "bsds", n=2, h=40, w=60)
    with qtbot.waitSignal(window.berkeley.thumbnailsDone, timeout=20000):
        assert window.open_berkeley(root)

    def pick(row):
        with qtbot.waitSignal(window.model.resultChanged, timeout=RESULT_TIMEOUT_MS):
            window.berkeley.list.itemClicked.emit(window.berkeley.list.item(row))
        settle(qtbot, window)

    pick(0)
    window.model.add_link("cannot_link", 5, 5, 30, 50)
    settle(qtbot, window)
    pick(1)
    assert not window.model.constraints
    pick(0)
    assert window.model.constraints.cannot_link == ((5, 5, 30, 50, 1.0),)


def test_quit_asks_about_unsaved_constraints(qtbot, window, tmp_path, monkeypatch):
    asked = []
    monkeypatch.setattr(recovery, "ask_unsaved", lambda parent, paths: asked.append(paths) or "cancel")
    draw(qtbot, window, CANNOT, 150, 100, 160, 250)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    qtbot.keyClick(window.canvas, Qt.Key_Q, Qt.ControlModifier)  # File → Quit
    assert asked == [[window.model.path]] and window.isVisible()  # cancelled: still open
    out = tmp_path / "kept.json"
    monkeypatch.setattr(recovery, "ask_unsaved", lambda parent, paths: "save")
    monkeypatch.setattr(recovery, "save_path", lambda parent, image: str(out))
    window.quit()
    assert not window.isVisible()
    assert core.Constraints.from_json(out) == window.model.constraints
    assert persistence.unfinished() == []


def test_quit_saving_onto_a_full_disk_stays_open_and_says_so(qtbot, window, tmp_path, monkeypatch):
    import errno

    draw(qtbot, window, CANNOT, 150, 100, 160, 250)
    errors = []
    monkeypatch.setattr(recovery, "ask_unsaved", lambda parent, paths: "save")
    monkeypatch.setattr(recovery, "save_path", lambda parent, image: str(tmp_path / "c.json"))
    monkeypatch.setattr(recovery, "show_error", lambda parent, msg: errors.append(msg))

    def full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("segapp.core._io.os.fsync", full)
    window.quit()
    assert window.isVisible() and "not saved" in errors[0] and "no space" in errors[0].lower()
    assert len(window.model.constraints.cannot_link) == 1 and not (tmp_path / "c.json").exists()


def test_discard_on_quit_closes_and_leaves_nothing_to_restore(qtbot, window, monkeypatch):
    draw(qtbot, window, CANNOT, 150, 100, 160, 250)
    monkeypatch.setattr(recovery, "ask_unsaved", lambda parent, paths: "discard")
    window.quit()
    assert not window.isVisible() and persistence.unfinished() == []


def test_saving_constraints_marks_them_saved(qtbot, window, tmp_path, monkeypatch):
    draw(qtbot, window, CANNOT, 150, 100, 160, 250)
    assert window.model.unsaved() == [window.model.path]
    with qtbot.waitSignal(window.controller.saved, timeout=20000):
        window.controller.save_constraints(tmp_path / "c.json")
    assert window.model.unsaved() == []
    assert not _session(window)["dirty"]  # saved: a crash now has nothing to offer
    assert persistence.unfinished() == []
    monkeypatch.setattr(recovery, "ask_unsaved", lambda parent, paths: pytest.fail("asked with nothing unsaved"))
    window.quit()
    assert not window.isVisible()


@pytest.mark.parametrize("where", ["missing-folder", "full-disk"])
def test_save_constraints_failure_is_said_in_the_window(qtbot, window, tmp_path, monkeypatch, where):
    import errno

    draw(qtbot, window, CANNOT, 150, 100, 160, 250)
    path = tmp_path / "missing" / "c.json" if where == "missing-folder" else tmp_path / "c.json"
    if where == "full-disk":
        def full(*a, **k):
            raise OSError(errno.ENOSPC, "No space left on device")

        monkeypatch.setattr("segapp.core._io.os.fsync", full)
    window.controller.save_constraints(path)
    qtbot.waitUntil(lambda: "⚠" in window.status.text(), timeout=20000)
    assert ("missing" in window.status.text()) if where == "missing-folder" else "space" in window.status.text()
    assert window.model.unsaved() == [window.model.path] and not path.exists()


def test_every_edit_is_in_the_journal_at_once(qtbot, window):
    m = window.model
    for k in range(30):  # a burst: no event loop turn in between
        m.add_link("must_link" if k % 2 else "cannot_link", k, 3, k + 40, 200)
    s = journal.read_session(window.autosave.journal().folder)  # no flush: already on disk
    assert len(s["items"]["must_link"]) + len(s["items"]["cannot_link"]) == 30
    mask = np.zeros((20, 30), bool)
    mask[2:9, 4:20] = True
    m.add_block(core.Block.from_mask(4, mask, top=100, left=50))  # a brush region
    m.add_block(core.Block(2, 10, 10, 30, 40))
    m.remove("must_link", 3)
    m.remove("cannot_link", 0)
    m.undo.undo()  # back in the middle, with its old creation number
    m.undo.undo()
    m.undo.undo()
    s = _session(window)
    assert _restored(s) == m.constraints and s["items"]["blocks"][0]["runs"][0] == [102, 54, 70]
    m.clear()
    m.undo.undo()
    m.set_segments(3)
    s = _session(window)
    assert _restored(s) == m.constraints
    assert s["settings"]["n_segments"] == 3 and s["dirty"]
    settle(qtbot, window)


def test_the_journal_is_compacted_into_a_new_base(qtbot, window, monkeypatch):
    monkeypatch.setattr(persistence, "COMPACT_EVERY", 5)
    m = window.model
    for k in range(12):
        m.add_link("cannot_link", k, 3, k + 40, 200)
    j = window.autosave.journal()
    j.flush()
    files = journal.generations(j.folder)
    assert len(files) == 1 and files[0][0] >= 3  # older generations removed
    assert len(files[0][1].read_text().splitlines()) <= 5
    assert _restored(journal.read_session(j.folder)) == m.constraints
    settle(qtbot, window)


def test_a_half_written_last_line_is_ignored(qtbot, window):
    draw(qtbot, window, CANNOT, 150, 100, 160, 250)
    j = window.autosave.journal()
    j.flush()
    (_, path), = journal.generations(j.folder)
    with open(path, "ab") as f:
        f.write(b'{"op": "ins", "k": "must_li')  # killed in the middle of a write
    s = journal.read_session(j.folder)
    assert s["items"]["cannot_link"] == [[150, 100, 160, 250, 1.0]] and s["damaged"]


def test_ten_thousand_links_reach_the_journal_off_the_gui_thread(qtbot, window):
    rng = np.random.RandomState(0)
    h, w = window.model.shape
    links = np.stack([rng.randint(h, size=10000), rng.randint(w, size=10000),
                      rng.randint(h, size=10000), rng.randint(w, size=10000)], 1).tolist()
    window.model.add_link("must_link", 1, 1, 20, 20)  # the journal exists: the load is a reset line
    window.model.set_constraints(core.Constraints(must_link=links))  # as a loaded file arrives
    window.model.add_link("cannot_link", 3, 3, 40, 40)  # queued behind the big line, in order
    s = _session(window)
    assert len(s["items"]["must_link"]) == 10000 and s["items"]["cannot_link"] == [[3, 3, 40, 40, 1.0]]
    window.model.clear()
    settle(qtbot, window)


@pytest.mark.parametrize("fault", ["read-only-folder", "full-disk"])
def test_a_failed_autosave_is_said_and_never_restored_as_current(qtbot, window, monkeypatch, fault):
    import errno

    draw(qtbot, window, CANNOT, 150, 100, 160, 250)
    window.autosave.flush()
    assert persistence.unfinished()
    code = errno.EROFS if fault == "read-only-folder" else errno.ENOSPC
    real_write, real_open = os.write, os.open

    def fail(*a, **k):
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(journal.os, "write", fail)
    if fault == "read-only-folder":
        monkeypatch.setattr(journal.os, "open", fail)
    with qtbot.waitSignal(window.autosave.failed, timeout=10000):
        window.model.add_link("must_link", 40, 60, 40, 300)
    qtbot.waitUntil(lambda: "autosave failed" in window.status.text(), timeout=10000)
    assert os.strerror(code).lower() in window.status.text().lower()
    badge = window.autosave_badge
    assert badge.isVisible() and os.strerror(code).lower() in badge.toolTip().lower()
    window.controller.error("another message")  # the status bar moves on; the sign stays
    window.model.add_link("must_link", 42, 60, 42, 300)
    window.autosave.flush()
    assert badge.isVisible() and window.autosave.down
    assert persistence.unfinished() == []  # the older, incomplete journal is not offered as current
    monkeypatch.setattr(journal.os, "write", real_write)
    monkeypatch.setattr(journal.os, "open", real_open)
    with qtbot.waitSignal(window.autosave.recovered, timeout=10000):
        window.model.add_link("must_link", 41, 60, 41, 300)  # space again: a fresh base
    (s,) = persistence.unfinished()
    assert _restored(s) == window.model.constraints
    assert not badge.isVisible()
    settle(qtbot, window)


def test_a_data_folder_that_cannot_be_made_still_starts_the_window(qtbot, shared_worker, monkeypatch, tmp_path):
    """A file where the data folder should be: the window starts, the autosave sign is up
    before the first stroke, and its button offers Save constraints."""
    from segapp.gui.runner import SegmentRunner

    from PySide6.QtCore import QStandardPaths

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    data = Path(QStandardPaths.writableLocation(QStandardPaths.AppDataLocation))
    assert tmp_path in data.parents
    data.parent.mkdir(parents=True, exist_ok=True)
    data.write_text("not a folder")
    w = make_window(qtbot, runner=SegmentRunner(shared_worker))
    assert w.autosave.down and w.autosave_badge.isVisible()
    assert "crash" in w.autosave_badge.toolTip()
    draw(qtbot, w, CANNOT, 150, 100, 160, 250)
    out = tmp_path / "kept.json"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(out), ""))
    w.autosave_badge.click()
    qtbot.waitUntil(out.exists, timeout=10000)
    assert len(json.loads(out.read_text())["cannot_link"]) == 1
    settle(qtbot, w)
    w.close()


def _crash(window):
    """What a SIGKILL leaves: the journal as written, the window gone without closing it."""
    window.autosave.flush()
    sessions = persistence.unfinished()
    for j in window.autosave.journals.values():
        j.close()
    window.autosave.journals.clear()  # the test's own close must not remove them
    return sessions


def _fresh(qtbot, shared_worker):
    from segapp.gui.main_window import MainWindow
    from segapp.gui.runner import SegmentRunner

    w = MainWindow(SegmentRunner(shared_worker))
    qtbot.addWidget(w)
    return w


def test_restore_is_offered_when_relaunched_with_an_image(qtbot, window, shared_worker, monkeypatch, tmp_path):
    draw(qtbot, window, CANNOT, 150, 100, 160, 250)
    drawn, demo = window.model.constraints, window.model.path
    assert len(_crash(window)) == 1
    offered = []
    monkeypatch.setattr(recovery, "ask_restore", lambda parent, s: offered.append(s) or True)
    other = _image(tmp_path / "other.png")
    fresh = _fresh(qtbot, shared_worker)
    with qtbot.waitSignal(fresh.model.imageChanged, timeout=RESULT_TIMEOUT_MS,
                          check_params_cb=lambda: fresh.model.path == other):
        recovery.startup(fresh, str(other))  # `segapp other.png`
    settle(qtbot, fresh)
    assert len(offered) == 1 and fresh.model.path == other  # the image asked for is shown
    assert fresh.model.items_of(demo) is not None
    assert core.Constraints(**fresh.model.items_of(demo)) == drawn  # and the restored one is kept
    fresh.close()


def test_no_offer_after_a_clean_exit_or_with_zero_strokes(qtbot, window, shared_worker, monkeypatch):
    offered = []
    monkeypatch.setattr(recovery, "ask_restore", lambda parent, s: offered.append(s) or True)
    window.model.add_link("must_link", 40, 60, 40, 300)
    window.model.undo.undo()  # nothing left to restore
    settle(qtbot, window)
    _crash(window)
    assert persistence.unfinished() == []
    fresh = _fresh(qtbot, shared_worker)
    with qtbot.waitSignal(fresh.model.resultChanged, timeout=RESULT_TIMEOUT_MS):
        recovery.startup(fresh, None, default=str(window.model.path))
    settle(qtbot, fresh)
    fresh.model.add_link("must_link", 40, 60, 40, 300)
    settle(qtbot, fresh)
    fresh.stop_by_signal("SIGTERM")  # stopped by a signal with an unsaved stroke
    (s,) = persistence.unfinished()
    assert s["end"] == "stopped"  # kept and offered as stopped, never lost
    persistence.discard(s)
    again = _fresh(qtbot, shared_worker)
    with qtbot.waitSignal(again.model.resultChanged, timeout=RESULT_TIMEOUT_MS):
        recovery.startup(again, None, default=str(window.model.path))
    settle(qtbot, again)
    again.stop_by_signal("SIGTERM")  # nothing drawn: nothing kept
    assert persistence.unfinished() == [] and offered == []


def test_a_moved_image_is_asked_for_never_overwritten(qtbot, window, shared_worker, monkeypatch, tmp_path):
    img = _image(tmp_path / "a.png")
    _open(qtbot, window, img)
    window.model.add_link("cannot_link", 5, 5, 40, 60)
    settle(qtbot, window)
    (s,) = _crash(window)
    moved = tmp_path / "moved.png"
    img.rename(moved)
    monkeypatch.setattr(recovery, "ask_moved", lambda parent, s: "later")
    monkeypatch.setattr(recovery, "ask_restore", lambda parent, s: pytest.fail("offered without its image"))
    fresh = _fresh(qtbot, shared_worker)
    with qtbot.waitSignal(fresh.model.resultChanged, timeout=RESULT_TIMEOUT_MS):
        recovery.startup(fresh, None, default=str(DEMO_IMAGE))
    settle(qtbot, fresh)
    fresh.model.add_link("must_link", 40, 60, 40, 300)  # other work meanwhile
    fresh.close()
    (kept,) = [u for u in journal.unfinished_sessions(persistence.sessions_dir()) if u["image"] == str(img)]
    assert kept["items"] == s["items"]  # untouched
    monkeypatch.setattr(recovery, "ask_moved", lambda parent, s: "locate")
    monkeypatch.setattr(recovery, "locate_image", lambda parent, s: str(moved))
    monkeypatch.setattr(recovery, "ask_restore", lambda parent, s: True)
    third = _fresh(qtbot, shared_worker)
    with qtbot.waitSignal(third.model.resultChanged, timeout=RESULT_TIMEOUT_MS):
        recovery.startup(third)
    settle(qtbot, third)
    assert third.model.path == moved and third.model.constraints.cannot_link == ((5, 5, 40, 60, 1.0),)
    third.close()


def test_links_outside_a_smaller_image_are_said_and_kept(qtbot, window, shared_worker, monkeypatch, tmp_path):
    img = _image(tmp_path / "a.png", 60, 90)
    _open(qtbot, window, img)
    window.model.add_link("cannot_link", 5, 5, 30, 60)
    window.model.add_link("must_link", 50, 80, 10, 10)  # outside once the image is 40×70
    window.model.add_block(core.Block(2, 45, 5, 55, 20))
    settle(qtbot, window)
    (s,) = _crash(window)
    _image(img, 40, 70)  # replaced by a smaller picture
    fresh = _fresh(qtbot, shared_worker)
    told = []
    with qtbot.waitSignal(fresh.model.errorOccurred, timeout=RESULT_TIMEOUT_MS,
                          check_params_cb=lambda msg: "outside" in msg) as sig:
        persistence.restore(fresh.controller, s, tell=told.append)
    settle(qtbot, fresh)
    assert told == [sig.args[0]]  # a dialog, not only the status line the next result replaces
    assert fresh.model.constraints.cannot_link == ((5, 5, 30, 60, 1.0),)
    assert "2 of the session's links/blocks lie outside the 70×40 image" in sig.args[0]
    kept = core.Constraints.from_json(sig.args[0].rsplit("kept in ", 1)[1])
    assert kept.must_link == ((50, 80, 10, 10, 1.0),) and kept.blocks == (core.Block(2, 45, 5, 55, 20),)
    fresh.close()


def test_bad_values_in_a_saved_session_fall_back_with_a_message(qtbot, window, shared_worker):
    draw(qtbot, window, CANNOT, 150, 100, 160, 250)
    (s,) = _crash(window)
    s["settings"] = {"method": "csp", "n_segments": "two", "method_params": {"csp": {"beta": "abc"}},
                     "rep_params": {"max_nodes": -5, "nope": 1}}
    fresh = _fresh(qtbot, shared_worker)
    notes = []
    fresh.model.errorOccurred.connect(notes.append)
    with qtbot.waitSignal(fresh.model.resultChanged, timeout=RESULT_TIMEOUT_MS):
        persistence.restore(fresh.controller, s)
    settle(qtbot, fresh)
    text = " | ".join(notes)
    assert "n_segments 'two'" in text and "beta = 'abc' dropped" in text and "max_nodes = -5" in text
    assert "'nope' is unknown" in text
    assert fresh.model.n_segments == 2 and fresh.model.params == {}
    assert fresh.model.constraints.cannot_link == ((150, 100, 160, 250, 1.0),)
    fresh.close()


def test_bad_persisted_settings_fall_back_and_are_never_stored(qtbot, window, shared_worker, monkeypatch):
    window.close()
    st = persistence.settings()
    st.setValue("method", "nope")
    st.setValue("method_params", json.dumps({"csp": {"beta": "abc", "gamma": 1e9}, "e2cp": {"alpha": 0.3}}))
    st.setValue("rep_params", "{not json")
    told = []
    monkeypatch.setattr(recovery, "notify", lambda parent, text: told.append(text))
    fresh = _fresh(qtbot, shared_worker)
    assert "⚠" in fresh.status.text() and fresh.model.method == "csp"
    assert "unknown method 'nope'" in told[0] and "beta = 'abc' dropped" in told[0]
    assert "rep_params is not readable JSON" in told[0]
    assert "beta" not in fresh.model.method_params.get("csp", {})
    assert fresh.model.method_params["e2cp"] == {"alpha": 0.3}
    fresh.close()
    stored = json.loads(persistence.settings().value("method_params"))
    assert "abc" not in json.dumps(stored) and persistence.settings().value("method") == "csp"
    assert json.loads(persistence.settings().value("rep_params")) == {}


def test_open_recent_stores_whole_paths(qtbot, window, tmp_path):
    persistence.settings().remove("recent")
    a, b = _image(tmp_path / "first.png"), _image(tmp_path / "second.png", seed=1)
    persistence.add_recent(a)
    assert persistence.recent() == [str(a)]  # one entry: a path, not its letters
    persistence.add_recent(b)
    assert persistence.recent() == [str(b), str(a)]
    window._fill_recent()
    entries = [(act.text(), act.toolTip()) for act in window.recent_menu.actions()]
    assert entries == [("second.png", str(b)), ("first.png", str(a))]


def test_segments_box_gives_the_keyboard_back_to_the_canvas(qtbot, window):
    draw(qtbot, window, CANNOT, 150, 100, 160, 250)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    box = window.side.k_box
    box.setFocus()
    qtbot.waitUntil(box.hasFocus)
    box.lineEdit().selectAll()
    with qtbot.waitSignal(window.model.resultChanged, timeout=RESULT_TIMEOUT_MS):
        qtbot.keyClicks(box, "3")
        qtbot.keyClick(box, Qt.Key_Return)
    assert window.model.n_segments == 3
    qtbot.waitUntil(lambda: not box.hasFocus())
    qtbot.keyClick(QApplication.focusWidget() or window, Qt.Key_M)
    assert window.canvas.view.tool == MUST
    box.setFocus()  # still in the box: letters and Ctrl+Z reach the window anyway
    qtbot.waitUntil(box.hasFocus)
    qtbot.keyClick(box, Qt.Key_C)
    assert window.canvas.view.tool == CANNOT
    box.setFocus()
    qtbot.waitUntil(box.hasFocus)
    qtbot.keyClick(box, Qt.Key_Z, Qt.ControlModifier)
    assert not window.model.constraints and window.model.n_segments == 3
    settle(qtbot, window)


def test_every_number_box_of_the_panel_lets_shortcuts_through(qtbot, window):
    from PySide6.QtWidgets import QSpinBox

    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    box = next(w for w in window.side.rep_form.findChildren(QSpinBox))  # made by the parameter form
    box.setFocus()
    qtbot.waitUntil(box.hasFocus)
    qtbot.keyClick(box, Qt.Key_E)
    assert window.canvas.view.tool == ERASE
    qtbot.waitUntil(lambda: not box.hasFocus())


def test_a_bad_beta_typed_in_the_form_is_refused_and_never_stored(qtbot, window, shared_worker):
    from PySide6.QtWidgets import QLineEdit

    beta = window.side.params.findChild(QLineEdit)
    beta.setText("abc")
    beta.editingFinished.emit()
    assert "beta" in window.status.text() and "⚠" in window.status.text()
    assert "beta" not in window.model.params
    window.close()
    assert "abc" not in (persistence.settings().value("method_params") or "")
    fresh = _fresh(qtbot, shared_worker)
    assert fresh.model.params == {} and fresh.side.params.findChild(QLineEdit).text() == ""
    fresh.close()


def test_a_drag_with_the_erase_tool_does_not_pan(qtbot, window):
    draw(qtbot, window, CANNOT, 150, 100, 160, 250)
    window.canvas.view.tool = ERASE
    before = window.canvas.view.viewRange()
    drag(window.canvas, 100, 100, 120, 250)
    assert window.canvas.view.viewRange() == before
    assert len(window.model.constraints.cannot_link) == 1


def test_exports_are_readable_by_others_under_the_usual_umask(qtbot, window, tmp_path):
    umask = os.umask(0o022)
    os.umask(umask)  # the worker process was started with this umask too
    draw(qtbot, window, CANNOT, 150, 100, 160, 250)
    with qtbot.waitSignal(window.controller.exported, timeout=RESULT_TIMEOUT_MS):
        window.export_mask(str(tmp_path / "labels.png"))
    with qtbot.waitSignal(window.controller.saved, timeout=RESULT_TIMEOUT_MS):
        window.controller.save_constraints(tmp_path / "c.json")
    for name in ("labels.png", "c.json"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o666 & ~umask, name  # 0644 under 022


def test_a_restored_session_keeps_newest_stroke_wins_order(qtbot, window, shared_worker):
    draw(qtbot, window, CANNOT, 150, 100, 160, 250)
    draw(qtbot, window, MUST, 40, 60, 200, 300)
    draw(qtbot, window, CANNOT, 20, 20, 220, 20)  # kinds interleaved: not the kind order
    drawn = window.model.constraints
    assert drawn.sequence() == [("cannot_link", 0), ("must_link", 0), ("cannot_link", 1)]
    (s,) = _crash(window)
    fresh = _fresh(qtbot, shared_worker)
    with qtbot.waitSignal(fresh.model.resultChanged, timeout=RESULT_TIMEOUT_MS,
                          check_params_cb=lambda *_: len(fresh.model.constraints) == 3):
        persistence.restore(fresh.controller, s)
    settle(qtbot, fresh)
    assert fresh.model.constraints.sequence() == drawn.sequence()
    assert fresh.model.constraints == drawn  # items and order
    fresh.close()
