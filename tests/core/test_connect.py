"""``rounding_connect``: a must-link's ends joined through their segment
(:mod:`core.constraint_step.connect`)."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from segapp import core
from segapp.core.constraint_step import ConstraintStep, apply_step
from segapp.core.constraint_step.connect import (broken_must_links, cheapest_path, connected_labels,
                                                label_pieces)
from segapp.core.constraint_step.resolve import resolve
from segapp.core.eval import people
from segapp.core.graph.node_constraints import NodeConstraints
from segapp.core.spectral import SpectralResult

STRONG, WEAK = 1.0, 0.01


def _band_graph(band_weak_at=()):
    """A 3 x 12 grid of nodes: row 0 (nodes 0-11) a band, rows 1-2 (nodes 12-35) a block
    below it. Edges inside the band and inside the block are strong, between them weak; the
    band's edges ``(i, i + 1)`` for ``i`` in ``band_weak_at`` weak too (the band then is
    three objects, not one)."""
    n, rows, cols = 36, 3, 12
    W = sp.lil_matrix((n, n))
    for r in range(rows):
        for c in range(cols):
            i = r * cols + c
            for j in ([i + 1] if c + 1 < cols else []) + ([i + cols] if r + 1 < rows else []):
                w = STRONG if (i < cols) == (j < cols) else WEAK
                if j == i + 1 and i < cols and i in band_weak_at:
                    w = WEAK
                W[i, j] = W[j, i] = w
    return W.tocsr()


def _split_band_labels():
    """The band's middle (nodes 4-7) given to the block's segment: what a walk from the
    band's two ends can leave."""
    labels = np.ones(36, np.int64)
    labels[[0, 1, 2, 3, 8, 9, 10, 11]] = 0
    return labels


def _nc():
    """A must-link along the band (0 - 11) and one inside the block (14 - 33)."""
    return NodeConstraints.from_pairs(36, must=[(0, 11), (14, 33)], cannot=[(0, 14)])


def test_pieces_and_broken_must_links():
    W, labels, nc = _band_graph(), _split_band_labels(), _nc()
    pieces = label_pieces(W, labels)
    assert pieces[0] == pieces[3] != pieces[8] == pieces[11]
    assert pieces[4] == pieces[20]  # the band's middle is one piece with the block
    broken = broken_must_links(nc, resolve(nc), labels, W)
    assert [(s.a, s.b) for s in broken] == [(0, 11)]
    whole = labels.copy()
    whole[:12] = 0
    assert broken_must_links(nc, resolve(nc), whole, W) == []


def test_cheapest_path_runs_through_the_region_not_across_its_edges():
    W = _band_graph()
    assert cheapest_path(W, 0, 11).tolist() == list(range(12))
    # two weak edges on the band: through the block is now as cheap as along the band
    # (two weak crossings either way) and one hop shorter is not; either way both ends included
    path = cheapest_path(_band_graph(band_weak_at=(3, 7)), 0, 11)
    assert path[0] == 0 and path[-1] == 11
    lonely = sp.csr_matrix((3, 3))
    assert cheapest_path(lonely, 0, 2).size == 0


def test_a_band_split_by_the_walk_is_joined():
    W, labels, nc = _band_graph(), _split_band_labels(), _nc()
    out = connected_labels(labels, resolve(nc), nc, W, 2, prior_weight=0.01)
    assert out is not None
    new, n_broken = out
    assert n_broken == 1
    assert (new[:12] == new[0]).all() and (new[12:] == new[14]).all() and new[0] != new[14]


def test_two_objects_that_do_not_touch_stay_apart():
    """The band is three objects (weak edges at 3-4 and 7-8) and the middle one belongs
    with the block: the path between the must-link's ends must cross another region, its
    walk cuts the graph worse, and the labels stay as they were."""
    W = _band_graph(band_weak_at=(3, 7))
    W = W.tolil()
    for i in range(4, 8):  # the band's middle is part of the block
        W[i, i + 12] = W[i + 12, i] = STRONG
    W = W.tocsr()
    labels, nc = _split_band_labels(), _nc()
    assert broken_must_links(nc, resolve(nc), labels, W)
    assert connected_labels(labels, resolve(nc), nc, W, 2, prior_weight=0.01) is None


