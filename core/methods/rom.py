"""Affinity graph by ranking on manifolds, with must-links (Xia et al., Neurocomputing 2009)."""

from __future__ import annotations

import hashlib

import numpy as np
import scipy.linalg as sl
from scipy.spatial.distance import pdist

from ..graph.cache import memo
from ..graph.node_constraints import components
from ..params import MethodSpec, ParamSpec
from ..spectral import SpectralResult, njw, normalize

PARAMS = (
    ParamSpec("alpha", float, None,
              "alpha = 1/(1+mu) of eqs. 3-5; empty = 0.99 without must-links (sec. 4.1), "
              "eq. 8 with them.",
              low=0.0, high=1.0, low_open=True, high_open=True,
              plain="How much the image's own similarities count against the strokes: closer to 1 "
                    "trusts the image more; empty chooses from the strokes."),
)


def closure_y(n: int, must: np.ndarray) -> np.ndarray:
    """``Y`` of SRoM-MSC steps 1-2: 1 on the diagonal and for every pair of the transitive
    closure of the must-links, 0 elsewhere."""
    comp = components(n, must)
    return (comp[:, None] == comp[None, :]).astype(np.float64)


def mean_distance(features: np.ndarray) -> float:
    """Eq. 8's denominator: the mean Euclidean distance ``D_ij`` over all pairs ``i < j``."""
    return float(pdist(features).mean())


def alpha_eq8(features: np.ndarray, must: np.ndarray, dall: float | None = None) -> float:
    """Eq. 8: ``alpha = 1 / (1 + mean D_ij over must-links / mean D_ij over all pairs)``.

    ``dall`` is :func:`mean_distance` of ``features`` when the caller has it already (it does
    not depend on the constraints)."""
    dm = np.linalg.norm(features[must[:, 0]] - features[must[:, 1]], axis=1).mean()
    if dall is None:
        dall = mean_distance(features)
    return 1.0 / (1.0 + dm / dall)


def rom_affinity(W: np.ndarray, Y: np.ndarray, alpha: float) -> np.ndarray:
    """RoM-AG, eq. 6: ``A* = (I - a S)^-1 Y + ((I - a S)^-1 Y)^T``, ``S = D^-1/2 W D^-1/2``.

    ``W`` has a zero diagonal (sec. 3.3). ``I - a S`` is symmetric positive definite for
    ``0 < a < 1`` (eigenvalues of ``S`` in [-1, 1]), so one Cholesky solve gives eq. 5.
    """
    W = W.copy()
    np.fill_diagonal(W, 0.0)
    S, _ = normalize(W)
    M = np.eye(len(W)) - alpha * S
    F = sl.cho_solve(sl.cho_factor(M), Y)
    return F + F.T


def ranking_spectrum(W: np.ndarray) -> tuple:
    """Eigenpairs ``(lam, V)`` of ``S = D^-1/2 W D^-1/2`` (``W`` with a zero diagonal): with
    them ``(I - a S)^-1 = V diag(1 / (1 - a lam)) V^T`` for every ``alpha`` (which eq. 8 takes
    from the must-links), so the constraints need no new factorisation."""
    W = np.array(W, dtype=float)
    np.fill_diagonal(W, 0.0)
    S, _ = normalize(W)
    return np.linalg.eigh(S)


