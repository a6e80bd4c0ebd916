"""``segapp segment``: segment one image headlessly and write a label PNG."""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

from segapp.core.constraints import Kind
from .common import Parser, add_max_pixels, check_outputs, parse_params


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
    p.add_argument("--seed", type=int, default=0, help="random seed in [0, 2**32 - 1] (k-means restarts)")
    add_max_pixels(p)
    return p


def _warn(message) -> None:
    print(f"segapp: warning: {' '.join(str(message).split())}", file=sys.stderr)


def report_unhonoured(seg, cons) -> None:
    """One warning line per kind of constraint the result does not honour (never silent)."""
    for key, kind in ((k, k.label) for k in Kind):
        ok = seg.honoured.get(key)
        if ok is not None and len(ok) and not ok.all():
            bad = [f"#{i}" for i in (~ok).nonzero()[0][:5]]
            more = ", ..." if (~ok).sum() > 5 else ""
            _warn(f"{int((~ok).sum())} of {len(ok)} {kind}s not honoured in the result "
                  f"({', '.join(bad)}{more})")
    for i, share in seg.info.get("small_cannot_links", ()):
        _warn(f"cannot-link #{i} is kept apart only by a segment of {share:.1%} of the image around one of its "
              "ends; if that end's region is larger, draw a must-link inside it")


def main(argv) -> int:
    import numpy as np

    from segapp import core
    from segapp.core import render
    from segapp.core.params import check_seed
    from segapp.resources import DEMO_IMAGE

    a = parser().parse_args(argv)
    if a.demo == bool(a.image):
        raise core.ParameterError("give an IMAGE or --demo (exactly one)")
    check_seed(a.seed, "--seed")
    params = parse_params(a.param)
    path = Path(DEMO_IMAGE if a.demo else a.image)
    out = Path(a.out) if a.out else Path(f"{path.stem}_labels.png")
    check_outputs([out, a.eigenvectors, a.overlay], inputs=[path, a.constraints])
    image = core.load_image(path, max_pixels=a.max_pixels)
    cons = core.Constraints.from_json(a.constraints) if a.constraints else None
    if cons and a.method == "ncut":
        _warn(f"ncut ignores constraints; the {len(cons)} in {a.constraints} are not used")
    with warnings.catch_warnings():
        warnings.simplefilter("always", core.SegappWarning)
        warnings.simplefilter("error", core.ContradictoryConstraintsWarning)
        warnings.showwarning = lambda m, c, *r, **k: _warn(m)
        seg = core.segment(image, cons, method=a.method, n_segments=a.segments, random_state=a.seed, **params)
    if cons and a.method != "ncut":
        report_unhonoured(seg, cons)
    render.save_labels(out, seg.labels)
    if a.eigenvectors:
        render.save_png(a.eigenvectors, render.eigenvector_strip(seg.eigenvectors, eigenvalues=seg.eigenvalues,
                                                                 first="u*" if a.method == "csp" else ""))
    if a.overlay:
        render.save_png(a.overlay, render.overlay(image, seg.labels))
    counts = np.bincount(seg.labels.ravel(), minlength=a.segments)
    print(f"{out}: {a.method}, {seg.labels.shape[1]}x{seg.labels.shape[0]}, {seg.n_nodes} nodes, "
          f"{seg.seconds * 1000:.0f} ms, segment sizes {counts.tolist()}")
    return 0
