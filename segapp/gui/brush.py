"""The pixels a brush stroke covers (no Qt): discs of the brush radius along its path."""

from __future__ import annotations

import numpy as np


def stroke_mask(points: np.ndarray, radius: float, shape: tuple) -> tuple[np.ndarray, int, int] | None:
    """The pixels within ``radius`` of the polyline through ``points``, inside the image.

    Parameters
    ----------
    points : ndarray, shape (m, 2)
        (row, column) of the stroke's points in image coordinates (pixel (r, c) spans
        ``[r, r + 1) x [c, c + 1)``, so its centre is (r + 0.5, c + 0.5)).
    radius : float
        In image pixels.
    shape : tuple (H, W)

    Returns
    -------
    (mask, top, left) or None
        ``mask`` (h, w) bool whose pixel (0, 0) is image pixel (top, left); None when the
        stroke misses the image.
    """
    p = np.asarray(points, float).reshape(-1, 2)
    # points along each segment no further apart than half the radius (or half a pixel)
    step = max(radius / 2, 0.5)
    dense = [p[:1]]
    for a, b in zip(p[:-1], p[1:]):
        n = int(np.ceil(np.hypot(*(b - a)) / step))
        if n:
            dense.append(a + (b - a) * (np.arange(1, n + 1) / n)[:, None])
    p = np.vstack(dense)
    h, w = int(shape[0]), int(shape[1])
    top = max(int(np.floor(p[:, 0].min() - radius)), 0)
    left = max(int(np.floor(p[:, 1].min() - radius)), 0)
    bottom = min(int(np.ceil(p[:, 0].max() + radius)) + 1, h)
    right = min(int(np.ceil(p[:, 1].max() + radius)) + 1, w)
    if top >= bottom or left >= right:
        return None
    mask = np.zeros((bottom - top, right - left), bool)
    r = int(np.ceil(radius))
    for y, x in p:
        r0, c0 = max(int(y) - r, top), max(int(x) - r, left)
        r1, c1 = min(int(y) + r + 1, bottom), min(int(x) + r + 1, right)
        if r0 >= r1 or c0 >= c1:
            continue
        yy, xx = np.ogrid[r0:r1, c0:c1]
        mask[r0 - top:r1 - top, c0 - left:c1 - left] |= (yy + 0.5 - y) ** 2 + (xx + 0.5 - x) ** 2 <= radius ** 2
    if not mask.any():
        return None
    return mask, top, left
