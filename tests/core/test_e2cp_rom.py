"""Lu & Ip (ECCV 2010) eqs. 3-4 / Proposition 1, and Xia et al. (2009) eqs. 5-8."""

import numpy as np
import pytest

from segapp.core.methods import e2cp, rom
from segapp.core.graph.node_constraints import NodeConstraints as NC


def _data(rng, n=40):
    x = np.r_[rng.randn(n // 2, 2), rng.randn(n - n // 2, 2) + [3, 0]]
    K = np.exp(-((x[:, None] - x[None]) ** 2).sum(-1) / 2)
    return x, K


def test_e2cp_closed_form_eq3_equals_iterations(rng):
    """Eq. 3 equals iterating steps (3) (vertical) and (4) (horizontal) to convergence."""
    x, K = _data(rng)
    W, Lt = e2cp.normalized_knn(K, 8)
    nc = NC.from_pairs(40, [(0, 5), (21, 30)], [(2, 25)], cannot_w=[0.6])
    Z = e2cp.constraint_matrix_z(nc)
    a = 0.8
    F = e2cp.propagate(Lt, Z, a)
    L = Lt.toarray()
    Zd = Z.toarray()
    Fv = Zd.copy()
    for _ in range(400):
        Fv = a * L @ Fv + (1 - a) * Zd
    Fh = Fv.copy()
    for _ in range(400):
        Fh = a * Fh @ L + (1 - a) * Fv
    assert np.allclose(F, Fh, atol=1e-10)
    assert np.abs(F).max() <= 1 + 1e-12


def test_e2cp_proposition_1(rng):
    """Eq. 4 / Prop. 1: W~ is non-negative and symmetric, >= W where F* >= 0, < W where F* < 0."""
    x, K = _data(rng)
    W, Lt = e2cp.normalized_knn(K, 8)
    nc = NC.from_pairs(40, [(0, 25)], [(1, 3), (22, 24)])
    F = e2cp.propagate(Lt, e2cp.constraint_matrix_z(nc), 0.8)
    Wt = e2cp.reweight(W, F)
    assert (Wt >= 0).all() and np.allclose(Wt, Wt.T)
    pos, neg = F >= 0, F < 0
    assert (Wt[pos] >= W[pos] - 1e-15).all()
    strict = neg & (W > 0)
    assert strict.any() and (Wt[strict] < W[strict]).all()


def test_rom_eq5_equals_iteration(rng):
    """Sec. 3.5: A(t+1) = a S A(t) + (1-a) Y, A(0) = Y converges to (1-a)(I - a S)^-1 Y
    (eq. 4 with beta = 1 - a); eq. 5 drops that constant factor."""
    x, K = _data(rng)
    Y = rom.closure_y(40, np.array([[0, 3], [3, 30]]))
    a = 0.7
    A6 = rom.rom_affinity(K, Y, a)
    W = K.copy()
    np.fill_diagonal(W, 0)
    d = W.sum(1)
    S = W / np.sqrt(np.outer(d, d))
    At = Y.copy()
    for _ in range(300):
        At = a * S @ At + (1 - a) * Y
    eq5 = At / (1 - a)
    assert np.allclose(A6, eq5 + eq5.T, atol=1e-9)  # eq. 6 = eq. 5 + its transpose
    assert (A6 >= -1e-12).all()  # RoM-AG is non-negative (eq. 7)


def test_rom_affinity_from_the_spectrum_is_eq6(rng):
    """What fit computes (one eigendecomposition for every stroke) is rom_affinity's eq. 6."""
    x, K = _data(rng)
    lam, V = rom.ranking_spectrum(K)
    chain = np.array([[i, i + 1] for i in range(39)])  # one component of every node
    for must in (np.array([[0, 3], [3, 30], [7, 8]]), np.zeros((0, 2), np.int64), chain):
        for a in (0.5, 0.99):
            A = rom.rom_affinity_spectral(lam, V, rom.components(40, must), a)
            assert np.allclose(A, rom.rom_affinity(K, rom.closure_y(40, must), a), rtol=1e-9, atol=1e-9)
            assert np.array_equal(A, A.T)


def test_rom_closure_and_alpha(rng):
    """Steps 1-2: Y is the transitive closure; alpha = 0.99 unconstrained, eq. 8 otherwise."""
    Y = rom.closure_y(5, np.array([[0, 1], [1, 2]]))
    assert Y[0, 2] == 1 and Y[0, 3] == 0 and np.all(np.diag(Y) == 1)
    x, K = _data(rng)
    res = rom.fit(K, NC.from_pairs(40), 2, rng, features=x)
    assert res.info["alpha"] == 0.99
    must = np.array([[0, 39]])
    res = rom.fit(K, NC.from_pairs(40, must), 2, rng, features=x)
    dm = np.linalg.norm(x[0] - x[39])
    dall = np.mean([np.linalg.norm(x[i] - x[j]) for i in range(40) for j in range(40) if i != j])
    assert res.info["alpha"] == pytest.approx(1 / (1 + dm / dall))


def test_e2cp_cached_inverse_gives_the_same_propagation(rng):
    """The per-graph inverse (I - a L~)^-1 kept by graph_part gives eq. 3 as the sparse solves do."""
    x, K = _data(rng)
    W, Lt, inverse = e2cp.graph_part(K, 8, 0.8)
    nc = NC.from_pairs(40, [(0, 5), (21, 30)], [(2, 25)], cannot_w=[0.6])
    Z = e2cp.constraint_matrix_z(nc)
    assert np.allclose(e2cp.propagate(Lt, Z, 0.8, inverse), e2cp.propagate(Lt, Z, 0.8), atol=1e-12)


def test_rom_cannot_links_zero_the_blocks_of_their_components(rng):
    """The component-level mask zeroes exactly what zeroing pair by pair zeroes: the blocks
    between the must-link components of each cannot-linked pair, both ways, and the whole
    block of a component that a cannot-link joins to itself."""
    n = 30
    must = np.array([[0, 1], [1, 2], [5, 6], [10, 11], [11, 12], [12, 13], [20, 21]])
    comp = rom.components(n, must)
    cannot = np.array([[0, 5], [2, 6], [6, 1], [11, 25], [20, 21], [28, 29], [28, 29]])
    A = rng.rand(n, n)
    A = A + A.T
    ref = A.copy()
    for i, j in cannot:
        a, b = comp == comp[i], comp == comp[j]
        ref[np.ix_(a, b)] = 0.0
        ref[np.ix_(b, a)] = 0.0
    out = rom.zero_cannot_blocks(A.copy(), comp, cannot)
    np.testing.assert_array_equal(out, ref)
    assert out[0, 6] == 0 and out[13, 25] == 0 and out[21, 20] == 0 and out[29, 28] == 0
    assert out[0, 2] != 0 and out[0, 11] != 0 and out[27, 28] != 0
    same = A.copy()
    assert rom.zero_cannot_blocks(same, comp, np.zeros((0, 2), int)) is same
    np.testing.assert_array_equal(same, A)


def test_rom_eq8_with_the_mean_distance_given(rng):
    """Eq. 8 from a mean distance computed beforehand is eq. 8 computed in one go."""
    x, K = _data(rng)
    must = np.array([[0, 3], [5, 39]])
    assert rom.alpha_eq8(x, must, rom.mean_distance(x)) == rom.alpha_eq8(x, must)
