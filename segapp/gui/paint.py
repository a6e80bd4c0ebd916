"""Pictures of a result at working resolution, by lookup through the cached node map.

No Qt and no full-size arrays: a 4000x3000 photo is painted on its (at most 0.5 MP) working
grid and the canvas stretches the picture over the whole image.
"""

from __future__ import annotations

import numpy as np

from core import render


def _rgba_lut(colors: np.ndarray, alpha: int) -> np.ndarray:
    """(n, 3) uint8 colours -> (n,) uint32 whose bytes are R, G, B, alpha."""
    lut = np.empty((len(colors), 4), np.uint8)
    lut[:, :3] = colors
    lut[:, 3] = alpha
    return lut.view(np.uint32).ravel()


def working_labels(node_labels: np.ndarray, node_map: np.ndarray) -> np.ndarray:
    """The segment of every working pixel, shape (h, w)."""
    return np.take(node_labels, node_map)


def boundaries(labels: np.ndarray) -> np.ndarray:
    """Pixels with a 4-neighbour of another segment (both sides of each boundary), (h, w) bool."""
    b = np.zeros(labels.shape, bool)
    dx = labels[:, 1:] != labels[:, :-1]
    dy = labels[1:] != labels[:-1]
    b[:, 1:] |= dx
    b[:, :-1] |= dx
    b[1:] |= dy
    b[:-1] |= dy
    return b


def overlay_rgba(labels: np.ndarray, opacity: float, boundaries_only: bool = False,
                 colors: np.ndarray | None = None) -> np.ndarray:
    """Segment colours with alpha, (h, w, 4) uint8: tinted areas outlined opaque along the
    segment boundaries, or the outlines only.

    Parameters
    ----------
    labels : ndarray, shape (h, w), int
    opacity : float
        Alpha of the tint, in [0, 1].
    boundaries_only : bool
    colors : ndarray, shape (K, 3), uint8, optional
        Colour of each segment (default: ``core.render.palette``).
    """
    k = int(labels.max()) + 1 if labels.size else 1
    if colors is None or len(colors) < k:
        colors = render.palette(k)
    edge = boundaries(labels)
    solid = np.take(_rgba_lut(colors, 255), labels)
    if boundaries_only:
        out = solid
        out[~edge] = 0
    else:
        out = np.take(_rgba_lut(colors, int(round(opacity * 255))), labels)
        out[edge] = solid[edge]
    return out.view(np.uint8).reshape(labels.shape + (4,))


def eigenvector_rgba(node_values: np.ndarray, node_map: np.ndarray) -> np.ndarray:
    """One eigenvector in diverging colours (blue < 0 < red) on ``node_map``, (h, w, 4) uint8."""
    lut = _rgba_lut(render.diverging(node_values), 255)
    return np.take(lut, node_map).view(np.uint8).reshape(node_map.shape + (4,))


def boundary_rgba(segmentation: np.ndarray, color=(255, 255, 0)) -> np.ndarray:
    """A human segmentation's boundaries as an (H, W, 4) picture (transparent elsewhere)."""
    out = np.zeros(segmentation.shape + (4,), np.uint8)
    out[boundaries(segmentation)] = (*color, 255)
    return out
