"""Constraints on synthetic images: one cannot-link separates two same-intensity objects
that ncut merges; one must-link joins an object that ncut splits (every constrained method)."""

import warnings

import numpy as np
import pytest

import core

CONSTRAINED = [m for m in core.METHODS if m != "ncut"]
# Known gaps at the current defaults (issue 4 tunes the stroke rule and affinity scales):
# strict xfail, so a fix shows up as XPASS and the mark must be removed.
UNTUNED = "not yet reached at the current default stroke rule and affinity scales (issue 4)"
CANNOT_GAPS = {"rom"}
MUST_GAPS = {"spectral-learning", "gp-propagation", "csp", "e2cp", "ssap"}


def _cases(methods, gaps):
    return [pytest.param(m, marks=pytest.mark.xfail(strict=True, reason=UNTUNED)) if m in gaps else m
            for m in methods]


def two_discs():
    """Two discs of equal intensity (0.55) on a darker background (0.35), mild noise; 64 x 96."""
    r, c = np.mgrid[0:64, 0:96]
    img = np.full((64, 96), 0.35)
    img[(r - 32) ** 2 + (c - 24) ** 2 < 14 ** 2] = 0.55
    img[(r - 32) ** 2 + (c - 72) ** 2 < 14 ** 2] = 0.55
    return np.clip(img + np.random.RandomState(1).normal(0, 0.02, img.shape), 0, 1)


def two_tone_bar():
    """One object made of a dark half (0.40) and a bright half (0.65) on a 0.30 background,
    mild noise: the halves differ more than the dark half differs from the background."""
    img = np.full((64, 96), 0.30)
    img[16:48, 16:48] = 0.40
    img[16:48, 48:80] = 0.65
    return np.clip(img + np.random.RandomState(2).normal(0, 0.02, img.shape), 0, 1)


@pytest.mark.xfail(strict=True, reason=UNTUNED)
def test_ncut_merges_the_discs():
    seg = core.segment(two_discs(), method="ncut", n_segments=2)
    assert seg.labels[32, 24] == seg.labels[32, 72] != seg.labels[5, 5]


@pytest.mark.parametrize("method", _cases(CONSTRAINED, CANNOT_GAPS))
def test_one_cannot_link_separates_same_intensity_objects(method):
    cons = core.Constraints(cannot_link=[(32, 24, 32, 72)])
    seg = core.segment(two_discs(), cons, method=method, n_segments=2)
    assert seg.labels[32, 24] != seg.labels[32, 72]
    # the cut follows the objects: each disc centre region is uniform
    assert len(np.unique(seg.labels[28:37, 20:29])) == 1
    assert len(np.unique(seg.labels[28:37, 68:77])) == 1


def test_ncut_splits_the_two_tone_object():
    seg = core.segment(two_tone_bar(), method="ncut", n_segments=2)
    assert seg.labels[32, 30] != seg.labels[32, 64]


@pytest.mark.parametrize("method", _cases(CONSTRAINED, MUST_GAPS))
def test_one_must_link_joins_a_split_object(method):
    cons = core.Constraints(must_link=[(32, 30, 32, 64)])
    seg = core.segment(two_tone_bar(), cons, method=method, n_segments=2)
    assert seg.labels[32, 30] == seg.labels[32, 64]
    assert seg.labels[32, 30] != seg.labels[4, 4]  # and the background is the other segment


@pytest.mark.parametrize("method", list(core.METHODS))
@pytest.mark.parametrize("rep", ["superpixels", "grid"])
def test_result_shapes_and_types(method, rep):
    img = np.random.RandomState(0).rand(40, 50, 3)
    with warnings.catch_warnings():
        # on pure noise AP may find no preference giving exactly 3 clusters (it says so)
        warnings.filterwarnings("ignore", category=core.ConvergenceWarning)
        seg = core.segment(img, method=method, n_segments=3, representation=rep, max_nodes=300)
    assert seg.labels.shape == (40, 50) and seg.labels.dtype == np.int32
    assert seg.labels.min() >= 0 and seg.labels.max() <= 2
    assert seg.eigenvectors.shape[:2] == (40, 50) and seg.eigenvectors.shape[2] >= 3
    assert seg.eigenvectors.dtype == np.float32
    assert len(seg.eigenvalues) == seg.eigenvectors.shape[2]
    assert seg.n_nodes <= 300 and seg.params["n_nodes"] == seg.n_nodes
    assert seg.seconds > 0


def test_csp_params_report_beta_from_eq17():
    cons = core.Constraints(cannot_link=[(32, 24, 32, 72)])
    seg = core.segment(two_discs(), cons, method="csp")
    assert seg.params["beta"] is not None and seg.params["beta"] > 0
    assert seg.info["n_feasible"] >= 1


def test_blocks_become_labels():
    cons = core.Constraints(blocks=[core.Block(1, 28, 20, 36, 28), core.Block(2, 28, 68, 36, 76)])
    for method in ("csp", "gp-propagation", "spectral-learning"):
        seg = core.segment(two_discs(), cons, method=method, n_segments=2)
        assert seg.labels[32, 24] != seg.labels[32, 72]


def test_deterministic():
    cons = core.Constraints(cannot_link=[(32, 24, 32, 72)])
    a = core.segment(two_discs(), cons, method="e2cp", n_segments=3)
    b = core.segment(two_discs(), cons, method="e2cp", n_segments=3)
    assert np.array_equal(a.labels, b.labels) and np.allclose(a.eigenvectors, b.eigenvectors)
