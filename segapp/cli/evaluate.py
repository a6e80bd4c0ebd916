"""``segapp evaluate``: every method and the anchors on a BSDS folder, driven by the simulated
user of :mod:`core.eval.simulate`; CSV rows, a summary table and a chart.

Anchors (told each endpoint's *true* segment, more than the methods are told):
``random-walker`` (scikit-image, pixels) and ``harmonic-boundary`` / ``harmonic-gaussian``
(harmonic labelling of the node graph, :func:`core.eval.baselines.graph_ceiling_segmenter`:
how far the graph itself lets a method go).
"""

from __future__ import annotations

import sys
import zlib
import time
from pathlib import Path

import numpy as np

from segapp.core.constraints import Kind

from .common import Parser, add_max_pixels, check_outputs, parse_params
from .evaluate_report import ANCHOR, chart, csv_text, people_summary, round_table, summarise, table

USERS = ("error-centre", "regions-first", "regions-in-turn", "shuffled", "must-links", "suggestions", "suggestions-alone",
         "random-in-error")
ROUND_USERS = ("error-centre", "suggestions", "suggestions-alone", "random-in-error")  # a click each round, --rounds rounds

ANCHORS = (ANCHOR, "harmonic-boundary", "harmonic-gaussian")
MAX_ROUNDS = 100


def _parser():
    p = Parser(prog="segapp evaluate", description="Benchmark methods with a simulated user on BSDS500.")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--bsds", help="folder in the BSDS500 layout (strokes or blocks, --user)")
    where.add_argument("--objects", metavar="FOLDER",
                       help="folder of images with binary object masks in the GrabCut layout (images/, "
                            "masks/: 255 object, 0 background, 128 ignored): the click protocol, NoC@85 / "
                            "NoC@90 at most 20 clicks, K = 2 (core.eval.clicks)")
    p.add_argument("--clicks", default="points", choices=("points", "strokes"),
                   help="with --objects: clicks as labelled one-pixel blocks (points) or as pairwise "
                        "strokes (positives must-linked, the first positive cannot-linked to every negative)")
    p.add_argument("--split", default="train", choices=("train", "val", "test"))
    p.add_argument("--segments", type=int, default=3, help="K target segments (2-5)")
    p.add_argument("--rounds", type=int, default=10, help="simulated rounds R")
    p.add_argument("--methods", default="all",
                   help="'all' or a comma list of methods and anchors (" + ", ".join(ANCHORS) + ")")
    p.add_argument("--mode", default="strokes", choices=("strokes", "blocks"))
    p.add_argument("--user", default="error-centre", choices=USERS,
                   help="the simulated user: error-centre (a must-link and a cannot-link at the centre of "
                        "the largest error each round, --rounds rounds) or a people-like user of "
                        "core.eval.people (regions-first: must-links inside each region, then "
                        "cannot-links between them; regions-in-turn: the same strokes one region at a time, "
                        "both must-links of a region before the next region's; shuffled: the same strokes in a shuffled order; "
                        "must-links: the must-links alone), one stroke per round, every stroke correct; "
                        "suggestions: follows segapp's suggestion each round (core.suggest, where the other "
                        "constrained methods disagree, as with the compare view open), answering from the "
                        "truth without seeing the error; suggestions-alone: the same from the method's "
                        "result alone (as without the compare view); random-in-error: the error-centre "
                        "user's strokes from a random pixel of the largest error region). With "
                        "--objects: error-centre (the field's clicker), suggestions or random-in-error")
    p.add_argument("--out", default="results.csv", help="CSV of image x method x round")
    p.add_argument("--jobs", type=int, default=1, help="images in parallel (local processes)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="run the images on a dask.distributed cluster (e.g. tcp://host:8786) instead of "
                        "local processes; needs pip install 'segapp[cluster]'")
    p.add_argument("--limit", type=int, help="only the first N images (a quick run)")
    p.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                   help="representation parameter (every method) or method parameter (the methods "
                        "that have it)")
    add_max_pixels(p)
    return p


def _error_row(image_id, method, message) -> dict:
    return {"image": image_id, "method": method, "round": -1, "ari": np.nan, "miou": np.nan,
            "covering": np.nan, "voi": np.nan, "seconds": np.nan, "error": message}


def check_args(a) -> None:
    """Every numeric argument in its range (one-line errors before any work)."""
    from segapp.core.errors import ParameterError

    if not 2 <= a.segments <= 5:
        raise ParameterError(f"--segments must be 2-5, got {a.segments}")
    if not 0 <= a.rounds <= MAX_ROUNDS:
        raise ParameterError(f"--rounds must be 0-{MAX_ROUNDS}, got {a.rounds}")
    if a.jobs != -1 and a.jobs < 1:
        raise ParameterError(f"--jobs must be at least 1 (or -1: every core), got {a.jobs}")
    if a.limit is not None and a.limit < 1:
        raise ParameterError(f"--limit must be at least 1, got {a.limit}")
    if getattr(a, "user", "error-centre") not in ROUND_USERS and a.mode != "strokes":
        raise ParameterError(f"--user {a.user} draws strokes; --mode blocks takes --user {', '.join(ROUND_USERS)}")


