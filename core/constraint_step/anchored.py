"""Which segment a free must-link group joins, read from the cannot-linked groups (our addition).

Must-links drawn inside regions and cannot-links drawn between them (the regions-first
user: a must-link or two in each region, then a cannot-link between each pair of region
centres) leave the must-link groups *free*: no stroke says which segment each belongs to.
The two colourings of :func:`~core.constraint_step.step._auto_rounding` place them by the
boundary graph's cut and by the method's embedding; at K = 3 they group the strokes right
on 40% of the Berkeley training images (one call, e2cp), and the normalised cut, the only
judge between them, prefers wrong groupings as often as right ones
(``bench/results/tuning.md``, 2026-11-29/30).

Once the cannot-linked groups hold every one of the K colours, they are the segments'
exemplars, and each free group is given the colour whose exemplars it is closest to:

``score(g, c) = sum_{i in g} log P_ic  -  lambda * sum_{i in g} min_{a in A_c} ||F_i - F_a||^2 / f
-  nu * sum_{i in g} ||e_{l_i} - m_c||^2 / s  -  mu * sum_{i in g} min_{a in A_c} ||x_i - x_a|| / d``

* ``P`` -- a harmonic walk on the boundary graph from the cannot-linked groups' nodes
  ``A_c`` (Grady, 2006): how readily a random walker from node ``i`` reaches colour ``c``'s
  exemplars before another's;
* ``F`` -- each node's colour (standardised) and texture (the constraint step's
  multiscale features, :mod:`.texture`), averaged over the node and its graph neighbours
  (``f`` features): what the surroundings of a stroke end look like;
* ``lambda`` -- :data:`~core.constraint_step.params.ANCHORED_LOOKS`;
* ``l`` -- the method's own labels, as the constraint step reads them (``labels0`` of
  :func:`~core.constraint_step.step.constrained_labels`: the method's own result, its
  paper's rounding, computed with the strokes it was given; its result without strokes where
  :func:`~core.constraint_step.stage.unreached_source` says so), ``e_l`` the one-hot vector
  of label ``l``, ``m_c`` the mean of those vectors over colour ``c``'s exemplar nodes
  (which of the method's segments hold them) and ``s`` the mean squared distance between
  the ``m_c``, at least 1 (:func:`own_label_distances`: with exemplars each wholly in a
  segment of their own, 1 per node the method puts elsewhere and 0 per node it puts with
  them; less where the method's labels mix the exemplars): where the method puts
  the group, so that the method decides what the strokes do not, and two methods that read
  the image differently place a free must-link differently;
* ``nu`` -- :data:`~core.constraint_step.params.ANCHORED_METHOD`;
* ``x`` -- each node's position in the image (the mean of its pixels), ``d`` the image's
  diagonal: how near the group lies to colour ``c``'s nearest exemplar. A region is where a
  person sees it, and the must-links drawn inside it lie near the cannot-link drawn from
  it; the walk's probabilities from single nodes are weak evidence (a walker far from
  both ends of a cannot-link reaches either about as readily) and the looks say nothing
  where two regions look alike (the two thatched houses of 385028: every free group went
  with one house's cannot-link end);
* ``mu`` -- :data:`~core.constraint_step.params.ANCHORED_NEAR`.

Measured per must-link (1200 of them, regions-first strokes on the 200 Berkeley training
images, K = 3, one call, e2cp): the walk alone puts 78% in their region's segment, the looks
alone 74%, the score at ``lambda`` = 3 87% (the two colourings' choice 79%); every group of
an image right on 50% of the images against 40%. In the window (the same user), final ARI
0.666 -> 0.680 / 0.682 / 0.684 / 0.686 / 0.678 at ``lambda`` 1.5 / 3 / 6 / 12 / 30, 0.653 with the
walk alone, before a review made the blob rule compare segment by segment and the walk's
system never singular (then 0.682 at 6; ``bench/results/tuning.md``, 2026-11-30). The
method's term (``nu`` = 1; all 200, six methods, before -> after, mean over the methods):
one call K = 2 0.720 -> 0.727, K = 3 0.677 -> 0.684; order dependence 0.063 -> 0.057 and
0.022 -> 0.020; final ARI in the window 0.744 -> 0.744 and 0.686 -> 0.687; ``nu`` = 2 and
the method's embedding in place of its labels were worse for some methods (ssap's
embedding is not what it clusters; ``bench/results/tuning.md``, 2026-11-30, thirty-first
session). The groups that a cannot-link
keeps apart, and the colours the chosen colouring gave them, are not changed; the labels are
the walk from every group's nodes with its colour (every colour is reached: no prior).

The nearness term (``mu`` = 30; forty-third session, ``bench/results/tuning.md``), measured on
the placement alone (regions-first strokes, all 200 training images, one call: each free
group's colour against its region's): free groups placed right at K = 2 92.0% -> 94.8%
(e2cp), 91.1% -> 94.4% (csp), every group of an image right 77.5% -> 83.5% and 76.5% ->
82.0%; at K = 3 85.4% -> 91.0% (e2cp), 85.2% -> 90.5% (csp), 84.1% -> 87.6% (ssap), every
group right 50.0% -> 64.8%, 48.5% -> 63.3%, 43.8% -> 55.2%. Nearness alone places 88.1% /
82.3% (K = 2 / 3, e2cp), the walk alone 81.9% / -, the looks alone 85.0% / -.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .params import ANCHORED_LOOKS, ANCHORED_METHOD, ANCHORED_NEAR


def group_colours(labels: np.ndarray, res, n_groups: int) -> np.ndarray:
    """Each group's segment in ``labels`` (the segment of its first node), shape (n_groups,)."""
    first = np.full(n_groups, -1, np.int64)
    nodes = np.flatnonzero(res.group >= 0)
    grp = res.group[nodes]
    order = np.argsort(grp, kind="stable")
    ids, at = np.unique(grp[order], return_index=True)
    first[ids] = nodes[order][at]
    return np.where(first >= 0, labels[np.maximum(first, 0)], -1)


