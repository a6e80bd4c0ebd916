"""Conroy & Xi (2009): AP message passing and constraint-driven similarity updates."""

import numpy as np
import pytest
from sklearn.cluster import AffinityPropagation
from sklearn.metrics import adjusted_rand_score

from segapp.core.methods import ssap
from segapp.core.spectral import affinity_propagation as aprop
from segapp.core.graph.node_constraints import NodeConstraints as NC


def test_unconstrained_ap_equals_sklearn(rng):
    """Without constraints, our message passing equals scikit-learn's AffinityPropagation
    on the same similarities and preference (exemplars and labels)."""
    x = np.r_[rng.randn(15, 2) * 0.4, rng.randn(15, 2) * 0.4 + [4, 0], rng.randn(15, 2) * 0.4 + [0, 4]]
    S = -((x[:, None] - x[None]) ** 2).sum(-1)
    pref = float(np.median(S))
    labels, ex, conv, _ = aprop.affinity_propagation(S, pref, damping=0.5, max_iter=200)
    ref = AffinityPropagation(affinity="precomputed", preference=pref, random_state=0).fit(S)
    assert conv
    assert ex.tolist() == ref.cluster_centers_indices_.tolist()
    assert adjusted_rand_score(labels, ref.labels_) == 1.0


def test_bisection_finds_the_number_of_clusters(rng):
    x = np.r_[rng.randn(15, 2) * 0.4, rng.randn(15, 2) * 0.4 + [4, 0], rng.randn(15, 2) * 0.4 + [0, 4]]
    S = -((x[:, None] - x[None]) ** 2).sum(-1)
    for k in (2, 3, 4):
        p, labels, ex, exact = aprop.preference_for(S, k, dict(damping=0.5, max_iter=200, convergence_iter=15))
        assert exact and len(ex) == k and labels.max() == k - 1


@pytest.mark.parametrize("variant, warm_start", [("gaussian", False), ("metric", False), ("gaussian", True),
                                                 ("metric", True)])
def test_constraints_reduce_violations_on_overlapping_gaussians(variant, warm_start):
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

    base = ssap.fit(K, NC.from_pairs(n), 2, r, features=x, variant=variant, warm_start=warm_start)
    con = ssap.fit(K, NC.from_pairs(n, must, cannot), 2, r, features=x, variant=variant, rounds=10,
                   warm_start=warm_start)
    assert violated(con.labels) < violated(base.labels)
    assert con.info["n_violated"] == violated(con.labels)


def _three_blobs(rng):
    x = np.r_[rng.randn(15, 2) * 0.4, rng.randn(15, 2) * 0.4 + [4, 0], rng.randn(15, 2) * 0.4 + [0, 4]]
    return -((x[:, None] - x[None]) ** 2).sum(-1)


def _counting(monkeypatch):
    runs = []
    ap = aprop.affinity_propagation

    def counted(S, p, **kw):
        runs.append(p)
        return ap(S, p, **kw)

    monkeypatch.setattr(aprop, "affinity_propagation", counted)  # what preference_for calls
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
        ref = _plain_search(aprop.affinity_propagation, S, k, kw, start=start)
        got = aprop.preference_for(S, k, kw, start=start)
        assert got[0] == ref[0] and got[3] == ref[3]
        np.testing.assert_array_equal(got[1], ref[1])
        np.testing.assert_array_equal(got[2], ref[2])


def _saving(S, k, start, monkeypatch):
    kw = dict(damping=0.5, max_iter=200, convergence_iter=15)
    runs = _counting(monkeypatch)
    ref = _plain_search(aprop.affinity_propagation, S, k, kw, start=start)
    n_plain = len(runs)
    runs.clear()
    got = aprop.preference_for(S, k, kw, start=start)
    assert got[0] == ref[0] and got[3]
    return len(runs), n_plain


def test_a_start_with_too_many_clusters_skips_the_doubling_points_above_it(rng, monkeypatch):
    S = _three_blobs(rng)
    labels, ex, conv, _ = aprop.affinity_propagation(S, -100.0, damping=0.5, max_iter=200)
    assert conv and len(ex) == 3  # too many for 2, below the first doubling point (-87.6)
    made, plain = _saving(S, 2, -100.0, monkeypatch)
    assert made < plain


def test_a_start_with_too_few_clusters_is_followed_upwards(monkeypatch):
    S = _three_blobs(np.random.RandomState(2))
    labels, ex, conv, _ = aprop.affinity_propagation(S, -300.0, damping=0.5, max_iter=200)
    assert conv and len(ex) == 1  # too few for 2; the answer is the doubling point just above
    made, plain = _saving(S, 2, -300.0, monkeypatch)
    assert made < plain


def test_message_passing_matches_the_textbook_updates(rng):
    """The in-place loop performs eq. (responsibility, availability) of sec. 2.1 with damping:
    after a fixed number of iterations its messages equal a plain transcription's, bit for bit."""
    S = _three_blobs(rng)
    n, pref, lam, iters = len(S), float(np.median(S)), 0.9, 7
    _, _, _, (R, A) = aprop.affinity_propagation(S, pref, damping=lam, max_iter=iters, convergence_iter=15)
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


def test_float32_messages_give_the_float64_clusters(rng):
    """AP in float32 (the default precision of fit) finds the exemplars and labels of the
    float64 loop, at every preference the search visits on three blobs."""
    S = _three_blobs(rng)
    kw = dict(damping=0.9, max_iter=500, convergence_iter=15)
    for pref in (-10.0, -50.0, -100.0, -300.0, float(np.median(S))):
        l64, e64, c64, (R64, _) = aprop.affinity_propagation(S, pref, **kw)
        l32, e32, c32, (R32, _) = aprop.affinity_propagation(S.astype(np.float32), pref, **kw)
        assert R64.dtype == np.float64 and R32.dtype == np.float32
        assert c32 == c64
        np.testing.assert_array_equal(e32, e64)
        np.testing.assert_array_equal(l32, l64)


