"""Lu & Carreira-Perpinan (CVPR 2008): eqs. 2-8 and Figs. 2-4."""

import numpy as np
import pytest

from segapp.core.methods import gp_propagation as gp
from segapp.core.methods import ncut
from segapp.core.graph.affinity import rbf_affinity
from segapp.core.graph.node_constraints import NodeConstraints as NC


def gaussian_1d(x, sigma):
    """exp(-(x_i - x_j)^2 / (2 sigma^2)) for 1-D samples."""
    return rbf_affinity(np.asarray(x, float)[:, None], 1.0 / (2 * sigma ** 2))


def test_small_matrix_form_equals_eq2_inverse(rng):
    """Eq. 2: the s x s form equals (K^-1 + M)^-1 computed with a full inverse (tiny N)."""
    x = rng.rand(12, 2)
    K = np.exp(-((x[:, None] - x[None]) ** 2).sum(-1) / 0.5) + 1e-3 * np.eye(12)
    S, Ms = gp.constraint_matrix([(0, 5), (5, 7)], [1, 0.5], [(1, 9)], [1], 0.3, 0.2)
    M = np.zeros((12, 12))
    M[np.ix_(S, S)] = Ms
    full = np.linalg.inv(np.linalg.inv(K) + M)
    assert np.allclose(gp.propagate(K, S, Ms), full, atol=1e-8)
    # eq. 3 entries
    i0, i5 = list(S).index(0), list(S).index(5)
    assert Ms[i0, i5] == pytest.approx(-1 / 0.3 ** 2)
    assert Ms[i0, i0] == pytest.approx(1 / 0.3 ** 2)


@pytest.mark.parametrize("kind", ["must", "cannot"])
def test_single_link_closed_forms_eqs_6_to_8(kind, rng):
    """General eq. 2-3 equals eqs. 6/7 and the equivalent kernels of eq. 8 to 1e-8.

    Eq. 5 scales M by 1/(2 eps^2) where eq. 3 has 1/eps^2, so eq. 6-7's eps^2 is half of
    eq. 3's (see gp_propagation.fit Notes).
    """
    x = np.sort(rng.rand(15)) * 4
    K = gaussian_1d(x, 0.7)
    eps3 = 0.4
    eps6 = eps3 / np.sqrt(2)
    pairs = [(0, 1)]
    S, Ms = gp.constraint_matrix(pairs if kind == "must" else [], [1.0] if kind == "must" else [],
                                 pairs if kind == "cannot" else [], [1.0] if kind == "cannot" else [],
                                 eps3, eps3)
    Kb = gp.propagate(K, S, Ms)
    K12 = K[0, 1]
    if kind == "must":
        u = K[:, 0] - K[:, 1]
        Kp = K - np.outer(u, u) / (2 * (1 - K12))  # equivalent kernel, must-link
        closed = (eps6 ** 2 * K + (1 - K12) * Kp) / (eps6 ** 2 + 1 - K12)  # eq. 6
        up = K[:, 0] + K[:, 1]
        assert np.allclose(Kp[:, 0], up / 2, atol=1e-8) and np.allclose(Kp[:, 1], up / 2, atol=1e-8)
    else:
        u = K[:, 0] + K[:, 1]
        Kp = K - np.outer(u, u) / (2 * (1 + K12))
        closed = (eps6 ** 2 * K + (1 + K12) * Kp) / (eps6 ** 2 + 1 + K12)  # eq. 7
        um = K[:, 0] - K[:, 1]
        assert np.allclose(Kp[:, 0], um / 2, atol=1e-8) and np.allclose(Kp[:, 1], -um / 2, atol=1e-8)
    # eq. 8: the 3:N block is a negative rank-1 update
    assert np.allclose(Kp[2:, 2:], K[2:, 2:] - np.outer(u[2:], u[2:]) / (2 * (1 - K12 if kind == "must" else 1 + K12)))
    assert np.allclose(Kb, closed, atol=1e-8)


