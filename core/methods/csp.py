"""Flexible constrained spectral clustering (Wang & Davidson, KDD 2010)."""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as sla

from ..graph.cache import memo
from ..errors import ConvergenceError, ConvergenceWarning, ParameterError
from ..params import MethodSpec, ParamSpec
from ..spectral import SpectralResult, assign_labels, check_connected, fix_signs, normalize, row_normalize
from .csp_pencil import CONGRUENCE_MAX_NODES, ROOTS_MAX_RANK, _by_arpack, _by_congruence, _by_roots, _by_spectrum

MAX_BETA_HALVINGS = 30  # eq. 17's beta / 2**30: about 1e-9 of it

PARAMS = (
    ParamSpec("beta", float, None,
              "Threshold beta of eq. 15, a lower bound on constraint satisfaction u^T Q u; "
              "empty = eq. 17, lambda_max vol (0.5 + 0.4 #constraints / N^2); must be "
              "below lambda_max(Q_bar) vol (sec. 3.3).",
              low=None, high=None,
              plain="How strictly the strokes must be obeyed: higher forces more of them to hold; "
                    "empty picks a value from the image and the number of strokes."),
)


def constraint_matrix(nc, n_segments_hint: int | None = None) -> sp.csr_matrix:
    """``Q`` of Wang & Davidson sec. 3.1 / eq. 16 from links and labelled blocks.

    Links follow sec. 3.1: ``Q_ij = Q_ji = +w`` (must-link) or ``-w`` (cannot-link), and
    ``Q_ii = 1`` (the largest ``w`` at ``i``) on every constrained node, a node's must-link with
    itself, so that all pairs among consistently labelled nodes give exactly ``Q = X X^T``
    (Fig. 1's ``Q``); blocks add
    ``X X^T`` (eq. 16) with ``X`` the centred one-hot label matrix scaled so that
    ``Q_ij = 1`` for equal and ``-1/(L-1)`` for different labels (``L`` labels, at least 2);
    for two labels this is the paper's ``+-1`` column.
    """
    n = nc.n_nodes
    rows, cols, vals = [], [], []
    diag = np.zeros(n)
    for idx, pairs, w, s in ((nc.link_must, nc.must, nc.must_w, 1.0),
                             (nc.link_cannot, nc.cannot, nc.cannot_w, -1.0)):
        p, wt = pairs[idx].reshape(-1, 2), np.asarray(w, float)[idx]
        rows.append(p.ravel())  # (i, j), (j, i) per pair, in the pairs' order
        cols.append(p[:, ::-1].ravel())
        vals.append(np.repeat(s * wt, 2))
        np.maximum.at(diag, p[:, 0], wt)
        np.maximum.at(diag, p[:, 1], wt)
    nz = np.flatnonzero(diag)
    rows = np.concatenate(rows + [nz])
    cols = np.concatenate(cols + [nz])
    vals = np.concatenate(vals + [diag[nz]])
    Q = sp.coo_matrix((vals, (rows, cols)), shape=(n, n)).tocsr()
    lab = nc.labels
    if lab.size and lab.max() >= 0:
        L = max(2, int(lab.max()) + 1)
        idx = np.flatnonzero(lab >= 0)
        X = np.full((len(idx), L), -1.0 / L)
        X[np.arange(len(idx)), lab[idx]] += 1.0
        X *= np.sqrt(L / (L - 1.0))
        B = X @ X.T
        r, c = np.meshgrid(idx, idx, indexing="ij")
        Q = Q + sp.coo_matrix((B.ravel(), (r.ravel(), c.ravel())), shape=(n, n)).tocsr()
    return Q.tocsr()


def default_beta(lam_max: float, vol: float, n_constraints: int, n: int) -> float:
    """Eq. 17: ``beta = lambda_max vol (0.5 + 0.4 #constraints / N^2)``."""
    return lam_max * vol * (0.5 + 0.4 * n_constraints / float(n) ** 2)


