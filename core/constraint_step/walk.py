"""Step 4 of the constraint step, the random walk with a prior, and the helpers that relate the
method's labels, the previous result and the final labels."""

from __future__ import annotations

import numpy as np

def prior_walk(W, seeds: np.ndarray, seed_labels: np.ndarray, prior: np.ndarray, weight) -> np.ndarray:
    """Random walk with a prior (Grady, "Multilabel random walker image segmentation using
    prior models", CVPR 2005): labels of the free nodes minimising, per label ``l``,
    ``sum_ij W_ij (x_il - x_jl)^2 + weight_l sum_i d_i (x_il - p_il)^2`` with ``x`` fixed to
    the one-hot seed labels on ``seeds``; each node takes its largest ``x_il``.

    Parameters
    ----------
    W : sparse matrix or ndarray, shape (n, n)
    seeds : ndarray, shape (s,), int
    seed_labels : ndarray, shape (s,), int
    prior : ndarray, shape (n, K)
        One row per node (rows of seeds are ignored).
    weight : float or ndarray, shape (K,)
        The prior's weight, one for all labels or one per label (0: the harmonic labelling
        of Grady 2006 for that label).

    Returns
    -------
    labels : ndarray, shape (n,), int64
    """
    import scipy.sparse as sp
    import scipy.sparse.linalg as sla

    n, k = prior.shape
    W = sp.csr_matrix(W)
    d = np.asarray(W.sum(1)).ravel()
    free = np.ones(n, bool)
    free[seeds] = False
    u = np.flatnonzero(free)
    labels = np.empty(n, np.int64)
    labels[seeds] = seed_labels
    if len(u) == 0:
        return labels
    Y = np.zeros((len(seeds), k))
    Y[np.arange(len(seeds)), seed_labels] = 1.0
    weights = np.broadcast_to(np.asarray(weight, float), (k,))
    Wuu, Wus = W[u][:, u], W[u][:, seeds]
    X = np.empty((len(u), k))
    for wt in np.unique(weights):  # one factorisation per distinct weight (at most two here)
        cols = np.flatnonzero(weights == wt)
        du = d[u] * (1.0 + wt) + 1e-9 * max(d.max(), 1e-12)
        A = (sp.diags(du) - Wuu).tocsc()
        rhs = np.asarray(Wus @ Y[:, cols]) + wt * d[u, None] * prior[u][:, cols]
        X[:, cols] = sla.splu(A).solve(rhs)
    labels[u] = np.argmax(X, axis=1)
    return labels


def overruled_nodes(method_labels: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Where the constraint step decided otherwise than the method: nodes whose final
    segment is not the one their method segment became (each method segment matched to the
    final segment it overlaps most, Hungarian on the node counts), shape (n,), bool."""
    from scipy.optimize import linear_sum_assignment

    a, b = np.asarray(method_labels, np.int64), np.asarray(labels, np.int64)
    k = int(max(a.max(initial=0), b.max(initial=0))) + 1
    overlap = np.zeros((k, k))
    np.add.at(overlap, (a, b), 1.0)
    rows, cols = linear_sum_assignment(-overlap)
    to = np.arange(k)
    to[rows] = cols
    return to[a] != b


def _follow_numbering(labels: np.ndarray, previous: np.ndarray, k: int) -> np.ndarray:
    """``labels`` renumbered so that each segment takes the number of the previous result's
    segment it overlaps most (Hungarian on the overlap of the nodes with a previous
    segment), so that the method's centroids and the previous segments speak of the same
    segment by the same number."""
    from scipy.optimize import linear_sum_assignment

    known = (previous >= 0) & (previous < k) & (labels >= 0) & (labels < k)
    overlap = np.zeros((k, k))
    np.add.at(overlap, (labels[known], previous[known]), 1.0)
    rows, cols = linear_sum_assignment(-overlap)
    perm = np.arange(k)
    perm[rows] = cols
    out = labels.copy()
    ok = (labels >= 0) & (labels < k)
    out[ok] = perm[labels[ok]]
    return out


def _centroids(E: np.ndarray, labels: np.ndarray, k: int, fallback: np.ndarray) -> np.ndarray:
    mu = fallback.copy()
    for c in range(k):
        sel = labels == c
        if sel.any():
            mu[c] = E[sel].mean(0)
    return mu
