"""A cannot-link kept apart only by a small segment is said (issue "Strokes as people draw
them", point 3: "a cannot-link separates regions, not pixels ... or say that it could not")."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from segapp import core
from segapp.core.constraint_step.params import UNREACHED_MIN_SHARE
from segapp.core.errors import DisconnectedGraphWarning
from segapp.core.eval.metrics import small_cannot_links

METHODS = [m for m in core.METHODS if m != "ncut"]


def _square(side: int = 9) -> np.ndarray:
    """80 x 120 grey noise with a bright ``side`` x ``side`` square at (10, 10)."""
    img = 0.25 + 0.03 * np.random.RandomState(0).randn(80, 120)
    img[10:10 + side, 10:10 + side] = 0.9
    return np.clip(img, 0, 1)


def test_the_share_of_the_smaller_end_is_read_from_the_labels():
    labels = np.zeros((10, 10), int)
    labels[:2, :2] = 1  # 4% of the image
    labels[9, 9] = 2  # 1%
    shares = np.bincount(labels.ravel(), minlength=3) / labels.size
    cons = core.Constraints(cannot_link=[[0, 0, 5, 5], [9, 9, 5, 5], [5, 5, 6, 6], [9, 9, 0, 0]])
    got = small_cannot_links(cons, lambda r, c: labels[r, c], shares, UNREACHED_MIN_SHARE)
    # #0: 4% is not small; #2: not honoured (one segment), so not kept apart by anything
    assert got == [(1, 0.01), (3, 0.01)]
    assert small_cannot_links(cons, lambda r, c: labels[r, c], shares, 0.05) == [(0, 0.04), (1, 0.01), (3, 0.01)]


@pytest.mark.parametrize("method", METHODS)
def test_a_cannot_link_from_a_small_square_is_said(method):
    seg = core.segment(_square(), core.Constraints(cannot_link=[[14, 14, 60, 90]]), method=method, n_segments=2)
    assert seg.honoured[core.Kind.CANNOT_LINK].all()
    (i, share), = seg.info["small_cannot_links"]
    assert i == 0 and share == pytest.approx(81 / 9600, rel=0.1)  # the square's 81 pixels
    assert share == pytest.approx((seg.labels == seg.labels[14, 14]).mean())


@pytest.mark.parametrize("method", METHODS)
def test_a_cannot_link_between_two_halves_is_not(method):
    img = 0.25 + 0.03 * np.random.RandomState(1).randn(80, 120)
    img[:, 60:] += 0.5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DisconnectedGraphWarning)  # the halves barely touch in some graphs
        seg = core.segment(np.clip(img, 0, 1), core.Constraints(cannot_link=[[40, 20, 40, 100]]), method=method,
                           n_segments=2)
    assert seg.honoured[core.Kind.CANNOT_LINK].all()
    assert "small_cannot_links" not in seg.info
