"""``core.segment``: one call from an image and its constraints to a label image."""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field, replace

import numpy as np
from .constraint_step import ConstraintStep
from .constraint_step.params import UNREACHED_MIN_SHARE
from .constraints import Constraints, Kind
from .errors import ContradictoryConstraintsWarning, ParameterError
from .graph.node_constraints import map_constraints, map_strokes
from .graph.pixels import grid_weights
from .graph.refine import anchor_items, refine
from .eval.metrics import honoured, small_cannot_links
from .graph.representation import Representation, border_pixels, build_representation
from .image import check_image
from .params import check_seed
from .graph_setup import boundary_graph, graph_of, split_params
from .pipeline import check_method, constrain, node_cap, run_method, unconstrained_result
from .pixel_refinement import PixelRefinement, Refined, apply_refinement
from .pixel_refinement.looks import BINS, colour_codes
from .prepared import Prepared
from .suggestion import seed_nodes, stroke_certainty


@dataclass
class Segmentation:
    """The result of :func:`segment`: node-level arrays, painted at full size on demand.

    Attributes
    ----------
    node_labels : ndarray, shape (n,), int64
        Segment index 0..n_segments-1 of every graph node.
    node_embedding : ndarray, shape (n, m), m >= 3
        The leading non-trivial eigenvectors the method clustered (csp: ``u*`` first).
    eigenvalues : ndarray, shape (m,)
        NaN for missing vectors (their embedding column is zero).
    params : dict
        Every parameter used, defaults resolved (e.g. csp's beta by eq. 17).
    seconds : float
        Wall time of the call.
    n_nodes : int
        Nodes of ``representation``: the graph the labels are on, so it counts the parts of
        superpixels split for strokes (``info['split_nodes']`` of them are extra), while
        ``params['n_nodes']`` is the graph the method itself ran on, before splitting.
    method : str
    warnings : list of str
        Messages of the segapp warnings raised during the call (also emitted as warnings).
    representation : Representation or None
        The nodes; ``node_of_pixel`` paints node values at full size.
    info : dict
        Method diagnostics (csp: n_feasible, lambda_max, constraint_satisfaction; ssap:
        preference, rounds, n_violated) and the constraint step's (``overruled``,
        ``overruled_nodes``, ``unreached_from``, ``kept_screen``, ``kept_unrefined``,
        ``kept_healthy``, ``one_call_healthy``, ``connected_must_links``,
        ``unreached_filled``:
        :func:`core.constraint_step.stage.apply_step`), and
        ``small_cannot_links``: ``(index, share)`` of each cannot-link kept apart only by a
        segment under 3% of the image (:func:`core.eval.metrics.small_cannot_links`; absent
        where there is none).
    honoured : dict of ndarray of bool
        ``'must_link'``, ``'cannot_link'``, ``'blocks'``: whether each of the user's
        constraints holds in the result (see :func:`core.eval.metrics.honoured`).
    constraints : Constraints or None
        The constraints of the call (what the next edit is compared with, ``previous``).
    asked : dict
        The parameters as the call was given them, defaults filled in but nothing resolved
        per call (``params`` holds csp's beta by eq. 17 etc.): the settings the next edit is
        compared with.
    node_texture : ndarray, shape (n', f), or None
        The texture of the nodes the constraint step labelled (``refinement.base``, else
        ``representation``), as its texture model read them (``rounding_texture`` > 0:
        :func:`core.constraint_step.texture.split_node_texture`); ``core.suggest`` reads it.
    refinement : Refined or None
        When the pixel refinement (:mod:`core.pixel_refinement`) relabelled pixels: the
        nodes it started from and the pixels it changed; ``representation`` is then its
        refined nodes (each node cut where its pixels got different segments), so
        ``labels`` and ``node_of_pixel`` follow the image's edges at pixel level.
    labels : ndarray, shape (H, W), int32
        (property) Segment index of every pixel of the input image.
    eigenvectors : ndarray, shape (H, W, m), float32
        (property) ``node_embedding`` painted at full size.
    """

    node_labels: np.ndarray
    node_embedding: np.ndarray
    eigenvalues: np.ndarray
    params: dict
    seconds: float
    n_nodes: int
    method: str
    warnings: list = field(default_factory=list)
    representation: Representation | None = None
    info: dict = field(default_factory=dict)
    honoured: dict = field(default_factory=dict)
    refinement: Refined | None = None
    constraints: Constraints | None = None
    asked: dict = field(default_factory=dict)
    node_texture: np.ndarray | None = None

    def _paint(self, values: np.ndarray) -> np.ndarray:
        if self.representation is None:
            raise AttributeError("this Segmentation carries no representation to paint pixels with "
                                 "(node_labels and node_embedding are node-level)")
        return self.representation.to_pixels(values)

    @property
    def labels(self) -> np.ndarray:
        if getattr(self, "_labels", None) is None:
            self._labels = self._paint(np.asarray(self.node_labels, np.int32))
        return self._labels

    @property
    def eigenvectors(self) -> np.ndarray:
        if getattr(self, "_eigenvectors", None) is None:
            self._eigenvectors = self._paint(self.node_embedding.astype(np.float32))
        return self._eigenvectors


