"""Where the next stroke would help most: the least certain region of a result.

A result is *certain* at a node when the pieces of evidence agree on its segment:

* **the strokes** -- a random walk with a uniform prior (Grady 2005, as in the constraint
  step) on the boundary graph ``W`` the constraint step walks on, seeded at the nodes holding
  stroke ends, blocks and brush regions with the segments the result gives them. For label
  ``l`` it minimises ``sum_ij W_ij (x_il - x_jl)^2 + lam sum_i d_i (x_il - 1/K)^2``: near a
  stroke ``x_i`` is that stroke's segment, far from every stroke (``lam`` sets how far in
  graph steps, ``REACH``) it fades to ``1/K`` -- nothing said there;
* **the method** -- the node's place in the method's embedding: how much nearer it lies to
  its own segment's centroid than to the nearest other one's;
* **the looks** (once there is a stroke) -- how much more the node looks like its own
  segment than like the likeliest other, by its colour (:func:`looks_certainty`: each
  segment's colour histogram) and its texture (:func:`texture_certainty`: the texture
  model of the constraint step, a logistic regression of scikit-image's multiscale
  features, read from ``Segmentation.node_texture``), each learnt from the nodes the
  strokes make sure of (stroke term above ``LOOKS_SURE``; all of a segment's nodes where
  the strokes are sure of none of them, as of a segment no stroke has reached): a part of
  the object left in the background, looking like the object
  and unlike the background's sure nodes, is doubted however far it lies from the strokes
  (the memorial's stone scrolls against its brick wall; measured with the
  suggestion-follower, ``bench/results/tuning.md``, 2026-11-29);
* **where it lies** (once there is a stroke) -- how many graph steps ``h_i`` the node lies
  from the boundary between segments (:func:`from_boundary`): a result's errors lie along
  its boundaries more often than deep inside its segments: on the follower's GrabCut
  results, of a wrong and a right node, the one nearer the boundary is the wrong one in
  73% of pairs, as often as the three terms above together rank them (the area under the
  ROC curve, 0.73 each; both together 0.76; ``bench/results/tuning.md``, 2026-11-29).

Certainty ``c_i = (1 - a) [w (x_i[f_i] - max_{l != f_i} x_i[l]) + (1 - w) (d_other - d_own) /
(d_other + d_own)] + a [(1 - t) (P_i[f_i] - max_{l != f_i} P_i[l]) + t (Q_i[f_i] - max_{l != f_i}
Q_i[l])] + b (log(1 + min(h_i, H)) - log 2)``, clipped to ``[-1, 1]``, with ``f_i`` the node's segment, ``P`` the colour and ``Q`` the
texture posteriors (``w = STROKE_WEIGHT``, ``a = LOOKS_WEIGHT``, ``t = TEXTURE_SHARE``,
``b = BOUNDARY_WEIGHT``, ``H = BOUNDARY_HOPS`` once there is a stroke; before, the method's
term alone; ``t = 0`` where the constraint step ran
without its texture model, ``rounding_texture`` 0, or fewer than two segments have nodes
to learn from). Nodes with ``c_i < THRESHOLD`` are *uncertain*; each
connected group of uncertain nodes of one segment (touching in ``W``) is a candidate region,
scored by its pixels times its mean uncertainty ``(1 - c) / 2`` (when no node is under the
threshold, the least certain fifth of the nodes form the regions: there is always a least
certain place). Beside them, each large part of a segment that no stroke has
confirmed (:func:`_unconfirmed`: a region its stronger edges outline, holding no stroke end,
block or brush region and at least ``UNCONFIRMED_SHARE`` of the image) is a candidate too,
ranked by its pixels times its mean uncertainty times ``UNCONFIRMED_DOUBT``: the largest
error is often a whole region the result is sure of, which no threshold on the certainty
finds. A segment that no stroke, block or brush region has reached comes before
every such region: what it stands for is the least certain thing in the result, however
sure the embedding is of its nodes (its largest connected piece, scored by its pixels; of
several, the one holding less of the image's border first: a figure before its ground;
measured with the suggestion-follower, ``bench/results/tuning.md``); it is asked about
where it lies farthest inside the unstroked image (:func:`_inner`: the geodesic distance on
the boundary graph from the image's border and the stroked nodes; its nodes at least
``INNER_SHARE`` times as far inside as its farthest), not at the centre of its largest piece, which on a
GrabCut photo is most often background: there the follower's first object click came
after 2.5 background clicks on average, now after 0.9. The suggestion is the
highest-scoring region's centre (the pixel farthest inside it, or inside that part of an
unreached segment) and, per segment, its surest point (the centre of its largest certain
group) that a person links the suggested point to.

Everything runs on the nodes the constraint step labelled (before the pixel refinement), a
few hundred to a few thousand, in a few milliseconds; nothing here needs the ground truth.

References
----------
Grady, L. "Multilabel random walker image segmentation using prior models", CVPR 2005.
Rother, C., Kolmogorov, V., Blake, A. "GrabCut: interactive foreground extraction using
iterated graph cuts", SIGGRAPH 2004 (colour models refitted to the current labels).
Wei, Y., Wen, F., Zhu, W., Sun, J. "Geodesic saliency using background priors", ECCV 2012
(the geodesic distance from the image's border as a figure cue).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.ndimage import distance_transform_edt, label as cc_label
from scipy.sparse.csgraph import connected_components

from .constraints import Constraints, Kind
from .errors import ParameterError
from .graph.representation import border_pixels

REACH = 0.02  # lam: the walk's prior weight per unit degree (smaller reaches further)
STROKE_WEIGHT = 0.7  # the strokes' share of the certainty once there is a stroke
LOOKS_WEIGHT = 0.3  # the looks' share of the certainty once there is a stroke
LOOKS_SURE = 0.3  # a node counts in its segment's looks (colour, texture) where the strokes are this sure
TEXTURE_SHARE = 0.5  # the texture model's share of the looks (the colour histograms' the rest)
THRESHOLD = 0.0  # nodes less certain than this (more doubt than belief) form candidate regions
LEAST = 0.2  # when no node is under THRESHOLD, the least certain fifth forms the regions
STROKE_ANCHORS = True  # a segment's anchor is its oldest stroke end where it has one
BOUNDARY_WEIGHT = 0.1  # b: doubt near the segments' boundaries, surety far from them (:func:`from_boundary`)
BOUNDARY_HOPS = 10  # graph steps beyond which a node is no farther from the boundary
INNER_SHARE = 0.8  # an unreached segment is asked about where it lies farthest inside (:func:`_inner`)
GRID_SIDE = 160  # centres are found on a grid at most this many pixels a side
UNCONFIRMED_EDGES = 0.5  # an unconfirmed region is bounded by graph edges weaker than this quantile of their weights
UNCONFIRMED_SHARE = 0.1  # ... holds at least this share of the image
UNCONFIRMED_DOUBT = 0.6  # ... and counts its mean uncertainty times this (:func:`_unconfirmed`)


@dataclass(frozen=True)
class Suggestion:
    """One place where a stroke would help.

    Attributes
    ----------
    point : tuple of int
        Full-image pixel ``(row, col)``: the centre of the region (the pixel farthest inside
        it; for a segment no stroke has reached, of its part lying farthest inside the
        unstroked image, :func:`_inner`).
    segment : int
        The segment the result gives the region now.
    anchors : tuple
        Per segment ``0 .. K-1``, its surest point ``(row, col)`` (``None`` for an empty
        segment): a person answers the suggestion by must-linking ``point`` to the anchor of
        the segment it belongs to, or cannot-linking it to its own segment's anchor.
    score : float
        Uncertain area, full-image pixels times mean uncertainty in ``[0, 1]`` (times
        ``UNCONFIRMED_DOUBT`` for a region no stroke has confirmed, :func:`_unconfirmed`;
        a segment no stroke has reached: its pixels).
    nodes : ndarray, shape (m,), int
        The region's nodes on the labelled graph (``Segmentation.refinement.base`` when the
        refinement ran, else ``Segmentation.representation``).
    """

    point: tuple
    segment: int
    anchors: tuple
    score: float
    nodes: np.ndarray


def node_level(seg):
    """The nodes the constraint step labelled and their labels: ``(representation, labels,
    embedding rows)``, before the pixel refinement."""
    ref = seg.refinement
    if ref is None:
        return seg.representation, np.asarray(seg.node_labels, np.int64), np.asarray(seg.node_embedding)
    first = np.unique(ref.parent, return_index=True)[1]  # one part of each base node
    return ref.base, np.asarray(ref.base_labels, np.int64), np.asarray(seg.node_embedding)[first]


def seed_nodes(constraints: Constraints, rep) -> np.ndarray:
    """Nodes of ``rep`` holding a stroke end, a block or a brush region (unique, sorted)."""
    out = []
    for kind in (Kind.MUST_LINK, Kind.CANNOT_LINK):
        links = np.asarray(getattr(constraints, kind), np.int64).reshape(-1, 5)
        for r, c in np.concatenate([links[:, 0:2], links[:, 2:4]]):
            out.append(rep.node_at(int(r), int(c)))
    for b in constraints.blocks:
        out.extend(int(n) for n in rep.nodes_of_block(b))
    return np.unique(np.asarray(out, np.int64))


def stroke_certainty(W, labels: np.ndarray, seeds: np.ndarray, k: int, reach: float = REACH) -> np.ndarray:
    """``x_i[f_i] - max_{l != f_i} x_i[l]`` of the walk with a uniform prior (module
    docstring), shape (n,), in ``[-1, 1]``; 0 everywhere without seeds."""
    n = len(labels)
    if len(seeds) == 0:
        return np.zeros(n)
    W = sp.csr_matrix(W)
    d = np.asarray(W.sum(1)).ravel()
    free = np.ones(n, bool)
    free[seeds] = False
    X = np.zeros((n, k))
    X[seeds, labels[seeds]] = 1.0
    u = np.flatnonzero(free)
    if len(u):
        du = d[u] * (1.0 + reach) + 1e-9 * max(d.max(), 1e-12)
        A = (sp.diags(du) - W[u][:, u]).tocsc()
        rhs = np.asarray(W[u][:, seeds] @ X[seeds]) + reach * d[u, None] / k
        X[u] = sp.linalg.splu(A).solve(rhs)
    return _margin(X, labels)


def method_certainty(embedding: np.ndarray, labels: np.ndarray, k: int) -> np.ndarray:
    """``(d_other - d_own) / (d_other + d_own)`` in the method's embedding (rows
    normalised as the methods' k-means sees them), shape (n,), in ``[-1, 1]``; 1 where a
    node's segment is the only non-empty one."""
    E = np.asarray(embedding, float).reshape(len(labels), -1)
    E = E / np.maximum(np.linalg.norm(E, axis=1, keepdims=True), 1e-12)
    present = [j for j in range(k) if np.any(labels == j)]
    if len(present) < 2:
        return np.ones(len(labels))
    C = np.stack([E[labels == j].mean(0) for j in present])
    D = np.linalg.norm(E[:, None, :] - C[None], axis=2)
    col = {j: i for i, j in enumerate(present)}
    own_i = np.array([col[int(l)] for l in labels])
    own = D[np.arange(len(labels)), own_i]
    D[np.arange(len(labels)), own_i] = np.inf
    other = D.min(1)
    return (other - own) / np.maximum(other + own, 1e-12)


