"""Rounding that honours the user's constraints: our addition to every paper.

Every method ends in k-means (or a sign, or Yu & Shi's discretisation) on its embedding, and
that step knows nothing of the constraints: a must-link's two ends can land in two segments
even when the embedding moved them close. :func:`constrained_labels` rounds the method's
result so that, whenever the constraints are consistent, both ends of every must-link share
a segment, the ends of every cannot-link do not, and every labelled block has a segment of
its own.

1. **Resolve.** The user's constraints (:class:`~core.graph.node_constraints.Stroke`) are
   taken newest first into a union-find of nodes: a must-link joins its two endpoint nodes,
   a block joins its nodes to its label, a cannot-link forbids its endpoints' groups from
   sharing a segment. A constraint that contradicts newer ones is not honoured (the newest
   stroke wins) and is reported. Where two strokes end in one superpixel, the caller has
   split it first (:mod:`core.graph.refine`), so strokes a person can draw consistently are
   consistent here too. The nodes an endpoint stands for (its neighbourhood, which the
   methods receive as constraints) are not joined here: they are the method's evidence,
   not the user's word (joining them merged the groups of two segments of similar colour
   and cost up to 0.3 ARI on the tuning images, ``bench/results/tuning.md``).
2. **Colour.** Each group (a must-link component) gets one segment so that cannot-linked
   groups differ, at the least total cost: branch and bound over the groups, started from
   a greedy colouring (DSatur order) and exact unless its step budget (2000) runs out, when
   the best colouring found is kept; beyond 40 groups (a loaded file, not a person's
   strokes) the greedy colouring with local moves. With ``graph`` (``rounding_colouring='walk'``, the default) the cost is the energy
   of the random walk that step 4 runs: two groups joined by strong paths of the image graph
   (high effective conductance, from the Schur complement of its Laplacian onto the seeds)
   pay for different segments, two groups behind a strong edge do not; the method's
   embedding (squared distances of the group's nodes to its segment centroids) breaks ties
   with a small weight. ``'embedding'`` uses the embedding alone. Given the result shown
   before this edit (``previous``), a group also pays ``rounding_stability`` for each of its
   nodes that had another segment there: earlier strokes keep their segments unless the new
   constraints need otherwise. (Groups of one segment that no must-link joins, e.g. two
   strokes in the sky, are free to take different colours, and where the image graph joins
   two segments by a weak edge the walk's energy alone would sometimes swap whole groups
   after a new stroke, undoing what earlier strokes had fixed; on the 40 tuning images at
   K = 3 the term lowered every method's NoC@0.80, by up to 0.67, ``bench/results/tuning.md``.)
   When no colouring exists with ``n_clusters`` segments, the oldest cannot-links are
   dropped until one does.
3. **Fill.** Every other node goes to the nearest centroid of the embedding; centroids and
   colours are recomputed until the labels stop changing (COP-KMeans, Wagstaff et al.
   2001, with must-link components as units and the colouring exact). These are the
   method's labels made consistent with the strokes.
4. **Walk** (``rounding_prior`` > 0). The stroke-end nodes and block nodes keep their
   colours as seeds and every other node is labelled by a random walk with a prior (Grady,
   CVPR 2005) on the boundary graph of touching superpixels
   (:func:`core.graph.affinity.boundary_affinity`), so the final labels follow the image's
   edges. Every label's walk ends at each step with probability ``w / (1 + w)``,
   ``w = rounding_prior``; a segment strokes have reached gets its mass from its seeds only
   (the strokes and the edges decide where it is), a segment no stroke has reached yet gets
   it from step 3's labels (only the method knows where that one is). Behind a strong edge,
   far from every stroke, the method's segment therefore survives; near the strokes they
   win.

Chosen by the simulated-user benchmark on the train split (``bench/tune.py``,
``bench/results/tuning.md``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..params import ParamSpec

ROUNDINGS = ("constrained", "paper")
COLOURINGS = ("walk", "embedding")

ROUNDING_PARAMS = (
    ParamSpec("rounding", str, "constrained",
              "constrained: the final labels honour every consistent constraint (must-link ends "
              "together, cannot-link ends apart, each block label its own segment; the newest "
              "stroke wins a conflict); paper: each paper's own k-means / sign / Yu-Shi step.",
              choices=ROUNDINGS),
    ParamSpec("rounding_prior", float, 0.01,
              "Constrained rounding: the final labels come from a random walk on the image graph "
              "from the stroke ends; a segment no stroke has reached yet follows the method's "
              "labels, pulled in with this weight (0: no walk; every other node takes the "
              "nearest segment of the method's embedding).",
              low=0.0, high=1e6),
    ParamSpec("rounding_colouring", str, "walk",
              "Constrained rounding: how the groups of must-linked stroke ends get their "
              "segments: walk (the image graph's random-walk energy, the method's embedding "
              "breaking ties) or embedding (the method's embedding alone; also what walk "
              "means when rounding_prior is 0, as there is then no walk).",
              choices=COLOURINGS),
    ParamSpec("rounding_stability", float, 0.1,
              "Constrained rounding, given the result shown before this edit (segment's "
              "previous): what a group of must-linked stroke ends pays, per node, for leaving "
              "the segment its nodes had there (in units of a node's degree, as the walk's "
              "energy; with rounding_colouring=embedding or no walk, in the embedding's squared "
              "distances), so that earlier strokes keep their segments unless the new "
              "constraints need otherwise and a stroke does not recolour the image elsewhere "
              "(0: ignore the previous result).",
              low=0.0, high=1e6),
)

COLOURING_TIE_WEIGHT = 0.01  # the embedding's weight against the walk's energy in step 2
EXACT_GROUPS = 40  # groups coloured by the exact search; more: greedy with local moves


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


def resolve(nc, neighbourhoods: bool = False) -> Resolution:
    """Settle the user's constraints, newest first (step 1 of the module docstring).

    Parameters
    ----------
    nc : NodeConstraints
        With ``strokes`` (oldest first).
    neighbourhoods : bool
        Also join each endpoint's neighbourhood to it where that contradicts nothing, at lower
        priority than every stroke (not done by :func:`constrained_labels`: see step 1).

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


