"""Step 1a of the constraint step: must-links drawn inside the screen's segments stay with the strokes there.

Once every segment on screen holds strokes of its own (as many must-link groups as
segments, their ends in every segment), a person who drags one more must-link inside a
segment means "more of this region", not "a new region". The constraint step, given one
more group than segments, otherwise regroups every group afresh by the normalised cut and
the walk, and often joins two groups of different regions instead (135069, K = 3, e2cp:
must-links in the sky, the eagle and a fish of 0.4% of the image, ARI 0.95; a second
must-link in the sky, and the cut, which a small true region costs dearly, put the fish
with the eagle and split the sky in two: 0.16). The screen's own grouping rule
(:func:`~.step.screen_grouping`) passes such a screen by, as it passes by every screen
with a segment under 3% of the image or a group whose ends lie in two segments.

On an edit that only adds must-links to a result of the same method and settings that
honours every stroke (``ConstraintStep.keep_screen``), and once the older must-links hold
at least K groups whose ends lie in every segment on screen, the must-link groups whose two
ends lie in one segment on screen are joined, below every stroke (:func:`screen_joins`,
:func:`~.resolve.resolve` joins them after the user's strokes, where nothing contradicts).
Both gates matter: before every segment holds strokes, the screen's segments are the
method's, and a region's first must-link inside another region's segment is a new region
(147062's elephant and river); with a cannot-link in the edit the grouping is the
cannot-link's to decide (joined there too, the window locked its early groupings in:
regions-first, K = 3, e2cp, final ARI 0.691 -> 0.678, order dependence 0.017 -> 0.058).
Measured in ``bench/results/tuning.md`` (thirty-third session). Our addition, in no paper.

A must-link the screen does not honour (its ends in two segments on screen), drawn once the
older must-links hold every segment, is placed among them (``place``, given by
:func:`~.stage._placed`): joined to the older groups of the segment whose groups it is
closest to by :func:`~.anchored.anchored_colours` (the walk from them, the looks of the
surroundings, the method's own labels and the nearness in the image), with the older
groups whose ends lie in one segment as the exemplars. Only where the step's own labels
leave the edit's must-link alone in a segment under 3% of the image and the screen holds
no such segment: a must-link drawn after every segment holds strokes of its own joins one
of them, it is not a region of its own (187039, K = 3: the tiger's second must-link, on
its leg, became a 1.3% segment and the tiger's first one went with the grass, ARI 0.71;
placed, 0.81). Placed wherever the screen splits the edit's must-link, it joined the
wrong group as often as not (regions-first, K = 3, e2cp, all 200: harmful fourth strokes
28 -> 40, mean ARI after the fourth 0.633 -> 0.603): the older must-links are long lines
with two exemplar nodes each; ``bench/results/tuning.md``, forty-fourth session.
"""

from __future__ import annotations

import numpy as np

from ..constraints import Kind
from .resolve import resolve


def screen_joins(previous: np.ndarray | None, nc, k: int, place=None) -> list[tuple[int, int]]:
    """Node pairs to join below every stroke: the must-link groups whose ends lie in one
    segment of the result on screen, once the older must-links claim every segment.

    Parameters
    ----------
    previous : ndarray, shape (n,), int, or None
        Each node's segment on screen (-1 unknown); the caller has checked that the edit
        only adds must-links to that result and that it honours every stroke.
    nc : NodeConstraints
        Its ``strokes`` in drawing order; the newest is the edit's.
    k : int
        Segments asked.
    place : callable, optional
        ``place(colour, resolution, group) -> segment or None``: where the edit's must-link
        whose ends lie in two segments on screen goes, given the segment of each group
        whose ends lie in one (-1 for the others; :func:`~.stage._placement`). None: such a
        must-link is not joined.

    Returns
    -------
    list of (int, int)
        Pairs of stroke-end nodes, one per group joined to the first group of its segment;
        empty where the gates fail.
    """
    if previous is None or not nc.strokes or np.shape(previous) != (nc.n_nodes,):
        return []
    res = resolve(nc)
    older = [s for j, s in enumerate(nc.strokes[:-1]) if res.honoured[j] and s.kind == Kind.MUST_LINK]
    claimed = {int(previous[x]) for s in older for x in (s.a, s.b)}
    if claimed != set(range(k)) or len({int(res.group[s.a]) for s in older}) < k:
        return []
    segment = {j: int(previous[s.a]) for j, s in enumerate(nc.strokes)
               if res.honoured[j] and s.kind == Kind.MUST_LINK and previous[s.a] == previous[s.b]}
    new = len(nc.strokes) - 1
    s = nc.strokes[new]
    if place is not None and new not in segment and res.honoured[new] and s.kind == Kind.MUST_LINK:
        colour = np.full(res.n_groups, -1, np.int64)
        for j, c in segment.items():
            colour[res.group[nc.strokes[j].a]] = c
        g = int(res.group[s.a])
        if colour[g] < 0 and len(np.unique(colour[colour >= 0])) == k:
            c = place(colour, res, g)
            if c is not None:
                segment[new] = c
    joins = []
    for c in range(k):
        ends = sorted({int(res.group[nc.strokes[j].a]): nc.strokes[j].a for j, cj in segment.items() if cj == c}.items())
        joins += [(int(a), int(ends[0][1])) for _, a in ends[1:]]
    return joins