def method_list(text: str) -> list[str]:
    """``--methods``: 'all' or a comma list of known, distinct methods."""
    from segapp import core

    methods = list(core.METHODS) + list(ANCHORS) if text == "all" else [m.strip() for m in text.split(",")]
    for m in methods:
        if m not in ANCHORS and m not in core.METHODS:
            raise core.ParameterError(f"unknown method {m!r}; valid: {', '.join(core.METHODS)}, {', '.join(ANCHORS)}")
    dup = sorted({m for m in methods if methods.count(m) > 1})
    if dup:
        raise core.ParameterError(f"--methods lists {dup[0]!r} twice")
    return methods


def params_per_method(methods, params: dict) -> dict:
    """``--param`` values split by method: representation parameters go to every method,
    a method parameter to the methods that have it; every value validated now.

    Raises
    ------
    ParameterError
        A name no selected method knows (listing the valid ones), or a bad value.
    """
    from segapp import core
    from segapp.core.graph_setup import split_params

    rep = {p.name for p in core.REPRESENTATION_PARAMS}
    own = {m: {p.name for p in core.METHODS[m].params} for m in methods if m not in ANCHORS}
    valid = rep.union(*own.values())
    unknown = sorted(set(params) - valid)
    if unknown:
        raise core.ParameterError(f"unknown --param {unknown[0]!r} for methods {', '.join(own) or '(none)'}; "
                                  f"valid parameters: {', '.join(sorted(valid))}")
    out = {m: {k: v for k, v in params.items() if k in rep} for m in methods if m in ANCHORS}
    for m, names in own.items():
        out[m] = {k: v for k, v in params.items() if k in rep or k in names}
        split_params(m, out[m])
    return out


def evaluate_image(item, methods, k, rounds, mode, params, max_pixels=None, user="error-centre"):
    """All rows for one image (runs in a joblib worker); a file that cannot be read gives
    one error row per method instead of stopping the run.

    With a people-like ``user`` (:mod:`core.eval.people`) the strokes are that user's, one
    per round; each row also holds the result's health (``collapsed``, ``blob_cannot``) and
    the last round's row the ARI of the same constraints segmented in one call, without the
    result on screen (``one_call``)."""
    import warnings

    from segapp import core
    from segapp.core.eval import bsds, metrics, people, simulate

    try:
        image = core.load_image(item.image, max_pixels=max_pixels)
        gts = bsds.load_ground_truth(item.ground_truth, shape=image.shape[:2])
        target = simulate.make_target(gts, k)
    except core.SegappError as e:
        return [_error_row(item.id, m, str(e)) for m in methods]
    care = target != simulate.DONT_CARE
    rows = []
    for m in methods:
        seg_fn = _segmenter(m, image, target, k, params[m])
        try:
            if user in ROUND_USERS:
                run = simulate.simulate(image, target, seg_fn, rounds, mode,
                                        _clicker(user, seg_fn, item.id, image, k))
            else:
                run = people.draw(people.user_strokes(user, target, k, item.id), seg_fn)
            for r in run:
                lab = r["labels"]
                hon, newest = honoured_stats(r["constraints"], r["added"], lab)
                rows.append({
                    "image": item.id, "method": m, "round": r["round"],
                    "ari": metrics.adjusted_rand(target[care], lab[care]),
                    "miou": metrics.mean_iou(lab, target, ignore=~care),
                    "covering": metrics.segmentation_covering(lab[care], target[care]),
                    "voi": metrics.variation_of_information(lab[care], target[care]),
                    "honoured": hon, "newest": newest,
                    "seconds": r["seconds"],
                    **people.health(lab, target, r["constraints"], k),
                })
            if user not in ROUND_USERS:
                if m in ANCHORS:  # the anchors keep no result on screen: one call is what they do
                    one = rows[-1]["ari"]
                else:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        lab = core.segment(image, r["constraints"], method=m, n_segments=k, **params[m]).labels
                    one = metrics.adjusted_rand(target[care], lab[care])
                rows[-1]["one_call"] = one
        except core.SegappError as e:
            rows.append(_error_row(item.id, m, str(e)))
    return rows