def graph_part(A: np.ndarray) -> dict:
    """What Algorithm 1 needs of the graph alone: degrees ``d``, ``vol``, ``d^-1/2``,
    ``L_bar = I - D^-1/2 A D^-1/2``, the trivial vector ``z = D^1/2 1 / sqrt(vol)`` and the
    right-hand matrix ``M = L_bar + z z^T`` (see :func:`solve_csp`).

    Raises
    ------
    ConvergenceError
        A node of zero degree.
    """
    n = A.shape[0]
    d = A.sum(1)
    if np.any(d <= 0):
        raise ConvergenceError("csp: a node has zero degree, so D^-1/2 in Algorithm 1 is undefined; "
                               "widen the affinity (sigma_position, sigma_intensity or gamma)")
    vol = float(d.sum())
    S, isq = normalize(A)
    Lbar = -S
    Lbar[np.diag_indices(n)] += 1.0
    z = np.sqrt(d) / np.sqrt(vol)
    # A 1e-10 ridge keeps the pencil definite when the graph is disconnected (L_bar then has
    # more than one null vector); it moves the feasible vectors by ~1e-10.
    Mmat = Lbar + np.outer(z, z) + 1e-10 * np.eye(n)
    return {"d": d, "vol": vol, "isq": isq, "Lbar": Lbar, "z": z, "Mmat": Mmat}


BETA_SPAN = 1e12  # |beta| beyond this times lambda_max * vol leaves Q_bar below float precision