def disagreement(rep, labels: np.ndarray, others, k: int) -> np.ndarray:
    """Per node, the share of ``others`` (label images of the full image, other methods'
    results on the same strokes) that put its pixels in another segment, each other result's
    segments first matched to ``labels``' (Hungarian on the overlap), shape (n,), in [0, 1]."""
    from scipy.optimize import linear_sum_assignment

    nm = rep.node_map
    mine = labels[nm].ravel()
    sizes = np.maximum(np.bincount(nm.ravel(), minlength=len(labels)), 1).astype(float)
    f = rep.factor
    out = np.zeros(len(labels))
    for other in others:
        o = np.asarray(other)[::f, ::f][: nm.shape[0], : nm.shape[1]].ravel().astype(np.int64)
        n = int(max(k, o.max(initial=0) + 1, mine.max(initial=0) + 1))
        overlap = np.zeros((n, n))
        np.add.at(overlap, (o, mine), 1.0)
        rows, cols = linear_sum_assignment(-overlap)
        to = np.arange(n)
        to[rows] = cols
        out += np.bincount(nm.ravel(), weights=(to[o] != mine).astype(float), minlength=len(labels)) / sizes
    return out / max(len(others), 1)


def certainty(seg, constraints: Constraints | None = None, reach: float | None = None,
              stroke_weight: float | None = None, others=()) -> np.ndarray:
    """Per node of :func:`node_level`'s representation, how sure the result is of its
    segment, shape (n,), in ``[-1, 1]`` (module docstring; ``None``: the module's defaults).
    With ``others`` (other methods' label images on the same strokes): ``1 - 2 x`` their
    :func:`disagreement` instead, where the methods disagree being the surest sign of an
    error measured (``bench/results/tuning.md``)."""
    from .graph_setup import boundary_graph

    reach = REACH if reach is None else reach
    stroke_weight = STROKE_WEIGHT if stroke_weight is None else stroke_weight
    rep, labels, emb = node_level(seg)
    if len(others):
        return 1.0 - 2.0 * disagreement(rep, labels, others, int(seg.params["n_segments"]))
    k = int(seg.params["n_segments"])
    cons = constraints if constraints is not None else Constraints()
    seeds = seed_nodes(cons, rep)
    c_m = method_certainty(emb, labels, k)
    if len(seeds) == 0:
        return c_m
    W = boundary_graph(rep, seg.params)
    c_s = stroke_certainty(W, labels, seeds, k, reach)
    strokes_and_method = stroke_weight * c_s + (1.0 - stroke_weight) * c_m
    owner = labels.copy()
    sure = c_s > LOOKS_SURE
    for j in range(k):
        if (sure & (labels == j)).any():  # a segment the strokes make sure of nowhere keeps all its nodes
            owner[(labels == j) & ~sure] = -1
    looks = looks_certainty(rep, labels, k, owner)
    texture = texture_certainty(getattr(seg, "node_texture", None), labels, k, owner, rep.sizes)
    if texture is not None:
        looks = (1.0 - TEXTURE_SHARE) * looks + TEXTURE_SHARE * texture
    out = (1.0 - LOOKS_WEIGHT) * strokes_and_method + LOOKS_WEIGHT * looks
    if BOUNDARY_WEIGHT:
        hops = np.minimum(from_boundary(W, labels), BOUNDARY_HOPS)
        out = out + BOUNDARY_WEIGHT * (np.log1p(hops) - np.log(2.0))
    return np.clip(out, -1.0, 1.0)