@pytest.mark.parametrize("source", [-100.0, -30.0, -150.0])
def test_a_warm_start_converges_to_the_clusters_of_a_cold_start(rng, source):
    """Messages of a converged run (at the same preference, or at one nearby) start AP at
    -100 on three blobs: the same 3 exemplars and labels as from zero messages; from the
    run at -100 itself the exemplar set holds from the first iteration, so the run stops
    after convergence_iter + 1 iterations, where the cold run has not converged yet."""
    S = _three_blobs(rng)
    kw = dict(damping=0.9, convergence_iter=15)
    cold = aprop.affinity_propagation(S, -100.0, max_iter=500, **kw)
    assert cold[2] and len(cold[1]) == 3
    msgs = aprop.affinity_propagation(S, source, max_iter=500, **kw)[3]
    warm = aprop.affinity_propagation(S, -100.0, max_iter=500, messages=msgs, **kw)
    assert warm[2]
    np.testing.assert_array_equal(warm[1], cold[1])
    np.testing.assert_array_equal(warm[0], cold[0])
    if source == -100.0:
        assert aprop.affinity_propagation(S, -100.0, max_iter=16, messages=msgs, **kw)[2]
        assert not aprop.affinity_propagation(S, -100.0, max_iter=16, **kw)[2]


@pytest.mark.parametrize("k", [2, 3, 4])
def test_a_warm_started_search_finds_exactly_k(rng, k):
    """The search whose start runs from another round's messages (fit's warm start) still
    ends with exactly k clusters, whether that start gives too few, too many or k, and
    returns the messages of the run it ends with."""
    S = _three_blobs(rng)
    kw = dict(damping=0.9, max_iter=500, convergence_iter=15)
    msgs = aprop.affinity_propagation(S, -100.0, **kw)[3]
    for start in (-10.0, -100.0, -400.0):
        p, labels, ex, exact, out = aprop.preference_for(S, k, kw, start=start, messages=msgs, return_messages=True)
        assert exact and len(ex) == k and labels.max() == k - 1
        again = aprop.affinity_propagation(S, p, messages=msgs if p == start else None, **kw)
        np.testing.assert_array_equal(again[1], ex)
        np.testing.assert_array_equal(again[3][0], out[0])


@pytest.mark.parametrize("k", [2, 3])
def test_a_warm_started_fit_kept_per_graph_is_the_cold_one(k):
    """With warm starts a round depends on the messages of the rounds before it: the results
    kept per graph (keyed by the chain of rounds) give, stroke after stroke, the labels of
    a run with nothing kept."""
    from segapp.core.graph.cache import GraphCache

    r = np.random.RandomState(1)
    x = np.r_[r.randn(30, 2) * 0.5, r.randn(30, 2) * 0.5 + [2.5, 0], r.randn(30, 2) * 0.5 + [0, 2.5]]
    K = np.exp(-((x[:, None] - x[None]) ** 2).sum(-1) / 2.0)
    strokes = [([(0, 35)], []), ([(0, 35)], [(0, 65)]), ([(0, 35), (40, 70)], [(0, 65), (31, 61)])]
    cache = GraphCache().scope("test")
    for i, (must, cannot) in enumerate(strokes + strokes[-1:]):  # the repeat reads every round kept
        if i == len(strokes):
            built = dict(cache.parent.builds)
            assert built["ssap-round"] > 0
        nc = NC.from_pairs(len(x), must, cannot)
        kept = ssap.fit(K, nc, k, r, cache=cache, warm_start=True)
        cold = ssap.fit(K, nc, k, r, warm_start=True)
        np.testing.assert_array_equal(kept.labels, cold.labels)
        assert kept.info == cold.info
    assert dict(cache.parent.builds) == built


def test_the_gaussian_update_is_eq_3_4_summed_link_by_link(rng):
    """Eq. 3-4 (Method 1), written out for each link: ``s(y, z) += sign alpha (G(s(y, x_i),
    s(z, x_j)) + G(s(z, x_i), s(y, x_j))) / 2`` with ``G(a, b) = exp(-a^2/sigma_i^2 -
    b^2/sigma_j^2)``. The update gathers links that share end nodes (as a stroke's two
    neighbourhoods give them, with repeats); it must equal the link-by-link sum."""
    n = 30
    X = rng.randn(n, 3)
    S0 = -((X[:, None] - X[None]) ** 2).sum(-1)
    labels = rng.randint(0, 3, n)
    ex = np.array([np.flatnonzero(labels == c)[0] for c in range(3)])
    links = np.concatenate([np.stack(np.meshgrid([1, 2, 3], [7, 8]), -1).reshape(-1, 2), [[1, 7], [4, 9], [9, 4]]])
    gaps = rng.rand(len(links))
    for sign in (+1.0, -1.0):
        sig = ssap._sigma(S0, labels, ex)
        want = S0.copy()
        for (i, j), g in zip(links, gaps):
            Gyz = np.exp(-(S0[:, i, None] / sig[i]) ** 2 - (S0[None, :, j] / sig[j]) ** 2)
            Gzy = np.exp(-(S0[None, :, i] / sig[i]) ** 2 - (S0[:, j, None] / sig[j]) ** 2)
            want += sign * 0.7 * g * (Gyz + Gzy) / 2.0
        got = ssap.gaussian_update(S0.copy(), links, sign, 0.7, labels, ex, gaps)
        assert np.allclose(got, want, rtol=1e-12, atol=1e-12)
        assert not np.allclose(got, S0)