def _best_colouring(cost: np.ndarray, apart: list, pair: np.ndarray | None = None, budget: int = 2_000):
    """Least-cost colouring of groups (rows of ``cost``) with colours (columns) such that
    groups in ``apart`` differ; ``None`` when none is found.

    ``pair`` (groups x groups, symmetric, >= 0, optional) adds ``pair[g, h]`` for every two
    groups of different colours (a Potts energy). Up to :data:`EXACT_GROUPS` groups a
    branch and bound search, started from the greedy colouring (:func:`_greedy_colouring`)
    as the best so far; its bound adds, for every group not yet coloured, its cheapest
    colour given the groups coloured already (the pairwise terms among the uncoloured ones
    can only add to it), so it is exact unless ``budget`` search steps run out first, when
    the best colouring found so far is returned. Beyond that many groups, and whenever the
    search finds nothing, the greedy colouring.
    """
    n_groups, k = cost.shape
    nbrs = [set() for _ in range(n_groups)]
    for a, b in apart:
        nbrs[a].add(b)
        nbrs[b].add(a)
    greedy = _greedy_colouring(cost, nbrs, pair)
    if n_groups > EXACT_GROUPS:
        return greedy
    strength = np.zeros(n_groups) if pair is None else pair.sum(1)
    order = sorted(range(n_groups), key=lambda g: (-len(nbrs[g]), -strength[g], cost[g].min() - cost[g].max()))
    P = np.zeros((n_groups, n_groups)) if pair is None else pair
    best = [np.inf, None]
    if greedy is not None:
        best = [_colouring_cost(cost, P, greedy), greedy]
    colour = -np.ones(n_groups, np.int64)
    steps = [0]
    A = cost.astype(float).copy()  # A[g, c]: what colour c costs g given the groups coloured so far

    def paint(g: int, c: int, sign: float):
        A[:, :] += sign * P[:, g, None]
        A[:, c] -= sign * P[:, g]

    def search(i: int, total: float):
        steps[0] += 1
        if steps[0] > budget and (best[1] is not None or steps[0] > 20 * budget):
            return  # out of steps (none found within 20x the budget: taken as no colouring)
        if i == n_groups:
            if total < best[0]:
                best[0], best[1] = total, colour.copy()
            return
        if total + A[order[i:]].min(1).sum() >= best[0]:
            return
        g = order[i]
        banned = {colour[h] for h in nbrs[g] if colour[h] >= 0}
        step = A[g].copy()
        for c in np.argsort(step, kind="stable"):
            if c not in banned:
                colour[g] = c
                paint(g, c, 1.0)
                search(i + 1, total + step[c])
                paint(g, c, -1.0)
                colour[g] = -1

    search(0, 0.0)
    return best[1]


def _colouring_cost(cost: np.ndarray, P: np.ndarray, colour: np.ndarray) -> float:
    differ = colour[:, None] != colour[None, :]
    return float(cost[np.arange(len(colour)), colour].sum() + 0.5 * (P * differ).sum())


