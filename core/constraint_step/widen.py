"""Step 4c of the constraint step: a must-link's sliver widened by what its ends look like.

Step 4's walk labels every node from the stroke ends. Where a must-link is drawn along a
strip of the image (the snow under a wolf, the grass under a bear, from one corner to the
other), the walk from its two ends can leave its segment as two blobs around the ends, a
sliver of the image, while the region it was drawn in holds a tenth of it: 42078 (K = 3,
e2cp), the snow's must-link gives a segment of 2.9% of the image where the snow holds
10.3%; 100080, the grass's 2.1% where the grass holds 13.7%. A person who drags a
must-link across a region asked for the region, not for its ends: with must-links alone,
such a result is the collapse issue "Strokes as people draw them" counts (a segment under
3% while every region of the image holds at least 10%).

Where, with must-links alone (no cannot-link, no two block labels: nothing else yet says
what the segments are), a segment holding a must-link whose ends lie in two pieces of it
(:func:`~.connect.broken_must_links`) is under :data:`~.params.UNREACHED_MIN_SHARE` of the
image (:func:`broken_slivers`), the walk runs once more with Grady's prior model (the prior
of ``rounding_appearance``, :func:`~.looks.appearance_prior`: how much each node's colour
is its strokes' surroundings', weight :data:`~.params.WIDEN_APPEARANCE`), and the sliver
takes the nodes that walk gives it (:func:`widened_labels`); no other node changes, and the
stroke ends keep their segments (every honoured stroke stays honoured). Kept where the
slivers are fewer and none is new; where they are not, the walk runs again with the looks'
weight 10 and 100 times as high (:data:`~.params.WIDEN_STEPS`), the first that grows a
sliver out of it kept, for the slivers with fewer nodes than their must-link's ends lie
steps apart (:func:`_too_few_nodes`: the segment cannot even join its ends, so the region
is larger than it): a must-link along the tree line under the mountains (2092, ssap,
K = 3) or across a ship of the sky's colours (78019) held 1.3% of the image after the first
walk, 5.5% and 7.7% (the ship 20%) after the stronger ones.

Why the gates: a sliver whose must-link lies in one piece is often the image's own small
region (28075: 1.3% of the image, right as a sliver, 0.97 ARI; widened 0.83); once a
cannot-link is drawn the error-centre user's small segments are right more often than
not (widened at every K with cannot-links too, its NoC@0.80 at K = 3 went 3.995 -> 4.230);
growing the sliver only, not re-walking every segment, keeps the others as they were
(re-walked, 28075 fell to 0.22).

Once a cannot-link is drawn (K >= 3), a sliver of free must-links alone (no node of a
cannot-linked group in it, :func:`_free_slivers`) is still widened, but only into the lens
of nodes around its broken must-links (:func:`_lens`): at the first cannot-link the walk gave
187071's third region (csp) back as two blobs, 2.5% of the image, a collapsed result; the
looks' pull alone, unconfined, took patches of wall and drainpipe for 170054's child. The
error-centre user, whose every group is cannot-linked, is not reached. Our addition, in no
paper; measured in ``bench/results/tuning.md`` (thirty-second and forty-seventh sessions).

References
----------
Grady, L. "Multilabel random walker image segmentation using prior models", CVPR 2005.
"""

from __future__ import annotations

import numpy as np

from .connect import broken_must_links
from .looks import _look_samples, appearance_prior, colour_codes
from .params import UNREACHED_MIN_SHARE, WIDEN_APPEARANCE, WIDEN_LENS, WIDEN_STEPS
from .resolve import Resolution, _seed_nodes
from .step import _shares
from .texture import edit_texture_walk


def broken_slivers(labels: np.ndarray, resolution: Resolution, nc, graph, k: int, sizes: np.ndarray) -> list[int]:
    """The segments of ``labels`` under :data:`~.params.UNREACHED_MIN_SHARE` of the image
    (node sizes ``sizes``) that hold an honoured must-link whose two ends lie in different
    pieces of the segment (:func:`~.connect.broken_must_links`), sorted."""
    share = _shares(labels, k, sizes)
    if not (share < UNREACHED_MIN_SHARE).any():
        return []  # no sliver: the pieces of the segments are not needed
    broken = {int(labels[s.a]) for s in broken_must_links(nc, resolution, labels, graph)}
    return sorted(c for c in broken if share[c] < UNREACHED_MIN_SHARE)


