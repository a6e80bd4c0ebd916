import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
_HOME = __import__("tempfile").mkdtemp(prefix="segapp-test-home-")
os.environ["XDG_CONFIG_HOME"] = os.path.join(_HOME, "config")  # QSettings and autosave stay
os.environ["XDG_DATA_HOME"] = os.path.join(_HOME, "data")      # out of the user's home

import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _every_mouse_move_counts():
    """Synthetic moves arrive back to back; pyqtgraph drops moves faster than 100/s
    (``mouseRateLimit``), which could swallow a whole injected stroke."""
    import pyqtgraph as pg

    old = pg.getConfigOption("mouseRateLimit")
    pg.setConfigOption("mouseRateLimit", 0)
    yield
    pg.setConfigOption("mouseRateLimit", old)


@pytest.fixture
def window(qtbot):
    from segapp.gui import persistence
    from segapp.gui.main_window import MainWindow
    from segapp.resources import DEMO_IMAGE

    persistence.settings().clear()  # every test starts from a fresh install
    w = MainWindow()
    qtbot.addWidget(w)
    w.resize(1200, 720)
    w.show()
    with qtbot.waitSignal(w.model.resultChanged, timeout=20000):
        assert w.model.open_image(DEMO_IMAGE)
    yield w
    qtbot.waitUntil(lambda: w.runner.running is None and w.runner.pending is None, timeout=60000)
    w.close()
