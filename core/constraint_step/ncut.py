"""Steps 2-4 with ``rounding_colouring='ncut'``: groups coloured by the normalised cut between
their territories and how they look; segments no stroke reached seeded from the method."""

from __future__ import annotations

import functools

import numpy as np
import scipy.sparse as sp

from .looks import territory_looks, colour_codes, appearance_prior, _look_samples
from .params import SURE_SHARE, NCUT_EXACT
from .potts import _greedy_colouring, _row_sum, edit_conductance
from .resolve import Resolution
from .texture import edit_texture_walk
from .walk import prior_walk


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

    C = np.asarray(C, float)
    deg = C.sum(1)
    if looks is not None and looks_weight > 0:
        wl = w[:, None] * looks

    def objective(Z):  # Z: (m, n) colourings; one matrix product each (BLAS), not an einsum loop
        m = len(Z)
        X = (Z[:, None, :] == np.arange(k)[None, :, None]).reshape(m * k, n).astype(float)  # (m k, n)
        within = ((X @ C) * X).sum(1).reshape(m, k)
        tc = _cut_terms((X @ vol).reshape(m, k), (X @ deg).reshape(m, k), within)
        lw = looks_weight if looks is not None and looks_weight > 0 else 0.0
        tl = _look_terms((X @ w).reshape(m, k), (X @ wl).reshape(m, k, -1)) if lw else None
        viol = (Z[:, ap[:, 0]] == Z[:, ap[:, 1]]).sum(1) if len(ap) else np.zeros(m)
        return _objective_value(tc, tl, lw, total if lw else 0.0, X.reshape(m, k, n).any(2).sum(1), viol, need)

    if n == 0:
        return np.zeros(0, np.int64)
    if k ** n <= NCUT_EXACT:
        best_val, best = np.inf, None
        for Z in _canonical_colourings(n, k):
            val = objective(Z)
            j = int(np.argmin(val))
            if val[j] < best_val:
                best_val, best = val[j], Z[j].astype(np.int64)
        return None if best is None else _cheapest_numbering(best, U)
    nbrs = [set() for _ in range(n)]
    for a, b in apart:
        nbrs[a].add(b)
        nbrs[b].add(a)
    colour = start if start is not None else _greedy_colouring(U, nbrs, C)
    if colour is None:
        return None
    colour = _enough_colours(np.asarray(colour, np.int64).copy(), need, k)
    lw = looks_weight if looks is not None and looks_weight > 0 else 0.0
    colour, cur = _single_moves(colour, C, vol, deg, ap, need, k, w if lw else None, wl if lw else None,
                                total if lw else 0.0, lw)
    return _cheapest_numbering(colour, U) if np.isfinite(cur) else None


