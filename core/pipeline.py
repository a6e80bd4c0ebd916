"""The graph-level pipeline both front doors share.

:func:`core.segment` (images) and :class:`core.ConstrainedSpectralClustering` (any data)
each build an affinity and node constraints their own way, then call :func:`run_method`:
contradiction warnings, the method, translation of numerical failures into
:class:`~core.errors.ConvergenceError`, and an embedding padded to at least three columns.
"""

from __future__ import annotations

import numpy as np

from .errors import ConvergenceError, ParameterError, SegappError
from .graph.node_constraints import NodeConstraints, warn_contradictions
from .methods import METHODS
from .params import MethodSpec, resolve
from .spectral import SpectralResult

MIN_SHOWN = 3  # eigenvectors every result carries (missing ones: zero columns, eigenvalue NaN)


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
               features: np.ndarray | None = None, warn: bool = True) -> SpectralResult:
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

    Returns
    -------
    SpectralResult
        With at least :data:`MIN_SHOWN` embedding columns.

    Raises
    ------
    ConvergenceError
        A numerical failure inside the method (singular system, NaN), with the method named.
    """
    if warn and spec.name != "ncut":
        warn_contradictions(nc, stacklevel=4)
    try:
        with np.errstate(all="ignore"):
            res = spec.fit(K, nc, n_clusters, rng, features=features, **params)
    except SegappError:
        raise
    except (np.linalg.LinAlgError, ValueError, ArithmeticError) as e:
        raise ConvergenceError(f"{spec.name}: numerical failure ({type(e).__name__}: {e})") from None
    return pad_embedding(res)