def solve_csp(A: np.ndarray, Q, beta: float | None, n_vectors: int, cache=None):
    """Algorithm 1: feasible generalised eigenvectors of eq. 15, cheapest first.

    Parameters
    ----------
    A : ndarray, shape (n, n)
        Affinity (non-negative, symmetric).
    Q : sparse matrix, shape (n, n), or None
        Constraint matrix; ``None`` means the unconstrained special case ``Q_bar = I``
        (sec. 3.1).
    beta : float or None
        ``None``: eq. 17.
    n_vectors : int
        Most vectors to return (feasible only, cheapest first).
    cache : ScopedCache, optional
        ``A``'s cache: :func:`graph_part` and the eigendecomposition of ``L_bar`` (or the
        Cholesky factor of ``M``) are computed once per graph.

    Returns
    -------
    dict with ``u`` (n, k) relaxed indicators ``D^-1/2 v`` (feasible, by cost),
    ``cost`` (k,) ``v^T L_bar v / vol``, ``lam`` (k,) generalised eigenvalues, ``alpha`` (k,)
    ``v^T Q_bar v``, ``n_feasible``, ``beta``, ``lambda_max``, ``vol``.

    Notes
    -----
    Eq. 15, ``L_bar v = lambda (Q_bar - beta/vol I) v``, has an indefinite right-hand
    matrix ``B``. With ``z = D^1/2 1 / sqrt(vol)`` the null vector of ``L_bar``, every
    eigenvector with ``lambda != 0`` satisfies ``z^T B v = 0``. Writing ``v = a z + w``,
    ``w ⟂ z``, gives ``a = -z^T B w / z^T B z`` and the definite pencil
    ``B_s w = mu (L_bar + z z^T) w``, ``B_s = P B P - P B z z^T B P / (z^T B z)``,
    ``mu = 1 / lambda``: an exact reformulation (no approximation). Feasible = ``lambda > 0``
    (Algorithm 1 line 9), i.e. ``mu > 0``.

    Four solvers of the same equations, chosen by the form of ``Q_bar`` and the graph's size
    (none approximates; tests check the second and the third against the fourth):

    - ``Q_bar = I``: eq. 15's vectors are ``L_bar``'s own (:func:`_by_spectrum`).
    - ``Q_bar`` of rank at most :data:`ROOTS_MAX_RANK` (strokes and a few labelled blocks
      give rank ~ the number of links): a secular equation of that rank on the cached
      eigendecomposition of ``L_bar`` (:func:`_by_roots`), 5-30 ms per stroke on Berkeley
      images where ARPACK took 70-280 ms, with a smaller residual.
    - ``Q_bar`` of higher rank (a long session: about 20 strokes on) on a graph of at most
      :data:`CONGRUENCE_MAX_NODES` nodes: the definite pencil above made a standard
      symmetric problem by the same cached eigendecomposition, one dense LAPACK solve of
      order ``n - 1`` (:func:`_by_congruence`).
    - Otherwise: ARPACK on the definite pencil above with a Cholesky factor of
      ``L_bar + z z^T`` (:func:`_by_arpack`). On a nearly disconnected graph that factor's
      condition (~1e10) can make ARPACK return pairs that miss the pencil; where their
      relative residual exceeds :data:`ARPACK_MAX_RESIDUAL` the dense solve replaces them,
      with a :class:`~core.errors.ConvergenceWarning`, and (with a cache) solves every later
      call on the same graph without trying ARPACK again.

    Feasible vectors are each scaled to ``v^T v = vol`` (eq. 11) and ranked by cost
    ``v^T L_bar v`` (line 10). ``n_feasible`` counts all of them where the solver knows the count
    (``Q_bar = I`` and the secular solver); the dense solve and ARPACK count the ones they computed. Deviation for speed: only the ``n_vectors + 4`` feasible vectors of largest
    ``mu`` are computed and ranked, not all of them (all of them when there are that few).
    """
    g = memo(cache, ("csp-graph",), lambda: graph_part(A))
    n, vol, isq, Lbar, z = A.shape[0], g["vol"], g["isq"], g["Lbar"], g["z"]
    # ARPACK (graphs above CONGRUENCE_MAX_NODES) needs the exact count of Q_bar's eigenvalues
    # above c: asked for more pairs than are feasible it resolves the packed infeasible ones
    Qbar, T, top, high_rank, lam_max, n_constraints = _normalised_constraints(Q, isq, n, n > CONGRUENCE_MAX_NODES)
    if beta is None:
        beta = default_beta(lam_max, vol, n_constraints, n)
    _check_beta(beta, lam_max, vol)
    c = beta / vol

    def Bmul(x):
        return Qbar @ x - c * x

    Bz = Bmul(z)
    zBz = float(z @ Bz)
    if abs(zBz) < 1e-12 * max(1.0, np.abs(Bz).max()):
        raise ConvergenceError("csp: degenerate constraint matrix (z^T B z = 0); change beta slightly")
    Pbz = Bz - z * zBz  # P B z

    def Bs(x):
        x = np.asarray(x).reshape(n, -1)
        px = x - z[:, None] * (z @ x)
        y = Qbar @ px - c * px
        y = y - z[:, None] * (z @ y)
        return y - Pbz[:, None] * ((Pbz @ x) / zBz)

    # Q_bar's eigenvalues above c; only the largest is known on a long session's many nodes
    # of a graph the dense solve takes (n_vectors + 4 pairs computed, the feasible ones kept;
    # the secular solver counts its roots itself)
    n_pos = int(np.sum(top > c)) if Q is not None and len(top) == len(T) else n - 1
    # The feasible vectors are those of largest mu; ARPACK's count, kept by the other solvers:
    # the feasible count (known from the small Q_bar block, plus one for the inertia the
    # trivial direction can shift), at most n_vectors + 4.
    k = int(min(n - 1, min(n_pos, n_vectors + 3) + 1))
    if Q is None:
        mu, W, n_feasible = _by_spectrum(g, cache, c, k)
    elif not high_rank:  # Q_bar's rank at most ROOTS_MAX_RANK
        mu, W, n_feasible = _by_roots(g, cache, Qbar, T, c, zBz, k)
    elif n <= CONGRUENCE_MAX_NODES:
        mu, W, n_feasible = _by_congruence(g, cache, Qbar, T, Bz, zBz, c, k)
    else:
        state = memo(cache, ("csp-arpack",), dict)  # per graph: whether ARPACK missed the pencil on it
        if not state.get("missed"):
            mu, W, n_feasible = _by_arpack(g, cache, Bs, n, k, z)
            res = _pencil_residual(Bs, g["Mmat"], mu, W)
            if res > ARPACK_MAX_RESIDUAL:
                state["missed"] = True
                warnings.warn(f"csp: ARPACK's eigenpairs miss eq. 15 (relative residual {res:.1e}; the graph "
                              "may be nearly disconnected); solved densely on L_bar's eigendecomposition "
                              "instead, as every later stroke on this graph will be", ConvergenceWarning,
                              stacklevel=5)
        if state.get("missed"):
            mu, W, n_feasible = _by_congruence(g, cache, Qbar, T, Bz, zBz, c, k)
    a = -(W.T @ Bz) / zBz
    V = W + np.outer(z, a)
    V *= np.sqrt(vol) / np.linalg.norm(V, axis=0)
    cost = np.einsum("ij,ij->j", V, Lbar @ V)
    alpha = np.einsum("ij,ij->j", V, Qbar @ V)
    tol = _feasibility_tol(mu)
    feasible = mu > tol
    if n_feasible is None:
        n_feasible = int(feasible.sum())
    lam = np.where(np.abs(mu) > tol, 1.0 / np.where(mu == 0, 1.0, mu), np.inf)
    order = np.flatnonzero(feasible)[np.argsort(cost[feasible], kind="stable")][:max(n_vectors, 1)]
    U = fix_signs(V[:, order] * isq[:, None])
    return {"u": U, "cost": cost[order] / vol, "lam": lam[order], "alpha": alpha[order],
            "n_feasible": int(n_feasible), "beta": float(beta), "lambda_max": lam_max,
            "vol": vol}


