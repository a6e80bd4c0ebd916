"""Step 2 with ``rounding_colouring='walk'``: groups coloured by the random walk's energy (a Potts
energy on the effective conductance between groups), exact by branch and bound."""

from __future__ import annotations

import numpy as np

from .params import EXACT_GROUPS


def _row_sum(x: list) -> float:
    """``np.sum`` of a short row of Python floats, added as numpy adds it: from 0.0 left to
    right below 8 values, numpy itself from 8 on (its pairwise sum). The local searches
    (:func:`~core.constraint_step.ncut._single_moves`, :func:`_greedy_colouring`) evaluate
    moves on Python floats and so reach the values, and the moves, of their vectorised
    form; ``tests/core/test_ncut_colouring.py`` checks the order against the numpy
    installed."""
    if len(x) < 8:
        r = 0.0
        for y in x:
            r += y
        return r
    return float(np.sum(np.asarray(x, float)))


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
    colour = [-1] * n_groups  # Python ints: this loop runs n_groups * sweeps times per call
    strength = np.zeros(n_groups) if pair is None else pair.sum(1)
    others = [sorted(h for h in nbrs[g] if h != g) for g in range(n_groups)]

    # M[g, c] (kept transposed, MT): pair terms of g with the other groups coloured c, kept as colours change
    if pair is not None:
        P0 = np.array(pair, float)
        np.fill_diagonal(P0, 0.0)
        P0T = np.ascontiguousarray(P0.T)  # P0T[g] = P0[:, g], contiguous
        MT = np.zeros((k, n_groups))  # M transposed: a recolouring updates contiguous rows

    cost_rows = np.asarray(cost, float).tolist()

    def step(g):
        values = cost_rows[g]
        if pair is not None:  # cost[g] + M[g].sum() - M[g] on Python floats, summed as numpy sums
            mg = MT[:, g].tolist()
            total = _row_sum(mg)
            values = [(x + total) - y for x, y in zip(values, mg)]
        banned = {colour[h] for h in others[g]}
        for x in sorted(range(k), key=values.__getitem__):  # np.argsort(c, kind="stable")
            if x not in banned:
                return x
        return None

    def recolour(g, c):
        if pair is not None:
            if colour[g] >= 0:
                MT[colour[g]] -= P0T[g]
            MT[c] += P0T[g]
        colour[g] = c

    order = []
    seen = np.zeros((n_groups, k), bool)  # colours among each group's coloured neighbours
    n_seen = np.zeros(n_groups, np.int64)
    n_nbrs = np.array([len(x) for x in nbrs], float)
    # the most colours seen, then most neighbours, then strongest, then lowest index: the
    # last three never change, so they are one rank (higher first) and the pick one argmax
    rank = np.empty(n_groups, np.int64)
    rank[np.lexsort((-np.arange(n_groups), strength, n_nbrs))] = np.arange(n_groups)
    key = rank.copy()
    for _ in range(n_groups):
        g = int(np.argmax(key))
        c = step(g)
        if c is None:
            return None
        recolour(g, c)
        key[g] = -1
        order.append(g)
        for h in nbrs[g]:
            if not seen[h, c]:
                seen[h, c] = True
                n_seen[h] += 1
                if key[h] >= 0:
                    key[h] = n_seen[h] * n_groups + rank[h]
    for _ in range(sweeps):
        moved = False
        for g in order:
            c = step(g)
            if c is not None and c != colour[g]:
                recolour(g, c)
                moved = True
        if not moved:
            break
    return np.array(colour, np.int64)


def edit_conductance(nc, W, seeds: np.ndarray, seed_group: np.ndarray, n_groups: int):
    """:func:`group_conductance` with ``volumes``, computed once per edit: both colourings of
    ``colouring='auto'`` ask for it with the same graph and seeds. Kept on ``nc`` (one per
    edit) with the graph it was computed on; returns fresh copies (callers scale them)."""
    key = (seeds.tobytes(), np.asarray(seed_group).tobytes(), n_groups)
    memo = nc.__dict__.get("_conductance")
    if memo is None or memo[0] is not W or memo[1] != key:
        memo = (W, key, group_conductance(W, seeds, seed_group, n_groups, volumes=True))
        nc.__dict__["_conductance"] = memo
    return tuple(x.copy() for x in memo[2])


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
