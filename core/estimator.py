"""A scikit-learn estimator over every method, for any data (not only images)."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.utils._param_validation import Interval, InvalidParameterError, StrOptions

from .constraint_step import ROUNDING_PARAMS, ROUNDINGS, ConstraintStep
from .constraints import Kind
from .errors import ConstraintError, InvalidDataError, ParameterError
from .graph.affinity import median_gamma, rbf_affinity
from .graph.node_constraints import NodeConstraints
from .methods import METHODS
from .params import check_seed
from .pipeline import check_method, constrain, method_params, run_method, unconstrained_result

try:  # scikit-learn >= 1.6
    from sklearn.utils.validation import validate_data
except ImportError:  # pragma: no cover - older scikit-learn
    def validate_data(est, X, **kwargs):
        return est._validate_data(X, **kwargs)

MAX_SAMPLES = 5000

# the constraint step's margin for the method's result without strokes (rounding_unconstrained)
_UNCONSTRAINED_MARGIN = next(p.default for p in ROUNDING_PARAMS if p.name == "rounding_unconstrained")


def _links(pairs, n: int, kind: str) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Sample-index pairs, their weights, and notes on pairs that cannot be honoured.

    Raises
    ------
    ConstraintError
        A pair that is not (i, j) or (i, j, weight), an index that is not an integer in
        [0, n), a weight that is not a number in (0, 1].
    """
    empty = np.zeros((0, 2), np.int64), np.zeros(0), []
    if pairs is None:
        return empty
    if isinstance(pairs, (str, bytes, dict)) or not hasattr(pairs, "__iter__"):
        raise ConstraintError(f"{kind}s must be a sequence of (i, j) or (i, j, weight), "
                              f"got {type(pairs).__name__}")
    ij, w, notes = [], [], []
    for k, p in enumerate(pairs):
        if isinstance(p, (str, bytes, dict)) or not hasattr(p, "__iter__") or len(list(p)) not in (2, 3):
            raise ConstraintError(f"{kind} #{k} must be (i, j) or (i, j, weight), got {p!r:.60}")
        p = list(p)
        for v in p[:2]:
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise ConstraintError(f"{kind} #{k} sample index {v!r:.40} is not an integer")
            if not 0 <= v < n:
                raise ConstraintError(f"{kind} #{k} sample index {v} is out of range 0..{n - 1}")
        wt = 1.0
        if len(p) == 3:
            if isinstance(p[2], bool) or not isinstance(p[2], (Integral, Real)):
                raise ConstraintError(f"{kind} #{k} weight {p[2]!r:.40} is not a number")
            wt = float(p[2])
            if not 0.0 < wt <= 1.0:  # also refuses NaN
                raise ConstraintError(f"{kind} #{k} weight {wt!r} is outside (0, 1]")
        if kind == Kind.CANNOT_LINK.label and p[0] == p[1]:
            notes.append(f"cannot-link #{k} joins sample {int(p[0])} to itself; it cannot be honoured")
        ij.append((int(p[0]), int(p[1])))
        w.append(wt)
    if not ij:
        return empty
    return np.array(ij, np.int64), np.array(w), notes


