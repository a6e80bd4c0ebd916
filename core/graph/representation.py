"""The working representation: at most ``max_nodes`` graph nodes standing for the pixels.

Berkeley images have 154,401 pixels; the papers' dense N x N formulas are run on a graph of
superpixels (SLIC, Achanta et al. 2012, from scikit-image) or of area-downsampled grid cells
(the papers' own setting). Nodes are computed on a working copy of at most ``work_pixels``
pixels (block means, :func:`core.image.working_image`; a Berkeley image is its own working
copy), so a 12-megapixel photo costs what a 0.5-megapixel one does. Each node carries the
mean position (full-image coordinates) and mean colour of its pixels; ``node_map`` maps
every working pixel to its node, and :meth:`Representation.to_pixels` paints node values
back at full size.

Building a representation costs ~0.1 s on a 481x321 image, so results are cached per
(image content, settings): a new stroke in the GUI only re-runs the method.
"""

from __future__ import annotations

import dataclasses
import hashlib
import threading
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np

from ..errors import ParameterError
from ..image import working_image
from ..params import ParamSpec
from .boundaries import Boundaries, edge_map, region_boundaries
from .cache import GraphCache

NODE_PARAMS = (
    ParamSpec("representation", str, "superpixels",
              "Graph nodes: SLIC superpixels or area-downsampled grid cells (the papers' setting).",
              choices=("superpixels", "grid")),
    ParamSpec("max_nodes", int, 800,
              "Most graph nodes; dense N x N matrices are built on these nodes only.",
              low=16, high=4000),
    ParamSpec("work_pixels", int, 500_000,
              "Superpixels are computed on a copy of the image with at most this many pixels "
              "(block means); labels are painted back at full size.",
              low=10_000, high=100_000_000),
    ParamSpec("edge_sigma", float, 0.0,
              "Gaussian smoothing (in working pixels) of each colour channel before the Sobel "
              "edge map the boundary graph is weighted by: texture inside a region stops "
              "looking like an edge, object outlines stay (0: no smoothing).",
              low=0.0, high=10.0),
)


