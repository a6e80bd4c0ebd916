"""Wang & Davidson (KDD 2010): Fig. 1-2 example, eq. 15-17, Algorithm 1."""

import warnings

import numpy as np
import pytest
import scipy.linalg as sl
import scipy.sparse as sp

from segapp.core.errors import ConvergenceWarning, ParameterError
from segapp.core.methods import csp
from segapp.core.graph.node_constraints import NodeConstraints as NC

A_FIG1 = np.array([[0, 1, 1, 0, 0, 0], [1, 0, 1, 0, 0, 0], [1, 1, 0, 1, 0, 0],
                   [0, 0, 1, 0, 1, 1], [0, 0, 0, 1, 0, 1], [0, 0, 0, 1, 1, 0]], float)
X_FIG1 = np.array([1, 1, 1, 1, -1, -1.0])
Q_FIG1 = sp.csr_matrix(np.outer(X_FIG1, X_FIG1))
VOL = A_FIG1.sum()


def test_fig1_lambda_max_of_normalised_q():
    """Sec. 3.6: Q_bar has the two distinct eigenvalues 0 and 2.6667."""
    sol = csp.solve_csp(A_FIG1, Q_FIG1, VOL, 3)
    assert sol["lambda_max"] == pytest.approx(2.6667, abs=1e-4)
    d = A_FIG1.sum(1)
    ev = np.linalg.eigvalsh(np.outer(X_FIG1, X_FIG1) / np.sqrt(np.outer(d, d)))
    assert np.allclose(np.unique(ev.round(4)), [0, 2.6667])


def _node4_position(u):
    """Where node 4 lies between the means of {5, 6} (0) and {1, 2, 3} (1)."""
    m123, m56 = u[:3].mean(), u[4:].mean()
    return (u[3] - m56) / (m123 - m56)


def test_fig2_node4_moves_towards_123_as_beta_grows():
    """Fig. 2 (b)-(c): with beta = vol node 4 sits nearer {5, 6}; with beta = 2 vol it sits
    nearer {1, 2, 3}: its relative position between the two group means crosses 1/2."""
    u1 = csp.solve_csp(A_FIG1, Q_FIG1, VOL, 1)["u"][:, 0]
    u2 = csp.solve_csp(A_FIG1, Q_FIG1, 2 * VOL, 1)["u"][:, 0]
    p1, p2 = _node4_position(u1), _node4_position(u2)
    assert p1 < 0.5 < p2
    # and the sign cut of u* separates {1,2,3,4} from {5,6} at beta = 2 vol (the labelling)
    assert (u2[:4] > 0).all() and (u2[4:] < 0).all()


def test_fig1_two_way_partition_is_the_labelling():
    """fit() at beta = 2 vol splits Fig. 1 into {1,2,3,4} and {5,6}, as the node colouring asks
    by the paper's sign split."""
    res = csp.fit(A_FIG1, NC.from_pairs(6, labels=np.array([0, 0, 0, 0, 1, 1])), 2,
                  np.random.RandomState(0), beta=2 * VOL)
    assert len(set(res.labels[:4])) == 1 and res.labels[0] != res.labels[4] == res.labels[5]
    assert res.info["split"] == "sign"


def test_single_signed_u_star_is_split_by_two_means(rng):
    """The sign rule on a u* of one sign everywhere (what must-links alone can give) falls to
    1-D 2-means, which still cuts between the two groups of values."""
    from segapp.core.spectral import assign_labels

    u = np.r_[rng.rand(10) * 0.1 + 1.0, rng.rand(12) * 0.1 + 3.0][:, None]
    labels, used = assign_labels(u, 2, rng, "sign")
    assert used == "2-means"
    assert len(set(labels[:10])) == 1 and len(set(labels[10:])) == 1 and labels[0] != labels[10]
    labels, used = assign_labels(u - 2.0, 2, rng, "sign")
    assert used == "sign" and labels[0] != labels[10]


def test_beta_at_or_above_lambda_max_vol_raises():
    """Algorithm 1, line 4: no feasible solution when beta >= lambda_max vol."""
    lim = 8.0 / 3.0 * VOL
    with pytest.raises(ParameterError, match="lambda_max"):
        csp.solve_csp(A_FIG1, Q_FIG1, lim, 1)
    with pytest.raises(ParameterError, match="below"):
        csp.solve_csp(A_FIG1, Q_FIG1, lim * 1.5, 1)
    csp.solve_csp(A_FIG1, Q_FIG1, lim * 0.99, 1)  # just below works