ARPACK_MAX_RESIDUAL = 1e-6  # above this ARPACK's eigenpairs are solved again densely


def _feasibility_tol(mu: np.ndarray) -> float:
    """The ``mu`` above which an eigenpair counts as feasible (``lambda = 1 / mu > 0``)."""
    return 1e-10 * max(1.0, float(np.abs(mu).max(initial=0.0)))


def _pencil_residual(Bs, Mmat: np.ndarray, mu: np.ndarray, W: np.ndarray) -> float:
    """The largest relative residual ``|B_s w - mu M w| / (|B_s w| + |mu| |M w|)`` of the
    feasible eigenpairs ``(mu, w)`` (``mu > 0``, as :func:`solve_csp` counts them) of the
    definite pencil, 0 for none."""
    feasible = mu > _feasibility_tol(mu)
    mu, W = mu[feasible], W[:, feasible]
    if W.shape[1] == 0:
        return 0.0
    MW, BW = Mmat @ W, Bs(W)
    scale = np.linalg.norm(BW, axis=0) + np.abs(mu) * np.linalg.norm(MW, axis=0)
    return float((np.linalg.norm(BW - MW * mu, axis=0) / np.maximum(scale, 1e-300)).max())


def _normalised_constraints(Q, isq: np.ndarray, n: int, every: bool = False):
    """``Q_bar = D^-1/2 Q D^-1/2`` (eq. 15), the nodes it touches ``T``, its largest
    eigenvalues on them and whether its rank is high (:func:`constraint_spectrum`), its
    largest eigenvalue and the constraint count of eq. 17; ``Q = None`` is the
    unconstrained case ``Q_bar = I`` (sec. 3.1). ``every``: all eigenvalues, however many
    nodes."""
    if Q is None:
        return sp.identity(n, format="csr"), None, np.ones(n), True, 1.0, n
    Dm = sp.diags(isq)
    Qbar = (Dm @ Q @ Dm).tocsr()
    T = np.unique(Qbar.nonzero()[0])
    if len(T) == 0:
        raise ParameterError("csp: the constraint matrix Q is empty")
    top, high_rank = constraint_spectrum(Qbar[T][:, T], every)
    lam_max = float(top[0])
    if lam_max <= 0:
        raise ParameterError("csp: the constraint matrix has no positive eigenvalue, so no beta "
                             "gives a feasible solution (sec. 3.3)")
    return Qbar, T, top, high_rank, lam_max, int(Q.nnz)


