"""The estimator by scikit-learn's rules: every check of ``sklearn.utils.estimator_checks``
runs and passes (none skipped; the array-API input check with SciPy's flag set), and what the
checks cannot show is tested here directly."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.utils.estimator_checks import parametrize_with_checks

from segapp import core
from segapp.core.errors import InvalidDataError

SKIPPED: dict = {}  # every check applies and passes (n_clusters = 1 is accepted)


def _name(check) -> str:
    return getattr(check, "func", check).__name__


@pytest.mark.filterwarnings("ignore::segapp.core.errors.SegappWarning")  # the checks feed arbitrary data
@parametrize_with_checks([core.ConstrainedSpectralClustering(random_state=0)])
def test_sklearn_check(estimator, check, monkeypatch):
    # scikit-learn runs its array-API input check only when SciPy's array API flag is set;
    # with NumPy inputs it then checks that dispatch changes nothing (it does not skip)
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")
    if _name(check) in SKIPPED:
        pytest.skip(SKIPPED[_name(check)])
    check(estimator)


def test_fit_sets_only_trailing_underscore_attributes():
    est = core.ConstrainedSpectralClustering("e2cp", 2, random_state=0, method_params={"alpha": 0.7})
    before = {k: v for k, v in vars(est).items()}
    X = np.random.RandomState(0).rand(20, 3)
    est.fit(X, must_link=[(0, 1)])
    public_new = [k for k in vars(est) if k not in before and not k.endswith("_") and not k.startswith("_")]
    assert public_new == []
    assert {k: vars(est)[k] for k in before} == before and est.method_params == {"alpha": 0.7}
    assert est.n_features_in_ == 3


def test_one_sample_one_feature_one_dimension():
    est = core.ConstrainedSpectralClustering(random_state=0)
    with pytest.raises(InvalidDataError, match="1 sample"):
        est.fit(np.zeros((1, 4)))
    with pytest.raises(InvalidDataError, match="2D array"):
        est.fit(np.arange(10.0))
    x = np.r_[np.linspace(0, 1, 10), np.linspace(5, 6, 10)][:, None]  # one feature: two groups
    lab = est.fit_predict(x)
    assert len(set(lab[:10])) == 1 and len(set(lab[10:])) == 1 and lab[0] != lab[10]


def test_pairwise_tag_and_clone_keep_method_params():
    from sklearn.utils import get_tags

    est = core.ConstrainedSpectralClustering(affinity="precomputed", method_params={"beta": None})
    assert get_tags(est).input_tags.pairwise
    assert not get_tags(core.ConstrainedSpectralClustering()).input_tags.pairwise
    c = clone(est)
    assert c.method_params == {"beta": None} and c.method_params is not est.method_params


def test_one_cluster_is_accepted_and_a_cannot_link_warned():
    """n_clusters=1 as scikit-learn's clusterers take it: every sample in cluster 0."""
    from segapp.core.errors import ContradictoryConstraintsWarning

    X = np.random.RandomState(0).rand(12, 2)
    est = core.ConstrainedSpectralClustering("e2cp", 1, random_state=0)
    assert (est.fit_predict(X, must_link=[(0, 1)]) == 0).all()
    with pytest.warns(ContradictoryConstraintsWarning, match="cannot hold with one cluster"):
        est.fit(X, cannot_link=[(0, 1)])


@pytest.mark.filterwarnings("ignore::segapp.core.errors.SegappWarning")
@pytest.mark.parametrize("method", list(core.METHODS))
def test_every_method_passes_every_check_none_skipped(method, monkeypatch):
    """scikit-learn's check_estimator on each method's estimator: every check runs (none
    skipped) and passes."""
    from sklearn.utils.estimator_checks import check_estimator

    monkeypatch.setenv("SCIPY_ARRAY_API", "1")  # so the array-API input check runs too
    results = check_estimator(core.ConstrainedSpectralClustering(method, random_state=0), on_fail=None)
    assert len(results) > 40
    assert [(r["check_name"], r["status"]) for r in results if r["status"] != "passed"] == []
