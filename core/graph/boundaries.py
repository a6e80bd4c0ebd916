"""Which nodes touch, and how strong the image edge is along their shared boundary.

The edge-aware graph (:func:`core.graph.affinity.boundary_affinity`) joins only nodes that
touch, weighted by how different their colours are and how strong the image's edges are
where they meet. This module measures the second part once per representation.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp


@dataclass(frozen=True)
class Boundaries:
    """The region adjacency of a node map.

    Attributes
    ----------
    pairs : ndarray, shape (e, 2), int64
        Touching nodes ``i < j`` (4-connected working pixels).
    strength : ndarray, shape (e,)
        Mean edge magnitude along the shared boundary: over every 4-adjacent pixel pair
        ``(p, q)`` with ``p`` in ``i`` and ``q`` in ``j``, the mean of ``(e_p + e_q) / 2``.
    length : ndarray, shape (e,)
        Number of such pixel pairs (the boundary's length in working pixels).
    """

    pairs: np.ndarray
    strength: np.ndarray
    length: np.ndarray


def edge_map(image: np.ndarray, sigma: float = 0.0) -> np.ndarray:
    """Edge magnitude of an image in [0, 1]: scikit-image's Sobel filter.

    Colour images: the largest of the Sobel magnitudes of the three CIELAB channels, each
    scaled to [0, 1] (L by 100, a and b by 256), so an edge between two colours of equal
    lightness (a red bear on green grass in grey) still counts. With ``sigma > 0`` each
    channel is first smoothed by a Gaussian of that width (scikit-image's ``gaussian``):
    fine texture (foliage, fur, ripples) then gives a weak response inside a region while
    the outline between regions keeps a strong one, spread over a few pixels.

    Parameters
    ----------
    image : ndarray, shape (h, w) or (h, w, 3), float in [0, 1]
    sigma : float
        Gaussian smoothing before Sobel, in pixels (0: none).

    Returns
    -------
    ndarray, shape (h, w)
    """
    from skimage.color import rgb2lab
    from skimage.filters import gaussian, sobel

    def channel(x):
        return sobel(gaussian(x, sigma=sigma, mode="nearest", preserve_range=True) if sigma > 0 else x)

    if image.ndim == 2:
        return channel(np.asarray(image, np.float64))
    lab = rgb2lab(image)
    scale = np.array([100.0, 256.0, 256.0])
    return np.max([channel(lab[..., k] / scale[k]) for k in range(3)], axis=0)


def region_boundaries(node_map: np.ndarray, edges: np.ndarray) -> Boundaries:
    """Adjacency, boundary strength and boundary length of the regions of ``node_map``.

    The same measure as scikit-image's ``skimage.graph.rag_boundary`` (mean edge-map value
    along each shared boundary, and its pixel count), computed with sparse sums instead
    of a networkx graph: about 10 ms instead of 0.7 s for 800 superpixels of a Berkeley
    image, which matters when an image is opened.

    Parameters
    ----------
    node_map : ndarray, shape (h, w), int
        Node of every pixel, 0..n-1.
    edges : ndarray, shape (h, w)
        Edge magnitude (:func:`edge_map`).

    Returns
    -------
    Boundaries
    """
    n = int(node_map.max()) + 1
    a, b, v = [], [], []
    for sl_p, sl_q in (((slice(None), slice(None, -1)), (slice(None), slice(1, None))),
                       ((slice(None, -1), slice(None)), (slice(1, None), slice(None)))):
        lp, lq = node_map[sl_p], node_map[sl_q]
        cross = lp != lq
        a.append(lp[cross])
        b.append(lq[cross])
        v.append((edges[sl_p][cross] + edges[sl_q][cross]) / 2.0)
    i, j, v = np.concatenate(a), np.concatenate(b), np.concatenate(v)
    lo, hi = np.minimum(i, j), np.maximum(i, j)
    total = sp.coo_matrix((v, (lo, hi)), shape=(n, n)).tocsr()
    count = sp.coo_matrix((np.ones_like(v), (lo, hi)), shape=(n, n)).tocsr()
    total.sum_duplicates()
    count.sum_duplicates()
    c = count.tocoo()
    s = np.asarray(total[c.row, c.col]).ravel()
    return Boundaries(np.stack([c.row, c.col], 1).astype(np.int64), s / c.data, c.data.astype(np.float64))
