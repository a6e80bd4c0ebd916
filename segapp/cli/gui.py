"""``segapp [IMAGE]``: the window (or, with ``--screenshot``, a picture of it)."""

from __future__ import annotations

import argparse
import os
import sys

from .common import Parser, add_max_pixels, check_outputs


def parser() -> argparse.ArgumentParser:
    p = Parser(prog="segapp", description="Interactive segmentation with must-link / cannot-link strokes. "
                "Headless: 'segapp segment …', 'segapp methods', 'segapp evaluate …'.")
    p.add_argument("image", nargs="?", help="image to open (default: the project's demo image)")
    p.add_argument("--constraints", help="constraint JSON file to load")
    p.add_argument("--method", help="method to select")
    p.add_argument("--segments", type=int, help="number of segments")
    p.add_argument("--berkeley", metavar="FOLDER", help="open a set of images in the browser: a BSDS500 folder (images/, groundTruth/) "
                        "or any folder of images")
    p.add_argument("--compare", nargs="?", const="final", choices=("final", "paper"),
                   help="open the compare view: every method's result on the same strokes (View → Compare "
                        "methods); '--compare paper' also shows each paper's own rounding beside")
    p.add_argument("--screenshot", metavar="OUT.png",
                   help="open, segment, save a picture of the window and exit (works offscreen)")
    p.add_argument("--size", metavar="WxH", type=window_size,
                   help="with --screenshot: the window's size, e.g. 1366x768 (as if maximised on such a screen)")
    p.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                   help="a representation or method parameter, as the side panel's form sets it "
                        "(e.g. rounding_colouring=ncut)")
    add_max_pixels(p)
    return p


def window_size(text: str) -> tuple[int, int]:
    """``"1366x768"`` -> (1366, 768)."""
    import argparse

    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"size must be WIDTHxHEIGHT, e.g. 1366x768, got {text!r}") from None
    if not (320 <= w <= 10000 and 240 <= h <= 10000):
        raise argparse.ArgumentTypeError(f"size {w}x{h} is outside 320x240 .. 10000x10000")
    return w, h


def _checked_params(items, method) -> dict:
    """``--param`` items validated against the representation's and the method's specs
    (one-line ParameterError naming the valid ones)."""
    from segapp import core
    from segapp.core.params import resolve

    from .common import parse_params

    given = parse_params(items)
    rep = tuple(core.REPRESENTATION_PARAMS)
    if method is None:  # the window's method is the stored one: its own form checks the values
        known = {p.name for p in rep}.union(*({p.name for p in m.params} for m in core.METHODS.values()))
        unknown = sorted(set(given) - known)
        if unknown:
            raise core.ParameterError(f"unknown parameter {unknown[0]!r} for --param; valid parameters: "
                                      f"{', '.join(sorted(known))}")
        full = resolve(rep, {k: v for k, v in given.items() if k in {p.name for p in rep}}, "--param")
        return {k: full.get(k, v) for k, v in given.items()}
    full = resolve(rep + tuple(core.METHODS[method].params), dict(given), "--param")
    return {k: full[k] for k in given}


def no_display() -> bool:
    """On Linux, no X or Wayland display and no Qt platform chosen: Qt would abort."""
    return (sys.platform.startswith("linux") and not os.environ.get("QT_QPA_PLATFORM")
            and not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"))


def main(argv) -> int:
    from segapp import core
    from segapp.core.image import MAX_PIXELS_ENV, max_pixels_limit

    a = parser().parse_args(argv)
    # What can be checked without a window is checked here, so a bad argument is one line.
    if a.method is not None and a.method not in core.METHODS:
        raise core.ParameterError(f"unknown method {a.method!r}; valid methods: {', '.join(core.METHODS)}")
    if a.segments is not None and a.segments < 2:
        raise core.ParameterError(f"--segments must be at least 2, got {a.segments}")
    if a.max_pixels is not None:  # the window and its worker process read the environment
        os.environ[MAX_PIXELS_ENV] = str(max_pixels_limit(a.max_pixels))
    check_outputs([a.screenshot], inputs=[a.image, a.constraints])
    a.params = _checked_params(a.param, a.method)
    if not a.screenshot and no_display():
        raise core.SegappError("no display to open the window on (DISPLAY and WAYLAND_DISPLAY are not set); "
                               "'segapp segment IMAGE' segments without a window, '--screenshot OUT.png' "
                               "renders the window offscreen")
    from segapp.app import run

    return run(a)