def rom_affinity_spectral(lam: np.ndarray, V: np.ndarray, comp: np.ndarray, alpha: float) -> np.ndarray:
    """Eq. 6 as :func:`rom_affinity` computes it, from :func:`ranking_spectrum` and the must-link
    components ``comp`` (``Y_ij = 1`` iff ``comp[i] == comp[j]``).

    ``(I - a S)^-1 = G G^T`` with ``G = V diag(1 / (1 - a lam))^(1/2)`` (``|lam| <= 1`` and
    ``a < 1``: every factor is positive), one triangle of it formed by BLAS's symmetric
    rank-k product. Column ``j`` of ``(I - a S)^-1 Y`` is the sum of the columns of
    ``(I - a S)^-1`` over ``j``'s component: the column itself for a node no must-link joins,
    so only the nodes of must-link components are summed.
    """
    from scipy.linalg.blas import dsyrk

    n = len(comp)
    G = V * np.sqrt(1.0 / (1.0 - alpha * lam))
    upper = dsyrk(2.0, G.T, trans=1)  # 2 G G^T's upper triangle, zeros below (G.T: no copy)
    A = upper.T + upper  # F + F^T for F = (I - a S)^-1, i.e. Y = I; C order, as rows are read
    A.flat[:: n + 1] -= np.diagonal(upper)
    counts = np.bincount(comp)
    T = np.flatnonzero(counts[comp] > 1)  # nodes whose component holds others
    if len(T):
        rows = 0.5 * A[T]  # (I - a S)^-1's rows (= columns) of those nodes
        _, ci = np.unique(comp[T], return_inverse=True)
        sums = np.zeros((int(ci.max()) + 1, n))
        np.add.at(sums, ci, rows)  # each component's column sum
        D = sums[ci] - rows  # F[:, T] - (I - a S)^-1[:, T], transposed
        A[:, T] += D.T
        A[T, :] += D
        block = A[np.ix_(T, T)]  # added to twice, in two orders: made exactly symmetric again
        A[np.ix_(T, T)] = 0.5 * (block + block.T)
    return A


def zero_cannot_blocks(A: np.ndarray, comp: np.ndarray, cannot: np.ndarray) -> np.ndarray:
    """Zero ``A`` (in place) between the must-link components of each cannot-linked pair.

    Entry ``(p, q)`` is zeroed when some pair ``(i, j)`` of ``cannot`` has
    ``{comp[p], comp[q]} = {comp[i], comp[j]}`` (a pair inside one component zeroes that
    component's block). The pairs are first reduced to a component-level mask (a few
    components carry all of a stroke's pairs), so the work is one block of the rows and
    columns involved rather than one block per pair.

    Parameters
    ----------
    A : ndarray, shape (n, n)
    comp : ndarray of int, shape (n,)
        Must-link component of each node (:func:`~core.graph.node_constraints.components`).
    cannot : ndarray of int, shape (p, 2)

    Returns
    -------
    ndarray
        ``A``.
    """
    if len(cannot) == 0:
        return A
    m = int(comp.max()) + 1
    cc = comp[np.asarray(cannot)]
    Z = np.zeros((m, m), dtype=bool)
    Z[cc[:, 0], cc[:, 1]] = True
    Z[cc[:, 1], cc[:, 0]] = True
    rows = np.flatnonzero(Z.any(axis=1)[comp])  # the nodes of every component involved
    cr = comp[rows]
    block = A[np.ix_(rows, rows)]
    block[Z[np.ix_(cr, cr)]] = 0.0
    A[np.ix_(rows, rows)] = block
    return A


