"""The constraint step's entry: :func:`constrained_labels` dispatches on the colouring
(``'auto'`` runs two and keeps the lower normalised cut)."""

from __future__ import annotations

import numpy as np

from ..constraints import Kind
from .ncut import labels_ncut, _ncut_rounding
from .params import (ANCHORED_EMPTIED_KEEP, ANCHORED_ONE_CALL_MARGIN, ANCHORED_SCREEN_MARGIN, ANCHORED_SCREEN_MARGIN_K2,
                     COLOURING_TIE_WEIGHT, NCUT_TIE_WEIGHT,
                     SCREEN_GROUPING_MARGIN, SINGLE_VECTOR_SPACING, UNREACHED_MIN_SHARE)
from .potts import _best_colouring, edit_conductance
from .resolve import Resolution, resolve, _seed_nodes
from .texture import edit_texture_walk
from .walk import prior_walk, _follow_numbering, _centroids


def constrained_labels(embedding: np.ndarray, labels0: np.ndarray, nc, n_clusters: int,
                       max_iter: int = 20, graph=None, prior_weight: float = 0.0,
                       colouring: str = "walk", previous: np.ndarray | None = None,
                       stability: float = 0.0, appearance=None,
                       looks_weight: float = 0.0, appearance_weight: float = 0.0,
                       texture=None, texture_weight: float = 0.0,
                       anchored: bool = False, positions: np.ndarray | None = None) -> tuple[np.ndarray, Resolution]:
    """Labels that honour the user's constraints, from a method's result (module docstring).

    Parameters
    ----------
    embedding : ndarray, shape (n, p)
        What the method's own rounding clustered (e.g. NJW's row-normalised eigenvectors). A
        single column (p = 1, csp's at K = 2) is scaled to a fixed spacing of its centroids
        (:func:`_single_vector_scaled`): its scale is the eigenproblem's, not the image's.
    labels0 : ndarray, shape (n,)
        The method's own labels: the starting centroids.
    nc : NodeConstraints
    n_clusters : int
    max_iter : int
        Rounds of (colour groups, assign the other nodes, move centroids).
    graph : sparse matrix or ndarray, shape (n, n), optional
        With ``prior_weight > 0``: the graph of the walk (step 4) and, with
        ``colouring='walk'``, of the colouring's energy (step 2).
    prior_weight : float
        The walk's prior weight (0: no walk), step 4.
    colouring : {'walk', 'embedding'}
    previous : ndarray, shape (n,), int, optional
        Each node's segment in the result shown before this edit (-1: none), step 2's
        stability term.
    stability : float
        Its weight per node (``rounding_stability``).
    texture : tuple (features (n, f), sizes (n,)), optional
        What the nodes' texture is (:func:`~core.constraint_step.texture.node_texture`).
    texture_weight : float
        ``rounding_texture``: how much the walk's graph is weakened across nodes a texture
        model fitted on the walk's first labels tells apart (:mod:`.texture`; 0: not at all).
    anchored : bool
        With ``colouring='auto'``: the must-link groups no cannot-link touches placed by the
        cannot-linked groups once those hold every colour (:func:`_anchored`).
    positions : ndarray, shape (n, 2), optional
        Each node's position over the image's diagonal: the placement's nearness term
        (:mod:`~core.constraint_step.anchored`; None: without it).

    Returns
    -------
    labels : ndarray, shape (n,), int64
    resolution : Resolution
        Which strokes are honoured (after dropping, if need be, the oldest cannot-links that
        made a colouring with ``n_clusters`` segments impossible).
    """
    if colouring == "auto":
        return _auto_rounding(embedding, labels0, nc, n_clusters, max_iter=max_iter, graph=graph,
                              prior_weight=prior_weight, previous=previous, stability=stability,
                              appearance=appearance, looks_weight=looks_weight,
                              appearance_weight=appearance_weight, texture=texture,
                              texture_weight=texture_weight, anchored=anchored, positions=positions)
    E = _checked_embedding(embedding)
    res = resolve(nc)
    labels = np.asarray(labels0, np.int64).copy()
    if res.n_groups == 0:
        return labels, res
    walk = graph is not None and prior_weight > 0
    seeds = _seed_nodes(nc, res) if walk else np.flatnonzero(res.group >= 0)
    pair, tie = None, 1.0
    if walk and colouring == "walk":
        pair = edit_conductance(nc, graph, seeds, res.group[seeds], res.n_groups)[0]
        pair /= max(float(np.median(np.asarray(graph.sum(1)))), 1e-12)  # in units of a node's degree
        tie = COLOURING_TIE_WEIGHT
    elif walk and colouring == "ncut":
        tie = NCUT_TIE_WEIGHT
    keep = 0.0
    if previous is not None and stability > 0:
        labels, keep = _stability(labels, np.asarray(previous, np.int64), res, n_clusters, stability)
    spread = E[np.random.RandomState(0).permutation(len(E))[:n_clusters]]
    mu = _centroids(E, labels, n_clusters, spread)
    E, mu = _single_vector_scaled(E, mu)
    members = _members(res.group, res.n_groups)
    if walk and colouring == "ncut":
        d2 = ((E[:, None, :] - mu[None, :, :]) ** 2).sum(-1)
        unary = tie * _group_sums(d2, members) + keep
        labels = _ncut_rounding(nc, E, labels, mu, res, seeds, graph, n_clusters, unary, appearance,
                                looks_weight, prior_weight, appearance_weight, texture, texture_weight)
        return labels, res
    labels = _cop_kmeans(E, labels, mu, res, members, tie, keep, pair, n_clusters, max_iter)
    if walk:
        seeds = seeds[res.group[seeds] >= 0]
        prior = np.zeros((len(E), n_clusters))
        prior[np.arange(len(E)), labels] = 1.0
        prior[:, np.unique(labels[seeds])] = 0.0  # reached segments: mass from their seeds only
        labels = edit_texture_walk(nc, graph, seeds, labels[seeds], prior, prior_weight, texture, texture_weight)
    return labels, res


