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
2. **Colour.** With ``rounding_colouring='ncut'`` (:func:`_ncut_rounding`) the groups
   (must-link components) are put into segments by the normalised cut (Shi & Malik) between
   their territories on the image graph: the effective conductance between groups (the
   Schur complement of the graph Laplacian onto the seeds) over the volume of the nodes
   each group's walk reaches first (:func:`group_conductance`, :func:`ncut_colouring`),
   plus ``rounding_looks`` times the scatter of what the groups look like (colour
   histograms of the nodes each stroke end stands for and of each territory,
   :func:`territory_looks`). Cannot-linked groups differ; as many segments are used as
   there are groups, up to K. Unlike the
   cut alone (the random walk's energy), it does not pay to give a cannot-link's end a
   segment of its own as a blob, and two must-links in one region of one look go together
   even when the graph between them is weak. Exact by enumeration for a person's strokes
   (up to :data:`NCUT_EXACT` colourings), local moves beyond. The result on screen
   (``previous``) only numbers the segments (``rounding_stability`` in the Hungarian
   numbering), so the partition never depends on the order of the strokes.
   ``'walk'`` colours by the walk's energy alone (a Potts energy,
   branch and bound from a DSatur greedy colouring, exact up to 40 groups unless 2000
   steps run out), where ``rounding_stability`` does move groups: a group pays it for each
   of its nodes that had another segment on screen. ``'auto'`` (the default,
   :func:`_auto_rounding`) runs both to the end (steps 2-4) and keeps the labels whose
   segments have the lower normalised cut on the boundary graph; while no cannot-link is
   drawn, a result with a sliver segment no stroke is in loses. ``'walk'`` serves strokes
   placed where the result is wrong (the error-centre user), ``'ncut'`` strokes drawn
   regions first; the choice was measured on the training images
   (``bench/results/tuning.md``). ``'embedding'`` colours by the method's
   embedding alone. When no colouring exists with ``n_clusters`` segments, the oldest
   cannot-links are dropped until one does.