def _clicker(user: str, seg_fn, seed_text: str, image=None, k: int = 2):
    """The round's click for ``user`` (None: the error-centre user's), see ``--user``."""
    from segapp.core.eval import simulate

    if user.startswith("suggestions"):
        asked: list = []
        committee = _committee(image, k, seg_fn.method) if user == "suggestions" else None
        return lambda labels, target, covered, blocks, cons: simulate.suggestion_click(
            seg_fn.shown["seg"], cons, target, asked, committee(cons) if committee else ())
    if user == "random-in-error":
        rng = np.random.RandomState(zlib.crc32(seed_text.encode()))
        return lambda labels, target, covered, blocks, cons: simulate.next_click(labels, target, covered,
                                                                                 blocks, rng=rng)
    return None


COMMITTEE = ("spectral-learning", "gp-propagation", "csp", "e2cp", "rom")


def _committee(image, k: int, method: str):
    """``constraints -> [label images]``: the other constrained methods of :data:`COMMITTEE`
    (default settings, one call each) on the same constraints, as the compare view shows them."""
    import warnings

    from segapp import core

    prep = core.prepare(image)

    def others(cons):
        out = []
        for m in COMMITTEE:
            if m != method:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    out.append(core.segment(prep, cons, method=m, n_segments=k).labels)
        return out
    return others


def _segmenter(m: str, image, target, k: int, params: dict):
    """``constraints -> labels`` for method or anchor ``m``: a method is given the result on
    screen from its previous call, as the window does; the anchors are told the target."""
    import warnings

    from segapp import core
    from segapp.core.eval.baselines import graph_ceiling_segmenter, random_walker_segmenter
    from segapp.core.graph import GRAPH_PARAMS

    if m == ANCHOR:
        return lambda c: random_walker_segmenter(image, c, target, k)
    if m in ANCHORS:
        gp = {n: v for n, v in params.items() if n in {p.name for p in GRAPH_PARAMS}}
        gp["affinity"] = m.split("-", 1)[1]
        return lambda c: graph_ceiling_segmenter(image, c, target, k, **gp)
    shown = {}  # the result the simulated user saw last, as the window keeps it

    def seg_fn(c):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            seg = core.segment(image, c, method=m, n_segments=k, previous=shown.get("seg"), **params)
        shown["seg"] = seg
        return seg.labels
    seg_fn.shown, seg_fn.method = shown, m  # the suggestion follower reads the result it answers about
    return seg_fn


def honoured_stats(cons, added: dict, labels) -> tuple[float, float]:
    """(fraction of all constraints honoured, 1.0 / 0.0 whether those ``added`` this round
    all are); NaN where there is nothing to count."""
    from segapp.core.eval.metrics import pixel_honoured

    h = pixel_honoured(cons, labels)
    flags = np.concatenate([h[Kind.MUST_LINK], h[Kind.CANNOT_LINK], h[Kind.BLOCK]])
    new = np.concatenate([h[k][len(h[k]) - n:] for k, n in added.items() if n])  if any(added.values()) \
        else np.zeros(0, bool)
    return (float(flags.mean()) if len(flags) else np.nan), (float(new.all()) if len(new) else np.nan)


def run_images(fn, items, jobs: int, *args, scheduler: str | None = None) -> list:
    """``fn(item, *args)`` (a list of rows) for every item, ``jobs`` images in parallel
    (joblib's local processes), or on the dask.distributed cluster at ``scheduler`` (one
    task per image; ``pip install 'segapp[cluster]'``); progress on a terminal; all rows."""
    rows, t0 = [], time.perf_counter()
    if scheduler:
        for n, r in enumerate(_on_cluster(scheduler, fn, items, args), 1):
            rows.extend(r)
            _progress(n, len(items), t0)
        return rows
    from joblib import Parallel, delayed

    gen = Parallel(n_jobs=jobs, return_as="generator_unordered")(delayed(fn)(it, *args) for it in items)
    for n, r in enumerate(gen, 1):
        rows.extend(r)
        _progress(n, len(items), t0)
    return rows


def _on_cluster(scheduler: str, fn, items, args):
    """Each image's rows as the cluster at ``scheduler`` finishes it."""
    from segapp.core.errors import ParameterError

    try:
        from distributed import Client, as_completed
    except ImportError:
        raise ParameterError("--scheduler needs dask.distributed: pip install 'segapp[cluster]'") from None
    try:
        client = Client(scheduler, timeout="10s")
    except (OSError, TimeoutError) as e:
        raise ParameterError(f"cannot reach the dask scheduler at {scheduler}: {e}") from None
    with client:
        futures = [client.submit(fn, it, *args, pure=False) for it in items]
        for fut in as_completed(futures):
            yield fut.result()


