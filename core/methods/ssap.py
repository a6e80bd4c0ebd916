"""Semi-supervised affinity propagation (Conroy & Xi 2009)."""

from __future__ import annotations

import hashlib
import warnings

import numpy as np

from ..errors import ConvergenceError, ConvergenceWarning, ParameterError
from ..graph.cache import memo
from ..params import MethodSpec, ParamSpec
from ..spectral import SpectralResult
from ..spectral.cluster import spectrum
from ..spectral.linalg import check_connected, fix_signs

N_SHOW = 3  # non-trivial eigenvectors of the learned similarity shown (as njw)
ROUND_CACHE_NODES = 1000  # later rounds (with their messages) are kept per graph up to this many nodes

PARAMS = (
    ParamSpec("variant", str, "gaussian",
              "Method 1: Gaussian-kernel similarity update of eq. 3-4; Method 2: diagonal "
              "metric s_D = x^T D x learned by the gradient of eq. 7 (needs features).",
              choices=("gaussian", "metric")),
    ParamSpec("step", float, 1.0,
              "Update budget per round, shared by the violated constraints: sum of eq. 3's "
              "alpha_ij as a fraction of the median dissimilarity (Method 1), or the step along "
              "the mean gradient of eq. 7 (Method 2).",
              low=0.0, high=10.0, low_open=True,
              plain="How much each round changes the similarities to fix the broken strokes."),
    ParamSpec("rounds", int, 8,
              "Most rounds of AP followed by a similarity update from violated constraints.",
              low=1, high=100),
    ParamSpec("damping", float, 0.9, "Message damping of affinity propagation (0.9 avoids the "
              "oscillations AP shows at low preferences; scikit-learn uses 0.5).",
              low=0.5, high=1.0, high_open=True),
    ParamSpec("max_iter", int, 500, "Most message-passing iterations per AP run.", low=10, high=5000),
    ParamSpec("convergence_iter", int, 15,
              "AP stops when the exemplars have not changed for this many iterations.",
              low=1, high=500),
    ParamSpec("ap_nodes", int, 300,
              "Most graph nodes for AP (dense N x N messages, one run per bisection step); "
              "the working representation is capped to this.", low=16, high=4000),
    ParamSpec("precision", str, "float32",
              "Floating-point type of AP's messages: float32 halves the memory each iteration "
              "streams (measured: the same mean ARI of the simulated user); float64 is "
              "scikit-learn's arithmetic.", choices=("float32", "float64")),
    ParamSpec("warm_start", bool, False,
              "Start each round's first AP run from the previous round's messages instead of "
              "zero, so AP goes on passing messages while the similarities change, as in the "
              "paper's feedback loop (about 3x fewer iterations; it lands on other fixed points "
              "of AP than a restart, so the clustering differs on many images: off until the "
              "simulated-user benchmark has measured it)."),
)


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
    c = np.argmax(S[:, I], axis=1)
    c[I] = np.arange(len(I))
    for k in range(len(I)):
        ii = np.flatnonzero(c == k)
        I[k] = ii[np.argmax(S[np.ix_(ii, ii)].sum(axis=0))]
    c = np.argmax(S[:, I], axis=1)
    c[I] = np.arange(len(I))
    ex = I[c]
    centers = np.unique(ex)
    return np.searchsorted(centers, ex), centers, converged, (R, A)


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


def _median_dissimilarity(S):
    return max(float(np.median(np.abs(S[~np.eye(len(S), dtype=bool)]))), 1e-12)


def _log_similarity(K):
    """Method 1's similarities ``s_ij = 2 log K_ij`` (symmetrised) and their median ``|s|``."""
    S = 2.0 * np.log(np.clip(K, 1e-300, None))
    S = (S + S.T) / 2.0
    return S, _median_dissimilarity(S)


def _sigma(S, labels, ex):
    """Adaptive widths: ``sigma_i`` = distance (negative similarity) from ``x_i`` to its exemplar."""
    sig = -S[np.arange(len(S)), ex[labels]]
    pos = sig[sig > 0]
    fill = np.median(pos) if len(pos) else max(np.median(-S), 1e-12)
    return np.where(sig > 0, sig, fill)


def gaussian_update(S, links, sign, step, labels, ex, gaps):
    """Eq. 3-4 for the violated links: ``s += sign * sum_ij alpha_ij G(y, z, x_i, x_j)``.

    ``G(y, z, x_i, x_j) = (G(s(y,x_i), s(z,x_j)) + G(s(z,x_i), s(y,x_j))) / 2`` with
    ``G(a, b) = exp(-a^2/sigma_i^2 - b^2/sigma_j^2)``. ``gaps`` holds each violated link's
    ``alpha_ij`` for this round (see :func:`fit`: they share a bounded budget, as the paper's
    ``||alpha||_p <= const`` asks). All links are applied at once as
    ``(G_i diag(alpha) G_j^T + G_j diag(alpha) G_i^T) / 2``.
    """
    if len(links) == 0:
        return S
    sig = _sigma(S, labels, ex)
    i, j = links[:, 0], links[:, 1]
    Gi = np.exp(-(S[:, i] / sig[i]) ** 2)
    Gj = np.exp(-(S[:, j] / sig[j]) ** 2)
    upd = (Gi * (step * np.asarray(gaps, float))) @ Gj.T
    S += sign * (upd + upd.T) / 2.0
    return S