def harmonic(graph, seeds: np.ndarray, seed_colours: np.ndarray, k: int) -> np.ndarray:
    """Per node, the probability that a random walk on ``graph`` reaches a seed of each colour
    first, shape (n, k) (the Dirichlet problem; nodes no seed connects get uniform rows)."""
    from scipy.sparse.csgraph import connected_components
    from scipy.sparse.linalg import spsolve

    W = sp.csr_matrix(graph, dtype=float, copy=True)
    W.eliminate_zeros()  # a stored zero weight is no edge (the components below would count it)
    n = W.shape[0]
    P = np.full((n, k), 1.0 / k)
    P[seeds] = np.eye(k)[seed_colours]
    _, comp = connected_components(W, directed=False)
    free = np.setdiff1d(np.arange(n), seeds)
    free = free[np.isin(comp[free], comp[seeds])]  # reached by some seed: a solvable system
    if not len(free):
        return P
    d = np.asarray(W.sum(1)).ravel()
    L = (sp.diags(d + 1e-9 * max(float(d.max(initial=0.0)), 1e-12)) - W).tocsr()  # as prior_walk: never singular
    B = -(L[free][:, seeds] @ np.eye(k)[seed_colours])
    X = np.asarray(spsolve(L[free][:, free].tocsc(), B)).reshape(len(free), k)
    if np.isfinite(X).all():
        P[free] = np.clip(X, 0.0, 1.0)
    return P


def own_label_distances(own: np.ndarray, nodes: np.ndarray, node_colour: np.ndarray, k: int) -> np.ndarray:
    """``D``: per node and colour, ``||e_{l_i} - m_c||^2 / s`` of the module docstring (the
    method's labels ``own`` as one-hot vectors, ``m_c`` their mean over colour ``c``'s
    exemplar nodes ``nodes``, coloured ``node_colour``; ``s`` the mean squared distance
    between the ``m_c``, at least 1), shape (n, k).

    With exemplars each wholly in a segment of their own, ``s`` = 2 (the squared distance
    between two one-hot vectors): 1 per node the method puts elsewhere, 0 per node it puts
    with them; at K >= 3 where two colours' exemplars share one of the method's segments,
    ``s`` = 4/3 and the colour the method sets apart weighs 1.5 per node. The floor keeps
    weak evidence weak: where the method's labels barely tell the exemplars apart (block or
    brush groups of many nodes, split alike over its segments), the ``m_c`` lie close, and
    dividing by their small spacing would make a node's term grow without bound; with the
    floor two colours' terms differ by at most ``4 ||m_c - m_c'||`` per node, and not at all
    where the ``m_c`` coincide. A node without a label (``own`` < 0) says nothing: its row is
    0. Every colour needs an exemplar.
    """
    from scipy.spatial.distance import pdist

    own = np.asarray(own, np.int64)
    E = np.eye(max(k, int(own.max(initial=0)) + 1))[np.maximum(own, 0)]
    mu = np.stack([E[nodes[node_colour == c]].mean(0) for c in range(k)])
    D = ((E[:, None, :] - mu[None, :, :]) ** 2).sum(-1) / max(float(np.mean(pdist(mu, "sqeuclidean"))), 1.0)
    D[own < 0] = 0.0
    return D


