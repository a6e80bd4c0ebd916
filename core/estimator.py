"""A scikit-learn estimator over every method, for any data (not only images)."""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_array

from .errors import ConstraintError, ParameterError
from .graph.affinity import median_gamma, rbf_affinity
from .graph.node_constraints import NodeConstraints
from .pipeline import check_method, method_params, run_method
from .spectral.rounding import ROUNDINGS

MAX_SAMPLES = 5000


def _links(pairs, n, kind):
    if pairs is None:
        return np.zeros((0, 2), np.int64), np.zeros(0)
    rows = [list(p) for p in pairs]
    if not rows:
        return np.zeros((0, 2), np.int64), np.zeros(0)
    if any(len(r) not in (2, 3) for r in rows):
        raise ConstraintError(f"each {kind} must be (i, j) or (i, j, weight)")
    ij = np.array([r[:2] for r in rows])
    if not np.issubdtype(ij.dtype, np.integer):
        raise ConstraintError(f"{kind} sample indices must be integers")
    if ij.min() < 0 or ij.max() >= n:
        raise ConstraintError(f"{kind} index out of range 0..{n - 1}")
    w = np.array([float(r[2]) if len(r) == 3 else 1.0 for r in rows])
    if np.any((w <= 0) | (w > 1)):
        raise ConstraintError(f"{kind} weights must be in (0, 1]")
    return ij.astype(np.int64), w


class ConstrainedSpectralClustering(ClusterMixin, BaseEstimator):
    """Constrained spectral clustering with any method of :data:`core.METHODS`.

    Parameters
    ----------
    method : str, default 'csp'
    n_clusters : int, default 2
    affinity : {'rbf', 'precomputed'}, default 'rbf'
        ``'precomputed'`` takes ``X`` as an (n, n) affinity.
    gamma : float or None
        RBF width ``exp(-gamma ||x - y||^2)``; ``None`` = 1 / median squared distance.
    random_state : int, RandomState or None
    rounding : {'constrained', 'paper'}, default 'constrained'
        ``'constrained'``: labels honour every consistent constraint
        (:mod:`core.spectral.rounding`); ``'paper'``: the method's own rounding.
    **method_params
        The method's parameters (see ``core.METHODS[method].params``).

    Attributes
    ----------
    labels_ : ndarray, shape (n_samples,)
    embedding_ : ndarray, shape (n_samples, m)
        Leading non-trivial eigenvectors (csp: ``u*`` first).
    eigenvalues_ : ndarray, shape (m,)
    affinity_matrix_ : ndarray, shape (n_samples, n_samples) or None
        The constrained affinity that was clustered, where the method has one.
    info_ : dict

    Notes
    -----
    Dense ``n x n`` matrices are formed, so ``n_samples`` is limited to 5000.
    """

    def __init__(self, method="csp", n_clusters=2, affinity="rbf", gamma=None, random_state=None,
                 rounding="constrained", **method_params):
        self.method = method
        self.rounding = rounding
        self.n_clusters = n_clusters
        self.affinity = affinity
        self.gamma = gamma
        self.random_state = random_state
        self.method_params = method_params
        for k, v in method_params.items():
            setattr(self, k, v)

    def get_params(self, deep=True):
        out = {k: getattr(self, k) for k in ("method", "n_clusters", "affinity", "gamma", "random_state", "rounding")}
        out.update({k: getattr(self, k) for k in self.method_params})
        return out

    def set_params(self, **params):
        for k, v in params.items():
            if k not in ("method", "n_clusters", "affinity", "gamma", "random_state", "rounding"):
                self.method_params = {**self.method_params, k: v}
            setattr(self, k, v)
        return self

    def fit(self, X, y=None, must_link=None, cannot_link=None):
        """Cluster ``X`` with pairwise constraints.

        Parameters
        ----------
        X : array-like, shape (n_samples, n_features) or (n_samples, n_samples)
        y : ignored
        must_link, cannot_link : sequence of (i, j) or (i, j, weight), optional
            Sample indices; weight in (0, 1] is the degree of belief.

        Returns
        -------
        self
        """
        spec = check_method(self.method)
        params = method_params(spec, self.method_params)
        if self.affinity not in ("rbf", "precomputed"):
            raise ParameterError(f"unknown affinity {self.affinity!r}; valid: 'rbf', 'precomputed'")
        X = check_array(X, dtype=np.float64, ensure_min_samples=2)
        n = X.shape[0]
        if n > MAX_SAMPLES:
            raise ParameterError(f"{n} samples: dense methods are limited to {MAX_SAMPLES}")
        if isinstance(self.n_clusters, bool) or not isinstance(self.n_clusters, (int, np.integer)) \
                or not 2 <= self.n_clusters <= n:
            raise ParameterError(f"n_clusters must be an integer in [2, {n}], got {self.n_clusters!r}")
        if self.affinity == "precomputed":
            if X.shape[0] != X.shape[1]:
                raise ParameterError(f"a precomputed affinity must be square, got {X.shape}")
            if not np.allclose(X, X.T) or X.min() < 0:
                raise ParameterError("a precomputed affinity must be symmetric and non-negative")
            K, feats, gamma = X, None, None
        else:
            gamma = median_gamma(X) if self.gamma is None else float(self.gamma)
            if not gamma > 0:
                raise ParameterError(f"gamma must be positive, got {self.gamma!r}")
            K = rbf_affinity(X, gamma)
            feats = X * np.sqrt(2 * gamma)  # so that K = exp(-||f_i - f_j||^2 / 2)
        m, mw = _links(must_link, n, "must-link")
        c, cw = _links(cannot_link, n, "cannot-link")
        nc = NodeConstraints.from_pairs(n, m, c, mw, cw)
        rng = check_random_state(self.random_state)
        if self.rounding not in ROUNDINGS:
            raise ParameterError(f"unknown rounding {self.rounding!r}; valid: {', '.join(ROUNDINGS)}")
        res = run_method(spec, K, nc, int(self.n_clusters), rng, params=params, features=feats,
                         rounding=self.rounding)
        self.labels_ = res.labels
        self.embedding_ = res.embedding
        self.eigenvalues_ = res.eigenvalues
        self.affinity_matrix_ = res.affinity
        self.info_ = {**res.info, "gamma": gamma}
        return self

    def fit_predict(self, X, y=None, must_link=None, cannot_link=None):
        return self.fit(X, y, must_link=must_link, cannot_link=cannot_link).labels_
