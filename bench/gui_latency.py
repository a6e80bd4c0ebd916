"""GUI latency through the real window (offscreen): stroke to screen, GUI-thread blocking,
and for a 12-megapixel photo the time to the image on screen and to the first result.

Run (one benchmark at a time on a shared machine)::

    flock /tmp/segapp-bench.lock python bench/gui_latency.py [--strokes 10] [--large-strokes 5]

For each image (a 481x321 Berkeley image, and the same image upscaled by this script to
4000x3000) and each method, strokes are drawn one at a time with real mouse events, one
event per event-loop turn (as a person's arrive). "Stroke to screen" runs from the mouse
release to the first repaint of the canvas after the new result; "of it in core.segment" is
the median time the worker spent in ``core.segment`` for those strokes (the rest: sending
the strokes, the worker's own work around it, the answer's way back and the drawing). "GUI block" is the longest
gap of a 5 ms heartbeat timer on the GUI thread while the strokes are drawn and computed,
wall clock (so a loaded machine inflates it); "GUI busy" is the most CPU time the GUI thread
itself used between two ticks. Peak memory adds the peak resident sizes of the window's
process and of the worker process; the preview's and the compare view's own workers (made on
first use) are given beside.

Then, on the small image (``--no-extras`` skips this): **preview while drawing** -- a
two-second must-link drag per method, a mouse move every 1/60 s, counting the previews shown
before the release (after one uncounted drag: the first drag on a freshly opened image waits
for the preview worker to prepare it); and the **compare view** -- shown, then after each of ``--strokes``
strokes the time from the release until all seven methods' tiles show the new strokes.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def parse(argv):
    sys.path.insert(0, str(ROOT))
    from bench.speed import common_args

    p = common_args(__doc__, 10, 5, "method")
    p.add_argument("--no-extras", action="store_true", help="skip the preview and compare-view tables")
    return p.parse_args(argv)


class Bench:
    """The window plus the probes: heartbeat, repaint watcher, paced mouse events."""

    def __init__(self, app):
        from PySide6.QtCore import QEvent, QObject

        from segapp.gui.main_window import MainWindow
        from tests.probe import Heartbeat

        self.app = app
        self.w = MainWindow()
        self.w.resize(1200, 720)
        self.w.show()
        self.beat = Heartbeat()
        self.painted_at = None
        bench = self

        class PaintWatch(QObject):
            def eventFilter(self, obj, ev):
                if ev.type() == QEvent.Paint and bench.painted_at is None and bench.armed:
                    bench.painted_at = time.perf_counter()
                return False

        self.armed = False
        self._watch = PaintWatch()
        self.w.canvas.viewport().installEventFilter(self._watch)

    def run_until(self, cond, timeout=600.0):
        t0 = time.perf_counter()
        while not cond():
            self.app.processEvents()
            if time.perf_counter() - t0 > timeout:
                raise TimeoutError("no result in time")
            time.sleep(0.001)

    def settle(self):
        w = self.w
        self.run_until(lambda: w.controller.idle and not w.drawing)

    def arm(self):
        """Note the next canvas repaint after the next result (or image)."""
        self.painted_at, self.armed = None, False

    def _arm_now(self, *_):
        self.armed = True
        self.w.canvas.viewport().update()

    def open(self, path):
        """Open ``path``: seconds to the image on screen and to the first result on screen."""
        w = self.w
        t0 = time.perf_counter()
        self.arm()
        w.model.imageChanged.connect(self._arm_now)
        w.controller.open_image(path)
        self.run_until(lambda: self.painted_at is not None)
        shown = self.painted_at - t0
        w.model.imageChanged.disconnect(self._arm_now)
        self.arm()
        w.model.resultChanged.connect(self._arm_now)
        self.run_until(lambda: self.painted_at is not None)
        w.model.resultChanged.disconnect(self._arm_now)
        self.settle()
        return shown, self.painted_at - t0

    def stroke(self, tool, r1, c1, r2, c2):
        """Seconds from the mouse release to the repaint showing the stroke's result."""
        from tests.probe import stroke_events

        w = self.w
        w.canvas.view.tool = tool
        events = stroke_events(w.canvas, r1, c1, r2, c2)
        for send in events[:-1]:  # one event per turn, as a person's arrive
            send()
            self.app.processEvents()
        self.arm()
        w.model.resultChanged.connect(self._arm_now)
        w.runner.failed.connect(self._arm_now)  # a method that fails shows its message instead
        t0 = time.perf_counter()
        events[-1]()
        self.run_until(lambda: self.painted_at is not None)
        w.model.resultChanged.disconnect(self._arm_now)
        w.runner.failed.disconnect(self._arm_now)
        latency = self.painted_at - t0
        self.settle()
        return latency

    def preview_drag(self, r1, c1, r2, c2, seconds: float = 2.0, hz: float = 60.0):
        """Drag a must-link from (r1, c1) to (r2, c2) over ``seconds``, a move every 1/``hz`` s,
        and release: previews shown per second while dragging."""
        from PySide6.QtCore import QEvent, QPoint, Qt

        from segapp.gui.canvas import MUST
        from tests.probe import _send, pixel_to_viewport

        w = self.w
        w.canvas.view.tool = MUST
        vp = w.canvas.viewport()
        a, b = pixel_to_viewport(w.canvas, r1, c1), pixel_to_viewport(w.canvas, r2, c2)
        before = w.controller.preview.count
        _send(vp, QEvent.MouseButtonPress, a, Qt.LeftButton, Qt.LeftButton)
        n = int(seconds * hz)
        t0 = time.perf_counter()
        for k in range(1, n + 1):
            t = k / n
            _send(vp, QEvent.MouseMove, QPoint(round(a.x() + t * (b.x() - a.x())), round(a.y() + t * (b.y() - a.y()))),
                  Qt.LeftButton)
            while time.perf_counter() < t0 + k / hz:
                self.app.processEvents()
                time.sleep(0.001)
        shown = w.controller.preview.count - before
        took = time.perf_counter() - t0
        _send(vp, QEvent.MouseButtonRelease, b, Qt.NoButton, Qt.LeftButton)
        self.settle()
        return shown / took

    def compare_after_stroke(self, tool, r1, c1, r2, c2) -> float:
        """With the compare view shown: seconds from the release to every tile filled."""
        from tests.probe import stroke_events

        w = self.w
        w.canvas.view.tool = tool
        events = stroke_events(w.canvas, r1, c1, r2, c2)
        for send in events[:-1]:
            send()
            self.app.processEvents()
        self.run_until(lambda: not w.compare.busy and not w.compare.stale)
        t0 = time.perf_counter()
        events[-1]()
        self.run_until(lambda: w.compare.busy or w.compare.stale)
        self.run_until(lambda: not w.compare.busy and not w.compare.stale)
        took = time.perf_counter() - t0
        self.settle()
        return took

    def worker_peak_mb(self, runner=None) -> float:
        """Peak resident size of ``runner``'s worker process (default: the window's own)."""
        from segapp.worker.messages import Op

        runner = runner or self.w.runner
        got = {}
        runner.taskDone.connect(lambda name, value: got.update(value) if name == Op.DIAGNOSTICS else None)
        runner.call(Op.DIAGNOSTICS)
        self.run_until(lambda: bool(got))
        return got["peak_rss_mb"]


