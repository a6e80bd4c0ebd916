"""Spectral clustering of an affinity (Ng, Jordan & Weiss 2001) and the result every method
hands back.

Every method that ends in "spectral clustering on an affinity A" calls :func:`njw`: the top
eigenvectors of the normalised affinity ``D^-1/2 A D^-1/2``, whose relaxation is Shi &
Malik's (2000) normalised cut, then :func:`~core.spectral.assign.assign_labels`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..graph.cache import memo
from .assign import assign_labels
from .eigen import top_eigh
from .linalg import check_connected, fix_signs, normalize, row_normalize


@dataclass
class SpectralResult:
    """What a method hands back to the pipeline.

    Attributes
    ----------
    labels : ndarray, shape (n,), int
        The paper's own rounding of the embedding.
    embedding : ndarray, shape (n, m)
        The leading non-trivial eigenvectors (node space), signs fixed; for display.
    eigenvalues : ndarray, shape (m,)
    affinity : ndarray, shape (n, n) or None
        The (constrained) affinity that was clustered, where the method has one.
    info : dict
        Resolved parameters and diagnostics (e.g. csp's beta, ssap's preference).
    cluster_embedding : ndarray, shape (n, p), optional
        The vectors the paper's rounding clustered (row-normalised for NJW), used again by
        the constrained rounding; ``None`` when the method has none (ssap).
    """

    labels: np.ndarray
    embedding: np.ndarray
    eigenvalues: np.ndarray
    affinity: np.ndarray | None
    info: dict = field(default_factory=dict)
    cluster_embedding: np.ndarray | None = None


def njw(A, n_clusters: int, rng, *, n_show: int = 3, what: str = "graph",
        rule: str = "kmeans", cache=None) -> SpectralResult:
    """Spectral clustering of affinity ``A`` (Ng, Jordan & Weiss 2001).

    The top ``n_clusters`` eigenvectors ``v`` of ``S = D^-1/2 A D^-1/2`` are row-normalised
    and clustered by k-means (``rule='kmeans'``), or ``u = D^-1/2 v`` (eigenvectors of
    ``D^-1 A``) are discretised by Yu & Shi (2003) (``'yu-shi'``, rom's MSC).

    Parameters
    ----------
    A : ndarray or sparse matrix, shape (n, n)
    n_clusters : int
    rng : numpy.random.RandomState
    n_show : int
        Non-trivial eigenvectors returned for display.
    what : str
        Names the graph in the disconnection warning.
    rule : {'kmeans', 'yu-shi'}
    cache : GraphCache or ScopedCache, optional
        Only when ``A`` is the graph the cache belongs to (ncut's unconstrained affinity): its
        connectivity and spectrum are then computed once (:mod:`core.graph.cache`).

    Returns
    -------
    SpectralResult
        ``embedding`` holds ``u = D^-1/2 v`` (Shi & Malik's generalised eigenvectors) for the
        leading non-trivial eigenvectors, ``eigenvalues`` the matching eigenvalues of the
        normalised Laplacian ``I - S``.
    """
    n = A.shape[0]
    check_connected(A, what, stacklevel=4, cache=cache)
    k = min(n, max(n_clusters, n_show + 1))
    w, v, isq = memo(cache, ("spectrum", k), lambda: spectrum(A, k))
    V = v[:, :n_clusters]
    E = row_normalize(V * isq[:, None] if rule == "yu-shi" else V)
    labels, _ = assign_labels(E, n_clusters, rng, rule)
    U = fix_signs(v[:, 1:] * isq[:, None])
    return SpectralResult(labels, U, 1.0 - w[1:], A, {}, cluster_embedding=E)


def spectrum(A, k: int) -> tuple:
    """The top ``k`` eigenpairs ``(w, v)`` of ``S = D^-1/2 A D^-1/2`` and ``d^-1/2``."""
    S, isq = normalize(A)
    w, v = top_eigh(S, k)
    return w, v, isq