def from_boundary(W, labels: np.ndarray) -> np.ndarray:
    """Per node, its number of steps on the graph ``W`` to the nearest node with a neighbour
    in another segment (0 on the boundary itself), shape (n,), float; ``inf`` everywhere
    with one segment only."""
    from scipy.sparse.csgraph import dijkstra

    W = sp.coo_matrix(W)
    labels = np.asarray(labels)
    diff = labels[W.row] != labels[W.col]
    sources = np.unique(np.concatenate([W.row[diff], W.col[diff]]))
    if len(sources) == 0:
        return np.full(len(labels), np.inf)
    return dijkstra(sp.csr_matrix(W), directed=False, indices=sources, unweighted=True, min_only=True)


def _margin(P: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """``P_i[f_i] - max_{l != f_i} P_i[l]`` per row of ``P`` (n, k) with ``f = labels``
    (``P`` is overwritten): how much more likely its own segment is than the likeliest other."""
    rows = np.arange(len(labels))
    own = P[rows, labels].copy()
    P[rows, labels] = -np.inf
    return own - P.max(1)


def looks_certainty(rep, labels: np.ndarray, k: int, owner: np.ndarray | None = None) -> np.ndarray:
    """``P_i[f_i] - max_{l != f_i} P_i[l]``, shape (n,), in ``[-1, 1]``: how much more node
    ``i``'s colour looks like its own segment ``f_i`` than like the likeliest other.

    ``P`` is :func:`~core.constraint_step.looks.appearance_prior`: each segment's colour
    histogram over a codebook of the node colours, counted over the nodes ``owner`` gives
    it (``labels`` where not given), normalised over the segments at each node's colour."""
    from .constraint_step.looks import appearance_prior, colour_codes

    return _margin(appearance_prior(colour_codes((rep.colors, rep.sizes)), labels if owner is None else owner, k),
                   labels)


def texture_certainty(F: np.ndarray | None, labels: np.ndarray, k: int, owner: np.ndarray,
                      sizes: np.ndarray | None = None) -> np.ndarray | None:
    """``Q_i[f_i] - max_{l != f_i} Q_i[l]``, shape (n,), in ``[-1, 1]``, with ``Q`` the
    texture model's posteriors (:func:`~core.constraint_step.texture.texture_posterior`:
    a logistic regression of the nodes' texture ``F``, shape (n, f), fitted on the nodes
    ``owner`` labels, weighted by ``sizes``, their pixels); ``None`` without ``F`` (the constraint step ran
    without its texture model: ``Segmentation.node_texture``) or with fewer than two
    segments labelled in ``owner``."""
    from .constraint_step.texture import texture_posterior

    if F is None or len(F) != len(labels):
        return None
    nodes = np.flatnonzero(owner >= 0)
    Q = texture_posterior(np.asarray(F, float), nodes, owner[nodes], k, sizes)
    return None if Q is None else _margin(Q, labels)


def suggest(seg, constraints: Constraints | None = None, n_suggestions: int = 1,
            exclude=(), reach: float | None = None, threshold: float | None = None,
            others=()) -> list[Suggestion]:
    """Where a stroke would help most in ``seg``, best first.

    Parameters
    ----------
    seg : Segmentation
        A result of :func:`core.segment`.
    constraints : Constraints, optional
        The constraints ``seg`` was made with (its strokes make it certain near them).
    n_suggestions : int
        At most this many regions, by falling score.
    exclude : iterable of (row, col)
        Full-image pixels whose regions are skipped (a suggestion already answered).
    others : sequence of ndarray, shape (H, W), int, optional
        Other methods' labels on the same constraints (the compare view's): the certainty is
        then their agreement with ``seg`` (:func:`certainty`).
    reach, threshold : float
        The walk's prior weight and the certainty under which a node is uncertain
        (``None``: ``REACH``, ``THRESHOLD``).

    Returns
    -------
    list of Suggestion
        Empty only when nothing is left after ``exclude``.
    """
    if not isinstance(n_suggestions, (int, np.integer)) or n_suggestions < 1:
        raise ParameterError(f"n_suggestions must be a positive integer, got {n_suggestions!r}")
    from .graph_setup import boundary_graph

    threshold = THRESHOLD if threshold is None else threshold
    rep, labels, _ = node_level(seg)
    c = certainty(seg, constraints, reach, others=others)
    W = sp.csr_matrix(boundary_graph(rep, seg.params))
    skip = {rep.node_at(int(r), int(col)) for r, col in exclude}
    grid = _Grid(rep)
    sizes = rep.sizes * rep.factor ** 2
    seeds = seed_nodes(constraints if constraints is not None else Constraints(), rep)
    out = []
    edge = np.flatnonzero(border_pixels(rep) > 0)
    unreached = _unreached(W, labels, seeds, sizes, int(seg.params["n_segments"]), edge)
    inner = _inner(W, np.union1d(edge, seeds)) if unreached else None
    regions = _regions(W, labels, c, sizes, threshold) + _unconfirmed(W, labels, seeds, sizes, c)
    regions.sort(key=lambda t: -t[1])  # stable: of equal scores, the uncertain group first
    for i, (nodes, score) in enumerate(unreached + regions):
        if skip.intersection(nodes.tolist()):
            continue
        inside = np.isin(grid.nodes, nodes)
        focus = inside
        g = inner[nodes] if i < len(unreached) else np.zeros(0)
        if np.isfinite(g).any():  # an unreached segment: where it lies farthest inside
            top = np.isin(grid.nodes, nodes[np.isfinite(g) & (g >= INNER_SHARE * g[np.isfinite(g)].max())])
            focus = top if top.any() else inside
        point = grid.centre(focus)
        anchors = tuple(grid.centre(a) if a is not None else None
                        for a in _anchor_masks(grid, labels, c >= threshold, ~inside, int(seg.params["n_segments"])))
        if STROKE_ANCHORS:
            anchors = _stroke_anchors(constraints, rep, labels, anchors, set(nodes.tolist()))
        out.append(Suggestion(point, int(labels[nodes[0]]), anchors, float(score), nodes))
        if len(out) == n_suggestions:
            break
    return out


def _inner(W, sources: np.ndarray) -> np.ndarray:
    """Per node, its geodesic distance on ``W`` from ``sources`` (the image's border nodes
    and the nodes strokes have reached), each edge costing ``1 - w / max(w) + 0.001`` (the
    small constant: every step costs something): how far inside the image's unstroked
    parts a node lies, boundaries counting as distance; ``inf`` where no source connects."""
    from scipy.sparse.csgraph import dijkstra

    C = sp.csr_matrix(W, copy=True)
    C.data = 1.0 - C.data / max(C.data.max(initial=0.0), 1e-12) + 1e-3
    return dijkstra(C, directed=False, indices=np.asarray(sources, np.int64), min_only=True)


def _components(W, keep: np.ndarray) -> np.ndarray:
    """The connected component of every node on the edges of ``W`` (COO) where ``keep``."""
    n = W.shape[0]
    A = sp.coo_matrix((np.ones(int(keep.sum())), (W.row[keep], W.col[keep])), shape=(n, n))
    return connected_components(A, directed=False)[1]


def _unreached(W, labels, seeds, sizes, k, edge):
    """The segments no stroke, block or brush region has reached (``seeds``: none of their
    nodes), each as its largest connected piece: ``[(nodes, score), ...]``, score its
    pixels (uncertainty 1). What such a segment stands for is the least certain thing in the
    result: nothing the person said has touched it. Figure before ground: the piece holding
    the smaller share of the image's border nodes (``edge``) comes first, then the larger.
    """
    reached = np.zeros(k, bool)
    reached[labels[seeds]] = True
    out = []
    W = sp.coo_matrix(W)
    comp = _components(W, labels[W.row] == labels[W.col])  # pieces of one segment each
    for j in range(k):
        if reached[j] or not np.any(labels == j):
            continue
        pix = np.bincount(comp[labels == j], weights=np.asarray(sizes, float)[labels == j])
        best = int(np.argmax(pix))
        nodes = np.flatnonzero((comp == best) & (labels == j))
        border = len(np.intersect1d(nodes, edge)) / max(len(edge), 1)
        out.append((border, -float(pix[best]), nodes))
    out.sort(key=lambda t: (t[0], t[1]))
    return [(nodes, -neg) for _, neg, nodes in out]


def _unconfirmed(W, labels, seeds, sizes, c, edges: float | None = None, share: float | None = None,
                 doubt: float | None = None):
    """The large parts of the segments that no stroke has confirmed, ``[(nodes, score), ...]``.

    A part is a connected group of one segment's nodes on the graph ``W`` without its edges
    weaker than the ``edges`` quantile of the edge weights (a region of the image as its
    stronger boundaries outline it); unconfirmed when none of its nodes holds a stroke end, a
    block or a brush region (``seeds``; also before the first stroke, and in a segment no
    stroke has reached, whose largest piece :func:`_unreached` asks about first: its other
    large parts are other questions); kept when it holds at least ``share`` of the image's
    pixels (``sizes``); scored by ``doubt`` times its pixels times its mean uncertainty
    ``(1 - c) / 2``, so a part the result is wholly sure of (``c`` = 1) still comes last
    (``None``: ``UNCONFIRMED_EDGES``, ``UNCONFIRMED_SHARE``, ``UNCONFIRMED_DOUBT``). A
    suggestion answered inside a part (``exclude`` of :func:`suggest`) skips the whole part.

    Why: the largest error a person corrects is often a whole region the result is sure of
    (the candidates of :func:`_regions` hold only nodes under the certainty threshold): on
    the first 60 Berkeley training images (K = 3, e2cp) the suggestion-follower needed 8.50
    rounds to ARI 0.80 without these parts, 8.17 with them; on GrabCut 11.14 clicks to IoU
    0.90, 10.94 (``bench/results/tuning.md``, 2026-11-29). Small parts do not count (every
    part, or parts of at least 5% of the image, at doubt 1: GrabCut 11.72 and 11.24, the
    follower confirming background clutter that is already right). On the Berkeley images
    the gain is in the first rounds: without these candidates before the first stroke 8.38,
    and without them in segments no stroke has reached 8.50.
    """
    edges = UNCONFIRMED_EDGES if edges is None else edges
    share = UNCONFIRMED_SHARE if share is None else share
    doubt = UNCONFIRMED_DOUBT if doubt is None else doubt
    W = sp.coo_matrix(W)
    seeds = np.asarray(seeds, np.int64)
    if not len(W.data):
        return []
    comp = _components(W, (W.data >= np.quantile(W.data, edges)) & (labels[W.row] == labels[W.col]))
    sizes = np.asarray(sizes, float)
    pixels = np.bincount(comp, weights=sizes)
    doubted = np.bincount(comp, weights=sizes * (1.0 - c) / 2.0)
    confirmed = np.zeros(len(pixels), bool)
    confirmed[comp[seeds]] = True
    parts = np.flatnonzero(~confirmed & (pixels >= share * pixels.sum()))
    return [(np.flatnonzero(comp == r), doubt * float(doubted[r])) for r in parts]


def _regions(W, labels, c, sizes, threshold):
    """Connected groups of uncertain nodes of one segment (under ``threshold``, or the
    least certain :data:`LEAST` of all when none is), ``[(nodes, score), ...]`` by falling
    score (pixels times mean uncertainty)."""
    unsure = c < threshold
    if not unsure.any():  # every node is fairly sure: the least sure of them
        unsure = c <= np.quantile(c, LEAST)
    W = sp.coo_matrix(W)
    comp = _components(W, unsure[W.row] & unsure[W.col] & (labels[W.row] == labels[W.col]))
    comp = np.where(unsure, comp, -1)
    weight = np.asarray(sizes, float) * (1.0 - c) / 2.0
    ids = np.unique(comp[comp >= 0])
    scores = np.bincount(comp[comp >= 0], weights=weight[comp >= 0], minlength=comp.max() + 1)[ids]
    order = np.argsort(-scores, kind="stable")
    return [(np.flatnonzero(comp == ids[i]), scores[i]) for i in order]


def _stroke_anchors(constraints, rep, labels, anchors: tuple, region: set) -> tuple:
    """Each segment's anchor moved to its oldest stroke end outside ``region`` (what the person
    already said lies there), where it has one."""
    if constraints is None:
        return anchors
    out = list(anchors)
    done = set()
    for kind in (Kind.MUST_LINK, Kind.CANNOT_LINK):
        for link in getattr(constraints, kind):
            for r, c in ((link[0], link[1]), (link[2], link[3])):
                node = rep.node_at(int(r), int(c))
                j = int(labels[node])
                if j not in done and node not in region and j < len(out):
                    out[j] = (int(r), int(c))
                    done.add(j)
    return tuple(out)


class _Grid:
    """The node map read every ``step``-th working pixel (at most ``GRID_SIDE`` a side), where
    region centres are found: distance transforms there take well under a millisecond."""

    def __init__(self, rep):
        h, w = rep.node_map.shape
        self.step = max(1, -(-max(h, w) // GRID_SIDE))
        self.nodes = rep.node_map[::self.step, ::self.step]
        self.rep = rep

    def centre(self, mask: np.ndarray) -> tuple:
        """The full-image pixel farthest inside ``mask`` (a grid mask; the border counts as
        outside)."""
        d = distance_transform_edt(np.pad(mask, 1))[1:-1, 1:-1]
        r, c = np.unravel_index(int(np.argmax(d)), d.shape)
        f, (h, w) = self.rep.factor * self.step, self.rep.shape
        half = self.rep.factor * self.step // 2
        return int(min(r * f + half, h - 1)), int(min(c * f + half, w - 1))


def _anchor_masks(grid: _Grid, labels, sure: np.ndarray, allowed: np.ndarray, k: int) -> list:
    """Per segment, the grid mask of its largest connected group of certain pixels inside
    ``allowed`` (of its pixels inside ``allowed`` when none is certain); ``None`` when it has
    no pixel there."""
    seg = labels[grid.nodes]
    sure_px = sure[grid.nodes]
    out = []
    for j in range(k):
        in_j = (seg == j) & allowed
        if not in_j.any():
            out.append(None)
            continue
        region = in_j & sure_px if (in_j & sure_px).any() else in_j
        lab, n = cc_label(region)
        biggest = 1 + int(np.argmax(np.bincount(lab.ravel())[1:])) if n > 1 else 1
        out.append(lab == biggest)
    return out
