"""Semi-supervised affinity propagation (Conroy & Xi 2009)."""

from __future__ import annotations

import hashlib
import warnings

import numpy as np

from ..errors import ConvergenceWarning, ParameterError
from ..graph.cache import memo
from ..params import MethodSpec, ParamSpec
from ..spectral import SpectralResult
from ..spectral.affinity_propagation import preference_for
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
    ParamSpec("warm_start", bool, True,
              "Start each round's first AP run from the previous round's messages instead of "
              "zero, so AP goes on passing messages while the similarities change, as in the "
              "paper's feedback loop. It lands on other fixed points of AP than a restart; "
              "measured on the 200 BSDS train images (regions-first user) and the 50 GrabCut "
              "images: half the time per stroke, final ARI and NoC@90 as good or better "
              "(bench/results/tuning.md, twenty-second session). False: every round restarts "
              "AP from zero messages."),
)


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
    ``(G_i diag(alpha) G_j^T + G_j diag(alpha) G_i^T) / 2``, with the links gathered by
    their end nodes: ``G_i diag(alpha) G_j^T = G_I W G_J^T``, ``I`` and ``J`` the distinct
    first and second ends and ``W[a, b]`` the summed ``alpha`` of the links from ``I[a]`` to
    ``J[b]`` (the same sum; a stroke's two neighbourhoods give many links among few nodes:
    after 100 strokes on 100075.jpg 636 links between 104 and 111 nodes, 4.7 -> 1.9 ms).
    """
    if len(links) == 0:
        return S
    sig = _sigma(S, labels, ex)
    I, a = np.unique(links[:, 0], return_inverse=True)
    J, b = np.unique(links[:, 1], return_inverse=True)
    W = np.zeros((len(I), len(J)))
    np.add.at(W, (a, b), step * np.asarray(gaps, float))
    GI = np.exp(-(S[:, I] / sig[I]) ** 2)
    GJ = np.exp(-(S[:, J] / sig[J]) ** 2)
    upd = (GI @ W) @ GJ.T
    S += sign * (upd + upd.T) / 2.0
    return S


def fit(K: np.ndarray, nc, n_clusters: int, rng, features=None, cache=None, *, variant="gaussian", step=1.0,
        rounds=8, damping=0.9, max_iter=500, convergence_iter=15, ap_nodes=300, precision="float32",
        warm_start=True) -> SpectralResult:
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
    step, rounds, damping, max_iter, convergence_iter, ap_nodes, precision, warm_start : see :data:`PARAMS`.

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
    misses, searches as in the first round; with ``warm_start`` (default) its first run also
    starts from the previous round's messages (about half the time per stroke on the
    Berkeley and GrabCut users). The paper fixes the preference; the search is
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
    S, scale, X, dvec = _initial_similarity(K, features, variant, cache)
    search = _RoundSearch(n_clusters, ap_kw, precision, warm_start, cache)
    pref, done, best = None, 0, None
    for done in range(1, rounds + 1):
        pref, labels, ex, exact = search(S, pref)
        vm, vc = _violated(nc, labels)
        n_viol = int(vm.sum() + vc.sum())
        if best is None or n_viol <= best[0]:
            best = (n_viol, labels, ex, exact, pref, S.copy(), done)
        if n_viol == 0 or done == rounds:
            break
        if variant == "metric":
            S, dvec = _metric_update(X, dvec, nc, vm, vc, step)
        else:
            S = _gaussian_round(S, nc, vm, vc, step, scale, labels, ex)
    n_viol, labels, ex, exact, pref, S, best_round = best
    if not exact:
        warnings.warn(f"ssap: no preference gave exactly {n_clusters} clusters; "
                      f"{len(ex)} clusters are returned", ConvergenceWarning, stacklevel=3)
    w, v, isq = _shown_spectrum(S, variant, n, n_clusters, cache if best_round == 1 else None)
    info = {"preference": float(pref), "rounds": done, "best_round": best_round, "n_violated": n_viol,
            "exemplars": ex.tolist()}
    return SpectralResult(labels.astype(np.int64), fix_signs(v[:, 1:] * isq[:, None]), 1.0 - w[1:], None, info)


def _initial_similarity(K, features, variant: str, cache):
    """Round 1's similarity ``S`` (n, n) and its median dissimilarity; for Method 2 also the
    unit-norm centred features ``X`` and the metric's diagonal ``dvec`` (else ``None``)."""
    if variant == "metric":
        if features is None:
            raise ParameterError("ssap variant 'metric' (Method 2) needs features; with a precomputed "
                                 "affinity use variant='gaussian'")
        X = features - features.mean(0)
        X /= np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1e-12)
        dvec = np.ones(X.shape[1]) / np.sqrt(X.shape[1])
        S = (X * dvec) @ X.T
        return S, _median_dissimilarity(S), X, dvec
    S0, scale = memo(cache, ("ssap-similarity",), lambda: _log_similarity(K))  # stroke-independent
    return S0.copy(), scale, None, None


