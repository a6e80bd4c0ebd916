"""Time core.segment for every method on a 481x321 image with 10 strokes (default settings).

Run: python bench/speed.py [IMAGE]   (default: the first BSDS500 training image beside the
project, else the project's demo image). Prints a Markdown table for the README. The first
call per image builds the superpixels (cached); the table shows the per-stroke time (cached
representation) and the cold time.
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import core  # noqa: E402
from core.graph import representation  # noqa: E402
from segapp.resources import DEMO_IMAGE  # noqa: E402


def strokes(shape, n=10, seed=0):
    r = np.random.RandomState(seed)
    h, w = shape[:2]
    pts = lambda: (int(r.randint(h)), int(r.randint(w)))  # noqa: E731
    ml = [(*pts(), *pts()) for _ in range(n // 2)]
    cl = [(*pts(), *pts()) for _ in range(n - n // 2)]
    return core.Constraints(must_link=ml, cannot_link=cl)


def main(argv):
    bsds = sorted((ROOT.parent / "shared" / "bsds500" / "images" / "train").glob("*.jpg"))
    path = Path(argv[0]) if argv else (bsds[0] if bsds else DEMO_IMAGE)
    img = core.load_image(path)
    cons = strokes(img.shape)
    print(f"image {path.name} {img.shape[1]}x{img.shape[0]}, 10 strokes, default settings, K=2 and K=3")
    print("| method | nodes | cold (s) | per stroke K=2 (s) | per stroke K=3 (s) |")
    print("|---|---|---|---|---|")
    for m in core.METHODS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            representation._CACHE.clear()
            t = time.perf_counter()
            seg = core.segment(img, cons, method=m, n_segments=2)
            cold = time.perf_counter() - t
            warm = []
            for k in (2, 3):
                ts = []
                for _ in range(3):
                    t = time.perf_counter()
                    core.segment(img, cons, method=m, n_segments=k)
                    ts.append(time.perf_counter() - t)
                warm.append(min(ts))
        print(f"| {m} | {seg.n_nodes} | {cold:.2f} | {warm[0]:.2f} | {warm[1]:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
