"""Spectral learning: constrained affinities set to 1 / 0, then spectral clustering."""

from __future__ import annotations

import numpy as np

from ..params import MethodSpec
from ..spectral import SpectralResult, njw


def constrained_affinity(K: np.ndarray, nc) -> np.ndarray:
    """``A_ij = 1`` for must-linked, ``0`` for cannot-linked pairs (weights interpolate).

    With a degree of belief ``w`` the entry moves the fraction ``w`` of the way:
    ``A_ij = K_ij + w (1 - K_ij)`` (must-link) and ``A_ij = (1 - w) K_ij`` (cannot-link);
    ``w = 1`` gives Kamvar et al.'s 1 and 0.
    """
    A = K.copy()
    for pairs, w, target in ((nc.must, nc.must_w, 1.0), (nc.cannot, nc.cannot_w, 0.0)):
        if len(pairs):
            i, j = pairs[:, 0], pairs[:, 1]
            new = A[i, j] + w * (target - A[i, j])
            A[i, j] = new
            A[j, i] = new
    return A


def fit(K: np.ndarray, nc, n_clusters: int, rng, features=None, cache=None) -> SpectralResult:
    """Spectral learning (Kamvar, Klein & Manning 2003).

    Parameters
    ----------
    K : ndarray, shape (n, n)
        Affinity.
    nc : NodeConstraints
    n_clusters : int
    rng : numpy.random.RandomState
    features : ndarray, shape (n, d), optional
        Unused.
    cache : ScopedCache, optional
        ``K``'s stroke-independent results (:mod:`core.graph.cache`); ``None``: nothing kept.

    Returns
    -------
    SpectralResult

    Notes
    -----
    ``A = K`` with ``A_ij = A_ji = 1`` for each must-link and ``0`` for each cannot-link
    (:func:`constrained_affinity`), then the shared NJW spectral clustering. Kamvar et al.
    normalise ``A`` additively, ``(A + d_max I - D) / d_max``; we use the symmetric
    normalisation that every other method here uses, so that only the way constraints enter
    differs between methods.

    **Graph.** Every method receives the same affinity (``affinity``: the contour kernel by
    default, the boundary graph's diffusion kernel, or the papers' Gaussian; each is
    described once in :mod:`core.graph.affinity`). With the contour kernel: kamvar et al.
    set single entries to 1 or 0, so every pair needs an entry: a fully connected kernel.
    With the diffusion kernel: Kamvar et al. set single affinities to 1 or 0; on the sparse
    boundary graph such an entry joins two nodes that need not touch, so it gets the fully
    connected diffusion kernel, where every pair has an entry to set.

    **Rounding.** ``rounding='paper'`` keeps the step above; the default ``'constrained'``
    (our addition) re-rounds this embedding: :mod:`core.constraint_step`.

    References
    ----------
    S. Kamvar, D. Klein, C. Manning, Spectral learning, IJCAI 2003.
    """
    return njw(constrained_affinity(K, nc), n_clusters, rng, what="constrained graph")


SPEC = MethodSpec(
    name="spectral-learning",
    description="Must-linked affinities set to 1, cannot-linked to 0, then spectral clustering.",
    plain=("Marks the two ends of each stroke as alike (must-link) or unlike (cannot-link), then "
           "splits the image as usual; the simplest."),
    reference="Kamvar, Klein & Manning, IJCAI 2003",
    params=(),
    fit=fit,
)
