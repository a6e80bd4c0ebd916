"""Rounding that honours the user's constraints: our addition to every paper.

Every method ends in k-means (or a sign, or Yu & Shi's discretisation) on its embedding, and
that step knows nothing of the constraints: a must-link's two ends can land in two segments
even when the embedding moved them close. :func:`constrained_labels` rounds the same
embedding so that, whenever the constraints are consistent, both ends of every must-link
share a segment, the ends of every cannot-link do not, and every labelled block has a
segment of its own.

1. **Resolve.** The user's constraints (:class:`~core.graph.node_constraints.Stroke`) are
   taken newest first into a union-find of nodes: a must-link joins its two endpoint nodes,
   a block joins its nodes to its label, a cannot-link forbids its endpoints' groups from
   sharing a segment. A constraint that contradicts newer ones is not honoured (the newest
   stroke wins) and is reported. Then, at lower priority, each endpoint's neighbourhood
   (the nodes it stands for) joins its endpoint where that contradicts nothing.
2. **Colour.** Each group of joined nodes (a must-link component) gets one segment so that
   cannot-linked groups differ, at the least total squared distance of its nodes to the
   segment centroids of the embedding (an exact branch-and-bound search; the groups are
   few). When no such colouring exists with ``n_clusters`` segments, the oldest
   cannot-links are dropped until one does.
3. **Fill.** Every other node goes to the nearest centroid; centroids and colours are
   recomputed until the labels stop changing (COP-KMeans, Wagstaff et al. 2001, with
   must-link components as units and the colouring exact).
4. **Walk** (``rounding_prior`` > 0, the default 0.05). The constrained nodes keep their
   labels as seeds and every other node is labelled by a random walk with a prior (Grady
   2005) on the boundary graph of touching superpixels
   (:func:`core.graph.affinity.boundary_affinity`), the labels of step 3 as the prior: so the
   final labels follow image edges even when the method's own affinity (the papers'
   Gaussian by default) jumps across them. Chosen by ``bench/tune.py`` on every 10th training
   image (``bench/results/tuning.md``): after 10 rounds at K = 3 it raised csp from 0.789 to
   0.802 and spectral-learning from 0.748 to 0.791, and the best NoC@0.80 from 5.6 to 4.8.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..params import ParamSpec

ROUNDINGS = ("constrained", "paper")

ROUNDING_PARAMS = (
    ParamSpec("rounding", str, "constrained",
              "constrained: the final labels honour every consistent constraint (must-link ends "
              "together, cannot-link ends apart, each block label its own segment; the newest "
              "stroke wins a conflict); paper: each paper's own k-means / sign / Yu-Shi step.",
              choices=ROUNDINGS),
    ParamSpec("rounding_prior", float, 0.05,
              "Constrained rounding: nodes no constraint touches follow the method's embedding "
              "(0: nearest segment centroid) or, when positive, a random walk on the image graph "
              "from the constrained nodes with the embedding as a prior of this weight.",
              low=0.0, high=1e6),
)


@dataclass
class Resolution:
    """The user's constraints after conflicts are settled.

    Attributes
    ----------
    group : ndarray, shape (n,), int
        Group (must-link component) of each node, ``-1`` for a node no constraint touches.
    apart : list of (int, int)
        Pairs of groups a cannot-link (or two block labels) keeps apart.
    honoured : list of bool
        Per stroke (in the order of ``nc.strokes``): kept (True) or overruled by newer ones.
    """

    group: np.ndarray
    apart: list = field(default_factory=list)
    honoured: list = field(default_factory=list)
    apart_stroke: list = field(default_factory=list)

    @property
    def n_groups(self) -> int:
        return int(self.group.max()) + 1 if self.group.size and self.group.max() >= 0 else 0


class _Groups:
    """Union-find over nodes 0..n-1 and one virtual node per block label (n + label)."""

    def __init__(self, size: int):
        self.parent = np.arange(size)
        self.apart: list[tuple[int, int, int]] = []  # (node, node, stroke index)

    def find(self, x: int) -> int:
        p = self.parent
        root = x
        while p[root] != root:
            root = p[root]
        while p[x] != root:
            p[x], x = root, p[x]
        return root

    def kept_apart(self, ra: int, rb: int) -> bool:
        return any({self.find(x), self.find(y)} == {ra, rb} for x, y, _ in self.apart)

    def join(self, a: int, b: int) -> bool:
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return True
        if self.kept_apart(ra, rb):
            return False
        self.parent[ra] = rb
        return True

    def join_all(self, nodes, anchor: int) -> bool:
        """Join every node to ``anchor``, or nothing if any join contradicts."""
        saved = self.parent.copy()
        if all(self.join(int(x), anchor) for x in nodes):
            return True
        self.parent = saved
        return False

    def separate(self, a: int, b: int, stroke: int) -> bool:
        if a == b or self.find(a) == self.find(b):
            return False
        self.apart.append((a, b, stroke))
        return True


def resolve(nc, neighbourhoods: bool = True) -> Resolution:
    """Settle the user's constraints, newest first (step 1 of the module docstring).

    Parameters
    ----------
    nc : NodeConstraints
        With ``strokes`` (oldest first).
    neighbourhoods : bool
        Also join each endpoint's neighbourhood to it where that contradicts nothing.

    Returns
    -------
    Resolution
    """
    n = nc.n_nodes
    n_labels = max([s.label for s in nc.strokes if s.kind == "block"], default=-1) + 1
    g = _Groups(n + n_labels)
    ok = [False] * len(nc.strokes)
    seen_labels: list[int] = []
    for k in range(len(nc.strokes) - 1, -1, -1):
        s = nc.strokes[k]
        if s.kind == "must":
            ok[k] = g.join(s.a, s.b)
        elif s.kind == "cannot":
            ok[k] = g.separate(s.a, s.b, k)
        else:
            anchor = n + s.label
            if s.label not in seen_labels:
                if not all(g.separate(anchor, n + o, k) for o in seen_labels):
                    continue
                seen_labels.append(s.label)
            ok[k] = len(s.nodes) > 0 and g.join_all(s.nodes, anchor)
    if neighbourhoods:
        for k in range(len(nc.strokes) - 1, -1, -1):
            s = nc.strokes[k]
            if ok[k] and s.kind in ("must", "cannot"):
                for end, node in zip(s.ends, (s.a, s.b)):
                    for x in end:
                        g.join(int(x), node)
    touched = np.zeros(n + n_labels, bool)
    for k, s in enumerate(nc.strokes):
        if ok[k]:
            touched[[s.a, s.b] if s.kind != "block" else list(s.nodes)] = True
            if neighbourhoods and s.kind != "block":
                for end in s.ends:
                    touched[list(end)] = True
    roots = np.array([g.find(x) for x in range(n + n_labels)])
    touched |= np.isin(roots, roots[touched])
    uniq, inv = np.unique(roots[touched], return_inverse=True)
    group = np.full(n + n_labels, -1, np.int64)
    group[touched] = inv
    apart, apart_stroke = [], []
    for x, y, k in g.apart:
        if ok[k]:
            apart.append((int(group[g.find(x)]), int(group[g.find(y)])))
            apart_stroke.append(k)
    return Resolution(group[:n], apart, ok, apart_stroke)


def _best_colouring(cost: np.ndarray, apart: list, budget: int = 50_000):
    """Least-cost colouring of groups (rows of ``cost``) with colours (columns) such that
    groups in ``apart`` differ; ``None`` when none exists (or the search budget runs out
    before one is found)."""
    n_groups, k = cost.shape
    nbrs = [set() for _ in range(n_groups)]
    for a, b in apart:
        nbrs[a].add(b)
        nbrs[b].add(a)
    order = sorted(range(n_groups), key=lambda g: (-len(nbrs[g]), cost[g].min() - cost[g].max()))
    rest = np.cumsum([cost[g].min() for g in order][::-1])[::-1].tolist() + [0.0]
    best = [np.inf, None]
    colour = -np.ones(n_groups, np.int64)
    steps = [0]

    def search(i: int, total: float):
        steps[0] += 1
        if steps[0] > budget and best[1] is not None:
            return
        if i == n_groups:
            if total < best[0]:
                best[0], best[1] = total, colour.copy()
            return
        if total + rest[i] >= best[0]:
            return
        g = order[i]
        banned = {colour[h] for h in nbrs[g] if colour[h] >= 0}
        for c in np.argsort(cost[g], kind="stable"):
            if c not in banned:
                colour[g] = c
                search(i + 1, total + cost[g, c])
                colour[g] = -1

    search(0, 0.0)
    return best[1]


def _centroids(E: np.ndarray, labels: np.ndarray, k: int, fallback: np.ndarray) -> np.ndarray:
    mu = fallback.copy()
    for c in range(k):
        sel = labels == c
        if sel.any():
            mu[c] = E[sel].mean(0)
    return mu


def prior_walk(W, seeds: np.ndarray, seed_labels: np.ndarray, prior: np.ndarray, weight: float) -> np.ndarray:
    """Random walk with a prior (Grady, "Multilabel random walker image segmentation using
    prior models", CVPR 2005): labels of the free nodes minimising
    ``sum_ij W_ij ||x_i - x_j||^2 + weight sum_i d_i ||x_i - p_i||^2`` with ``x`` fixed to the
    one-hot seed labels on ``seeds``.

    Parameters
    ----------
    W : sparse matrix or ndarray, shape (n, n)
    seeds : ndarray, shape (s,), int
    seed_labels : ndarray, shape (s,), int
    prior : ndarray, shape (n, K)
        One row per node (rows of seeds are ignored).
    weight : float

    Returns
    -------
    labels : ndarray, shape (n,), int64
    """
    import scipy.sparse as sp
    import scipy.sparse.linalg as sla

    n, k = prior.shape
    W = sp.csr_matrix(W)
    d = np.asarray(W.sum(1)).ravel()
    free = np.ones(n, bool)
    free[seeds] = False
    u = np.flatnonzero(free)
    labels = np.empty(n, np.int64)
    labels[seeds] = seed_labels
    if len(u) == 0:
        return labels
    Y = np.zeros((len(seeds), k))
    Y[np.arange(len(seeds)), seed_labels] = 1.0
    du = d[u] * (1.0 + weight) + 1e-9 * max(d.max(), 1e-12)
    A = (sp.diags(du) - W[u][:, u]).tocsc()
    rhs = np.asarray(W[u][:, seeds] @ Y) + weight * d[u, None] * prior[u]
    labels[u] = np.argmax(sla.splu(A).solve(rhs), axis=1)
    return labels


def constrained_labels(embedding: np.ndarray, labels0: np.ndarray, nc, n_clusters: int,
                       max_iter: int = 20, graph=None, prior_weight: float = 0.0) -> tuple[np.ndarray, Resolution]:
    """Labels that honour the user's constraints, from a method's embedding.

    Parameters
    ----------
    embedding : ndarray, shape (n, p)
        What the method's own rounding clustered (e.g. NJW's row-normalised eigenvectors).
    labels0 : ndarray, shape (n,)
        The method's own labels: the starting centroids.
    nc : NodeConstraints
    n_clusters : int
    max_iter : int
        Rounds of (colour groups, assign the other nodes, move centroids).
    graph : sparse matrix or ndarray, shape (n, n), optional
        With ``prior_weight > 0``: the graph on which the free nodes are labelled by
        :func:`prior_walk` from the constrained nodes, the embedding's nearest-centroid
        labels as the prior.
    prior_weight : float

    Returns
    -------
    labels : ndarray, shape (n,), int64
    resolution : Resolution
        Which strokes are honoured (after dropping, if need be, the oldest cannot-links that
        made a colouring with ``n_clusters`` segments impossible).
    """
    E = np.asarray(embedding, float)
    if E.ndim == 1:
        E = E[:, None]
    res = resolve(nc)
    labels = np.asarray(labels0, np.int64).copy()
    if res.n_groups == 0:
        return labels, res
    spread = E[np.random.RandomState(0).permutation(len(E))[:n_clusters]]
    mu = _centroids(E, labels, n_clusters, spread)
    grouped = res.group >= 0
    members = [np.flatnonzero(res.group == g) for g in range(res.n_groups)]
    apart = list(res.apart)
    dropped: list[int] = []
    for _ in range(max_iter):
        d2 = ((E[:, None, :] - mu[None, :, :]) ** 2).sum(-1)  # (n, K)
        cost = np.array([d2[m].sum(0) for m in members])
        colour = _best_colouring(cost, apart)
        while colour is None:  # drop the oldest cannot-link until a colouring exists
            oldest = int(np.argmin(res.apart_stroke))
            dropped.append(res.apart_stroke.pop(oldest))
            apart.pop(oldest)
            colour = _best_colouring(cost, apart)
        new = np.argmin(d2, axis=1)
        new[grouped] = colour[res.group[grouped]]
        if np.array_equal(new, labels):
            break
        labels = new
        mu = _centroids(E, labels, n_clusters, mu)
    for k in dropped:
        res.honoured[k] = False
    res.apart = apart
    if graph is not None and prior_weight > 0:
        seeds = np.flatnonzero(grouped)
        onehot = np.zeros((len(E), n_clusters))
        onehot[np.arange(len(E)), labels] = 1.0
        labels = prior_walk(graph, seeds, labels[seeds], onehot, prior_weight)
    return labels, res
