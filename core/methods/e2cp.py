"""Exhaustive and efficient constraint propagation (Lu & Ip, ECCV 2010)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as sla

from ..graph.affinity import knn_graph
from ..graph.cache import memo
from ..params import MethodSpec, ParamSpec
from ..spectral import SpectralResult, njw, normalize
from ..spectral.sandwich import new_holder, sandwich

PARAMS = (
    ParamSpec("n_neighbors", int, 20, "k of the k-NN graph W of step (1) (the paper used 20).",
              low=1, high=500),
    ParamSpec("alpha", float, 0.8,
              "Propagation weight alpha in (0, 1) of steps (3)-(4) and eq. 3 (the paper used 0.8).",
              low=0.0, high=1.0, low_open=True, high_open=True,
              plain="How far each stroke spreads to similar pixels: closer to 1 reaches further."),
)


def normalized_knn(K: np.ndarray, n_neighbors: int):
    """Steps (1)-(2): k-NN weights ``W`` and ``L~ = D^-1/2 W D^-1/2`` (sparse)."""
    W = knn_graph(K, n_neighbors)
    Lt, _ = normalize(sp.csr_matrix(W))
    return W, Lt


def graph_part(K: np.ndarray, n_neighbors: int, alpha: float) -> tuple:
    """Steps (1)-(2) and the inverse of step (3)'s system: ``(W, L~, (I - a L~)^-1)``, which
    the constraints do not change (dense ``n x n``: ``n`` is the node count, at most
    ``max_nodes``, small by design; each stroke then takes columns of it instead of
    ``s`` sparse solves)."""
    W, Lt = normalized_knn(K, n_neighbors)
    return W, Lt, propagation_lu(Lt, alpha).solve(np.eye(K.shape[0]))


def constraint_matrix_z(nc) -> sp.csr_matrix:
    """``Z`` of eq. 1: ``+w`` for must-links, ``-w`` for cannot-links (soft ``|Z_ij| <= 1``)."""
    n = nc.n_nodes
    r = np.concatenate([nc.must[:, 0], nc.must[:, 1], nc.cannot[:, 0], nc.cannot[:, 1]])
    c = np.concatenate([nc.must[:, 1], nc.must[:, 0], nc.cannot[:, 1], nc.cannot[:, 0]])
    v = np.concatenate([nc.must_w, nc.must_w, -nc.cannot_w, -nc.cannot_w])
    Z = sp.coo_matrix((v, (r, c)), shape=(n, n)).tocsr()
    Z.sum_duplicates()
    return Z


def propagation_lu(Lt: sp.spmatrix, alpha: float):
    """The sparse LU factor of ``I - a L~`` (stroke-independent)."""
    n = Lt.shape[0]
    return sla.splu((sp.identity(n, format="csc") - alpha * Lt).tocsc())


def propagate(Lt: sp.spmatrix, Z: sp.spmatrix, alpha: float, inverse=None, last=None) -> np.ndarray:
    """Closed form eq. 3: ``F* = (1-a)^2 (I - a L~)^-1 Z (I - a L~)^-1``.

    ``Z`` is non-zero only on the ``s`` constrained nodes ``S``, so with
    ``G = (I - a L~)^-1[:, S]`` (``s`` sparse solves, or columns of ``inverse``)
    ``F* = (1-a)^2 G Z[S, S] G^T``. ``inverse``: ``(I - a L~)^-1`` (dense), when the caller
    keeps it (:func:`graph_part`); with it, ``last`` (a holder kept per graph) updates the
    product from the last call's with the rows of ``Z`` a stroke changed
    (:func:`core.spectral.sandwich.sandwich`; equal to the fresh product to rounding).
    """
    n = Lt.shape[0]
    S = np.unique(Z.nonzero()[0])
    if len(S) == 0:
        return np.zeros((n, n))
    if inverse is None:
        E = np.zeros((n, len(S)))
        E[S, np.arange(len(S))] = 1.0
        G = propagation_lu(Lt, alpha).solve(E)
        F = (1.0 - alpha) ** 2 * (G @ Z[S][:, S].toarray() @ G.T)
    else:
        F = (1.0 - alpha) ** 2 * sandwich(inverse, Z, last)
    return (F + F.T) / 2.0


def reweight(W: np.ndarray, F: np.ndarray) -> np.ndarray:
    """Eq. 4: ``W~ = 1 - (1 - F)(1 - W)`` where ``F >= 0``, ``(1 + F) W`` where ``F < 0``."""
    return np.where(F >= 0, 1.0 - (1.0 - F) * (1.0 - W), (1.0 + F) * W)


def fit(K: np.ndarray, nc, n_clusters: int, rng, features=None, cache=None, *, n_neighbors=20,
        alpha=0.8) -> SpectralResult:
    """E2CP: propagate both kinds of constraints to every pair, then spectral clustering.

    Parameters
    ----------
    K : ndarray, shape (n, n)
        Affinity ``A(x_i, x_j)`` (Gaussian).
    nc : NodeConstraints
    n_clusters : int
    rng : numpy.random.RandomState
    features : ndarray, optional
        Unused (the k-NN graph is taken from ``K``: the most similar points).
    cache : ScopedCache, optional
        ``K``'s stroke-independent results (:mod:`core.graph.cache`); ``None``: nothing kept.
    n_neighbors : int
    alpha : float

    Returns
    -------
    SpectralResult
        ``affinity`` is ``W~`` of eq. 4.

    Notes
    -----
    (1) ``W`` is the symmetrised k-NN graph of ``K``; (2) ``L~ = D^-1/2 W D^-1/2``;
    (3)-(5) vertical then horizontal label propagation of the constraint matrix ``Z``
    (eq. 1), whose limit is eq. 3; the exhaustive constraints ``F*`` reweight ``W`` by eq. 4
    (Proposition 1: ``W~ >= 0``, symmetric, ``W~ >= W`` where ``F* >= 0``); NJW spectral
    clustering of ``W~``. The paper takes "the K largest nontrivial eigenvectors"; we take the
    top K as every other method here (NJW), including the near-constant one.

    **Graph.** Every method receives the same affinity (``affinity``: the contour kernel by
    default, the boundary graph's diffusion kernel, or the papers' Gaussian; each is
    described once in :mod:`core.graph.affinity`). With the contour kernel: its first step
    is a k-NN graph over a fully connected affinity (sec. 3.1); with the contour factor the
    k nearest neighbours of a node lie on its side of an image edge. With the diffusion
    kernel: e2cp's first step is a k-NN graph over a fully connected affinity (sec. 3.1):
    the diffusion kernel ranks every pair by paths that avoid image edges, so the k nearest
    neighbours of a node lie on its side of a boundary.

    **Rounding.** ``rounding='paper'`` keeps the step above; the default ``'constrained'``
    (our addition) re-rounds this embedding: :mod:`core.constraint_step`.

    References
    ----------
    Z. Lu, H. H. S. Ip, Constrained spectral clustering via exhaustive and efficient
    constraint propagation, ECCV 2010.
    """
    W, Lt, inverse = memo(cache, ("e2cp-graph", int(n_neighbors), float(alpha)),
                          lambda: graph_part(K, n_neighbors, alpha))
    Z = constraint_matrix_z(nc)
    last = None if cache is None else memo(cache, ("e2cp-propagated", int(n_neighbors), float(alpha)), new_holder)
    F = propagate(Lt, Z, alpha, inverse, last)
    Wt = reweight(W, F)
    return njw(Wt, n_clusters, rng, what="k-NN graph")


SPEC = MethodSpec(
    name="e2cp",
    description="Must- and cannot-links propagated to all pairs by two label propagations "
                "(closed form eq. 3), affinity reweighted (eq. 4), then spectral clustering.",
    plain=("Spreads each stroke to every pair of regions through similar neighbours, reweights "
           "the image's similarities, then splits the image."),
    reference="Lu & Ip, ECCV 2010",
    params=PARAMS,
    fit=fit,
)
