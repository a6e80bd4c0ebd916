"""The ``segapp`` command: the GUI by default, ``segment`` / ``methods`` / ``evaluate`` headless.

Errors are one line on stderr and exit status 2; no traceback reaches the user.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

SUBCOMMANDS = ("segment", "methods", "evaluate")


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2, like every other error
        self.exit(2, f"segapp: error: {message}\n")


def _segment_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="segapp segment", description="Segment an image headlessly and write a label PNG.")
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


def _parse_params(items):
    from core.errors import ParameterError

    out = {}
    for it in items:
        if "=" not in it:
            raise ParameterError(f"--param expects NAME=VALUE, got {it!r}")
        k, v = it.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def cmd_segment(argv) -> int:
    import numpy as np

    import core
    from core import render
    from segapp.resources import DEMO_IMAGE

    a = _segment_parser().parse_args(argv)
    if a.demo == bool(a.image):
        raise core.ParameterError("give an IMAGE or --demo (exactly one)")
    path = Path(DEMO_IMAGE if a.demo else a.image)
    image = core.load_image(path)
    cons = core.Constraints.from_json(a.constraints) if a.constraints else None
    params = _parse_params(a.param)
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


def cmd_methods(argv) -> int:
    import core

    _Parser(prog="segapp methods", description="List methods and parameters.").parse_args(argv)

    def show(p):
        default = "(resolved at run time)" if p.default is None else repr(p.default)
        print(f"    {p.name:<18} {p.type.__name__:<5} default {default:<12} range {p.range_text()}")
        print(f"        {p.help}")

    for name, spec in core.METHODS.items():
        print(f"{name}: {spec.description}\n    reference: {spec.reference}")
        for p in spec.params:
            show(p)
        print()
    print("representation (every method):")
    for p in core.REPRESENTATION_PARAMS:
        show(p)
    return 0


def cmd_evaluate(argv) -> int:
    from segapp.evaluate import main as evaluate_main

    return evaluate_main(argv)


def _gui_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="segapp", description="Interactive segmentation with must-link / cannot-link strokes. "
                "Headless: 'segapp segment …', 'segapp methods', 'segapp evaluate …'.")
    p.add_argument("image", nargs="?", help="image to open (default: the project's demo image)")
    p.add_argument("--constraints", help="constraint JSON file to load")
    p.add_argument("--method", help="method to select")
    p.add_argument("--segments", type=int, help="number of segments")
    p.add_argument("--berkeley", metavar="FOLDER", help="open a BSDS500-layout folder in the browser")
    p.add_argument("--screenshot", metavar="OUT.png",
                   help="open, segment, save a picture of the window and exit (works offscreen)")
    return p


def cmd_gui(argv) -> int:
    a = _gui_parser().parse_args(argv)
    from segapp.app import run

    return run(a)


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    from core.errors import SegappError

    try:
        if argv and argv[0] in SUBCOMMANDS:
            cmd = {"segment": cmd_segment, "methods": cmd_methods, "evaluate": cmd_evaluate}[argv[0]]
            return cmd(argv[1:])
        return cmd_gui(argv)
    except SegappError as e:
        print(f"segapp: error: {e}", file=sys.stderr)
        return 2
    except Warning as w:  # a warning turned into an error (contradictory constraints)
        print(f"segapp: error: {w}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except MemoryError:
        print("segapp: error: out of memory; lower max_nodes", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
