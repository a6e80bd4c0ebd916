"""The README's strip of the 100075 sequence: the window after each stroke.

Run from the repository (the BSDS500 images beside it, ``../shared/bsds500``)::

    python assets/make_bear_strip.py [--method e2cp] [--param NAME=VALUE] [--out assets/bear-sequence.png]

The window itself (offscreen, 1366x768, its worker process, default settings unless
``--param``) opens 100075.jpg at K = 2 and is given the strokes of the issue "Strokes as
people draw them" one at a time, as a person draws them (must-links bear's head -> back,
belly -> cub, one across the water, then cannot-links from the water to the bears): after
each, once its result is painted, the window is grabbed and its canvas cut out; the canvas
parts go side by side, each titled with its stroke and the segments' shares.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IMAGE = ROOT.parent / "shared" / "bsds500" / "images" / "train" / "100075.jpg"
# (kind, (row, col), (row, col)) in the 481x321 image
SEQUENCE = [("must_link", (150, 90), (125, 270)), ("must_link", (200, 200), (170, 380)),
            ("must_link", (70, 40), (60, 400)), ("cannot_link", (90, 60), (180, 230)),
            ("cannot_link", (250, 30), (160, 400))]
TITLES = ["1 must-link: head to back", "2 must-link: belly to cub", "3 must-link: across the water",
          "4 cannot-link: water to bear", "5 cannot-link: water to cub"]
TIMEOUT_S = 120


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--method", default="e2cp")
    p.add_argument("--param", action="append", default=[], metavar="NAME=VALUE")
    p.add_argument("--out", default=str(ROOT / "assets" / "bear-sequence.png"))
    a = p.parse_args(argv)
    if not IMAGE.exists():
        print(f"make_bear_strip: no {IMAGE}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.update(QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=tmp, XDG_DATA_HOME=tmp)
        shots = _window_after_each_stroke(a.method, dict(x.split("=", 1) for x in a.param))
    _strip(shots, a.out)
    print(a.method, "smaller segment after each stroke:", " ".join(f"{100 * sh.min():.1f}%" for _, sh in shots))
    print(a.out)
    return 0


def _window_after_each_stroke(method: str, params: dict) -> list:
    """(window picture as an RGB array, segment shares) after each stroke of the sequence."""
    import numpy as np
    from PySide6.QtGui import QImage
    from PySide6.QtWidgets import QApplication

    from segapp.core.constraints import Kind
    from segapp.gui.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    w = MainWindow()
    w.resize(1366, 768)
    w.show()
    w.model.set_method(method)
    w.model.set_segments(2)
    for name, value in params.items():
        w.model.set_param(name, value)
    got = []
    w.model.resultChanged.connect(lambda res: got.append(res))

    def wait_for_result():
        t0 = time.monotonic()
        while not (got and w.controller.idle and not w.drawing):
            app.processEvents()
            time.sleep(0.005)
            if time.monotonic() - t0 > TIMEOUT_S:
                raise RuntimeError("no result from the window")
        for _ in range(20):  # the views paint over a few event-loop turns
            app.processEvents()

    w.controller.open_image(str(IMAGE))
    wait_for_result()
    shots = []
    for kind, (r1, c1), (r2, c2) in SEQUENCE:
        got.clear()
        w.model.add_link(Kind(kind), r1, c1, r2, c2)
        wait_for_result()
        res = w.model.result
        labels = res.node_labels[res.node_map.node_map]  # each working pixel's segment
        shares = np.bincount(labels.ravel(), minlength=2) / labels.size
        img = w.grab().toImage().convertToFormat(QImage.Format.Format_RGB888)
        arr = np.frombuffer(img.constBits(), np.uint8).reshape(img.height(), img.bytesPerLine())
        shots.append((arr[:, :img.width() * 3].reshape(img.height(), img.width(), 3).copy(), shares))
    w.close()
    return shots


def _strip(shots, out) -> None:
    import numpy as np
    from PIL import Image, ImageDraw

    tiles = []
    for r, (win, shares) in enumerate(shots):
        canvas = _canvas(np.asarray(win))
        tile = Image.fromarray(canvas).resize((400, int(400 * canvas.shape[0] / canvas.shape[1])))
        band = Image.new("RGB", (tile.width, tile.height + 22), "white")
        band.paste(tile, (0, 22))
        title = f"{TITLES[r]}  ({100 * shares.min():.0f}% / {100 * shares.max():.0f}%)"
        ImageDraw.Draw(band).text((4, 5), title, fill="black")
        tiles.append(band)
    w, h = sum(t.width for t in tiles) + 4 * (len(tiles) - 1), max(t.height for t in tiles)
    strip = Image.new("RGB", (w, h), "white")
    x = 0
    for t in tiles:
        strip.paste(t, (x, 0))
        x += t.width + 4
    strip.save(out)


def _canvas(win):
    """The image area of a window screenshot: the bounding box of the pixels that are not
    the canvas's black background, in the canvas region left of the side panel."""
    import numpy as np

    region = win[60:int(0.72 * win.shape[0]), :int(0.66 * win.shape[1])]
    lit = region.max(2) > 12
    rows = np.flatnonzero(lit.mean(1) > 0.5)  # rows and columns mostly image, not background
    cols = np.flatnonzero(lit.mean(0) > 0.5)
    return region[rows[0]:rows[-1] + 1, cols[0]:cols[-1] + 1]


if __name__ == "__main__":
    sys.exit(main())