def previous_pixels(previous, rep, shape: tuple, unrefined: bool = False) -> np.ndarray | None:
    """An earlier result's segment of every working pixel of ``rep``, (h, w); None when it
    was computed on another working copy (:func:`previous_nodes` says what ``previous`` may be).
    With ``unrefined``, a :class:`Segmentation`'s labels before its pixel refinement (its
    constraint step's node-level labels, :attr:`Refined.base_labels`; for a result that kept
    the screen, ``info['kept_unrefined']``: the kept screen's, on the same nodes), except for
    a result on another working copy, read from its pixels as without ``unrefined``."""
    f = rep.factor
    h, w = rep.node_map.shape
    if isinstance(previous, Segmentation):
        prep_ = previous.representation
        if prep_ is None or tuple(prep_.shape) != tuple(shape):
            got = "no representation" if prep_ is None else f"shape {tuple(prep_.shape)}"
            raise ParameterError(f"previous must be a Segmentation of this image (shape {tuple(shape)}), "
                                 f"got one with {got}")
        lab = np.asarray(previous.node_labels)
        if unrefined and previous.refinement is not None:
            prep_, lab = previous.refinement.base, np.asarray(previous.refinement.base_labels)
        if unrefined and "kept_unrefined" in previous.info:  # a kept screen: the one it kept
            lab = np.asarray(previous.info["kept_unrefined"])
        if prep_.node_map.shape == (h, w):
            work = lab[prep_.node_map]
        else:
            work = np.asarray(previous.labels)[::f, ::f][:h, :w]
    else:
        arr = np.asarray(previous)
        if arr.shape != tuple(shape) or not np.issubdtype(arr.dtype, np.integer):
            raise ParameterError(f"previous must be the earlier Segmentation or an integer label image of "
                                 f"shape {tuple(shape)}, got {arr.dtype} of shape {arr.shape}")
        work = arr[::f, ::f][:h, :w]
    return work if work.shape == (h, w) else None


def previous_nodes(previous, rep, shape: tuple, n_segments: int, unrefined: bool = False) -> np.ndarray:
    """Each node's segment in an earlier result: the most common among its working pixels
    (-1 for a node none of whose pixels has a segment in ``0 .. n_segments - 1``); with
    ``unrefined``, of its labels before the pixel refinement (:func:`previous_pixels`).

    Parameters
    ----------
    previous : Segmentation or ndarray, shape (H, W), int
    rep : Representation
        The nodes to label (split or not).
    shape : tuple (H, W)
        The image's size.
    n_segments : int

    Raises
    ------
    ParameterError
        ``previous`` is neither a Segmentation of this image's size nor an integer label
        image of that size.
    """
    work = previous_pixels(previous, rep, shape, unrefined)
    if work is None:  # a result on another working copy: nothing to keep
        return np.full(rep.n_nodes, -1, np.int64)
    ok = (work >= 0) & (work < n_segments)
    counts = np.bincount(rep.node_map[ok].astype(np.int64) * n_segments + work[ok].astype(np.int64),
                         minlength=rep.n_nodes * n_segments).reshape(rep.n_nodes, n_segments)
    return np.where(counts.any(1), counts.argmax(1), -1).astype(np.int64)