def test_default_beta_is_eq17():
    sol = csp.solve_csp(A_FIG1, Q_FIG1, None, 1)
    expected = (8 / 3) * VOL * (0.5 + 0.4 * 36 / 36)
    assert sol["beta"] == pytest.approx(expected, rel=1e-6)


@pytest.mark.parametrize("n", [30, 450])  # dense LAPACK path and ARPACK path
def test_feasible_vectors_match_brute_force_and_bound_alpha(n, rng):
    """The Schur-complement solver returns exactly the feasible generalised eigenvectors
    of eq. 15 (checked against scipy.linalg.eig), each with v^T Q_bar v > beta (sec. 3.2)."""
    x = rng.rand(n, 2)
    A = np.exp(-((x[:, None] - x[None]) ** 2).sum(-1) / 0.1)
    nc = NC.from_pairs(n, [(0, 1), (2, 3)], [(0, 5), (7, 9)], cannot_w=[1.0, 0.5])
    Q = csp.constraint_matrix(nc)
    sol = csp.solve_csp(A, Q, None, 3)
    d = A.sum(1)
    isq = 1 / np.sqrt(d)
    L = np.eye(n) - A * np.outer(isq, isq)
    Qb = Q.toarray() * np.outer(isq, isq)
    assert sol["n_feasible"] >= 1
    v = sol["u"][:, 0] / isq
    lam = sol["lam"][0]
    assert np.allclose(L @ v, lam * (Qb - sol["beta"] / sol["vol"] * np.eye(n)) @ v, atol=1e-6 * np.abs(v).max())
    assert sol["alpha"][:sol["n_feasible"]].min() > sol["beta"] / sol["vol"] * sol["vol"] - 1e-6
    if n <= 30:
        w, V = sl.eig(L, Qb - sol["beta"] / sol["vol"] * np.eye(n))
        w = w.real
        feas = np.isfinite(w) & (w > 1e-9)
        assert feas.sum() == sol["n_feasible"]
        costs = []
        for k in np.flatnonzero(feas):
            vv = V[:, k].real
            vv *= np.sqrt(sol["vol"]) / np.linalg.norm(vv)
            costs.append(vv @ L @ vv / sol["vol"])
        assert min(costs) == pytest.approx(sol["cost"][0], rel=1e-6)


def test_unconstrained_is_normalised_cut(rng):
    """Sec. 3.1: Q_bar = I recovers spectral clustering (u* ~ Fiedler vector of L_bar)."""
    x = np.r_[rng.randn(20, 2), rng.randn(20, 2) + 6]
    A = np.exp(-((x[:, None] - x[None]) ** 2).sum(-1) / 8)
    res = csp.fit(A, NC.from_pairs(40), 2, rng)
    assert len(set(res.labels[:20])) == 1 and len(set(res.labels[20:])) == 1
    d = A.sum(1)
    w, V = sl.eigh(np.eye(40) - A / np.sqrt(np.outer(d, d)))
    fied = V[:, 1] / np.sqrt(d)
    c = np.corrcoef(fied, res.embedding[:, 0])[0, 1]
    assert abs(c) > 0.999


def test_blocks_give_q_equal_xxt():
    """Eq. 16: two labels give Q = X X^T with X = +-1 (the paper's encoding)."""
    labels = np.array([0, 0, -1, 1, 1])
    nc = NC.from_pairs(5, labels=labels)
    Q = csp.constraint_matrix(nc).toarray()
    x = np.array([1, 1, 0, -1, -1.0])
    assert np.allclose(Q, np.outer(x, x))


def test_degree_of_belief_weights_scale_q():
    nc = NC.from_pairs(4, [(0, 1)], [(2, 3)], must_w=[0.5], cannot_w=[0.25])
    Q = csp.constraint_matrix(nc).toarray()
    assert Q[0, 1] == 0.5 and Q[2, 3] == -0.25 and Q[0, 0] == 0.5 and Q[3, 3] == 0.25


