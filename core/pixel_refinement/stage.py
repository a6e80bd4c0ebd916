"""The pixel refinement as a stage: one input object, node labels in, pixel-accurate labels out."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy import ndimage as ndi

from ..constraint_step.params import UNREACHED_MIN_SHARE as SLIVER  # a segment under it is a sliver
from ..graph.pixels import boundary_pixels, pairs_touching, pixel_weights, weights_from_grid
from .looks import BINS, colour_codes, colour_posterior


@dataclass(frozen=True)
class PixelRefinement:
    """Everything the pixel refinement reads.

    :func:`core.segment` builds one after the constraint step and hands it to
    :func:`apply_refinement`.

    Attributes
    ----------
    representation : Representation
        The nodes the labels are on (the constraint step's: split where strokes meet), with
        its working image and edge map.
    node_labels : ndarray, shape (n,), int
        The segment of every node.
    n_segments : int
    anchors : ndarray, shape (a,), int
        Flat working-pixel indices whose segment is the user's word and stays (stroke ends,
        the pixels of blocks and brush regions).
    band : float
        ``pixel_band``: the band's half-width in widths of a node of ``method_nodes``.
    looks : float
        ``pixel_looks``: the weight of the colour prior.
    sigma_intensity, sigma_boundary : float
        The pixel weights' scales (:mod:`core.graph.pixels`).
    method_nodes : int
        Nodes of the graph the method ran on; a node's width is ``sqrt(h w / method_nodes)``
        working pixels.
    codes : ndarray, shape (h * w,), int, optional
        :func:`~core.pixel_refinement.looks.colour_codes` of the working image, when the
        caller keeps them (they depend on the image only).
    grid : tuple of two ndarrays, shape (h * w,), optional
        :func:`~core.graph.pixels.grid_weights` of the working image with these scales,
        when the caller keeps them (the same weights as computing them per edit).
    kept : ndarray, shape (h, w), int, optional
        The working pixels' segments of a result kept as it is (the constraint step kept the
        result on screen, ``rounding_keep_screen``): no walk; the nodes are cut where these
        differ from ``node_labels`` (anchors aside), so the pixels are those of the screen.
    keep : ndarray, shape (n,), float, optional
        Per node, the weight of its own segment in the walk's prior (``pixel_keep`` times the
        strokes' certainty of the node, :func:`core.suggestion.stroke_certainty`, clipped at
        0); ``None``: the colour prior alone (also while only must-links are drawn:
        they do not say which segments differ, :func:`core.segmentation._refine_pixels`).
    """

    representation: object
    node_labels: np.ndarray
    n_segments: int
    anchors: np.ndarray
    band: float
    looks: float
    sigma_intensity: float
    sigma_boundary: float
    method_nodes: int
    codes: np.ndarray | None = None
    grid: tuple | None = None
    kept: np.ndarray | None = None
    keep: np.ndarray | None = None


@dataclass(frozen=True)
class Refined:
    """The pixel refinement's result.

    Attributes
    ----------
    base : Representation
        The input nodes (``PixelRefinement.representation``).
    base_labels : ndarray, shape (n,), int64
        Their segments (``PixelRefinement.node_labels``).
    representation : Representation
        The refined nodes (``base`` itself when nothing changed): every part of a node that the refinement gave one segment (a
        node the band does not touch stays one part), with the working image and edge map;
        its ``node_map`` holds the pixel-accurate labels.
    parent : ndarray, shape (n',), int64
        The input node each part came from (node values carry over as ``values[parent]``).
    node_labels : ndarray, shape (n',), int64
        The segment of every part.
    band_pixels : int
        Working pixels the walk labelled.
    changed : ndarray, shape (c,), int32
        Flat working-pixel indices whose segment differs from their node's.
    changed_labels : ndarray, shape (c,), int32
        Their segments (:func:`cut_nodes` rebuilds the refined nodes from these).
    """

    base: object
    base_labels: np.ndarray
    representation: object
    parent: np.ndarray
    node_labels: np.ndarray
    band_pixels: int
    changed: np.ndarray
    changed_labels: np.ndarray


def _unchanged(rep, labels: np.ndarray) -> Refined:
    none = np.zeros(0, np.int32)
    return Refined(rep, labels, rep, np.arange(rep.n_nodes), labels, 0, none, none)


def band_radius(shape: tuple, method_nodes: int, band: float) -> int:
    """The band's half-width in working pixels: ``band`` node widths, at least 1 (0 when
    ``band`` is 0)."""
    if band <= 0:
        return 0
    h, w = shape
    return max(1, int(round(band * np.sqrt(h * w / max(int(method_nodes), 1)))))


def boundary_band(labels: np.ndarray, radius: int) -> np.ndarray:
    """Pixels within ``radius`` 4-neighbour steps of a pixel on a segment boundary (a pixel
    with a 4-neighbour of another segment), (h, w) bool."""
    edge = boundary_pixels(labels)
    if radius < 1 or not edge.any():
        return edge
    return ndi.binary_dilation(edge, iterations=radius)


def apply_refinement(step: PixelRefinement) -> Refined:
    """Relabel the pixels near the segment boundaries at pixel level.

    The pixels within :func:`band_radius` of a boundary of the node-level labels (and not
    anchors) are relabelled by a random walk with a prior (Grady 2005, as
    :func:`core.constraint_step.prior_walk`) on their 4-neighbour grid
    (:mod:`core.graph.pixels` weights), from the pixels just outside the band and the
    anchors, which keep their segments; the prior, with weight ``looks``, is each segment's
    posterior under the colour histograms of the node-level labels
    (:mod:`core.pixel_refinement.looks`). With ``step.keep`` a pixel's prior also pulls
    towards its node's segment with that node's weight: per pixel the walk's prior weight
    is ``looks + keep`` and its prior ``(looks colour + keep onehot) / (looks + keep)``,
    the minimiser of the two quadratic terms together. Specks the walk made go to their
    surroundings (:func:`fill_islands`, below :data:`MIN_ISLAND` node areas). A segment
    in pieces around stroke ends that the walk made a sliver (:func:`_shrunk_to_slivers`)
    keeps its node-level pixels, and the walk runs again on the rest of the band.

    Returns
    -------
    Refined
        Unchanged labels (one part per node) when ``band`` is 0, the representation has no
        working image, or no boundary exists.
    """
    rep = step.representation
    labels0 = np.asarray(step.node_labels, np.int64)
    h, w = rep.node_map.shape
    pix_labels = labels0[rep.node_map]
    if step.kept is not None:
        return _kept(step, rep, labels0, pix_labels)
    radius = band_radius((h, w), step.method_nodes, step.band)
    if radius == 0 or rep.image is None or rep.edges is None:
        return _unchanged(rep, labels0)
    free = boundary_band(pix_labels, radius)
    free.ravel()[np.asarray(step.anchors, np.int64)] = False
    if not free.any() or free.all():
        return _unchanged(rep, labels0)
    flat = pix_labels.ravel()
    p, q, wt = _band_pairs(step, free)
    u = np.flatnonzero(free)
    k = int(step.n_segments)
    prior = None
    if step.looks > 0:
        codes = step.codes if step.codes is not None else colour_codes(rep.image)
        n_bins = BINS ** (1 if rep.image.ndim == 2 else rep.image.shape[2])
        prior = colour_posterior(codes, flat, k, u, n_bins)
    weight = step.looks
    if step.keep is not None:
        prior, weight = _with_node_prior(prior, step.looks, np.asarray(step.keep, float)[rep.node_map.ravel()[u]],
                                         flat[u], k)
    new = _walked(free, flat, p, q, wt, prior, weight, k, step.method_nodes)
    shrunk = _shrunk_to_slivers(flat.reshape(h, w), new.reshape(h, w), k, step.anchors)
    if len(shrunk):  # the walk made a sliver of a segment: its pixels stay as the nodes have them
        keep = free & np.isin(flat, shrunk).reshape(h, w)
        free &= ~keep
        inside = ~keep.ravel()[u]
        u = u[inside]
        if prior is not None:
            prior = prior[inside]
        if np.ndim(weight):
            weight = np.asarray(weight)[inside]
        p, q, wt = _band_pairs(step, free)
        new = _walked(free, flat, p, q, wt, prior, weight, k, step.method_nodes) if len(u) else flat.copy()
    walked = new[u]
    moved = walked != flat[u]
    changed, changed_labels = u[moved].astype(np.int32), walked[moved].astype(np.int32)
    refined, parent, labels = _parts(rep, labels0, changed, changed_labels, k)
    return Refined(rep, labels0, refined, parent, labels, len(u), changed, changed_labels)


def _band_pairs(step: PixelRefinement, free: np.ndarray) -> tuple:
    """Every pixel pair touching ``free`` and its weight: from the kept grid weights
    (``step.grid``) or computed from the working image and edge map."""
    rep = step.representation
    h, w = free.shape
    p, q = pairs_touching(free)
    if step.grid is not None:
        return p, q, weights_from_grid(step.grid, p, q, w)
    return p, q, pixel_weights(rep.image.reshape(h * w, -1), rep.edges.ravel(), p, q,
                               step.sigma_intensity, step.sigma_boundary)


def _walked(free, flat, p, q, wt, prior, weight, k: int, method_nodes: int) -> np.ndarray:
    """Every pixel's segment after the band's walk (:func:`band_walk`) and :func:`fill_islands`."""
    h, w = free.shape
    new = flat.copy()
    new[np.flatnonzero(free)] = band_walk(free, flat, p, q, wt, prior, weight, k)
    min_area = int(MIN_ISLAND * h * w / max(int(method_nodes), 1))
    if min_area > 1:
        new = fill_islands(new.reshape(h, w), flat.reshape(h, w), free, min_area).ravel()
    return new


def _shrunk_to_slivers(before: np.ndarray, after: np.ndarray, k: int, anchors: np.ndarray) -> np.ndarray:
    """The segments the walk made slivers of stroke ends: at least :data:`SLIVER` of the
    image in ``before`` (the node-level labels per pixel, shape (h, w)) and under it in
    ``after`` (the walk's, the same shape), whose node-level pixels lie in two or more
    pieces (4-connected) that hold an anchor (a stroke end, ``anchors``: flat indices).

    Such a segment is the walk from stroke ends, not a region the image shows (a must-link
    across a long region honoured by two blobs around its ends, 187071 and 87065 at K = 3:
    3.4% and 3.7% of the image at node level); every pixel of it lies in the band, seeded
    from the pixels around it, and the walk pulled it in further (2.5% and 2.3%, a collapse).
    A small region in one piece is refined as any other: the walk finds its outline
    (311068: a small object, 4.3% at node level, 2.9% refined and right)."""
    n = max(before.size, 1)
    a = np.bincount(before.ravel(), minlength=k)[:k] / n
    b = np.bincount(after.ravel(), minlength=k)[:k] / n
    candidates = np.flatnonzero((a >= SLIVER) & (b < SLIVER))
    if not len(candidates) or not len(anchors):
        return candidates[:0]
    return np.array([c for c in candidates if _anchored_pieces(before, int(c), anchors) >= 2], np.int64)


def _anchored_pieces(labels: np.ndarray, c: int, anchors: np.ndarray) -> int:
    """How many 4-connected pieces of segment ``c`` of ``labels`` (shape (h, w)) hold an
    anchor (flat indices)."""
    pieces, _ = ndi.label(labels == c)
    hit = pieces.ravel()[np.asarray(anchors, np.int64)]
    return len(np.unique(hit[hit > 0]))


def _with_node_prior(prior: np.ndarray | None, looks: float, keep: np.ndarray, own: np.ndarray, k: int):
    """The walk's prior and its weight per band pixel with the node prior (``keep``, per
    pixel) beside the colour prior (``prior`` with weight ``looks``; uniform where none)."""
    onehot = np.zeros((len(own), k))
    onehot[np.arange(len(own)), own] = 1.0
    colour = prior if prior is not None else np.full((len(own), k), 1.0 / k)
    weight = looks + keep
    return (looks * colour + keep[:, None] * onehot) / np.maximum(weight, 1e-300)[:, None], weight


def _kept(step: PixelRefinement, rep, labels0: np.ndarray, pix_labels: np.ndarray) -> Refined:
    """:func:`apply_refinement` for a result kept as it is: the parts where ``step.kept``
    differs from the node labels (valid segments only, anchors keep their node's)."""
    k = int(step.n_segments)
    kept = np.asarray(step.kept).ravel()
    flat = pix_labels.ravel()
    moved = (kept != flat) & (kept >= 0) & (kept < k)
    moved[np.asarray(step.anchors, np.int64)] = False
    if not moved.any():
        return _unchanged(rep, labels0)
    changed = np.flatnonzero(moved).astype(np.int32)
    changed_labels = kept[changed].astype(np.int32)
    refined, parent, labels = _parts(rep, labels0, changed, changed_labels, k)
    return Refined(rep, labels0, refined, parent, labels, 0, changed, changed_labels)


MIN_ISLAND = 0.25  # islands the walk makes below this many node areas go to their surroundings


def fill_islands(labels: np.ndarray, before: np.ndarray, free: np.ndarray, min_area: int) -> np.ndarray:
    """``labels`` without the specks the band's walk made: every 4-connected region of one
    segment smaller than ``min_area`` pixels that lies in ``free`` and holds a pixel whose
    segment the walk changed (a region of the node-level labels stays, however small) takes
    the segment most of its 4-neighbours outside it have.

    Parameters
    ----------
    labels, before : ndarray, shape (h, w), int
        The segments after and before the walk.
    free : ndarray, shape (h, w), bool
        The pixels the walk labelled.
    min_area : int
    """
    from skimage.measure import label

    out = labels.copy()
    # every 4-connected region of one segment, all segments in one pass (two regions of one
    # segment never touch, so a region's neighbours in other regions are other segments')
    regions = label(labels, background=-1, connectivity=1)
    n = int(regions.max())
    size = np.bincount(regions.ravel(), minlength=n + 1)
    walked = np.bincount(regions[(labels != before) & free], minlength=n + 1) > 0
    outside = np.bincount(regions[~free], minlength=n + 1) > 0
    speck = (size < min_area) & walked & ~outside
    speck[0] = False
    if speck.any():
        out = _vote_fill(out, regions, speck, labels)
    return out


def _vote_fill(out: np.ndarray, regions: np.ndarray, speck: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Each speck region (``speck[regions]``) takes the segment most of its outer 4-neighbours have."""
    mask = speck[regions]
    votes = np.zeros((len(speck), int(labels.max()) + 1))
    whole, head, tail = slice(None), slice(None, -1), slice(1, None)
    for a, b in (((whole, head), (whole, tail)), ((whole, tail), (whole, head)),
                 ((head, whole), (tail, whole)), ((tail, whole), (head, whole))):
        ra, rb = regions[a], regions[b]
        sel = mask[a] & (ra != rb)
        np.add.at(votes, (ra[sel], labels[b][sel]), 1.0)
    fill = votes.argmax(1)
    mask &= (votes.sum(1) > 0)[regions]
    out[mask] = fill[regions[mask]]
    return out


def band_walk(free: np.ndarray, labels: np.ndarray, p: np.ndarray, q: np.ndarray, wt: np.ndarray,
              prior: np.ndarray | None, weight: float, k: int, rtol: float = 1e-3) -> np.ndarray:
    """The random walk with a prior (Grady 2005) on the band: the segment of every pixel of
    ``free`` (in ``np.flatnonzero(free)`` order).

    Per segment ``l`` it minimises ``sum_pq w_pq (x_pl - x_ql)^2 + weight sum_p d_p (x_pl -
    prior_pl)^2`` over the free pixels, the others fixed to their one-hot ``labels`` (the
    energy of :func:`core.constraint_step.prior_walk`): ``(D (1 + weight) - W_uu) x_l =
    W_us y_l + weight D prior_l``. Solved by conjugate gradients with a Jacobi
    preconditioner from the current labels (the system is diagonally dominant; only the
    argmax is used), in single precision, which on a band of pixels costs a fraction of a
    sparse factorisation.
    The last segment's column is one minus the others: the seeds are one-hot and every
    prior row sums to one, so the solutions of all segments sum to one at every pixel
    (up to the 1e-9 regulariser and the solver's tolerance).

    Parameters
    ----------
    free : ndarray, shape (h, w), bool
    labels : ndarray, shape (h * w,), int
        Current segment of every pixel (fixed outside ``free``).
    p, q, wt : ndarray, shape (e,)
        Every pixel pair touching ``free`` (:func:`~core.graph.pixels.pairs_touching`) and
        its weight.
    prior : ndarray, shape (u, k), or None
    weight : float or ndarray, shape (u,)
        The prior's weight, one for every pixel or one per pixel.
    k : int
    """
    import scipy.sparse.linalg as sla

    fr = free.ravel()
    u = np.flatnonzero(fr)
    index = np.full(fr.size, -1, np.int64)
    index[u] = np.arange(len(u))
    ip, iq = index[p], index[q]
    n = len(u)
    d = np.bincount(ip[ip >= 0], wt[ip >= 0], n) + np.bincount(iq[iq >= 0], wt[iq >= 0], n)
    both = (ip >= 0) & (iq >= 0)
    diag = d * (1.0 + weight) + 1e-9 * max(float(d.max(initial=0.0)), 1e-12)
    # A = diag(diag) - W_uu, built at once (its entries and their order as sp.diags(diag) - W)
    rows = np.concatenate([np.arange(n), ip[both], iq[both]])
    cols = np.concatenate([np.arange(n), iq[both], ip[both]])
    vals = np.concatenate([diag, -wt[both], -wt[both]]).astype(np.float32)
    A = sp.csr_matrix((vals, (rows, cols)), shape=(n, n))
    A.sum_duplicates()
    rhs = np.zeros((k, n))
    for a, b in ((ip, q), (iq, p)):  # a free pixel's fixed neighbours
        edge = (a >= 0) & ~fr[b]
        for c in range(k):
            sel = labels[b[edge]] == c
            rhs[c] += np.bincount(a[edge][sel], wt[edge][sel], n)
    rhs = rhs.T
    if prior is not None and np.any(weight > 0):
        rhs += (weight * d)[:, None] * prior
    inv = (1.0 / diag).astype(np.float32)
    M = sla.LinearOperator((n, n), matvec=lambda r: inv * r.ravel(), dtype=np.float32)  # Jacobi
    x = np.empty((n, k))
    start = labels[u]
    for c in range(k - 1):  # single precision: ~40% faster, far below rtol (only the argmax is used)
        x[:, c], _ = sla.cg(A, rhs[:, c].astype(np.float32), x0=(start == c).astype(np.float32), rtol=rtol,
                            M=M, maxiter=1000)
    x[:, k - 1] = 1.0 - x[:, :k - 1].sum(1)  # each row of the solution sums to 1 (see below)
    return x.argmax(1)


def cut_nodes(node_map: np.ndarray, node_labels: np.ndarray, changed: np.ndarray, changed_labels: np.ndarray,
              n_segments: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The nodes of ``node_map`` cut where the refinement relabelled pixels.

    Given the node labels and the relabelled pixels, this is the whole of the refinement's
    result: the window rebuilds the refined node map from the node map it already holds
    and these few arrays, instead of receiving a new map per stroke.

    Parameters
    ----------
    node_map : ndarray, shape (h, w), int
    node_labels : ndarray, shape (n,), int
    changed : ndarray, shape (c,), int
        Flat working-pixel indices whose segment differs from their node's.
    changed_labels : ndarray, shape (c,), int
        Their segments.
    n_segments : int

    Returns
    -------
    parts_map : ndarray, shape (h, w), int32
        One part per (node, segment) pair that holds pixels, numbered in the order of
        ``node * n_segments + segment``.
    parent : ndarray, shape (n',), int64
        The node of each part.
    labels : ndarray, shape (n',), int64
        The segment of each part.
    """
    k = int(n_segments)
    n = len(node_labels)
    key = node_map.astype(np.int64).ravel() * k + np.asarray(node_labels, np.int64)[node_map.ravel()]
    key[changed] += np.asarray(changed_labels, np.int64) - key[changed] % k
    present = np.flatnonzero(np.bincount(key, minlength=n * k))
    ids = np.full(n * k, -1, np.int64)
    ids[present] = np.arange(len(present))
    return ids[key].astype(np.int32).reshape(node_map.shape), present // k, present % k


def _parts(rep, node_labels, changed, changed_labels, k: int):
    """``rep``'s nodes cut by the refinement (:func:`cut_nodes`) as a representation."""
    from ..graph.representation import _summarise

    node_map, parent, labels = cut_nodes(rep.node_map, node_labels, changed, changed_labels, k)
    refined = _summarise(rep.kind, rep.image, node_map, rep.shape, rep.factor)
    refined = dataclasses.replace(refined, image=rep.image, edges=rep.edges)
    return refined, parent, labels
