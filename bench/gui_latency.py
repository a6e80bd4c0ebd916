"""GUI latency on the real window (offscreen): stroke -> new segmentation on screen, and the
longest time the GUI thread is blocked while jobs run.

Run: python bench/gui_latency.py [IMAGE]   (default: first BSDS500 training image, else the demo)
For each method, 10 strokes are drawn one at a time with real mouse events; "to screen" is
from the mouse release to the overlay being updated (resultChanged handled). The GUI-thread
block is measured by a 5 ms heartbeat timer while jobs run (from the release to the
result being shown): its largest gap beyond 5 ms. The synthetic drag itself is not counted:
its eight mouse events are injected back to back, where a person's arrive over ~0.2 s.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
_home = tempfile.mkdtemp(prefix="segapp-bench-")
os.environ["XDG_CONFIG_HOME"], os.environ["XDG_DATA_HOME"] = _home + "/c", _home + "/d"
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from PySide6.QtCore import QElapsedTimer, QEventLoop, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

import core  # noqa: E402
from segapp.resources import DEMO_IMAGE  # noqa: E402


def main(argv):
    from segapp.gui.canvas import MUST, CANNOT
    from segapp.gui.main_window import MainWindow
    from segapp.gui.synthetic import drag

    import pyqtgraph as pg

    pg.setConfigOption("mouseRateLimit", 0)  # injected moves arrive back to back
    app = QApplication.instance() or QApplication([])
    bsds = sorted((ROOT.parent / "shared" / "bsds500" / "images" / "train").glob("*.jpg"))
    path = Path(argv[0]) if argv else (bsds[0] if bsds else DEMO_IMAGE)
    w = MainWindow()
    w.resize(1200, 720)
    w.show()

    def wait_result(timeout=30000):
        loop = QEventLoop()
        w.model.resultChanged.connect(loop.quit)
        QTimer.singleShot(timeout, loop.quit)
        loop.exec()
        w.model.resultChanged.disconnect(loop.quit)

    w.model.open_image(path)
    wait_result()
    h, wd = w.model.image.shape[:2]
    rng = np.random.RandomState(0)
    gaps = []
    beat = QElapsedTimer()
    hb = QTimer(interval=5)
    state = {"waiting": False}

    def tick():
        gap = beat.restart()
        if state["waiting"]:  # only while a job runs (the injected drag itself is not counted)
            gaps.append(gap)

    hb.timeout.connect(tick)
    print(f"image {path.name} {wd}x{h}, default settings, 10 strokes per method, offscreen")
    print("| method | stroke to screen, median (s) | max (s) | GUI thread max block (ms) |")
    print("|---|---|---|---|")
    for m in core.METHODS:
        w.method_box.setCurrentText(m)
        wait_result()
        w.model.clear()
        wait_result()
        lat = []
        gaps.clear()
        beat.start()
        hb.start()
        for k in range(10):
            w.canvas.view.tool = MUST if k % 2 == 0 else CANNOT
            r1, c1, r2, c2 = rng.randint(h), rng.randint(wd), rng.randint(h), rng.randint(wd)
            t = time.perf_counter()
            drag(w, r1, c1, r2, c2)
            beat.restart()
            state["waiting"] = True
            wait_result()
            state["waiting"] = False
            lat.append(time.perf_counter() - t)
        hb.stop()
        block = max(0, max(gaps or [0]) - 5)
        print(f"| {m} | {np.median(lat):.2f} | {max(lat):.2f} | {block} |", flush=True)
    w.runner.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