def test_all_pairs_of_labelled_nodes_give_xxt():
    """Sec. 3.1 pair encoding: every pair among consistently labelled nodes -> Q = X X^T."""
    y = np.array([0, 0, 1, 1, 1])
    pairs = [(i, j) for i in range(5) for j in range(i + 1, 5)]
    nc = NC.from_pairs(6, [p for p in pairs if y[p[0]] == y[p[1]]], [p for p in pairs if y[p[0]] != y[p[1]]])
    x = np.r_[np.where(y == 0, 1.0, -1.0), 0]
    assert np.allclose(csp.constraint_matrix(nc).toarray(), np.outer(x, x))


def _many_random_must_links(n=60, m=300, seed=0):
    r = np.random.RandomState(seed)
    x = r.rand(n, 2)
    A = np.exp(-((x[:, None] - x[None]) ** 2).sum(-1) / (2 * 0.3 ** 2))
    return A, NC.from_pairs(n, r.randint(0, n, size=(m, 2)))


def test_infeasible_eq17_lowers_beta_with_a_warning(rng):
    """300 random must-links on 60 points join every node: Q_bar's top direction is nearly
    the trivial one, so no vector is feasible at eq. 17's beta. fit() halves beta until one
    is, says so, and reports both betas; the result satisfies the lowered bound."""
    from segapp.core.errors import ConvergenceWarning

    A, nc = _many_random_must_links()
    Q = csp.constraint_matrix(nc)
    assert csp.solve_csp(A, Q, None, 3)["n_feasible"] == 0  # eq. 17 alone fails (the old error)
    with pytest.warns(ConvergenceWarning, match="beta was halved"):
        res = csp.fit(A, nc, 2, rng)
    h, b17, b = res.info["beta_halvings"], res.info["beta_eq17"], res.info["beta"]
    assert h >= 1 and b == pytest.approx(b17 / 2 ** h)
    assert csp.solve_csp(A, Q, b17 / 2 ** (h - 1), 3)["n_feasible"] == 0  # the step before failed
    assert res.info["n_feasible"] >= 1 and res.info["constraint_satisfaction"] > b
    assert set(np.unique(res.labels)) == {0, 1}


def test_a_given_beta_is_never_changed(rng):
    from segapp.core.errors import ConvergenceError

    A, nc = _many_random_must_links()
    b17 = csp.solve_csp(A, csp.constraint_matrix(nc), None, 3)["beta"]
    with pytest.raises(ConvergenceError, match="no feasible eigenvector at beta"):
        csp.fit(A, nc, 2, rng, beta=b17)


def _residual(A, Q, sol):
    """Largest relative residual of eq. 15, L_bar v - lambda (Q_bar - beta/vol I) v, over the
    returned vectors."""
    d = A.sum(1)
    isq = 1 / np.sqrt(d)
    L = np.eye(len(d)) - A * np.outer(isq, isq)
    B = Q.toarray() * np.outer(isq, isq) - sol["beta"] / sol["vol"] * np.eye(len(d))
    V = sol["u"] / isq[:, None]
    R = L @ V - (B @ V) * sol["lam"]
    return np.abs(R).max() / np.abs(V).max()


def _links_graph(rng, n=450, coupling=None):
    x = rng.rand(n, 2)
    A = np.exp(-((x[:, None] - x[None]) ** 2).sum(-1) / 0.1)
    if coupling is not None:  # two blobs joined only by a tiny weight: nearly disconnected
        half = x[:, 0] < 0.5
        A[np.ix_(half, ~half)] *= coupling
        A[np.ix_(~half, half)] *= coupling
    nc = NC.from_pairs(n, [(0, 1), (2, 3), (4, 5)], [(0, 7), (7, 9), (11, 12)], cannot_w=[1.0, 0.5, 0.8])
    return A, csp.constraint_matrix(nc)


def _solve_by(solver, A, Q, k, monkeypatch):
    """``solve_csp`` forced onto one of its solvers: ``'roots'`` (Q_bar of low rank, as
    given), ``'congruence'`` or ``'arpack'``."""
    with monkeypatch.context() as m:
        if solver != "roots":
            m.setattr(csp, "ROOTS_MAX_RANK", -1)
        if solver == "arpack":
            m.setattr(csp, "CONGRUENCE_MAX_NODES", 0)
        else:  # the dispatch itself is checked: a graph this small never reaches ARPACK
            m.setattr(csp, "_by_arpack", lambda *a: pytest.fail("ARPACK called on a small graph"))
        return csp.solve_csp(A, Q, None, k)


