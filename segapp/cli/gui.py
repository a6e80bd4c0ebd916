"""``segapp [IMAGE]``: the window (or, with ``--screenshot``, a picture of it)."""

from __future__ import annotations

import argparse

from .common import Parser


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
    return p


def main(argv) -> int:
    a = parser().parse_args(argv)
    from segapp.app import run

    return run(a)
