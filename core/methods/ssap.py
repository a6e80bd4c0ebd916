"""Semi-supervised affinity propagation (Conroy & Xi 2009)."""

from __future__ import annotations

import hashlib
import warnings

import numpy as np
from scipy.spatial.distance import cdist

from ..errors import ConvergenceError, ConvergenceWarning, ParameterError
from ..graph.cache import memo
from ..params import MethodSpec, ParamSpec
from ..spectral import SpectralResult, njw

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
    refinement as scikit-learn's ``AffinityPropagation``, without its random jitter.
    """
    n = S.shape[0]
    S = S.copy()
    S[np.diag_indices(n)] = preference
    R, A = (np.zeros((n, n)), np.zeros((n, n))) if messages is None else (messages[0].copy(), messages[1].copy())
    ind = np.arange(n)
    hist = np.zeros((n, convergence_iter), bool)
    tmp = np.empty((n, n))
    converged = False
    E = np.zeros(n, bool)
    for it in range(max_iter):
        np.add(A, S, out=tmp)
        best = np.argmax(tmp, axis=1)
        first = tmp[ind, best]
        tmp[ind, best] = -np.inf
        second = tmp.max(axis=1)
        np.subtract(S, first[:, None], out=tmp)
        tmp[ind, best] = S[ind, best] - second
        R *= damping
        R += (1 - damping) * tmp
        np.maximum(R, 0, out=tmp)
        tmp[ind, ind] = R[ind, ind]
        tmp -= tmp.sum(axis=0)
        dA = np.diag(tmp).copy()
        np.clip(tmp, 0, np.inf, out=tmp)
        tmp[ind, ind] = dA
        A *= damping
        A -= (1 - damping) * tmp
        E = (np.diag(A) + np.diag(R)) > 0
        hist[:, it % convergence_iter] = E
        if it >= convergence_iter:
            se = hist.sum(axis=1)
            if np.all((se == convergence_iter) | (se == 0)) and E.any():
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


def preference_for(S: np.ndarray, n_clusters: int, ap_kw: dict, start=None, max_steps=40):
    """Bisect the preference until AP yields ``n_clusters`` clusters.

    The number of exemplars grows with the preference. The upper end is the largest
    off-diagonal similarity; the lower end starts at ``min s - (max s - min s)`` and is
    pushed down (doubling the distance) until AP gives at most ``n_clusters``. A run that
    does not converge counts as "too many". Returns the run with exactly ``n_clusters``
    clusters or, failing that, the one with the most clusters below it.
    """
    off = S[~np.eye(len(S), dtype=bool)]
    span = float(off.max() - off.min()) or 1.0
    hi = float(off.max())
    best = None

    def run(p):
        nonlocal best
        labels, ex, conv, _ = affinity_propagation(S, p, **ap_kw)
        k = len(ex) if labels is not None and conv else None
        if k is not None and k < n_clusters and (best is None or k > len(best[2])):
            best = (p, labels, ex)
        return k, labels, ex

    steps = 0
    if start is not None:
        k, labels, ex = run(float(start))
        steps += 1
        if k == n_clusters:
            return float(start), labels, ex, True
    lo = float(off.min()) - span
    for t in range(30):
        k, labels, ex = run(lo)
        steps += 1
        if k == n_clusters:
            return lo, labels, ex, True
        if k is not None and k < n_clusters:
            break
        hi = lo
        lo = float(off.min()) - span * 2.0 ** (t + 1)
    while steps < max_steps and hi - lo > 1e-9 * max(1.0, abs(hi)):
        p = (lo + hi) / 2.0
        k, labels, ex = run(p)
        steps += 1
        if k == n_clusters:
            return p, labels, ex, True
        if k is None or k > n_clusters:
            hi = p
        else:
            lo = p
    if best is None:
        raise ConvergenceError(f"ssap: affinity propagation did not converge to {n_clusters} clusters "
                               "for any preference; raise max_iter or damping")
    return best[0], best[1], best[2], False


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
        rounds=8, damping=0.9, max_iter=500, convergence_iter=15, ap_nodes=300) -> SpectralResult:
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

    **Graph.** With ``affinity='boundary'`` (adjacency of touching superpixels weighted by
    colour difference and edge strength, :func:`core.graph.affinity.boundary_affinity`) the
    method receives its diffusion kernel ``(I + t L_sym)^-1`` at unit diagonal
    (:func:`core.graph.affinity.diffusion_kernel`).
    ssap's similarities are ``2 log K_ij`` (Method 1), defined for every pair: it gets the
    diffusion kernel, positive everywhere. Method 2 learns a metric on the node features and
    uses no graph.
    With ``affinity='gaussian'`` it receives the paper's Gaussian in position and colour.

    **Rounding.** ``rounding='paper'`` keeps the step above; the default ``'constrained'``
    (our addition) re-rounds this embedding: :mod:`core.spectral.rounding`.

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
    else:
        S = 2.0 * np.log(np.clip(K, 1e-300, None))
        S = (S + S.T) / 2.0
    scale = max(float(np.median(np.abs(S[~np.eye(n, dtype=bool)]))), 1e-12)
    def search(S, start):  # the first round's S is the constraints-free one: kept per graph
        key = ("ssap-search", hashlib.blake2b(S.tobytes(), digest_size=16).hexdigest(), n_clusters, start,
               tuple(sorted(ap_kw.items())))
        return memo(cache, key, lambda: preference_for(S, n_clusters, ap_kw, start=start))

    pref, done, best = None, 0, None
    for done in range(1, rounds + 1):
        pref, labels, ex, exact = search(S, pref)
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
    spec = njw(disp, n_clusters, rng, what="learned similarity graph")
    info = {"preference": float(pref), "rounds": done, "best_round": best_round, "n_violated": n_viol,
            "exemplars": ex.tolist()}
    return SpectralResult(labels.astype(np.int64), spec.embedding, spec.eigenvalues, None, info)


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
