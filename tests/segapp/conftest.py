import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
_HOME = __import__("tempfile").mkdtemp(prefix="segapp-test-home-")
__import__("atexit").register(__import__("shutil").rmtree, _HOME, ignore_errors=True)
os.environ["XDG_CONFIG_HOME"] = os.path.join(_HOME, "config")  # QSettings and autosave stay
os.environ["XDG_DATA_HOME"] = os.path.join(_HOME, "data")      # out of the user's home

import pytest  # noqa: E402
import shiboken6  # noqa: E402

from tests.probe import click, drag  # noqa: E402,F401

RESULT_TIMEOUT_MS = 60000


@pytest.fixture(autouse=True)
def _every_mouse_move_counts():
    """Synthetic moves arrive back to back; pyqtgraph drops moves faster than 100/s
    (``mouseRateLimit``), which could swallow a whole injected stroke."""
    import pyqtgraph as pg

    old = pg.getConfigOption("mouseRateLimit")
    pg.setConfigOption("mouseRateLimit", 0)
    yield
    pg.setConfigOption("mouseRateLimit", old)


@pytest.fixture(scope="session")
def shared_worker():
    """One worker process for the window tests that do not kill theirs (spawning costs seconds)."""
    from segapp.worker.client import WorkerClient

    client = WorkerClient()
    client.start()
    yield client
    client.stop()


def make_window(qtbot, image=None, runner=None):
    """A fresh-install window showing ``image`` (default: the demo) with its first result."""
    from segapp.gui import persistence
    from segapp.gui.main_window import MainWindow
    from segapp.resources import DEMO_IMAGE

    persistence.settings().clear()  # every test starts from a fresh install ...
    persistence.settings().setValue("preview", False)  # ... but without a preview worker per window
    # (the tests of previews turn them on: View → Preview while drawing)
    w = MainWindow(runner)
    qtbot.addWidget(w)
    w.resize(1200, 720)
    w.show()
    with qtbot.waitSignal(w.model.resultChanged, timeout=RESULT_TIMEOUT_MS):
        w.controller.open_image(image or DEMO_IMAGE)
    settle(qtbot, w)
    return w


def settle(qtbot, w, timeout=RESULT_TIMEOUT_MS):
    """Wait until nothing is read, written, computed or drawn."""
    qtbot.waitUntil(lambda: w.controller.idle and not w.drawing, timeout=timeout)


@pytest.fixture
def window(qtbot, shared_worker):
    from segapp.gui.runner import SegmentRunner

    w = make_window(qtbot, runner=SegmentRunner(shared_worker))
    yield w
    settle(qtbot, w)  # its views may still draw in later turns: pytest-qt's deferred delete may come first
    if shiboken6.isValid(w):
        w.close()


def draw(qtbot, w, tool, r1, c1, r2, c2):
    """Drag with ``tool`` and wait for the result that includes the stroke."""
    w.canvas.view.tool = tool
    with qtbot.waitSignal(w.model.resultChanged, timeout=RESULT_TIMEOUT_MS):
        drag(w.canvas, r1, c1, r2, c2)
    settle(qtbot, w)