class _RoundSearch:
    """Each round's preference search (:func:`preference_for`), kept per graph: the first
    round's ``S`` is the constraints-free one. With warm starts a later round's key also
    holds the chain of keys whose messages started it, and its value those messages."""

    def __init__(self, n_clusters: int, ap_kw: dict, precision: str, warm_start: bool, cache):
        self.n_clusters, self.ap_kw, self.precision = n_clusters, ap_kw, precision
        self.warm_start, self.cache = warm_start, cache
        self.msgs, self.chain = None, ""

    def __call__(self, S: np.ndarray, start):
        """``(preference, labels, exemplars, exact)`` for this round's ``S``."""
        S_ap = S.astype(np.float32) if self.precision == "float32" else S
        h = hashlib.blake2b(S_ap.tobytes(), digest_size=16)
        if self.msgs is not None:
            h.update(self.chain.encode())
        kind = "ssap-round" if self.msgs is not None else "ssap-search"
        key = (kind, h.hexdigest(), self.n_clusters, start, self.warm_start, tuple(sorted(self.ap_kw.items())))
        msgs = self.msgs

        def build():
            out = preference_for(S_ap, self.n_clusters, self.ap_kw, start=start, messages=msgs,
                                 return_messages=True)
            return out if self.warm_start else out[:4] + (None,)
        if kind == "ssap-round" and len(S) > ROUND_CACHE_NODES:  # 8 entries of 2 n^2 messages: not kept
            out = build()
        else:
            out = memo(self.cache, key, build)
        pref, labels, ex, exact, self.msgs = out
        self.chain = key[1]
        return pref, labels, ex, exact


def _violated(nc, labels: np.ndarray):
    """Which must-links (``vm``) and cannot-links (``vc``) the clustering breaks."""
    vm = labels[nc.must[:, 0]] != labels[nc.must[:, 1]] if len(nc.must) else np.zeros(0, bool)
    vc = labels[nc.cannot[:, 0]] == labels[nc.cannot[:, 1]] if len(nc.cannot) else np.zeros(0, bool)
    return vm, vc


def _metric_update(X, dvec, nc, vm, vc, step: float):
    """Method 2: a step along eq. 7's gradient, averaged over the violated links, keeping
    ``d_k > 0`` and ``||d|| = 1``; the new similarity and diagonal."""
    nv = int(vm.sum() + vc.sum())
    grad = (X[nc.must[vm, 0]] * X[nc.must[vm, 1]]).sum(0) - (X[nc.cannot[vc, 0]] * X[nc.cannot[vc, 1]]).sum(0)
    dvec = np.maximum(dvec + step * grad / nv, 1e-6)
    dvec /= np.linalg.norm(dvec)
    return (X * dvec) @ X.T, dvec


def _gaussian_round(S, nc, vm, vc, step: float, scale: float, labels, ex):
    """Method 1: eq. 3-4 for every violated link, this round's alpha_ij budget
    (``step`` x the median dissimilarity) shared by them; symmetrised."""
    nv = int(vm.sum() + vc.sum())
    share = np.full(nv, scale / nv)
    S = gaussian_update(S, nc.must[vm], +1.0, step, labels, ex, share[:int(vm.sum())])
    S = gaussian_update(S, nc.cannot[vc], -1.0, step, labels, ex, share[int(vm.sum()):])
    return (S + S.T) / 2.0


def _shown_spectrum(S, variant: str, n: int, n_clusters: int, cache):
    """The leading eigenpairs of the learned similarity as an affinity (``exp(s / 2)`` for
    Method 1, rescaled to [0, 1] for Method 2), shown beside AP's clusters; kept per graph
    when ``cache`` is given (round 1's similarity, Method 1 only)."""
    if variant == "metric":
        disp = (S - S.min()) / max(S.max() - S.min(), 1e-12)
    else:
        disp = np.exp(np.minimum(S, 0.0) / 2.0)
    if not (disp > 0).all():  # all positive: one component, nothing to warn about
        check_connected(disp, "learned similarity graph", stacklevel=4)
    k = min(n, max(n_clusters, N_SHOW + 1))
    if cache is not None and variant != "metric":  # the constraints-free similarity
        return memo(cache, ("ssap-display", k), lambda: spectrum(disp, k))
    return spectrum(disp, k)


SPEC = MethodSpec(
    name="ssap",
    description="Affinity propagation whose similarities are updated from violated constraints "
                "each round (Method 1: Gaussian kernel; Method 2: diagonal metric); preference "
                "by bisection for the number of segments.",
    plain=("Picks an example region per segment and groups the others around them, adjusting "
           "similarities until the strokes hold; slower."),
    reference="Conroy & Xi, 2009; Frey & Dueck, Science 2007",
    params=PARAMS,
    fit=fit,
    node_cap="ap_nodes",
    regularised=False,  # its similarities are 2 log K: core.graph.affinity.regularised
)
