"""Bad files opened and loaded in the window with strokes present (issue 12): every case says
what is wrong in one line in the status bar, and the image, constraints, undo history and
result stay as they were. One window serves every case (its strokes are the "work")."""

import re

import pytest
from pytestqt.qtbot import QtBot

from tests.segapp.conftest import RESULT_TIMEOUT_MS, make_window, settle

from . import test_constraint_files as cf
from . import test_images as im

SHAPE_TEXTS = {  # valid files that do not fit the shown image
    "link-below-the-image": ('{"must_link": [[10, 10, 5000, 20]]}', r"is outside the \d+x\d+ image"),
    "block-right-of-the-image": ('{"blocks": [{"label": 1, "box": [0, 0, 5, 9000]}]}', r"is outside the \d+x\d+ image"),
}


@pytest.fixture(scope="module")
def busy_window(request, qapp):
    from segapp.gui.runner import SegmentRunner
    from segapp.worker.client import WorkerClient

    bot = QtBot(request)
    client = WorkerClient()
    client.start()
    w = make_window(bot, runner=SegmentRunner(client))
    w.model.add_link("must_link", 40, 60, 40, 300)
    w.model.add_link("cannot_link", 150, 100, 160, 250)
    settle(bot, w)
    bot.waitUntil(lambda: w.model.result is not None and w.model.result.honoured["must_link"].shape == (1,),
                  timeout=RESULT_TIMEOUT_MS)
    yield w
    w.close()
    client.stop()


def _expect_kept(qtbot, w, act, match):
    m = w.model
    before = (m.path, m.image_token, m.constraints, m.undo.count(), m.undo.index(), m.result)
    with qtbot.waitSignal(w.controller.statusChanged, timeout=RESULT_TIMEOUT_MS,
                          check_params_cb=lambda text, tip, is_error: is_error) as sig:
        act()
    settle(qtbot, w)
    text = sig.args[0]
    assert re.search(match, text), text
    assert "\n" not in text and "Traceback" not in text and "File \"" not in text
    assert (m.path, m.image_token, m.constraints, m.undo.count(), m.undo.index(), m.result) == before
    assert not w.canvas.layer.pending


@pytest.mark.parametrize("case", list(im.FILES))
def test_open_a_bad_image_with_strokes_present(qtbot, busy_window, case, tmp_path):
    make, match = im.FILES[case]
    path = make(tmp_path)
    _expect_kept(qtbot, busy_window, lambda: busy_window.controller.open_image(path), match)


TEXTS = {**cf.TEXTS, **SHAPE_TEXTS}


@pytest.mark.parametrize("case", list(TEXTS))
def test_load_a_bad_constraint_file_with_strokes_present(qtbot, busy_window, case, tmp_path):
    text, match = TEXTS[case]
    path = tmp_path / "c.json"
    path.write_text(text)
    _expect_kept(qtbot, busy_window, lambda: busy_window.controller.load_constraints(path), match)


@pytest.mark.parametrize("case", list(cf.FILES))
def test_load_a_bad_constraint_file_kind_with_strokes_present(qtbot, busy_window, case, tmp_path):
    make, match = cf.FILES[case]
    path = make(tmp_path)
    _expect_kept(qtbot, busy_window, lambda: busy_window.controller.load_constraints(path), match)
