"""Turning pixel constraints (strokes, blocks) into the node pairs and labels methods use.

The rule (documented in the README):

* A link ``(r1, c1, r2, c2, w)`` joins the node of pixel (r1, c1) to the node of (r2, c2)
  with weight ``w``. With ``stroke_radius > 0`` each endpoint also stands for the nodes
  whose centre is within ``stroke_radius`` times the image diagonal and whose mean colour is within
  ``sigma_intensity`` of the endpoint node (its neighbourhood); the link then joins every
  node of one end to every node of the other (at most ``MAX_PER_END`` = 64 per end, nearest first),
  and, because an end stands for its neighbourhood, the nodes of each end are must-linked to
  one another (with the link's weight) for must- and cannot-links alike (chosen on the
  simulated-user benchmark, ``bench/results/tuning.md``).
* A must-link whose ends fall in one node is already satisfied and dropped. A cannot-link
  whose ends fall in one node cannot be honoured: it is dropped with a
  :class:`ContradictoryConstraintsWarning`.
* A block (a rectangle or a brush region) labels every node that has a pixel inside it. A node touched by blocks of two
  labels is left unlabelled, with a warning. Labelled nodes give pairs: same label ->
  must-link, different labels -> cannot-link. When there are more than ``max_pairs``, a
  chain through each label's nodes is kept (so must-link closure is intact), and the rest
  are drawn at random (``random_state``).
* Duplicate pairs keep their largest weight.
* Cannot-link pairs remember their *group*: the stroke they came from, or the pair of block
  labels. gp-propagation's Algorithm B enforces each group separately (one stroke is one
  constraint between two neighbourhoods); pairs given directly (the estimator) are each their
  own group, which is the paper's Algorithm B.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from ..constraints import Constraints, Kind
from ..errors import ContradictoryConstraintsWarning
from ..params import ParamSpec
from .representation import Representation

MAX_PER_END = 64

STROKE_PARAMS = (
    ParamSpec("stroke_radius", float, 0.1,
              "An endpoint also stands for nodes whose centre lies within this fraction of the "
              "image diagonal and whose colour is within sigma_intensity, at most 64 per end "
              "(0: its own node only).",
              low=0.0, high=1.0),
    ParamSpec("max_pairs", int, 400,
              "Most node pairs made from labelled blocks (chains kept, the rest subsampled).",
              low=1, high=100000),
)


@dataclass(frozen=True)
class Stroke:
    """One of the user's constraints, on nodes: what the constraint-respecting rounding
    (:mod:`core.constraint_step`) must honour.

    Attributes
    ----------
    kind : Kind
    index : int
        Its index among the user's constraints of its kind.
    a, b : int
        The nodes of the two endpoints (links; -1 for blocks).
    ends : tuple of two tuples of int
        The nodes each endpoint stands for (its neighbourhood, ``a`` / ``b`` included).
    nodes : tuple of int
        A block's nodes (empty for links).
    label : int
        A block's label index (-1 for links).
    """

    kind: Kind
    index: int
    a: int = -1
    b: int = -1
    ends: tuple = ((), ())
    nodes: tuple = ()
    label: int = -1


@dataclass
class NodeConstraints:
    """Constraints on graph nodes.

    Attributes
    ----------
    must, cannot : ndarray, shape (p, 2) / (q, 2), int
        All node pairs (from links and from blocks), i < j.
    must_w, cannot_w : ndarray, shape (p,) / (q,)
        Degrees of belief in (0, 1].
    link_must, link_cannot : ndarray
        Indices into ``must`` / ``cannot`` of the pairs that came from links (not blocks).
    labels : ndarray, shape (n,), int
        Block label index 0..L-1 per node, -1 where unlabelled.
    contradictions : list of str
    cannot_group : ndarray, shape (q,), int
        The stroke (or pair of block labels) each cannot-link pair came from.
    strokes : list of Stroke
        The user's constraints in the order they were made (``Constraints.order``, oldest
        first).
    screen_joins : list of (int, int)
        Node pairs the constraint step joins below every stroke, where nothing contradicts
        (:func:`core.constraint_step.regroup.screen_joins`); empty for the user's own.
    """

    n_nodes: int
    must: np.ndarray
    must_w: np.ndarray
    cannot: np.ndarray
    cannot_w: np.ndarray
    link_must: np.ndarray
    link_cannot: np.ndarray
    labels: np.ndarray
    contradictions: list = field(default_factory=list)
    cannot_group: np.ndarray | None = None
    strokes: list = field(default_factory=list)
    screen_joins: list = field(default_factory=list)

    def __post_init__(self):
        if self.cannot_group is None:
            self.cannot_group = np.arange(len(self.cannot))

    @property
    def n_labels(self) -> int:
        return int(self.labels.max()) + 1 if self.labels.size and self.labels.max() >= 0 else 0

    @property
    def empty(self) -> bool:
        return len(self.must) == 0 and len(self.cannot) == 0

    @classmethod
    def from_pairs(cls, n, must=(), cannot=(), must_w=None, cannot_w=None, labels=None):
        """Build directly from node index pairs (the estimator's and the tests' entry point)."""
        m = _pairs(must)
        c = _pairs(cannot)
        mw = np.ones(len(m)) if must_w is None else np.asarray(must_w, float)
        cw = np.ones(len(c)) if cannot_w is None else np.asarray(cannot_w, float)
        lab = np.full(n, -1, int) if labels is None else np.asarray(labels, int)
        m, mw = _dedupe(m, mw)
        c, cw = _dedupe(c, cw)
        strokes = [Stroke(kind, i, int(a), int(b), ((int(a),), (int(b),)))
                   for kind, pairs in ((Kind.MUST_LINK, _pairs(must)), (Kind.CANNOT_LINK, _pairs(cannot)))
                   for i, (a, b) in enumerate(pairs)]
        strokes += [Stroke(Kind.BLOCK, k, nodes=tuple(np.flatnonzero(lab == k).tolist()), label=k)
                    for k in range(int(lab.max()) + 1 if lab.size else 0) if np.any(lab == k)]
        nc = cls(n, m, mw, c, cw, np.arange(len(m)), np.arange(len(c)), lab, strokes=strokes)
        nc.contradictions = chain_contradictions(n, nc.must, nc.cannot)
        return nc


def _pairs(p) -> np.ndarray:
    a = np.asarray(list(p), dtype=np.int64).reshape(-1, 2) if len(p) else np.zeros((0, 2), np.int64)
    return a


def _dedupe(pairs: np.ndarray, w: np.ndarray, groups: np.ndarray | None = None):
    """Sort each pair, drop self-pairs and duplicates (largest weight, first group kept)."""
    if len(pairs) == 0:
        return (np.zeros((0, 2), np.int64), np.zeros(0)) + ((np.zeros(0, np.int64),) if groups is not None else ())
    a, b = pairs[:, 0], pairs[:, 1]
    p = np.stack([np.minimum(a, b), np.maximum(a, b)], 1)  # each pair sorted
    keep = p[:, 0] != p[:, 1]
    p, w = p[keep], w[keep]
    g = groups[keep] if groups is not None else None
    span = int(p.max()) + 1 if len(p) else 1
    # one int64 key per pair, ordered as the pairs are lexicographically: a 1-D unique
    # (10^4 links with 64-node ends give ~4e7 pairs; unique(axis=0) took ~30 s on them)
    keys, first, inv = np.unique(p[:, 0] * span + p[:, 1], return_index=True, return_inverse=True)
    uniq = np.stack([keys // span, keys % span], 1)
    ww = np.zeros(len(uniq))
    np.maximum.at(ww, inv.ravel(), w)
    if groups is None:
        return uniq.astype(np.int64), ww
    return uniq.astype(np.int64), ww, g[first]


def components(n: int, must: np.ndarray) -> np.ndarray:
    """Connected components of the must-link graph (its transitive closure), shape (n,)."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    if len(must) == 0:
        return np.arange(n)
    g = coo_matrix((np.ones(len(must)), (must[:, 0], must[:, 1])), shape=(n, n))
    return connected_components(g, directed=False)[1]


