"""The constraint step as a stage: one input object, the method's result in, the final labels out."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from ..constraints import Kind
from ..errors import ContradictoryConstraintsWarning
from ..spectral import SpectralResult, row_normalize
from .connect import connected_labels
from .ground import grounded
from .ncut import labels_ncut
from .regroup import screen_joins
from .params import (KEEP_SCREEN_JOINED_MARGIN, KEEP_SCREEN_JOINED_MIN_OTHER, KEEP_SCREEN_MARGIN, KEEP_SCREEN_SHRUNK,
                     UNREACHED_MIN_SHARE)
from .resolve import Resolution, resolve
from .step import (_node_sizes, _shares, _sliver, constrained_labels, screen_grouping, unheld_colours,
                   unreached_filled)
from .walk import overruled_nodes
from .widen import widened_labels

@dataclass(frozen=True)
class ConstraintStep:
    """Everything the constraint step reads besides the method's result.

    :func:`core.segment` and the estimator each build one explicitly (the image's nodes
    split where strokes meet, the result on screen, the boundary graph; or the samples and
    their links) and hand it to :func:`apply_step`.

    Attributes
    ----------
    n_clusters : int
    nc : NodeConstraints
        The constraints on the nodes the step labels.
    graph : sparse matrix or ndarray, shape (n', n')
        The graph of the colouring's energy (step 2) and of the walk (step 4): the image's
        boundary graph, or the method's affinity where there is none.
    parent : ndarray, shape (n',), int, optional
        When the step labels the method's nodes split where strokes meet
        (:func:`core.graph.refine.refine`): the method's node each came from.
    previous : ndarray, shape (n',), int, optional
        Each node's segment in the result shown before this edit, -1 where unknown.
    previous_unrefined : ndarray, shape (n',), int, optional
        The same result as the step left it, before its pixel refinement (its node-level
        labels carried onto these nodes): what :func:`screen_kept` measures its normalised
        cut on, at the granularity of the new labels. ``previous`` where not given.
    appearance : tuple (colors (n', 3), sizes (n',)), optional
        What the labelled nodes look like (``rounding_looks``, ``rounding_appearance``).
    positions : ndarray, shape (n', 2), optional
        Each node's position (the mean of its pixels) over the image's diagonal: the
        placement's nearness term (:mod:`~core.constraint_step.anchored`).
    texture : tuple (features (n', f), sizes (n',)), optional
        The nodes' texture (:func:`~core.constraint_step.texture.node_texture`; with
        ``rounding_texture`` > 0).
    unconstrained : callable, optional
        Returns the method's own result without strokes on the method's nodes: labels
        ``(n,)`` and the embedding it clustered ``(n, k)``
        (:func:`core.pipeline.unconstrained_result`); called only when the method's labels
        with the strokes are suspect (see :func:`apply_step`).
    unconstrained_margin : float
        ``rounding_unconstrained``.
    keep_screen : bool
        The edit only added must-links to the strokes of ``previous``, a result of the same
        method and settings, and ``rounding_keep_screen`` is on (see :func:`screen_kept`).
    keep_healthy : bool
        The edit only added strokes (must- or cannot-links) to the strokes of ``previous``,
        a result of the same method and settings that honours every one of them, and
        ``rounding_keep_healthy`` is on (see :func:`healthy_screen_kept`).
    anchored : bool
        ``rounding_anchored``: with ``colouring='auto'``, the must-link groups no cannot-link
        touches are placed by the cannot-linked groups once those hold every segment
        (:mod:`~core.constraint_step.anchored`).
    connect : bool
        ``rounding_connect``: where the labels leave a must-link's ends in two pieces of
        their segment, the walk runs again from the cheapest path between them
        (:func:`~core.constraint_step.connect.connected_labels`; only with a walk, and at
        ``n_clusters == 2``: at K = 3 it cost harmful strokes on the training images,
        ``bench/results/tuning.md``).
    screen_groups : bool
        ``rounding_screen_groups``: at K >= 3, with ``keep_screen``, the must-link groups
        whose ends lie in one segment of ``previous`` are joined below every stroke once the
        older must-links hold every segment (:mod:`~core.constraint_step.regroup`).
    screen_claims : bool
        The edit only added must-links to the strokes of ``previous``, a result of the same
        method and settings that honours every one of its own strokes (the edit's need not
        be), and ``rounding_screen_groups`` is on: at K >= 3 the edit's must-link whose ends
        lie in two segments of ``previous`` is placed with the older groups
        (:func:`~core.constraint_step.regroup.screen_joins`).
    widen : bool
        ``rounding_widen``: with must-links alone, a segment that is a must-link's two blobs
        and a sliver of the image takes the nodes a walk with what the must-link's ends
        look like gives it (:func:`~core.constraint_step.widen.widened_labels`; only with
        a walk and ``appearance``).
    prior_weight, colouring, stability, looks_weight, appearance_weight, texture_weight
        ``rounding_prior``, ``rounding_colouring``, ``rounding_stability``, ``rounding_looks``,
        ``rounding_appearance``, ``rounding_texture``
        (:data:`~core.constraint_step.ROUNDING_PARAMS`).
    ground : float
        ``rounding_ground`` where the constraints are blocks and brush regions alone, else
        0: the nodes the blocks' walk reaches less than this go to the segment holding the
        image's border (:mod:`~core.constraint_step.ground`).
    border : ndarray, shape (n',), optional
        Each node's pixels on the image's border (read with ``ground``).
    """

    n_clusters: int
    nc: object
    graph: object
    parent: np.ndarray | None = None
    previous: np.ndarray | None = None
    previous_unrefined: np.ndarray | None = None
    appearance: tuple | None = None
    positions: np.ndarray | None = None
    prior_weight: float = 0.0
    colouring: str = "auto"
    stability: float = 0.0
    looks_weight: float = 0.0
    appearance_weight: float = 0.0
    texture: tuple | None = None
    texture_weight: float = 0.0
    unconstrained: Callable[[], tuple] | None = None
    unconstrained_margin: float = np.inf
    keep_screen: bool = False
    keep_healthy: bool = False
    connect: bool = False
    anchored: bool = False
    widen: bool = False
    screen_groups: bool = False
    screen_claims: bool = False
    ground: float = 0.0
    border: np.ndarray | None = None


def _placed(labels: np.ndarray, E: np.ndarray, labels0: np.ndarray, step: ConstraintStep, own: np.ndarray):
    """The labels, resolution, step and info with the edit's must-link placed among the
    screen's groups (:func:`~core.constraint_step.regroup.screen_joins` with
    :func:`_placement`), where ``labels`` leave it the only group of a segment under
    :data:`~core.constraint_step.params.UNREACHED_MIN_SHARE` of the image
    (:func:`_alone_in_sliver`), the screen has no such segment and the placed labels leave
    none; else None (at K = 2, on edits other than must-links added to a screen of the same
    settings that honours every older stroke, and where the older must-links do not yet
    hold every segment)."""
    k = step.n_clusters
    if not (step.screen_groups and step.screen_claims and not step.keep_screen and k >= 3) \
            or step.previous is None:
        return None
    sizes = _node_sizes(step.appearance, len(labels))
    shown = np.asarray(step.previous, np.int64)
    if _sliver(shown[shown >= 0], k, sizes[shown >= 0]) or not _alone_in_sliver(labels, step.nc, k, sizes):
        return None
    joins = screen_joins(step.previous, step.nc, k, place=_placement(step, own))
    if not joins:
        return None
    placed = replace(step, nc=replace(step.nc, screen_joins=joins))
    info: dict = {}
    new, resolution = _labels(E, labels0, placed, info)
    if _sliver(new, k, sizes):
        return None
    info.update(screen_groups=len(joins), screen_placed=True)
    return new, resolution, placed, info


def _alone_in_sliver(labels: np.ndarray, nc, k: int, sizes: np.ndarray) -> bool:
    """Whether the newest stroke, a must-link, is the only stroke group of a segment of
    ``labels`` under :data:`~core.constraint_step.params.UNREACHED_MIN_SHARE` of the image."""
    res = resolve(nc)
    s = nc.strokes[-1] if nc.strokes else None
    if s is None or s.kind != Kind.MUST_LINK or not res.honoured[-1]:
        return False
    c = int(labels[s.a])
    if _shares(labels, k, sizes)[c] >= UNREACHED_MIN_SHARE:
        return False
    return set(np.unique(res.group[(labels == c) & (res.group >= 0)]).tolist()) == {int(res.group[s.a])}


def _placement(step: ConstraintStep, own: np.ndarray):
    """The placement of :func:`~core.constraint_step.regroup.screen_joins`: a function of
    (colour per group, -1 unknown; resolution; group) giving the group's colour by
    :func:`~core.constraint_step.anchored.anchored_colours` with the coloured groups as
    exemplars (the walk from them, the looks of the surroundings, the method's own labels
    ``own`` and the nearness), or None (no walk)."""
    if step.graph is None or not step.prior_weight > 0:
        return None
    from .anchored import anchored_colours, surroundings

    def place(colour: np.ndarray, res: Resolution, g: int) -> int | None:
        anchors = np.flatnonzero(colour >= 0)
        out = anchored_colours(np.where(colour >= 0, colour, 0), res, np.array([g]), step.graph, step.n_clusters,
                               surroundings(step.graph, step.appearance, step.texture), own=own,
                               positions=step.positions, anchors=anchors)
        return None if out is None else int(out[g])
    return place


def graph_split(graph, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Labels and row-normalised embedding of the NJW clustering of ``graph`` into ``k``
    (Ng, Jordan & Weiss 2001; the ``ncut`` method's rounding), seeded: what the constraint
    step reads in place of a method's result that is one segment."""
    from ..spectral.assign import assign_labels
    from ..spectral.cluster import spectrum

    w, v, _isq = spectrum(graph, k)
    E = row_normalize(v[:, :k])
    labels, _ = assign_labels(E, k, np.random.RandomState(0), "kmeans")
    return np.asarray(labels, np.int64), E


def clustered_embedding(res: SpectralResult, k: int) -> np.ndarray:
    """The embedding the method clustered, ``(n, m)``; where it clustered none of its own
    (ssap), its first ``k`` display vectors row-normalised."""
    if res.cluster_embedding is not None:
        return res.cluster_embedding
    return row_normalize(res.embedding[:, :k])


def unreached_source(labels0: np.ndarray, E: np.ndarray, step: ConstraintStep):
    """``(labels, embedding, source)`` the step reads for what no stroke says: the method's
    (``source`` None), its result without strokes (``'unconstrained'``) or the graph's
    normalised cut (``'graph'``); see :func:`apply_step`. The result without strokes is only
    computed when the method's labels are one segment or their normalised cut exceeds the
    margin (it cannot then be lower by more than the margin)."""
    k, graph = step.n_clusters, step.graph
    if graph is None:
        return labels0, E, None
    one = len(np.unique(labels0)) == 1 < k
    own_cut = np.inf if one or step.unconstrained is None else labels_ncut(graph, labels0, k)
    if not one and own_cut <= step.unconstrained_margin:
        return labels0, E, None
    if step.unconstrained is not None:
        l_u, E_u = step.unconstrained()
        if step.parent is not None:
            l_u, E_u = l_u[step.parent], E_u[step.parent]
        if len(np.unique(l_u)) > 1 and own_cut > labels_ncut(graph, l_u, k) + step.unconstrained_margin:
            return l_u, E_u, "unconstrained"
    if one:  # the method's own result is one segment (csp with one feasible vector)
        l_g, E_g = graph_split(graph, k)
        return l_g, E_g, "graph"
    return labels0, E, None


def screen_kept(labels: np.ndarray, resolution: Resolution, step: ConstraintStep) -> bool:
    """Whether the result on screen (``step.previous``) stays, in place of ``labels``.

    Only for an edit that adds must-links (``step.keep_screen``) to a result that already
    honours every stroke as a person reads it (:func:`~core.constraint_step.step.screen_grouping`:
    each must-link group inside one segment, cannot-linked groups apart, must-links in several
    places in as many segments, no segment under 3% of the nodes), and unless ``labels`` cut
    ``step.graph`` better: their normalised cut (:func:`labels_ncut`) lower than the
    screen's by more than :data:`~core.constraint_step.params.KEEP_SCREEN_MARGIN`. The
    screen's cut is that of its labels as its own step left them (``step.previous_unrefined``,
    before the pixel refinement), so both are node-level labellings: the screen's pixels
    carried back onto nodes cut more jaggedly (138032: 0.040 against the step's own 0.003),
    and would lose to almost any new labelling.

    Why: a second must-link inside a region the screen already shows as one segment adds
    a stroke group, and the walk from the stroke ends then redraws every reached segment
    from its seeds alone; where a region's strokes are few it loses ground the screen had
    (138032: the floor, ARI 0.92 -> 0.69). Of the correct strokes that lowered the ARI by
    more than 0.05 for e2cp (regions-first user, first 60 training images, K = 2), 28 of 50
    were must-links the screen already honoured (``bench/results/tuning.md``, 2026-11-27).
    A cut the new labels improve is still taken, so the screen is never kept against a
    better-cut result (no lock-in by this rule).

    At K = 2, must-links alone (no cannot-link) that the screen holds each in one segment but in fewer
    segments than there are groups -- a second must-link drawn inside a segment on screen,
    before any in another region -- keep the screen too, where its normalised cut is lower
    than the new labels' by at least 0.01
    (:data:`~core.constraint_step.params.KEEP_SCREEN_JOINED_MARGIN`). Must-links say "same",
    never "different": before, such groups were read as different regions (the colouring
    gives must-links in several places as many segments), and a person who strokes one
    region twice saw it split between the two strokes (the regions-in-turn user,
    :mod:`core.eval.people`; 25098, K = 2: ARI 0.95 -> -0.05 at the second stroke, e2cp's
    mean ARI after it 0.388 -> 0.123). The margin is stricter than
    :data:`~core.constraint_step.params.KEEP_SCREEN_MARGIN` because the screen may instead
    be wrong (regions-first: a must-link in a second region the screen shows with the
    first); e2cp, K = 2, all 200 training images, with the gate below: regions-in-turn
    final ARI 0.660 -> 0.681, harmful strokes 15.1 -> 9.3%, order dependence 0.107 -> 0.086;
    regions-first 0.746 -> 0.742, 8.9 -> 8.7%; must-links only 0.698 -> 0.692, 8.7 -> 8.5%
    (``bench/results/tuning.md``, 2026-12-02, fortieth session). Not at K >= 3: there the third region's first
    must-link is often drawn where the screen shows another region, and keeping that screen
    cost e2cp's regions-first user 0.611 -> 0.562 mean ARI after the third stroke and
    collapsed results 0.3 -> 0.5% for 0.001 final ARI. Only where the segment that holds no
    stroke is at least :data:`~core.constraint_step.params.KEEP_SCREEN_JOINED_MIN_OTHER`
    (20%) of the image (:func:`_unstroked_share`): the screen then shows a second region
    apart from every must-link. Where it shows little apart from them, must-links in several
    places more often stand for several regions: at the rule's decisions (e2cp, K = 2, all
    200), keeping the screen regardless gained regions-in-turn 36.8 ARI points and cost
    regions-first 29.3, one stroke ahead; with the 20% gate 49.0 and 5.9 (and without it
    the must-links-only user, who never draws the cannot-link that undoes a wrong joined
    screen, lost 0.045 final ARI). Nor where a segment of the screen is under :data:`~core.constraint_step.params.UNREACHED_MIN_SHARE` of the image's pixels
    (node sizes; :func:`~core.constraint_step.step.screen_grouping` counts nodes): 95006,
    ssap, regions-in-turn, a 2.6% segment after the first must-link was kept through the
    fourth stroke.

    At K = 2, must-links alone that the screen honours, held in one segment of it (the
    other segment holds no stroke): the screen stays, whatever the cuts say, where the new
    labels shrink the segment apart from every stroke to under
    :data:`~core.constraint_step.params.KEEP_SCREEN_SHRUNK` (half) of its size on screen
    (:func:`_unstroked_shrunk`, node sizes). A must-link says its two ends belong together;
    it says nothing to shrink the region the screen shows apart from it, and the walk from
    its ends then overruns that region, the cut sometimes lower for it (113009, ssap: a
    must-link in the grass, the trees and the grass on screen at ARI 0.98; the new labels cut
    the white fence alone, normalised cut 0.000 against the screen's 0.008, ARI 0.00). The
    normalised cut is no judge there; this is the one place the screen is kept against a
    better-cut result of the same strokes, and the first cannot-link decides afresh (the
    final results are the same). Regions-first, all 200 (csp / e2cp / ssap): the first
    stroke's harmful results 30 / 18 / 36 -> 28 / 18 / 34 (35008, 42044, 113009, 59078
    better, none worse); regions-in-turn the same images and 59078's next two strokes
    (``bench/results/tuning.md``, forty-fourth session).

    Parameters
    ----------
    labels : ndarray, shape (n',), int
        The step's new labels on its nodes.
    resolution : Resolution
        The strokes as the step settled them (groups, cannot-linked pairs).
    step : ConstraintStep
        Its ``previous`` (the screen on the same nodes), ``previous_unrefined``,
        ``keep_screen``, ``graph`` and ``n_clusters`` are read.

    Returns
    -------
    bool
        True: the caller shows ``step.previous`` instead of ``labels``
        (``info['kept_screen']``; :func:`core.segment` then keeps the screen's pixels too).
    """
    prev = step.previous
    if not step.keep_screen or prev is None or np.shape(prev) != np.shape(labels) or (prev < 0).any():
        return False
    margin = KEEP_SCREEN_MARGIN
    grouping = screen_grouping(prev, resolution, step.n_clusters)
    if grouping is not None and step.n_clusters == 2 and not resolution.apart \
            and _unstroked_shrunk(prev, labels, resolution, step):
        return True
    if grouping is None:
        if step.n_clusters != 2 or resolution.apart \
                or screen_grouping(prev, resolution, step.n_clusters, spread=False) is None \
                or not _unstroked_share(prev, resolution, step) >= KEEP_SCREEN_JOINED_MIN_OTHER \
                or _sliver(prev, step.n_clusters, _node_sizes(step.appearance, len(prev))):
            return False
        margin = KEEP_SCREEN_JOINED_MARGIN  # groups joined on screen: kept where it cuts better
    k, graph = step.n_clusters, step.graph
    return labels_ncut(graph, screen_cut_labels(step), k) <= labels_ncut(graph, labels, k) + margin


def _unstroked_shrunk(prev: np.ndarray, labels: np.ndarray, resolution: Resolution, step: ConstraintStep) -> bool:
    """Whether ``labels`` shrink the one segment of ``prev`` that holds no node of a stroke
    group to under :data:`~core.constraint_step.params.KEEP_SCREEN_SHRUNK` of its size (node
    sizes; the segment of ``labels`` holding no stroke node, none: size 0). False where
    ``prev`` has no such segment or more than one."""
    sizes = _node_sizes(step.appearance, len(prev))
    stroked = resolution.group >= 0

    def unstroked(lab: np.ndarray) -> list:
        return sorted(set(range(step.n_clusters)) - set(np.asarray(lab)[stroked].tolist()))

    before, after = unstroked(prev), unstroked(labels)
    if len(before) != 1:
        return False
    size = float(sizes[np.asarray(labels) == after[0]].sum()) if len(after) == 1 else 0.0
    return size < KEEP_SCREEN_SHRUNK * float(sizes[np.asarray(prev) == before[0]].sum())


def _unstroked_share(prev: np.ndarray, resolution: Resolution, step: ConstraintStep) -> float:
    """The share of the image (node sizes) in the segments of ``prev`` that hold no node of a
    stroke group: the region the screen shows apart from every stroke."""
    sizes = _node_sizes(step.appearance, len(prev))
    prev = np.asarray(prev, np.int64)
    return float(sizes[~np.isin(prev, prev[resolution.group >= 0])].sum() / sizes.sum())


def healthy_screen_kept(labels: np.ndarray, resolution: Resolution, step: ConstraintStep) -> bool:
    """Whether the result on screen (``step.previous``) would stay because ``labels`` leave a
    segment no stroke reached a sliver (``rounding_keep_healthy``).

    Only for an edit that adds strokes (``step.keep_healthy``: must-links, cannot-links or
    both) to a result that already honours every one of them as a person reads it
    (:func:`~core.constraint_step.step.screen_grouping`) and has no segment under
    :data:`~core.constraint_step.params.UNREACHED_MIN_SHARE` of the image (node sizes), where
    ``labels`` have one that holds no stroke node (:func:`unheld_sliver`). On 326038 (K = 3,
    regions-first, e2cp) the cannot-link from the left rock to the wall, which the screen
    (ARI 0.83) honoured, regrouped the must-links and left a segment of 2.7% along the
    rock's edge that no stroke held (0.57). A small segment that holds strokes is left to the
    step: it is often a small region a person stroked (measured: counting those too kept
    wrong screens on 9 of the 200 training images, ``bench/results/tuning.md``).

    The normalised cut is not asked here, so :func:`apply_step` then computes the same
    strokes in one call and shows those labels instead of the screen where they have no such
    sliver and cut the graph better (:func:`healthy_one_call`): the screen is never kept
    against a healthy, better-cut result of the same strokes (no lock-in).

    Parameters
    ----------
    labels : ndarray, shape (n',), int
        The step's new labels on its nodes.
    resolution : Resolution
        The strokes as the step settled them (groups, cannot-linked pairs).
    step : ConstraintStep
        Its ``previous``, ``keep_healthy``, ``appearance`` (node sizes) and ``n_clusters``
        are read.

    Returns
    -------
    bool
        True: unless :func:`healthy_one_call` says otherwise, the caller shows
        ``step.previous`` instead of ``labels`` (``info['kept_healthy']`` and
        ``info['kept_screen']``).
    """
    prev = step.previous
    if not step.keep_healthy or prev is None or np.shape(prev) != np.shape(labels) or (prev < 0).any():
        return False
    k = step.n_clusters
    sizes = _node_sizes(step.appearance, len(labels))
    prev = np.asarray(prev, np.int64)
    if not unheld_sliver(labels, resolution, k, sizes) or _sliver(prev, k, sizes):
        return False
    return screen_grouping(prev, resolution, k) is not None


def unheld_sliver(labels: np.ndarray, resolution: Resolution, k: int, sizes: np.ndarray) -> bool:
    """Whether one of the ``k`` segments of ``labels`` is under
    :data:`~core.constraint_step.params.UNREACHED_MIN_SHARE` of the image (node sizes
    ``sizes``) and holds no node of a stroke, block or brush region (``resolution.group``):
    a segment no stroke reached, collapsed. A small segment that holds strokes is often a
    small region a person stroked."""
    return bool(unheld_colours(labels, resolution, k, sizes))


def screen_cut_labels(step: ConstraintStep) -> np.ndarray:
    """The labelling of the screen whose normalised cut :func:`screen_kept` measures:
    ``step.previous_unrefined`` (node-level, before the screen's pixel refinement) where it
    labels every node, else ``step.previous``."""
    was = step.previous_unrefined
    if was is None or np.shape(was) != np.shape(step.previous) or (np.asarray(was) < 0).any():
        return np.asarray(step.previous, np.int64)
    return np.asarray(was, np.int64)


def _every_segment_stroked(labels: np.ndarray, resolution: Resolution, k: int) -> bool:
    """Whether each of the ``k`` segments of ``labels`` holds a node of a stroke, block or
    brush region (``resolution.group`` >= 0)."""
    return bool(np.isin(np.arange(k), labels[resolution.group >= 0]).all())


def _labels(E: np.ndarray, labels0: np.ndarray, step: ConstraintStep, info: dict) -> tuple:
    """The step's labels on its nodes (:func:`constrained_labels`, then ``step.widen``'s
    :func:`~core.constraint_step.widen.widened_labels`) and the strokes' resolution;
    ``info['widened']`` where widened."""
    labels, resolution = constrained_labels(E, labels0, step.nc, step.n_clusters,
                                            graph=step.graph,
                                            prior_weight=step.prior_weight, colouring=step.colouring,
                                            previous=step.previous, stability=step.stability,
                                            appearance=step.appearance, looks_weight=step.looks_weight,
                                            appearance_weight=step.appearance_weight,
                                            texture=step.texture, texture_weight=step.texture_weight,
                                            anchored=step.anchored, positions=step.positions)
    if step.widen and step.graph is not None and step.prior_weight > 0:
        wide = widened_labels(labels, resolution, step.nc, step.graph, step.n_clusters, step.prior_weight,
                              step.appearance, step.texture, step.texture_weight)
        if wide is not None:
            labels, info["widened"] = wide, True
    return labels, resolution


def _joined(labels: np.ndarray, resolution: Resolution, step: ConstraintStep, info: dict) -> np.ndarray:
    """``labels`` with ``step.connect``'s joins (:func:`connected_labels`, at K = 2 with a
    walk); ``info['connected_must_links']`` where it joined."""
    if step.connect and step.n_clusters == 2 and step.graph is not None and step.prior_weight > 0:
        joined = connected_labels(labels, resolution, step.nc, step.graph, step.n_clusters, step.prior_weight,
                                  step.texture, step.texture_weight, _node_sizes(step.appearance, len(labels)))
        if joined is not None:
            labels, info["connected_must_links"] = joined
    return labels


def healthy_one_call(labels: np.ndarray, resolution: Resolution, step: ConstraintStep) -> bool:
    """Whether ``labels``, the same strokes' labels in one call (no result on screen), stand
    in for a screen :func:`healthy_screen_kept` would keep: no segment of theirs is a sliver
    no stroke holds (:func:`unheld_sliver`) and they cut ``step.graph`` better than the
    screen (normalised cut lower by more than
    :data:`~core.constraint_step.params.KEEP_SCREEN_MARGIN`, the screen measured as in
    :func:`screen_kept`). So the rule never keeps the screen against a better-cut, healthy
    result of the same strokes (no lock-in)."""
    k = step.n_clusters
    if unheld_sliver(labels, resolution, k, _node_sizes(step.appearance, len(labels))):
        return False
    return labels_ncut(step.graph, labels, k) + KEEP_SCREEN_MARGIN < labels_ncut(step.graph, screen_cut_labels(step), k)


def blob_sliver(labels: np.ndarray, nc, k: int, sizes: np.ndarray) -> bool:
    """Whether one of the ``k`` segments of ``labels`` is under
    :data:`~core.constraint_step.params.UNREACHED_MIN_SHARE` of the image (node sizes
    ``sizes``) and holds no node a person marked as part of a region (a must-link's end, a
    block's or brush region's node, ``nc.strokes``): a blob that at most a
    cannot-link's end holds. A small segment with a must-link or a label in it is a small
    region a person stroked (135069's fish, 0.4% of the image)."""
    labels = np.asarray(labels, np.int64)
    region = np.zeros(len(labels), bool)
    for s in nc.strokes:
        if s.kind == Kind.MUST_LINK:
            region[[s.a, s.b]] = True  # its two end nodes (not their neighbourhoods, which a
            # cannot-link's end near the must-link shares)
        elif s.kind == Kind.BLOCK:
            region[list(s.nodes)] = True
    held = np.bincount(labels[region], minlength=k)[:k] > 0
    return bool(((_shares(labels, k, sizes) < UNREACHED_MIN_SHARE) & ~held).any())


def _unslivered(res: SpectralResult, resolution: Resolution, E: np.ndarray, labels0: np.ndarray,
                step: ConstraintStep, alone: ConstraintStep) -> Resolution:
    """No lock-in by a sliver: where labels read with the result on screen (``step.previous``)
    leave a segment under :data:`~core.constraint_step.params.UNREACHED_MIN_SHARE` of the
    image and the same strokes in one call (``alone``) do not, the one call's labels replace
    them (``res.info['one_call_unslivered']``), with ``step.keep_healthy``
    (``rounding_keep_healthy``); returns the resolution of the labels kept.

    The screen enters the walk as a prior (``step.stability``), and a screen that joined two
    regions the next cannot-link keeps apart held them joined: the cannot-link was honoured
    by a blob around its end (ssap, regions-first user, K = 2, 209070: 1.4 / 98.6% after the
    cannot-link, against 15.9 / 84.1% and ARI 0.84 for the same strokes in one call).
    Issue 20, items 3 and 4: a cannot-link separates regions, and what keeps earlier strokes
    stable never keeps a worse result than one call. Only a blob counts
    (:func:`blob_sliver`: a small segment holding a must-link or a label is a small region a
    person stroked), and where the one call has one too, the labels stay.
    """
    if not step.keep_healthy or step.previous is None or step.graph is None:
        return resolution
    k, sizes = step.n_clusters, _node_sizes(step.appearance, len(res.labels))
    if not blob_sliver(res.labels, step.nc, k, sizes):
        return resolution
    one = {}
    labels, one_resolution = _labels(E, labels0, alone, one)
    labels = _joined(labels, one_resolution, alone, one)
    if blob_sliver(labels, step.nc, k, sizes):
        return resolution
    res.info.pop("connected_must_links", None)
    res.labels = labels
    res.info.update(one, one_call_unslivered=True)
    return one_resolution


def _unreached_repaired(res: SpectralResult, resolution: Resolution, step: ConstraintStep) -> None:
    """The last repair of a collapse: where the labels shown leave a colour no stroke holds a
    sliver while the cannot-linked groups hold fewer than K colours, a free must-link group
    takes it (:func:`~core.constraint_step.step.unreached_filled`;
    ``res.info['unreached_filled']``).

    Only on the labels that would be shown, after every other rule (a screen kept, the one
    call's labels in place of a sliver, :func:`_unslivered`): on 309004 (regions-first,
    K = 3) ssap's seventh result had such a sliver before :func:`_unslivered`, and filling
    it there gave ARI -0.07 where the one call's labels give 0.48. On gp-propagation and
    rom nothing else repairs it: the first cannot-link's groups held two colours, every free
    must-link took one of them, and the third segment kept 2% of the image (the large bear;
    ARI 0.20 and 0.60, a collapsed result); now 0.47 and 0.42, three regions. Not where the
    small segment holds a free group: that is often a small region a person stroked
    (311068, 35008, 368016, 43070, 105053: 0.62-0.91 -> 0.14-0.69 when such segments were
    filled too), so csp's 187071 (a third region's must-link alone in a 2.9% segment, in
    two pieces around its ends) is left. All 200 training images, regions-first, K = 3
    (``bench/results/tuning.md``, forty-sixth session)."""
    filled = unreached_filled(res.labels, resolution, step.nc, step.n_clusters, step.graph,
                              {"prior_weight": step.prior_weight, "appearance": step.appearance,
                               "texture": step.texture, "texture_weight": step.texture_weight})
    if filled is not None:
        res.labels = filled
        res.info["unreached_filled"] = True


def _grounded(res: SpectralResult, resolution: Resolution, step: ConstraintStep) -> None:
    """``res.labels`` with the far field no block reaches given to the ground
    (:func:`~core.constraint_step.ground.grounded`, ``step.ground``);
    ``res.info['grounded']``: how many nodes changed."""
    if step.ground <= 0 or step.border is None or step.graph is None or step.prior_weight <= 0:
        return
    seeds = np.flatnonzero(resolution.group >= 0)
    if len(np.unique(res.labels[seeds])) < step.n_clusters:
        return  # a segment no block holds follows the method's labels far from the blocks (step 4)
    graph = step.graph
    if step.texture is not None and step.texture_weight > 0:  # the graph the final walk ran on, as near as one fit tells
        from .texture import texture_posterior, texture_shaped

        F, sizes = step.texture
        P = texture_posterior(F, np.arange(len(F)), res.labels, step.n_clusters, sizes)
        if P is not None:
            graph = texture_shaped(graph, P, step.texture_weight)
    res.labels, changed = grounded(res.labels, graph, seeds, step.border, step.prior_weight, step.ground,
                                   step.n_clusters)
    if changed:
        res.info["grounded"] = changed


def apply_step(res: SpectralResult, step: ConstraintStep, method_nc, warn: bool = True) -> SpectralResult:
    """``res`` with labels that honour every consistent constraint (:func:`constrained_labels`).

    What the step reads for the segments no stroke reaches (:func:`unreached_source`): the
    method's own labels and embedding; or, where those labels are one segment or cut
    ``step.graph`` far worse than the method's own result without strokes (normalised cut
    higher by more than ``step.unconstrained_margin``), that result
    (``res.info['unreached_from'] = 'unconstrained'``): csp's eq. 17 threshold, given a few
    strokes, gives a blob around them (normalised cut 0.06–0.24 on Berkeley images, against
    about 0.01 without strokes and for the other methods), which the walk would otherwise
    carry into the result. One segment is replaced by that result whatever the margin;
    without it (``step.unconstrained`` None, or itself one segment), by the NJW clustering
    of ``step.graph`` (:func:`graph_split`; ``'graph'``). Either value is left out where
    every final segment holds a stroke, block or brush region: then no segment is one no
    stroke reached (the labels are the same). This is a deviation from every paper (their rounding stays as it is with
    ``rounding='paper'``).

    The method's embedding (its own clustered embedding, else its row-normalised display
    vectors) and labels are carried onto ``step.parent``'s nodes when the step labels split
    nodes. ``res.info`` gains ``overruled`` (strokes not honoured, by index) and
    ``overruled_nodes`` (where the step decided otherwise than the method: what the
    eigenvector view shows); where the screen is kept (:func:`screen_kept`),
    ``kept_screen`` (True) and ``kept_unrefined`` (the screen's labelling its cut was
    measured on, :func:`screen_cut_labels`, which the next edit's comparison reads); where a
    must-link's ends were joined through their segment (``step.connect``,
    :func:`~core.constraint_step.connect.connected_labels`, on labels that replace the
    screen: a kept screen stays as it was, and the screen is compared with the step's own
    labels),
    ``connected_must_links`` (how many were in two pieces); where the screen is kept because
    the new labels would leave a segment no stroke reached a sliver (``step.keep_healthy``,
    :func:`healthy_screen_kept`), ``kept_healthy`` beside ``kept_screen``, or, where the same
    strokes in one call are healthy and cut better (:func:`healthy_one_call`), those labels
    and ``one_call_healthy``. With ``warn``, strokes not honoured are named in a
    :class:`~core.errors.ContradictoryConstraintsWarning` (``method_nc``'s own
    contradictions give the reason when the nodes were not split).
    """
    E = clustered_embedding(res, step.n_clusters)
    labels0 = res.labels
    if step.parent is not None:
        E, labels0, res.embedding = E[step.parent], labels0[step.parent], res.embedding[step.parent]
    own = labels0  # the method's own labels: what the eigenvector view says the step overruled
    alone = replace(step, previous=None, previous_unrefined=None, keep_screen=False, keep_healthy=False)
    if step.screen_groups and step.keep_screen and step.n_clusters >= 3:
        joins = screen_joins(step.previous, step.nc, step.n_clusters)
        if joins:  # every later step reads the strokes with these joins (one NodeConstraints)
            step = replace(step, nc=replace(step.nc, screen_joins=joins))
            res.info["screen_groups"] = len(joins)
    labels0, E, source = unreached_source(labels0, E, step)
    if source is not None:
        res.info["unreached_from"] = source
    res.labels, resolution = _labels(E, labels0, step, res.info)
    placed = _placed(res.labels, E, labels0, step, own)
    if placed is not None:
        res.labels, resolution, step, info = placed
        res.info.update(info)
    if "unreached_from" in res.info and _every_segment_stroked(res.labels, resolution, step.n_clusters):
        res.info.pop("unreached_from")  # it spoke of segments no stroke reached: there are none
    kept = screen_kept(res.labels, resolution, step)
    if not kept:
        res.labels = _joined(res.labels, resolution, step, res.info)
    if not kept and healthy_screen_kept(res.labels, resolution, step):
        res.info.pop("connected_must_links", None)
        one = {}
        labels, one_resolution = _labels(E, labels0, alone, one)
        labels = _joined(labels, one_resolution, alone, one)
        if healthy_one_call(labels, one_resolution, step):  # no lock-in: it cuts better than the screen
            res.labels, resolution = labels, one_resolution
            res.info.update(one, one_call_healthy=True)
        else:
            kept = res.info["kept_healthy"] = True
    if not kept and "one_call_healthy" not in res.info:
        resolution = _unslivered(res, resolution, E, labels0, step, alone)
    if not kept:
        _unreached_repaired(res, resolution, step)
        _grounded(res, resolution, step)
    if kept:
        res.labels = np.asarray(step.previous, np.int64).copy()
        res.info["kept_screen"] = True
        # what the next edit compares with (numbered as the screen was: the cut ignores numbers)
        res.info["kept_unrefined"] = screen_cut_labels(step)
        res.info.pop("unreached_from", None)  # it spoke of the labels not shown
    res.info["overruled"] = [k for k, ok in enumerate(resolution.honoured) if not ok]
    res.info["overruled_nodes"] = overruled_nodes(own, res.labels)
    if warn and res.info["overruled"]:  # what the final labels do not honour, by name
        strokes = step.nc.strokes
        said = [f"{strokes[k].kind.label} #{strokes[k].index}" for k in res.info["overruled"]]
        more = f" (and {len(said) - 1} more)" if len(said) > 1 else ""
        why = (method_nc.contradictions[0] if step.parent is None and method_nc.contradictions else
               "newer constraints contradict it at the resolution of the graph (ends on one "
               "working pixel, or more cannot-linked groups than segments)")
        # apply_step <- pipeline.constrain <- segment / fit <- the user's code
        warnings.warn(f"contradictory constraints: {said[0]}{more} not honoured: {why}",
                      ContradictoryConstraintsWarning, stacklevel=4)
    return res