def _greedy_colouring(cost, nbrs, pair, sweeps: int = 5):
    """Each group in turn (the one whose cannot-linked neighbours already use the most
    colours first, as DSatur; exact with two colours on a colourable graph) takes its
    cheapest colour those neighbours leave free; then single-group moves lower the cost
    until none does (or ``sweeps`` passes). ``None`` when some group finds no free colour."""
    n_groups, k = cost.shape
    colour = -np.ones(n_groups, np.int64)
    strength = np.zeros(n_groups) if pair is None else pair.sum(1)

    def step(g):
        c = cost[g]
        if pair is not None:
            done = colour >= 0
            done[g] = False
            w = pair[g, done]
            c = c + w.sum() - np.bincount(colour[done], weights=w, minlength=k)
        banned = {colour[h] for h in nbrs[g] if colour[h] >= 0 and h != g}
        free = [x for x in np.argsort(c, kind="stable") if x not in banned]
        return free[0] if free else None

    order = []
    seen = [set() for _ in range(n_groups)]  # colours among each group's coloured neighbours
    left = set(range(n_groups))
    for _ in range(n_groups):
        g = max(left, key=lambda x: (len(seen[x]), len(nbrs[x]), strength[x], -x))
        c = step(g)
        if c is None:
            return None
        colour[g] = c
        left.discard(g)
        order.append(g)
        for h in nbrs[g]:
            seen[h].add(int(c))
    for _ in range(sweeps):
        moved = False
        for g in order:
            c = step(g)
            if c is not None and c != colour[g]:
                colour[g], moved = c, True
        if not moved:
            break
    return colour


def group_conductance(W, seeds: np.ndarray, seed_group: np.ndarray, n_groups: int) -> np.ndarray:
    """Effective conductance between groups of seed nodes through a graph.

    The Schur complement ``S = L_ss - L_su L_uu^-1 L_us`` of the Laplacian ``L = D - W``
    onto the seeds is the Laplacian of the graph the random walker sees between them: the
    walk's energy for seed labels ``y`` is ``sum_{i<j} -S_ij [y_i != y_j]``. Summed over
    the seeds of each pair of groups, ``-S`` is what two groups pay for different labels.

    Parameters
    ----------
    W : sparse matrix or ndarray, shape (n, n)
    seeds : ndarray, shape (s,), int
    seed_group : ndarray, shape (s,), int
        Group 0..n_groups-1 of each seed.
    n_groups : int

    Returns
    -------
    C : ndarray, shape (n_groups, n_groups)
        Symmetric, non-negative, zero diagonal.
    """
    import scipy.sparse as sp
    import scipy.sparse.linalg as sla

    W = sp.csr_matrix(W)
    n = W.shape[0]
    d = np.asarray(W.sum(1)).ravel()
    free = np.ones(n, bool)
    free[seeds] = False
    u = np.flatnonzero(free)
    L = (sp.diags(d) - W).tocsr()
    # only group sums are needed: M^T S M = M^T L_ss M - (L_us M)^T L_uu^-1 (L_us M), one
    # right-hand side per group instead of one per seed
    M = sp.csr_matrix((np.ones(len(seeds)), (np.arange(len(seeds)), seed_group)), shape=(len(seeds), n_groups))
    S = (M.T @ L[seeds][:, seeds] @ M).toarray()
    if len(u):
        Luu = (L[u][:, u] + sp.diags(np.full(len(u), 1e-9 * max(d.max(), 1e-12)))).tocsc()
        LusM = (L[u][:, seeds] @ M).toarray()
        S -= LusM.T @ sla.splu(Luu).solve(LusM)
    C = -S
    np.fill_diagonal(C, 0.0)
    return np.maximum((C + C.T) / 2.0, 0.0)


def _follow_numbering(labels: np.ndarray, previous: np.ndarray, k: int) -> np.ndarray:
    """``labels`` renumbered so that each segment takes the number of the previous result's
    segment it overlaps most (Hungarian on the overlap of the nodes with a previous
    segment), so that the method's centroids and the previous segments speak of the same
    segment by the same number."""
    from scipy.optimize import linear_sum_assignment

    known = (previous >= 0) & (previous < k) & (labels >= 0) & (labels < k)
    overlap = np.zeros((k, k))
    np.add.at(overlap, (labels[known], previous[known]), 1.0)
    rows, cols = linear_sum_assignment(-overlap)
    perm = np.arange(k)
    perm[rows] = cols
    out = labels.copy()
    ok = (labels >= 0) & (labels < k)
    out[ok] = perm[labels[ok]]
    return out


def _centroids(E: np.ndarray, labels: np.ndarray, k: int, fallback: np.ndarray) -> np.ndarray:
    mu = fallback.copy()
    for c in range(k):
        sel = labels == c
        if sel.any():
            mu[c] = E[sel].mean(0)
    return mu


