"""Nodes split where the user's strokes put two anchors in one node (our addition).

A superpixel can straddle an object's outline. When two of the user's constraints end in
it on either side of that outline (a person refining a boundary does exactly that), no
labelling of the nodes can honour both, although the pixels can. :func:`refine` splits
each node that holds two or more *anchors* (a link's endpoint pixel, or the pixels of a
labelled block or brush region) into one part per anchor: the node's own pixels are
labelled by a random walk (Grady 2006) on their 4-neighbour grid from the anchors, with
the weights of the boundary graph at pixel level (``exp(-|c_p - c_q|^2 / 2 sigma_c^2)
exp(-(e_p + e_q) / 2 sigma_b)``, ``e`` the edge map, :mod:`core.graph.boundaries`), so a
part ends where the image's edge inside the node is.

The method itself still runs on the unsplit graph (its stroke-independent factorisations
are kept per graph); the constraint-respecting rounding (:mod:`core.constraint_step`)
runs on the split one, each part starting from its parent node's embedding.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import scipy.sparse as sp

from ..constraints import Kind
from .boundaries import region_boundaries
from .pixels import pixel_weights


MAX_SPLIT_NODES = 64  # nodes split per call: a person refining boundaries, not a bulk load
MAX_ANCHORS = 8  # anchors a node may be split among (more: a crowd of stroke ends, left whole)


def anchor_items(constraints, rep) -> list:
    """Every anchor source of ``constraints`` on ``rep``'s working pixels, as
    ``[(creation rank, flat working-pixel indices), ...]``: one item per link endpoint
    (one pixel) and per block or brush region (its pixels)."""
    h, w = rep.node_map.shape
    f = rep.factor
    items = []  # (creation rank, flat pixels) of every anchor source
    for kind in (Kind.MUST_LINK, Kind.CANNOT_LINK):
        links = np.asarray(getattr(constraints, kind), np.int64).reshape(-1, 5)[:, :4]
        ranks = constraints.order[kind]
        for end in (links[:, :2], links[:, 2:]):
            pix = (end[:, 0] // f) * w + end[:, 1] // f
            items += [(r, np.array([p])) for r, p in zip(ranks, pix)]
    for b, rank in zip(constraints.blocks, constraints.order[Kind.BLOCK]):
        if b.runs is None:
            top, left, bottom, right = b.box
            rr, cc = np.mgrid[top // f:(bottom - 1) // f + 1, left // f:(right - 1) // f + 1]
        else:
            runs = np.asarray(b.runs, np.int64)
            lo, hi = runs[:, 1] // f, (runs[:, 2] - 1) // f + 1
            rr = np.repeat(runs[:, 0] // f, hi - lo)
            cc = np.concatenate([np.arange(a, z) for a, z in zip(lo, hi)])
        items.append((rank, np.unique(np.minimum(rr, h - 1) * w + np.minimum(cc, w - 1))))
    return items


def anchors_by_node(constraints, rep) -> dict:
    """The anchors of each node to split: ``{node: [flat working-pixel indices of one anchor], ...}``.

    Every distinct endpoint pixel of a link is one anchor; every block or brush region is one
    anchor in each node it covers. Anchors of one node that share a pixel are merged (they
    cannot be told apart at this resolution). Only nodes with two to :data:`MAX_ANCHORS`
    anchors are returned, at most :data:`MAX_SPLIT_NODES` of them, those of the newest
    constraints first (:attr:`core.Constraints.order`); the others stay whole, and a stroke
    that needs them split is then reported as not honoured.
    """
    flat_map = rep.node_map.ravel()
    items = anchor_items(constraints, rep)
    found: dict[int, list[np.ndarray]] = {}
    crowded: set[int] = set()
    n_split = 0
    for _, pixels in sorted(items, key=lambda it: -it[0]):  # newest first
        if len(pixels) == 1:  # one pixel (a link's end): one node, no set operations needed
            nodes = [int(flat_map[pixels[0]])]
        else:
            nodes = np.unique(flat_map[pixels]).tolist()
        for node in nodes:
            if node in crowded:
                continue
            parts = found.setdefault(node, [])
            if len(pixels) == 1:
                own = pixels
                touching = [k for k, other in enumerate(parts) if (other == pixels[0]).any()]
            else:
                own = pixels[flat_map[pixels] == node]
                touching = [k for k, other in enumerate(parts) if np.intersect1d(own, other).size]
            if touching:  # merged with every part it shares a pixel with (so parts never overlap)
                merged = own
                for k in touching:
                    merged = np.union1d(merged, parts[k])
                parts[:] = [q for k, q in enumerate(parts) if k not in touching] + [merged]
            else:
                if len(parts) == 1 and n_split >= MAX_SPLIT_NODES or len(parts) >= MAX_ANCHORS:
                    crowded.add(node)  # over budget: this node stays whole
                    n_split -= len(parts) > 1
                    del found[node]
                    continue
                n_split += len(parts) == 1
                parts.append(own)
    return {k: v for k, v in found.items() if len(v) > 1}


def split_node(rep, node: int, anchors: list, sigma_intensity: float, sigma_boundary: float) -> np.ndarray:
    """Part (index into ``anchors``) of every working pixel of ``node``, in the order of
    ``np.flatnonzero(rep.node_map.ravel() == node)``.

    A harmonic labelling of the node's pixel grid seeded at the anchors (see the module
    docstring for the weights). Pixels no path joins to an anchor go to the first one.
    """
    from ..constraint_step import prior_walk

    h, w = rep.node_map.shape
    pix = np.flatnonzero(rep.node_map.ravel() == node)
    index = np.full(h * w, -1, np.int64)
    index[pix] = np.arange(len(pix))
    colours = rep.image.reshape(h * w, -1)
    edges = rep.edges.ravel()
    rows, cols = [], []
    for step, ok in ((1, pix % w < w - 1), (w, pix < (h - 1) * w)):
        p = pix[ok]
        q = p + step
        inside = index[q] >= 0
        rows.append(p[inside])
        cols.append(q[inside])
    p, q = np.concatenate(rows), np.concatenate(cols)
    wt = pixel_weights(colours, edges, p, q, sigma_intensity, sigma_boundary)
    n = len(pix)
    W = sp.coo_matrix((np.r_[wt, wt], (np.r_[index[p], index[q]], np.r_[index[q], index[p]])), shape=(n, n))
    seeds = np.concatenate([index[a] for a in anchors])
    seed_labels = np.concatenate([np.full(len(a), k) for k, a in enumerate(anchors)])
    return prior_walk(W, seeds, seed_labels, np.zeros((n, len(anchors))), 0.0)


def refine(rep, constraints, sigma_intensity: float, sigma_boundary: float):
    """``rep`` with every node that holds two or more anchors split among them.

    Parameters
    ----------
    rep : Representation
        With its working image and edge map (:func:`~core.graph.representation.build_representation`).
    constraints : Constraints
    sigma_intensity, sigma_boundary : float
        The boundary graph's scales (:data:`~core.graph.affinity.AFFINITY_PARAMS`).

    Returns
    -------
    refined : Representation
        ``rep`` itself when no node needs splitting; else a new representation whose first
        ``rep.n_nodes`` nodes keep their indices (a split node keeps its first anchor's part)
        and whose further nodes are the other parts. Kept in ``rep``'s cache by the anchors,
        so the same strokes give the same object.
    parent : ndarray, shape (refined.n_nodes,), int64
        The node of ``rep`` each node came from.
    """
    if rep.image is None or constraints is None:
        return rep, np.arange(rep.n_nodes)
    found = anchors_by_node(constraints, rep)
    if not found:
        return rep, np.arange(rep.n_nodes)
    key = ("refined", float(sigma_intensity), float(sigma_boundary),
           tuple(sorted((k, tuple(tuple(a.tolist()) for a in v)) for k, v in found.items())))
    return rep.cache.get(key, lambda: _split(rep, found, sigma_intensity, sigma_boundary))


def pixels_of(rep, node: int) -> np.ndarray:
    """Flat indices of ``node``'s pixels in ``rep.node_map``, ascending: from one stable sort
    of the map kept in ``rep``'s cache (a long session splits dozens of nodes per edit,
    where comparing the whole map for each cost a pass over every pixel)."""
    def index():
        flat = rep.node_map.ravel()
        order = np.argsort(flat, kind="stable")
        return order, np.searchsorted(flat[order], np.arange(rep.n_nodes + 1))
    order, starts = rep.cache.get(("node-pixels",), index)
    return order[starts[node]:starts[node + 1]]


def _split(rep, found: dict, sigma_intensity: float, sigma_boundary: float):
    from .representation import _summarise

    node_map = rep.node_map.copy()
    flat = node_map.reshape(-1)
    parent = list(range(rep.n_nodes))
    for node in sorted(found):
        anchors = found[node]
        # each node's split is kept on its own: a new stroke splits only the nodes it touches
        akey = ("node-split", float(sigma_intensity), float(sigma_boundary), int(node),
                tuple(tuple(a.tolist()) for a in anchors))
        part = rep.cache.get(akey, lambda node=node, anchors=anchors: split_node(
            rep, node, anchors, sigma_intensity, sigma_boundary))
        pix = pixels_of(rep, node)
        ids = np.r_[node, np.arange(len(parent), len(parent) + len(anchors) - 1)]
        flat[pix] = ids[part]
        parent.extend([node] * (len(anchors) - 1))
    parent = np.asarray(parent, np.int64)  # every part holds at least its anchor's pixels
    refined = _summarise(rep.kind, rep.image, node_map, rep.shape, rep.factor)
    refined = dataclasses.replace(refined, boundaries=region_boundaries(node_map, rep.edges),
                                  image=rep.image, edges=rep.edges)
    return refined, parent