def _same_solutions(a, b, rtol):
    m = b["u"].shape[1]
    assert a["u"].shape[1] == m
    assert np.allclose(a["lam"], b["lam"], rtol=rtol)
    assert np.allclose(a["cost"], b["cost"], rtol=rtol)
    for j in range(m):
        x, y = a["u"][:, j], b["u"][:, j]
        assert min(np.abs(x - y).max(), np.abs(x + y).max()) < 1e-4 * np.abs(y).max()


@pytest.mark.parametrize("coupling", [None, 1e-9])
def test_secular_solver_matches_the_dense_solve(coupling, rng, monkeypatch):
    """The rank-r secular solver (_by_roots) and the dense solve on L_bar's spectrum
    (_by_congruence) solve the same eq. 15: the same three cheapest feasible eigenpairs
    (up to sign), also on a nearly disconnected graph (L_bar's second eigenvalue ~1e-9),
    where the dense solve divides by that eigenvalue's square root and keeps a residual of
    6e-8 to 1.5e-6 depending on the graph's draw and the processor's rounding (the secular
    solver ~1e-10).

    Compared are the eigenpairs both return, not ``n_feasible``: on the nearly disconnected
    graph one eigenvalue of the pencil sits at the feasibility tolerance, and whether it is
    counted there depends on the processor's floating-point path."""
    A, Q = _links_graph(rng, coupling=coupling)
    roots = _solve_by("roots", A, Q, 3, monkeypatch)
    dense = _solve_by("congruence", A, Q, 3, monkeypatch)
    assert roots["u"].shape[1] == 3 and (roots["lam"] > 0).all()  # feasible: lambda > 0
    _same_solutions(roots, dense, rtol=1e-5 if coupling else 1e-9)
    assert _residual(A, Q, roots) < 1e-8
    assert _residual(A, Q, dense) < (1e-5 if coupling else 1e-8)  # 6e-8 to 1.5e-6 over 12 such graphs


