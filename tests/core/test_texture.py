"""The texture model fitted on the stroked nodes (rounding_texture): a click inside one
texture brings the rest of it along where colour and edges cannot tell the regions apart."""

import numpy as np
import pytest
import scipy.sparse as sp

from segapp import core
from segapp.core.constraint_step.texture import (node_texture, pixel_texture, texture_posterior,
                                                 texture_shaped)

CONSTRAINED = [m for m in core.METHODS if m != "ncut"]
H, W, B = 120, 240, 70  # flat grey left of column B, a fine checkerboard of the same mean right


def _two_textures():
    yy, xx = np.mgrid[:H, :W]
    img = np.full((H, W), 0.5)
    checker = np.where(((yy // 2) + (xx // 2)) % 2 == 0, 0.2, 0.8)
    img[:, B:] = checker[:, B:]
    return (img * 255).astype(np.uint8), (xx >= B).astype(int)


def _accuracy(labels, truth):
    return max((labels == truth).mean(), (labels != truth).mean())


def test_posterior_needs_two_labelled_segments():
    F = np.random.RandomState(0).randn(10, 3)
    assert texture_posterior(F, np.array([0, 1]), np.array([1, 1]), 2) is None
    P = texture_posterior(F, np.array([0, 1, 2]), np.array([0, 2, 2]), 3)
    assert P.shape == (10, 3)
    np.testing.assert_allclose(P.sum(1), 1.0)
    assert (P[:, 1] == 0).all()  # no labelled node in segment 1


def test_shaped_graph_weakens_only_edges_the_model_tells_apart():
    W = sp.csr_matrix(np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], float))
    P = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    S = texture_shaped(W, P, 4.0).toarray()
    assert S[0, 1] == pytest.approx(1.0)  # same texture: kept
    assert S[1, 2] == pytest.approx(np.exp(-8.0))  # ||(1,0)-(0,1)||^2 = 2
    np.testing.assert_allclose(S, S.T)


def test_node_texture_tells_flat_from_checkered():
    img, truth = _two_textures()
    feats = pixel_texture(img / 255.0)
    nodes = (np.arange(H * W) % W >= B).astype(np.int64)  # two nodes: the two halves
    F = node_texture(feats, nodes, 2)
    assert F.shape == (2, feats.shape[1])
    assert np.abs(F[0] - F[1]).max() > 1.0  # standardised: the halves differ


@pytest.mark.parametrize("method", CONSTRAINED)
def test_a_click_in_each_texture_follows_the_texture(method):
    """Two one-label blocks, one in each texture, far from the texture boundary: colour and
    edges put the boundary about half-way between them; the texture model puts it where
    the texture changes."""
    img, truth = _two_textures()
    cons = core.Constraints(blocks=[core.Block(1, 55, 20, 60, 25), core.Block(2, 55, 200, 60, 205)])
    without = core.segment(img, cons, method=method, n_segments=2, pixel_band=0, rounding_texture=0)
    with_texture = core.segment(img, cons, method=method, n_segments=2, pixel_band=0, rounding_texture=16)
    assert _accuracy(without.labels, truth) < 0.9
    assert _accuracy(with_texture.labels, truth) > 0.95


def test_split_nodes_texture_equals_summing_every_pixel():
    """The per-edit shortcut (sums kept per node, only split nodes summed again) gives the
    same standardised means as summing the whole image over the split nodes."""
    from segapp.core.constraint_step.texture import cached_pixel_texture, split_node_texture
    from segapp.core.graph.refine import refine
    from segapp.core.graph.representation import build_representation

    img, _ = _two_textures()
    rep = build_representation(img, "superpixels", 60)
    cons = core.Constraints(must_link=[(10, 10, 12, 200)], cannot_link=[(100, 30, 101, 33)])
    out, parent = refine(rep, cons, 0.1, 0.05)
    assert out is not rep  # the test needs a node split by two stroke ends
    feats = cached_pixel_texture(rep)
    np.testing.assert_allclose(split_node_texture(rep, out, parent),
                               node_texture(feats, out.node_map.ravel(), out.n_nodes), atol=1e-9)
    np.testing.assert_allclose(split_node_texture(rep, rep, None),
                               node_texture(feats, rep.node_map.ravel(), rep.n_nodes), atol=1e-9)