DENSE_SPECTRUM_MAX = 200  # Q_bar touching at most this many nodes: all its eigenvalues, densely


def constraint_spectrum(Q_TT, every: bool = False) -> tuple[np.ndarray, bool]:
    """What Algorithm 1 needs of ``Q_bar``'s spectrum on the nodes ``T`` it touches: its
    eigenvalues, descending (``lambda_max`` for eq. 17, and those above ``beta / vol``,
    which bound the feasible count), and whether its rank exceeds :data:`ROOTS_MAX_RANK`
    (the choice between the secular and the dense solver, which solve the same equations).

    On at most :data:`DENSE_SPECTRUM_MAX` nodes, or with ``every``, all eigenvalues, by
    LAPACK, and the rank from them (``|eigenvalue| > 1e-12`` of the largest). On more (a
    long session: 558 nodes after 100 strokes on 100075.jpg, where the dense spectrum took
    13 ms) only ``lambda_max``, by ARPACK (Lanczos to machine precision from a fixed random
    start vector, which no block of ``Q_TT`` is orthogonal to; LAPACK where ARPACK fails),
    and the rank test on ``Q_TT Omega`` with ``Omega`` a fixed Gaussian matrix of
    ``ROOTS_MAX_RANK + 1`` columns: its smallest singular value is zero (to rounding)
    exactly when the rank is at most ``ROOTS_MAX_RANK``, with probability one over
    ``Omega``. The test only picks a solver, either of which is exact; its cut-off (1e-10
    of the largest singular value) is not the dense path's (1e-12 of the largest
    eigenvalue), which only matters for a rank held up by eigenvalues between the two.

    Parameters
    ----------
    Q_TT : sparse matrix, shape (t, t)
        Symmetric.
    every : bool
        All eigenvalues, however large ``t`` (ARPACK's solver needs their count above
        ``beta / vol``).

    Returns
    -------
    top : ndarray, shape (t,) or (1,)
        Eigenvalues, descending: all of them, or ``lambda_max`` alone on more than
        :data:`DENSE_SPECTRUM_MAX` nodes.
    high_rank : bool
    """
    t = Q_TT.shape[0]
    if t <= DENSE_SPECTRUM_MAX or every:
        eig = np.linalg.eigvalsh(Q_TT.toarray())[::-1]
        return eig, bool(np.sum(np.abs(eig) > 1e-12 * np.abs(eig).max()) > ROOTS_MAX_RANK)
    try:
        top = sla.eigsh(Q_TT, k=1, which="LA", v0=np.random.RandomState(0).uniform(0.5, 1.5, t), tol=0,
                        return_eigenvectors=False)
    except sla.ArpackError:  # no convergence among them
        top = np.linalg.eigvalsh(Q_TT.toarray())[-1:]
    if ROOTS_MAX_RANK < 0:
        high_rank = True
    else:
        Y = Q_TT @ np.random.RandomState(0).standard_normal((t, ROOTS_MAX_RANK + 1))
        sv = np.linalg.svd(Y, compute_uv=False)
        high_rank = bool(sv[-1] > 1e-10 * sv[0])
    return top, high_rank


