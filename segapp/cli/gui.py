"""``segapp [IMAGE]``: the window (or, with ``--screenshot``, a picture of it)."""

from __future__ import annotations

import argparse
import os

from .common import Parser, add_max_pixels, check_outputs


def parser() -> argparse.ArgumentParser:
    p = Parser(prog="segapp", description="Interactive segmentation with must-link / cannot-link strokes. "
                "Headless: 'segapp segment …', 'segapp methods', 'segapp evaluate …'.")
    p.add_argument("image", nargs="?", help="image to open (default: the project's demo image)")
    p.add_argument("--constraints", help="constraint JSON file to load")
    p.add_argument("--method", help="method to select")
    p.add_argument("--segments", type=int, help="number of segments")
    p.add_argument("--berkeley", metavar="FOLDER", help="open a BSDS500-layout folder in the browser")
    p.add_argument("--screenshot", metavar="OUT.png",
                   help="open, segment, save a picture of the window and exit (works offscreen)")
    add_max_pixels(p)
    return p


def main(argv) -> int:
    import core
    from core.image import MAX_PIXELS_ENV, max_pixels_limit

    a = parser().parse_args(argv)
    # What can be checked without a window is checked here, so a bad argument is one line.
    if a.method is not None and a.method not in core.METHODS:
        raise core.ParameterError(f"unknown method {a.method!r}; valid methods: {', '.join(core.METHODS)}")
    if a.segments is not None and a.segments < 2:
        raise core.ParameterError(f"--segments must be at least 2, got {a.segments}")
    if a.max_pixels is not None:  # the window and its worker process read the environment
        os.environ[MAX_PIXELS_ENV] = str(max_pixels_limit(a.max_pixels))
    check_outputs([a.screenshot], inputs=[a.image, a.constraints])
    from segapp.app import run

    return run(a)