def fit(K: np.ndarray, nc, n_clusters: int, rng, features=None, cache=None, *, variant="gaussian", step=1.0,
        rounds=8, damping=0.9, max_iter=500, convergence_iter=15, ap_nodes=300, precision="float32",
        warm_start=False) -> SpectralResult:
    """Semi-supervised affinity propagation with constraint-driven similarity updates.

    Parameters
    ----------
    K : ndarray, shape (n, n)
        Gaussian affinity; similarities are ``s_ij = 2 log K_ij = -||f_i - f_j||^2``.
    nc : NodeConstraints
    n_clusters : int
        The preference is found by bisection so AP yields this many clusters.
    rng : numpy.random.RandomState
        Unused (AP here is deterministic).
    features : ndarray, shape (n, d), optional
        Needed by ``variant='metric'``.
    cache : ScopedCache, optional
        ``K``'s stroke-independent results (:mod:`core.graph.cache`); ``None``: nothing kept.
    variant : {'gaussian', 'metric'}
    step, rounds, damping, max_iter, convergence_iter, ap_nodes : see :data:`PARAMS`.

    Returns
    -------
    SpectralResult
        AP clusters no eigenvectors; ``embedding`` shows the leading eigenvectors of the
        normalised affinity ``exp(s / 2)`` of the learned similarity (Method 1) or of the
        learned metric similarity rescaled to [0, 1] (Method 2), for comparison.

    Notes
    -----
    Each round runs AP (preference by bisection), checks every constraint against the
    clustering, and updates the similarity for the violated ones only — a negative feedback
    loop (sec. 3): Method 1 by eq. 3-4 (must-links draw the two neighbourhoods together,
    cannot-links push them apart; adaptive sigma_i, sec. 3.1); Method 2 by a gradient step
    of eq. 7 on the diagonal metric ``D`` of ``s_D(x_i, x_j) = x_i^T D x_j`` with unit-norm
    (centred) features, keeping ``d_k > 0`` and ``||d|| = 1`` (sec. 3.2). Stops when no
    constraint is violated or after ``rounds``; the round with the fewest violated
    constraints is returned (eq. 5 penalises violations; later rounds are not always
    better), so the result never violates more constraints than unconstrained AP. The
    paper's "constant small" alpha_ij is bounded per round (``||alpha||_1 = step x median
    dissimilarity``, shared by the violated links) and Method 2's gradient is averaged over
    them. Method 3 (boosting) is not offered.

    **Graph.** Every method receives the same affinity (``affinity``: the contour kernel by
    default, the boundary graph's diffusion kernel, or the papers' Gaussian; each is
    described once in :mod:`core.graph.affinity`). With the contour kernel: method 1's
    similarities ``s_ij = 2 log K_ij`` become the Gaussian's ``-||f_i - f_j||^2`` minus ``2
    m_ij / sigma_contour``, an edge penalty, defined for every pair. With the diffusion
    kernel: ssap's similarities are ``2 log K_ij`` (Method 1), defined for every pair: it
    gets the diffusion kernel, positive everywhere. Method 2 learns a metric on the node
    features and uses no graph.

    **Rounding.** ``rounding='paper'`` keeps the step above; the default ``'constrained'``
    (our addition) re-rounds this embedding: :mod:`core.constraint_step`.

    **Cost.** Nearly all the time goes to AP runs (dense ``n x n`` messages, ~40 iterations
    each): a round after the first starts at the previous round's preference and, when that
    misses, searches as in the first round. The paper fixes the preference; the search is
    ours. Per stroke: the first round's search, the log similarity and, when the first
    round is the best, the spectrum shown are kept per graph (``cache``); runs whose
    cluster count follows from runs already made are skipped (:func:`preference_for`).
    Possible deviation: that skip assumes the count grows with the preference, which AP
    does not guarantee; where it does not, a skipped run could have hit ``n_clusters`` and
    the search would end at another preference than one that runs every step. Measured:
    the labels of 3 Berkeley images x 6 strokes x K = 2, 3, and every ARI of the simulated
    user on the 20 tuning images (K = 3, 10 rounds), are those of the full search.

    References
    ----------
    B. Conroy, Y. T. Xi, Semi-supervised clustering using affinity propagation, 2009.
    B. Frey, D. Dueck, Clustering by passing messages between data points, Science 2007.
    """
    n = K.shape[0]
    if n_clusters > n:
        raise ParameterError(f"ssap: {n_clusters} clusters asked from {n} points")
    ap_kw = dict(damping=damping, max_iter=max_iter, convergence_iter=convergence_iter)
    if variant == "metric":
        if features is None:
            raise ParameterError("ssap variant 'metric' (Method 2) needs features; with a precomputed "
                                 "affinity use variant='gaussian'")
        X = features - features.mean(0)
        X /= np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1e-12)
        dvec = np.ones(X.shape[1]) / np.sqrt(X.shape[1])
        S = (X * dvec) @ X.T
        scale = _median_dissimilarity(S)
    else:  # stroke-independent: kept per graph
        S0, scale = memo(cache, ("ssap-similarity",), lambda: _log_similarity(K))
        S = S0.copy()
    def search(S, start, msgs, chain):
        """This round's preference search, kept per graph (the first round's ``S`` is the
        constraints-free one). With warm starts a later round's key also holds the chain of
        keys whose messages started it, and its value those messages."""
        S_ap = S.astype(np.float32) if precision == "float32" else S
        h = hashlib.blake2b(S_ap.tobytes(), digest_size=16)
        if msgs is not None:
            h.update(chain.encode())
        kind = "ssap-round" if msgs is not None else "ssap-search"
        key = (kind, h.hexdigest(), n_clusters, start, warm_start, tuple(sorted(ap_kw.items())))

        def build():
            out = preference_for(S_ap, n_clusters, ap_kw, start=start, messages=msgs, return_messages=True)
            return out if warm_start else out[:4] + (None,)
        if kind == "ssap-round" and n > ROUND_CACHE_NODES:  # 8 entries of 2 n^2 messages: not kept
            return build(), key[1]
        return memo(cache, key, build), key[1]

    pref, done, best, msgs, chain = None, 0, None, None, ""
    for done in range(1, rounds + 1):
        (pref, labels, ex, exact, msgs), chain = search(S, pref, msgs, chain)
        vm = labels[nc.must[:, 0]] != labels[nc.must[:, 1]] if len(nc.must) else np.zeros(0, bool)
        vc = labels[nc.cannot[:, 0]] == labels[nc.cannot[:, 1]] if len(nc.cannot) else np.zeros(0, bool)
        violated = np.concatenate([vm, vc])
        if best is None or violated.sum() <= best[0]:
            best = (int(violated.sum()), labels, ex, exact, pref, S.copy(), done)
        if not violated.any() or done == rounds:
            break
        nv = int(violated.sum())
        if variant == "metric":
            grad = (X[nc.must[vm, 0]] * X[nc.must[vm, 1]]).sum(0) - (X[nc.cannot[vc, 0]] * X[nc.cannot[vc, 1]]).sum(0)
            dvec = np.maximum(dvec + step * grad / nv, 1e-6)
            dvec /= np.linalg.norm(dvec)
            S = (X * dvec) @ X.T
        else:
            share = np.full(nv, scale / nv)  # this round's alpha_ij: budget step * median|s|
            S = gaussian_update(S, nc.must[vm], +1.0, step, labels, ex, share[:int(vm.sum())])
            S = gaussian_update(S, nc.cannot[vc], -1.0, step, labels, ex, share[int(vm.sum()):])
            S = (S + S.T) / 2.0
    n_viol, labels, ex, exact, pref, S, best_round = best
    if not exact:
        warnings.warn(f"ssap: no preference gave exactly {n_clusters} clusters; "
                      f"{len(ex)} clusters are returned", ConvergenceWarning, stacklevel=3)
    if variant == "metric":
        disp = (S - S.min()) / max(S.max() - S.min(), 1e-12)
    else:
        disp = np.exp(np.minimum(S, 0.0) / 2.0)
    if not (disp > 0).all():  # all positive: one component, nothing to warn about
        check_connected(disp, "learned similarity graph", stacklevel=3)
    k = min(n, max(n_clusters, N_SHOW + 1))
    if best_round == 1 and variant != "metric":  # the constraints-free similarity: kept per graph
        w, v, isq = memo(cache, ("ssap-display", k), lambda: spectrum(disp, k))
    else:
        w, v, isq = spectrum(disp, k)
    info = {"preference": float(pref), "rounds": done, "best_round": best_round, "n_violated": n_viol,
            "exemplars": ex.tolist()}
    return SpectralResult(labels.astype(np.int64), fix_signs(v[:, 1:] * isq[:, None]), 1.0 - w[1:], None, info)


SPEC = MethodSpec(
    name="ssap",
    description="Affinity propagation whose similarities are updated from violated constraints "
                "each round (Method 1: Gaussian kernel; Method 2: diagonal metric); preference "
                "by bisection for the number of segments.",
    reference="Conroy & Xi, 2009; Frey & Dueck, Science 2007",
    params=PARAMS,
    fit=fit,
    node_cap="ap_nodes",
)