def _checked_embedding(embedding) -> np.ndarray:
    """The method's embedding as (n, p) floats; a non-finite one is a ConvergenceError."""
    E = np.asarray(embedding, float)
    if E.ndim == 1:
        E = E[:, None]
    if not np.isfinite(E).all():
        from ..errors import ConvergenceError

        raise ConvergenceError("the constrained rounding got a non-finite embedding (the method's "
                               "eigenvectors hold NaN or infinity); try rounding='paper' or another method")
    return E


def _single_vector_scaled(E: np.ndarray, mu: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A single vector (``E`` of shape (n, 1)) and its centroids ``mu``, scaled so that the
    centroids lie :data:`~core.constraint_step.params.SINGLE_VECTOR_SPACING` apart (squared
    distance, mean over pairs); an embedding of several columns as it is, and a vector whose
    centroids barely differ against its own spread (the method's labels one segment, an
    empty segment's stand-in centroid near the mean) too.

    With a walk, the embedding's centroid distances only break ties between the other terms
    of step 2 (``COLOURING_TIE_WEIGHT``, ``NCUT_TIE_WEIGHT``, in units of a row-normalised
    embedding, whose two centroids at K = 2 lie about 2 apart, squared); without one
    (``colouring='embedding'`` or ``prior_weight`` 0) they are the colouring's main term and
    the unit of ``rounding_stability``. Either way the weights assume that scale. A single
    column -- csp's at K = 2, which the paper rounds by its sign -- comes as the generalised
    eigenproblem scales it, heavy tailed: on 376001 its centroids lay 46 apart (squared
    distance; 12074: 6.4), so the "tie" outweighed the stability term and the walk's energy,
    and a cannot-link the screen already honoured regrouped the must-links (ARI 0.95 -> 0.11;
    the other methods kept the screen's grouping). Scaling a vector changes no nearest
    centroid, only that balance.
    """
    if E.shape[1] != 1 or len(mu) < 2:
        return E, mu
    from scipy.spatial.distance import pdist

    spacing = float(np.mean(pdist(mu, "sqeuclidean")))
    if not spacing > 1e-3 * float(E.var()) or not spacing > 1e-12:
        return E, mu
    f = np.sqrt(spacing / SINGLE_VECTOR_SPACING)
    return E / f, mu / f


def _stability(labels, prev, res, n_clusters: int, stability: float):
    """Step 2's stability term: the method's labels numbered as the result on screen, and
    per group and segment ``stability`` times its members whose previous segment it is not."""
    labels = _follow_numbering(labels, prev, n_clusters)
    had = np.stack([(prev == c) for c in range(n_clusters)], 1)  # (n, K)
    known = had.any(1)
    grouped = res.group >= 0
    moved = (known[:, None] & ~had)[grouped]  # (grouped nodes, K): members whose segment c was not
    counts = np.stack([np.bincount(res.group[grouped], weights=moved[:, c], minlength=res.n_groups)
                       for c in range(n_clusters)], 1)
    keep = stability * counts  # whole numbers: the same in any order of summation
    return labels, keep


def _members(group: np.ndarray, n_groups: int) -> list:
    """The nodes of each group in ascending order, ``[np.flatnonzero(group == g) for g in
    range(n_groups)]`` in one sort (nodes outside every group have ``group`` -1)."""
    order = np.argsort(group, kind="stable")
    counts = np.bincount(group[group >= 0], minlength=n_groups)
    return np.split(order[int((group < 0).sum()):], np.cumsum(counts)[:-1])


def _group_sums(d2: np.ndarray, members: list) -> np.ndarray:
    """``np.array([d2[m].sum(0) for m in members])``, shape (n_groups, K), the same values:
    groups of one or two nodes at once (a sum of two is the same in either order), larger
    ones one by one (numpy's order of summation over their rows)."""
    sizes = np.fromiter(map(len, members), np.int64, len(members))
    out = np.zeros((len(members), d2.shape[1]))  # a group without nodes sums to zero
    if not len(members) or not sizes.any():
        return out
    flat = np.concatenate(members)
    start = np.cumsum(sizes) - sizes
    one, two = np.flatnonzero(sizes == 1), np.flatnonzero(sizes == 2)
    out[one] = d2[flat[start[one]]]
    out[two] = d2[flat[start[two]]] + d2[flat[start[two] + 1]]
    for g in np.flatnonzero(sizes > 2).tolist():
        out[g] = d2[members[g]].sum(0)
    return out


def _cop_kmeans(E, labels, mu, res, members, tie: float, keep, pair, n_clusters: int, max_iter: int):
    """Steps 2-3 with ``'walk'`` / ``'embedding'``: colour the groups (:func:`_best_colouring`:
    the embedding's centroid distances times ``tie``, the stability term ``keep``, the walk's
    energy ``pair``), every other node to its nearest centroid, centroids moved, until the
    labels stop changing (COP-KMeans with must-link components as units). The oldest
    cannot-links are dropped (``res`` updated) while no colouring exists."""
    grouped = res.group >= 0
    apart = list(res.apart)
    dropped: list[int] = []
    for _ in range(max_iter):
        d2 = ((E[:, None, :] - mu[None, :, :]) ** 2).sum(-1)  # (n, K)
        cost = tie * _group_sums(d2, members) + keep
        colour = _best_colouring(cost, apart, pair)
        while colour is None and apart:  # drop the oldest cannot-link until a colouring exists
            oldest = int(np.argmin(res.apart_stroke))
            dropped.append(res.apart_stroke.pop(oldest))
            apart.pop(oldest)
            colour = _best_colouring(cost, apart, pair)
        new = np.argmin(d2, axis=1)
        new[grouped] = colour[res.group[grouped]]
        if np.array_equal(new, labels):
            break
        labels = new
        mu = _centroids(E, labels, n_clusters, mu)
    for k in dropped:
        res.honoured[k] = False
    res.apart = apart
    return labels


def _collapsed(labels: np.ndarray, stroked: np.ndarray, k: int) -> bool:
    """A segment under :data:`UNREACHED_MIN_SHARE` of the nodes that no stroke node is in."""
    share = np.bincount(labels, minlength=k) / len(labels)
    held = np.bincount(labels[stroked], minlength=k) > 0
    return bool(((share < UNREACHED_MIN_SHARE) & ~held).any())


def _node_sizes(appearance, n: int) -> np.ndarray:
    """Each node's size in pixels from ``appearance`` (colors, sizes); ones without it."""
    if appearance is not None and len(appearance[1]) == n:
        return np.asarray(appearance[1], float)
    return np.ones(n)


def _shares(labels: np.ndarray, k: int, sizes: np.ndarray) -> np.ndarray:
    """Each of the ``k`` segments' share of the image (node sizes ``sizes``), shape (k,)."""
    return np.bincount(labels, weights=sizes, minlength=k)[:k] / max(float(sizes.sum()), 1e-12)


def _sliver(labels: np.ndarray, k: int, sizes: np.ndarray) -> bool:
    """A segment under :data:`UNREACHED_MIN_SHARE` of the image (node sizes ``sizes``)."""
    return bool((_shares(labels, k, sizes) < UNREACHED_MIN_SHARE).any())


def _auto_rounding(embedding, labels0, nc, n_clusters: int, graph=None, anchored: bool = False, **kw):
    """``colouring='auto'``: :func:`_auto_choice`, then, with ``anchored``, :func:`_anchored`."""
    labels, res = _auto_choice(embedding, labels0, nc, n_clusters, graph=graph, **kw)
    if not anchored or graph is None or not kw.get("prior_weight", 0) > 0 or not res.apart:
        return labels, res
    return _anchored(labels, res, nc, n_clusters, graph, kw, labels0), res


def _anchored(labels: np.ndarray, res: Resolution, nc, k: int, graph, kw: dict,
              own: np.ndarray | None = None) -> np.ndarray:
    """``labels`` with the must-link groups no cannot-link touches placed by the cannot-linked
    ones (:func:`~core.constraint_step.anchored.anchored_colours`: a walk from them, what
    the groups' surroundings look like and where the method's own labels ``own`` put them),
    once those hold all ``k`` colours; the labels the walk from every group with its colour
    gives (every colour reached: no prior).

    Where the result on screen already honours every stroke (:func:`screen_grouping`: a
    person sees their strokes honoured and expects no regrouping), a free group leaves its
    segment only where the placement's score of its best colour beats that of its colour in
    ``labels`` (the colouring chosen, which keeps the screen's grouping unless the other one
    cut far better) by more than
    :data:`~core.constraint_step.params.ANCHORED_SCREEN_MARGIN` per node at K >= 3 and
    :data:`~core.constraint_step.params.ANCHORED_SCREEN_MARGIN_K2` at K = 2; once one group
    moves, the labels are the walk from every group, as below. Until the forty-third
    session ``labels`` stayed at K = 2 (placing there without a margin cost e2cp 0.744 ->
    0.719-0.738 and ssap 0.748 -> 0.725-0.738 final ARI, before the nearness term); with
    the nearness term and a margin of 1 (regions-first, all 200, e2cp) the final ARI is
    0.751 -> 0.758, the order dependence 0.052 -> 0.018 and harmful strokes 8.8 -> 9.1%
    (margin 0.25: 0.750 / 0.011 / 9.5%; 2: 0.759 / 0.023 / 9.0%; ``bench/results/tuning.md``).
    Without such a screen (one call, or a screen that splits a group) the margin is
    :data:`~core.constraint_step.params.ANCHORED_ONE_CALL_MARGIN` (0.25 per node): a near
    tie follows the colouring. On 163014 (a bird at its nest; csp, K = 2, one call) the
    method's labels tipped a must-link to the wrong cannot-link end by 0.45 over its two
    nodes (ARI 0.30; every other method and the window 1.00; now 1.00). Regions-first, all 200, K = 2, six
    methods (forty-fifth session, ``bench/results/tuning.md``): every window result the
    same, order dependence 0.012 / 0.011 / 0.021 / 0.014 / 0.015 / 0.019 -> 0.010 / 0.012 /
    0.015 / 0.011 / 0.013 / 0.019, mean one-call ARI within 0.003.
    At K = 2 the margin's placement is also refused where the placement without it
    would be, by the emptied-segment rule below: a partial move the
    whole evidence reads as implausible (113044, a horse in a field: only the field's
    corner-to-corner must-link was sure enough to move to the horse's end, the field kept
    its other one, and the move gave 0.93 -> 0.09; e2cp final 0.758 -> 0.762, order
    dependence 0.018 -> 0.014, harmful strokes 9.1 -> 9.0%). No lock-in: with
    three or more segments the must-links drawn before the cannot-links are often grouped
    wrong on screen, and kept that way they left ssap's window 0.013 below one call. Placing
    always broke right screens (140075: 0.96 -> 0.18 at the second cannot-link); placing
    where sure (margin 0.5, regions-first, all 200, K = 3) gave final ARI 0.660-0.682 ->
    0.675-0.684 for the six methods, order dependence 0.057-0.076 -> 0.013-0.024, harmful
    strokes 9.3-12.5% -> 10.1-12.6% (``bench/results/tuning.md``, 2026-11-30, thirtieth
    session). With the method's own labels in the placement's score (thirty-first session)
    the margin is 0.25: order dependence 0.014-0.024 -> 0.010-0.016 for the six methods,
    final ARI within 0.002, harmful strokes the same.

    ``labels`` also stay where no group moves, where a segment that held two or more free
    groups would hold none and shrink to under half its share of the image
    (:data:`~core.constraint_step.params.ANCHORED_EMPTIED_KEEP`; what is left of
    it is the surroundings of a cannot-link's end: on 92059 the looks moved both must-links
    on a boat to the rocks, and the boat's segment shrank from 15% to 3% of the image around
    the cannot-link's end; regions-first, all 200, e2cp / ssap: K = 3 final 0.683 / 0.675 ->
    0.690 / 0.674, blob cannot-links 0.3 / 0.3% -> 0 / 0.3%; ``bench/results/tuning.md``).
    A segment's only free group may leave it (122048 in the shuffled order, the one
    must-link drawn before the cannot-link: 0.89 with the move, 0.12 without), and so may
    two or more where the segment keeps half its share: must-links the colourings put with
    the wrong cannot-link end, whose own segment is then the region around that end. And
    ``labels`` stay where the placement leaves a segment
    under :data:`UNREACHED_MIN_SHARE` of the image holding no free group (a cannot-link
    honoured by a blob around its end) that ``labels`` do not have (:func:`_blobs`). A small
    segment holding a free group stays: a region someone drew a must-link in (134052: a
    0.3% patch between a leopard's leg and tail, ARI -0.01 -> 0.80). Measured before the
    margin (regions-first user, all 200 training images, ``bench/results/tuning.md``,
    2026-11-30): final ARI at K = 3 0.642-0.666 -> 0.660-0.682 for the six methods (one call
    0.604-0.641 -> 0.673-0.676), at K = 2 0.718-0.738 -> 0.734-0.748; the error-centre user,
    the follower and the GrabCut clicks never reach it (every group is cannot-linked) and
    are unchanged.
    """
    from .anchored import anchored_colours, group_colours, surroundings

    previous = kw.get("previous")
    margin = ANCHORED_ONE_CALL_MARGIN
    if previous is not None and kw.get("stability", 0) > 0 \
            and screen_grouping(np.asarray(previous, np.int64), res, k) is not None:
        margin = ANCHORED_SCREEN_MARGIN_K2 if k == 2 else ANCHORED_SCREEN_MARGIN
    free = _free_must_link_groups(nc, res)
    if not len(free):
        return labels
    colour = group_colours(labels, res, res.n_groups)
    scores = {}
    new = anchored_colours(colour, res, free, graph, k, surroundings(graph, kw.get("appearance"), kw.get("texture")),
                           margin=margin, own=own, scores=scores, positions=kw.get("positions"))
    if new is None or np.array_equal(new, colour):
        return _unblobbed(labels, colour, free, scores, res, nc, k, graph, kw)
    sizes = _node_sizes(kw.get("appearance"), len(labels))
    if k == 2:  # the placement without the margin
        best = colour.copy()
        best[free] = [int(np.argmax(scores[g])) for g in free.tolist()]
        if _emptied_and_shrunk(labels, colour, best, free, res, nc, k, graph, kw, sizes):
            return labels
    out = _walk_from_groups(new, res, nc, len(labels), k, graph, kw)
    if _emptied_and_shrunk(labels, colour, new, free, res, nc, k, graph, kw, sizes, out):
        return labels
    if not _blobs(out, new[free], k, sizes) <= _blobs(labels, colour[free], k, sizes):
        return _unblobbed(labels, colour, free, scores, res, nc, k, graph, kw)
    return _unblobbed(out, new, free, scores, res, nc, k, graph, kw)


def _emptied_and_shrunk(labels, colour, new, free, res: Resolution, nc, k: int, graph, kw: dict, sizes,
                        out: np.ndarray | None = None) -> bool:
    """Whether colouring the groups ``new`` (from ``colour``) leaves a segment that held two
    or more free groups with none, and the walk from the groups (``out``, computed here
    when not given) shrinks it to under
    :data:`~core.constraint_step.params.ANCHORED_EMPTIED_KEEP` of its share in ``labels``:
    what is left of it surrounds a cannot-link's end."""
    emptied = (np.bincount(colour[free], minlength=k) >= 2) & (np.bincount(new[free], minlength=k) == 0)
    if not emptied.any():
        return False
    if out is None:
        out = _walk_from_groups(new, res, nc, len(labels), k, graph, kw)
    return bool((_shares(out, k, sizes)[emptied] < ANCHORED_EMPTIED_KEEP * _shares(labels, k, sizes)[emptied]).any())


def _walk_from_groups(colour, res: Resolution, nc, n: int, k: int, graph, kw: dict) -> np.ndarray:
    """The labels of the walk from every stroke group's seed nodes, each group with its
    ``colour`` (every colour reached: no prior)."""
    seeds = _seed_nodes(nc, res)
    user = seeds[res.group[seeds] >= 0]
    return edit_texture_walk(nc, graph, user, colour[res.group[user]], np.zeros((n, k)),
                             np.full(k, float(kw["prior_weight"])), kw.get("texture"), kw.get("texture_weight", 0.0))


def _unblobbed(labels, colour, free, scores: dict, res: Resolution, nc, k: int, graph, kw: dict) -> np.ndarray:
    """``labels`` with a cannot-link no longer honoured by a blob, where one free group moves.

    At K >= 3, where ``labels`` leave a blob (:func:`_blobs`: a segment under
    :data:`UNREACHED_MIN_SHARE` of the image holding no free must-link group, what is left
    around a cannot-link's end), the free group whose placement score
    (:func:`~core.constraint_step.anchored.anchored_colours`, ``scores``) for the blob's
    colour is least below that of its own colour moves to it, taken only from a segment
    that holds two or more free groups (a segment's only must-link stays), and the labels
    are the walk from every group with its colour. Taken where that leaves fewer blobs and
    no segment under :data:`UNREACHED_MIN_SHARE`; else ``labels`` stay. Issue "Strokes as
    people draw them", item 3: a cannot-link separates regions, not pixels. On 309004
    (regions-first, K = 3) the sky's two must-links were placed with the water and the sky's
    cannot-link end kept 2.9% of the image; one of them moved gives the sky's segment back
    part of the sky. All 200 training images, regions-first, K = 3, six methods
    (``bench/results/tuning.md``, forty-first session): blob cannot-links 0.3% -> 0 for five
    methods (on spectral-learning's 309004 the cannot-linked groups hold two colours, and
    the placement does not run), collapsed results 0.3-0.6% ->
    0.2-0.5%, final ARI within 0.001.

    Parameters
    ----------
    labels : ndarray, shape (n,), int
    colour : ndarray, shape (n_groups,), int
        Each group's colour in ``labels``.
    free : ndarray, int
        The free must-link groups (:func:`_free_must_link_groups`).
    scores : dict
        Each free group's placement score per colour, ndarray shape (k,).
    res, nc, k, graph, kw
        As :func:`_anchored`.

    Returns
    -------
    ndarray, shape (n,), int
    """
    if k < 3 or not scores or not len(free):
        return labels
    sizes = _node_sizes(kw.get("appearance"), len(labels))
    blobs = _blobs(labels, colour[free], k, sizes)
    if not blobs:
        return labels
    new = colour.copy()
    for c in sorted(blobs):
        count = np.bincount(new[free], minlength=k)
        movable = [g for g in free.tolist() if g in scores and count[new[g]] >= 2]
        if not movable:
            return labels
        g = max(movable, key=lambda g: scores[g][c] - scores[g][new[g]])
        new[g] = c
    out = _walk_from_groups(new, res, nc, len(labels), k, graph, kw)
    after = _blobs(out, new[free], k, sizes)
    if len(after) >= len(blobs) or (_shares(out, k, sizes) < UNREACHED_MIN_SHARE).any():
        return labels
    return out


def unreached_filled(labels, res: Resolution, nc, k: int, graph, kw: dict) -> np.ndarray | None:
    """A free must-link group for each colour no stroke holds where that colour is a sliver.

    Where cannot-links are drawn but their groups hold fewer than ``k`` colours (at K >= 3
    the first cannot-link's two groups hold two), the placement of the free must-link
    groups (:func:`_anchored`) does not run, and a colour no stroke group holds is whatever
    the method's own result gave it (:func:`~core.constraint_step.stage.unreached_source`),
    sometimes a sliver. For each such colour under :data:`UNREACHED_MIN_SHARE` of the
    image (:func:`unheld_colours`), of the free groups in a segment that holds two or more, the
    one whose move (the walk from every group with its colour, :func:`_walk_from_groups`)
    leaves no segment under that share and gives the lowest normalised cut
    (:func:`labels_ncut`) takes the colour.

    Parameters
    ----------
    labels : ndarray, shape (n,), int
    res : Resolution
    nc : NodeConstraints
    k : int
    graph : sparse matrix, shape (n, n)
    kw : dict
        ``prior_weight``, ``appearance`` (node sizes), ``texture``, ``texture_weight``.

    Returns
    -------
    ndarray, shape (n,), int, or None
        The walk's labels; None where nothing applies or no move leaves every segment at
        least that share.
    """
    from .anchored import group_colours

    if k < 3 or graph is None or not res.apart or not kw.get("prior_weight", 0) > 0:
        return None  # checked first: this runs on every edit
    labels = np.asarray(labels, np.int64)
    sizes = _node_sizes(kw.get("appearance"), len(labels))
    unheld = unheld_colours(labels, res, k, sizes)
    free = _free_must_link_groups(nc, res) if unheld else []
    if not len(free):
        return None
    colour = group_colours(labels, res, res.n_groups)
    tied = np.setdiff1d(np.arange(res.n_groups), free)
    if len(np.unique(colour[tied])) >= k:
        return None  # the placement ran (:func:`_anchored`)
    new = colour.copy()
    for c in sorted(unheld):
        count = np.bincount(new[free], minlength=k)
        best = None
        for g in free.tolist():
            if count[new[g]] < 2:
                continue
            trial = new.copy()
            trial[g] = c
            out = _walk_from_groups(trial, res, nc, len(labels), k, graph, kw)
            if (_shares(out, k, sizes) < UNREACHED_MIN_SHARE).any():
                continue
            cut = labels_ncut(graph, out, k)
            if best is None or cut < best[0]:
                best = (cut, g)
        if best is None:
            return None
        new[best[1]] = c
    out = _walk_from_groups(new, res, nc, len(labels), k, graph, kw)
    return None if (_shares(out, k, sizes) < UNREACHED_MIN_SHARE).any() else out


def unheld_colours(labels: np.ndarray, res: Resolution, k: int, sizes: np.ndarray) -> set:
    """The segments of ``labels`` under :data:`UNREACHED_MIN_SHARE` of the image (node sizes
    ``sizes``) that hold no node of a stroke, block or brush region (``res.group``): a
    colour the strokes never reached, left a sliver (a collapse)."""
    labels = np.asarray(labels, np.int64)
    held = np.bincount(labels[res.group >= 0], minlength=k)[:k] > 0
    share = _shares(labels, k, sizes)
    return {c for c in range(k) if share[c] < UNREACHED_MIN_SHARE and not held[c]}


def _blobs(labels: np.ndarray, free_colours: np.ndarray, k: int, sizes: np.ndarray) -> set:
    """The segments of ``labels`` under :data:`UNREACHED_MIN_SHARE` of the image (node
    sizes ``sizes``) that hold no free must-link group (``free_colours``: their colours):
    what is left around a cannot-link's end."""
    share = _shares(labels, k, sizes)
    held = set(np.asarray(free_colours).tolist())
    return {c for c in range(k) if share[c] < UNREACHED_MIN_SHARE and c not in held}


def _auto_choice(embedding, labels0, nc, n_clusters: int, graph=None, **kw):
    """Both colourings, and the labels of lower normalised cut.

    The walk's colouring (:func:`constrained_labels` with ``'walk'``) follows the result on
    screen and the method's embedding; the normalised-cut colouring (:func:`_ncut_rounding`)
    follows the territories and looks of the stroked regions. Each gives final labels; the
    one kept is the one whose segments have the lower normalised cut
    ``sum_c cut(c) / vol(c)`` on the boundary graph (:func:`labels_ncut`, the criterion the
    spectral methods relax), so a blob around a cannot-link's end (a small ``vol`` with a
    long border) loses to a region-level result. While no cannot-link is drawn, a result
    with a segment of under :data:`UNREACHED_MIN_SHARE` of the nodes and no stroke in it
    loses too (must-links alone never shrink a segment to a sliver). With a cannot-link at
    K = 2 (and unless the screen's grouping decided, below), a result with a segment under :data:`UNREACHED_MIN_SHARE` of the image (node sizes
    from ``appearance``) loses to one without: two segments and a cannot-link between them
    mean two regions, and a segment that small is the blob around the cannot-link's end
    (156079: the diver's head, 2.3% of the image, against diver and sea, ARI 0.23 -> 0.47).
    At K = 3 and more a small segment may be a region of the image (105053: 3.5%), and the
    normalised cut decides. The price: at K = 2 an object under 3% of the image, cannot-linked
    to its surroundings, loses to the other colouring when that one holds no sliver. Ties go
    to ``'walk'``.
    Without a graph (no walk) this is ``'walk'``.

    Must-links alone, drawn in several places (two or more groups, no cannot-link): where the
    walk's colouring puts the groups in fewer segments than there are groups, up to K (the
    Potts energy pays for no cut, so it joins them and the segment left over comes from the
    method's result away from every stroke), the normalised-cut colouring is kept, which
    gives them ``min(K, groups)`` segments: must-links on the bear and on the water at K = 2
    show bears and water, as a person drawing them expects (measured:
    ``bench/results/tuning.md``, 2026-11-27). Except at K = 2 when that colouring leaves a
    segment under :data:`UNREACHED_MIN_SHARE` of the image and the walk's does not: two
    segments asked are two regions, not one and a sliver around a stroke (ssap on 236017:
    0.7% of the image). The same holds once cannot-links are drawn, for the must-link groups
    no cannot-link touches (:func:`_free_must_link_groups`: must-links inside regions, a
    cannot-link between two other points): they say as much about the regions as without the
    cannot-links, and the walk's colouring otherwise puts them in fewer segments and leaves
    the rest to a cannot-link's end (118020, two must-links in each of two regions and a
    cannot-link between their centres, in one call: 95.1 / 4.9% of the image, ARI 0.03,
    now 63.4 / 36.6%, ARI 0.67; ``bench/results/tuning.md``, 2026-11-29).

    A stroke the result on screen already honours (:func:`screen_grouping`: every group in
    one segment on screen, cannot-linked groups apart, no blob on screen) keeps the screen's
    grouping: of the two colourings, the one that puts the groups together and apart as the
    screen does is kept, whatever the normalised cuts say (when only one of them does). A
    second must-link inside a region the screen already shows should not regroup the
    strokes; before, the lower normalised cut often did, by a hair (on 140075, 0.002 against
    0.003: the final ARI 0.99 fell to 0.32). Only with a result on screen and
    ``stability > 0``; a stroke the screen does not honour (the error-centre user's, every
    click of the click protocol) is decided by the normalised cut as before. At K >= 3 the
    screen's grouping gives way where the other colouring's normalised cut is lower by more
    than :data:`~core.constraint_step.params.SCREEN_GROUPING_MARGIN`, as the screen itself
    does in :func:`~core.constraint_step.stage.screen_kept` (no lock-in): with three or more
    segments an early grouping is often wrong (the third region's strokes come later), and
    the rule kept it (147062: elephant and river in one segment from the third stroke on,
    cut 0.151 against 0.032 at the last cannot-link). At K = 2, once a cannot-link is
    drawn, the screen's grouping stays whatever the cuts say (measured:
    ``bench/results/tuning.md``, 2026-11-29); before any, the margin holds as at K >= 3:
    must-links alone do not say which groups differ, and a grouping the colouring guessed
    at the second must-link (a region split between two strokes inside it) was locked in
    until the cannot-link (regions-in-turn, e2cp, K = 2: final ARI 0.660 -> 0.676, order
    dependence 0.107 -> 0.090; regions-first the same; 2026-12-02).

    Once cannot-links are drawn and every must-link group is kept apart from another one
    (:func:`_free_must_link_groups` finds none: the error-centre user's strokes, a must-link
    and a cannot-link at each error), the walk's colouring is kept, unless at K = 2 it holds
    a sliver and the other does not. The strokes then say which groups differ; the
    normalised cut, free to regroup them, undid what the screen showed. Measured on the
    error-centre user's 1960 decisions at K = 3 (gp-propagation, all 200 training images):
    the walk's colouring was the better by ARI in 46% of them and the normalised cut's in
    9%, mean ARI 0.720 against 0.704 for the choice by the cut (189003, round 7: 0.88
    against 0.08, the cut regrouping both women into one segment); NoC@0.80 4.255 / 4.325 /
    4.405 -> 4.095 / 3.995 / 4.080 (gp-propagation / e2cp / spectral-learning), at K = 2
    2.430 -> 2.360 (e2cp; ``bench/results/tuning.md``, 2026-11-29). The regions-first user's
    cannot-links always leave free groups (must-links inside regions), and its results are
    the same.
    """
    walk = constrained_labels(embedding, labels0, nc, n_clusters, graph=graph, colouring="walk", **kw)
    if graph is None or not kw.get("prior_weight", 0) > 0:
        return walk
    res = resolve(nc)
    stroked = res.group >= 0
    sizes = _node_sizes(kw.get("appearance"), len(stroked))
    # every must-link group kept apart from another by a cannot-link: the strokes say which
    # groups differ, and the walk's colouring (the screen, the embedding) places them
    tied = bool(res.apart) and not len(_free_must_link_groups(nc, res))
    screen = None
    if kw.get("previous") is not None and kw.get("stability", 0) > 0:
        screen = screen_grouping(np.asarray(kw["previous"], np.int64), res, n_clusters)
    if tied and screen is None and not (n_clusters == 2 and _sliver(walk[0], 2, sizes)):
        return walk  # nothing below could choose the other colouring: it is not computed
    tried = [walk, constrained_labels(embedding, labels0, nc, n_clusters, graph=graph, colouring="ncut", **kw)]
    # must-links in several places: without cannot-links every group, with them the groups
    # no cannot-link touches; the walk's colouring may join them, the normalised cut's spreads them
    regions = np.arange(res.n_groups) if not res.apart else _free_must_link_groups(nc, res)
    if len(regions) >= 2:
        ids, at = np.unique(res.group, return_index=True)
        first = at[np.searchsorted(ids, regions)]  # a node of each
        need = min(n_clusters, len(regions))
        spans = [len(np.unique(lab[first])) >= need for lab, _ in tried]
        if not spans[0] and (spans[1] or not res.apart):
            if n_clusters == 2 and _sliver(tried[1][0], 2, sizes) and not _sliver(tried[0][0], 2, sizes):
                return tried[0]  # at K = 2, two regions rather than a sliver around one group
            return tried[1]
    cuts: dict = {}  # each colouring's normalised cut, computed once where a rule reads it

    def cut(i: int) -> float:
        if i not in cuts:
            cuts[i] = labels_ncut(graph, tried[i][0], n_clusters)
        return cuts[i]

    if screen is not None:
        same = [_same_grouping(lab, res, screen) for lab, _ in tried]
        if same[0] != same[1]:  # the screen already honours the edit: its grouping stays,
            keep, other = (0, 1) if same[0] else (1, 0)  # at K >= 3 unless the other cuts far better
            if (n_clusters == 2 and res.apart) or cut(other) >= cut(keep) - SCREEN_GROUPING_MARGIN:
                return tried[keep]
    if tied:
        if n_clusters == 2 and _sliver(tried[0][0], 2, sizes) and not _sliver(tried[1][0], 2, sizes):
            return tried[1]  # at K = 2 a sliver is still the blob around a cannot-link's end
        return tried[0]
    blob = res.apart and n_clusters == 2  # a cannot-link at K = 2: a sliver is a blob around its end
    scores = [(_sliver(lab, n_clusters, sizes) if blob else not res.apart and _collapsed(lab, stroked, n_clusters),
               cut(i)) for i, (lab, _) in enumerate(tried)]
    return tried[1] if scores[1] < scores[0] else tried[0]


def _free_must_link_groups(nc, res: Resolution) -> np.ndarray:
    """The groups holding an honoured must-link's ends that no cannot-link (or block label)
    keeps apart from another group, ascending: must-links drawn inside regions, about which
    the cannot-links say nothing."""
    said = {int(g) for pair in res.apart for g in pair}
    return np.array(sorted({int(res.group[s.a]) for j, s in enumerate(nc.strokes)
                            if s.kind == Kind.MUST_LINK and res.honoured[j] and res.group[s.a] >= 0} - said),
                    np.int64)


def screen_grouping(previous: np.ndarray, res: Resolution, k: int, spread: bool = True) -> np.ndarray | None:
    """Each stroke group's segment on screen, where the result on screen already honours
    every stroke as a person reads it; else None.

    Honoured as a person reads it: every node of a group in one segment on screen, groups a
    cannot-link keeps apart in different segments, must-links in several places (no
    cannot-link) in ``min(k, groups)`` segments (:func:`_auto_rounding`; not asked with
    ``spread=False``: each group in one segment is enough, as
    :func:`~core.constraint_step.stage.screen_kept` reads a screen for must-links alone),
    and no segment on screen under :data:`UNREACHED_MIN_SHARE` of the nodes (a blob is not a
    result to keep).
    """
    shown = previous[previous >= 0] if previous.shape == res.group.shape else previous[:0]
    if not len(shown) or (np.bincount(shown, minlength=k)[:k] < UNREACHED_MIN_SHARE * len(shown)).any():
        return None
    colours = np.empty(res.n_groups, np.int64)
    for g in range(res.n_groups):
        seen = np.unique(previous[res.group == g])
        if len(seen) != 1 or seen[0] < 0:
            return None
        colours[g] = seen[0]
    if any(colours[a] == colours[b] for a, b in res.apart):
        return None
    if spread and not res.apart and len(np.unique(colours)) < min(k, res.n_groups):
        return None
    return colours


def _same_grouping(labels: np.ndarray, res: Resolution, colours: np.ndarray) -> bool:
    """Whether ``labels`` put the stroke groups together and apart as ``colours`` do
    (segment numbers aside)."""
    mine = np.array([labels[m[0]] for m in _members(res.group, res.n_groups)])
    return bool(np.array_equal(mine[:, None] == mine[None, :], colours[:, None] == colours[None, :]))