def chain_contradictions(n, must, cannot) -> list[str]:
    comp = components(n, must)
    cannot = np.asarray(cannot, np.int64).reshape(-1, 2)
    joined = cannot[comp[cannot[:, 0]] == comp[cannot[:, 1]]]  # vectorised: 10^4 pairs per stroke
    return [f"nodes {a} and {b} are cannot-linked but joined by must-links" for a, b in joined.tolist()]


def _end_nodes(rep: Representation, r: int, c: int, radius: float, sigma_int: float) -> np.ndarray:
    a = rep.node_at(r, c)
    if radius <= 0:
        return np.array([a])
    d = np.hypot(*(rep.positions - rep.positions[a]).T)
    dc = np.linalg.norm(rep.colors - rep.colors[a], axis=1)
    near = np.flatnonzero((d <= radius) & (dc <= sigma_int))
    near = near[np.argsort(d[near], kind="stable")][:MAX_PER_END]
    return np.union1d(near, [a])


def map_constraints(constraints: Constraints | None, rep: Representation, *, stroke_radius: float = 0.0,
                    sigma_intensity: float = 0.1, max_pairs: int = 400,
                    rng: np.random.RandomState | None = None) -> NodeConstraints:
    """Map pixel constraints onto the nodes of ``rep`` (see the module docstring)."""
    n = rep.n_nodes
    rng = rng if rng is not None else np.random.RandomState(0)
    radius_px = stroke_radius * float(np.hypot(*rep.shape))
    notes: list[str] = []
    strokes: list[Stroke] = []
    # lists of arrays (pairs, weights, groups), joined once: 10^4 links give ~4e7 pairs
    must, must_w, cannot, cannot_w, cgroup = [], [], [], [], []
    if constraints is not None:
        _map_links(constraints, rep, radius_px, sigma_intensity, strokes, notes, must, must_w, cannot, cannot_w, cgroup)
    n_link_m, n_link_c = sum(map(len, must)), sum(map(len, cannot))
    labels = np.full(n, -1, np.int64)
    if constraints is not None and constraints.blocks:
        label_values = sorted({b.label for b in constraints.blocks})
        index = {v: k for k, v in enumerate(label_values)}
        conflict = np.zeros(n, bool)
        for i, b in enumerate(constraints.blocks):
            nodes = rep.nodes_of_block(b)
            k = index[b.label]
            strokes.append(Stroke(Kind.BLOCK, i, nodes=tuple(nodes.tolist()), label=k))
            clash = (labels[nodes] >= 0) & (labels[nodes] != k)
            conflict[nodes[clash]] = True
            labels[nodes] = k
        if conflict.any():
            notes.append(f"{int(conflict.sum())} graph node(s) are covered by blocks of different labels; "
                         "they are left unlabelled")
            labels[conflict] = -1
        bm, bc = _block_pairs(labels, max_pairs, rng)
        must.append(np.asarray(bm, np.int64).reshape(-1, 2))
        must_w.append(np.ones(len(bm)))
        cannot.append(np.asarray(bc, np.int64).reshape(-1, 2))
        cannot_w.append(np.ones(len(bc)))
        if len(bc):  # one group per pair of block labels
            la, lb = np.sort(np.stack([labels[bc[:, 0]], labels[bc[:, 1]]], 1), axis=1).T
            cgroup.append((len(constraints.cannot_link) + la * (int(labels.max()) + 1) + lb).astype(np.int64))
    if constraints is not None:  # oldest first, in the order the user made them
        strokes.sort(key=lambda s: constraints.order[s.kind][s.index])
    must, cannot = _joined(must, (0, 2), np.int64), _joined(cannot, (0, 2), np.int64)
    m, mw = _dedupe(must, _joined(must_w, (0,), float))
    c, cw, cg = _dedupe(cannot, _joined(cannot_w, (0,), float), _joined(cgroup, (0,), np.int64))
    link_m = _indices_of(m, must[:n_link_m])
    link_c = _indices_of(c, cannot[:n_link_c])
    nc = NodeConstraints(n, m, mw, c, cw, link_m, link_c, labels, cannot_group=cg, strokes=strokes)
    nc.contradictions = notes + chain_contradictions(n, m, c)
    return nc


