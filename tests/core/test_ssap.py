"""Conroy & Xi (2009): AP message passing and constraint-driven similarity updates."""

import numpy as np
import pytest
from sklearn.cluster import AffinityPropagation
from sklearn.metrics import adjusted_rand_score

from core.methods import ssap
from core.graph.node_constraints import NodeConstraints as NC


def test_unconstrained_ap_equals_sklearn(rng):
    """Without constraints, our message passing equals scikit-learn's AffinityPropagation
    on the same similarities and preference (exemplars and labels)."""
    x = np.r_[rng.randn(15, 2) * 0.4, rng.randn(15, 2) * 0.4 + [4, 0], rng.randn(15, 2) * 0.4 + [0, 4]]
    S = -((x[:, None] - x[None]) ** 2).sum(-1)
    pref = float(np.median(S))
    labels, ex, conv, _ = ssap.affinity_propagation(S, pref, damping=0.5, max_iter=200)
    ref = AffinityPropagation(affinity="precomputed", preference=pref, random_state=0).fit(S)
    assert conv
    assert ex.tolist() == ref.cluster_centers_indices_.tolist()
    assert adjusted_rand_score(labels, ref.labels_) == 1.0


def test_bisection_finds_the_number_of_clusters(rng):
    x = np.r_[rng.randn(15, 2) * 0.4, rng.randn(15, 2) * 0.4 + [4, 0], rng.randn(15, 2) * 0.4 + [0, 4]]
    S = -((x[:, None] - x[None]) ** 2).sum(-1)
    for k in (2, 3, 4):
        p, labels, ex, exact = ssap.preference_for(S, k, dict(damping=0.5, max_iter=200, convergence_iter=15))
        assert exact and len(ex) == k and labels.max() == k - 1