def segment(image, constraints: Constraints | None = None, method: str = "csp", n_segments: int = 2,
            random_state=0, previous=None, **params) -> Segmentation:
    """Segment ``image`` into ``n_segments`` with pairwise constraints.

    Parameters
    ----------
    image : ndarray, shape (H, W), (H, W, 3) or (H, W, 4), or Prepared
        Grey or colour, any integer or float dtype; or the same image from
        :func:`core.prepare`, whose graphs and factorisations are then reused (the labels
        are the same either way).
    constraints : Constraints, optional
        Links and blocks in full-image pixel coordinates.
    method : str
        A key of :data:`core.METHODS`.
    n_segments : int
        At least 2 and at most the number of graph nodes.
    random_state : int, RandomState or None
        Seeds k-means and block-pair subsampling (converted once).
    previous : Segmentation or ndarray of shape (H, W), int, optional
        The result shown before this edit (the window's, or the simulated user's last), of
        this image. The constrained rounding then keeps earlier strokes in the segments they
        had (``rounding_stability``), so a new stroke does not recolour the image elsewhere
        and segment numbers follow that result. Given as the :class:`Segmentation` of the
        call before, with the same settings, an edit that only adds must-links that result
        already honours keeps it unless the new labels cut the image better
        (``rounding_keep_screen``, :func:`adds_must_links_only`; whatever
        ``rounding_stability`` is); an edit that only adds strokes that result honours keeps it
        where the new labels would leave a segment no stroke reached under 3% of the image
        (``rounding_keep_healthy``, :func:`adds_strokes_only`). Segment numbers outside
        ``0 .. n_segments - 1`` are ignored. Used only where the constrained rounding runs:
        with at least one constraint, ``rounding='constrained'``, a method other than ncut
        and ``rounding_stability > 0``; ``None``: every call stands alone (so a result then
        depends on the order of the edits that led to it, as a person's session does).
    **params
        Graph parameters (:data:`core.REPRESENTATION_PARAMS`: nodes, affinity, strokes) and
        the method's parameters.

    Returns
    -------
    Segmentation

    Raises
    ------
    InvalidImageError, ConstraintError, ParameterError, ConvergenceError
        With a message naming the problem.

    Warns
    -----
    ContradictoryConstraintsWarning
        A pair is both must- and cannot-linked (directly or through must-links).
    DisconnectedGraphWarning, ConvergenceWarning
    """
    t0 = time.perf_counter()
    spec = check_method(method)
    n_segments = _checked_segments(n_segments)
    rng = check_seed(random_state)
    rep_p, meth_p = split_params(method, params)
    asked = {"method": method, "n_segments": n_segments, "random_state": random_state, **rep_p, **meth_p}
    prep = image if isinstance(image, Prepared) else None
    img = prep.image if prep is not None else np.asarray(image)
    if prep is None:
        check_image(img)
    constraints = _checked_constraints(constraints, img.shape[:2])
    caught: list[str] = []
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        pixel_contradictions = constraints.contradictions()
        for msg in pixel_contradictions:
            warnings.warn("contradictory constraints: " + msg, ContradictoryConstraintsWarning, stacklevel=2)
        rep = _representation(prep, img, spec, meth_p, rep_p, n_segments)
        feats = rep.features(rep_p["sigma_position"], rep_p["sigma_intensity"])
        K, G, cache = graph_of(rep, rep_p, spec)
        mapping = dict(stroke_radius=rep_p["stroke_radius"], sigma_intensity=rep_p["sigma_intensity"],
                       max_pairs=rep_p["max_pairs"])
        nc = map_constraints(constraints, rep, rng=rng, **mapping)
        step, out = None, rep
        if rep_p["rounding"] == "constrained" and spec.name != "ncut":
            step, out = _step_input(rep, constraints, nc, K, G, previous, img.shape[:2], rep_p, n_segments)
            adds = adds_strokes_only(previous, constraints, asked)  # the screen's pixels read once
            step = replace(step, keep_healthy=rep_p["rounding_keep_healthy"] and adds,
                           keep_screen=rep_p["rounding_keep_screen"] and adds and _only_must_links_added(
                               previous.constraints, constraints),
                           screen_claims=rep_p["rounding_screen_groups"]
                           and adds_must_links_to_honoured(previous, constraints, asked))
        if step is not None:
            step = replace(step, unconstrained=unconstrained_result(
                spec, K, rep.n_nodes, n_segments, random_state, params=meth_p, features=feats, cache=cache))
        res = run_method(spec, K, nc, n_segments, rng, params=meth_p, features=feats, cache=cache)
        res = constrain(res, spec, nc, step, rounding=rep_p["rounding"], warn=not pixel_contradictions)
    for w in rec:
        caught.append(str(w.message))
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    used = {"method": method, "n_segments": n_segments, "random_state": random_state, **rep_p, **meth_p}
    used.update({k: v for k, v in res.info.items() if k in meth_p})
    used["n_nodes"] = rep.n_nodes
    if out is not rep:
        res.info["split_nodes"] = out.n_nodes - rep.n_nodes
    before = res.labels.copy()
    if constraints.blocks:
        res.labels = number_by_block_labels(res.labels, constraints.blocks, out, n_segments)
    refined = None
    if rep_p["rounding"] == "constrained":
        kept = None
        if res.info.get("kept_screen"):  # the screen's pixels, numbered as the labels now are
            kept = previous_pixels(previous, out, img.shape[:2])
            to = np.arange(max(n_segments, int(before.max(initial=0)) + 1))
            to[np.asarray(before, np.int64)] = res.labels
            kept = np.where((kept >= 0) & (kept < len(to)), to[np.clip(kept, 0, len(to) - 1)], kept)
        refined = _refine_pixels(res, out, rep, constraints, rep_p, n_segments, kept)
        out = refined.representation
    node_labels = res.labels.astype(np.int64)
    if constraints.cannot_link:
        shares = np.bincount(node_labels, weights=out.sizes, minlength=n_segments)
        small = small_cannot_links(constraints, lambda r, c: node_labels[out.node_at(r, c)],
                                   shares / max(float(shares.sum()), 1e-12), UNREACHED_MIN_SHARE)
        if small:
            res.info["small_cannot_links"] = small
    return Segmentation(node_labels, res.embedding, np.asarray(res.eigenvalues, float), used,
                        time.perf_counter() - t0, out.n_nodes, method, caught, out, res.info,
                        honoured(constraints, lambda r, c: node_labels[out.node_at(r, c)],
                                 lambda block: node_labels[out.nodes_of_block(block)]),
                        refined if refined is not None and refined.representation is not refined.base else None,
                        constraints, asked,
                        step.texture[0] if step is not None and step.texture is not None else None)


