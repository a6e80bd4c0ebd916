"""Normalised cuts without constraints: the baseline every constrained method is read against."""

from __future__ import annotations

import numpy as np

from ..params import MethodSpec
from ..spectral import SpectralResult, njw


def fit(K: np.ndarray, nc, n_clusters: int, rng, features=None, cache=None) -> SpectralResult:
    """Unconstrained spectral clustering; constraints are ignored.

    Parameters
    ----------
    K : ndarray, shape (n, n)
        Affinity.
    nc : NodeConstraints
        Ignored (kept so every method has the same signature).
    n_clusters : int
    rng : numpy.random.RandomState
    features : ndarray, shape (n, d), optional
        Unused.
    cache : ScopedCache, optional
        ``K``'s cache: the spectrum is computed once per graph (constraints never change it).

    Returns
    -------
    SpectralResult

    Notes
    -----
    The top ``n_clusters`` eigenvectors of ``D^-1/2 K D^-1/2`` are row-normalised and
    clustered with k-means (Ng, Jordan & Weiss 2001), the relaxation of the normalised cut
    ``min u^T L u / u^T D u`` (Shi & Malik 2000, eq. 5).

    **Graph.** By default (``affinity='contour'``) the method receives
    :func:`core.graph.affinity.contour_affinity`: the papers' Gaussian in position and colour,
    cut down between nodes that every path of touching superpixels separates by a strong image
    edge (positive definite, unit diagonal, as the Gaussian); its result is every constrained
    method's round 0, so it gets their kernel.
    With ``affinity='boundary'`` (adjacency of touching superpixels weighted by
    colour difference and edge strength, :func:`core.graph.affinity.boundary_affinity`) the
    method receives its diffusion kernel ``(I + t L_sym)^-1`` at unit diagonal
    (:func:`core.graph.affinity.diffusion_kernel`).
    Normalised cuts works on any affinity; for uniformity with the constrained methods (its
    result is their round 0) it gets the same diffusion kernel.
    With ``affinity='gaussian'`` it receives the paper's Gaussian in position and colour.

    References
    ----------
    J. Shi, J. Malik, Normalized cuts and image segmentation, IEEE TPAMI 22(8), 2000.
    A. Ng, M. Jordan, Y. Weiss, On spectral clustering: analysis and an algorithm, NIPS 2001.
    """
    return njw(K, n_clusters, rng, cache=cache)


SPEC = MethodSpec(
    name="ncut",
    description="Normalised cuts / NJW spectral clustering; constraints are ignored (baseline).",
    reference="Shi & Malik, TPAMI 2000; Ng, Jordan & Weiss, NIPS 2001",
    params=(),
    fit=fit,
)
