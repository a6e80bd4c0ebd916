"""What each segment looks like at pixel level: the colour histograms of its pixels.

The prior of the pixel refinement's walk (:mod:`core.pixel_refinement.stage`): like
GrabCut's colour models (Rother et al. 2004), each segment's colour distribution is
estimated from the pixels the current labels give it, and every pixel of the band gets
the posterior of each segment under those distributions.
"""

from __future__ import annotations

import numpy as np

BINS = 16  # per channel: 4096 colour bins for RGB (chosen on GrabCut, bench/results/tuning.md)
SMOOTHING = 0.5  # added to every bin's count, so a colour no pixel of a segment has is unlikely, not impossible


def colour_codes(image: np.ndarray, bins: int = BINS) -> np.ndarray:
    """The histogram bin of every pixel, shape (h * w,), int64.

    Parameters
    ----------
    image : ndarray, shape (h, w) or (h, w, c), float in [0, 1]
    bins : int
        Bins per channel (``bins ** c`` in all).
    """
    x = np.asarray(image).reshape(image.shape[0] * image.shape[1], -1)
    q = np.clip((x * bins).astype(np.int64), 0, bins - 1)
    code = np.zeros(len(q), np.int64)
    for k in range(q.shape[1]):
        code = code * bins + q[:, k]
    return code


def colour_posterior(codes: np.ndarray, labels: np.ndarray, n_segments: int, pixels: np.ndarray,
                     n_bins: int) -> np.ndarray:
    """Each segment's posterior at ``pixels`` under the colour histograms of ``labels``.

    Parameters
    ----------
    codes : ndarray, shape (N,), int
        :func:`colour_codes` of every working pixel.
    labels : ndarray, shape (N,), int
        Segment of every working pixel.
    n_segments : int
    pixels : ndarray, shape (m,), int
        Where the posterior is wanted.
    n_bins : int
        Number of histogram bins.

    Returns
    -------
    ndarray, shape (m, n_segments)
        ``p(s | c) = h_s(c) / sum_t h_t(c)`` with ``h_s`` segment ``s``'s normalised
        histogram (smoothed by :data:`SMOOTHING`); zero columns for segments without pixels.
    """
    counts = np.bincount(labels.astype(np.int64) * n_bins + codes, minlength=n_segments * n_bins)
    hist = counts[:n_segments * n_bins].reshape(n_segments, n_bins).astype(np.float64)
    present = hist.sum(1) > 0
    hist[present] += SMOOTHING
    hist[present] /= hist[present].sum(1, keepdims=True)
    lik = hist[:, codes[pixels]].T
    total = lik.sum(1, keepdims=True)
    return lik / np.where(total > 0, total, 1.0)
