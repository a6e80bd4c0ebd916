"""``segapp evaluate --objects FOLDER``: the field's click protocol (NoC@85 / NoC@90) on a
folder of images with binary object masks (the GrabCut layout), every method and random
walker in the same run (:mod:`core.eval.clicks`)."""

from __future__ import annotations

import numpy as np

CLICK_KEYS = ["image", "method", "click", "iou", "positive", "seconds", "ceiling", "error"]
SHOWN_CLICKS = (1, 3, 5, 10, 20)
NO_CLICK = "no click to make: no suggestion on a pixel the mask cares about"


def evaluate_object(item, methods, mode, params, max_pixels=None, user="error-centre"):
    """Rows for one image: one per method and click (runs in a joblib worker). A file that
    cannot be read gives one error row per method. ``user``: the field's clicker
    (``error-centre``), ``suggestions`` (segapp's suggestions, answered from the mask) or
    ``random-in-error``."""
    import zlib

    import warnings

    from segapp import core
    from segapp.core.eval import clicks
    from segapp.core.eval.baselines import random_walker_segmenter

    try:
        image = core.load_image(item.image, max_pixels=max_pixels)
        mask = clicks.load_mask(item.mask, image.shape)
    except core.SegappError as e:
        return [{"image": item.id, "method": m, "click": -1, "error": str(e)} for m in methods]
    target = np.where(mask == 255, 0, 1).astype(np.int32)  # the random walker's true labels
    target[mask == 128] = -1
    rows = []
    for m in methods:
        shown = {}

        def seg_fn(c, m=m, shown=shown):
            if m == "random-walker":
                return random_walker_segmenter(image, c, target, 2)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                seg = core.segment(image, c, method=m, n_segments=2, previous=shown.get("seg"), **params[m])
            shown["seg"], shown["cons"] = seg, c
            return seg.labels
        clicker = None
        if user.startswith("suggestions"):
            from .evaluate import _committee

            committee = _committee(image, 2, m) if user == "suggestions" else None
            clicker = clicks.suggestion_clicker(shown, seg_fn, committee)
        elif user == "random-in-error":
            rng = np.random.RandomState(zlib.crc32(item.id.encode()))
            clicker = lambda pred, mk, done, rng=rng: clicks.random_click(pred, mk, done, rng)  # noqa: E731
        before = len(rows)
        try:
            for r in clicks.run_clicks(mask, seg_fn, mode, clicker=clicker):
                rows.append({"image": item.id, "method": m, **r})
        except core.SegappError as e:
            rows.append({"image": item.id, "method": m, "click": -1, "error": str(e)})
            continue
        if len(rows) == before:  # the user had nothing to click (no suggestion on a cared pixel)
            rows.append({"image": item.id, "method": m, "click": 0, "iou": 0.0, "error": NO_CLICK})
            continue
        if "seg" in shown and rows:  # the representation's ceiling, on the method's nodes of the last call
            seg = shown["seg"]
            nodes = seg.representation if seg.refinement is None else seg.refinement.base
            rows[-1]["ceiling"] = clicks.ceiling(nodes, mask, seg.params)
    return rows


def click_summary(rows, methods) -> list[dict]:
    """Per method: NoC@85, NoC@90, images never reaching 0.90, mean IoU after clicks 1, 3,
    5, 10, 20 (an image that reached 0.90 keeps its last IoU), median seconds per click,
    and the representation's ceiling (mean; images under 0.90). An image on which the user
    had no click to make (a ``click`` 0 row) counts as never reaching either threshold, with
    IoU 0 after every click."""
    from segapp.core.eval.clicks import MAX_CLICKS, noc

    out = []
    for m in methods:
        mr = [r for r in rows if r["method"] == m and r["click"] >= 1]
        by_img = _by_image_with_stuck(rows, m)
        if not by_img:
            continue
        rec = {"method": m,
               "NoC@85": float(np.mean([noc(v, 0.85) for v in by_img.values()])),
               "NoC@90": float(np.mean([noc(v, 0.90) for v in by_img.values()])),
               "never@90": int(sum(noc(v, 0.90) >= MAX_CLICKS and max(v.values(), default=0.0) < 0.90
                                   for v in by_img.values()))}
        for k in SHOWN_CLICKS:
            rec[f"iou@{k}"] = float(np.mean([v[max(c for c in v if c <= k)] if any(c <= k for c in v) else 0.0
                                             for v in by_img.values()]))
        rec["s/click"] = float(np.median([r["seconds"] for r in mr])) if mr else float("nan")
        ceil = [r["ceiling"] for r in mr if r.get("ceiling") is not None]
        rec["ceiling"] = float(np.mean(ceil)) if ceil else float("nan")
        rec["ceiling<0.90"] = int(sum(c < 0.90 for c in ceil)) if ceil else 0
        out.append(rec)
    return out


def per_click_table(rows, methods) -> str:
    """Mean IoU after every click 1..20, one row per method (an image that reached 0.90
    keeps its last IoU)."""
    from segapp.core.eval.clicks import MAX_CLICKS

    lines = ["| method | " + " | ".join(str(k) for k in range(1, MAX_CLICKS + 1)) + " |",
             "|---|" + "---|" * MAX_CLICKS]
    for m in methods:
        by_img = _by_image_with_stuck(rows, m)
        if not by_img:
            continue
        vals = [np.mean([v[max(c for c in v if c <= k)] if any(c <= k for c in v) else 0.0 for v in by_img.values()])
                for k in range(1, MAX_CLICKS + 1)]
        lines.append(f"| {m} | " + " | ".join(f"{x:.3f}" for x in vals) + " |")
    return "\n".join(lines)


def _by_image_with_stuck(rows, method) -> dict:
    """``{image: {click: iou}}`` of ``method``'s clicks, with ``{}`` for an image on which
    the user had no click to make (its ``click`` 0 row)."""
    from .evaluate_report import by_image

    out = by_image([r for r in rows if r["method"] == method and r["click"] >= 1], "click", "iou")
    for r in rows:
        if r["method"] == method and r["click"] == 0:
            out.setdefault(r["image"], {})
    return out
