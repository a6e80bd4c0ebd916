"""``segapp segment``: segment one image headlessly and write a label PNG."""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

from .common import Parser, parse_params


def parser() -> argparse.ArgumentParser:
    p = Parser(prog="segapp segment", description="Segment an image headlessly and write a label PNG.")
    p.add_argument("image", nargs="?", help="image file (PNG, JPEG, TIFF, BMP)")
    p.add_argument("--demo", action="store_true", help="use the project's demo image")
    p.add_argument("--constraints", help="constraint JSON file (as the GUI saves it)")
    p.add_argument("--method", default="csp", help="method name (see 'segapp methods'); default csp")
    p.add_argument("--segments", type=int, default=2, help="number of segments K (default 2)")
    p.add_argument("--out", help="label PNG (8-bit indices 0..K-1); default <stem>_labels.png")
    p.add_argument("--eigenvectors", help="also write the leading eigenvectors side by side (PNG)")
    p.add_argument("--overlay", help="also write the colour overlay (PNG)")
    p.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                   help="method or representation parameter; repeatable")
    p.add_argument("--seed", type=int, default=0, help="random seed (k-means restarts)")
    return p


def main(argv) -> int:
    import numpy as np

    import core
    from core import render
    from segapp.resources import DEMO_IMAGE

    a = parser().parse_args(argv)
    if a.demo == bool(a.image):
        raise core.ParameterError("give an IMAGE or --demo (exactly one)")
    path = Path(DEMO_IMAGE if a.demo else a.image)
    image = core.load_image(path)
    cons = core.Constraints.from_json(a.constraints) if a.constraints else None
    params = parse_params(a.param)
    with warnings.catch_warnings():
        warnings.simplefilter("always", core.SegappWarning)
        warnings.simplefilter("error", core.ContradictoryConstraintsWarning)
        warnings.showwarning = lambda m, c, *r, **k: print(f"segapp: warning: {m}", file=sys.stderr)
        seg = core.segment(image, cons, method=a.method, n_segments=a.segments, random_state=a.seed, **params)
    out = Path(a.out) if a.out else Path(f"{path.stem}_labels.png")
    render.save_labels(out, seg.labels)
    if a.eigenvectors:
        render.save_png(a.eigenvectors, render.eigenvector_strip(seg.eigenvectors))
    if a.overlay:
        render.save_png(a.overlay, render.overlay(image, seg.labels))
    counts = np.bincount(seg.labels.ravel(), minlength=a.segments)
    print(f"{out}: {a.method}, {seg.labels.shape[1]}x{seg.labels.shape[0]}, {seg.n_nodes} nodes, "
          f"{seg.seconds * 1000:.0f} ms, segment sizes {counts.tolist()}")
    return 0
