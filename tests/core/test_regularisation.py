"""Regularised spectral clustering of the contour affinity (core.graph.affinity.regularised)."""

import warnings

import numpy as np

from segapp import core
from segapp.core.eval import metrics
from segapp.core.graph.affinity import regularised
from segapp.core.graph_setup import affinity_regularisation
from segapp.core.pipeline import check_method


def _two_blocks_and_a_speck():
    """Two blocks of 40 nodes (within 1, between 0.02) and a speck of 2 nodes joined to the
    first block by 1e-5."""
    n = 82
    K = np.full((n, n), 0.02)
    K[:40, :40] = K[40:80, 40:80] = 1.0
    K[80:, :] = K[:, 80:] = 1e-5
    K[80:, 80:] = 1.0
    return K


def _fiedler_split(K):
    d = K.sum(1)
    L = np.eye(len(K)) - K / np.sqrt(np.outer(d, d))
    v = np.linalg.eigh(L)[1][:, 1] / np.sqrt(d)
    return v > (v.max() + v.min()) / 2


def test_regularisation_adds_tau_times_the_mean_degree_over_n_everywhere():
    K = _two_blocks_and_a_speck()
    assert regularised(K, 0.0) is K
    R = regularised(K, 0.5)
    np.testing.assert_allclose(R - K, 0.5 * K.sum(1).mean() / len(K))


def test_the_second_vector_leaves_the_speck_and_splits_the_blocks():
    """Unregularised, the normalised Laplacian's second vector isolates the two-node speck
    (its cut is next to nothing); regularised (tau 0.02, the default) it splits the blocks
    (Zhang & Rohe 2018)."""
    K = _two_blocks_and_a_speck()
    plain = _fiedler_split(K)
    assert min(plain.sum(), (~plain).sum()) == 2
    split = _fiedler_split(regularised(K, 0.02))
    assert len(set(split[:40])) == 1 and len(set(split[40:80])) == 1 and split[0] != split[40]


def test_the_contour_affinity_is_regularised_for_every_method_but_ssap():
    p = {"affinity": "contour", "regularisation": 0.02}
    assert affinity_regularisation(p, check_method("e2cp")) == 0.02
    assert affinity_regularisation(p, check_method("ssap")) == 0.0
    assert affinity_regularisation({**p, "affinity": "gaussian"}, check_method("e2cp")) == 0.0


def test_spectral_learning_without_strokes_gives_two_regions_not_a_speck():
    """65132 (koi in a pond, K = 2), spectral-learning without any stroke: the contour
    affinity as built walls off a 0.2% patch, which was the second segment (ARI 0.00); with
    the regularisation both segments are regions."""
    from tests.conftest import training_image

    image, target = training_image("65132", 2)
    care = target >= 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seg = core.segment(image, None, method="spectral-learning", n_segments=2)
    shares = np.bincount(seg.labels.ravel(), minlength=2) / seg.labels.size
    assert shares.min() > 0.1
    assert metrics.adjusted_rand(target[care], seg.labels[care]) > 0.3
