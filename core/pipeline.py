"""The graph-level pipeline both front doors share.

:func:`core.segment` (images) and :class:`core.ConstrainedSpectralClustering` (any data)
each build an affinity, node constraints and the constraint step's input their own way, then
call :func:`run_method` (the method, translation of numerical failures into
:class:`~core.errors.ConvergenceError`, an embedding padded to at least three columns) and
:func:`constrain` (the constraint step, or contradiction warnings where it does not run).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ._threads import one_blas_thread
from .errors import ConvergenceError, ParameterError, SegappError
from .graph import GRAPH_PARAMS
from .graph.node_constraints import NodeConstraints, warn_contradictions
from .methods import METHODS
from .params import MethodSpec, check_seed, resolve
from .spectral import SpectralResult
from .constraint_step import ROUNDING_PARAMS, ConstraintStep, apply_step
from .constraint_step.stage import clustered_embedding
from .pixel_refinement import PIXEL_PARAMS

MIN_SHOWN = 3  # eigenvectors every result carries (missing ones: zero columns, eigenvalue NaN)

# The settings every method shares: the graph (nodes, affinity, strokes), the rounding and
# the pixel refinement.
SHARED_PARAMS = GRAPH_PARAMS + ROUNDING_PARAMS + PIXEL_PARAMS


def check_method(method: str) -> MethodSpec:
    """The registered :class:`~core.params.MethodSpec` of ``method``.

    Raises
    ------
    ParameterError
        Listing the valid methods.
    """
    if not isinstance(method, str) or method not in METHODS:
        raise ParameterError(f"unknown method {method!r}; valid methods: {', '.join(METHODS)}")
    return METHODS[method]


def method_params(spec: MethodSpec, given: dict) -> dict:
    """``given`` validated against the method's parameter specs, defaults filled."""
    return resolve(spec.params, dict(given), f"method {spec.name!r}")


def node_cap(spec: MethodSpec, params: dict, max_nodes: int) -> int:
    """The most graph nodes the method may get: ``max_nodes``, or less when the method caps
    it through one of its parameters (:attr:`MethodSpec.node_cap`, e.g. ssap's ``ap_nodes``)."""
    if spec.node_cap is None:
        return int(max_nodes)
    return int(min(max_nodes, params[spec.node_cap]))


def pad_embedding(res: SpectralResult, m: int = MIN_SHOWN) -> SpectralResult:
    """Give ``res`` at least ``m`` embedding columns (zeros) and eigenvalues (NaN)."""
    emb, ev = res.embedding, np.asarray(res.eigenvalues, float)
    if emb.shape[1] < m:
        emb = np.hstack([emb, np.zeros((emb.shape[0], m - emb.shape[1]))])
        ev = np.concatenate([ev, np.full(m - len(ev), np.nan)])
    res.embedding, res.eigenvalues = emb, ev
    return res


def run_method(spec: MethodSpec, K, nc: NodeConstraints, n_clusters: int, rng, *, params: dict,
               features: np.ndarray | None = None, cache=None) -> SpectralResult:
    """Fit one method on a graph: the step both :func:`core.segment` and the estimator share.

    Parameters
    ----------
    spec : MethodSpec
    K : ndarray, shape (n, n)
        Affinity.
    nc : NodeConstraints
    n_clusters : int
    rng : numpy.random.RandomState
        Converted once by the caller.
    params : dict
        The method's parameters, already validated (:func:`method_params`).
    features : ndarray, shape (n, d), optional
        Scaled node features for the methods that use them (rom's eq. 8, ssap Method 2).
    cache : ScopedCache, optional
        Where the method keeps what does not depend on the constraints
        (:mod:`core.graph.cache`), keyed by ``K``'s settings; ``None``: nothing is kept.

    Returns
    -------
    SpectralResult
        The method's own result, with at least :data:`MIN_SHOWN` embedding columns.

    Raises
    ------
    ConvergenceError
        A numerical failure inside the method (singular system, NaN), with the method named.
    """
    try:
        with np.errstate(all="ignore"), one_blas_thread():  # node-level products: see core._threads
            res = spec.fit(K, nc, n_clusters, rng, features=features, cache=cache, **params)
    except SegappError:
        raise
    except (np.linalg.LinAlgError, ValueError, ArithmeticError) as e:
        raise ConvergenceError(f"{spec.name}: numerical failure ({type(e).__name__}: {e})") from None
    return pad_embedding(res)


def unconstrained_result(spec: MethodSpec, K, n_nodes: int, n_clusters: int, random_state, *, params: dict,
                         features: np.ndarray | None = None, cache=None) -> Callable[[], tuple]:
    """A function giving the method's own result on ``K`` without strokes: labels ``(n,)``
    and the embedding it clustered (its row-normalised display vectors where it clustered
    none, as ssap), what the constraint step reads where the method's labels with the
    strokes are a blob (:func:`core.constraint_step.stage.unreached_source`).

    Run with a fresh generator from ``random_state`` (the one seed) and kept per graph in
    ``cache`` (unless ``random_state`` is a generator, whose state moves).
    """
    def build():
        nc0 = NodeConstraints.from_pairs(n_nodes)
        res = run_method(spec, K, nc0, n_clusters, check_seed(random_state), params=params,
                         features=features, cache=cache)
        return np.asarray(res.labels, np.int64), clustered_embedding(res, n_clusters)
    if cache is None or isinstance(random_state, np.random.RandomState):
        return build
    key = ("unconstrained-result", spec.name, n_clusters, repr(random_state),
           tuple(sorted((k, repr(v)) for k, v in params.items())))
    return lambda: cache.get(key, build)


def constrain(res: SpectralResult, spec: MethodSpec, nc: NodeConstraints, step: ConstraintStep | None, *,
              rounding: str, warn: bool = True) -> SpectralResult:
    """The method's result through the constraint step (:mod:`core.constraint_step`).

    ``step`` is ``None`` where the step does not run (``rounding='paper'``, or the
    unconstrained ncut baseline); it also does not run without strokes. Where it does not,
    contradictions among the constraints are warned about here (``warn``; the caller may
    have warned at pixel level; never for ncut, which takes no constraints); where it
    does, the strokes it could not honour are named.
    """
    res.info["rounding"] = rounding
    if step is not None and nc.strokes:
        return apply_step(res, step, nc, warn=warn)
    if warn and spec.name != "ncut":
        warn_contradictions(nc, stacklevel=4)  # <- constrain <- segment / fit <- the user's code
    return res