def test_no_new_sliver():
    """Where the path's walk would leave a segment under 3% of the image (node sizes) that
    the labels did not have, the labels stay."""
    W, labels, nc = _band_graph(), _split_band_labels(), _nc()
    sizes = np.ones(36)
    sizes[12:] = 0.01  # the block is small in pixels: 0.24 of 12.24 (2%) once the band is whole
    assert connected_labels(labels, resolve(nc), nc, W, 2, prior_weight=0.01, sizes=sizes) is None
    assert connected_labels(labels, resolve(nc), nc, W, 2, prior_weight=0.01, sizes=np.ones(36)) is not None


@pytest.mark.parametrize("connect,k", [(True, 2), (False, 2), (True, 3)])
def test_apply_step_joins_only_when_asked(connect, k, monkeypatch):
    """The step's wiring: labels that break the band's must-link (as step 4's walk can
    leave them) are joined with ``connect`` at K = 2, and left as they are without it or
    at K = 3 (where joining cost harmful strokes on the training images)."""
    from segapp.core.constraint_step import stage

    W, labels, nc = _band_graph(), _split_band_labels(), _nc()
    monkeypatch.setattr(stage, "constrained_labels", lambda *a, **kw: (_split_band_labels(), resolve(nc)))
    E = np.eye(k)[labels]
    res = SpectralResult(labels=labels.copy(), embedding=E, eigenvalues=np.zeros(k), affinity=None, info={},
                         cluster_embedding=E)
    step = ConstraintStep(k, nc, graph=W, prior_weight=0.01, colouring="walk", connect=connect)
    out = apply_step(res, step, nc)
    if connect and k == 2:
        assert out.info["connected_must_links"] == 1
        assert not broken_must_links(nc, resolve(nc), out.labels, W)
        assert (out.labels[:12] == out.labels[0]).all()
    else:
        assert "connected_must_links" not in out.info
        assert np.array_equal(out.labels, _split_band_labels())


def test_segment_records_the_setting_and_switches_off():
    """``rounding_connect`` reaches the step through :func:`core.segment` (and its off
    switch gives the walk from the ends alone)."""
    img = np.zeros((40, 60, 3))
    img[:, 30:] = 1.0
    strokes = [("must_link", (5, 5), (35, 20)), ("must_link", (5, 40), (35, 55)), ("cannot_link", (20, 10), (20, 50))]
    c = people.constraints_of(strokes)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        on = core.segment(img, c, method="e2cp", n_segments=2, max_nodes=200)
        off = core.segment(img, c, method="e2cp", n_segments=2, max_nodes=200, rounding_connect=False)
    assert on.params["rounding_connect"] is True and off.params["rounding_connect"] is False
    assert on.honoured["must_link"].all() and off.honoured["must_link"].all()


def test_a_join_relabels_little():
    """Labels that would relabel more than CONNECT_MAX_CHANGE of the image (by pixels) are
    a new segmentation, not a join: the labels stay."""
    from segapp.core.constraint_step.params import CONNECT_MAX_CHANGE

    W, labels, nc = _band_graph(), _split_band_labels(), _nc()
    sizes = np.ones(36)
    sizes[4:8] = 10.0  # the band's middle holds 40 of the 72 pixels
    assert 40 / 72 > CONNECT_MAX_CHANGE
    assert connected_labels(labels, resolve(nc), nc, W, 2, prior_weight=0.01, sizes=sizes) is None
    sizes[4:8] = 1.0  # 4 of 36
    assert 4 / 36 < CONNECT_MAX_CHANGE
    assert connected_labels(labels, resolve(nc), nc, W, 2, prior_weight=0.01, sizes=sizes) is not None
