"""Segmentation agreement measures (more come with the benchmark)."""

from __future__ import annotations

import numpy as np


def _contingency(a, b):
    a = np.asarray(a).ravel()
    b = np.asarray(b).ravel()
    _, ai = np.unique(a, return_inverse=True)
    _, bi = np.unique(b, return_inverse=True)
    return np.bincount(ai * (bi.max() + 1) + bi, minlength=(ai.max() + 1) * (bi.max() + 1)).reshape(
        ai.max() + 1, bi.max() + 1).astype(np.float64)


def adjusted_rand(a, b) -> float:
    """Adjusted Rand index of two labelings (Hubert & Arabie 1985); equals scikit-learn's
    ``adjusted_rand_score`` but runs in a few ms on a 154,401-pixel image."""
    n = _contingency(a, b)
    comb = lambda x: x * (x - 1) / 2.0  # noqa: E731
    tot = comb(n.sum())
    s_ij = comb(n).sum()
    s_a, s_b = comb(n.sum(1)).sum(), comb(n.sum(0)).sum()
    expected = s_a * s_b / tot if tot else 0.0
    maxi = (s_a + s_b) / 2.0
    if maxi == expected:
        return 1.0
    return float((s_ij - expected) / (maxi - expected))
