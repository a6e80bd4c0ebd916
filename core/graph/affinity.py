"""Affinity matrices shared by every method."""

from __future__ import annotations

import numpy as np
from scipy.spatial.distance import cdist


def gaussian_affinity(features: np.ndarray) -> np.ndarray:
    """Dense Gaussian kernel ``K_ij = exp(-||f_i - f_j||^2 / 2)`` on pre-scaled features.

    Parameters
    ----------
    features : ndarray, shape (n, d)
        Features already divided by their kernel widths.

    Returns
    -------
    K : ndarray, shape (n, n)
        Symmetric, ``K_ii = 1``, entries in (0, 1]. Positive definite for distinct points,
        as Lu & Carreira-Perpinan (2008) eq. 1 require.
    """
    d2 = cdist(features, features, "sqeuclidean")
    np.multiply(d2, -0.5, out=d2)
    np.exp(d2, out=d2)
    return d2


def rbf_affinity(X: np.ndarray, gamma: float) -> np.ndarray:
    """``exp(-gamma ||x_i - x_j||^2)`` for the estimator's ``affinity='rbf'``."""
    d2 = cdist(X, X, "sqeuclidean")
    np.multiply(d2, -gamma, out=d2)
    np.exp(d2, out=d2)
    return d2


def median_gamma(X: np.ndarray) -> float:
    """``1 / median squared distance`` (the median heuristic), used when ``gamma=None``."""
    d2 = cdist(X, X, "sqeuclidean")
    med = float(np.median(d2[np.triu_indices_from(d2, 1)])) if len(X) > 1 else 1.0
    return 1.0 / med if med > 0 else 1.0


def knn_graph(K: np.ndarray, n_neighbors: int) -> np.ndarray:
    """Symmetrised k-nearest-neighbour weights from a kernel (Lu & Ip 2010, step (1)).

    ``W_ij = K_ij / sqrt(K_ii K_jj)`` if ``j`` is among the ``n_neighbors`` most similar
    points to ``i`` (``j != i``), else 0; then ``W = (W + W^T) / 2``.

    Returns
    -------
    W : ndarray, shape (n, n)
    """
    n = K.shape[0]
    k = int(min(n_neighbors, n - 1))
    diag = np.sqrt(np.clip(np.diag(K), 1e-300, None))
    Kn = K / diag[:, None] / diag[None, :]
    score = Kn.copy()
    np.fill_diagonal(score, -np.inf)
    idx = np.argpartition(-score, k - 1, axis=1)[:, :k]
    W = np.zeros_like(K)
    rows = np.repeat(np.arange(n), k)
    W[rows, idx.ravel()] = Kn[rows, idx.ravel()]
    return (W + W.T) / 2.0