def number_by_block_labels(labels: np.ndarray, blocks, rep, k: int) -> np.ndarray:
    """``labels`` (per node of ``rep``) renumbered so that a segment holding blocks or brush
    regions of label ``L <= k`` is segment ``L - 1`` (the label most of its block pixels have;
    Hungarian when two segments claim one label); the other segments keep their order in the
    numbers left. So a labelled region exports as the same value whatever led to the result
    (the result on screen, another image in between, the method)."""
    from scipy.optimize import linear_sum_assignment

    labels = np.asarray(labels, np.int64)
    votes = np.zeros((k, k))
    for b in blocks:
        if 1 <= b.label <= k:
            nodes = rep.nodes_of_block(b)
            np.add.at(votes, (labels[nodes], b.label - 1), 1.0)
    rows, cols = linear_sum_assignment(-votes)
    keep = votes[rows, cols] > 0
    to = np.full(k, -1)
    to[rows[keep]] = cols[keep]
    free = [c for c in range(k) if c not in set(to.tolist())]
    for seg in range(k):
        if to[seg] < 0:
            to[seg] = free.pop(0)
    return to[labels]


def _checked_segments(n_segments) -> int:
    if isinstance(n_segments, bool) or not isinstance(n_segments, (int, np.integer)) or n_segments < 2:
        raise ParameterError(f"n_segments must be an integer >= 2, got {n_segments!r}")
    return int(n_segments)