def test_fig2_one_must_link_merges_two_clusters(rng):
    """Fig. 2: three 1-D clusters; a must-link between samples 5 and 20 leaves two clusters."""
    x = np.concatenate([np.linspace(0, 1, 10), np.linspace(3.2, 4.2, 10), np.linspace(5.4, 6.4, 10)])
    K = gaussian_1d(x, 0.6)
    before = ncut.fit(K, None, 2, rng).labels
    assert len(set(before[:10])) == 1 and before[0] != before[10]  # {1} vs {2, 3}
    res = gp.fit(K, NC.from_pairs(30, [(4, 19)]), 2, rng, algorithm="A")
    lab = res.labels
    assert len(set(lab[:20])) == 1 and len(set(lab[20:])) == 1 and lab[0] != lab[20]  # {1, 2} vs {3}
    # e2 is nearly constant over the first two clusters after the link
    e2 = res.embedding[:, 0]
    assert np.ptp(e2[:20]) < 0.25 * abs(e2[:20].mean() - e2[20:].mean())


def test_fig3_one_cannot_link_splits_a_continuum(rng):
    """Fig. 3: a cannot-link between samples 5 and 15 of a 1-D continuum splits it around
    the 10th sample, and e2 turns from continuous to nearly piecewise constant (lambda_2
    of the normalised Laplacian falls by more than 10x)."""
    x = np.arange(40.0)
    K = gaussian_1d(x, 8.0)
    before = ncut.fit(K, None, 2, rng)
    assert np.flatnonzero(np.diff(before.labels)).tolist() == [19]
    after = gp.fit(K, NC.from_pairs(40, [], [(4, 14)]), 2, rng, algorithm="A")
    cut = np.flatnonzero(np.diff(after.labels))
    assert len(cut) == 1 and 8 <= cut[0] <= 12
    assert after.labels[4] != after.labels[14]
    assert after.eigenvalues[0] < before.eigenvalues[0] / 10


def test_fig4_algorithm_b_has_no_false_affinity():
    """Fig. 4: cannot-links (5, 15) and (16, 35): Algorithm A creates a false affinity
    between samples 5 and 35; Algorithm B does not."""
    x = np.arange(40.0)
    K = gaussian_1d(x, 8.0)
    nc = NC.from_pairs(40, [], [(4, 14), (15, 34)])
    A = gp.algorithm_a(K, nc, 1e-5, 1e-5)
    B = gp.algorithm_b(K, nc, 1e-5, 1e-5)
    assert K[4, 34] < 0.01
    assert A[4, 34] > 0.2  # strong positive affinity from f5 = -f15 ~ -f16 = f35
    assert B[4, 34] <= K[4, 34] + 1e-12


def test_auto_algorithm_choice(rng):
    x = np.arange(20.0)
    K = gaussian_1d(x, 3.0)
    nc = NC.from_pairs(20, [], [(2, 17)])
    assert gp.fit(K, nc, 2, rng).info["algorithm"] == "A"
    assert gp.fit(K, nc, 3, rng).info["algorithm"] == "B"


def test_algorithm_b_is_entrywise_minimum_over_cannot_link_groups(rng):
    """Algorithm B (sec. 2): max(0, min_k ((K^m)^-1 + M^{c,k})^-1), written out with propagate."""
    x = rng.rand(20, 2)
    K = np.exp(-((x[:, None] - x[None]) ** 2).sum(-1) / 0.5) + 1e-3 * np.eye(20)
    nc = NC.from_pairs(20, [(0, 5)], [(1, 9), (2, 14), (3, 17)])
    S, Ms = gp.constraint_matrix(nc.must, nc.must_w, np.zeros((0, 2)), [], 0.3, 0.2)
    Km = gp.propagate(K, S, Ms)
    want = None
    for g in np.unique(nc.cannot_group):
        sel = nc.cannot_group == g
        S, Ms = gp.constraint_matrix(np.zeros((0, 2)), [], nc.cannot[sel], nc.cannot_w[sel], 0.3, 0.2)
        Kc = gp.propagate(Km, S, Ms)
        want = Kc if want is None else np.minimum(want, Kc)
    got = gp.algorithm_b(K, nc, 0.3, 0.2)
    assert len(np.unique(nc.cannot_group)) == 3
    assert np.allclose(got, np.maximum(want, 0.0), atol=1e-12) and np.array_equal(got, got.T)


