"""Every constrained method on scikit-learn's bundled iris, wine and breast-cancer data:
mean ARI over 10 random draws is higher with constraints from 20% of the labels than with
none (core/eval/uci.py; bench/uci_quality.py prints the README table)."""

import pytest

from segapp.core.eval.uci import DATASETS, evaluate, load

# csp runs at its own, narrower kernel width (core/eval/uci.CSP_GAMMA_FACTOR explains why);
# with and without constraints use the same width.
METHODS = ["spectral-learning", "gp-propagation", "csp", "e2cp", "rom", "ssap"]


@pytest.mark.parametrize("dataset", list(DATASETS))
@pytest.mark.parametrize("method", METHODS)
def test_constraints_from_20_percent_of_labels_help(method, dataset):
    X, y, gamma = load(dataset, method)
    base, constrained = evaluate(method, X, y, gamma, n_draws=10)
    assert constrained > base
