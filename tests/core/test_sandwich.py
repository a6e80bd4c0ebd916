"""``B M B^T`` updated stroke by stroke (core.spectral.sandwich): csp's dense solve of eq. 15
and e2cp's eq. 3 keep their last product and add a stroke's rows to it."""

import numpy as np
import scipy.sparse as sp

from segapp.core.graph.cache import GraphCache
from segapp.core.graph.node_constraints import NodeConstraints as NC
from segapp.core.methods import e2cp
from segapp.core.spectral.sandwich import new_holder, sandwich


def _links(rng, n, m):
    """``m`` random links among ``n`` nodes as a symmetric sparse matrix, and the links."""
    pairs = rng.choice(n, size=(m, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    w = np.where(rng.rand(len(pairs)) < 0.6, 1.0, -1.0)
    return pairs, w


def _matrix(n, pairs, w):
    M = sp.coo_matrix((np.r_[w, w], (np.r_[pairs[:, 0], pairs[:, 1]], np.r_[pairs[:, 1], pairs[:, 0]])), shape=(n, n))
    return M.tocsr()


def test_the_updated_product_is_the_fresh_one_over_a_session(rng):
    """Stroke after stroke, after an undo, after another stroke set and after another basis:
    the product equals ``B M B^T`` to rounding; it is updated where a stroke changed few
    rows and formed afresh otherwise."""
    n = 120
    B = rng.randn(80, n)
    pairs, w = _links(rng, n, 90)
    last = new_holder()
    seq = [(B, _matrix(n, pairs[:m], w[:m])) for m in range(40, 50)]
    seq += [seq[-3], (B, _matrix(n, pairs[::-1][:45], w[::-1][:45])), (B.copy(), seq[-3][1])]
    updates = []
    for Bi, M in seq:
        P = sandwich(Bi, M, last)
        assert np.allclose(P, Bi @ M.toarray() @ Bi.T, rtol=1e-12, atol=1e-12 * np.abs(P).max())
        assert not P.flags.writeable
        updates.append(last["was"][2])
    assert updates == list(range(10)) + [10, 0, 0]  # fresh, nine updates, the undo; new set; new basis


def test_e2cp_kept_per_graph_is_the_one_shot_propagation(rng):
    """e2cp with its graph's cache, fed a growing session, gives every stroke the affinity
    and labels of a call without a cache (eq. 3 formed afresh)."""
    x = np.r_[rng.randn(60, 2), rng.randn(60, 2) + [3, 0]]
    K = np.exp(-((x[:, None] - x[None]) ** 2).sum(-1) / 2)
    pairs, w = _links(rng, 120, 60)
    same = np.arange(len(pairs))[(pairs[:, 0] < 60) == (pairs[:, 1] < 60)]
    cache = GraphCache()
    for m in range(30, 40):
        links = pairs[same[:m]]
        nc = NC.from_pairs(120, [tuple(p) for p in links[::2]], [tuple(p) for p in links[1::2]])
        warm = e2cp.fit(K, nc, 2, np.random.RandomState(0), cache=cache)
        cold = e2cp.fit(K, nc, 2, np.random.RandomState(0))
        assert np.allclose(warm.affinity, cold.affinity, atol=1e-12)
        assert (warm.labels == cold.labels).all()
    assert cache.get(("e2cp-propagated", 20, 0.8), dict)["was"][2] == 9
