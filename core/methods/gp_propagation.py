"""Constrained spectral clustering through affinity propagation (Lu & Carreira-Perpinan 2008)."""

from __future__ import annotations

import threading

import numpy as np
import scipy.linalg as sl

from ..errors import ConvergenceError
from ..params import MethodSpec, ParamSpec
from ..spectral import SpectralResult, njw

PARAMS = (
    ParamSpec("epsilon_m", float, 1e-5,
              "Must-link softness eps_m of observation (M): f_i - f_j ~ N(0, eps_m^2) "
              "(Lu & Carreira-Perpinan 2008, eq. 3); small = hard. The paper used 1e-5.",
              low=0.0, high=1e3, low_open=True, log_scale=True,
              plain="How softly a must-link is kept: small means the two pixels are surely together."),
    ParamSpec("epsilon_c", float, 1e-5,
              "Cannot-link softness eps_c of observation (C): f_i + f_j ~ N(0, eps_c^2) (eq. 3).",
              low=0.0, high=1e3, low_open=True, log_scale=True,
              plain="How softly a cannot-link is kept: small means the two pixels are surely apart."),
    ParamSpec("algorithm", str, "auto",
              "Algorithm A (all links at once, two classes) or B (each cannot-link separately, "
              "no false affinities, sec. 2); auto: A for 2 segments, B otherwise.",
              choices=("auto", "A", "B")),
)


def constraint_matrix(pairs_m, w_m, pairs_c, w_c, eps_m, eps_c):
    """The non-zero block of ``M`` (eq. 3) on the constrained nodes.

    Returns
    -------
    S : ndarray, shape (s,)
        The constrained node indices.
    Ms : ndarray, shape (s, s)
        ``M`` restricted to ``S``: ``M_ii = sum_j w_ij / eps^2`` over the links at ``i``,
        ``M_ij = -w/eps_m^2`` (must-link), ``+w/eps_c^2`` (cannot-link). A degree of belief
        ``w`` scales the link's precision ``1/eps^2``.
    """
    S = np.unique(np.concatenate([np.ravel(pairs_m), np.ravel(pairs_c)]).astype(np.int64))
    Ms = np.zeros((len(S), len(S)))
    for pairs, w, sign, eps in ((pairs_m, w_m, -1.0, eps_m), (pairs_c, w_c, 1.0, eps_c)):
        ab = np.searchsorted(S, np.asarray(pairs, np.int64).reshape(-1, 2))
        p = np.asarray(w, float).ravel() / eps ** 2
        if len(p) == 0:
            continue
        a, b = ab[:, 0], ab[:, 1]
        # per pair, in the pairs' order: (a, a) += p, (b, b) += p, (a, b) and (b, a) += sign p
        rows = np.stack([a, b, a, b], 1).ravel()
        cols = np.stack([a, b, b, a], 1).ravel()
        np.add.at(Ms, (rows, cols), np.stack([p, p, sign * p, sign * p], 1).ravel())
    return S, Ms


def low_rank_part(K: np.ndarray, S: np.ndarray, Ms: np.ndarray) -> np.ndarray:
    """``X`` (shape (n, r)) with ``(K^-1 + M)^-1 = K - X X^T``, ``M`` supported on nodes ``S``.

    Eq. 2's second form ``K - K (I + M K)^-1 M K`` needs only an ``s x s`` system. ``M`` is
    positive semi-definite (each link adds ``(e_i -+ e_j)(e_i -+ e_j)^T / eps^2``), so with
    ``Ms = V L V^T`` (its ``r`` positive eigenpairs) and ``U = P V`` the same matrix is the
    Woodbury form ``K - K U (L^-1 + U^T K U)^-1 U^T K``, whose ``r x r`` matrix ``C`` is
    symmetric positive definite and well conditioned even for hard links (``eps = 1e-5``)
    between near-identical nodes. With ``C = L_C L_C^T`` (Cholesky), ``X = K U L_C^-T``.
    No ``N x N`` inverse is formed.
    """
    lam, V = np.linalg.eigh((Ms + Ms.T) / 2.0)
    keep = lam > lam.max() * 1e-12
    lam, V = lam[keep], V[:, keep]
    KU = K[:, S] @ V  # (n, r)
    core_ = np.diag(1.0 / lam) + V.T @ KU[S]
    try:
        Lc = np.linalg.cholesky((core_ + core_.T) / 2.0)
    except np.linalg.LinAlgError as e:
        raise ConvergenceError(f"gp-propagation: the constraint system is singular ({e}); "
                               "try larger epsilon_m / epsilon_c") from None
    return sl.solve_triangular(Lc, KU.T, lower=True).T


