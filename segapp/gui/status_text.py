"""The status bar's words for a result: one line, and a tooltip with the details."""

from __future__ import annotations

import numpy as np

from segapp.core.constraints import Kind

MAX_LISTED = 20


def result_line(result, counts: dict, ari: float | None = None, annotator: int | None = None) -> str:
    """``csp · 707 nodes · 312 ms · 1 must-link, 0 cannot-link, 0 blocks · ARI … · ⚠ …``."""
    parts = [result.method, f"{result.n_nodes} nodes", f"{result.seconds * 1000:.0f} ms",
             f"{counts['must_link']} must-link, {counts['cannot_link']} cannot-link, {counts['blocks']} blocks"]
    if ari is not None:
        parts.append(f"ARI {ari:.3f} vs annotator {annotator}")
    bad = result.not_honoured()
    if bad:
        parts.append(f"{len(bad)} not honoured")
    small = small_note(result)
    if small:
        parts.append(small)
    note = empty_note(result)
    if note:
        parts.append(f"⚠ {note}")
    source = (result.info or {}).get("unreached_from")
    if source == "graph":
        parts.append(f"{result.method} gave one segment: the segments no stroke reached follow the "
                     "image's normalised cut")
    elif source == "unconstrained":
        parts.append(f"{result.method} gave a blob around the strokes: the segments no stroke reached "
                     f"follow {result.method} without strokes")
    joined = (result.info or {}).get("connected_must_links", 0)
    if joined:
        parts.append(f"{joined} must-link{'s' if joined > 1 else ''} joined through {'their' if joined > 1 else 'its'} "
                     "segment (the walk from the ends alone left them in two pieces)")
    if (result.info or {}).get("kept_screen"):
        parts.append("the result on screen already agreed with the new must-link and is kept (the new "
                     "labels cut the image no better)")
    line = " · ".join(parts)
    if result.warnings:
        more = f" (+{len(result.warnings) - 1} more)" if len(result.warnings) > 1 else ""
        line += f"  ⚠ {result.warnings[0]}{more}"
    return line


def result_tooltip(result) -> str:
    """Constraints the result does not honour (``not honoured: cannot-link #2, …``), warnings."""
    lines = []
    bad = result.not_honoured()
    if bad:
        listed = ", ".join(f"{Kind(k).label} #{i}" for k, i in bad[:MAX_LISTED])  # 0-based, as core numbers them
        more = f" and {len(bad) - MAX_LISTED} more" if len(bad) > MAX_LISTED else ""
        lines.append(f"not honoured (drawn dashed): {listed}{more}")
    small = (result.info or {}).get("small_cannot_links") or []
    if small:
        listed = ", ".join(f"cannot-link #{int(i)} ({float(s):.1%})" for i, s in small[:MAX_LISTED])
        lines.append(f"kept apart only by a segment under 3% of the image (drawn dashed): {listed}")
    lines.extend(result.warnings)
    return "\n".join(lines)


def empty_segments(result) -> list[int]:
    """Indices of the segments no node was given."""
    k = int(result.n_segments)
    return [int(i) for i in np.flatnonzero(np.bincount(np.asarray(result.node_labels), minlength=k)[:k] == 0)]


def empty_note(result) -> str:
    """``K = 3 asked, 2 non-empty (segment #2 is empty)``, or "" when every segment has pixels."""
    empty = empty_segments(result)
    if not empty:
        return ""
    k = int(result.n_segments)
    which = ", ".join(f"#{i}" for i in empty)
    return f"K = {k} asked, {k - len(empty)} non-empty (#{which[1:]} empty)"


def small_note(result) -> str:
    """``cannot-link #1 kept apart only by a segment of 1.6% of the image: …`` for the
    cannot-links whose end lies in a segment under 3% of the image
    (``info['small_cannot_links']``, :func:`core.eval.metrics.small_cannot_links`), or ""."""
    small = (result.info or {}).get("small_cannot_links") or []
    if not small:
        return ""
    which = ", ".join(f"#{int(i)}" for i, _ in small[:MAX_LISTED])
    plural = "s" if len(small) > 1 else ""
    share = min(float(s) for _, s in small)
    return (f"cannot-link{plural} {which} (drawn dashed) kept apart only by a segment of {share:.1%} of the "
            f"image: if "
            f"{'those ends’ regions are' if plural else 'that end’s region is'} larger, draw a must-link inside "
            f"{'each' if plural else 'it'}")