def widened_labels(labels: np.ndarray, resolution: Resolution, nc, graph, k: int, prior_weight: float,
                   appearance, texture=None, texture_weight: float = 0.0) -> np.ndarray | None:
    """``labels`` with each must-link's sliver widened by what its ends look like, or None
    (module docstring).

    Parameters
    ----------
    labels : ndarray, shape (n,), int
        The constraint step's labels (steps 2-4).
    resolution : Resolution
        The strokes as the step settled them.
    nc : NodeConstraints
    graph : sparse matrix, shape (n, n)
        The boundary graph of step 4's walk.
    k : int
    prior_weight : float
        ``rounding_prior`` (the walk's weight where :data:`~.params.WIDEN_APPEARANCE` is lower).
    appearance : tuple (colors (n, 3), sizes (n,))
        What the nodes look like and how many pixels each holds.
    texture, texture_weight
        Step 4's walk (the nodes' texture, ``rounding_texture``).

    Returns
    -------
    ndarray, shape (n,), int64, or None
        None where no segment is a broken must-link's sliver (once a cannot-link or two
        block labels are drawn: at K < 3, or where no such sliver is of free must-links
        alone), or where the walk leaves as many slivers or a new one.
    """
    if appearance is None or resolution.n_groups == 0 or (resolution.apart and k < 3):
        return None
    labels = np.asarray(labels, np.int64)
    sizes = np.asarray(appearance[1], float)
    slivers = broken_slivers(labels, resolution, nc, graph, k, sizes)
    lens = None
    if resolution.apart and slivers:  # a cannot-link is drawn: free must-links' slivers, in their lens
        slivers = _free_slivers(slivers, labels, resolution)
        if slivers:
            lens = _lens(slivers, labels, resolution, nc, graph)
    if not slivers:
        return None
    seeds = _seed_nodes(nc, resolution)
    colour_of = np.full(resolution.n_groups, -1, np.int64)
    colour_of[resolution.group[seeds]] = labels[seeds]
    sample = _look_samples(nc, resolution)  # the nodes each group's ends stand for
    owner = np.where(sample >= 0, colour_of[np.maximum(sample, 0)], -1)
    prior = appearance_prior(colour_codes(appearance), owner, k)
    before = set(np.flatnonzero(_shares(labels, k, sizes) < UNREACHED_MIN_SHARE).tolist())
    for i, scale in enumerate(WIDEN_STEPS):  # the looks' pull, stronger until a sliver grows out of it
        if i == 1:  # the stronger pulls only for the slivers that cannot join their ends
            slivers = _too_few_nodes(slivers, labels, resolution, nc, graph)
            if not slivers:
                return None
        weight = max(float(prior_weight), WIDEN_APPEARANCE * scale)
        walked = edit_texture_walk(nc, graph, seeds, labels[seeds], prior, weight, texture, texture_weight)
        grow = np.isin(walked, slivers) & ~np.isin(labels, slivers)  # the slivers only grow
        if lens is not None:
            grow &= lens
        new = labels.copy()
        new[grow] = walked[grow]
        after = set(np.flatnonzero(_shares(new, k, sizes) < UNREACHED_MIN_SHARE).tolist())
        if after < before:
            return new
    return None


def _free_slivers(slivers: list, labels: np.ndarray, resolution: Resolution) -> list:
    """The ``slivers`` that no node of a cannot-linked group (or of a labelled block) lies
    in: segments of free must-links alone, which the cannot-links say nothing about."""
    touched = np.zeros(resolution.n_groups, bool)
    for pair in resolution.apart:
        for g in pair:
            if 0 <= g < resolution.n_groups:
                touched[g] = True
    nodes = resolution.group >= 0
    held = set(np.unique(labels[nodes][touched[resolution.group[nodes]]]).tolist())
    return [c for c in slivers if c not in held]


def _lens(slivers: list, labels: np.ndarray, resolution: Resolution, nc, graph) -> np.ndarray:
    """The nodes a free must-link's sliver may grow into once a cannot-link is drawn, shape
    (n,), bool: for each broken must-link of the ``slivers``, the nodes whose unweighted
    hops on ``graph`` to its two ends sum to at most :data:`~.params.WIDEN_LENS` times the
    hops between the ends (a lens around the stroke). The region a must-link was drawn in
    lies along it; the looks' prior alone pulled nodes of the ends' colours from anywhere
    (170054: patches of wall and drainpipe for a child's must-link)."""
    from scipy.sparse.csgraph import shortest_path

    lens = np.zeros(len(labels), bool)
    for s in broken_must_links(nc, resolution, labels, graph):
        if labels[s.a] in slivers:
            hops = shortest_path(graph, unweighted=True, directed=False, indices=[s.a, s.b])
            lens |= hops[0] + hops[1] <= WIDEN_LENS * hops[0, s.b]
    return lens


def _too_few_nodes(slivers: list, labels: np.ndarray, resolution: Resolution, nc, graph) -> list:
    """The ``slivers`` with fewer nodes than one of their broken must-links' ends lie steps
    apart on ``graph`` (unweighted): too few to join the ends at all, so the region the
    must-link was drawn in is larger than anything the segment shows (ssap, K = 3, the
    third must-link: on 2092 the segment is the two end nodes, 9 steps apart; on 78019 the
    same, 4 steps apart). A sliver that could hold a path between its ends may be the small
    region itself (368016: 6 nodes, the ends 2 steps apart, a must-link of 57 pixels in a
    region of 1.5% of the image, right as a sliver at ARI 0.89; the stronger pull grew it to
    15% and 0.71)."""
    from scipy.sparse.csgraph import shortest_path

    out, broken = [], broken_must_links(nc, resolution, labels, graph)
    for c in slivers:
        ends = [(s.a, s.b) for s in broken if labels[s.a] == c]
        if not ends:
            continue
        hops = shortest_path(graph, unweighted=True, directed=False, indices=[a for a, _ in ends])
        if max(hops[i, b] for i, (_, b) in enumerate(ends)) > int(np.sum(labels == c)):
            out.append(c)
    return out