def _kernel(rng, n=40):
    x = rng.rand(n, 2)
    return np.exp(-((x[:, None] - x[None]) ** 2).sum(-1) / 0.3)


def _random_links(rng, n, count, taken=()):
    """``count`` node pairs, none a self-pair or among ``taken``."""
    seen = {tuple(sorted(p)) for p in np.asarray(taken).reshape(-1, 2).tolist()}
    out = []
    while len(out) < count:
        p = tuple(sorted(rng.choice(n, 2, replace=False).tolist()))
        if p not in seen:
            seen.add(p)
            out.append(p)
    return np.array(out)


def test_posterior_adds_only_the_new_links_to_the_last_result(rng, monkeypatch):
    """Eq. 2 with M a sum over links: a session's K_bar is the last one updated with the links
    added since (each stroke a small system), equal to the one-shot form over 30 strokes."""
    from segapp.core.graph.cache import GraphCache

    K = _kernel(rng)
    cache = GraphCache().scope("K")
    sizes = []
    real = gp.constraint_matrix
    monkeypatch.setattr(gp, "constraint_matrix", lambda *a: (sizes.append(len(a[0]) + len(a[2])), real(*a))[1])
    must, cannot = np.zeros((0, 2), int), np.zeros((0, 2), int)
    for stroke in range(30):
        new = _random_links(rng, 40, 3, np.vstack([must, cannot]))
        if stroke % 3 == 2:
            cannot = np.vstack([cannot, new])
        else:
            must = np.vstack([must, new])
        sizes.clear()
        got = gp.posterior(K, must, np.ones(len(must)), cannot, np.ones(len(cannot)), 1e-5, 1e-5, cache)
        assert sizes == [len(new)] or stroke == 0  # only this stroke's links were factorised
        full = gp.posterior(K, must, np.ones(len(must)), cannot, np.ones(len(cannot)), 1e-5, 1e-5)
        assert np.allclose(got, full, atol=1e-9, rtol=0)
        assert not got.flags.writeable  # what the next stroke builds on cannot be changed


@pytest.mark.parametrize("edit", ["undo", "reweight"])
def test_posterior_recomputes_when_links_were_removed_or_reweighted(edit, rng):
    from segapp.core.graph.cache import GraphCache

    K = _kernel(rng)
    cache = GraphCache().scope("K")
    must = _random_links(rng, 40, 12)
    gp.posterior(K, must, np.ones(len(must)), np.zeros((0, 2)), [], 1e-5, 1e-5, cache)
    if edit == "undo":
        must, w = must[:6], np.ones(6)
    else:
        w = np.ones(len(must))
        w[0] = 0.5
    got = gp.posterior(K, must, w, np.zeros((0, 2)), [], 1e-5, 1e-5, cache)
    assert np.allclose(got, gp.posterior(K, must, w, np.zeros((0, 2)), [], 1e-5, 1e-5), atol=1e-12, rtol=0)


@pytest.mark.parametrize("algorithm", ["A", "B"])
def test_fit_with_a_cache_gives_the_labels_of_a_cold_call(algorithm, rng):
    """Both algorithms, strokes added one at a time with the graph's cache: the same
    propagated affinity as without it."""
    from segapp.core.graph.cache import GraphCache

    K = _kernel(rng, 60)
    cache = GraphCache().scope("K")
    must, cannot = [], []
    for stroke in range(8):
        (cannot if stroke % 2 else must).extend(_random_links(rng, 60, 2).tolist())
        nc = NC.from_pairs(60, must, cannot)
        warm = gp.fit(K, nc, 3, np.random.RandomState(0), cache=cache, algorithm=algorithm)
        cold = gp.fit(K, nc, 3, np.random.RandomState(0), algorithm=algorithm)
        assert np.allclose(warm.affinity, cold.affinity, atol=1e-9, rtol=0)
