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
