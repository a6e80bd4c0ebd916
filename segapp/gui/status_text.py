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
    far = (result.info or {}).get("grounded", 0)
    if far:
        parts.append(f"{far} node{'s' if far > 1 else ''} far from every block went to the segment along "
                     "the image's edge")
    if (result.info or {}).get("widened"):
        parts.append("a must-link's segment was two blobs around its ends: it now takes what around the "
                     "stroke looks like its ends")
    grouped = (result.info or {}).get("screen_groups", 0)
    if grouped:
        parts.append(f"{grouped} must-link{'s' if grouped > 1 else ''} drawn inside a segment on screen "
                     f"kept with the strokes there")
    if (result.info or {}).get("one_call_unslivered"):
        parts.append("the strokes were read afresh, without the result on screen (with it, a segment "
                     "would have shrunk to a blob under 3% of the image that no must-link holds)")
    if (result.info or {}).get("unreached_filled"):
        parts.append("a segment no stroke reached would have been a sliver under 3% of the image: it now "
                     "holds the must-link that cuts the image best (a cannot-link from it says otherwise)")
    if (result.info or {}).get("kept_healthy"):
        parts.append("the result on screen already agreed with the new stroke and is kept (the new "
                     "labels would have shrunk a segment to under 3% of the image)")
    elif (result.info or {}).get("kept_screen"):
        parts.append("the result on screen already agreed with the new must-link and is kept (the new "
                     "labels cut the image no better)")
    line = " · ".join(parts)
    if result.warnings:
        more = f" (+{len(result.warnings) - 1} more)" if len(result.warnings) > 1 else ""
        line += f"  ⚠ {result.warnings[0]}{more}"
    return line


def ordinal(i: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``, ``11th``, ``21st`` of the 0-based index ``i``: strokes
    are named in the order they were drawn, counted from 1 as a person counts them."""
    n = int(i) + 1
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def result_tooltip(result) -> str:
    """Constraints the result does not honour (``not honoured (drawn dashed): the 3rd
    cannot-link, …``), the cannot-links only a small segment keeps apart, warnings."""
    lines = []
    bad = result.not_honoured()
    if bad:
        listed = ", ".join(f"the {ordinal(i)} {Kind(k).label}" for k, i in bad[:MAX_LISTED])
        more = f" and {len(bad) - MAX_LISTED} more" if len(bad) > MAX_LISTED else ""
        lines.append(f"not honoured (drawn dashed): {listed}{more}")
    small = (result.info or {}).get("small_cannot_links") or []
    if small:
        listed = ", ".join(f"the {ordinal(i)} cannot-link ({float(s):.1%})" for i, s in small[:MAX_LISTED])
        lines.append(f"kept apart only by a segment under 3% of the image (drawn dashed): {listed}; where an "
                     "end's region is larger than that, a must-link inside the region lets the cut find it")
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
    """``the 2nd and 3rd cannot-links (dashed) are kept apart only by a 2.9% segment: …`` (the
    share of the image) for the cannot-links whose end lies in a segment under 3% of the image
    (``info['small_cannot_links']``, :func:`core.eval.metrics.small_cannot_links`), or "".
    Short enough for the status bar of a 1366-pixel window with the rest of its line; the
    tooltip lists each share and repeats the advice."""
    small = (result.info or {}).get("small_cannot_links") or []
    if not small:
        return ""
    names = [ordinal(i) for i, _ in small[:MAX_LISTED]]
    share = min(float(s) for _, s in small)
    if len(names) == 1:
        return (f"the {names[0]} cannot-link (dashed) is kept apart only by a {share:.1%} segment: if that end’s "
                "region is larger, draw a must-link in it")
    which = ", ".join(names[:-1]) + f" and {names[-1]}"
    return (f"the {which} cannot-links (dashed) are kept apart only by a {share:.1%} segment: if their regions are "
            "larger, draw a must-link in each")
