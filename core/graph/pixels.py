"""The image at pixel level: 4-neighbour pairs of working pixels and their weights.

Shared by the two places that label pixels rather than nodes: splitting a node where
strokes meet (:mod:`core.graph.refine`) and the pixel refinement of the final labels
(:mod:`core.pixel_refinement`). The weight of two touching pixels ``p, q`` is the boundary
graph's at pixel level::

    w_pq = exp(-|c_p - c_q|^2 / (2 sigma_c^2)) * exp(-(e_p + e_q) / (2 sigma_b))

``c`` the working image's colour in [0, 1], ``e`` its edge map
(:func:`core.graph.boundaries.edge_map`), ``sigma_c`` = ``sigma_intensity``, ``sigma_b`` =
``sigma_boundary`` (:data:`core.graph.affinity.AFFINITY_PARAMS`): Grady's random-walker
weights (Grady 2006, eq. 1) with the edge map's term of the boundary graph.
"""

from __future__ import annotations

import numpy as np


def pixel_weights(colours: np.ndarray, edges: np.ndarray, p: np.ndarray, q: np.ndarray,
                  sigma_intensity: float, sigma_boundary: float) -> np.ndarray:
    """Weights of the pixel pairs ``(p, q)``, shape (e,), float64.

    Parameters
    ----------
    colours : ndarray, shape (h * w, c)
        The working image, one row per pixel.
    edges : ndarray, shape (h * w,)
        Its edge map.
    p, q : ndarray, shape (e,), int
        Flat indices of touching pixels.
    sigma_intensity, sigma_boundary : float
    """
    dc2 = ((colours[p] - colours[q]) ** 2).sum(1).astype(np.float64)
    return np.exp(-dc2 / (2.0 * sigma_intensity ** 2)) * np.exp(-(edges[p] + edges[q]) / (2.0 * sigma_boundary))


def grid_weights(colours: np.ndarray, edges: np.ndarray, shape: tuple, sigma_intensity: float,
                 sigma_boundary: float) -> tuple[np.ndarray, np.ndarray]:
    """:func:`pixel_weights` of every 4-neighbour pair of an image of ``shape``, once: the
    weight of ``(p, p + 1)`` and of ``(p, p + w)`` at index ``p``, two arrays of shape
    (h * w,), float64 (0 where the neighbour is outside the image). A caller that labels
    pixels at every edit keeps them (they depend on the image only) and reads its pairs'
    weights with :func:`weights_from_grid`.

    Parameters
    ----------
    colours : ndarray, shape (h * w, c)
    edges : ndarray, shape (h * w,)
    shape : tuple (h, w)
    sigma_intensity, sigma_boundary : float
    """
    h, w = shape
    right, down = np.zeros(h * w), np.zeros(h * w)
    if w > 1:
        p = np.flatnonzero((np.arange(h * w) % w) < w - 1)
        right[p] = pixel_weights(colours, edges, p, p + 1, sigma_intensity, sigma_boundary)
    if h > 1:
        p = np.arange((h - 1) * w)
        down[p] = pixel_weights(colours, edges, p, p + w, sigma_intensity, sigma_boundary)
    return right, down


def weights_from_grid(grid: tuple[np.ndarray, np.ndarray], p: np.ndarray, q: np.ndarray, w: int) -> np.ndarray:
    """The weights of the 4-neighbour pairs ``(p, q)`` (``q`` ``p``'s right or lower
    neighbour, as :func:`pairs_touching` gives them) from :func:`grid_weights`, shape (e,)."""
    right, down = grid
    return np.where(q - p == 1, right[p], down[p]) if w > 1 else down[p]


def pairs_touching(active: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every 4-neighbour pair of pixels with at least one pixel in ``active``.

    Parameters
    ----------
    active : ndarray, shape (h, w), bool

    Returns
    -------
    p, q : ndarray, shape (e,), int64
        Flat indices; ``q`` is ``p``'s right or lower neighbour.
    """
    h, w = active.shape
    horiz = active[:, :-1] | active[:, 1:]
    vert = active[:-1] | active[1:]
    r, c = np.nonzero(horiz)
    ph = r.astype(np.int64) * w + c
    r, c = np.nonzero(vert)
    pv = r.astype(np.int64) * w + c
    return np.concatenate([ph, pv]), np.concatenate([ph + 1, pv + w])


def boundary_pixels(labels: np.ndarray) -> np.ndarray:
    """Pixels with a 4-neighbour of another segment (both sides of each boundary), (h, w) bool."""
    b = np.zeros(labels.shape, bool)
    dx = labels[:, 1:] != labels[:, :-1]
    dy = labels[1:] != labels[:-1]
    b[:, 1:] |= dx
    b[:, :-1] |= dx
    b[1:] |= dy
    b[:-1] |= dy
    return b