def fit(K: np.ndarray, nc, n_clusters: int, rng, features=None, cache=None, *, alpha=None) -> SpectralResult:
    """SRoM-MSC: RoM affinity graph from must-link closure, then Yu-Shi MSC.

    Parameters
    ----------
    K : ndarray, shape (n, n)
        Gaussian affinity; its off-diagonal part is ``W`` of eq. 1.
    nc : NodeConstraints
    n_clusters : int
    rng : numpy.random.RandomState
    features : ndarray, shape (n, d), optional
        Scaled features, for eq. 8's Euclidean distances; without them distances are
        ``sqrt(-2 log K)`` (the same for a unit Gaussian on scaled features).
    cache : ScopedCache, optional
        ``K``'s stroke-independent results (:mod:`core.graph.cache`); ``None``: nothing kept.
    alpha : float or None

    Returns
    -------
    SpectralResult
        ``affinity`` is ``A*`` of eq. 6 (cannot-linked entries zeroed, see Notes).

    Notes
    -----
    Eq. 6 is computed from the eigendecomposition of ``S`` (:func:`rom_affinity_spectral`),
    kept in ``cache``: a stroke changes ``Y`` and ``alpha`` only. Eq. 8's mean distance over
    all pairs is kept there too (keyed by the features' contents).
    ``Y = I`` without constraints and ``alpha = 0.99``; with must-links ``Y_ij = 1`` on their
    transitive closure and ``alpha`` by eq. 8. MSC (sec. 2.1): the top K eigenvectors of
    ``D^-1 A*`` discretised by Yu & Shi (2003).

    The paper has no cannot-links ("hard to integrate ... in the framework of RoM",
    sec. 5). We zero ``A*`` between the must-link components of each cannot-linked pair
    (every node joined to one end by must-links, against every node joined to the other),
    as spectral learning does for single pairs (:func:`zero_cannot_blocks`); without
    cannot-links the method is exactly the paper's.

    **Graph.** Every method receives the same affinity (``affinity``: the contour kernel by
    default, the boundary graph's diffusion kernel, or the papers' Gaussian; each is
    described once in :mod:`core.graph.affinity`). With the contour kernel: eq. 6's ranking
    spreads over a fully connected affinity; the contour factor keeps it from spreading
    across an image edge. With the diffusion kernel: rom's ranking on manifolds (eq. 6)
    spreads along a fully connected affinity; the diffusion kernel makes that affinity
    follow paths that avoid image edges.

    **Rounding.** ``rounding='paper'`` keeps the step above; the default ``'constrained'``
    (our addition) re-rounds this embedding: :mod:`core.constraint_step`.

    References
    ----------
    T. Xia, J. Cao, Y. Zhang, J. Li, On defining affinity graph for spectral clustering
    through ranking on manifolds, Neurocomputing 72, 2009.
    """
    n = K.shape[0]
    must = nc.must
    if alpha is None:
        if len(must):
            if features is None:
                f = memo(cache, ("rom-pseudo-features",), lambda: _pseudo_features(K))
            else:
                f = np.asarray(features)
            key = ("rom-mean-distance", f.shape, f.dtype.str,
                   hashlib.blake2b(np.ascontiguousarray(f).tobytes()).hexdigest())
            dall = memo(cache, key, lambda: mean_distance(f))
            alpha = alpha_eq8(f, must, dall)
        else:
            alpha = 0.99
    lam, V = memo(cache, ("rom-eigh",), lambda: ranking_spectrum(K))
    comp = components(n, must)
    A = zero_cannot_blocks(rom_affinity_spectral(lam, V, comp, alpha), comp, nc.cannot)
    res = njw(A, n_clusters, rng, what="RoM affinity graph", rule="yu-shi")
    res.info["alpha"] = float(alpha)
    return res


def _pseudo_features(K: np.ndarray) -> np.ndarray:
    """Classical MDS coordinates whose distances are ``sqrt(-2 log K)`` (for precomputed K)."""
    D2 = -2.0 * np.log(np.clip(K, 1e-300, 1.0))
    n = len(K)
    J = np.eye(n) - 1.0 / n
    B = -0.5 * J @ D2 @ J
    w, v = np.linalg.eigh((B + B.T) / 2)
    w = np.clip(w, 0, None)
    return v * np.sqrt(w)


SPEC = MethodSpec(
    name="rom",
    description="Affinity graph by ranking on manifolds (eq. 6) with must-link transitive closure "
                "in Y, then Yu-Shi multiclass spectral clustering.",
    plain=("Ranks every region by how strongly it connects to each stroke end, groups regions by "
           "those rankings, then splits the image."),
    reference="Xia, Cao, Zhang & Li, Neurocomputing 2009",
    params=PARAMS,
    fit=fit,
)
