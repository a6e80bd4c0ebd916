"""A 4000x3000 photo in the window: shown at once, prepared with a progress message, a stroke
drawn meanwhile kept and used, the result painted at working resolution."""

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from segapp.gui.canvas import MUST
from tests.conftest import BSDS
from tests.segapp.conftest import RESULT_TIMEOUT_MS, drag, settle


@pytest.fixture(scope="module")
def photo(tmp_path_factory) -> Path:
    """A 12-megapixel JPEG: a Berkeley image upscaled (a synthetic scene without the dataset)."""
    src = BSDS / "images" / "train" / "100075.jpg"
    if src.exists():
        im = Image.open(src).convert("RGB").resize((4000, 3000), Image.BILINEAR)
    else:
        y, x = np.mgrid[0:300, 0:400]
        a = np.stack([x * 0.6, y * 0.8, ((x - 200) ** 2 + (y - 150) ** 2 < 80 ** 2) * 200.0], -1)
        im = Image.fromarray(a.astype(np.uint8)).resize((4000, 3000), Image.BILINEAR)
    path = tmp_path_factory.mktemp("large") / "photo.jpg"
    im.save(path, quality=90)
    return path


def test_a_large_photo_is_shown_at_once_and_a_stroke_drawn_meanwhile_is_used(qtbot, window, photo):
    events = []
    window.model.imageChanged.connect(lambda: events.append("image"))
    window.model.resultChanged.connect(lambda res: events.append(("result", res.rid)))
    with qtbot.waitSignal(window.model.imageChanged, timeout=RESULT_TIMEOUT_MS):
        window.controller.open_image(photo)
    assert window.canvas.image_item.image.shape == (3000, 4000, 3)  # on screen, not yet segmented
    assert window.model.result is None and events == ["image"]
    qtbot.waitUntil(lambda: "working copy" in window.progress.text(), timeout=RESULT_TIMEOUT_MS)
    assert "800×600 working copy of the 4000×3000 image" in window.progress.text()
    assert window.busy.isVisible()
    window.canvas.view.tool = MUST
    drag(window.canvas, 500, 600, 2500, 3400)  # while the worker prepares the first result
    assert window.model.constraints.must_link[0][:4][0] == pytest.approx(500, abs=10)
    with qtbot.waitSignal(window.model.resultChanged, timeout=RESULT_TIMEOUT_MS) as sig:
        pass
    res = sig.args[0]
    assert res.honoured["must_link"].shape == (1,)  # the first result shown already has the stroke
    assert [e for e in events if e != "image"] == [("result", res.rid)]
    settle(qtbot, window)
    nm = res.node_map
    shown = window.canvas.overlay_item.image
    assert nm.shape == (3000, 4000) and nm.factor == 5
    assert shown.shape[:2] == nm.node_map.shape == (600, 800)  # painted at 0.48 MP, not 12 MP
    rect = window.canvas.overlay_item.mapRectToParent(window.canvas.overlay_item.boundingRect())
    assert (rect.width(), rect.height()) == (4000, 3000)  # stretched over the whole image
    thumb = window.side.eigen.items[0].image
    assert max(thumb.shape[:2]) <= 240
    assert not window.progress.text() and not window.busy.isVisible()


def test_strokes_on_a_large_photo_keep_every_turn_of_the_gui_thread_short(qtbot, window, photo):
    """Issue 10: nothing the GUI thread does per mouse event or result grows with the image
    (12 MP here): with mouse events one per turn, as a person's arrive, each turn's CPU time,
    from the press to the last view of the result drawn, stays under ``STALL_MS``, a stutter
    a person notices; that catches work that grows with the image on the GUI thread. The
    issue's 30 ms is a speed target, measured by ``bench/gui_latency.py`` (its GUI busy
    column at 4000x3000: 8-17 ms on 2026-12-02; 7-8 ms before the pixel refinement, 12-25 ms
    in this test on 2026-11-26, 30.3 ms once on 2026-12-02 after the GUI tests before it)."""
    from PySide6.QtCore import QTimer

    from segapp.gui.canvas import CANNOT
    from tests.probe import STALL_MS, Heartbeat, stroke_events

    window.preview_action.setChecked(True)  # previews are painted too, as a person has them
    with qtbot.waitSignal(window.model.resultChanged, timeout=RESULT_TIMEOUT_MS):
        window.controller.open_image(photo)
    settle(qtbot, window)
    strokes = [(MUST, 500, 600, 2500, 3400), (CANNOT, 200, 300, 2800, 3800), (MUST, 1500, 200, 1600, 3900)]
    events = []
    pace = QTimer(interval=10)

    def next_event():
        if events:
            events.pop(0)()
        elif not strokes:
            pace.stop()
        elif window.controller.idle and not window.drawing:  # the last stroke's result is drawn
            tool, r1, c1, r2, c2 = strokes.pop(0)
            window.canvas.view.tool = tool
            events.extend(stroke_events(window.canvas, r1, c1, r2, c2))

    beat = Heartbeat()
    pace.timeout.connect(next_event)
    beat.start()
    pace.start()
    qtbot.waitUntil(lambda: not strokes and not events, timeout=RESULT_TIMEOUT_MS)
    settle(qtbot, window)
    beat.stop()
    pace.stop()
    assert window.model.result.honoured["must_link"].shape == (2,)
    assert beat.longest_busy_ms() <= STALL_MS, sorted(beat.gaps_ms())[-5:]
