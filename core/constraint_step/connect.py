"""Step 4b of the constraint step: each must-link's ends joined through their segment.

A person who drags a must-link between two points of one region means "this is one
region": the ends should lie in one piece of their segment. Step 4's walk labels every node
from the stroke ends, and where the region between two far-apart ends is long, thin or
textured, a segment can hold the two ends as two separate pieces with another segment
between them: the stroke honoured, the region not (108073, the tiger: its back and its nose
in one segment, the body between them in the water's).

Where the labels leave an honoured must-link's ends in different connected pieces of their
segment (:func:`broken_must_links`, pieces of the same-label subgraph of the boundary graph),
the cheapest path between the ends on that graph (:func:`cheapest_path`; edge cost
``1 / w_ij``, Dijkstra: through the region, not across its edges) becomes seeds of the
stroke's segment and the walk of step 4 runs again (:func:`connected_labels`). Those labels
replace the old ones only where their normalised cut on the graph (:func:`labels_ncut`, the
criterion every spectral method relaxes) is no higher: a must-link between two objects that
do not touch, whose path must cross another region, leaves the labels as they were; so do
new labels with a segment under :data:`~.params.UNREACHED_MIN_SHARE` of the image that the
old ones did not have (a path through the narrow part of the other segment can take nearly
all of it: 15004), or that relabel more than :data:`~.params.CONNECT_MAX_CHANGE` of the
image: a join is local, and a path through the water that floods 72% of the image with the
tiger's segment cuts the graph lower and is wrong (108073, error-centre user, ARI 0.78 ->
-0.08). :func:`~.stage.apply_step` runs it at K = 2 on labels that replace the
screen: at K = 3 it cost harmful strokes on the training images, and compared with the
screen, joined labels that cut the graph better but are wrong won against a right screen
(80099). Our addition, in no paper; measured in ``bench/results/tuning.md`` (2026-11-27,
fifteenth session).

References
----------
Dijkstra, E. W. "A note on two problems in connexion with graphs", Numerische Mathematik 1
(1959). Grady, L. "Random walks for image segmentation", TPAMI 28(11), 2006.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..constraints import Kind
from .ncut import labels_ncut
from .params import CONNECT_MAX_CHANGE, UNREACHED_MIN_SHARE
from .resolve import Resolution, _seed_nodes
from .texture import edit_texture_walk


def label_pieces(graph, labels: np.ndarray) -> np.ndarray:
    """The connected piece of each node within its segment, shape (n,), int: components of
    ``graph``'s edges whose two nodes share a label."""
    from scipy.sparse.csgraph import connected_components

    W = sp.coo_matrix(graph)
    same = (labels[W.row] == labels[W.col]) & (W.data > 0)
    A = sp.csr_matrix((np.ones(int(same.sum())), (W.row[same], W.col[same])), shape=W.shape)
    return connected_components(A, directed=False)[1]


def broken_must_links(nc, resolution: Resolution, labels: np.ndarray, graph) -> list:
    """The honoured must-link strokes of ``nc`` whose two end nodes lie in different pieces
    of their segment (:func:`label_pieces`)."""
    pieces = label_pieces(graph, np.asarray(labels, np.int64))
    return [s for k, s in enumerate(nc.strokes)
            if resolution.honoured[k] and s.kind == Kind.MUST_LINK and pieces[s.a] != pieces[s.b]]


def cheapest_path(graph, a: int, b: int) -> np.ndarray:
    """The nodes of the cheapest path from ``a`` to ``b`` on ``graph`` (edge cost
    ``1 / w_ij``; Dijkstra), both ends included, in order; empty when none exists."""
    from scipy.sparse.csgraph import dijkstra

    C = sp.csr_matrix(graph, dtype=float, copy=True)
    C.eliminate_zeros()
    C.data = 1.0 / C.data
    _, pred = dijkstra(C, indices=int(a), return_predecessors=True)
    path, x = [int(b)], int(b)
    while x != a:
        x = int(pred[x])
        if x < 0:
            return np.empty(0, np.int64)
        path.append(x)
    return np.array(path[::-1], np.int64)


def connected_labels(labels: np.ndarray, resolution: Resolution, nc, graph, k: int, prior_weight: float,
                     texture=None, texture_weight: float = 0.0,
                     sizes: np.ndarray | None = None) -> tuple[np.ndarray, int] | None:
    """Labels in which every honoured must-link's ends are joined through their segment, or
    None (module docstring).

    Parameters
    ----------
    labels : ndarray, shape (n,), int
        The constraint step's labels (step 4).
    resolution : Resolution
        The strokes as the step settled them.
    nc : NodeConstraints
    graph : sparse matrix, shape (n, n)
        The boundary graph of step 4's walk.
    k : int
    prior_weight, texture, texture_weight
        Step 4's walk (``rounding_prior``, the nodes' texture, ``rounding_texture``).
    sizes : ndarray, shape (n,), optional
        Each node's pixels (ones without): the new labels must not hold a segment under
        :data:`~.params.UNREACHED_MIN_SHARE` of the image that ``labels`` do not.

    Returns
    -------
    (labels, n_broken) or None
        The new labels, shape (n,), int64, and how many must-links were broken; None where
        none is, or where the walk from the paths cuts the graph worse (higher normalised
        cut) than ``labels`` or leaves a new sliver (a path through another segment's
        narrow part can take nearly all of it).
    """
    labels = np.asarray(labels, np.int64)
    broken = broken_must_links(nc, resolution, labels, graph)
    if not broken:
        return None
    seeds = _seed_nodes(nc, resolution)
    fixed = dict(zip(seeds.tolist(), labels[seeds].tolist()))
    for s in broken:  # the path's nodes take the stroke's segment; stroke ends keep theirs
        for x in cheapest_path(graph, s.a, s.b):
            fixed.setdefault(int(x), int(labels[s.a]))
    nodes = np.array(sorted(fixed), np.int64)
    prior = np.zeros((len(labels), k))
    prior[np.arange(len(labels)), labels] = 1.0
    prior[:, np.unique(labels[seeds])] = 0.0  # as step 4: reached segments from their seeds only
    new = edit_texture_walk(nc, graph, nodes, np.array([fixed[x] for x in nodes], np.int64), prior,
                            prior_weight, texture, texture_weight)
    if labels_ncut(graph, new, k) > labels_ncut(graph, labels, k):
        return None
    w = np.ones(len(labels)) if sizes is None else np.asarray(sizes, float)
    small = [np.bincount(x, weights=w, minlength=k)[:k] < UNREACHED_MIN_SHARE * w.sum() for x in (new, labels)]
    if (small[0] & ~small[1]).any():
        return None
    if w[new != labels].sum() > CONNECT_MAX_CHANGE * w.sum():
        return None  # a join, not a new segmentation

    return new, len(broken)
