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

    **Graph.** Every method receives the same affinity (``affinity``: the contour kernel by
    default, the boundary graph's diffusion kernel, or the papers' Gaussian; each is
    described once in :mod:`core.graph.affinity`). With the contour kernel: its result is
    every constrained method's round 0, so it gets their kernel. With the diffusion kernel:
    Normalised cuts works on any affinity; for uniformity with the constrained methods (its
    result is their round 0) it gets the same diffusion kernel.

    References
    ----------
    J. Shi, J. Malik, Normalized cuts and image segmentation, IEEE TPAMI 22(8), 2000.
    A. Ng, M. Jordan, Y. Weiss, On spectral clustering: analysis and an algorithm, NIPS 2001.
    """
    return njw(K, n_clusters, rng, cache=cache)


SPEC = MethodSpec(
    name="ncut",
    description="Normalised cuts / NJW spectral clustering; constraints are ignored (baseline).",
    plain=("Ignores the strokes: the image's own most natural split, the starting point of every "
           "other method."),
    reference="Shi & Malik, TPAMI 2000; Ng, Jordan & Weiss, NIPS 2001",
    params=(),
    fit=fit,
)
