"""Affinity propagation (Frey & Dueck, Science 2007): max-sum message passing, and the search
for the preference that yields a given number of clusters (used by ssap, Conroy & Xi 2009)."""

from __future__ import annotations

import numpy as np

from ..errors import ConvergenceError

def affinity_propagation(S: np.ndarray, preference: float, *, damping=0.5, max_iter=200,
                         convergence_iter=15, messages=None):
    """Frey & Dueck's max-sum message passing (Conroy & Xi 2009, sec. 2.1).

    Parameters
    ----------
    S : ndarray, shape (n, n)
        Similarities ``s(i, k)``; the diagonal is replaced by ``preference``.
    preference : float
    damping, max_iter, convergence_iter : see :data:`PARAMS`.
    messages : tuple (R, A) or None
        Warm start.

    Returns
    -------
    labels : ndarray, shape (n,), 0..k-1, or None if no exemplar emerged
    exemplars : ndarray, shape (k,)
    converged : bool
    messages : tuple (R, A)

    Notes
    -----
    ``rho_ik = s_ik - max_{k' != k}(a_ik' + s_ik')``;
    ``a_ik = min(0, rho_kk + sum_{i' not in {i,k}} max(0, rho_i'k))`` for ``i != k`` and
    ``a_kk = sum_{i' != k} max(0, rho_i'k)``; both damped. Exemplars are ``k`` with
    ``a_kk + rho_kk > 0``; the same update order, damping, stopping rule and exemplar
    refinement as scikit-learn's ``AffinityPropagation``, without its random jitter. The
    loop performs scikit-learn's floating-point operations in the same order, in place
    (messages bit for bit equal); its stopping test (every point's exemplar flag constant
    over the last ``convergence_iter`` iterations) is counted as repeats of the exemplar set.
    """
    n = S.shape[0]
    dt = np.dtype(np.float32 if S.dtype == np.float32 else np.float64)
    S = S.astype(dt)  # a copy
    S[np.diag_indices(n)] = preference
    R, A = ((np.zeros((n, n), dt), np.zeros((n, n), dt)) if messages is None
            else (messages[0].astype(dt), messages[1].astype(dt)))
    ind = np.arange(n)
    row = ind * n  # flat offset of each row
    tmp = np.empty((n, n), dt)
    # flat views and diagonal views (no copies), and the per-row buffers, made once per run:
    # every step below performs the same floating-point operations, in the same order, as
    # scikit-learn's loop, only without its temporaries
    Sf, Tf = S.reshape(-1), tmp.reshape(-1)
    Rd, Ad, Td = R.reshape(-1)[::n + 1], A.reshape(-1)[::n + 1], Tf[::n + 1]
    first, second, colsum, dA = np.empty(n, dt), np.empty(n, dt), np.empty(n, dt), np.empty(n, dt)
    keep = 1 - damping
    converged = False
    E, E_new = np.zeros(n, bool), np.empty(n, bool)
    same = 0  # iterations in a row whose exemplar set equals the one before
    for it in range(max_iter):
        np.add(A, S, out=tmp)
        bf = tmp.argmax(axis=1)
        bf += row  # flat index of each row's best a + s
        Tf.take(bf, out=first)
        Tf[bf] = -np.inf
        np.maximum.reduce(tmp, axis=1, out=second)
        np.subtract(S, first[:, None], out=tmp)
        Tf[bf] = Sf[bf] - second
        tmp *= keep
        R *= damping
        R += tmp
        np.maximum(R, 0, out=tmp)
        Td[:] = Rd
        np.add.reduce(tmp, axis=0, out=colsum)
        tmp -= colsum
        dA[:] = Td
        np.maximum(0.0, tmp, out=tmp)  # = clip(tmp, 0, inf), +0 for -0 and NaN kept
        Td[:] = dA
        tmp *= keep
        A *= damping
        A -= tmp
        np.greater(np.add(Ad, Rd, out=dA), 0, out=E_new)
        same = same + 1 if E_new.tobytes() == E.tobytes() else 0
        E, E_new = E_new, E
        # scikit-learn's test: each point's exemplar flag constant over the last
        # convergence_iter iterations, i.e. the set repeated convergence_iter - 1 times
        if it >= convergence_iter and same >= convergence_iter - 1 and E.any():
            converged = True
            break
    I = np.flatnonzero(E)
    if len(I) == 0:
        return None, I, converged, (R, A)
    labels, centers = _refined_clusters(S, I)
    return labels, centers, converged, (R, A)


def _refined_clusters(S: np.ndarray, I: np.ndarray):
    """scikit-learn's exemplar refinement: each point to its most similar exemplar, each
    cluster's exemplar moved to the member most similar to the others, points assigned
    again; ``(labels 0..k-1, exemplars)``."""
    I = I.copy()
    c = np.argmax(S[:, I], axis=1)
    c[I] = np.arange(len(I))
    for k in range(len(I)):
        ii = np.flatnonzero(c == k)
        I[k] = ii[np.argmax(S[np.ix_(ii, ii)].sum(axis=0))]
    c = np.argmax(S[:, I], axis=1)
    c[I] = np.arange(len(I))
    ex = I[c]
    centers = np.unique(ex)
    return np.searchsorted(centers, ex), centers