def _check_beta(beta: float, lam_max: float, vol: float) -> None:
    """A ``beta`` with feasible solutions (Algorithm 1, line 4) that floating point can hold."""
    if beta < -BETA_SPAN * lam_max * vol:
        raise ParameterError(
            f"csp: beta = {beta:.6g} is below -{BETA_SPAN:.0e} * lambda_max(Q_bar) * vol = "
            f"{-BETA_SPAN * lam_max * vol:.6g}: the constraints would vanish next to it in floating "
            f"point. Use a beta in ({-BETA_SPAN * lam_max * vol:.6g}, {lam_max * vol:.6g}), or leave it "
            "empty to use eq. 17.")
    if beta >= lam_max * vol * (1.0 - 1e-10):
        raise ParameterError(
            f"csp: beta = {beta:.6g} must be below lambda_max(Q_bar) * vol = {lam_max:.6g} * "
            f"{vol:.6g} = {lam_max * vol:.6g}; no feasible solution exists otherwise (Algorithm 1, "
            "line 4). Leave beta empty to use eq. 17."
        )


def fit(K: np.ndarray, nc, n_clusters: int, rng, features=None, cache=None, *, beta=None) -> SpectralResult:
    """Constrained spectral clustering by generalised eigendecomposition (CSP).

    Parameters
    ----------
    K : ndarray, shape (n, n)
        Affinity ``A``.
    nc : NodeConstraints
        Links (with degrees of belief) and block labels; block pairs are not used, the labels
        enter through ``Q = X X^T`` (eq. 16).
    n_clusters : int
    rng : numpy.random.RandomState
    features : ndarray, optional
        Unused.
    cache : ScopedCache, optional
        ``K``'s stroke-independent results (:mod:`core.graph.cache`); ``None``: nothing kept.
    beta : float or None
        Eq. 15's threshold; ``None`` resolves by eq. 17 (reported in ``info['beta']``).

    Returns
    -------
    SpectralResult
        ``embedding[:, 0]`` is the relaxed indicator ``u* = D^-1/2 v*``; the columns are the
        feasible vectors (``lambda > 0``) ordered by cut cost. With fewer than 3 feasible
        vectors, :func:`core.pipeline.run_method` pads with zero columns (eigenvalue NaN).
        ``eigenvalues`` are the cut costs ``v^T L_bar v / vol`` (for ``Q_bar = I`` these are
        the normalised Laplacian's eigenvalues).

    Notes
    -----
    Problem 1 (eq. 3): ``min v^T L_bar v`` s.t. ``v^T Q_bar v >= alpha``, ``v^T v = vol``,
    ``v != D^1/2 1``; with ``beta = -mu vol / lambda`` (eq. 14) the KKT conditions become
    the generalised eigenproblem ``L_bar v = lambda (Q_bar - beta/vol I) v`` (eq. 15),
    solved by Algorithm 1 (see :func:`solve_csp`). Two segments: the sign of ``u*``
    (sec. 5.2). Eq. 3 drops ncut's ``D u ⟂ 1``, so ``u*`` carries a free constant part and with
    must-links alone it can have one sign everywhere, where the sign gives no cut; only then
    we split ``u*`` by 1-D 2-means (``info['split']`` says which rule was used). K segments: k-means on the top ``min(K, n_feasible)`` feasible vectors
    (sec. 4), rows normalised to unit length first as in NJW (the paper does not say; without
    it the vectors, concentrated on the constrained nodes, leave every other node at the
    origin and k-means degenerates). Without any constraint ``Q_bar = I`` (sec. 3.1), which is plain normalised
    cut. Every feasible vector satisfies ``v^T Q_bar v > beta`` (sec. 3.2, tested).

    Infeasible eq. 17 (a deviation, warned): when many must-links join most nodes, ``Q_bar``'s
    top direction is nearly the trivial ``D^1/2 1`` that eq. 3 excludes, so no admissible ``v``
    reaches eq. 17's ``beta`` (seen with 1000 random must-links on Berkeley images) although the
    input is valid. Eq. 17 is always tried first; when it leaves no feasible vector, ``beta``
    is halved, up to ``MAX_BETA_HALVINGS`` times, until one is, with a
    :class:`~core.errors.ConvergenceWarning`; ``info`` then holds ``beta_eq17`` and
    ``beta_halvings`` and ``info['beta']`` the ``beta`` used. A ``beta`` the caller gave is
    never changed: without feasible vectors it is an error that says so.

    **Graph.** Every method receives the same affinity (``affinity``: the contour kernel by
    default, the boundary graph's diffusion kernel, or the papers' Gaussian; each is
    described once in :mod:`core.graph.affinity`). With the contour kernel: eq. 9 normalises
    any affinity into L_bar; the Gaussian part keeps the unconstrained cut (round 0) that
    the boundary graph's diffusion kernel lost, and the contour factor keeps a stroke's
    effect, carried by L_bar, from jumping across an image edge. With the diffusion kernel:
    csp's eq. 9 normalises an affinity into L_bar = I - D^-1/2 K D^-1/2 and needs no kernel,
    but its constraints act only through that Laplacian: on the sparse boundary graph a
    stroke's effect stays local (measured: csp fell behind), so it gets the diffusion
    kernel, whose Laplacian carries a stroke along paths that do not cross image edges.

    **Rounding.** ``rounding='paper'`` keeps the step above; the default ``'constrained'``
    (our addition) re-rounds this embedding: :mod:`core.constraint_step`.

    References
    ----------
    X. Wang, I. Davidson, Flexible constrained spectral clustering, KDD 2010.
    """
    n_show = max(3, n_clusters)
    Q = None if (nc.empty and nc.n_labels == 0) else constraint_matrix(nc)
    if Q is not None and Q.nnz == 0:
        Q = None
    check_connected(K, "graph", stacklevel=4, cache=cache)
    sol = solve_csp(K, Q, beta, n_show, cache)
    info = {}
    if sol["n_feasible"] == 0 and beta is None and Q is not None:
        beta17, halvings = sol["beta"], 0
        while sol["n_feasible"] == 0 and halvings < MAX_BETA_HALVINGS:
            halvings += 1
            sol = solve_csp(K, Q, beta17 / 2.0 ** halvings, n_show, cache)
        if sol["n_feasible"]:
            warnings.warn(f"csp: no eigenvector is feasible at beta = {beta17:.4g} (eq. 17); beta was "
                          f"halved {halvings} time(s) to {sol['beta']:.4g}, where {sol['n_feasible']} "
                          "are", ConvergenceWarning, stacklevel=4)
        info.update(beta_eq17=beta17, beta_halvings=halvings)
    nf = sol["n_feasible"]
    if nf and sol["u"].shape[1] == 0:
        raise ConvergenceError(
            f"csp: at beta = {sol['beta']:.4g} every direction counts as feasible (beta <= 0 makes "
            "Q_bar - beta/vol I positive definite) and the solver, which looks for the few vectors "
            "of largest generalised eigenvalue, returned none; use a beta in (0, "
            f"{sol['lambda_max'] * sol['vol']:.6g}) or leave it empty to use eq. 17")
    if nf == 0:
        raise ConvergenceError(f"csp: no feasible eigenvector at beta = {sol['beta']:.4g} (all generalised "
                               "eigenvalues are non-positive); lower beta")
    U = sol["u"]
    E = U[:, :1] if n_clusters == 2 else row_normalize(U[:, :min(n_clusters, nf)])
    labels, info["split"] = assign_labels(E, n_clusters, rng, "sign" if n_clusters == 2 else "kmeans",
                                          normalize_rows=False)
    info.update({k: sol[k] for k in ("beta", "lambda_max", "n_feasible", "vol")})
    info["constraint_satisfaction"] = float(sol["alpha"][0])
    return SpectralResult(labels, U, sol["cost"], None, info, cluster_embedding=E)


SPEC = MethodSpec(
    name="csp",
    description="Constraints as a lower bound on u^T Q u; generalised eigenproblem "
                "L_bar v = lambda (Q_bar - beta/vol I) v; degree-of-belief weights and blocks.",
    plain=("Finds the image's best cut among those that satisfy your strokes to a set degree; "
           "takes labelled blocks and unsure (weighted) strokes."),
    reference="Wang & Davidson, KDD 2010",
    params=PARAMS,
    fit=fit,
)