def _map_links(constraints, rep, radius_px: float, sigma_intensity: float, strokes: list, notes: list,
               must: list, must_w: list, cannot: list, cannot_w: list, cgroup: list) -> None:
    """Each link onto node pairs (appended to the lists): every node of one end's
    neighbourhood to every node of the other's, the nodes of each end must-linked to one
    another, a cannot-link's two neighbourhoods kept disjoint; its :class:`Stroke` appended."""
    for kind, links, out, wout in ((Kind.MUST_LINK, constraints.must_link, must, must_w),
                                   (Kind.CANNOT_LINK, constraints.cannot_link, cannot, cannot_w)):
        for i, (r1, c1, r2, c2, w) in enumerate(links):
            key = ("link-nodes", kind, r1, c1, r2, c2, float(radius_px), float(sigma_intensity))
            a0, b0, A, B, cross, ends = rep.cache.get(
                key, lambda: _link_nodes(rep, kind, r1, c1, r2, c2, radius_px, sigma_intensity))
            strokes.append(Stroke(kind, i, a0, b0))
            if a0 == b0:
                if kind == Kind.CANNOT_LINK:
                    notes.append(f"cannot-link #{i} has both ends in one graph node "
                                 f"(node {a0}); it cannot be honoured at this resolution")
                continue
            strokes[-1] = Stroke(strokes[-1].kind, i, a0, b0, (A, B))
            out.append(cross)
            wout.append(np.full(len(cross), float(w)))
            must.append(ends)
            must_w.append(np.full(len(ends), float(w)))
            if kind == Kind.CANNOT_LINK:
                cgroup.append(np.full(len(cross), i, np.int64))


