"""Every picture of the README, from today's code: the window at three sizes, the compare
view and the strip of the 100075 sequence.

Run from the repository, with the BSDS500 images beside it (``../shared/bsds500``)::

    python assets/make_screenshots.py [--only NAME ...]

Each window is the real one (offscreen, its worker process, default settings, the settings
file untouched: ``--screenshot`` keeps none), opened on 100075.jpg with the strokes of
``assets/100075_constraints.json``; the strip is :mod:`make_bear_strip`'s.
"""

from __future__ import annotations

import argparse
import os
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
    "screenshot-compare.png": ("1366x768", ["--segments", "2", "--method", "e2cp", "--compare", "paper"]),
}
STRIP = "bear-sequence.png"


def segapp_command() -> list[str]:
    """The ``segapp`` of this interpreter's environment."""
    return [sys.executable, "-c", "from segapp.cli import main; raise SystemExit(main())"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", choices=[*WINDOWS, STRIP], help="make only these pictures")
    a = ap.parse_args(argv)
    if not IMAGE.exists():
        print(f"needs {IMAGE} (the BSDS500 images beside the repository)", file=sys.stderr)
        return 2
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    for name in a.only or [*WINDOWS, STRIP]:
        out = ROOT / "assets" / name
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
