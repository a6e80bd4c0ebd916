"""Choose core's defaults by the simulated-user benchmark on a subset of the train split.

Each configuration (``NAME=VALUE`` settings, ``;``-separated, applied to every method) runs the
simulated user of :mod:`core.eval.simulate` on every ``--stride``-th training image and prints one row
per method: mean ARI after rounds 0, 1, 3, 5, 10 and NoC@0.80. Example::

    python bench/tune.py --bsds ../shared/bsds500 --stride 10 --methods e2cp,csp \\
        --config "" --config "max_nodes=800" --config "stroke_radius=0.05"

The results of the runs that chose the defaults are in ``bench/results/tuning.md``.
"""

from __future__ import annotations

import argparse
import sys
import time

from joblib import Parallel, delayed

from segapp.core.eval import bsds
from segapp.cli.common import parse_params as _parse_params
from segapp.cli.evaluate import evaluate_image, params_per_method, summarise


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bsds", required=True)
    p.add_argument("--split", default="train")
    p.add_argument("--stride", type=int, default=10, help="every N-th image")
    p.add_argument("--segments", type=int, default=3)
    p.add_argument("--rounds", type=int, default=10)
    p.add_argument("--methods", default="e2cp,csp")
    p.add_argument("--config", action="append", default=[], help="';'-separated NAME=VALUE settings")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--mode", default="strokes", choices=("strokes", "blocks"))
    p.add_argument("--tag", default="", help="a note printed with each configuration")
    a = p.parse_args(argv)
    items = [i for i in bsds.find_images(a.bsds, a.split) if i.ground_truth is not None][:: a.stride]
    methods = a.methods.split(",")
    print(f"{len(items)} images (every {a.stride}th of {a.split}), K={a.segments}, R={a.rounds}\n")
    print("| config | method | ari@0 | ari@1 | ari@3 | ari@5 | ari@10 | noc@0.80 | honoured | newest | s/round |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for cfg in a.config or [""]:
        given = _parse_params([s for s in cfg.split(";") if s.strip()])
        params = params_per_method(methods, given)
        t0 = time.perf_counter()
        rows = [r for rs in Parallel(n_jobs=a.jobs)(
            delayed(evaluate_image)(it, methods, a.segments, a.rounds, a.mode, params) for it in items)
            for r in rs]
        for rec in summarise(rows, methods, a.rounds):
            vals = " | ".join(f"{rec[k]:.3f}" for k in ("ari@0", "ari@1", "ari@3", "ari@5", "ari@10",
                                                          "noc@0.80", "honoured", "newest", "s/round"))
            print(f"| {a.tag + ' ' if a.tag else ''}{cfg or 'defaults'} | {rec['method']} | {vals} |", flush=True)
        print(f"<!-- {cfg or 'defaults'}: {time.perf_counter() - t0:.0f} s -->", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