@pytest.mark.parametrize("variant", ["gaussian", "metric"])
def test_constraints_reduce_violations_on_overlapping_gaussians(variant):
    """Two overlapping Gaussians (one informative dimension, five noisy ones): with
    constraints from 16 labelled points, fewer constraints are violated than by
    unconstrained AP (Method 1, Gaussian update; Method 2, diagonal metric learning)."""
    r = np.random.RandomState(0)
    n = 60
    y = np.r_[np.zeros(n // 2, int), np.ones(n // 2, int)]
    x = r.randn(n, 6) * [0.5, 2, 2, 2, 2, 2]
    x[y == 1, 0] += 2.0
    lab = r.choice(n, 16, replace=False)
    must = [(a, b) for i, a in enumerate(lab) for b in lab[i + 1:] if y[a] == y[b]]
    cannot = [(a, b) for i, a in enumerate(lab) for b in lab[i + 1:] if y[a] != y[b]]
    d2 = ((x[:, None] - x[None]) ** 2).sum(-1)
    K = np.exp(-d2 / np.median(d2))

    def violated(labels):
        return sum(labels[a] != labels[b] for a, b in must) + sum(labels[a] == labels[b] for a, b in cannot)

    base = ssap.fit(K, NC.from_pairs(n), 2, r, features=x, variant=variant)
    con = ssap.fit(K, NC.from_pairs(n, must, cannot), 2, r, features=x, variant=variant, rounds=10)
    assert violated(con.labels) < violated(base.labels)
    assert con.info["n_violated"] == violated(con.labels)


def _three_blobs(rng):
    x = np.r_[rng.randn(15, 2) * 0.4, rng.randn(15, 2) * 0.4 + [4, 0], rng.randn(15, 2) * 0.4 + [0, 4]]
    return -((x[:, None] - x[None]) ** 2).sum(-1)


def _counting(monkeypatch):
    runs = []
    ap = ssap.affinity_propagation

    def counted(S, p, **kw):
        runs.append(p)
        return ap(S, p, **kw)

    monkeypatch.setattr(ssap, "affinity_propagation", counted)
    return runs


def _plain_search(ap, S, n_clusters, ap_kw, start=None, max_steps=40):
    """The search without skipping (main's): start, doubling down from min s - span, bisection."""
    off = S[~np.eye(len(S), dtype=bool)]
    span = float(off.max() - off.min()) or 1.0
    hi = float(off.max())
    best = None
    def run(p):
        nonlocal best
        labels, ex, conv, _ = ap(S, p, **ap_kw)
        k = len(ex) if labels is not None and conv else None
        if k is not None and k < n_clusters and (best is None or k > len(best[2])):
            best = (p, labels, ex)
        return k, labels, ex
    steps = 0
    if start is not None:
        k, labels, ex = run(float(start)); steps += 1
        if k == n_clusters:
            return float(start), labels, ex, True
    lo = float(off.min()) - span
    for t in range(30):
        k, labels, ex = run(lo); steps += 1
        if k == n_clusters:
            return lo, labels, ex, True
        if k is not None and k < n_clusters:
            break
        hi = lo
        lo = float(off.min()) - span * 2.0 ** (t + 1)
    while steps < max_steps and hi - lo > 1e-9 * max(1.0, abs(hi)):
        p = (lo + hi) / 2.0
        k, labels, ex = run(p); steps += 1
        if k == n_clusters:
            return p, labels, ex, True
        if k is None or k > n_clusters:
            hi = p
        else:
            lo = p
    return best[0], best[1], best[2], False


@pytest.mark.parametrize("k", [2, 3, 4, 5])
def test_search_from_any_start_returns_what_the_full_search_returns(rng, k):
    """The cluster count grows with the preference on these blobs: skipping the runs whose
    outcome follows changes nothing, whatever the start (too many, too few, exact, or a
    start where AP does not converge, -400 and -1000 here, which tells nothing)."""
    S = _three_blobs(rng)
    kw = dict(damping=0.5, max_iter=200, convergence_iter=15)
    for start in (None, -0.5, -3.0, -10.0, -50.0, -100.0, -120.0, -150.0, -200.0, -300.0, -400.0, -1000.0):
        ref = _plain_search(ssap.affinity_propagation, S, k, kw, start=start)
        got = ssap.preference_for(S, k, kw, start=start)
        assert got[0] == ref[0] and got[3] == ref[3]
        np.testing.assert_array_equal(got[1], ref[1])
        np.testing.assert_array_equal(got[2], ref[2])


def _saving(S, k, start, monkeypatch):
    kw = dict(damping=0.5, max_iter=200, convergence_iter=15)
    runs = _counting(monkeypatch)
    ref = _plain_search(ssap.affinity_propagation, S, k, kw, start=start)
    n_plain = len(runs)
    runs.clear()
    got = ssap.preference_for(S, k, kw, start=start)
    assert got[0] == ref[0] and got[3]
    return len(runs), n_plain


def test_a_start_with_too_many_clusters_skips_the_doubling_points_above_it(rng, monkeypatch):
    S = _three_blobs(rng)
    labels, ex, conv, _ = ssap.affinity_propagation(S, -100.0, damping=0.5, max_iter=200)
    assert conv and len(ex) == 3  # too many for 2, below the first doubling point (-87.6)
    made, plain = _saving(S, 2, -100.0, monkeypatch)
    assert made < plain


def test_a_start_with_too_few_clusters_is_followed_upwards(monkeypatch):
    S = _three_blobs(np.random.RandomState(2))
    labels, ex, conv, _ = ssap.affinity_propagation(S, -300.0, damping=0.5, max_iter=200)
    assert conv and len(ex) == 1  # too few for 2; the answer is the doubling point just above
    made, plain = _saving(S, 2, -300.0, monkeypatch)
    assert made < plain


def test_message_passing_matches_the_textbook_updates(rng):
    """The in-place loop performs eq. (responsibility, availability) of sec. 2.1 with damping:
    after a fixed number of iterations its messages equal a plain transcription's, bit for bit."""
    S = _three_blobs(rng)
    n, pref, lam, iters = len(S), float(np.median(S)), 0.9, 7
    _, _, _, (R, A) = ssap.affinity_propagation(S, pref, damping=lam, max_iter=iters, convergence_iter=15)
    S2 = S.copy()
    S2[np.diag_indices(n)] = pref
    R0, A0 = np.zeros((n, n)), np.zeros((n, n))
    for _ in range(iters):  # scikit-learn's loop, temporaries and all
        AS = A0 + S2
        I = np.argmax(AS, axis=1)
        Y = AS[np.arange(n), I]
        AS[np.arange(n), I] = -np.inf
        Y2 = np.max(AS, axis=1)
        tmp = S2 - Y[:, None]
        tmp[np.arange(n), I] = S2[np.arange(n), I] - Y2
        R0 = R0 * lam + (1 - lam) * tmp
        tmp = np.maximum(R0, 0)
        tmp.flat[::n + 1] = R0.flat[::n + 1]
        tmp -= np.sum(tmp, axis=0)
        dA = np.diag(tmp).copy()
        tmp.clip(0, np.inf, tmp)
        tmp.flat[::n + 1] = dA
        A0 = A0 * lam - (1 - lam) * tmp
    assert np.array_equal(R.view(np.int64), R0.view(np.int64))
    assert np.array_equal(A.view(np.int64), A0.view(np.int64))
