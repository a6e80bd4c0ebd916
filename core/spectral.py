"""Shared spectral machinery: normalised affinities, eigensolvers, sign fixing, k-means.

Every method that ends in "spectral clustering on an affinity A" calls :func:`njw`, the
Ng, Jordan & Weiss (2001) algorithm on the normalised affinity ``D^-1/2 A D^-1/2`` whose
relaxation is Shi & Malik's (2000) normalised cut.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import scipy.linalg as sl
import scipy.sparse.linalg as sla

from .errors import ConvergenceWarning, DisconnectedGraphWarning

DENSE_BELOW = 400  # below this many nodes LAPACK is faster than ARPACK and always converges
MIN_DEGREE = 1e-12


@dataclass
class SpectralResult:
    """What a method hands back to :func:`core.segment` / the estimator.

    Attributes
    ----------
    labels : ndarray, shape (n,), int
    embedding : ndarray, shape (n, m), m >= min(3, n - 1)
        The leading non-trivial eigenvectors (node space), signs fixed.
    eigenvalues : ndarray, shape (m,)
    affinity : ndarray, shape (n, n) or None
        The (constrained) affinity that was clustered, where the method has one.
    info : dict
        Resolved parameters and diagnostics (e.g. csp's beta, ssap's preference).
    """

    labels: np.ndarray
    embedding: np.ndarray
    eigenvalues: np.ndarray
    affinity: np.ndarray | None
    info: dict


def fix_signs(vectors: np.ndarray) -> np.ndarray:
    """Flip each column so that its entry of largest magnitude is positive (deterministic)."""
    v = np.array(vectors, dtype=np.float64, copy=True)
    if v.ndim == 1:
        v = v[:, None]
    idx = np.argmax(np.abs(v), axis=0)
    s = np.sign(v[idx, np.arange(v.shape[1])])
    s[s == 0] = 1.0
    return v * s


def degrees(A: np.ndarray) -> np.ndarray:
    return A.sum(axis=1)


def check_connected(A: np.ndarray, what: str = "graph", stacklevel: int = 3) -> int:
    """Warn with :class:`DisconnectedGraphWarning` when ``A > 0`` has several components."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    n_comp = connected_components(csr_matrix(A > 0), directed=False)[0]
    if n_comp > 1:
        warnings.warn(f"the {what} has {n_comp} disconnected parts; each part is cut on its own "
                      "and the eigenvectors are piecewise constant over them",
                      DisconnectedGraphWarning, stacklevel=stacklevel)
    return int(n_comp)


def normalized_affinity(A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``S = D^-1/2 A D^-1/2`` and ``d^-1/2``; isolated nodes get a tiny degree."""
    d = np.maximum(degrees(A), MIN_DEGREE)
    isq = 1.0 / np.sqrt(d)
    S = A * isq[:, None]
    S *= isq[None, :]
    return (S + S.T) / 2.0, isq


def top_eigh(S: np.ndarray, k: int, *, which: str = "LA") -> tuple[np.ndarray, np.ndarray]:
    """Largest (``which='LA'``) or smallest (``'SA'``) ``k`` eigenpairs of symmetric ``S``.

    Returns eigenvalues in descending (LA) / ascending (SA) order and eigenvectors with
    fixed signs. ARPACK is used above :data:`DENSE_BELOW` nodes; if it does not converge,
    LAPACK computes the same eigenpairs and a :class:`ConvergenceWarning` says so.
    """
    n = S.shape[0]
    k = int(min(k, n))
    if n <= DENSE_BELOW or k >= n - 1:
        idx = (n - k, n - 1) if which == "LA" else (0, k - 1)
        w, v = sl.eigh(S, subset_by_index=idx)
    else:
        try:
            v0 = np.ones(n) / np.sqrt(n)
            w, v = sla.eigsh(S, k=k, which=which, v0=v0, tol=1e-8, maxiter=max(1000, 20 * n))
        except sla.ArpackNoConvergence:
            warnings.warn("ARPACK did not converge; the eigenvectors were computed densely instead",
                          ConvergenceWarning, stacklevel=3)
            idx = (n - k, n - 1) if which == "LA" else (0, k - 1)
            w, v = sl.eigh(S, subset_by_index=idx)
    order = np.argsort(-w) if which == "LA" else np.argsort(w)
    return w[order], fix_signs(v[:, order])


def kmeans_labels(E: np.ndarray, n_clusters: int, rng) -> np.ndarray:
    """k-means on the rows of ``E`` (scikit-learn, 10 restarts)."""
    from sklearn.cluster import KMeans

    if E.shape[0] <= n_clusters:
        return np.arange(E.shape[0]) % n_clusters
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # sklearn's "fewer distinct points than clusters"
        km = KMeans(n_clusters=n_clusters, n_init=10, random_state=rng).fit(E)
    return km.labels_.astype(np.int64)


def njw(A: np.ndarray, n_clusters: int, rng, *, n_show: int = 3, what: str = "graph",
        discretize: str = "kmeans") -> SpectralResult:
    """Spectral clustering of affinity ``A`` (Ng, Jordan & Weiss 2001).

    The top ``n_clusters`` eigenvectors ``v`` of ``S = D^-1/2 A D^-1/2`` are row-normalised
    and clustered by k-means (``discretize='kmeans'``) or by Yu & Shi's (2003) multiclass
    discretisation (``'yu-shi'``, used by rom's MSC).

    Returns
    -------
    SpectralResult
        ``embedding`` holds ``u = D^-1/2 v`` (Shi & Malik's generalised eigenvectors) for the
        leading non-trivial eigenvectors, ``eigenvalues`` the matching eigenvalues of the
        normalised Laplacian ``I - S``.
    """
    n = A.shape[0]
    check_connected(A, what, stacklevel=4)
    S, isq = normalized_affinity(A)
    k = min(n, max(n_clusters, n_show + 1))
    w, v = top_eigh(S, k)
    V = v[:, :n_clusters]
    if discretize == "yu-shi":
        from .discretize import yu_shi

        labels = yu_shi(V * isq[:, None], rng)
    else:
        rows = V / np.maximum(np.linalg.norm(V, axis=1, keepdims=True), 1e-300)
        labels = kmeans_labels(rows, n_clusters, rng)
    U = fix_signs(v[:, 1:] * isq[:, None])
    return SpectralResult(labels, U, 1.0 - w[1:], A, {})