def _high_rank_q(A, rng):
    """A constraint matrix of rank above ROOTS_MAX_RANK: 80 must-links and 40 cannot-links
    between random nodes, as a long session draws them."""
    n = A.shape[0]
    pairs = rng.choice(n, size=(120, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    Q = csp.constraint_matrix(NC.from_pairs(n, [tuple(map(int, p)) for p in pairs[:80]],
                                            [tuple(map(int, p)) for p in pairs[80:]]))
    Qbar, T, _, high_rank = csp._normalised_constraints(Q, 1 / np.sqrt(A.sum(1)), n)[:4]
    eig_T = np.linalg.eigvalsh(Qbar[T][:, T].toarray())
    assert np.sum(np.abs(eig_T) > 1e-12 * np.abs(eig_T).max()) > csp.ROOTS_MAX_RANK
    assert high_rank
    return Q


@pytest.mark.parametrize("rank", ["low", "high"])
def test_arpack_matches_the_dense_solve(rank, rng, monkeypatch):
    """ARPACK on the Schur-complement pencil (_by_arpack, graphs above
    CONGRUENCE_MAX_NODES) and the dense solve on L_bar's spectrum agree on a connected graph,
    for Q_bar of low rank (three links) and of high rank (a long session's). On the nearly
    disconnected graph of the test above ARPACK is not used as a reference: the Cholesky
    factor of ``L_bar + z z^T`` (condition ~1e10 there) made it return a spurious third
    vector on one processor (residual 8e6)."""
    A, Q = _links_graph(rng)
    if rank == "high":
        Q = _high_rank_q(A, rng)
    assert A.shape[0] <= csp.CONGRUENCE_MAX_NODES
    solver = "roots" if rank == "low" else "congruence"
    dense = _solve_by(solver, A, Q, 4, monkeypatch)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)  # its pairs pass the residual check
        arpack = _solve_by("arpack", A, Q, 4, monkeypatch)
    assert dense["n_feasible"] == arpack["n_feasible"]
    _same_solutions(dense, arpack, rtol=1e-6)
    assert _residual(A, Q, dense) < 1e-8
    assert _residual(A, Q, dense) <= _residual(A, Q, arpack) + 1e-10


def test_arpack_pairs_that_miss_the_pencil_are_solved_densely_with_a_warning(rng, monkeypatch):
    """Where ARPACK's feasible pairs miss the pencil (relative residual above
    ARPACK_MAX_RESIDUAL; seen on one processor on the nearly disconnected graph), the dense
    solve replaces them and a ConvergenceWarning says so. ARPACK's failure is made here (its
    first vector spoiled) so the test holds on any processor; on the connected graph its
    pairs pass the check without a warning (the test above)."""
    A, Q = _links_graph(rng, coupling=1e-9)
    dense = _solve_by("congruence", A, Q, 3, monkeypatch)
    real = csp._by_arpack

    def spoiled(*args):
        mu, W, n_feasible = real(*args)
        W = W.copy()
        W[:, 0] = np.roll(W[:, 0], 7)
        return mu, W, n_feasible

    monkeypatch.setattr(csp, "_by_arpack", spoiled)
    with pytest.warns(ConvergenceWarning, match="ARPACK's eigenpairs miss eq. 15"):
        fixed = _solve_by("arpack", A, Q, 3, monkeypatch)
    _same_solutions(fixed, dense, rtol=1e-12)


def test_a_graph_arpack_missed_is_solved_densely_from_then_on(rng, monkeypatch):
    """With a cache (the app's graphs), the first miss is warned about once; later calls on
    the same graph go to the dense solve without trying ARPACK or warning again."""
    from segapp.core.graph.cache import GraphCache

    A, Q = _links_graph(rng, coupling=1e-9)
    cache = GraphCache().scope("test")
    calls = []
    real = csp._by_arpack

    def spoiled(*args):
        calls.append(1)
        mu, W, n_feasible = real(*args)
        return mu, np.roll(W, 7, axis=0), n_feasible

    monkeypatch.setattr(csp, "_by_arpack", spoiled)
    monkeypatch.setattr(csp, "ROOTS_MAX_RANK", -1)
    monkeypatch.setattr(csp, "CONGRUENCE_MAX_NODES", 0)
    with pytest.warns(ConvergenceWarning, match="every later stroke"):
        first = csp.solve_csp(A, Q, None, 3, cache=cache)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        second = csp.solve_csp(A, Q, None, 3, cache=cache)
    assert calls == [1]
    _same_solutions(second, first, rtol=1e-12)


def test_congruence_solver_on_a_nearly_disconnected_graph(rng, monkeypatch):
    """Q_bar of high rank on the nearly disconnected graph: the dense solve's eigenpairs
    satisfy eq. 15 to the ridge's precision (residual below 1e-6)."""
    A, _ = _links_graph(rng, coupling=1e-9)
    Q = _high_rank_q(A, rng)
    dense = _solve_by("congruence", A, Q, 4, monkeypatch)
    assert dense["u"].shape[1] == 4 and (dense["lam"] > 0).all()
    assert _residual(A, Q, dense) < 1e-6


def _session_qs(A, rng):
    """A long session's constraint matrices: links drawn one at a time among random nodes
    (touching more than DENSE_SPECTRUM_MAX nodes, of rank above ROOTS_MAX_RANK), then two
    undone, then a different set: what the window sends stroke after stroke."""
    n = A.shape[0]
    pairs = rng.choice(n, size=(260, 2))
    pairs = [tuple(map(int, p)) for p in pairs if p[0] != p[1]]
    def q(links):
        half = len(links) * 2 // 3
        return csp.constraint_matrix(NC.from_pairs(n, links[:half], links[half:]))
    grown = [q(pairs[:m]) for m in range(200, 211)]
    return grown + [grown[-3], q(pairs[::-1][:205])]


def test_a_long_sessions_dense_solve_updated_stroke_by_stroke_equals_a_fresh_one(rng, monkeypatch):
    """The dense solve's ``U_1^T Q_bar U_1`` kept per graph and updated with the rows a
    stroke changed (csp_pencil.projected_constraints) gives, stroke after stroke and after
    an undo, the eigenpairs of a fresh solve (no cache) to rounding; and the update is
    what ran (not a fresh product each time)."""
    from segapp.core.graph.cache import GraphCache

    A, _ = _links_graph(rng)
    qs = _session_qs(A, rng)
    cache = GraphCache()
    monkeypatch.setattr(csp, "_by_arpack", lambda *a: pytest.fail("ARPACK called on a small graph"))
    updates = []
    for Q in qs:
        warm = csp.solve_csp(A, Q, None, 4, cache=cache)
        updates.append(cache.get(("csp-projected",), dict)["was"][2])
        cold = csp.solve_csp(A, Q, None, 4)
        Qbar, T, top, high_rank = csp._normalised_constraints(Q, 1 / np.sqrt(A.sum(1)), A.shape[0])[:4]
        assert len(T) > csp.DENSE_SPECTRUM_MAX and top.shape == (1,) and high_rank  # Lanczos, sketch, dense solve
        with monkeypatch.context() as m:  # Q_bar's whole spectrum, as before the Lanczos path
            m.setattr(csp, "DENSE_SPECTRUM_MAX", 10 ** 9)
            full = csp.solve_csp(A, Q, None, 4)
        _same_solutions(cold, full, rtol=1e-12)
        assert cold["n_feasible"] == full["n_feasible"] and cold["beta"] == pytest.approx(full["beta"], rel=1e-13)
        _same_solutions(warm, cold, rtol=1e-10)
        assert np.abs(warm["u"] - cold["u"]).max() < 1e-8 * np.abs(cold["u"]).max()
    assert updates[:11] == list(range(11))  # the first formed afresh, then ten updates
    assert updates[11] == 11  # the undo: two strokes' rows changed back
    assert updates[12] == 0  # another stroke set: formed afresh


def test_the_constraint_spectrum_on_many_nodes_matches_lapack(rng):
    """On more than DENSE_SPECTRUM_MAX nodes ``lambda_max`` comes from Lanczos and the rank
    test from a random sketch: the same ``lambda_max`` as LAPACK's, and the same choice of
    solver on both sides of ROOTS_MAX_RANK."""
    t = csp.DENSE_SPECTRUM_MAX + 100
    for rank in (csp.ROOTS_MAX_RANK - 4, csp.ROOTS_MAX_RANK, csp.ROOTS_MAX_RANK + 1, 3 * csp.ROOTS_MAX_RANK):
        F = sp.random(t, rank, density=0.05, random_state=rng, data_rvs=rng.standard_normal).toarray()
        F[np.arange(rank) % t, np.arange(rank)] += 1.0  # full column rank
        M = F @ np.diag(np.where(np.arange(rank) % 3, 1.0, -0.5)) @ F.T
        eig = np.linalg.eigvalsh(M)
        top, high = csp.constraint_spectrum(sp.csr_matrix(M))
        assert top.shape == (1,) and top[0] == pytest.approx(eig[-1], rel=1e-12)
        assert high == (np.sum(np.abs(eig) > 1e-12 * np.abs(eig).max()) > csp.ROOTS_MAX_RANK) == (rank > csp.ROOTS_MAX_RANK)


def test_lambda_max_of_blocks_no_constant_vector_sees():
    """Q_bar's blocks are the strokes' groups; a start vector with no component in one block
    would leave Lanczos blind to it. A must-link group (top eigenvector constant) beside
    cannot-linked pairs of equal degree (top eigenvectors (1, -1), eigenvalue 6): the
    largest eigenvalue is the pairs' 6; and cannot-linked pairs alone (Q_TT 1 = 0) are no
    error."""
    group = np.ones((250, 250)) / 250.0
    pair = 3.0 * np.array([[1.0, -1.0], [-1.0, 1.0]])
    Q_TT = sp.block_diag([group] + [pair] * 10, format="csr")
    top, _ = csp.constraint_spectrum(Q_TT)
    assert top[0] == pytest.approx(6.0, rel=1e-12)
    pairs = sp.block_diag([pair] * 110, format="csr")
    assert abs(pairs @ np.ones(220)).max() == 0
    top, high = csp.constraint_spectrum(pairs)
    assert top[0] == pytest.approx(6.0, rel=1e-12) and high  # rank 110


def test_arpack_gets_the_count_of_feasible_pairs_on_many_constrained_nodes(rng, monkeypatch):
    """Graphs above CONGRUENCE_MAX_NODES go to ARPACK, which must not be asked for more pairs
    than can be feasible (it then resolves the packed infeasible ones, 0.4 -> 3.2 s
    measured): there Q_bar's whole spectrum is computed however many nodes it touches, and
    ARPACK is asked for as many pairs as with the dense spectrum."""
    A, _ = _links_graph(rng)
    Q = _session_qs(A, rng)[-1]
    asked = []
    real = csp._by_arpack

    def spy(g, cache, Bs, n, k, z):
        asked.append(k)
        return real(g, cache, Bs, n, k, z)

    monkeypatch.setattr(csp, "_by_arpack", spy)
    monkeypatch.setattr(csp, "CONGRUENCE_MAX_NODES", 0)
    top = csp._normalised_constraints(Q, 1 / np.sqrt(A.sum(1)), A.shape[0], True)[2]
    sol = csp.solve_csp(A, Q, None, 4)
    c = sol["beta"] / sol["vol"]
    assert len(top) > csp.DENSE_SPECTRUM_MAX
    assert asked == [min(int(np.sum(top > c)), 4 + 3) + 1]


def test_secular_solver_keeps_coinciding_roots_apart():
    """Three identical blocks, equally joined, each with the same must-link and cannot-link:
    the swap symmetry makes some eq. 15 eigenvalues double. The solver returns two
    independent vectors for a double root, both satisfying eq. 15."""
    h = 12
    x = np.linspace(0, 1, h)
    Ah = np.exp(-((x[:, None] - x[None]) ** 2) / 0.05)
    A = np.kron(np.eye(3), Ah) + 1e-3 * (1 - np.eye(3 * h))
    nc = NC.from_pairs(3 * h, [(b, b + 1) for b in (0, h, 2 * h)], [(b + 2, b + 9) for b in (0, h, 2 * h)])
    Q = csp.constraint_matrix(nc)
    sol = csp.solve_csp(A, Q, None, 6)
    lam = sol["lam"]
    pairs = [j for j in range(len(lam) - 1) if np.isclose(lam[j], lam[j + 1], rtol=1e-9)]
    assert pairs, lam
    j = pairs[0]
    V = sol["u"][:, j:j + 2]
    assert np.linalg.matrix_rank(V, tol=1e-6 * np.abs(V).max()) == 2
    assert _residual(A, Q, sol) < 1e-8


def test_every_returned_vector_meets_the_bound_on_a_nearly_disconnected_graph():
    """Sec. 3.2: a feasible vector satisfies v^T Q_bar v > beta. The demo image's graph is
    nearly disconnected (L_bar has a second eigenvalue ~1e-16); there ARPACK on the pencil
    used to return the trivial direction, mixed with that near-null one, as the cheapest
    "feasible" vector (v^T Q_bar v = 1.1e3 against beta = 1.5e4): a must-link inside the
    sky then left the unconstrained cut in place. The secular solver returns only true ones."""
    from segapp import core
    from segapp.resources import DEMO_IMAGE

    prep = core.prepare(core.load_image(DEMO_IMAGE), method="csp")
    seg = core.segment(prep, core.Constraints(must_link=[(8, 8, 20, 60)]), method="csp", n_segments=2)
    assert seg.info["constraint_satisfaction"] > seg.params["beta"]
    assert np.isfinite(seg.eigenvalues[:seg.info["n_feasible"]]).all()


@pytest.mark.parametrize("beta", [-1e300, -1e20, -1000.0, 1e300])
def test_absurd_beta_is_a_clear_error(beta):
    """A finite but absurd beta is one of segapp's own errors naming the valid range, never
    an IndexError from an empty embedding (issue "Architecture", item 7)."""
    from segapp import core

    img = np.zeros((40, 60, 3))
    img[:, 30:] = 1.0
    img += np.random.RandomState(0).normal(0, 0.02, img.shape)
    cons = core.Constraints(must_link=[(5, 5, 30, 10, 1.0)], cannot_link=[(20, 10, 20, 50, 1.0)])
    with pytest.raises(core.SegappError, match="beta"):
        core.segment(img, cons, method="csp", n_segments=2, max_nodes=60, beta=beta, rounding="paper")
