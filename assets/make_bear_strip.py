"""The README's strip of the 100075 sequence: one window screenshot per stroke.

Run from the repository (the BSDS500 images beside it, ``../shared/bsds500``)::

    python assets/make_bear_strip.py [--method e2cp] [--colouring ncut|walk] [--out assets/bear-sequence.png]

For each r = 1..5 it saves the first r strokes of the sequence of the issue "Strokes as
people draw them" (must-links bear's head -> back, belly -> cub, one across the water, then
cannot-links from the water to the bears; K = 2) to a constraint file, renders the window
with ``segapp IMAGE --constraints FILE --screenshot`` (offscreen, 1366x768) and puts the
canvas parts side by side, each titled with its stroke. The window re-segments after
each stroke with the result on screen passed along; the constraint step uses that result
only to number the segments, so a screenshot of the r strokes in one call shows the same
partition (colours may be swapped).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IMAGE = ROOT.parent / "shared" / "bsds500" / "images" / "train" / "100075.jpg"
# (kind, (row, col), (row, col)) in the 481x321 image
SEQUENCE = [("must_link", (150, 90), (125, 270)), ("must_link", (200, 200), (170, 380)),
            ("must_link", (70, 40), (60, 400)), ("cannot_link", (90, 60), (180, 230)),
            ("cannot_link", (250, 30), (160, 400))]
TITLES = ["1 must-link: head to back", "2 must-link: belly to cub", "3 must-link: across the water",
          "4 cannot-link: water to bear", "5 cannot-link: water to cub"]


def main(argv=None) -> int:
    import numpy as np
    from PIL import Image, ImageDraw

    from segapp.core.eval.people import constraints_of

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--method", default="e2cp")
    p.add_argument("--colouring", default="ncut", help="rounding_colouring (default: ncut)")
    p.add_argument("--out", default=str(ROOT / "assets" / "bear-sequence.png"))
    a = p.parse_args(argv)
    if not IMAGE.exists():
        print(f"make_bear_strip: no {IMAGE}", file=sys.stderr)
        return 2
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    tiles = []
    with tempfile.TemporaryDirectory() as tmp:
        env["XDG_CONFIG_HOME"] = tmp  # the screenshots touch no one's settings
        for r in range(1, len(SEQUENCE) + 1):
            cons = constraints_of(SEQUENCE[:r])
            cfile, shot = Path(tmp) / f"c{r}.json", Path(tmp) / f"s{r}.png"
            cons.to_json(cfile)
            subprocess.run([sys.executable, "-c", "import sys; from segapp.cli import main; sys.exit(main())", str(IMAGE), "--segments", "2", "--method",
                            a.method, "--constraints", str(cfile), "--screenshot", str(shot),
                            "--param", f"rounding_colouring={a.colouring}",
                            "--size", "1366x768"], env=env, check=True, stdout=subprocess.DEVNULL)
            win = Image.open(shot).convert("RGB")
            canvas = _canvas(np.asarray(win))
            tile = Image.fromarray(canvas).resize((400, int(400 * canvas.shape[0] / canvas.shape[1])))
            band = Image.new("RGB", (tile.width, tile.height + 22), "white")
            band.paste(tile, (0, 22))
            ImageDraw.Draw(band).text((4, 5), TITLES[r - 1], fill="black")
            tiles.append(band)
    w, h = sum(t.width for t in tiles) + 4 * (len(tiles) - 1), max(t.height for t in tiles)
    strip = Image.new("RGB", (w, h), "white")
    x = 0
    for t in tiles:
        strip.paste(t, (x, 0))
        x += t.width + 4
    strip.save(a.out)
    print(a.out)
    return 0


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