def _single_moves(colour, C, vol, deg, ap, need: int, k: int, w, wl, total: float, looks_weight: float,
                  sweeps: int = 20):
    """:func:`ncut_colouring`'s local search: each group in turn moves to the colour of least
    objective if that lowers it by more than 1e-12, until a sweep moves none (or ``sweeps``).

    The objective of every move of one group is updated from per-colour sums (volume,
    association, within-colour conductance ``x_c^T C x_c``, the looks' weights and sums,
    members, violated cannot-links) instead of being recomputed over all groups: O(k^2) per
    group and O(n k) per move, not O(n^2 k), the same values up to rounding. Returns the
    colouring and its objective (``inf`` when it is infeasible)."""
    n = len(colour)
    if len(ap) and (ap[:, 0] == ap[:, 1]).any():
        return colour, np.inf  # a group kept apart from itself: no colouring is feasible
    X = np.zeros((n, k))
    X[np.arange(n), colour] = 1.0
    A = np.zeros((n, n))
    if len(ap):
        np.add.at(A, (ap[:, 0], ap[:, 1]), 1.0)
        np.add.at(A, (ap[:, 1], ap[:, 0]), 1.0)
    CX, AX = C @ X, A @ X
    v, assoc, within, cnt = X.T @ vol, X.T @ deg, (CX * X).sum(0), X.sum(0)
    viol = 0.5 * float((AX * X).sum())
    looks = looks_weight > 0
    if looks:
        Wc, Sc = X.T @ w, X.T @ wl
    eye = np.eye(k)

    cut_terms, look_terms = _cut_terms, _look_terms

    def total_value(tc, tl, used, viol_):
        return _objective_value(tc, tl, looks_weight, total, used, viol_, need)

    tc = cut_terms(v, assoc, within)
    tl = look_terms(Wc, Sc) if looks else None
    cur = float(total_value(tc, tl, (cnt > 0).sum(), viol))
    # The loop below evaluates every move of one group with Python floats (k is small and
    # numpy's per-call overhead dominated it); the per-colour state is updated with numpy
    # when a group moves, as it was. Rows are summed as numpy sums them (_row_sum), so
    # the values, and the moves chosen, are those of the vectorised evaluation.
    volg, degg, diag = vol.tolist(), deg.tolist(), np.diagonal(C).tolist()
    lw, row_sum = float(looks_weight), _row_sum

    def state():
        return (v.tolist(), assoc.tolist(), within.tolist(), cnt.tolist(), tc.tolist(),
                tl.tolist() if looks else None)

    vl, al, wil, cl, tcl, tll = state()
    for _ in range(sweeps):
        moved = False
        for g in range(n):
            a = int(colour[g])
            cxg, axg = CX[g].tolist(), AX[g].tolist()
            cgg, vg, dg = diag[g], volg[g], degg[g]
            used_now = sum(1 for x in cl if x > 0)
            va = vl[a] - vg  # colour a without g
            out_a = (al[a] - dg - (wil[a] - (2 * cxg[a] - cgg))) / max(va, 1e-12) if va > 0 else 0.0
            if looks:
                la = float(look_terms(Wc[a] - w[g], Sc[a] - wl[g]))
                lin = look_terms(Wc + w[g], Sc + wl[g]).tolist()
            best_c, best_val = -1, np.inf
            for c in range(k):
                if c == a:
                    row, lrow, used, vt = tcl, tll, used_now, viol
                else:
                    row = list(tcl)
                    row[a] = out_a
                    vc = vl[c] + vg
                    row[c] = (al[c] + dg - (wil[c] + (2 * cxg[c] + cgg))) / max(vc, 1e-12) if vc > 0 else 0.0
                    if looks:
                        lrow = list(tll)
                        lrow[a], lrow[c] = la, lin[c]
                    used = used_now - (cl[a] == 1) + (cl[c] == 0)
                    vt = viol + (axg[c] - axg[a])
                if used < need or vt > 0:
                    val = np.inf
                else:
                    val = row_sum(row)
                    if looks:
                        val = val + lw * (total - row_sum(lrow))
                if val != val:  # NaN (from a non-finite C or looks): np.argmin took it, so no move
                    best_c, best_val = -1, np.inf
                    break
                if val < best_val:
                    best_c, best_val = c, val
            c = best_c
            if c >= 0 and best_val < cur - 1e-12:
                colour = colour.copy()
                colour[g], cur, moved = c, float(best_val), True
                step = eye[c] - eye[a]
                X[g] = eye[c]
                CX += np.outer(C[:, g], step)
                AX += np.outer(A[:, g], step)
                v, assoc, cnt = v + vol[g] * step, assoc + deg[g] * step, cnt + step
                within = (CX * X).sum(0)
                viol = 0.5 * float((AX * X).sum())
                tc = cut_terms(v, assoc, within)
                if looks:
                    Wc, Sc = Wc + w[g] * step, Sc + step[:, None] * wl[g]
                    tl = look_terms(Wc, Sc)
                vl, al, wil, cl, tcl, tll = state()
        if not moved:
            break
    return colour, cur


def _cut_terms(v, assoc, within):
    """Per colour ``cut(c) / vol(c)`` (0 for an empty colour), from its volume, association
    and within-colour conductance."""
    return np.where(v > 0, (assoc - within) / np.maximum(v, 1e-12), 0.0)


def _look_terms(Wc, Sc):
    """Per colour ``||S_c||^2 / W_c``: what the looks' within-colour scatter subtracts."""
    return (Sc ** 2).sum(-1) / np.maximum(Wc, 1e-12)


def _objective_value(tc, tl, looks_weight: float, total: float, used, viol, need: int):
    """:func:`ncut_colouring`'s objective from the per-colour terms (last axis): the cuts,
    plus ``looks_weight`` times the looks' scatter; ``inf`` where fewer than ``need`` colours
    are used or a cannot-linked pair shares one."""
    val = tc.sum(-1)
    if looks_weight > 0:
        val = val + looks_weight * (total - tl.sum(-1))
    return np.where((used < need) | (viol > 0), np.inf, val)


