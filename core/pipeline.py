"""The graph-level pipeline both front doors share.

:func:`core.segment` (images) and :class:`core.ConstrainedSpectralClustering` (any data)
each build an affinity and node constraints their own way, then call :func:`run_method`:
contradiction warnings, the method, translation of numerical failures into
:class:`~core.errors.ConvergenceError`, and an embedding padded to at least three columns.
"""

from __future__ import annotations

import warnings

import numpy as np

from ._threads import one_blas_thread
from .errors import ContradictoryConstraintsWarning, ConvergenceError, ParameterError, SegappError
from .graph import GRAPH_PARAMS
from .graph.node_constraints import NodeConstraints, warn_contradictions
from .methods import METHODS
from .params import MethodSpec, resolve
from .spectral import SpectralResult, row_normalize
from .spectral.rounding import ROUNDING_PARAMS, constrained_labels, overruled_nodes

MIN_SHOWN = 3  # eigenvectors every result carries (missing ones: zero columns, eigenvalue NaN)

# The settings every method shares: the graph (nodes, affinity, strokes) and the rounding.
SHARED_PARAMS = GRAPH_PARAMS + ROUNDING_PARAMS


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
               features: np.ndarray | None = None, warn: bool = True,
               rounding: str = "constrained", rounding_prior: float = 0.0,
               rounding_colouring: str = "auto", graph=None,
               cache=None, rounding_nc: NodeConstraints | None = None,
               parent: np.ndarray | None = None, previous: np.ndarray | None = None,
               rounding_stability: float = 0.0, appearance=None,
               rounding_looks: float = 0.0, rounding_appearance: float = 0.0) -> SpectralResult:
    """Run one method on a graph: the step both :func:`core.segment` and the estimator share.

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
    warn : bool
        Warn about node-level contradictions (the caller may have warned at pixel level).
    rounding : {'constrained', 'paper'}
        ``'constrained'`` re-rounds the method's embedding so that the labels honour every
        consistent constraint (:mod:`core.spectral.rounding`, our addition);
        ``'paper'`` keeps the paper's own labels.
    rounding_prior, rounding_colouring, rounding_stability, rounding_looks
        See :data:`~core.spectral.rounding.ROUNDING_PARAMS`.
    appearance : tuple (colors, sizes), optional
        Node mean colours (n', 3) and pixel counts (n',) of the nodes the constrained
        rounding labels: what the stroked regions look like (``rounding_looks``).
    previous : ndarray, shape (n',), int, optional
        Each node's segment (of the nodes the constrained rounding labels) in the result
        shown before this edit, -1 where unknown.
    graph : sparse matrix or ndarray, shape (n, n), optional
        The image graph the constrained rounding walks on (default ``K``).
    cache : ScopedCache, optional
        Where the method keeps what does not depend on the constraints
        (:mod:`core.graph.cache`), keyed by ``K``'s settings; ``None``: nothing is kept.
    rounding_nc : NodeConstraints, optional
        The constraints on the nodes the constrained rounding labels, when those are ``K``'s
        nodes split where strokes meet (:func:`core.graph.refine.refine`); ``graph`` is then
        on the split nodes too. Default: ``nc``.
    parent : ndarray, shape (n',), int, optional
        With ``rounding_nc``: the node of ``K`` each split node came from. The result's
        labels and embedding are then on the split nodes.

    Returns
    -------
    SpectralResult
        With at least :data:`MIN_SHOWN` embedding columns.

    Raises
    ------
    ConvergenceError
        A numerical failure inside the method (singular system, NaN), with the method named.
    """
    rounded = rounding == "constrained" and bool(nc.strokes) and spec.name != "ncut"
    final = rounding_nc if rounded and rounding_nc is not None else nc
    if warn and spec.name != "ncut" and not rounded:
        warn_contradictions(nc, stacklevel=4)
    try:
        with np.errstate(all="ignore"), one_blas_thread():  # node-level products: see core._threads
            res = spec.fit(K, nc, n_clusters, rng, features=features, cache=cache, **params)
    except SegappError:
        raise
    except (np.linalg.LinAlgError, ValueError, ArithmeticError) as e:
        raise ConvergenceError(f"{spec.name}: numerical failure ({type(e).__name__}: {e})") from None
    res.info["rounding"] = rounding
    if rounded:
        E = res.cluster_embedding
        if E is None:  # no embedding of its own was clustered (ssap): its display embedding
            E = row_normalize(res.embedding[:, :n_clusters])
        labels0 = res.labels
        if final is not nc:
            E, labels0, res.embedding = E[parent], labels0[parent], res.embedding[parent]
        res.labels, resolution = constrained_labels(E, labels0, final, n_clusters,
                                                    graph=K if graph is None else graph,
                                                    prior_weight=rounding_prior,
                                                    colouring=rounding_colouring, previous=previous,
                                                    stability=rounding_stability,
                                                    appearance=appearance, looks_weight=rounding_looks,
                                                    appearance_weight=rounding_appearance)
        res.info["overruled"] = [k for k, ok in enumerate(resolution.honoured) if not ok]
        # what the eigenvector view shows beside the vectors: where the strokes, not the
        # method's own rounding, decided the label
        res.info["overruled_nodes"] = overruled_nodes(labels0, res.labels)
        if warn and res.info["overruled"]:  # what the final labels do not honour, by name
            names = {"must": "must-link", "cannot": "cannot-link", "block": "block"}
            said = [f"{names[final.strokes[k].kind]} #{final.strokes[k].index}" for k in res.info["overruled"]]
            more = f" (and {len(said) - 1} more)" if len(said) > 1 else ""
            why = (nc.contradictions[0] if final is nc and nc.contradictions else
                   "newer constraints contradict it at the resolution of the graph (ends on one "
                   "working pixel, or more cannot-linked groups than segments)")
            warnings.warn(f"contradictory constraints: {said[0]}{more} not honoured: {why}",
                          ContradictoryConstraintsWarning, stacklevel=3)
    return pad_embedding(res)