def preference_for(S: np.ndarray, n_clusters: int, ap_kw: dict, start=None, max_steps=40, *,
                   messages=None, return_messages=False):
    """Bisect the preference until AP yields ``n_clusters`` clusters.

    The number of exemplars grows with the preference. The upper end is the largest
    off-diagonal similarity; the lower end starts at ``min s - (max s - min s)`` and is
    pushed down (doubling the distance) until AP gives at most ``n_clusters``. A run that
    does not converge counts as "too many". ``start`` (the previous round's preference) is
    tried first. Returns the run with exactly ``n_clusters`` clusters or, failing that, the
    one with the most clusters below it.

    Notes
    -----
    Fewer runs for the same search, by that growth: after a ``start`` that converged to too
    many clusters, the doubling points above it are not run (they would give too many as
    well); after a ``start`` with too few, the doubling points above the first one below it
    are run upwards until one converges to too many, not from the top down (the ones above
    that would give too many). Midpoints of the bisection and the ends of its bracket are
    always run. If the count grows with the preference, the result is that of running every
    step; AP does not guarantee it, and then (rarely: 1 of 125 skipped runs on the tuning
    images) a skipped doubling point would have ended the descent elsewhere. Skipped points
    count as steps, so ``max_steps`` bounds the same sequence.
    """
    off = S[~np.eye(len(S), dtype=bool)]
    span = float(off.max() - off.min()) or 1.0
    hi = float(off.max())
    best = None
    outcome = {}  # preference -> ("exact" | "few" | "many", labels, exemplars) of runs made
    counts = {}  # preference -> clusters, of the runs that converged

    def run(p):
        nonlocal best
        if p not in outcome:
            init = messages if p == start else None  # only the start is warm
            labels, ex, conv, msgs = affinity_propagation(S, p, messages=init, **ap_kw)
            k = len(ex) if labels is not None and conv else None
            if k is not None:
                counts[p] = k
            if k is not None and k < n_clusters and (best is None or k > len(best[2])):
                best = (p, labels, ex, msgs)
            what = "exact" if k == n_clusters else "few" if k is not None and k < n_clusters else "many"
            outcome[p] = (what, labels, ex, msgs)
        return outcome[p][:3]

    def done(p, exact):
        what, labels, ex, msgs = outcome[p]
        return (p, labels, ex, exact, msgs) if return_messages else (p, labels, ex, exact)

    steps = 0
    first = None
    if start is not None:
        start = float(start)
        first, labels, ex = run(start)
        steps += 1
        if first == "exact":
            return done(start, True)
    los = [float(off.min()) - span * 2.0 ** t for t in range(31)]
    T = _first_not_too_many(run, counts, los, start, first)
    steps += min(T + 1, 30)
    if T < 30:
        what, labels, ex = run(los[T])
        if what == "exact":
            return done(los[T], True)
    lo = los[T]
    if T > 0:
        hi = los[T - 1]
    while steps < max_steps and hi - lo > 1e-9 * max(1.0, abs(hi)):
        p = (lo + hi) / 2.0
        what, labels, ex = run(p)
        steps += 1
        if what == "exact":
            return done(p, True)
        if what == "many":
            hi = p
        else:
            lo = p
    if best is None:
        raise ConvergenceError(f"ssap: affinity propagation did not converge to {n_clusters} clusters "
                               "for any preference; raise max_iter or damping")
    return done(best[0], False)


def _first_not_too_many(run, counts: dict, los: list, start, first) -> int:
    """The descent of :func:`preference_for`: the index of the first doubling point
    ``los[t]`` that does not give too many clusters (30: none of 30), skipping the runs the
    outcome of ``start`` (``first``) already decides (see its Notes)."""
    T = None  # the first doubling point that does not give too many (30: none of 30)
    below = next((t for t, p in enumerate(los) if p <= start), None) if first == "few" else None
    if below is not None:  # upwards from the first doubling point below the start
        T = below
        for t in range(below - 1, -1, -1):
            if run(los[t])[0] != "many":
                T = t
            elif los[t] in counts:  # converged to too many: so would every point above
                break
        if T == below and run(los[below])[0] == "many":  # the bracket's low end, run as well
            T = None  # the count fell with the preference: top-down after all
    # a start that converged to too many clusters: the doubling points above it give too
    # many (one that did not converge only counts as "too many": it tells nothing)
    above = start if first == "many" and start in counts else np.inf
    if T is None:  # top-down, as without a start
        for t in range(30):
            if los[t] < above and run(los[t])[0] != "many":
                T = t
                break
        else:
            T = 30
    return T
