"""Smoke-test a frozen segapp: python packaging/smoke_test.py dist/segapp/segapp

Runs the executable in a bare environment (no Python variables, a fresh home, offscreen Qt)
and fails loudly unless
1. ``segapp --screenshot`` writes a PNG of the window (Qt platform plugin, pyqtgraph, the
   spawned worker process, the packaged demo image and icon);
2. ``segapp segment --demo`` with a must-link, a cannot-link and a block writes a label mask
   for every method that ``segapp methods`` lists (SciPy, scikit-image, scikit-learn);
3. ``segapp evaluate`` on a two-image BSDS500-layout folder made here writes its CSV
   (MATLAB ground truth through scipy.io, random walker with pyamg, joblib with 2 jobs).
Needs numpy, scipy and Pillow in the Python that runs it (the build venv has them).
"""

from __future__ import annotations

import csv
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image
from scipy.io import savemat


class SmokeTestFailed(Exception):
    pass


def run(app, args, cwd, env):
    t = time.perf_counter()
    done = subprocess.run([str(app), *map(str, args)], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)
    if done.returncode != 0:
        raise SmokeTestFailed(f"`segapp {' '.join(map(str, args))}` exited {done.returncode}:\n"
                              f"{done.stdout}{done.stderr}")
    print(f"  ok  segapp {' '.join(map(str, args))}  ({time.perf_counter() - t:.1f} s)")
    return done.stdout


def check_screenshot(app, tmp, env):
    shot = tmp / "window.png"
    run(app, ["--screenshot", shot], tmp, env)
    if not shot.is_file():
        raise SmokeTestFailed(f"the frozen app wrote no screenshot ({shot})")
    img = np.asarray(Image.open(shot).convert("RGB"))
    if img.shape[0] < 400 or img.shape[1] < 600 or img.reshape(-1, 3).std(axis=0).max() < 20:
        raise SmokeTestFailed(f"the screenshot {shot} is not a drawn window: {img.shape}")


def check_segment(app, tmp, env):
    names = re.findall(r"^([a-z][a-z0-9-]*): ", run(app, ["methods"], tmp, env), re.M)
    if len(names) < 2:
        raise SmokeTestFailed(f"`segapp methods` listed {names}")
    cons = tmp / "constraints.json"
    cons.write_text(json.dumps({"version": 1, "must_link": [[20, 40, 120, 300]],
                                "cannot_link": [[150, 100, 160, 250]],
                                "blocks": [{"label": 1, "box": [200, 20, 215, 40]}]}))
    for name in names:
        out = tmp / f"{name}_labels.png"
        run(app, ["segment", "--demo", "--constraints", cons, "--method", name, "--segments", 3,
                  "--out", out], tmp, env)
        mask = np.asarray(Image.open(out))
        if mask.shape != (240, 360) or mask.max() > 2:
            raise SmokeTestFailed(f"{out}: shape {mask.shape}, labels up to {mask.max()}")


def check_evaluate(app, tmp, env):
    root = tmp / "bsds"
    (root / "images" / "train").mkdir(parents=True)
    (root / "groundTruth" / "train").mkdir(parents=True)
    seg = np.repeat(np.arange(1, 4, dtype=np.uint16), 32)[None].repeat(64, axis=0)  # 3 bands
    colours = np.array([(0, 0, 0), (200, 60, 40), (60, 170, 70), (50, 90, 200)])
    noise = np.random.default_rng(0).normal(0, 12, (64, 96, 3))
    image = np.clip(colours[seg] + noise, 0, 255).astype(np.uint8)
    for name, flip in (("1", slice(None)), ("2", slice(None, None, -1))):  # two images, 2 jobs
        Image.fromarray(image[:, flip]).save(root / "images" / "train" / f"{name}.jpg")
        gt = np.empty((1, 1), dtype=object)
        gt[0, 0] = {"Segmentation": seg[:, flip], "Boundaries": np.zeros(seg.shape, bool)}
        savemat(root / "groundTruth" / "train" / f"{name}.mat", {"groundTruth": gt})
    out = tmp / "evaluate.csv"
    run(app, ["evaluate", "--bsds", root, "--segments", 2, "--rounds", 1, "--methods", "all",
              "--jobs", 2, "--out", out], tmp, env)
    with open(out) as f:
        methods = {r["method"] for r in csv.DictReader(f) if r.get("round") == "1"}
    if "random-walker" not in methods or len(methods) < 3:
        raise SmokeTestFailed(f"{out} has round-1 rows only for {sorted(methods)}")


def main(argv):
    app = Path(argv[0] if argv else "dist/segapp/segapp").resolve()
    if not app.is_file():
        print(f"SMOKE TEST FAILED: no frozen app at {app}", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="segapp-smoke-") as d:
        tmp = Path(d)
        env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp), "QT_QPA_PLATFORM": "offscreen",
               "XDG_CONFIG_HOME": str(tmp / "config"), "XDG_DATA_HOME": str(tmp / "data"),
               "XDG_CACHE_HOME": str(tmp / "cache"), "LANG": "C.UTF-8"}
        try:
            for check in (check_screenshot, check_segment, check_evaluate):
                check(app, tmp, env)
        except (SmokeTestFailed, subprocess.TimeoutExpired) as e:
            print(f"\nSMOKE TEST FAILED: {e}", file=sys.stderr)
            return 1
    print(f"smoke test passed: {app}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
