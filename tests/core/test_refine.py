"""Nodes split where two strokes end in one node (core.graph.refine, our addition)."""

import warnings

import numpy as np
import pytest

from segapp import core
from segapp.core.graph.refine import anchors_by_node, refine
from segapp.core.graph.representation import build_representation

CONSTRAINED = [m for m in core.METHODS if m != "ncut"]


def _two_halves():
    """60 x 60: dark left of column 33, light right of it; a 4 x 4 grid of 15-pixel cells,
    so the cells of columns 30..44 straddle the edge."""
    img = np.full((60, 60, 3), 0.2)
    img[:, 33:] = 0.8
    return img


def _straddling_strokes():
    # both strokes end in the cell rows 15..29 x columns 30..44: one end left of the edge, one right
    return core.Constraints(must_link=[(20, 31, 20, 5)], cannot_link=[(20, 40, 20, 5)],
                            order={"must_link": [0], "cannot_link": [1]})


def test_a_node_with_two_stroke_ends_is_split_along_the_image_edge():
    img = _two_halves()
    rep = build_representation(img, "grid", 16)
    cons = _straddling_strokes()
    assert rep.node_at(20, 31) == rep.node_at(20, 40)
    found = anchors_by_node(cons, rep)
    assert [len(v) for v in found.values()] == [2]
    out, parent = refine(rep, cons, 0.08, 0.05)
    assert out.n_nodes == rep.n_nodes + 1
    node = rep.node_at(20, 31)
    assert parent[-1] == node and (parent[:rep.n_nodes] == np.arange(rep.n_nodes)).all()
    # the cell's pixels left of the edge stay with the left end, the others form the new node
    cell = rep.node_map == node
    left = cell & (np.arange(60)[None, :] < 33)
    assert (out.node_map[left] == out.node_at(20, 31)).all()
    assert (out.node_map[cell & ~left] == out.node_at(20, 40)).all()
    assert out.node_at(20, 31) != out.node_at(20, 40)
    # the same strokes give the same (cached) refined representation
    assert refine(rep, cons, 0.08, 0.05)[0] is out


def test_nothing_is_split_when_every_node_holds_one_anchor():
    img = _two_halves()
    rep = build_representation(img, "grid", 16)
    cons = core.Constraints(must_link=[(5, 5, 50, 10)], cannot_link=[(5, 5, 50, 50)])
    out, parent = refine(rep, cons, 0.08, 0.05)
    assert out is rep and (parent == np.arange(rep.n_nodes)).all()


@pytest.mark.parametrize("method", CONSTRAINED)
def test_every_method_honours_two_strokes_that_share_a_node(method):
    img = _two_halves()
    with warnings.catch_warnings():
        warnings.simplefilter("error", core.ContradictoryConstraintsWarning)
        warnings.simplefilter("ignore", core.DisconnectedGraphWarning)  # e2cp's k-NN graph: two flat halves
        seg = core.segment(img, _straddling_strokes(), method=method, n_segments=2,
                           representation="grid", max_nodes=16)
    assert seg.honoured["must_link"].all() and seg.honoured["cannot_link"].all()
    assert seg.info["split_nodes"] == 1
    assert seg.labels.shape == img.shape[:2] and seg.node_labels.shape == (seg.n_nodes,)
    assert seg.eigenvectors.shape[:2] == img.shape[:2]
    # the split follows the edge: the split cell's part left of it goes with the left end
    assert (seg.labels[15:30, 30:33] == seg.labels[20, 5]).all()
    assert (seg.labels[15:30, 33:45] == seg.labels[20, 40]).all() and seg.labels[20, 40] != seg.labels[20, 5]


def test_the_papers_rounding_is_not_split_and_says_the_contradiction():
    img = _two_halves()
    with pytest.warns(core.ContradictoryConstraintsWarning):
        seg = core.segment(img, _straddling_strokes(), method="csp", n_segments=2,
                           representation="grid", max_nodes=16, rounding="paper")
    assert seg.n_nodes == 16 and "split_nodes" not in seg.info


def test_a_stroke_the_graph_cannot_honour_is_named_in_the_warning():
    # both ends of the cannot-link on one pixel: no split can separate them
    img = _two_halves()
    cons = core.Constraints(cannot_link=[(20, 40, 20, 40)])
    with pytest.warns(core.ContradictoryConstraintsWarning, match="cannot-link #0"):
        seg = core.segment(img, cons, method="csp", n_segments=2, representation="grid", max_nodes=16)
    assert not seg.honoured["cannot_link"][0]


def test_an_anchor_overlapping_two_parts_merges_them():
    """Two link ends in one cell are two anchors; an older block covering both pixels
    overlaps each, so all three become one anchor (parts never share a pixel) and the cell
    is no longer split."""
    rep = build_representation(_two_halves(), "grid", 16)
    links = dict(must_link=[(20, 31, 2, 2)], cannot_link=[(20, 40, 2, 2)])
    node = rep.node_at(20, 31)
    apart = core.Constraints(**links, order={"must_link": [1], "cannot_link": [2]})
    assert len(anchors_by_node(apart, rep)[node]) == 2
    block = core.Block(label=1, top=18, left=30, bottom=23, right=42)
    joined = core.Constraints(**links, blocks=[block], order={"must_link": [1], "cannot_link": [2], "blocks": [0]})
    assert node not in anchors_by_node(joined, rep)