def main(argv=None) -> int:
    a = parse(argv)
    if not a.image.is_file():
        print(f"gui_latency.py: {a.image} not found (give --image an image file)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="segapp-bench-") as home:
        return _run(a, home)


def _run(a, home: str) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ["XDG_CONFIG_HOME"], os.environ["XDG_DATA_HOME"] = f"{home}/c", f"{home}/d"
    sys.path.insert(0, str(ROOT))
    import numpy as np
    import pyqtgraph as pg
    from PySide6.QtWidgets import QApplication

    from segapp import core
    from bench.speed import large_copy  # the same 4000x3000 copy as the per-call benchmark
    from segapp.gui.canvas import CANNOT, MUST

    pg.setConfigOption("mouseRateLimit", 0)  # injected moves arrive back to back
    app = QApplication.instance() or QApplication([])
    app.styleHints().setMouseDoubleClickInterval(1)
    methods = a.methods.split(",") if a.methods else list(core.METHODS)
    bench = Bench(app)
    rows, opens = [], []
    sizes = [(a.image, a.strokes)] + ([(large_copy(a.image, Path(home)), a.large_strokes)] if a.large_strokes > 0 else [])
    for path, n_strokes in sizes:  # --large-strokes 0 skips the 4000x3000 copy
        shown, first = bench.open(path)
        h, w = bench.w.model.shape
        opens.append((f"{w}x{h}", shown, first))
        rng = np.random.RandomState(0)
        for m in methods:
            bench.w.model.set_method(m)
            bench.w.model.clear()
            bench.settle()
            lat, core_s = [], []
            bench.beat.start()
            for k in range(n_strokes):
                r1, c1, r2, c2 = 0, 0, 0, 0
                while np.hypot(r2 - r1, c2 - c1) < 10:
                    r1, r2 = rng.randint(h, size=2)
                    c1, c2 = rng.randint(w, size=2)
                lat.append(bench.stroke(MUST if k % 2 == 0 else CANNOT, r1, c1, r2, c2))
                core_s.append(bench.w.model.result.seconds)
            bench.beat.stop()
            rows.append((f"{w}x{h}", m, bench.w.model.result.n_nodes, np.median(lat), np.percentile(lat, 90),
                         np.median(core_s),
                         bench.beat.longest_gap_ms(), bench.beat.longest_busy_ms()))
            print(f"  {w}x{h} {m}: median {np.median(lat):.3f} s", file=sys.stderr, flush=True)
    extra = _preview_and_compare(bench, a, np) if not a.no_extras else None
    gui_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    worker_mb = bench.worker_peak_mb()
    more = {name: bench.worker_peak_mb(r) for name, r in (("preview", bench.w.controller.preview._runner),
                                                          ("compare", bench.w.compare._runner)) if r is not None}
    bench.w.close()
    print(f"segapp GUI latency, offscreen, default settings, {time.strftime('%Y-%m-%d')}, "
          f"{os.cpu_count()} cores; {a.strokes} strokes per method at 481x321, {a.large_strokes} at 4000x3000")
    print()
    print("| image | method | nodes | stroke to screen, median (s) | p90 (s) | of it in core.segment, median (s) "
          "| GUI block, wall (ms) | GUI busy (ms) |")
    print("|---|---|---|---|---|---|---|---|")
    for size, m, nodes, med, p90, in_core, block, busy in rows:
        print(f"| {size} | {m} | {nodes} | {med:.2f} | {p90:.2f} | {in_core:.2f} | {block:.0f} | {busy:.0f} |")
    print()
    print("| image | open to image on screen (s) | open to first segmentation on screen (s) |")
    print("|---|---|---|")
    for size, shown, first in opens:
        print(f"| {size} | {shown:.2f} | {first:.2f} |")
    print()
    if extra is not None:
        _print_extras(*extra)
    print(f"peak memory: window process {gui_mb:.0f} MB + worker process {worker_mb:.0f} MB = "
          f"{gui_mb + worker_mb:.0f} MB (sum of each process's peak)"
          + "".join(f"; the {name} worker {mb:.0f} MB" for name, mb in more.items()))
    return 0


def _preview_and_compare(bench, a, np):
    """On the small image again: previews per second during two-second drags (each method),
    and the compare view's fill time after strokes, with the GUI thread's longest gaps."""
    from segapp import core
    from segapp.gui.canvas import CANNOT, MUST

    bench.open(a.image)
    h, w = bench.w.model.shape
    methods = a.methods.split(",") if a.methods else [m for m in core.METHODS if m != "ncut"]
    # one drag first, not counted: the preview worker prepares the image it was just given
    # (the graph, its texture features) while the first drag of a session waits for it
    bench.w.model.set_method(methods[0])
    bench.preview_drag(h // 4, w // 4, h // 2, w // 2, seconds=1.0)
    preview = bench.w.controller.preview
    bench.run_until(lambda: preview._prepared_after is not None, timeout=120.0)  # its first answer came
    rate = []
    for m in methods:
        bench.w.model.set_method(m)
        bench.w.model.clear()
        bench.settle()
        bench.beat.start()
        ups = bench.preview_drag(h // 5, w // 6, 4 * h // 5, 5 * w // 6)
        bench.beat.stop()
        rate.append((m, ups, bench.beat.longest_gap_ms(), bench.beat.longest_busy_ms()))
        print(f"  preview {m}: {ups:.1f} per s", file=sys.stderr, flush=True)
    bench.w.model.set_method("e2cp")
    bench.w.model.clear()
    bench.settle()
    bench.w.compare_dock.show()
    bench.w.compare_dock.raise_()
    bench.run_until(lambda: not bench.w.compare.busy and not bench.w.compare.stale)
    rng = np.random.RandomState(1)
    fills = []
    bench.beat.start()
    for k in range(a.strokes):
        r1, r2 = rng.randint(h, size=2)
        c1, c2 = rng.randint(w, size=2)
        if np.hypot(r2 - r1, c2 - c1) >= 10:
            fills.append(bench.compare_after_stroke(MUST if k % 2 == 0 else CANNOT, r1, c1, r2, c2))
    bench.beat.stop()
    compare = (np.median(fills), np.percentile(fills, 90), bench.beat.longest_gap_ms(), bench.beat.longest_busy_ms())
    bench.w.compare_dock.hide()
    print(f"  compare view: median {compare[0]:.2f} s", file=sys.stderr, flush=True)
    return rate, compare, f"{w}x{h}"


def _print_extras(rate, compare, size) -> None:
    print()
    print(f"Preview while drawing at {size}: a two-second must-link drag, 60 moves per second")
    print()
    print("| method | previews per second | GUI block, wall (ms) | GUI busy (ms) |")
    print("|---|---|---|---|")
    for m, ups, block, busy in rate:
        print(f"| {m} | {ups:.1f} | {block:.0f} | {busy:.0f} |")
    print()
    print(f"Compare view at {size}: release of a stroke to all seven methods on screen (e2cp current)")
    print()
    print("| median (s) | p90 (s) | GUI block, wall (ms) | GUI busy (ms) |")
    print("|---|---|---|---|")
    print(f"| {compare[0]:.2f} | {compare[1]:.2f} | {compare[2]:.0f} | {compare[3]:.0f} |")
    print()


if __name__ == "__main__":
    sys.exit(main())