def _checked_constraints(constraints, shape) -> Constraints:
    """``constraints`` (``None``: none) checked against an image of ``shape``."""
    if constraints is None:
        return Constraints()
    if not isinstance(constraints, Constraints):
        raise ParameterError(f"constraints must be a core.Constraints, got {type(constraints).__name__}")
    constraints.validate(shape)
    return constraints


def _representation(prep, img, spec, meth_p: dict, rep_p: dict, n_segments: int) -> Representation:
    """The graph's nodes (from the prepared image's cache when there is one), at most the
    method's node cap, and at least ``n_segments`` of them."""
    cap = node_cap(spec, meth_p, rep_p["max_nodes"])
    rep = prep.representation(rep_p["representation"], cap, rep_p["work_pixels"], rep_p["edge_sigma"]) \
        if prep is not None else build_representation(img, rep_p["representation"], cap, rep_p["work_pixels"],
                                                      rep_p["edge_sigma"])
    if n_segments > rep.n_nodes:
        raise ParameterError(f"n_segments = {n_segments} exceeds the {rep.n_nodes} graph nodes; "
                             f"use at most {rep.n_nodes} or raise max_nodes")
    return rep


def _refine_pixels(res, out, rep, constraints, rep_p: dict, n_segments: int, kept=None):
    """The pixel refinement (:mod:`core.pixel_refinement`) of ``res``'s labels on ``out``'s
    nodes: ``res`` is updated in place (labels, embedding and the overruled map carried
    onto the refined parts); returns the :class:`~core.pixel_refinement.Refined`. ``kept``:
    the working pixels of the result on screen, which the constraint step kept (no walk)."""
    items = anchor_items(constraints, out)
    anchors = np.concatenate([pix for _, pix in items]) if items else np.zeros(0, np.int64)
    codes = None
    if rep.image is not None and rep_p["pixel_looks"] > 0:
        codes = rep.cache.get(("colour-codes", BINS), lambda: colour_codes(rep.image))
    grid = None
    if rep.image is not None and rep.edges is not None and rep_p["pixel_band"] > 0:
        si, sb = rep_p["sigma_intensity"], rep_p["sigma_boundary"]
        grid = rep.cache.get(("pixel-grid-weights", si, sb), lambda: grid_weights(
            rep.image.reshape(rep.node_map.size, -1), rep.edges.ravel(), rep.node_map.shape, si, sb))
    keep = None
    if rep_p["pixel_keep"] > 0 and kept is None:
        # Only once the strokes say which segments differ (a cannot-link, or blocks of two
        # labels): must-links alone say nothing of how their groups are split, and a segment
        # no stroke has reached is uncertain by the walk everywhere, so the pull would shrink
        # it (ssap collapsed so). With a cannot-link drawn, the pull on a segment no stroke
        # has reached yet helps the next stroke (bench/results/tuning.md, 21st and 22nd sessions).
        seeds, labels = seed_nodes(constraints, out), np.asarray(res.labels, np.int64)
        apart = bool(constraints.cannot_link) or len({b.label for b in constraints.blocks}) > 1
        if apart and len(seeds):
            sure = stroke_certainty(boundary_graph(out, rep_p), labels, seeds, n_segments)
            keep = rep_p["pixel_keep"] * np.clip(sure, 0.0, None)
    done = apply_refinement(PixelRefinement(out, res.labels, n_segments, anchors, rep_p["pixel_band"],
                                            rep_p["pixel_looks"], rep_p["sigma_intensity"],
                                            rep_p["sigma_boundary"], rep.n_nodes, codes, grid, kept, keep))
    if done.representation is out:
        return done
    parent = done.parent
    res.labels, res.embedding = done.node_labels, res.embedding[parent]
    if "overruled_nodes" in res.info:
        res.info["overruled_nodes"] = np.asarray(res.info["overruled_nodes"])[parent]
    res.info["band_pixels"], res.info["refined_pixels"] = done.band_pixels, len(done.changed)
    return done