3. **Fill.** With ``'ncut'``: while the strokes have not reached every segment, the method's
   own segments seed the walk (the half of each segment's nodes its embedding is surest of):
   one holding strokes of one segment seeds it, one holding none a segment no stroke took.
   Must-links alone therefore never empty a segment, and what the strokes do not decide
   follows the chosen method. With ``'walk'`` / ``'embedding'``: every other node goes to
   the nearest centroid of the embedding; centroids and colours are recomputed until the
   labels stop changing (COP-KMeans, Wagstaff et al. 2001, with must-link components as
   units and the colouring exact).
4. **Walk** (``rounding_prior`` > 0). The stroke-end nodes and block nodes (and step 3's
   seeds) keep their colours and every other node is labelled by a random walk with a prior
   (Grady, CVPR 2005) on the boundary graph of touching superpixels
   (:func:`core.graph.affinity.boundary_affinity`), so the final labels follow the image's
   edges. Every label's walk ends at each step with probability ``w / (1 + w)``,
   ``w = rounding_prior``; a segment strokes have reached gets its mass from its seeds only
   (and, with ``rounding_appearance`` > 0, from how much a node looks like its strokes'
   surroundings), a segment no stroke has reached yet from the method's labels.

Chosen by the simulated-user benchmark on the train split (``bench/tune.py``,
``bench/results/tuning.md``).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ..params import ParamSpec

ROUNDINGS = ("constrained", "paper")
COLOURINGS = ("auto", "ncut", "walk", "embedding")

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
    ParamSpec("rounding_colouring", str, "auto",
              "Constrained rounding: how the groups of must-linked stroke ends get their "
              "segments: auto (both walk and ncut, keeping the labels of lower normalised "
              "cut on the image graph), walk (the image graph's random-walk energy, the cut alone; best for "
              "strokes placed where the result is wrong), ncut (the normalised cut between the "
              "groups' territories plus how they look: no blob cannot-links, no collapse, the "
              "same result whatever the stroke order; best for strokes drawn regions first), "
              "the method's embedding breaking ties in both; or embedding (the method's "
              "embedding alone; also what ncut and walk mean when rounding_prior is 0, as "
              "there is then no walk).",
              choices=COLOURINGS),
    ParamSpec("rounding_looks", float, 2.0,
              "Constrained rounding with rounding_colouring=ncut: the weight of what the "
              "stroke groups look like (colour histograms of the nodes near their ends and of "
              "their territories) "
              "against the normalised cut when groups of stroke ends are put in segments "
              "(0: the graph alone).",
              low=0.0, high=1e6),
    ParamSpec("rounding_appearance", float, 0.0,
              "Constrained rounding with rounding_colouring=ncut: the random walk's pull "
              "towards what each stroked segment looks like (the colour histogram of its "
              "groups' territories; Grady's walk with a prior model), so a region of one look "
              "comes along with a stroke inside it (0: the image graph's edges alone).",
              low=0.0, high=1e6),
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
NCUT_TIE_WEIGHT = 1e-3  # the embedding's weight against the normalised cut in step 2
SURE_SHARE = 0.5  # step 4: the share of an unreached segment's nodes, most certain first, that seed it
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


def group_conductance(W, seeds: np.ndarray, seed_group: np.ndarray, n_groups: int,
                      volumes: bool = False):
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

    volumes : bool
        Also return each group's territory volume: the degrees summed over its seeds and the
        free nodes whose walk reaches that group first most probably (the harmonic
        potentials ``X = -L_uu^-1 L_us M`` of the same solve).

    Returns
    -------
    C : ndarray, shape (n_groups, n_groups)
        Symmetric, non-negative, zero diagonal.
    vol : ndarray, shape (n_groups,)
        With ``volumes``.
    territory : ndarray, shape (n,), int
        With ``volumes``: each node's group (its own for a seed).
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
    territory = np.full(n, -1, np.int64)
    territory[seeds] = seed_group
    if len(u):
        Luu = (L[u][:, u] + sp.diags(np.full(len(u), 1e-9 * max(d.max(), 1e-12)))).tocsc()
        LusM = (L[u][:, seeds] @ M).toarray()
        X = sla.splu(Luu).solve(LusM)
        S -= LusM.T @ X
        if n_groups:
            territory[u] = np.argmax(-X, axis=1)
    C = -S
    np.fill_diagonal(C, 0.0)
    C = np.maximum((C + C.T) / 2.0, 0.0)
    if volumes:
        return C, np.bincount(territory, weights=d, minlength=n_groups), territory
    return C


NCUT_EXACT = 200_000  # colourings enumerated exactly (K^groups); more: greedy with local moves


def ncut_colouring(C: np.ndarray, vol: np.ndarray, apart: list, k: int, unary: np.ndarray | None = None,
                   start: np.ndarray | None = None, looks: np.ndarray | None = None,
                   looks_weight: float = 0.0, min_colours: int | None = None) -> np.ndarray | None:
    """Colouring of groups into ``k`` colours minimising the normalised cut between colours.

    ``sum_c cut(c) / vol(c) + looks_weight * A``, where ``cut(c)`` is the effective
    conductance (``C``, :func:`group_conductance`) between the groups of colour ``c`` and the
    others and ``vol(c)`` the volume of their territories: Shi & Malik's normalised cut on
    the graph the random walker sees between the groups. Unlike the Potts energy (the cut
    alone), it does not pay to give a single stroke end a colour of its own (a blob): a
    group's small territory makes its cut expensive. ``A`` (with ``looks``, shape
    (n_groups, B), what each group looks like, :func:`territory_looks`) is the within-colour
    scatter of the looks, every group weighing alike (k-means on the groups): groups that
    look alike pay for different colours, so two strokes in one region of fur or water, far
    apart on the graph, share a segment. Cannot-linked groups (``apart``) differ, and
    ``min(k, n_groups)`` colours are used (``min_colours`` lowers that; an empty colour would
    cost nothing). ``unary`` (n_groups, k) only numbers the colours of the partition found
    (:func:`_cheapest_numbering`); it does not choose the partition.

    Exact by enumeration up to :data:`NCUT_EXACT` colourings (colour symmetry removed: the
    first group takes colour 0, and so on), else single-group moves from ``start`` (or the
    greedy Potts colouring) until none lowers the objective. ``None`` when no colouring
    keeps every ``apart`` pair apart.
    """
    n = len(vol)
    U = np.zeros((n, k)) if unary is None else np.asarray(unary, float)
    need = min(k, n) if min_colours is None else min(min_colours, k, n)
    vol = np.maximum(np.asarray(vol, float), 1e-12)
    ap = np.array(apart, np.int64).reshape(-1, 2)
    if looks is not None and looks_weight > 0:
        w = np.full(n, 1.0 / n)  # every group counts alike: a small region's strokes as much as a large one's
        total = float((w * (looks ** 2).sum(1)).sum())

    def objective(Z):  # Z: (m, n) colourings
        onehot = Z[:, :, None] == np.arange(k)[None, None, :]  # (m, n, k)
        v = np.einsum("mnk,n->mk", onehot, vol)
        within = np.einsum("mnk,nh,mhk->mk", onehot, C, onehot)
        assoc = np.einsum("mnk,n->mk", onehot, C.sum(1))
        cut = assoc - within
        val = np.where(v > 0, cut / np.maximum(v, 1e-12), 0.0).sum(1)
        if looks is not None and looks_weight > 0:
            oh = onehot.astype(float)
            Wc = np.einsum("mnk,n->mk", oh, w)
            Sc = np.einsum("mnk,n,nb->mkb", oh, w, looks)
            val = val + looks_weight * (total - ((Sc ** 2).sum(2) / np.maximum(Wc, 1e-12)).sum(1))
        used = onehot.any(1).sum(1)
        bad = used < need
        if len(ap):
            bad |= (Z[:, ap[:, 0]] == Z[:, ap[:, 1]]).any(1)
        return np.where(bad, np.inf, val)

    if n == 0:
        return np.zeros(0, np.int64)
    if k ** n <= NCUT_EXACT:
        best_val, best = np.inf, None
        for Z in _canonical_colourings(n, k):
            val = objective(Z)
            j = int(np.argmin(val))
            if val[j] < best_val:
                best_val, best = val[j], Z[j].copy()
        return None if best is None else _cheapest_numbering(best, U)
    nbrs = [set() for _ in range(n)]
    for a, b in apart:
        nbrs[a].add(b)
        nbrs[b].add(a)
    colour = start if start is not None else _greedy_colouring(U, nbrs, C)
    if colour is None:
        return None
    colour = np.asarray(colour, np.int64).copy()
    cur = objective(colour[None])[0]
    for _ in range(20):
        moved = False
        for g in range(n):
            trial = np.repeat(colour[None], k, 0)
            trial[:, g] = np.arange(k)
            val = objective(trial)
            c = int(np.argmin(val))
            if val[c] < cur - 1e-12:
                colour, cur, moved = trial[c], val[c], True
        if not moved:
            break
    return _cheapest_numbering(colour, U) if np.isfinite(cur) else None


def _cheapest_numbering(colour: np.ndarray, U: np.ndarray) -> np.ndarray:
    """``colour`` with its colours renamed to minimise ``sum_g U[g, colour_g]`` (Hungarian on
    the colours): the partition is the normalised cut's, the numbers the unary terms' (the
    embedding's ties and the stability term: segments keep their numbers from the result
    on screen without that result changing which groups go together)."""
    from scipy.optimize import linear_sum_assignment

    k = U.shape[1]
    table = np.zeros((k, k))
    np.add.at(table, colour, U)
    rows, cols = linear_sum_assignment(table)
    perm = np.arange(k)
    perm[rows] = cols
    return perm[colour]


LOOK_BINS = 12  # colours of the codebook a territory's histogram counts


def territory_looks(codes, territory: np.ndarray, n_groups: int) -> np.ndarray:
    """What each group's nodes look like: the square root of their colour histogram.

    Parameters
    ----------
    codes : tuple (code, sizes)
        :func:`colour_codes` of the image's nodes.
    territory : ndarray, shape (n,), int
        Group of each node (-1: none), e.g. :func:`group_conductance`'s territories.
    n_groups : int

    Returns
    -------
    ndarray, shape (n_groups, LOOK_BINS)
        Rows of unit norm: the square roots of the pixel-weighted histograms of the node
        colours over a codebook of :data:`LOOK_BINS` colours (k-means on the image's node
        colours, seeded), so squared distances between rows are twice the squared
        Hellinger distances of the histograms.
    """
    code, sizes = codes
    H = _histograms(code, sizes, territory, n_groups)
    return np.sqrt(H / np.maximum(H.sum(1, keepdims=True), 1e-12))


def colour_codes(appearance) -> tuple[np.ndarray, np.ndarray]:
    """Each node's entry in a codebook of :data:`LOOK_BINS` colours (k-means on the image's
    node colours, seeded), and the node sizes: ``(code (n,), sizes (n,))``. (Soft entries,
    Gaussian weights of the distances to the codes, were measured and lost 0.07 ARI on the
    regions-first user, ``bench/results/tuning.md``.)"""
    from scipy.cluster.vq import kmeans2

    colors, sizes = (np.asarray(a, float) for a in appearance)
    bins = min(LOOK_BINS, len(colors))
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an empty code ("One of the clusters is empty") is harmless here
        _, code = kmeans2(colors, bins, minit="++", seed=0)
    return code, sizes


def _histograms(code, sizes, owner, n_owners: int) -> np.ndarray:
    """Pixel counts per (owner, code), owners ``-1`` left out: shape (n_owners, LOOK_BINS)."""
    H = np.zeros((n_owners, LOOK_BINS))
    ok = owner >= 0
    np.add.at(H, (owner[ok], code[ok]), sizes[ok])
    return H


def appearance_prior(codes, owner: np.ndarray, k: int) -> np.ndarray:
    """How much each node looks like each segment: ``P[i, c]`` is the share of segment
    ``c``'s pixels (its nodes in ``owner``) in node ``i``'s colour of the codebook, over
    the segments (rows sum to 1; a colour no segment has: uniform).

    Parameters
    ----------
    codes : tuple (code, sizes)
        :func:`colour_codes` of the image's nodes.
    owner : ndarray, shape (n,), int
        Segment of each node (-1: none).
    k : int

    Returns
    -------
    ndarray, shape (n, k)
    """
    code, sizes = codes
    H = _histograms(code, sizes, owner, k)
    H /= np.maximum(H.sum(1, keepdims=True), 1e-12)  # each segment's colour distribution
    P = H[:, code].T + 1e-3
    return P / P.sum(1, keepdims=True)


def _canonical_colourings(n: int, k: int, chunk: int = 20_000):
    """Every colouring of ``n`` groups with at most ``k`` colours, up to renaming the colours
    (group 0 takes colour 0, each group at most one more than the largest before it), in
    chunks of at most ``chunk`` rows."""
    rows = np.zeros((1, 1), np.int64)
    for _ in range(1, n):
        top = rows.max(1)
        nxt = [np.column_stack([rows[c <= top + 1], np.full((c <= top + 1).sum(), c)]) for c in range(k)]
        rows = np.vstack([x for x in nxt if len(x)])
    for i in range(0, len(rows), chunk):
        yield rows[i:i + chunk]


def overruled_nodes(method_labels: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Where the constraint step decided otherwise than the method: nodes whose final
    segment is not the one their method segment became (each method segment matched to the
    final segment it overlaps most, Hungarian on the node counts), shape (n,), bool."""
    from scipy.optimize import linear_sum_assignment

    a, b = np.asarray(method_labels, np.int64), np.asarray(labels, np.int64)
    k = int(max(a.max(initial=0), b.max(initial=0))) + 1
    overlap = np.zeros((k, k))
    np.add.at(overlap, (a, b), 1.0)
    rows, cols = linear_sum_assignment(-overlap)
    to = np.arange(k)
    to[rows] = cols
    return to[a] != b


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
                       stability: float = 0.0, appearance=None,
                       looks_weight: float = 0.0, appearance_weight: float = 0.0) -> tuple[np.ndarray, Resolution]:
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
    if colouring == "auto":
        return _auto_rounding(embedding, labels0, nc, n_clusters, max_iter=max_iter, graph=graph,
                              prior_weight=prior_weight, previous=previous, stability=stability,
                              appearance=appearance, looks_weight=looks_weight,
                              appearance_weight=appearance_weight)
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
    elif walk and colouring == "ncut":
        tie = NCUT_TIE_WEIGHT
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
    if walk and colouring == "ncut":
        d2 = ((E[:, None, :] - mu[None, :, :]) ** 2).sum(-1)
        unary = tie * np.array([d2[m].sum(0) for m in members]) + keep
        labels = _ncut_rounding(nc, E, labels, mu, res, seeds, graph, n_clusters, unary, appearance,
                                looks_weight, prior_weight, appearance_weight)
        return labels, res
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


UNREACHED_MIN_SHARE = 0.03  # 'auto': an unstroked segment smaller than this (no cannot-link yet) is a collapse


def labels_ncut(W, labels: np.ndarray, k: int) -> float:
    """Shi & Malik's normalised cut of a labelling on the graph ``W`` (shape (n, n)):
    ``sum_c cut(c) / vol(c)`` over the ``k`` segments, infinite when one is empty."""
    W = sp.csr_matrix(W)
    d = np.asarray(W.sum(1)).ravel()
    Y = sp.csr_matrix((np.ones(len(labels)), (np.arange(len(labels)), labels)), shape=(len(labels), k))
    vol = Y.T @ d
    if (vol <= 0).any():
        return np.inf
    within = np.asarray((Y.T @ W @ Y).diagonal()).ravel()
    return float(((vol - within) / vol).sum())


def _collapsed(labels: np.ndarray, stroked: np.ndarray, k: int) -> bool:
    """A segment under :data:`UNREACHED_MIN_SHARE` of the nodes that no stroke node is in."""
    share = np.bincount(labels, minlength=k) / len(labels)
    held = np.bincount(labels[stroked], minlength=k) > 0
    return bool(((share < UNREACHED_MIN_SHARE) & ~held).any())


def _auto_rounding(embedding, labels0, nc, n_clusters: int, graph=None, **kw):
    """``colouring='auto'``: both colourings, and the labels of lower normalised cut.

    The walk's colouring (:func:`constrained_labels` with ``'walk'``) follows the result on
    screen and the method's embedding; the normalised-cut colouring (:func:`_ncut_rounding`)
    follows the territories and looks of the stroked regions. Each gives final labels; the
    one kept is the one whose segments have the lower normalised cut
    ``sum_c cut(c) / vol(c)`` on the boundary graph (:func:`labels_ncut`, the criterion the
    spectral methods relax), so a blob around a cannot-link's end (a small ``vol`` with a
    long border) loses to a region-level result. While no cannot-link is drawn, a result
    with a segment of under :data:`UNREACHED_MIN_SHARE` of the nodes and no stroke in it
    loses too (must-links alone never shrink a segment to a sliver). Ties go to ``'walk'``.
    Without a graph (no walk) this is ``'walk'``.
    """
    tried = [constrained_labels(embedding, labels0, nc, n_clusters, graph=graph, colouring=c, **kw)
             for c in (("walk", "ncut") if graph is not None and kw.get("prior_weight", 0) > 0 else ("walk",))]
    if len(tried) == 1:
        return tried[0]
    res = resolve(nc)
    stroked = res.group >= 0
    scores = [(not res.apart and _collapsed(lab, stroked, n_clusters), labels_ncut(graph, lab, n_clusters))
              for lab, _ in tried]
    return tried[1] if scores[1] < scores[0] else tried[0]


def _look_samples(nc, res: Resolution) -> np.ndarray:
    """The nodes that show what each group looks like: its stroke-end nodes and the
    neighbourhoods they stand for (:attr:`Stroke.ends`: nodes near the end of a similar
    colour), a block's nodes; shape (n,), the group of each such node, -1 elsewhere (a node
    near two groups' ends goes to the newest stroke's)."""
    owner = np.full(nc.n_nodes, -1, np.int64)
    for k, s in enumerate(nc.strokes):
        if not res.honoured[k]:
            continue
        if s.kind == "block":
            nodes = np.asarray(s.nodes, np.int64)
            owner[nodes] = res.group[nodes]
            continue
        for node, end in zip((s.a, s.b), s.ends):
            g = res.group[node]
            if g >= 0:
                owner[np.asarray(tuple(end) + (node,), np.int64)] = g
    return owner


def _ncut_rounding(nc, E, labels, mu, res: Resolution, seeds, graph, k: int, unary, appearance,
                   looks_weight: float, prior_weight: float, appearance_weight: float = 0.0) -> np.ndarray:
    """Steps 2-4 with ``colouring='ncut'``.

    2. The groups of stroke ends are coloured by :func:`ncut_colouring`: the normalised cut
       between their territories on the image graph (:func:`group_conductance`) plus
       ``looks_weight`` times how differently their strokes' surroundings look
       (:func:`_look_samples`) and their territories look (:func:`territory_looks`, the
       two histograms side by side), cannot-linked groups apart, and as many segments used
       as there are groups, up to K (K asked and K groups drawn: K segments).
    3. While the strokes have not reached every colour, the method's own segments seed the
       walk (the nodes it is surest of, :func:`_sure_nodes`): a segment holding stroke nodes
       of one colour seeds that colour, a segment holding none a colour no stroke took, one
       holding several colours nothing. So must-links alone never empty a segment, and
       what the strokes do not decide follows the chosen method.
    4. The walk with a prior (:func:`prior_walk`) from those seeds; with
       ``appearance_weight`` > 0 the reached colours are also pulled towards the colour
       histogram of their strokes' surroundings (:func:`appearance_prior`).

    The previous result only numbers the colours (through ``unary``): which groups go
    together is the same whatever was on screen, so a result never depends on the order
    of the strokes that led to it.

    Parameters
    ----------
    nc : NodeConstraints
    E : ndarray, shape (n, p)
        The method's embedding.
    labels : ndarray, shape (n,), int
        The method's labels, numbered to follow the result on screen.
    mu : ndarray, shape (k, p)
        Their centroids in ``E``.
    res : Resolution
        Updated in place when cannot-links must be dropped.
    seeds : ndarray, int
        The stroke-end and block nodes.
    graph : sparse matrix, shape (n, n)
    k : int
    unary : ndarray, shape (n_groups, k)
        What each colour costs each group (embedding ties, stability): numbers only.
    appearance : tuple (colors, sizes) or None
    looks_weight, prior_weight, appearance_weight : float

    Returns
    -------
    labels : ndarray, shape (n,), int64
    """
    n_groups = res.n_groups
    grouped = res.group >= 0
    user = seeds[res.group[seeds] >= 0]
    C, vol, territory = group_conductance(graph, user, res.group[user], n_groups, volumes=True)
    sample = _look_samples(nc, res)
    looks = None
    codes = colour_codes(appearance) if appearance is not None else None  # one codebook per call
    if codes is not None:  # the strokes' surroundings and the territories, equally
        looks = np.hstack([territory_looks(codes, sample, n_groups),
                           territory_looks(codes, territory, n_groups)]) / np.sqrt(2)
    apart = list(res.apart)

    def colouring():
        return ncut_colouring(C, vol, apart, k, unary, looks=looks, looks_weight=looks_weight)

    colour = colouring()
    while colour is None and apart:  # drop the oldest cannot-link until a colouring exists
        oldest = int(np.argmin(res.apart_stroke))
        res.honoured[res.apart_stroke.pop(oldest)] = False
        apart.pop(oldest)
        colour = colouring()
    res.apart = apart
    sure = [_sure_nodes(E, labels, mu, c, grouped) for c in range(k)]
    vids = [c for c in range(k) if len(sure[c])]
    user_labels = colour[res.group[user]]
    reached = sorted(set(user_labels.tolist()))
    free = [c for c in range(k) if c not in reached]
    as_colour = np.full(k, -1)
    if free and vids:
        from scipy.optimize import linear_sum_assignment

        node_colour = np.full(len(labels), -1)
        node_colour[grouped] = colour[res.group[grouped]]
        empty = []
        for c in vids:
            held = np.unique(node_colour[(labels == c) & grouped])
            if len(held) == 1:
                as_colour[c] = held[0]
            elif len(held) == 0:
                empty.append(c)
        if empty:
            table = np.array([[0.0 if c == f else 1.0 for f in free] for c in empty])
            rows, cols = linear_sum_assignment(table)
            for r_, c_ in zip(rows, cols):
                as_colour[empty[r_]] = free[c_]
    walk_seeds, walk_labels = [user], [user_labels]
    for c in vids:
        if as_colour[c] >= 0:
            fresh = sure[c][~np.isin(sure[c], user)]
            walk_seeds.append(fresh)
            walk_labels.append(np.full(len(fresh), as_colour[c]))
    seeds_w, labels_w = np.concatenate(walk_seeds), np.concatenate(walk_labels)
    for c in range(k):
        if as_colour[c] < 0:
            as_colour[c] = c
    prior = np.zeros((len(E), k))
    prior[np.arange(len(E)), as_colour[labels]] = 1.0
    weight = np.full(k, float(prior_weight))
    got = sorted(reached)
    prior[:, got] = 0.0  # reached segments: mass from their seeds only ...
    if codes is not None and appearance_weight > 0 and got:
        # ... and from how much a node looks like the territories of their groups
        owner = np.where(sample >= 0, colour[np.maximum(sample, 0)], -1) if n_groups else sample
        prior[:, got] = appearance_prior(codes, owner, k)[:, got]
        weight[got] = appearance_weight
    return prior_walk(graph, seeds_w, labels_w, prior, weight)


def _sure_nodes(E: np.ndarray, labels: np.ndarray, mu: np.ndarray, c: int, grouped: np.ndarray) -> np.ndarray:
    """The nodes of the method's segment ``c`` it is surest of: the :data:`SURE_SHARE` of
    them with the largest margin between the nearest other centroid of the embedding and
    their own, no stroke node among them (``grouped``). Empty when the segment is."""
    nodes = np.flatnonzero((labels == c) & ~grouped)
    if len(nodes) == 0:
        return np.zeros(0, np.int64)
    d2 = ((E[nodes, None, :] - mu[None, :, :]) ** 2).sum(-1)
    others = np.delete(d2, c, axis=1)
    margin = (others.min(1) if others.shape[1] else np.zeros(len(nodes))) - d2[:, c]
    keep = max(1, int(np.ceil(SURE_SHARE * len(nodes))))
    return np.sort(nodes[np.argsort(-margin, kind="stable")[:keep]]).astype(np.int64)
