"""``segapp evaluate``'s reports: the summary tables (per round, per people-like user), the
chart and the CSV, from the rows :func:`segapp.cli.evaluate.evaluate_image` makes."""

from __future__ import annotations

import csv
import io

import numpy as np

ANCHOR = "random-walker"
SUMMARY_ROUNDS = (0, 1, 3, 5, 10)
CSV_KEYS = ["image", "method", "round", "ari", "miou", "covering", "voi", "honoured", "newest", "seconds",
            "collapsed", "blob_cannot", "n_cannot", "one_call", "error"]


def by_image(rows, step: str = "round", value: str | None = None) -> dict:
    """``{image: {step: row}}`` (or ``row[value]``) of ``rows``."""
    out: dict = {}
    for r in rows:
        out.setdefault(r["image"], {})[r[step]] = r if value is None else r[value]
    return out


def summarise(rows, methods, rounds):
    """Per method: mean ARI after rounds 0, 1, 3, 5, 10; NoC@0.80 / 0.90; the mean fraction of
    constraints honoured over rounds 1..R (``honoured``) and after round R (``hon@R``); the
    fraction of rounds whose new constraints were all honoured (``newest``); s per round."""
    out = []
    for m in methods:
        mr = [r for r in rows if r["method"] == m and r["round"] >= 0]
        if not mr:
            continue
        by_img = by_image(mr, value="ari")
        rec = {"method": m}
        for t in SUMMARY_ROUNDS:
            if t <= rounds:
                rec[f"ari@{t}"] = float(np.mean([v[t] for v in by_img.values() if t in v]))
        for thr in (0.80, 0.90):
            noc = [next((t for t in range(rounds + 1) if v.get(t, -1) >= thr), rounds + 1) for v in by_img.values()]
            rec[f"noc@{thr:.2f}"] = float(np.mean(noc))
        later = [r for r in mr if r["round"] >= 1]
        rec["honoured"] = _nanmean([r.get("honoured", np.nan) for r in later])
        rec[f"hon@{rounds}"] = _nanmean([r.get("honoured", np.nan) for r in later if r["round"] == rounds])
        rec["newest"] = _nanmean([r.get("newest", np.nan) for r in later])
        rec["s/round"] = float(np.mean([r["seconds"] for r in mr]))
        out.append(rec)
    return out


def people_summary(rows, methods, k):
    """Per method, for a people-like user: mean ARI after the first K strokes (``ari@K``)
    and after the last (``ari@end``); the same constraints in one call (``one-call``) and the
    mean |end - one call| (``order``); the share of strokes that lowered the ARI by more than
    0.05 (``harmful``), of results after K strokes that are collapsed (``collapsed``), of
    cannot-links in the final results honoured only by a blob (``blob-CL``); the share of
    constraints honoured at the end (``hon@end``); seconds per stroke."""
    from segapp.core.eval.people import harmful

    out = []
    for m in methods:
        mr = [r for r in rows if r["method"] == m and r["round"] >= 0]
        if not mr:
            continue
        by_img = by_image(mr)
        ends = [v[max(v)] for v in by_img.values()]
        n_strokes = sum(max(v) for v in by_img.values())
        rec = {"method": m,
               "ari@K": _nanmean([v[k]["ari"] for v in by_img.values() if k in v]),
               "ari@end": _nanmean([e["ari"] for e in ends]),
               "one-call": _nanmean([e.get("one_call", np.nan) for e in ends]),
               "order": _nanmean([abs(e["ari"] - e.get("one_call", np.nan)) for e in ends]),
               "harmful": sum(harmful([v[t]["ari"] for t in sorted(v)]) for v in by_img.values()) / max(n_strokes, 1),
               "collapsed": _nanmean([r["collapsed"] for r in mr if r["round"] >= k]),
               "blob-CL": _blob_share(ends),
               "hon@end": _nanmean([e.get("honoured", np.nan) for e in ends]),
               "s/stroke": float(np.mean([r["seconds"] for r in mr if r["round"] >= 1] or [np.nan]))}
        out.append(rec)
    return out


def _blob_share(ends) -> float:
    """Blob cannot-links in the final results over all cannot-links there (NaN: none)."""
    blobs = sum(e.get("blob_cannot", 0) for e in ends)
    total = sum(e.get("n_cannot", 0) for e in ends)
    return blobs / total if total else float("nan")


def _nanmean(values) -> float:
    v = np.asarray(values, float)
    return float(np.nanmean(v)) if np.isfinite(v).any() else float("nan")


def round_table(rows, methods, rounds) -> str:
    """Mean ARI after every round 0..R, one row per method."""
    lines = ["| method | " + " | ".join(str(t) for t in range(rounds + 1)) + " |",
             "|---|" + "---|" * (rounds + 1)]
    for m in methods:
        vals = [_nanmean([r["ari"] for r in rows if r["method"] == m and r["round"] == t]) for t in range(rounds + 1)]
        lines.append(f"| {m} | " + " | ".join(f"{v:.3f}" for v in vals) + " |")
    return "\n".join(lines)


def table(summary) -> str:
    keys = list(summary[0].keys())
    lines = ["| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    for rec in summary:
        lines.append("| " + " | ".join(rec[k] if isinstance(rec[k], str) else f"{rec[k]:.3f}" for k in keys) + " |")
    return "\n".join(lines)


def chart(rows, methods, rounds, path) -> None:
    """Mean ARI against round, one line per method (drawn with Pillow)."""
    from PIL import Image, ImageDraw

    from segapp.core.render import palette, save_png

    W, H, L, R, T, B = 760, 440, 60, 190, 20, 50
    im = Image.new("RGB", (W, H), "white")
    d = ImageDraw.Draw(im)
    x = lambda t: L + (W - L - R) * t / max(rounds, 1)  # noqa: E731
    y = lambda v: T + (H - T - B) * (1 - v)  # noqa: E731
    for v in np.linspace(0, 1, 6):
        d.line([(L, y(v)), (W - R, y(v))], fill=(225, 225, 225))
        d.text((L - 32, y(v) - 6), f"{v:.1f}", fill="black")
    for t in range(rounds + 1):
        d.text((x(t) - 4, H - B + 6), str(t), fill="black")
    d.rectangle([L, T, W - R, H - B], outline="black")
    d.text((L + (W - L - R) / 2 - 20, H - 22), "round", fill="black")
    d.text((6, T), "mean ARI", fill="black")
    cols = palette(len(methods))
    for i, m in enumerate(methods):
        means = [np.nanmean([r["ari"] for r in rows if r["method"] == m and r["round"] == t] or [np.nan])
                 for t in range(rounds + 1)]
        pts = [(x(t), y(v)) for t, v in enumerate(means) if np.isfinite(v)]
        col = tuple(int(c) for c in cols[i])
        if len(pts) > 1:
            d.line(pts, fill=col, width=3 if m == ANCHOR else 2)
        for px, py in pts:
            d.ellipse([px - 3, py - 3, px + 3, py + 3], fill=col)
        d.line([(W - R + 12, T + 10 + 18 * i), (W - R + 32, T + 10 + 18 * i)], fill=col, width=3)
        d.text((W - R + 38, T + 4 + 18 * i), m, fill="black")
    save_png(path, np.asarray(im))


def csv_text(rows, methods, keys=CSV_KEYS, step: str = "round") -> str:
    """The rows as CSV, by image, method (in ``methods``' order) and ``step``."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=keys, restval="", lineterminator="\n")
    w.writeheader()
    w.writerows(sorted(rows, key=lambda r: (r["image"], methods.index(r["method"]), r[step])))
    return buf.getvalue()