def adds_must_links_only(previous, constraints: Constraints, asked: dict) -> bool:
    """Whether this edit only adds must-links to the result on screen, and that result
    already honours every constraint at pixel level (``rounding_keep_screen``).

    Parameters
    ----------
    previous : Segmentation, ndarray or None
        The result on screen (``segment``'s ``previous``); only a :class:`Segmentation` that
        records its constraints and settings qualifies.
    constraints : Constraints
        This call's constraints.
    asked : dict
        This call's method, ``n_segments``, ``random_state`` and parameters, as
        :attr:`Segmentation.asked` holds them.

    Returns
    -------
    bool
        True when ``previous`` was computed with the same settings (every entry of ``asked``
        equal), its must-links are this call's first ones and there are more now, its
        cannot-links and blocks are this call's, and its pixels honour every one of this
        call's constraints (a stroke end on a pixel the screen shows in the other segment,
        even inside a node mostly of the right one, does not). A method switched, a setting
        changed, a stroke moved, removed or of another kind: False (the labels are
        recomputed).
    """
    return adds_strokes_only(previous, constraints, asked) and _only_must_links_added(previous.constraints,
                                                                                      constraints)


def _same_settings(previous, asked: dict) -> bool:
    """Whether ``previous`` is a :class:`Segmentation` recording its constraints and
    representation, computed with the settings ``asked`` (every entry equal)."""
    if not isinstance(previous, Segmentation) or previous.constraints is None or previous.representation is None \
            or previous.asked.keys() != asked.keys():
        return False
    return all(_same_value(previous.asked[k], v) for k, v in asked.items())


def adds_must_links_to_honoured(previous, constraints: Constraints, asked: dict) -> bool:
    """Whether this edit only adds must-links to the result on screen, and that result
    honours every one of its own constraints at pixel level (the edit's need not be):
    ``rounding_screen_groups``' placement (:func:`~core.constraint_step.regroup.screen_joins`).

    Parameters and the settings compared are those of :func:`adds_must_links_only`.
    """
    if not _same_settings(previous, asked):
        return False
    had = previous.constraints
    n = len(had.must_link)
    if not (constraints.must_link[:n] == had.must_link and _only_must_links_added(had, constraints)
            and constraints.blocks == had.blocks):
        return False
    rep, lab = previous.representation, np.asarray(previous.node_labels)
    said = honoured(had, lambda r, c: lab[rep.node_at(r, c)], lambda block: lab[rep.nodes_of_block(block)])
    return all(np.all(ok) for ok in said.values())


def adds_strokes_only(previous, constraints: Constraints, asked: dict) -> bool:
    """Whether this edit only adds strokes (must-links, cannot-links or both) to the result on
    screen, and that result already honours every constraint at pixel level
    (``rounding_keep_healthy``).

    Parameters
    ----------
    previous : Segmentation, ndarray or None
        As :func:`adds_must_links_only`.
    constraints : Constraints
    asked : dict

    Returns
    -------
    bool
        True when ``previous`` was computed with the same settings, its must-links and its
        cannot-links are this call's first ones, there is at least one stroke more now, its
        blocks are this call's, and its pixels honour every one of this call's constraints.
    """
    if not _same_settings(previous, asked):
        return False
    had = previous.constraints
    n, m = len(had.must_link), len(had.cannot_link)
    if not (len(constraints.must_link) + len(constraints.cannot_link) > n + m
            and constraints.must_link[:n] == had.must_link and constraints.cannot_link[:m] == had.cannot_link
            and constraints.blocks == had.blocks):
        return False
    rep, lab = previous.representation, np.asarray(previous.node_labels)  # its refined parts: pixel-exact
    said = honoured(constraints, lambda r, c: lab[rep.node_at(r, c)], lambda block: lab[rep.nodes_of_block(block)])
    return all(np.all(ok) for ok in said.values())