def prior_walk(W, seeds: np.ndarray, seed_labels: np.ndarray, prior: np.ndarray, weight) -> np.ndarray:
    """Random walk with a prior (Grady, "Multilabel random walker image segmentation using
    prior models", CVPR 2005): labels of the free nodes minimising, per label ``l``,
    ``sum_ij W_ij (x_il - x_jl)^2 + weight_l sum_i d_i (x_il - p_il)^2`` with ``x`` fixed to
    the one-hot seed labels on ``seeds``; each node takes its largest ``x_il``.

    Parameters
    ----------
    W : sparse matrix or ndarray, shape (n, n)
    seeds : ndarray, shape (s,), int
    seed_labels : ndarray, shape (s,), int
    prior : ndarray, shape (n, K)
        One row per node (rows of seeds are ignored).
    weight : float or ndarray, shape (K,)
        The prior's weight, one for all labels or one per label (0: the harmonic labelling
        of Grady 2006 for that label).

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
    weights = np.broadcast_to(np.asarray(weight, float), (k,))
    Wuu, Wus = W[u][:, u], W[u][:, seeds]
    X = np.empty((len(u), k))
    for wt in np.unique(weights):  # one factorisation per distinct weight (at most two here)
        cols = np.flatnonzero(weights == wt)
        du = d[u] * (1.0 + wt) + 1e-9 * max(d.max(), 1e-12)
        A = (sp.diags(du) - Wuu).tocsc()
        rhs = np.asarray(Wus @ Y[:, cols]) + wt * d[u, None] * prior[u][:, cols]
        X[:, cols] = sla.splu(A).solve(rhs)
    labels[u] = np.argmax(X, axis=1)
    return labels


def _seed_nodes(nc, res: Resolution) -> np.ndarray:
    """The stroke-end and block nodes of the honoured strokes (sorted, distinct)."""
    nodes = set()
    for k, s in enumerate(nc.strokes):
        if res.honoured[k]:
            nodes.update([s.a, s.b] if s.kind != "block" else list(s.nodes))
    return np.array(sorted(x for x in nodes if x >= 0 and res.group[x] >= 0), np.int64)


def constrained_labels(embedding: np.ndarray, labels0: np.ndarray, nc, n_clusters: int,
                       max_iter: int = 20, graph=None, prior_weight: float = 0.0,
                       colouring: str = "walk", previous: np.ndarray | None = None,
                       stability: float = 0.0) -> tuple[np.ndarray, Resolution]:
    """Labels that honour the user's constraints, from a method's result (module docstring).

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
    if not np.isfinite(E).all():
        from ..errors import ConvergenceError

        raise ConvergenceError("the constrained rounding got a non-finite embedding (the method's "
                               "eigenvectors hold NaN or infinity); try rounding='paper' or another method")
    res = resolve(nc)
    labels = np.asarray(labels0, np.int64).copy()
    if res.n_groups == 0:
        return labels, res
    walk = graph is not None and prior_weight > 0
    seeds = _seed_nodes(nc, res) if walk else np.flatnonzero(res.group >= 0)
    pair, tie = None, 1.0
    if walk and colouring == "walk":
        pair = group_conductance(graph, seeds, res.group[seeds], res.n_groups)
        pair /= max(float(np.median(np.asarray(graph.sum(1)))), 1e-12)  # in units of a node's degree
        tie = COLOURING_TIE_WEIGHT
    keep = 0.0  # the stability term: members whose previous segment is not the colour
    if previous is not None and stability > 0:
        prev = np.asarray(previous, np.int64)
        labels = _follow_numbering(labels, prev, n_clusters)
        had = np.stack([(prev == c) for c in range(n_clusters)], 1)  # (n, K)
        known = had.any(1)
        keep = stability * np.array([(known[m][:, None] & ~had[m]).sum(0) for m in
                                     [np.flatnonzero(res.group == g) for g in range(res.n_groups)]], float)
    spread = E[np.random.RandomState(0).permutation(len(E))[:n_clusters]]
    mu = _centroids(E, labels, n_clusters, spread)
    grouped = res.group >= 0
    members = [np.flatnonzero(res.group == g) for g in range(res.n_groups)]
    apart = list(res.apart)
    dropped: list[int] = []
    for _ in range(max_iter):
        d2 = ((E[:, None, :] - mu[None, :, :]) ** 2).sum(-1)  # (n, K)
        cost = tie * np.array([d2[m].sum(0) for m in members]) + keep
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
    if walk:
        seeds = seeds[res.group[seeds] >= 0]
        prior = np.zeros((len(E), n_clusters))
        prior[np.arange(len(E)), labels] = 1.0
        prior[:, np.unique(labels[seeds])] = 0.0  # reached segments: mass from their seeds only
        labels = prior_walk(graph, seeds, labels[seeds], prior, prior_weight)
    return labels, res

