"""Graph matrices shared by every method: degrees, symmetric normalisation, row
normalisation, deterministic eigenvector signs and the connectivity check.

Each works on a dense ndarray or a scipy sparse matrix alike.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp

from ..errors import DisconnectedGraphWarning

MIN_DEGREE = 1e-12  # isolated nodes get this degree so D^-1/2 stays finite


def degrees(A) -> np.ndarray:
    """Row sums ``d = A 1`` as a 1-D float array, shape (n,)."""
    return np.asarray(A.sum(axis=1), dtype=np.float64).ravel()


def inv_sqrt_degrees(A) -> np.ndarray:
    """``d^-1/2`` with isolated nodes given the tiny degree :data:`MIN_DEGREE`."""
    return 1.0 / np.sqrt(np.maximum(degrees(A), MIN_DEGREE))


def normalize(A):
    """``S = D^-1/2 A D^-1/2`` (symmetrised) and ``d^-1/2``.

    Parameters
    ----------
    A : ndarray or sparse matrix, shape (n, n)
        Non-negative affinity.

    Returns
    -------
    S : same kind as ``A``, shape (n, n)
    isq : ndarray, shape (n,)
    """
    isq = inv_sqrt_degrees(A)
    if sp.issparse(A):
        Dm = sp.diags(isq)
        S = (Dm @ A @ Dm).tocsr()
        return ((S + S.T) * 0.5).tocsr(), isq
    S = A * isq[:, None]
    S *= isq[None, :]
    return (S + S.T) / 2.0, isq


def row_normalize(E: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (NJW's step before k-means); zero rows stay zero."""
    return E / np.maximum(np.linalg.norm(E, axis=1, keepdims=True), 1e-300)


def fix_signs(vectors: np.ndarray) -> np.ndarray:
    """Flip each column so that its entry of largest magnitude is positive (deterministic)."""
    v = np.array(vectors, dtype=np.float64, copy=True)
    if v.ndim == 1:
        v = v[:, None]
    idx = np.argmax(np.abs(v), axis=0)
    s = np.sign(v[idx, np.arange(v.shape[1])])
    s[s == 0] = 1.0
    return v * s


def n_components(A) -> int:
    """Number of connected components of the graph ``A > 0``."""
    from scipy.sparse.csgraph import connected_components

    if not sp.issparse(A):
        P = np.asarray(A) > 0
        # Breadth-first search from node 0 on the boolean matrix: a dense affinity with some
        # links cut (cannot-links, clipped negatives) is reached in two or three steps, O(n^2)
        # without a sparse copy; only a disconnected graph goes on to scipy for the count.
        seen = np.zeros(P.shape[0], bool)
        seen[:1] = True
        frontier = np.flatnonzero(seen)
        while frontier.size:
            new = P[frontier].any(axis=0) & ~seen
            seen |= new
            frontier = np.flatnonzero(new)
        if seen.size and seen.all():
            return 1
        G = sp.csr_matrix(P)
    else:
        G = A
    return int(connected_components(G, directed=False)[0])


def check_connected(A, what: str = "graph", stacklevel: int = 3, cache=None) -> int:
    """Warn with :class:`DisconnectedGraphWarning` when ``A > 0`` has several components.

    ``cache`` (a :class:`~core.graph.cache.GraphCache` of the graph ``A`` itself) keeps the
    count; the warning is given on every call."""
    n_comp = n_components(A) if cache is None else cache.get(("components",), lambda: n_components(A))
    if n_comp > 1:
        warnings.warn(f"the {what} has {n_comp} disconnected parts; each part is cut on its own "
                      "and the eigenvectors are piecewise constant over them",
                      DisconnectedGraphWarning, stacklevel=stacklevel)
    return n_comp