def propagate(K: np.ndarray, S: np.ndarray, Ms: np.ndarray) -> np.ndarray:
    """``K_bar = (K^-1 + M)^-1`` with ``M`` supported on nodes ``S`` (eq. 2), as
    ``K - X X^T`` (:func:`low_rank_part`; ``X X^T`` is computed as a symmetric product, so
    ``K_bar`` is exactly symmetric)."""
    if len(S) == 0:
        return K.copy()
    X = low_rank_part(K, S, Ms)
    return K - X @ X.T


def _links(pairs, w, n: int, cannot: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The links with one sortable code each (node pair and kind), sorted: codes, pairs
    ``(i < j)``, weights. A pair given twice is one link with the weights summed: the same
    ``M`` (eq. 3 adds a term per link)."""
    pairs = np.sort(np.asarray(pairs, np.int64).reshape(-1, 2), axis=1)
    codes = (pairs[:, 0] * n + pairs[:, 1]) * 2 + int(cannot)
    codes, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
    weights = np.bincount(inverse.ravel(), weights=np.asarray(w, float).ravel(), minlength=len(codes))
    return codes, pairs[first], weights


def _added(codes: np.ndarray, weights: np.ndarray, old_codes: np.ndarray, old_w: np.ndarray):
    """Which of the sorted links ``codes`` are not among ``old_codes`` (bool mask); None where
    an old link is missing or has another weight."""
    at = np.searchsorted(codes, old_codes)
    if (at >= len(codes)).any() or not np.array_equal(codes[at], old_codes) \
            or not np.array_equal(weights[at], old_w):
        return None
    new = np.ones(len(codes), bool)
    new[at] = False
    return new


def posterior(K: np.ndarray, pairs_m, w_m, pairs_c, w_c, eps_m, eps_c, cache=None,
              kind: str = "gp-posterior") -> np.ndarray:
    """``K_bar = (K^-1 + M)^-1`` (eq. 2) for the given links (eq. 3), updated from the last
    ``K_bar`` of this ``K`` where that one's links are among them.

    ``M`` is a sum over links, so with the links of an earlier call (``M_old``) among today's,
    ``(K^-1 + M_old + M_new)^-1 = (K_bar_old^-1 + M_new)^-1``: the same Woodbury form
    (:func:`low_rank_part`) on ``K_bar_old`` with only the links added since. In a session,
    where each stroke adds a few links to hundreds, a stroke then costs a system of the new
    links' size instead of one of all of them (100 strokes on 100075.jpg: 558 constrained
    nodes of 800). The result equals the one-shot form up to rounding (tested over a long
    session); where links were removed or reweighted, or the update's system is not positive
    definite, the one-shot form runs. ``cache`` (:mod:`core.graph.cache`, scoped by ``K``'s
    settings) keeps the last result under ``kind``; ``None``: the one-shot form.

    Returns
    -------
    ndarray, shape (n, n)
        Read-only when cached.
    """
    n = K.shape[0]
    cm, pm, wm = _links(pairs_m, w_m, n, False)
    cc, pc, wc = _links(pairs_c, w_c, n, True)

    def one_shot(base, am=slice(None), ac=slice(None)):
        S, Ms = constraint_matrix(pm[am], wm[am], pc[ac], wc[ac], eps_m, eps_c)
        return propagate(base, S, Ms)

    if cache is None:
        return one_shot(K)
    last = cache.get((kind,), lambda: {"lock": threading.Lock()})  # a mutable holder: the last result on this K
    with last["lock"]:
        was, base = last.get("links"), last.get("K_bar")
    Kb = None
    if was is not None and was[2:] == ((eps_m, eps_c), n):
        new = [_added(codes, weights, *old) for codes, weights, old in ((cm, wm, was[0]), (cc, wc, was[1]))]
        if new[0] is not None and new[1] is not None:
            try:
                Kb = one_shot(base, *new) if new[0].any() or new[1].any() else base
            except ConvergenceError:
                Kb = None
    if Kb is None:
        Kb = one_shot(K)
    Kb.flags.writeable = False
    with last["lock"]:
        last["links"], last["K_bar"] = ((cm, wm), (cc, wc), (eps_m, eps_c), n), Kb
    return Kb


def algorithm_a(K, nc, eps_m, eps_c, cache=None) -> np.ndarray:
    """Algorithm A: ``A = max(0, (K^-1 + M)^-1)`` with ``M`` from all links (eq. 2-3)."""
    return np.maximum(posterior(K, nc.must, nc.must_w, nc.cannot, nc.cannot_w, eps_m, eps_c, cache), 0.0)


def algorithm_b(K, nc, eps_m, eps_c, cache=None) -> np.ndarray:
    """Algorithm B: must-links first, then each cannot-link separately; entry-wise minimum.

    ``K^m = (K^-1 + M^m)^-1``; ``K^{c,k} = ((K^m)^-1 + M^{c,k})^-1`` for each cannot-link
    ``k``; ``A = max(0, min_k K^{c,k})`` (``A = max(0, K^m)`` without cannot-links). On
    images, ``k`` runs over strokes (``nc.cannot_group``): the node pairs of one stroke join
    two neighbourhoods and are enforced together; for pairs given directly every pair is its
    own group, exactly the paper's step 1b.
    """
    Km = posterior(K, nc.must, nc.must_w, np.zeros((0, 2)), [], eps_m, eps_c, cache, kind="gp-posterior-must")
    if len(nc.cannot) == 0:
        return np.maximum(Km, 0.0)
    # min_k K^{c,k} = K^m - max_k X_k X_k^T: one n x n product per cannot-link group.
    P = None
    for g in np.unique(nc.cannot_group):
        sel = nc.cannot_group == g
        S, Ms = constraint_matrix(np.zeros((0, 2)), [], nc.cannot[sel], nc.cannot_w[sel], eps_m, eps_c)
        X = low_rank_part(Km, S, Ms)
        P = X @ X.T if P is None else np.maximum(P, X @ X.T, out=P)
    A = np.subtract(Km, P, out=P)
    return np.maximum(A, 0.0, out=A)


def fit(K: np.ndarray, nc, n_clusters: int, rng, features=None, cache=None, *, epsilon_m=1e-5,
        epsilon_c=1e-5, algorithm="auto") -> SpectralResult:
    """Affinity propagation of pairwise constraints, then spectral clustering.

    Parameters
    ----------
    K : ndarray, shape (n, n)
        Positive definite affinity (Gaussian, ``K_ii = 1``) read as the covariance of a
        zero-mean Gaussian process (eq. 1).
    nc : NodeConstraints
    n_clusters : int
    rng : numpy.random.RandomState
    features : ndarray, shape (n, d), optional
        Unused.
    cache : ScopedCache, optional
        ``K``'s stroke-independent results (:mod:`core.graph.cache`); ``None``: nothing kept.
    epsilon_m, epsilon_c : float
        Softness of must- and cannot-links (eq. 3).
    algorithm : {'auto', 'A', 'B'}

    Returns
    -------
    SpectralResult
        ``affinity`` is the clipped propagated affinity ``A`` that was clustered.

    Notes
    -----
    Must-link (M): ``f_i - f_j ~ N(0, eps_m^2)``; cannot-link (C): ``f_i + f_j ~ N(0, eps_c^2)``.
    The posterior covariance is ``K_bar = (K^-1 + M)^-1 = K - K (I + M K)^-1 M K`` (eq. 2)
    with ``M`` of eq. 3. Negative entries are set to 0 (sec. 2) and NJW spectral clustering
    runs on the result. Algorithm B avoids the "false affinity" that two cannot-links to one
    point create (Fig. 4).

    Eq. 5 writes the single-link ``M`` with ``1 / (2 eps^2)`` while eq. 3 has ``1 / eps^2``;
    we follow eq. 3 (it is the likelihood's precision), so the closed forms eqs. 6-8 hold
    with their ``eps^2`` equal to half of ours (tested).

    **Graph.** Every method receives the same affinity (``affinity``: the contour kernel by
    default, the boundary graph's diffusion kernel, or the papers' Gaussian; each is
    described once in :mod:`core.graph.affinity`). With the contour kernel: eq. 1 reads the
    affinity as a Gaussian-process covariance and inverts it, so it must be positive
    definite: the contour kernel is (see :func:`~core.graph.affinity.contour_affinity`).
    With the diffusion kernel: gp-propagation's eq. 1 treats the affinity as a
    Gaussian-process covariance and inverts it, so it needs a positive-definite kernel: the
    diffusion kernel is one (its eigenvalues are 1 / (1 + t lambda_i) > 0), the sparse
    boundary graph is not.

    **Rounding.** ``rounding='paper'`` keeps the step above; the default ``'constrained'``
    (our addition) re-rounds this embedding: :mod:`core.constraint_step`.

    References
    ----------
    Z. Lu, M. A. Carreira-Perpinan, Constrained spectral clustering through affinity
    propagation, CVPR 2008.
    """
    algo = algorithm if algorithm != "auto" else ("A" if n_clusters == 2 else "B")
    A = (algorithm_a if algo == "A" else algorithm_b)(K, nc, epsilon_m, epsilon_c, cache)
    res = njw(A, n_clusters, rng, what="propagated affinity graph")
    res.info["algorithm"] = algo
    return res


SPEC = MethodSpec(
    name="gp-propagation",
    description="Constraints propagated through the affinity as Gaussian-process observations "
                "(K_bar = (K^-1 + M)^-1), then spectral clustering.",
    plain=("Treats each stroke as a measurement of how alike two regions are, spreads it along "
           "similar colours, then splits the image."),
    reference="Lu & Carreira-Perpinan, CVPR 2008",
    params=PARAMS,
    fit=fit,
)