class ConstrainedSpectralClustering(ClusterMixin, BaseEstimator):
    """Constrained spectral clustering with any method of :data:`core.METHODS`.

    Parameters
    ----------
    method : str, default 'csp'
        A key of :data:`core.METHODS`.
    n_clusters : int, default 2
        At most the number of samples. 1 is accepted as scikit-learn's clusterers accept it:
        every sample in cluster 0, no embedding computed (``embedding_`` has no columns); a
        cannot-link cannot hold then and is warned about.
    affinity : {'rbf', 'precomputed'}, default 'rbf'
        ``'precomputed'`` takes ``X`` as an (n, n) symmetric non-negative affinity.
    gamma : float or None, default None
        RBF width ``exp(-gamma ||x - y||^2)``, positive and finite; ``None`` = 1 / median
        squared distance.
    method_params : dict or None, default None
        The method's parameters by name (see ``core.METHODS[method].params``), as
        scikit-learn's ``kernel_params``; ``None`` = the method's defaults.
    random_state : int, RandomState or None, default None
        Seeds k-means (an int in [0, 2**32 - 1]).
    rounding : {'constrained', 'paper'}, default 'constrained'
        ``'constrained'``: labels honour every consistent constraint
        (:mod:`core.constraint_step`); ``'paper'``: the method's own rounding.

    Attributes
    ----------
    labels_ : ndarray, shape (n_samples,)
    embedding_ : ndarray, shape (n_samples, m)
        Leading non-trivial eigenvectors (csp: ``u*`` first).
    eigenvalues_ : ndarray, shape (m,)
    affinity_matrix_ : ndarray, shape (n_samples, n_samples) or None
        The constrained affinity that was clustered, where the method has one.
    n_features_in_ : int
        Columns of ``X`` (for ``affinity='precomputed'``: ``n_samples``).
    feature_names_in_ : ndarray of str, shape (n_features_in_,)
        Only when ``X`` had string column names (a pandas DataFrame).
    info_ : dict
        Method diagnostics and the ``gamma`` used.

    Notes
    -----
    Dense ``n x n`` matrices are formed, so ``n_samples`` is limited to 5000. Every bad
    input raises one of segapp's errors (:class:`~core.errors.ParameterError`,
    :class:`~core.errors.InvalidDataError`, :class:`~core.errors.ConstraintError`), all
    ``ValueError`` subclasses as scikit-learn expects. A cannot-link of a sample with itself
    cannot be honoured: it is reported with a
    :class:`~core.errors.ContradictoryConstraintsWarning`.
    """

    _parameter_constraints = {
        "method": [StrOptions(set(METHODS))],
        "n_clusters": [Interval(Integral, 1, None, closed="left")],
        "affinity": [StrOptions({"rbf", "precomputed"})],
        "gamma": [Interval(Real, 0, None, closed="neither"), None],
        "method_params": [dict, None],
        "random_state": ["random_state"],
        "rounding": [StrOptions(set(ROUNDINGS))],
    }

    def __init__(self, method="csp", n_clusters=2, *, affinity="rbf", gamma=None, method_params=None,
                 random_state=None, rounding="constrained"):
        self.method = method
        self.rounding = rounding
        self.n_clusters = n_clusters
        self.affinity = affinity
        self.gamma = gamma
        self.method_params = method_params
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.affinity == "precomputed"
        return tags

    def _checked_params(self):
        try:
            self._validate_params()
        except InvalidParameterError as e:
            raise ParameterError(str(e)) from None
        if self.gamma is not None and not np.isfinite(self.gamma):
            raise ParameterError(f"gamma must be a positive finite number or None, got {self.gamma!r}")
        spec = check_method(self.method)
        return spec, method_params(spec, self.method_params or {})

    def _checked_data(self, X) -> np.ndarray:
        try:
            X = validate_data(self, X, dtype=np.float64, ensure_min_samples=2)
        except (ValueError, TypeError) as e:
            raise InvalidDataError(" ".join(str(e).split())) from None
        n = X.shape[0]
        if n > MAX_SAMPLES:
            raise InvalidDataError(f"{n} samples: dense methods are limited to {MAX_SAMPLES}")
        if self.affinity == "precomputed":
            if X.shape[0] != X.shape[1]:
                raise InvalidDataError(f"a precomputed affinity must be square, got shape {X.shape}")
            if not np.allclose(X, X.T) or X.min() < 0:
                raise InvalidDataError("a precomputed affinity must be symmetric and non-negative")
        return X

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

        Raises
        ------
        ParameterError, InvalidDataError, ConstraintError, ConvergenceError
        """
        spec, params = self._checked_params()
        rng = check_seed(self.random_state)
        X = self._checked_data(X)
        n = X.shape[0]
        if self.n_clusters > n:
            raise ParameterError(f"n_clusters = {self.n_clusters} exceeds the {n} samples")
        if self.affinity == "precomputed":
            K, feats, gamma = X, None, None
        else:
            gamma = median_gamma(X) if self.gamma is None else float(self.gamma)
            if not (np.isfinite(gamma) and gamma > 0):
                raise InvalidDataError("the median heuristic gives no usable gamma (the samples' squared "
                                       "distances overflow or are all zero); rescale X or give gamma")
            K = rbf_affinity(X, gamma)
            feats = X * np.sqrt(2 * gamma)  # so that K = exp(-||f_i - f_j||^2 / 2)
        m, mw, _ = _links(must_link, n, Kind.MUST_LINK.label)
        c, cw, notes = _links(cannot_link, n, Kind.CANNOT_LINK.label)
        if self.n_clusters == 1:
            return self._one_cluster(K, n, gamma, len(c))
        nc = NodeConstraints.from_pairs(n, m, c, mw, cw)
        nc.contradictions = notes + nc.contradictions
        res = run_method(spec, K, nc, int(self.n_clusters), rng, params=params, features=feats)
        step = ConstraintStep(int(self.n_clusters), nc, graph=K,
                              unconstrained=unconstrained_result(spec, K, n, int(self.n_clusters), self.random_state,
                                                                 params=params, features=feats),
                              unconstrained_margin=_UNCONSTRAINED_MARGIN) \
            if self.rounding == "constrained" and spec.name != "ncut" else None
        res = constrain(res, spec, nc, step, rounding=self.rounding)
        self.labels_ = res.labels
        self.embedding_ = res.embedding
        self.eigenvalues_ = res.eigenvalues
        self.affinity_matrix_ = res.affinity
        self.info_ = {**res.info, "gamma": gamma}
        return self

    def _one_cluster(self, K, n: int, gamma, n_cannot: int):
        """``n_clusters=1``: every sample in cluster 0 (nothing to cut)."""
        import warnings

        from .errors import ContradictoryConstraintsWarning

        if n_cannot:
            warnings.warn(f"contradictory constraints: {n_cannot} cannot-link(s) cannot hold with one "
                          "cluster", ContradictoryConstraintsWarning, stacklevel=3)
        self.labels_ = np.zeros(n, np.int64)
        self.embedding_ = np.zeros((n, 0))
        self.eigenvalues_ = np.zeros(0)
        self.affinity_matrix_ = K
        self.info_ = {"gamma": gamma, "overruled": list(range(n_cannot))}
        return self

    def fit_predict(self, X, y=None, must_link=None, cannot_link=None):
        """:meth:`fit`, then ``labels_``."""
        return self.fit(X, y, must_link=must_link, cannot_link=cannot_link).labels_