def _main_objects(a, argv, methods, params, out, summary_path) -> int:
    """``--objects``: the click protocol on an object data set (:mod:`.evaluate_clicks`)."""
    from segapp import core
    from segapp.core._io import atomic_write_text
    from segapp.core.eval import clicks

    from .evaluate_clicks import CLICK_KEYS, click_summary, evaluate_object, per_click_table

    methods = [m for m in methods if m in core.METHODS and m != "ncut" or m == ANCHOR]
    items = clicks.find_objects(a.objects)[: a.limit]
    if a.user not in ROUND_USERS:
        raise core.ParameterError(f"--objects takes --user {', '.join(ROUND_USERS)}, not {a.user}")
    rows = run_images(evaluate_object, items, a.jobs, methods, a.clicks, params, a.max_pixels, a.user,
                      scheduler=a.scheduler)
    summary = click_summary(rows, methods)
    failed = [r for r in rows if r["click"] < 0]
    if not summary:
        why = f"first error: {failed[0]['error']}" if failed else "no image gave a result"
        raise core.SegappError(f"every method failed on every image; {why}")
    atomic_write_text(out, csv_text(rows, methods, CLICK_KEYS, "click"))
    text = table(summary)
    print(text)
    atomic_write_text(summary_path, f"segapp evaluate {' '.join(argv)}\n\n{len(items)} images, K=2, "
                                    f"clicks as {a.clicks}, user {a.user}\n\n{text}\n\nMean IoU after each click:\n\n"
                                    f"{per_click_table(rows, methods)}\n")
    if failed:
        print(f"segapp: warning: {len(failed)} image x method runs failed; first: {failed[0]['error']}",
              file=sys.stderr)
    stuck = [r for r in rows if r["click"] == 0]
    if stuck:
        print(f"segapp: warning: {len(stuck)} image x method runs had no click to make (counted as never "
              f"reaching 0.90); first: {stuck[0]['image']}", file=sys.stderr)
    print(f"{out}, {summary_path.name}")
    return 0


def _progress(n: int, total: int, t0: float) -> None:
    """Images done and time left on a terminal; nothing in a pipe."""
    if not sys.stderr.isatty():
        return
    done, spent = int(30 * n / total), time.perf_counter() - t0
    left = spent / n * (total - n)
    print(f"\r[{'#' * done}{'.' * (30 - done)}] {n}/{total} images, {spent:.0f} s, about {left:.0f} s left",
          end="" if n < total else "\n", file=sys.stderr, flush=True)


def main(argv) -> int:
    from segapp import core
    from segapp.core._io import atomic_write_text
    from segapp.core.eval import bsds

    a = _parser().parse_args(argv)
    check_args(a)
    methods = method_list(a.methods)
    if a.user.startswith("suggestions"):  # the anchors make no suggestions to follow
        left = [m for m in methods if m in ANCHORS]
        methods = [m for m in methods if m not in ANCHORS]
        if not methods:
            raise core.ParameterError(f"--user {a.user} follows segapp's suggestions; {', '.join(left)} "
                                      f"make none: name at least one of {', '.join(core.METHODS)}")
        if left and a.methods != "all":
            print(f"segapp: note: {', '.join(left)} left out: they make no suggestions", file=sys.stderr)
    params = params_per_method(methods, parse_params(a.param))
    out = Path(a.out)
    summary_path, chart_path = out.with_name(out.stem + "_summary.md"), out.with_name(out.stem + "_ari.png")
    check_outputs([out, summary_path, chart_path])
    if a.objects:
        return _main_objects(a, argv, methods, params, out, summary_path)
    items = bsds.with_ground_truth(bsds.find_images(a.bsds, a.split), a.bsds)[: a.limit]
    for it in items:
        bsds.check_item(it)
    rows = run_images(evaluate_image, items, a.jobs, methods, a.segments, a.rounds, a.mode, params,
                      a.max_pixels, a.user, scheduler=a.scheduler)
    people = a.user not in ROUND_USERS
    rounds = max((r["round"] for r in rows), default=0) if people else a.rounds
    summary = people_summary(rows, methods, a.segments) if people else summarise(rows, methods, a.rounds)
    failed = [r for r in rows if r["round"] < 0]
    if not summary:  # nothing to report: the previous results stay as they are
        raise core.SegappError(f"every method failed on every image; first error: {failed[0]['error']}")
    atomic_write_text(out, csv_text(rows, methods))
    text = table(summary)
    print(text)
    atomic_write_text(summary_path, f"segapp evaluate {' '.join(argv)}\n\n{len(items)} images, K={a.segments}, "
                                    f"R={rounds}, {a.mode}, user {a.user}\n\n{text}\n\n"
                                    f"Mean ARI after each round:\n\n{round_table(rows, methods, rounds)}\n")
    chart(rows, methods, rounds, chart_path)
    if failed:
        print(f"segapp: warning: {len(failed)} image x method runs failed (rows with round -1 in {out}); "
              f"first: {' '.join(failed[0]['error'].split())}", file=sys.stderr)
    print(f"{out}, {summary_path.name}, {chart_path.name}")
    return 0
