"""How often the constraint step places a free must-link group with its own region.

The regions-first user (:mod:`core.eval.people`) draws must-links inside regions and then
cannot-links between them; which segment each must-link group joins is decided by
:func:`core.constraint_step.anchored.anchored_colours` once the cannot-linked groups hold
every segment. This script segments each training image once with all of that user's
strokes (one call, no result on screen), captures the placement's inputs, and scores the
placement's score of ``core/constraint_step/anchored.py`` with other weights: a free group
is placed right where its best colour is that of the cannot-linked end lying in its own
region. It prints, per setting, the share of free groups placed right and the share of
images with every free group right. Example (about 40 s per method and K)::

    python bench/placement.py --bsds ../shared/bsds500 --segments 3 --methods e2cp,csp \\
        --setting "" --setting "near=0" --setting "near=10" --setting "looks=0,near=0"

Settings are ``looks`` (lambda), ``method`` (nu), ``near`` (mu) and ``walk`` (the walk's
weight, 1 in the app); unset ones take the app's values. Results: ``bench/results/tuning.md``.
"""

from __future__ import annotations

import argparse
import sys
import warnings

import numpy as np
from joblib import Parallel, delayed

from segapp import core
from segapp.core.constraint_step import anchored
from segapp.core.constraint_step.params import ANCHORED_LOOKS, ANCHORED_METHOD, ANCHORED_NEAR
from segapp.core.eval import bsds, people, simulate


def capture(item, k: int, method: str) -> dict | None:
    """The first placement's inputs for ``item`` (one call, regions-first strokes) and each
    node's region, or None where the placement is not reached."""
    image = core.load_image(item.image)
    target = simulate.make_target(bsds.load_ground_truth(item.ground_truth, shape=image.shape[:2]), k)
    strokes = people.user_strokes("regions-first", target, k, item.id)
    calls = []
    real = anchored.anchored_colours

    def spy(colour, res, free, graph, k, F, **kw):
        said = sorted({int(g) for pair in res.apart for g in pair if g >= 0})
        if not calls and said and len(free) and len({int(colour[g]) for g in said}) == k:
            nodes = np.flatnonzero(np.isin(res.group, said))
            nc = colour[res.group[nodes]]
            own = kw.get("own")
            calls.append(dict(group=res.group.copy(), free=np.array(free), nodes=nodes, nc=nc, F=F,
                              logP=np.log(np.maximum(anchored.harmonic(graph, nodes, nc, k), 1e-9)),
                              D=None if own is None else anchored.own_label_distances(own, nodes, nc, k),
                              x=kw.get("positions")))
        return real(colour, res, free, graph, k, F, **kw)

    anchored.anchored_colours = spy
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            seg = core.segment(image, people.constraints_of(strokes), method=method, n_segments=k)
    finally:
        anchored.anchored_colours = real
    if not calls:
        return None
    rep = seg.refinement.base if seg.refinement is not None else seg.representation
    nm, t = np.asarray(rep.node_map).ravel(), target.ravel()
    ok = t >= 0
    counts = np.zeros((int(nm.max()) + 1, k))
    np.add.at(counts, (nm[ok], t[ok]), 1)
    return {**calls[0], "region": np.where(counts.sum(1) > 0, counts.argmax(1), -1)}


def score(c: dict, k: int, looks: float, method: float, near: float, walk: float) -> tuple[int, int]:
    """(free groups placed right, free groups scored) for one image's capture."""
    nodes, nc, region = c["nodes"], c["nc"], c["region"]
    colour_region = {}
    for a, col in zip(nodes, nc):
        if colour_region.setdefault(int(col), int(region[a])) != int(region[a]):
            return 0, 0  # a colour's exemplars in two regions: no right answer
    if len(set(colour_region.values())) < k:
        return 0, 0
    region_colour = {r: col for col, r in colour_region.items()}
    right = total = 0
    for g in c["free"].tolist():
        members = np.flatnonzero(c["group"] == g)
        own = np.bincount(region[members][region[members] >= 0], minlength=k).argmax()
        s = walk * c["logP"][members].sum(0)
        if c["D"] is not None:
            s = s - method * c["D"][members].sum(0)
        for col in range(k):
            ex = nodes[nc == col]
            if c["F"] is not None and looks > 0:
                F = c["F"]
                s[col] -= looks * (((F[members][:, None] - F[ex][None]) ** 2).sum(-1).min(1) / F.shape[1]).sum()
            if c["x"] is not None and near > 0:
                x = c["x"]
                s[col] -= near * np.sqrt(((x[members][:, None] - x[ex][None]) ** 2).sum(-1)).min(1).sum()
        right += int(np.argmax(s)) == region_colour.get(int(own), -1)
        total += 1
    return right, total


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bsds", required=True)
    p.add_argument("--split", default="train")
    p.add_argument("--segments", type=int, default=2)
    p.add_argument("--methods", default="e2cp")
    p.add_argument("--limit", type=int, default=None)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--setting", action="append", default=None, help="NAME=VALUE,... ('' = the app's)")
    a = p.parse_args(argv)
    items = bsds.find_images(a.bsds, a.split)[:a.limit]
    settings = a.setting or [""]
    k = a.segments
    print(f"{len(items)} images, K={k}, regions-first strokes in one call\n")
    print("| method | setting | free groups right | images all right |")
    print("|---|---|---|---|")
    for method in a.methods.split(","):
        caps = [c for c in Parallel(n_jobs=a.jobs)(delayed(capture)(it, k, method) for it in items) if c is not None]
        for setting in settings:
            w = dict(looks=ANCHORED_LOOKS, method=ANCHORED_METHOD, near=ANCHORED_NEAR, walk=1.0)
            for part in filter(None, setting.split(",")):
                name, value = part.split("=")
                if name not in w:
                    p.error(f"unknown setting {name!r}; valid: {', '.join(w)}")
                w[name] = float(value)
            per = [score(c, k, **w) for c in caps]
            scored = [(r, t) for r, t in per if t]
            groups = sum(r for r, _ in scored) / max(1, sum(t for _, t in scored))
            whole = np.mean([r == t for r, t in scored]) if scored else float("nan")
            print(f"| {method} | {setting or '(the app)'} | {groups:.3f} | {whole:.3f} ({len(scored)} images) |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
