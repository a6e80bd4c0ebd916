"""Bad estimator inputs: ``ConstrainedSpectralClustering`` raises segapp's own errors
(ParameterError, InvalidDataError, ConstraintError) with a message naming the problem, and
warns instead of silently dropping a constraint it cannot honour."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from segapp import core
from segapp.core.errors import ConstraintError, InvalidDataError, ParameterError, SegappError

from .helpers import expect_error

R = np.random.RandomState(0)
X = np.r_[R.randn(12, 2), R.randn(12, 2) + 5]


def est(**kw):
    return core.ConstrainedSpectralClustering(**{"random_state": 0, **kw})


PARAMS = {
    "gamma-inf": ({"gamma": np.inf}, "gamma"),
    "gamma-minus-inf": ({"gamma": -np.inf}, "gamma"),
    "gamma-nan": ({"gamma": np.nan}, "gamma"),
    "gamma-zero": ({"gamma": 0.0}, "gamma"),
    "gamma-negative": ({"gamma": -1.0}, "gamma"),
    "gamma-string": ({"gamma": "abc"}, "gamma"),
    "gamma-list": ({"gamma": [1.0]}, "gamma"),
    "n_clusters-0": ({"n_clusters": 0}, "n_clusters"),
    "n_clusters-fraction": ({"n_clusters": 2.5}, "n_clusters"),
    "n_clusters-string": ({"n_clusters": "2"}, "n_clusters"),
    "n_clusters-above-samples": ({"n_clusters": 25}, "exceeds the 24 samples"),
    "method-unknown": ({"method": "kmeans"}, "method"),
    "method-number": ({"method": 3}, "method"),
    "affinity-unknown": ({"affinity": "cosine"}, "affinity"),
    "method_params-string": ({"method_params": "alpha=0.5"}, "method_params"),
    "method_params-unknown": ({"method": "e2cp", "method_params": {"beta": 1}}, "unknown parameter 'beta'"),
    "method_params-bad-value": ({"method": "e2cp", "method_params": {"alpha": 5}}, "out of range"),
    "method_params-n_clusters": ({"method_params": {"n_clusters": 3}}, "unknown parameter 'n_clusters'"),
    "random_state-minus-1": ({"random_state": -1}, "random_state"),
    "random_state-2-pow-32": ({"random_state": 2**32}, "random_state"),
    "random_state-string": ({"random_state": "abc"}, "random_state"),
}


@pytest.mark.parametrize("case", list(PARAMS))
def test_parameters(case):
    kw, match = PARAMS[case]
    expect_error(ParameterError, est(**kw).fit, X, match=match)


DATA = {
    "nan": (np.where(np.eye(24, 2) > 0, np.nan, X), "NaN"),
    "inf": (np.where(np.eye(24, 2) > 0, np.inf, X), "infinity"),
    "complex": (X.astype(complex), "Complex data"),
    "strings": (np.full((24, 2), "a"), "could not convert|string"),
    "dict-inside": (np.array([[{"a": 1}, 1.0]] * 24, dtype=object), "must be a string or a"),
    "empty": (np.zeros((0, 3)), "0 sample"),
    "no-features": (np.zeros((12, 0)), "0 feature"),
    "one-sample": (np.zeros((1, 3)), "1 sample"),
    "one-dimensional": (np.arange(10.0), "2D array"),
    "three-dimensional": (np.zeros((4, 4, 4)), "dim 3"),
    "sparse": (sp.csr_matrix(X), "[Ss]parse"),
    "none": (None, "None|not a valid|array"),
    "ragged": ([[1.0, 2.0], [3.0]], "inhomogeneous|sequence"),
    "too-many-samples": (np.zeros((5001, 1)), "limited to 5000"),
    "overflowing-values": (np.full((24, 2), 1e300) * np.arange(24)[:, None], "median heuristic"),
}


@pytest.mark.parametrize("case", list(DATA))
def test_data(case):
    data, match = DATA[case]
    expect_error(InvalidDataError, est().fit, data, match=match)


PRECOMPUTED = {
    "not-square": (np.ones((5, 4)), "square"),
    "asymmetric": (np.triu(np.ones((6, 6))), "symmetric"),
    "negative": (-np.ones((6, 6)), "non-negative"),
    "nan": (np.full((6, 6), np.nan), "NaN"),
}


@pytest.mark.parametrize("case", list(PRECOMPUTED))
def test_precomputed_affinity(case):
    A, match = PRECOMPUTED[case]
    expect_error(InvalidDataError, est(affinity="precomputed").fit, A, match=match)


LINKS = {
    "nan-weight": ({"must_link": [(0, 1, np.nan)]}, "outside \\(0, 1\\]"),
    "inf-weight": ({"cannot_link": [(0, 13, np.inf)]}, "outside \\(0, 1\\]"),
    "zero-weight": ({"must_link": [(0, 1, 0.0)]}, "outside \\(0, 1\\]"),
    "weight-two": ({"must_link": [(0, 1, 2)]}, "outside \\(0, 1\\]"),
    "weight-string": ({"must_link": [(0, 1, "x")]}, "not a number"),
    "weight-true": ({"cannot_link": [(0, 13, True)]}, "not a number"),
    "index-negative": ({"must_link": [(-1, 1)]}, "out of range 0..23"),
    "index-too-large": ({"must_link": [(0, 24)]}, "out of range 0..23"),
    "index-huge": ({"cannot_link": [(0, 10**30)]}, "out of range"),
    "index-fraction": ({"must_link": [(0.5, 1)]}, "not an integer"),
    "index-string": ({"must_link": [("0", 1)]}, "not an integer"),
    "index-true": ({"must_link": [(True, 1)]}, "not an integer"),
    "pair-of-one": ({"must_link": [(0,)]}, "must be \\(i, j\\)"),
    "pair-of-four": ({"must_link": [(0, 1, 0.5, 1)]}, "must be \\(i, j\\)"),
    "pair-a-number": ({"cannot_link": [7]}, "must be \\(i, j\\)"),
    "pair-none": ({"cannot_link": [None]}, "must be \\(i, j\\)"),
    "links-a-number": ({"must_link": 5}, "must be a sequence"),
    "links-a-string": ({"must_link": "0,1"}, "must be a sequence"),
    "links-a-dict": ({"cannot_link": {0: 1}}, "must be a sequence"),
}


@pytest.mark.parametrize("case", list(LINKS))
def test_links(case):
    kw, match = LINKS[case]
    expect_error(ConstraintError, est().fit, X, match=match, **kw)


def test_self_cannot_link_is_warned_not_dropped():
    with pytest.warns(core.ContradictoryConstraintsWarning, match="joins sample 3 to itself"):
        est(method="e2cp").fit(X, cannot_link=[(3, 3)])


def test_contradictory_links_are_warned():
    with pytest.warns(core.ContradictoryConstraintsWarning, match="cannot-linked but joined by must-links"):
        est(method="spectral-learning").fit(X, must_link=[(0, 1), (1, 2)], cannot_link=[(0, 2)])


@pytest.mark.parametrize("method", list(core.METHODS))
def test_constant_data_gives_a_result_or_our_error(method):
    """Every sample equal: the median heuristic has no distance to work with. Whatever the
    method does, it is a labelling or one of our errors, never a raw numpy/scipy error."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", core.SegappWarning)
        try:
            lab = est(method=method).fit_predict(np.ones((10, 3)))
        except SegappError as e:
            assert "\n" not in str(e)
        else:
            assert lab.shape == (10,) and lab.min() >= 0