def _link_nodes(rep, kind, r1, c1, r2, c2, radius_px: float, sigma_intensity: float):
    """One link on the nodes of ``rep``: its end nodes ``a0, b0``, their neighbourhoods ``A, B``
    (tuples; a cannot-link's kept disjoint), every node pair across (every node of ``A`` with
    every node of ``B``) and the pairs within each end (an end stands for its neighbourhood:
    one segment). Kept in ``rep``'s cache per link: a session maps every stroke again on
    every edit."""
    A = _end_nodes(rep, r1, c1, radius_px, sigma_intensity)
    B = _end_nodes(rep, r2, c2, radius_px, sigma_intensity)
    a0, b0 = rep.node_at(r1, c1), rep.node_at(r2, c2)
    none = np.zeros((0, 2), np.int64)
    if a0 == b0:
        return a0, b0, (), (), none, none
    if kind == Kind.CANNOT_LINK:  # neighbourhoods must not overlap
        overlap = np.intersect1d(A, B)
        A, B = np.setdiff1d(A, overlap), np.setdiff1d(B, overlap)
        A, B = np.union1d(A, [a0]), np.union1d(B, [b0])
    aa, bb = np.meshgrid(A, B, indexing="ij")
    cross = np.stack([aa.ravel(), bb.ravel()], 1).astype(np.int64)
    ends = []
    for E in (A, B):
        ii, jj = np.triu_indices(len(E), 1)
        ends.append(np.stack([E[ii], E[jj]], 1).astype(np.int64))
    return a0, b0, tuple(A.tolist()), tuple(B.tolist()), cross, np.concatenate(ends)


