"""The default affinity: the papers' Gaussian cut down across image edges (contour_affinity)."""

import itertools

import numpy as np

from segapp.core.graph.affinity import contour_affinity, gaussian_affinity, minimax_edge
from segapp.core.graph.representation import build_representation


def _scene():
    """48 x 64: two flat halves with a sharp step at column 32 (a strong image edge)."""
    img = np.full((48, 64, 3), 0.3)
    img[:, 32:] = 0.7
    return img + np.random.RandomState(0).normal(0, 0.01, img.shape)


def _brute_minimax(n, pairs, strength):
    """min over paths of the largest step, by relaxing over all nodes (Floyd-Warshall)."""
    M = np.full((n, n), np.inf)
    np.fill_diagonal(M, 0.0)
    for (i, j), b in zip(pairs, strength):
        M[i, j] = M[j, i] = min(M[i, j], b)
    for k in range(n):
        M = np.minimum(M, np.maximum(M[:, k:k + 1], M[k:k + 1, :]))
    return M


def test_minimax_edge_is_the_best_paths_strongest_step():
    rep = build_representation(_scene(), "grid", 48)
    b = rep.boundaries
    M = minimax_edge(rep)
    np.testing.assert_allclose(M, _brute_minimax(rep.n_nodes, b.pairs, b.strength + 1e-12), atol=1e-9)
    # an ultrametric: m_ij <= max(m_ik, m_kj) for every triple
    n = rep.n_nodes
    for i, j, k in itertools.islice(itertools.permutations(range(n), 3), 5000):
        assert M[i, j] <= max(M[i, k], M[k, j]) + 1e-12


def test_contour_affinity_is_positive_definite_with_unit_diagonal():
    rep = build_representation(_scene(), "superpixels", 120)
    K = contour_affinity(rep, 0.08, 0.08, 0.2)
    np.testing.assert_allclose(np.diag(K), 1.0)
    assert np.allclose(K, K.T) and (K > 0).all() and (K <= 1).all()
    assert np.linalg.eigvalsh(K).min() > 0


def test_the_edge_cuts_the_gaussian_down_only_across_it():
    rep = build_representation(_scene(), "grid", 48)
    G = gaussian_affinity(rep.features(0.08, 10.0))  # colour nearly ignored: position alone
    K = contour_affinity(rep, 0.08, 10.0, 0.05)
    left = rep.positions[:, 1] < 32
    across = left[:, None] != left[None, :]
    ratio = K / G
    assert ratio[across].max() < 0.5 * ratio[~across].min()
    # on one side there is no edge to cross: the Gaussian is (nearly) kept
    assert ratio[~across].min() > 0.5


def _textured_scene():
    """48 x 64: two halves of different mean colour (step of 0.4 at column 32), each covered
    by a fine random texture (every pixel +-0.1, grey)."""
    img = np.full((48, 64, 3), 0.3)
    img[:, 32:] = 0.7
    texture = np.random.RandomState(0).choice([-0.1, 0.1], size=(48, 64))
    return np.clip(img + texture[..., None], 0, 1)


def test_edge_sigma_quiets_texture_and_keeps_the_outline():
    """edge_sigma smooths each channel before Sobel: the texture's response inside a half
    falls from over a quarter of the step's to under a tenth of it."""
    from segapp.core.graph.boundaries import edge_map

    img = _textured_scene()
    inside = (slice(8, 40), slice(6, 26))
    step = (slice(8, 40), slice(31, 33))
    raw, smooth = edge_map(img), edge_map(img, 2.0)
    assert raw[inside].mean() > 0.25 * raw[step].mean()  # texture looks like an edge
    assert smooth[inside].mean() < 0.1 * smooth[step].mean()  # now it does not
    # the boundary graph is weighted by the smoothed map, cached apart from the raw one
    rep = build_representation(img, "grid", 48, edge_sigma=2.0)
    raw_rep = build_representation(img, "grid", 48)
    assert raw_rep is not rep
    np.testing.assert_allclose(rep.edges, smooth.astype(np.float32))
    np.testing.assert_allclose(raw_rep.edges, raw.astype(np.float32))
    b = rep.boundaries
    left = rep.positions[:, 1] < 32
    across = left[b.pairs[:, 0]] != left[b.pairs[:, 1]]
    ratio = np.median(b.strength[~across]) / b.strength[across].min()
    b0 = raw_rep.boundaries
    ratio_raw = np.median(b0.strength[~across]) / b0.strength[across].min()
    assert ratio < 0.5 * ratio_raw