def surroundings(graph, appearance, texture) -> np.ndarray | None:
    """``F``: each node's standardised colour and texture, averaged over the node and its
    graph neighbours, shape (n, f); None without either."""
    parts = []
    if appearance is not None:
        c = np.asarray(appearance[0], float)
        parts.append((c - c.mean(0)) / (c.std(0) + 1e-9))
    if texture is not None:
        parts.append(np.asarray(texture[0], float))
    if not parts:
        return None
    F = np.hstack(parts)
    A = (sp.csr_matrix(graph) > 0).astype(float) + sp.eye(F.shape[0])
    A = sp.diags(1.0 / np.asarray(A.sum(1)).ravel()) @ A
    return np.asarray(A @ F)


def anchored_colours(colour: np.ndarray, res, free_groups: np.ndarray, graph, k: int,
                     F: np.ndarray | None, looks: float | None = None,
                     margin: float | None = None, own: np.ndarray | None = None,
                     method: float | None = None, scores: dict | None = None,
                     positions: np.ndarray | None = None, near: float | None = None,
                     anchors: np.ndarray | None = None) -> np.ndarray | None:
    """``colour`` (per group) with each group of ``free_groups`` recoloured by the score of
    the module docstring; None where the cannot-linked groups do not hold all ``k`` colours.

    Parameters
    ----------
    colour : ndarray, shape (n_groups,), int
        Each group's colour in the labels chosen so far.
    res : Resolution
    free_groups : ndarray, int
        The groups no cannot-link (or block label) keeps apart from another.
    graph : sparse matrix, shape (n, n)
    k : int
    F : ndarray, shape (n, f), or None
        :func:`surroundings`; None: the walk alone.
    looks : float, optional
        ``lambda`` (None: :data:`ANCHORED_LOOKS`).
    margin : float, optional
        A group moves from ``colour`` only where its best colour's score exceeds that of its
        colour in ``colour`` by more than ``margin`` per node of the group (None: it always
        takes the best): ``colour`` (the labels chosen so far, which at K >= 3 follow the
        result on screen where it honours every stroke, unless the other colouring cut far
        better) keeps a grouping the placement is not sure of.
    own : ndarray, shape (n,), int, optional
        ``l``: the method's own labels (None: no method term).
    method : float, optional
        ``nu`` (None: :data:`ANCHORED_METHOD`).
    scores : dict, optional
        Filled with each free group's ``score(g, .)`` (ndarray, shape (k,)), by group.
    positions : ndarray, shape (n, 2), optional
        ``x / d``: each node's position over the image's diagonal (None: no nearness term).
    near : float, optional
        ``mu`` (None: :data:`ANCHORED_NEAR`).
    anchors : ndarray, int, optional
        The exemplar groups ``A`` (None: the groups a cannot-link or block label keeps apart);
        :func:`~core.constraint_step.regroup.placed_joins` gives the older must-link groups
        the result on screen holds.
    """
    looks = ANCHORED_LOOKS if looks is None else looks
    method = ANCHORED_METHOD if method is None else method
    near = ANCHORED_NEAR if near is None else near
    said = sorted({int(g) for pair in res.apart for g in pair if g >= 0} if anchors is None
                  else {int(g) for g in anchors if g >= 0})
    if not said or not len(free_groups) or len({int(colour[g]) for g in said}) < k:
        return None
    anchor = np.isin(res.group, said)
    nodes = np.flatnonzero(anchor)
    node_colour = colour[res.group[nodes]]
    P = harmonic(graph, nodes, node_colour, k)
    logP = np.log(np.maximum(P, 1e-9))
    out = colour.copy()
    D = None if own is None or not method > 0 else own_label_distances(own, nodes, node_colour, k)
    for g in free_groups.tolist():
        members = np.flatnonzero(res.group == g)
        score = logP[members].sum(0)
        if D is not None:
            score -= method * D[members].sum(0)
        if F is not None and looks > 0:
            for c in range(k):
                ex = F[nodes[node_colour == c]]
                d2 = ((F[members][:, None, :] - ex[None, :, :]) ** 2).sum(-1).min(1) / F.shape[1]
                score[c] -= looks * d2.sum()
        if positions is not None and near > 0:
            for c in range(k):
                ex = positions[nodes[node_colour == c]]
                dist = np.sqrt(((positions[members][:, None, :] - ex[None, :, :]) ** 2).sum(-1)).min(1)
                score[c] -= near * dist.sum()
        if scores is not None:
            scores[g] = score
        best = int(np.argmax(score))
        if margin is None or score[best] - score[colour[g]] > margin * len(members):
            out[g] = best
    return out
