"""Per-stroke speed of every method against scikit-image's random walker, measured in one run.

Run (one benchmark at a time on a shared machine)::

    flock /tmp/segapp-bench.lock python bench/speed.py [--strokes 8] [--large-strokes 4]

For a 481x321 Berkeley image (default 100075.jpg) and the same image upscaled by this script
to 4000x3000, every method runs in a fresh process, as the window's worker does: the image
is loaded, ``core.prepare``d, segmented without constraints (**first result**: load,
superpixels, affinity, factorisations and the first labels, from a cold cache), then
re-segmented after each of a sequence of strokes (**per stroke**: median and p90 of
``core.segment`` on the prepared image, constraints growing one stroke at a time, the
previous result passed along as the window does, at K = 2 and K = 3), with the worker's
thread limit (at most cores - 1 BLAS and OpenMP threads). Strokes join two random pixels of the K largest ground-truth segments: must-link
within one, cannot-link across. The random walker (mode ``cg_mg``) runs in its own process on
the same image with seeds at the same stroke endpoints, labelled with their true segment,
one call per stroke; **suggestion**: ``core.suggest`` on each result (the worker computes its
best for every result once the result is sent); **ratio** = its median over the method's (K = 2 and 3 pooled). **Peak
memory** is the process's peak resident size (image included). **Long session**
(``--session N``, default 100; 0 skips it): at 481x321 and K = 2, one process per method
draws N strokes of the same kind one after another, the result passed along; the table gives
the median per stroke over strokes 1-10, the middle ten and the last ten. Timings on a loaded
machine are noisy: quote them with the date and the load.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
BSDS = ROOT.parent / "shared" / "bsds500"
BSDS_IMAGE = BSDS / "images" / "train" / "100075.jpg"


def common_args(doc: str, strokes: int, large_strokes: int, per: str) -> argparse.ArgumentParser:
    """The options both speed benchmarks take (this one and ``gui_latency.py``)."""
    p = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    p.add_argument("--image", type=Path, default=BSDS_IMAGE, help="a BSDS image with ground truth (default 100075)")
    p.add_argument("--strokes", type=int, default=strokes, help=f"strokes per {per} at 481x321")
    p.add_argument("--large-strokes", type=int, default=large_strokes, help=f"strokes per {per} at 4000x3000")
    p.add_argument("--methods", default=None, help="comma-separated methods (default: all)")
    return p


def parse(argv):
    p = common_args(__doc__, 8, 4, "K")
    p.add_argument("--no-large", action="store_true", help="skip the 4000x3000 image")
    p.add_argument("--session", type=int, default=100, help="strokes of the long session at 481x321 (0: skip it)")
    p.add_argument("--child", nargs=3, metavar=("IMAGE", "GT", "WHAT"), help=argparse.SUPPRESS)
    p.add_argument("--n", type=int, default=8, help=argparse.SUPPRESS)
    return p.parse_args(argv)


def stroke_sequence(target: np.ndarray, n: int, seed: int = 0):
    """``n`` growing ``core.Constraints``: each adds one link between two random cared pixels."""
    from segapp import core
    from segapp.core.eval.simulate import DONT_CARE

    rng = np.random.RandomState(seed)
    rows, cols = np.nonzero(target != DONT_CARE)
    must, cannot, seq = [], [], []
    for _ in range(n):
        a, b = rng.randint(len(rows), size=2)
        link = (int(rows[a]), int(cols[a]), int(rows[b]), int(cols[b]))
        (must if target[link[0], link[1]] == target[link[2], link[3]] else cannot).append(link)
        seq.append(core.Constraints(must_link=list(must), cannot_link=list(cannot)))
    return seq


def targets(gt_path: str, shape) -> dict:
    """The K = 2 and K = 3 targets, resized (nearest) to ``shape``."""
    from segapp.core.eval.bsds import load_ground_truth
    from segapp.core.eval.simulate import make_target

    gts = load_ground_truth(gt_path)
    h, w = shape
    out = {}
    for k in (2, 3):
        t = make_target(gts, k)
        r = np.arange(h) * t.shape[0] // h
        c = np.arange(w) * t.shape[1] // w
        out[k] = t[r[:, None], c[None, :]]
    return out


def child(image_path: str, gt_path: str, what: str, n: int) -> dict:
    """One process: one method (or the random walker) on one image; prints a JSON line."""
    from segapp import core

    warnings.simplefilter("ignore")
    if what != "random_walker":  # the worker's thread limit (the random walker keeps every core)
        from segapp.worker.process import leave_a_core_to_the_window

        leave_a_core_to_the_window()
    tiny = np.zeros((48, 48, 3))
    tiny[:, 24:] = 1.0
    warm = core.Constraints([(2, 2, 40, 40)])
    core.suggest(core.segment(tiny, warm, max_nodes=64), warm)  # imports, as the worker warms up
    t0 = time.perf_counter()
    img = core.load_image(image_path)
    tg = targets(gt_path, img.shape[:2])
    out = {"what": what, "size": f"{img.shape[1]}x{img.shape[0]}", "stroke_s": {}}
    if what == "random_walker":
        from segapp.core.eval.baselines import random_walker_segmenter

        for k in (2, 3):
            ts = []
            for cons in stroke_sequence(tg[k], n):
                t = time.perf_counter()
                random_walker_segmenter(img, cons, tg[k], k)
                ts.append(time.perf_counter() - t)
            out["stroke_s"][k] = ts
    else:
        prep = core.prepare(img, method=what)
        seg = core.segment(prep, None, method=what, n_segments=2)
        out["first_s"] = time.perf_counter() - t0
        out["nodes"] = seg.params["n_nodes"]  # the method's graph (seg.n_nodes adds refined parts)
        out["suggest_s"] = []
        for k in (2, 3):
            ts, shown = [], None
            for cons in stroke_sequence(tg[k], n):
                t = time.perf_counter()  # as the window's worker: the result on screen goes along
                shown = core.segment(prep, cons, method=what, n_segments=k, previous=shown)
                ts.append(time.perf_counter() - t)
                t = time.perf_counter()  # the suggested next stroke the worker sends with it
                core.suggest(shown, cons)
                out["suggest_s"].append(time.perf_counter() - t)
            out["stroke_s"][k] = ts
    out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def session_child(image_path: str, gt_path: str, what: str, n: int) -> dict:
    """One process: ``n`` strokes one after another at K = 2, as a long session in the window."""
    from segapp import core

    warnings.simplefilter("ignore")
    from segapp.worker.process import leave_a_core_to_the_window

    leave_a_core_to_the_window()
    img = core.load_image(image_path)
    tg = targets(gt_path, img.shape[:2])
    prep = core.prepare(img, method=what)
    core.segment(prep, None, method=what, n_segments=2)
    ts, shown = [], None
    for cons in stroke_sequence(tg[2], n):
        t = time.perf_counter()
        shown = core.segment(prep, cons, method=what, n_segments=2, previous=shown)
        ts.append(time.perf_counter() - t)
    return {"what": what, "session_s": ts}


def session_table(rows: list, n: int) -> list[str]:
    mid = max(0, n // 2 - 5)
    spans = [(0, min(10, n)), (mid, min(mid + 10, n)), (max(0, n - 10), n)]
    head = " | ".join(f"strokes {a + 1}-{b} (ms)" for a, b in spans)
    lines = [f"| method | {head} |", "|---|" + "---|" * len(spans)]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['what']} | failed: {r['error']} |" + " |" * (len(spans) - 1))
            continue
        cells = " | ".join(f"{1000 * np.median(r['session_s'][a:b]):.0f}" for a, b in spans)
        lines.append(f"| {r['what']} | {cells} |")
    return lines


def run_child(image: Path, gt: Path, what: str, n: int) -> dict:
    cmd = [sys.executable, __file__, "--child", str(image), str(gt), what, "--n", str(n)]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no message"])[-1]
        return {"what": what, "error": last}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def large_copy(src: Path, folder: Path) -> Path:
    """``src`` upscaled to 4000x3000 (bilinear), saved as a JPEG of quality 90."""
    from PIL import Image

    out = folder / f"{src.stem}_4000x3000.jpg"
    Image.open(src).convert("RGB").resize((4000, 3000), Image.BILINEAR).save(out, quality=90)
    return out


def table(rows: list, rw: dict) -> list[str]:
    lines = ["| method | nodes | first result (s) | per stroke K=2 median / p90 (ms) | "
             "K=3 median / p90 (ms) | suggestion median / max (ms) | peak memory (MB) | random walker / method |",
             "|---|---|---|---|---|---|---|---|"]
    rw_med = np.median(rw["stroke_s"]["2"] + rw["stroke_s"]["3"]) if "error" not in rw else np.nan
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['what']} | failed: {r['error']} | | | | | | |")
            continue
        cells = [f"{1000 * np.median(r['stroke_s'][k]):.0f} / {1000 * np.percentile(r['stroke_s'][k], 90):.0f}"
                 for k in ("2", "3")]
        med = np.median(r["stroke_s"]["2"] + r["stroke_s"]["3"])
        sug = r.get("suggest_s") or [np.nan]
        lines.append(f"| {r['what']} | {r['nodes']} | {r['first_s']:.2f} | {cells[0]} | {cells[1]} | "
                     f"{1000 * np.median(sug):.0f} / {1000 * np.max(sug):.0f} | {r['peak_mb']:.0f} | {rw_med / med:.1f}x |")
    if "error" in rw:
        lines.append(f"| random_walker (cg_mg) | failed: {rw['error']} | | | | | | |")
    else:
        cells = [f"{1000 * np.median(rw['stroke_s'][k]):.0f} / {1000 * np.percentile(rw['stroke_s'][k], 90):.0f}"
                 for k in ("2", "3")]
        lines.append(f"| random_walker (cg_mg) | pixels | | {cells[0]} | {cells[1]} | | {rw['peak_mb']:.0f} | 1 |")
    return lines


def main(argv=None) -> int:
    a = parse(argv)
    sys.path.insert(0, str(ROOT))
    if a.child:
        if a.child[2].startswith("session:"):
            img, gt_, what = a.child
            print(json.dumps(session_child(img, gt_, what.split(":", 1)[1], a.n)))
        else:
            print(json.dumps(child(*a.child, a.n)))
        return 0
    from segapp import core

    gt = a.image.parent.parent.parent / "groundTruth" / a.image.parent.name / f"{a.image.stem}.mat"
    for need in (a.image, gt):
        if not need.is_file():
            print(f"speed.py: {need} not found (give --image a BSDS image whose groundTruth .mat lies in "
                  "the BSDS500 layout)", file=sys.stderr)
            return 2
    methods = a.methods.split(",") if a.methods else list(core.METHODS)
    with tempfile.TemporaryDirectory(prefix="segapp-speed-") as home:
        return _run(a, gt, methods, Path(home))


def _run(a, gt: Path, methods: list, home: Path) -> int:
    images = [(a.image, a.strokes)] + ([] if a.no_large else [(large_copy(a.image, home), a.large_strokes)])
    print(f"segapp speed, default settings, {time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f} at the start; image {a.image.name} and its 4000x3000 copy")
    for path, n in images:
        rows = []
        for m in methods:
            rows.append(run_child(path, gt, m, n))
            print(f"  {path.name} {m} done", file=sys.stderr, flush=True)
        rw = run_child(path, gt, "random_walker", n)
        size = next((r["size"] for r in rows + [rw] if "size" in r), path.name)
        print(f"\n{size}, {n} strokes per K (one process per method)\n")
        print("\n".join(table(rows, rw)), flush=True)
    if a.session > 0:
        rows = []
        for m in [m for m in methods if m != "ncut"]:
            r = run_child(a.image, gt, f"session:{m}", a.session)
            rows.append(r if "error" in r else {**r, "what": m})
            print(f"  session {m} done", file=sys.stderr, flush=True)
        print(f"\nLong session at 481x321, K = 2: {a.session} strokes one after another, per stroke median\n")
        print("\n".join(session_table(rows, a.session)), flush=True)
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
