"""Every picture of the README, from today's code: the window at three sizes, the compare
view, the strip of the 100075 sequence and the napari plugin.

Run from the repository, with the BSDS500 images beside it (``../shared/bsds500``)::

    python assets/make_screenshots.py [--only NAME ...]

Each window is the real one (offscreen, its worker process, default settings, the settings
file untouched: ``--screenshot`` keeps none), opened on 100075.jpg with the strokes of
``assets/100075_constraints.json``; the strip is :mod:`make_bear_strip`'s. The napari
picture is napari's own window with the plugin docked and the strip's five strokes as Shapes
layers; napari draws with OpenGL, so it runs under ``xvfb-run`` when there is no display.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IMAGE = ROOT.parent / "shared" / "bsds500" / "images" / "train" / "100075.jpg"
STROKES = ROOT / "assets" / "100075_constraints.json"
# name: (size, extra arguments of `segapp`)
WINDOWS = {
    "screenshot.png": ("1200x841", ["--segments", "3"]),
    "screenshot-1366x768.png": ("1366x768", ["--segments", "3"]),
    "screenshot-1920x1080.png": ("1920x1080", ["--segments", "3"]),
    "screenshot-compare.png": ("1366x768", ["--segments", "3", "--method", "e2cp", "--compare", "paper"]),
}
STRIP = "bear-sequence.png"
NAPARI = "screenshot-napari.png"


def segapp_command() -> list[str]:
    """The ``segapp`` of this interpreter's environment."""
    return [sys.executable, "-c", "from segapp.cli import main; raise SystemExit(main())"]


def napari_window(out: Path) -> None:
    """napari at 1366x768 with the plugin docked, 100075.jpg, the strip's strokes as Shapes
    layers and the plugin's result (e2cp, K = 2), saved to ``out``."""
    import time

    import napari
    import numpy as np
    from qtpy.QtWidgets import QApplication

    from segapp.core import load_image

    sys.path.insert(0, str(ROOT / "assets"))
    from make_bear_strip import SEQUENCE  # the five strokes of the README's strip

    ml = [np.array([a, b], float) for kind, a, b in SEQUENCE if kind == "must_link"]
    cl = [np.array([a, b], float) for kind, a, b in SEQUENCE if kind == "cannot_link"]
    viewer = napari.Viewer()
    viewer.window._qt_window.resize(1366, 768)
    viewer.add_image(load_image(IMAGE), rgb=True, name="100075")
    _dock, widget = viewer.window.add_plugin_dock_widget("segapp", "Segment with constraints")
    widget.live_box.setChecked(False)
    viewer.add_shapes(ml, shape_type="line", edge_color="lime", edge_width=3, name="must-links")
    viewer.add_shapes(cl, shape_type="line", edge_color="red", edge_width=3, name="cannot-links")
    done = []
    widget.segmented.connect(done.append)
    widget.failed.connect(done.append)
    widget.request()
    app, t0 = QApplication.instance(), time.monotonic()
    while not done and time.monotonic() - t0 < 120:
        app.processEvents()
        time.sleep(0.02)
    if not done or isinstance(done[0], str):
        viewer.close()
        raise SystemExit(f"the plugin gave no result: {done[0] if done else 'timed out after 120 s'}")
    viewer.reset_view()
    for _ in range(20):
        app.processEvents()
        time.sleep(0.05)
    viewer.screenshot(str(out), canvas_only=False)
    viewer.close()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", choices=[*WINDOWS, STRIP, NAPARI], help="make only these pictures")
    ap.add_argument("--napari-window", metavar="OUT", help=argparse.SUPPRESS)  # the napari picture, in-process
    a = ap.parse_args(argv)
    if a.napari_window:
        napari_window(Path(a.napari_window))
        return 0
    if not IMAGE.exists():
        print(f"needs {IMAGE} (the BSDS500 images beside the repository)", file=sys.stderr)
        return 2
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    for name in a.only or [*WINDOWS, STRIP, NAPARI]:
        out = ROOT / "assets" / name
        if name == NAPARI:
            cmd = [sys.executable, __file__, "--napari-window", str(out)]
            if not os.environ.get("DISPLAY") and shutil.which("xvfb-run"):
                cmd = ["xvfb-run", "-a", "-s", "-screen 0 1366x768x24", *cmd]
            print("+", " ".join(cmd), flush=True)
            plain = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}  # napari needs a display
            subprocess.run(cmd, check=True, env=plain, cwd=ROOT)
            continue
        if name == STRIP:
            cmd = [sys.executable, str(ROOT / "assets" / "make_bear_strip.py"), "--out", str(out)]
        else:
            size, extra = WINDOWS[name]
            cmd = [*segapp_command(), str(IMAGE), "--constraints", str(STROKES), *extra,
                   "--screenshot", str(out), "--size", size]
        print("+", " ".join(cmd[3:] if name != STRIP else cmd[1:]), flush=True)
        subprocess.run(cmd, check=True, env=env, cwd=ROOT)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
