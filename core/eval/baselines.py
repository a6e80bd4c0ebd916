"""Baselines the methods are read against on the simulated-user benchmark."""

from __future__ import annotations

import warnings

import numpy as np

from ..constraints import Constraints
from ..errors import FallbackWarning
from .simulate import DONT_CARE


def _random_walker_mode() -> str:
    """``'cg_mg'`` with pyamg (0.5-0.7 s per Berkeley image), else ``'cg_j'`` (about 5 s)
    with a :class:`~core.errors.FallbackWarning`, as scikit-image itself warns."""
    try:
        import pyamg  # noqa: F401
    except ImportError:
        warnings.warn("pyamg is not installed: the random walker falls back to its cg_j mode, "
                      "about 8x slower (pip install pyamg)", FallbackWarning, stacklevel=3)
        return "cg_j"
    return "cg_mg"


def random_walker_segmenter(image, cons: Constraints, target: np.ndarray, n_segments: int) -> np.ndarray:
    """scikit-image's random walker with seeds at exactly the constraint endpoints.

    Each endpoint (and each block's pixels) seeds a disk of radius 2 labelled with its
    *true* target segment, more than the methods are told (they get only the relation).
    Without seeds every pixel is segment 0.

    Parameters
    ----------
    image : ndarray, shape (H, W) or (H, W, 3)
    cons : Constraints
    target : ndarray, shape (H, W), int
        Target segment per pixel, :data:`~core.eval.simulate.DONT_CARE` outside it.
    n_segments : int
        Unused (the seeds decide); kept so every segmenter has one signature.

    Returns
    -------
    labels : ndarray, shape (H, W), int32
    """
    from skimage.draw import disk
    from skimage.segmentation import random_walker

    from ..image import as_float_image

    img = as_float_image(image)
    markers = np.zeros(img.shape[:2], np.int32)
    links = cons.must_link + cons.cannot_link
    for r, c in [(l[0], l[1]) for l in links] + [(l[2], l[3]) for l in links]:
        if target[r, c] != DONT_CARE:
            rr, cc = disk((r, c), 2, shape=markers.shape)
            markers[rr, cc] = target[r, c] + 1
    for b in cons.blocks:
        markers[b.top:b.bottom, b.left:b.right] = b.label
    if markers.max() == 0:
        return np.zeros(img.shape[:2], np.int32)
    mode = _random_walker_mode()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-image's own notes on the solver
        lab = random_walker(img, markers, mode=mode, channel_axis=-1 if img.ndim == 3 else None)
    return (lab - 1).astype(np.int32)


def harmonic_labels(W, seeds: np.ndarray, seed_labels: np.ndarray, n_labels: int) -> np.ndarray:
    """Harmonic labelling of a graph (a random walk on its nodes, Grady 2006).

    Each unseeded node takes the label whose harmonic potential is largest, the potential
    of label ``l`` being 1 on the seeds labelled ``l``, 0 on the other seeds and harmonic
    (``L_uu x_u = W_us y_s``, ``L = D - W``) elsewhere.

    Parameters
    ----------
    W : ndarray or sparse matrix, shape (n, n)
        Non-negative symmetric affinity.
    seeds : ndarray, shape (s,), int
        Seeded nodes (distinct).
    seed_labels : ndarray, shape (s,), int
        Their labels 0..n_labels-1.
    n_labels : int

    Returns
    -------
    labels : ndarray, shape (n,), int64
        A node that no path joins to any seed gets label 0.
    """
    import scipy.sparse as sp
    import scipy.sparse.linalg as sla

    n = W.shape[0]
    W = sp.csr_matrix(W)
    free = np.ones(n, bool)
    free[seeds] = False
    u = np.flatnonzero(free)
    Y = np.zeros((len(seeds), n_labels))
    Y[np.arange(len(seeds)), seed_labels] = 1.0
    d = np.asarray(W.sum(1)).ravel()
    Luu = (sp.diags(d[u] + 1e-9 * max(d.max(), 1e-12)) - W[u][:, u]).tocsc()
    X = sla.splu(Luu).solve(np.asarray(W[u][:, seeds] @ Y))
    labels = np.zeros(n, np.int64)
    labels[seeds] = seed_labels
    labels[u] = np.argmax(X, axis=1)
    return labels


def graph_ceiling_segmenter(image, cons: Constraints, target: np.ndarray, n_segments: int,
                            **params) -> np.ndarray:
    """Harmonic labelling of the node graph with the *true* label at every stroke endpoint.

    The graph is the one the methods get (:func:`core.graph.affinity.node_affinity`, in
    its ``'adjacency'`` form for ``affinity='boundary'``), built with ``params`` (the graph
    parameters of :data:`core.REPRESENTATION_PARAMS`). Told what the random walker is told
    (the target segment of each endpoint and block), it shows how well any method could do
    on that graph: what a method loses beyond this is its own, what this loses against the
    pixel-level random walker is the graph's.

    Returns
    -------
    labels : ndarray, shape (H, W), int32
    """
    from ..graph import GRAPH_PARAMS
    from ..graph.affinity import node_affinity
    from ..graph.representation import build_representation
    from ..params import resolve

    p = resolve(GRAPH_PARAMS, params, "the graph")
    rep = build_representation(np.asarray(image), p["representation"], p["max_nodes"], p["work_pixels"],
                               p["edge_sigma"])
    seeds: dict[int, int] = {}
    for r1, c1, r2, c2, _ in cons.must_link + cons.cannot_link:
        for r, c in ((r1, c1), (r2, c2)):
            if target[r, c] != DONT_CARE:
                seeds[rep.node_at(r, c)] = int(target[r, c])
    for b in cons.blocks:
        for node in rep.nodes_of_block(b):
            seeds[int(node)] = b.label - 1
    if not seeds:
        return np.zeros(rep.shape, np.int32)
    W = node_affinity(rep, p, "adjacency")
    np.fill_diagonal(W, 0.0)
    nodes = np.fromiter(seeds, np.int64)
    labels = harmonic_labels(W, nodes, np.array([seeds[k] for k in nodes]), n_segments)
    return rep.to_pixels(labels).astype(np.int32)