def map_strokes(constraints: Constraints, rep: Representation) -> NodeConstraints:
    """The user's constraints as :class:`Stroke` objects on the nodes of ``rep``, without the
    node pairs :func:`map_constraints` builds for the methods: what the constraint-respecting
    rounding reads (:mod:`core.constraint_step`), cheap even for 10^4 links."""
    strokes: list[Stroke] = []
    for kind, links in ((Kind.MUST_LINK, constraints.must_link), (Kind.CANNOT_LINK, constraints.cannot_link)):
        for i, (r1, c1, r2, c2, _) in enumerate(links):
            a, b = rep.node_at(r1, c1), rep.node_at(r2, c2)
            strokes.append(Stroke(kind, i, a, b, ((a,), (b,))))
    labels = np.full(rep.n_nodes, -1, np.int64)
    if constraints.blocks:
        index = {v: k for k, v in enumerate(sorted({b.label for b in constraints.blocks}))}
        for i, b in enumerate(constraints.blocks):
            nodes = rep.nodes_of_block(b)
            strokes.append(Stroke(Kind.BLOCK, i, nodes=tuple(nodes.tolist()), label=index[b.label]))
            labels[nodes] = index[b.label]
    strokes.sort(key=lambda s: constraints.order[s.kind][s.index])
    none = np.zeros((0, 2), np.int64)
    return NodeConstraints(rep.n_nodes, none, np.zeros(0), none, np.zeros(0), np.zeros(0, np.int64),
                           np.zeros(0, np.int64), labels, strokes=strokes)


def _joined(parts: list, empty_shape: tuple, dtype) -> np.ndarray:
    return np.concatenate(parts).astype(dtype, copy=False) if parts else np.zeros(empty_shape, dtype)


def _indices_of(table: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The rows of ``table`` (pairs, each sorted) that occur among ``rows`` (pairs in either
    order; self-pairs ignored), ascending."""
    if len(rows) == 0 or len(table) == 0:
        return np.zeros(0, np.int64)
    lo, hi = np.minimum(rows[:, 0], rows[:, 1]), np.maximum(rows[:, 0], rows[:, 1])
    keep = lo != hi
    span = table.max() + 1
    key = table[:, 0] * span + table[:, 1]
    rk = lo[keep] * span + hi[keep]
    if len(key) > 1 and not (key[1:] > key[:-1]).all():  # not _dedupe's sorted table
        return np.flatnonzero(np.isin(key, rk))
    at = np.minimum(np.searchsorted(key, rk), len(key) - 1)  # sorted and unique: a binary search
    found = np.zeros(len(key), bool)
    found[at[key[at] == rk]] = True
    return np.flatnonzero(found)


def _block_pairs(labels: np.ndarray, max_pairs: int, rng) -> tuple[np.ndarray, np.ndarray]:
    groups = [np.flatnonzero(labels == k) for k in range(int(labels.max()) + 1)]
    chain = [np.stack([g[:-1], g[1:]], 1) for g in groups if len(g) > 1]
    chain = np.vstack(chain) if chain else np.zeros((0, 2), np.int64)
    same = [np.array(np.triu_indices(len(g), 1)).T for g in groups]
    all_m = np.vstack([g[s] for g, s in zip(groups, same) if len(s)]) if any(len(s) for s in same) \
        else np.zeros((0, 2), np.int64)
    diff = []
    for a in range(len(groups)):
        for b in range(a + 1, len(groups)):
            if len(groups[a]) and len(groups[b]):
                aa, bb = np.meshgrid(groups[a], groups[b], indexing="ij")
                diff.append(np.stack([aa.ravel(), bb.ravel()], 1))
    all_c = np.vstack(diff) if diff else np.zeros((0, 2), np.int64)
    total = len(all_m) + len(all_c)
    if total <= max_pairs:
        return all_m, all_c
    budget = max(0, max_pairs - len(chain))
    share_m = int(round(budget * len(all_m) / total))
    pick_m = all_m[rng.choice(len(all_m), min(share_m, len(all_m)), replace=False)] if len(all_m) else all_m
    n_c = min(budget - len(pick_m), len(all_c))
    if len(all_c) and n_c <= 0:
        n_c = min(len(all_c), max(1, len(groups) - 1))
    pick_c = all_c[rng.choice(len(all_c), n_c, replace=False)] if len(all_c) else all_c
    return np.vstack([chain, pick_m]), pick_c


def warn_contradictions(nc: NodeConstraints, stacklevel: int = 3) -> None:
    if nc.contradictions:
        more = f" (and {len(nc.contradictions) - 1} more)" if len(nc.contradictions) > 1 else ""
        warnings.warn("contradictory constraints: " + nc.contradictions[0] + more,
                      ContradictoryConstraintsWarning, stacklevel=stacklevel)
