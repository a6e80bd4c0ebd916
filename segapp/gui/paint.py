"""Pictures of a result at working resolution, by lookup through the cached node map.

No Qt and no full-size arrays: a 4000x3000 photo is painted on its (at most 0.5 MP) working
grid and the canvas stretches the picture over the whole image. :class:`OverlayPainter`
keeps, per node map, the pairs of neighbouring working pixels in different nodes (the only
places a segment boundary can be), so a result's overlay costs one lookup of a per-node
colour table plus the boundary pairs: 1-2 ms on 0.5 MP instead of 5-6 ms through a
per-pixel label image.
"""

from __future__ import annotations

import numpy as np

from segapp.core import render
from segapp.core.graph.pixels import boundary_pixels


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
    return boundary_pixels(labels)


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


class OverlayPainter:
    """Overlays (as :func:`overlay_rgba`) of any labelling of the nodes of one node map.

    Parameters
    ----------
    node_map : ndarray, shape (h, w), int
        The node of every working pixel.
    """

    def __init__(self, node_map: np.ndarray):
        nm = np.ascontiguousarray(node_map)
        h, w = nm.shape
        self.node_map, self.shape = nm, (h, w)
        across = np.flatnonzero(nm[:, 1:] != nm[:, :-1])  # in the (h, w - 1) grid of right neighbours
        left = across // (w - 1) * w + across % (w - 1) if w > 1 else across
        up = np.flatnonzero(nm[1:] != nm[:-1])  # in the (h - 1, w) grid: same flat index as the upper pixel
        self.first = np.concatenate([left, up])  # flat index of a pixel ...
        self.second = np.concatenate([left + 1, up + w])  # ... and of its neighbour in another node
        flat = nm.ravel()
        self.first_node, self.second_node = flat[self.first], flat[self.second]

    def rgba(self, node_labels: np.ndarray, opacity: float, boundaries_only: bool = False,
             colors: np.ndarray | None = None) -> np.ndarray:
        """The overlay of ``node_labels`` (n,), (h, w, 4) uint8; arguments as :func:`overlay_rgba`."""
        labels = np.asarray(node_labels)
        k = int(labels.max()) + 1 if labels.size else 1
        if colors is None or len(colors) < k:
            colors = render.palette(k)
        solid = _rgba_lut(colors, 255)
        la, lb = labels[self.first_node], labels[self.second_node]
        cut = la != lb
        if boundaries_only:
            out = np.zeros(self.node_map.size, np.uint32)
        else:
            tint = _rgba_lut(colors, int(round(opacity * 255)))
            out = np.take(tint[labels], self.node_map).ravel()
        out[self.first[cut]] = solid[la[cut]]
        out[self.second[cut]] = solid[lb[cut]]
        return out.view(np.uint8).reshape(self.shape + (4,))


def eigenvector_rgba(node_values: np.ndarray, node_map: np.ndarray) -> np.ndarray:
    """One eigenvector in diverging colours (blue < 0 < red) on ``node_map``, (h, w, 4) uint8."""
    lut = _rgba_lut(render.diverging(node_values), 255)
    return np.take(lut, node_map).view(np.uint8).reshape(node_map.shape + (4,))


DECIDED_COLOURS = np.array([[226, 226, 226], [235, 120, 20]], np.uint8)  # the method's own / the strokes'


def decided_rgba(overruled: np.ndarray, node_map: np.ndarray) -> np.ndarray:
    """Where the constraint step overruled the method (orange) and where the method's own
    rounding stands (light grey), (h, w, 4) uint8."""
    lut = _rgba_lut(DECIDED_COLOURS, 255)
    return np.take(lut, np.asarray(overruled, np.int64)[node_map]).view(np.uint8).reshape(node_map.shape + (4,))


def boundary_rgba(segmentation: np.ndarray, color=(255, 255, 0)) -> np.ndarray:
    """A human segmentation's boundaries as an (H, W, 4) picture (transparent elsewhere)."""
    out = np.zeros(segmentation.shape + (4,), np.uint8)
    out[boundaries(segmentation)] = (*color, 255)
    return out