def _only_must_links_added(had: Constraints, constraints: Constraints) -> bool:
    """Given :func:`adds_strokes_only`: whether the strokes added are must-links only (the
    cannot-links as they were, more must-links)."""
    return constraints.cannot_link == had.cannot_link and len(constraints.must_link) > len(had.must_link)


def _same_value(a, b) -> bool:
    """``a == b`` for parameter values, arrays and sequences included."""
    try:
        return bool(np.array_equal(np.asarray(a, dtype=object), np.asarray(b, dtype=object)))
    except (TypeError, ValueError):
        return a is b


def _ground(constraints, rep_p: dict) -> float:
    """``rounding_ground`` where the constraints are blocks and brush regions alone, else 0
    (:mod:`core.constraint_step.ground`)."""
    if constraints is None or not constraints.blocks or constraints.must_link or constraints.cannot_link:
        return 0.0
    return float(rep_p["rounding_ground"])


def _step_input(rep, constraints, nc, K, G, previous, shape, rep_p: dict, n_segments: int):
    """The constraint step's input (:class:`~core.constraint_step.ConstraintStep`) and the
    nodes it labels: ``rep``'s, or split where strokes meet (:func:`core.graph.refine.refine`,
    with their own strokes and boundary graph), the result on screen (an image of ``shape``)
    carried onto them."""
    out, parent = refine(rep, constraints, rep_p["sigma_intensity"], rep_p["sigma_boundary"])
    nc_out = nc
    if out is not rep:  # the step runs on the split nodes
        nc_out = map_strokes(constraints, out)
        G = None if G is None else boundary_graph(out, rep_p)
    else:
        parent = None
    prev = previous_nodes(previous, out, shape, n_segments) if previous is not None else None
    prev_cut = None  # only where the screen's node-level labels differ from its pixels
    if isinstance(previous, Segmentation) and (previous.refinement is not None or "kept_unrefined" in previous.info):
        prev_cut = previous_nodes(previous, out, shape, n_segments, unrefined=True)
    ground = _ground(constraints, rep_p)
    step = ConstraintStep(n_segments, nc_out, graph=K if G is None else G, parent=parent, previous=prev,
                          previous_unrefined=prev_cut,
                          appearance=(out.colors, out.sizes), positions=out.positions / float(np.hypot(*shape[:2])),
                          prior_weight=rep_p["rounding_prior"],
                          colouring=rep_p["rounding_colouring"], stability=rep_p["rounding_stability"],
                          looks_weight=rep_p["rounding_looks"], appearance_weight=rep_p["rounding_appearance"],
                          texture=_texture(rep, out, parent) if rep_p["rounding_texture"] > 0 else None,
                          texture_weight=rep_p["rounding_texture"],
                          unconstrained_margin=rep_p["rounding_unconstrained"],
                          connect=rep_p["rounding_connect"], anchored=rep_p["rounding_anchored"],
                          widen=rep_p["rounding_widen"], screen_groups=rep_p["rounding_screen_groups"],
                          ground=ground, border=border_pixels(out) if ground > 0 else None)
    return step, out


def _texture(rep, out, parent):
    """The texture of ``out``'s nodes (:mod:`core.constraint_step.texture`), from the
    pixel features cached on ``rep`` (the same working image; ``parent``: the node of
    ``rep`` each of ``out``'s came from), with their sizes; ``None`` without an image."""
    from .constraint_step.texture import split_node_texture

    F = split_node_texture(rep, out, parent)
    return None if F is None else (F, out.sizes)