def _enough_colours(colour: np.ndarray, need: int, k: int) -> np.ndarray:
    """``colour`` with at least ``need`` colours used: while fewer are, the newest group of a
    colour that several groups share takes an unused colour (which keeps every cannot-linked
    pair apart). The single-group moves that follow could not get there themselves: every
    colouring on the way uses too few colours, so none of them is better than another."""
    while len(np.unique(colour)) < need:
        values, counts = np.unique(colour, return_counts=True)
        shared = np.flatnonzero(np.isin(colour, values[counts > 1]))
        unused = np.setdiff1d(np.arange(k), values)
        if not len(shared) or not len(unused):
            break
        colour[shared[-1]] = unused[0]
    return colour


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


def _canonical_colourings(n: int, k: int, chunk: int = 20_000):
    """Every colouring of ``n`` groups with at most ``k`` colours, up to renaming the colours
    (group 0 takes colour 0, each group at most one more than the largest before it), in
    chunks of at most ``chunk`` rows (kept for the last few ``(n, k)``: every stroke of a
    session enumerates them again)."""
    rows = _canonical_table(n, k)
    for i in range(0, len(rows), chunk):
        yield rows[i:i + chunk]


@functools.lru_cache(maxsize=8)
def _canonical_table(n: int, k: int) -> np.ndarray:
    rows = np.zeros((1, 1), np.int8)
    for _ in range(1, n):
        top = rows.max(1)
        nxt = [np.column_stack([rows[c <= top + 1], np.full((c <= top + 1).sum(), c, np.int8)]) for c in range(k)]
        rows = np.vstack([x for x in nxt if len(x)])
    rows.setflags(write=False)
    return rows


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


def _ncut_rounding(nc, E, labels, mu, res: Resolution, seeds, graph, k: int, unary, appearance,
                   looks_weight: float, prior_weight: float, appearance_weight: float = 0.0,
                   texture=None, texture_weight: float = 0.0) -> np.ndarray:
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
       histogram of their strokes' surroundings (:func:`appearance_prior`), and with
       ``texture_weight`` > 0 once more on a graph weakened where a texture model fitted on
       the first walk's labels tells nodes apart (:func:`~core.constraint_step.texture.texture_walk`).

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
    looks_weight, prior_weight, appearance_weight, texture_weight : float
    texture : tuple (features (n, f), sizes (n,)) or None

    Returns
    -------
    labels : ndarray, shape (n,), int64
    """
    n_groups = res.n_groups
    grouped = res.group >= 0
    user = seeds[res.group[seeds] >= 0]
    C, vol, territory = edit_conductance(nc, graph, user, res.group[user], n_groups)
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
    as_colour = _method_segment_colours(labels, colour[res.group], grouped, vids, free, k)
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
    return edit_texture_walk(nc, graph, seeds_w, labels_w, prior, weight, texture, texture_weight)


def _method_segment_colours(labels, node_colour, grouped, vids, free, k: int) -> np.ndarray:
    """Step 3: the colour each of the method's segments ``vids`` seeds (-1: none): a segment
    holding stroke nodes of one colour seeds that colour, one holding none a colour no
    stroke took (``free``, matched by the Hungarian method), one holding several nothing.
    While a colour no stroke took is left and a colour is seeded by several segments (a
    must-link group spanning them), the one of those holding the fewest stroke nodes seeds
    the free colour instead (its surest nodes; the stroke nodes keep their group's).
    ``node_colour`` is each node's group's colour (used where ``grouped``)."""
    from scipy.optimize import linear_sum_assignment

    as_colour = np.full(k, -1)
    if not (free and vids):
        return as_colour
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
    left = [f for f in free if f not in as_colour]
    while left:  # a group spanning several of the method's segments: the one holding the
        # fewest of its stroke nodes seeds a colour no stroke took, so no segment stays empty
        twice = [c for c in vids if as_colour[c] >= 0 and as_colour[c] not in free
                 and (as_colour[vids] == as_colour[c]).sum() > 1]
        if not twice:
            break
        c = min(twice, key=lambda c: (int(((labels == c) & grouped).sum()), c))
        as_colour[c] = left.pop(0)
    return as_colour


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