@dataclass(frozen=True)
class Representation:
    """Nodes standing for the pixels of one image.

    Attributes
    ----------
    kind : str
    shape : tuple (H, W)
        The full image's size.
    node_map : ndarray, shape (h, w), int32
        The node of every working pixel; working pixel (i, j) covers the full-size pixels
        ``[i f, (i + 1) f) x [j f, (j + 1) f)``.
    factor : int
        ``f``, the working copy's block size (1: the image itself).
    positions : ndarray, shape (n, 2)
        Mean (row, column) of each node's pixels, in full-image coordinates.
    colors : ndarray, shape (n, c)
        Mean intensity (c = 1) or RGB colour (c = 3) in [0, 1].
    sizes : ndarray, shape (n,)
        Working pixels per node.
    boundaries : Boundaries or None
        Which nodes touch and the image-edge strength along their shared boundaries.
    image : ndarray, shape (h, w[, 3]), float32, or None
        The working copy the nodes were computed on (colours in [0, 1]).
    edges : ndarray, shape (h, w), float32, or None
        Its edge map (:func:`~core.graph.boundaries.edge_map`). Both are kept so that a node
        can be split at pixel level where strokes need it (:mod:`core.graph.refine`).
    cache : GraphCache
        The stroke-independent results computed on these nodes (affinities, factorisations),
        kept as long as the representation is.
    """

    kind: str
    shape: tuple
    node_map: np.ndarray
    factor: int
    positions: np.ndarray
    colors: np.ndarray
    sizes: np.ndarray
    boundaries: Boundaries | None = None
    image: np.ndarray | None = field(default=None, compare=False, repr=False)
    edges: np.ndarray | None = field(default=None, compare=False, repr=False)
    cache: GraphCache = field(default_factory=GraphCache, compare=False, repr=False)

    @property
    def n_nodes(self) -> int:
        return int(self.sizes.shape[0])

    def features(self, sigma_position: float, sigma_intensity: float) -> np.ndarray:
        """Scaled node features (n, 2 + c): a unit Gaussian on them is the affinity."""
        diag = float(np.hypot(*self.shape))
        return np.hstack([self.positions / (sigma_position * diag), self.colors / sigma_intensity])

    def node_at(self, row: int, col: int) -> int:
        """The node of full-image pixel (row, col)."""
        return int(self.node_map[row // self.factor, col // self.factor])

    def nodes_in_box(self, top: int, left: int, bottom: int, right: int) -> np.ndarray:
        """The nodes with a pixel in the full-image box (bottom, right exclusive)."""
        f = self.factor
        return np.unique(self.node_map[top // f:(bottom - 1) // f + 1, left // f:(right - 1) // f + 1])

    def nodes_of_block(self, block) -> np.ndarray:
        """The nodes with a pixel in ``block`` (see :func:`block_nodes`)."""
        return block_nodes(self.node_map, self.factor, block)

    @property
    def node_of_pixel(self) -> np.ndarray:
        """The node of every full-size pixel, shape (H, W), int32."""
        return self.to_pixels(np.arange(self.n_nodes, dtype=np.int32))

    def to_pixels(self, node_values: np.ndarray) -> np.ndarray:
        """Paint per-node values (n,) or (n, m) onto the full (H, W[, m]) pixel grid."""
        v = np.asarray(node_values)[self.node_map]
        if self.factor == 1:
            return v
        h, w = self.shape
        rows = np.arange(h) // self.factor
        cols = np.arange(w) // self.factor
        return v[rows[:, None], cols[None, :]]


def _summarise(kind, img, node_of_pixel, full_shape=None, factor=1) -> Representation:
    h, w = node_of_pixel.shape
    flat = node_of_pixel.ravel()
    n = int(flat.max()) + 1
    sizes = np.bincount(flat, minlength=n).astype(np.float64)
    rows, cols = np.indices((h, w))
    pos = np.stack([np.bincount(flat, rows.ravel(), n), np.bincount(flat, cols.ravel(), n)], 1) / sizes[:, None]
    chans = img.reshape(h * w, -1)
    col = np.stack([np.bincount(flat, chans[:, k], n) for k in range(chans.shape[1])], 1) / sizes[:, None]
    pos = (pos + 0.5) * factor - 0.5  # working pixel centres in full-image coordinates
    return Representation(kind, tuple(full_shape or (h, w)), node_of_pixel.astype(np.int32), int(factor),
                          pos, col, sizes)


def grid_representation(img: np.ndarray, max_nodes: int) -> Representation:
    """Area-downsampled grid: cells of (nearly) equal size, at most ``max_nodes`` of them."""
    h, w = img.shape[:2]
    if h * w <= max_nodes:
        gh, gw = h, w
    else:
        s = np.sqrt(max_nodes / (h * w))
        gh, gw = max(1, int(np.floor(h * s))), max(1, int(np.floor(w * s)))
        while gh * gw > max_nodes:
            gh, gw = (gh - 1, gw) if gh >= gw else (gh, gw - 1)
    r = (np.arange(h) * gh) // h
    c = (np.arange(w) * gw) // w
    return _summarise("grid", img, r[:, None] * gw + c[None, :])


def superpixel_representation(img: np.ndarray, max_nodes: int) -> Representation:
    """SLIC superpixels (in CIELAB for colour images), relabelled 0..n-1, n <= max_nodes."""
    from skimage.segmentation import slic

    h, w = img.shape[:2]
    if h * w <= max_nodes:
        return dataclasses.replace(grid_representation(img, max_nodes), kind="superpixels")
    colour = img.ndim == 3
    src = img if colour else img * 100.0  # grey on the scale of CIELAB lightness
    n_req = max_nodes
    for _ in range(8):
        lab = slic(src, n_segments=n_req, compactness=10.0, start_label=0,
                   channel_axis=-1 if colour else None, convert2lab=colour)
        _, inv = np.unique(lab, return_inverse=True)
        n = int(inv.max()) + 1
        if n <= max_nodes:
            break
        n_req = max(2, int(n_req * 0.95 * max_nodes / n))
    else:  # pragma: no cover - SLIC always lands below after a few shrinks
        raise ParameterError(f"could not make at most {max_nodes} superpixels; try representation='grid'")
    return _summarise("superpixels", img, inv.reshape(h, w))


_CACHE: "OrderedDict[tuple, Representation]" = OrderedDict()
_CACHE_LOCK = threading.Lock()
_CACHE_SIZE = 6


def image_digest(image: np.ndarray) -> tuple:
    """What identifies an image's content in the caches: (hash, shape, dtype)."""
    image = np.ascontiguousarray(image)
    return hashlib.blake2b(image.view(np.uint8), digest_size=16).hexdigest(), image.shape, image.dtype.str


def build_representation(image: np.ndarray, representation: str, max_nodes: int,
                         work_pixels: int = 500_000, edge_sigma: float = 0.0,
                         digest: tuple | None = None) -> Representation:
    """Cached :func:`grid_representation` / :func:`superpixel_representation` of an image.

    Parameters
    ----------
    image : ndarray, shape (H, W[, c])
        Any image :func:`core.image.check_image` accepts (the raw array, not a float copy).
    representation : {'superpixels', 'grid'}
    max_nodes : int
    work_pixels : int
        Most pixels of the working copy the nodes are computed on.
    edge_sigma : float
        Smoothing of the edge map (:func:`~core.graph.boundaries.edge_map`), working pixels.
    digest : tuple, optional
        :func:`image_digest` of ``image``, when the caller already has it (hashing a
        12-megapixel image costs tens of milliseconds).
    """
    if representation not in ("superpixels", "grid"):
        raise ParameterError(f"unknown representation {representation!r}; valid: 'superpixels', 'grid'")
    key = (*(digest or image_digest(image)), representation, int(max_nodes), int(work_pixels), float(edge_sigma))
    with _CACHE_LOCK:
        if key in _CACHE:
            _CACHE.move_to_end(key)
            return _CACHE[key]
    work, f = working_image(image, work_pixels)
    build = grid_representation if representation == "grid" else superpixel_representation
    rep = build(work, max_nodes)
    if f > 1:
        rep = _summarise(rep.kind, work, rep.node_map, image.shape[:2], f)
    edges = edge_map(work, edge_sigma)
    rep = dataclasses.replace(rep, boundaries=region_boundaries(rep.node_map, edges),
                              image=work.astype(np.float32), edges=edges.astype(np.float32))
    with _CACHE_LOCK:
        _CACHE[key] = rep
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return rep


def border_pixels(rep) -> np.ndarray:
    """Each node's working pixels on the image's border, shape (n,): the nodes of a figure's
    ground (the constraint step's ``rounding_ground``, the suggestion's unreached segments)."""
    nm = rep.node_map
    edge = np.concatenate([nm[0], nm[-1], nm[1:-1, 0], nm[1:-1, -1]]) if min(nm.shape) > 1 else nm.ravel()
    return np.bincount(edge.astype(np.int64), minlength=rep.n_nodes).astype(float)


def block_nodes(node_map: np.ndarray, factor: int, block) -> np.ndarray:
    """The nodes with a pixel in ``block``: its rectangle, or the pixels of its brush runs.

    Parameters
    ----------
    node_map : ndarray, shape (h, w), int
        The node of every working pixel; working pixel (i, j) covers full-image pixels
        ``[i f, (i + 1) f) x [j f, (j + 1) f)``.
    factor : int
        ``f``.
    block : core.Block

    Returns
    -------
    ndarray, shape (m,), sorted and unique
    """
    f = factor
    if block.runs is None:
        top, left, bottom, right = block.box
        return np.unique(node_map[top // f:(bottom - 1) // f + 1, left // f:(right - 1) // f + 1])
    runs = np.asarray(block.runs, np.int64)
    lo, hi = runs[:, 1] // f, (runs[:, 2] - 1) // f + 1
    lengths = hi - lo
    # the working columns lo .. hi - 1 of every run, gathered at once
    cols = np.repeat(lo - np.cumsum(np.r_[0, lengths[:-1]]), lengths) + np.arange(lengths.sum())
    rows = np.repeat(runs[:, 0] // f, lengths)
    return np.unique(node_map[rows, np.minimum(cols, node_map.shape[1] - 1)])
