"""What the stroked regions look like, learnt from the strokes: a texture model fitted live.

One click inside a region of fur or grass should bring the rest of it along, yet the nodes
carry only their mean colour and the edge strength between them. Here:

1. **Features** (:func:`pixel_texture`, once per image): scikit-image's
   ``multiscale_basic_features`` on the grey working image (edges and the Hessian's
   eigenvalues at four scales, sigma 1 to 8 working pixels), each node's mean of them
   (:func:`node_texture`), standardised over the nodes.
2. **Model** (:func:`texture_posterior`, per edit): step 4's walk runs once as without
   texture; a multinomial logistic regression (scikit-learn) is fitted on its labels
   (every node, weighted by its pixels; the user's strokes, blocks and brush regions are
   among its seeds) and predicts every node's segment from its texture, as GrabCut refits
   its colour models to the current labelling (Rother et al. 2004).
3. **Evidence** (:func:`texture_shaped`, :func:`texture_walk`): the walk runs again on the
   graph weakened across nodes the model tells apart,
   ``W'_ij = W_ij exp(-w ||P_i - P_j||^2)`` (``P`` the model's posteriors, ``w`` =
   ``rounding_texture``), so it crosses from one segment's texture into another's less
   readily; the image's edges still decide inside one texture.

Only the graph's edges change: a node far away that looks like a stroked region is not
pulled into it (a prior would, and costs rounds on the Berkeley images:
``rounding_appearance`` in ``bench/results/tuning.md``). Our addition, in no paper.
"""

from __future__ import annotations

import numpy as np

SIGMAS = (1.0, 8.0, 4)  # sigma_min, sigma_max, num_sigma of multiscale_basic_features
TEXTURE_C = 1.0  # the logistic regression's inverse regularisation (sample weights: pixels per node)
TEXTURE_TOL = 1e-2  # its stopping tolerance (13 iterations instead of 90 on 100075 at K = 3)


def pixel_texture(image: np.ndarray) -> np.ndarray:
    """Texture features of every working pixel, shape (h * w, f), float32.

    Parameters
    ----------
    image : ndarray, shape (h, w) or (h, w, 3), float in [0, 1]
    """
    from skimage.color import rgb2gray
    from skimage.feature import multiscale_basic_features

    grey = rgb2gray(image) if image.ndim == 3 else np.asarray(image, float)
    lo, hi, num = SIGMAS
    f = multiscale_basic_features(grey, intensity=False, edges=True, texture=True,
                                  sigma_min=lo, sigma_max=hi, num_sigma=num)
    return f.reshape(-1, f.shape[-1]).astype(np.float32)


def cached_pixel_texture(rep) -> np.ndarray | None:
    """:func:`pixel_texture` of ``rep``'s working image, kept in its cache (``None``
    without a working image). :func:`core.graph_setup.graph_for` computes it while the
    graph is built, so the first stroke does not wait for it."""
    if rep.image is None:
        return None
    return rep.cache.get(("texture-pixels",), lambda: pixel_texture(rep.image))


def node_texture(features: np.ndarray, node_of_pixel: np.ndarray, n_nodes: int) -> np.ndarray:
    """Each node's mean of the pixel ``features``, standardised over the nodes, shape (n, f).

    Parameters
    ----------
    features : ndarray, shape (N, f)
    node_of_pixel : ndarray, shape (N,), int
    n_nodes : int
    """
    return standardised_means(*node_sums(features, node_of_pixel, n_nodes))


def node_sums(features: np.ndarray, node_of_pixel: np.ndarray, n_nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """Each node's sum of the pixel ``features`` (n, f) and its pixel count (n,), float64.

    Parameters
    ----------
    features : ndarray, shape (N, f)
    node_of_pixel : ndarray, shape (N,), int
    n_nodes : int
    """
    import scipy.sparse as sp

    node_of_pixel = np.asarray(node_of_pixel, np.int64)
    A = sp.csr_matrix((np.ones(len(node_of_pixel)), (node_of_pixel, np.arange(len(node_of_pixel)))),
                      shape=(n_nodes, len(node_of_pixel)))
    return np.asarray(A @ features, float), np.bincount(node_of_pixel, minlength=n_nodes).astype(float)


def standardised_means(sums: np.ndarray, count: np.ndarray) -> np.ndarray:
    """``sums / count`` per node, each column standardised over the nodes, shape (n, f)."""
    F = sums / np.maximum(count, 1.0)[:, None]
    F -= F.mean(0)
    F /= np.maximum(F.std(0), 1e-9)
    return F


def split_node_texture(rep, out, parent: np.ndarray | None) -> np.ndarray | None:
    """:func:`node_texture` of ``out``'s nodes: ``rep``'s nodes, or ``rep``'s nodes split
    where strokes meet (``parent``: the node of ``rep`` each came from), from sums kept in
    ``rep``'s cache. Only the pixels of split nodes are summed per edit (the nodes a stroke
    splits are few), so a stroke costs a fraction of summing the whole image.
    ``None`` without a working image."""
    feats = cached_pixel_texture(rep)
    if feats is None:
        return None
    sums, count = rep.cache.get(("texture-node-sums",), lambda: node_sums(feats, rep.node_map.ravel(), rep.n_nodes))
    if out is rep or parent is None:
        return standardised_means(sums, count)
    parent = np.asarray(parent, np.int64)
    split = np.bincount(parent, minlength=rep.n_nodes) > 1
    out_sums, out_count = sums[parent].copy(), count[parent].copy()
    pix = np.flatnonzero(split[rep.node_map.ravel()])
    if len(pix):
        nodes = out.node_map.ravel()[pix].astype(np.int64)
        redo = np.unique(nodes)
        index = np.full(out.n_nodes, -1, np.int64)
        index[redo] = np.arange(len(redo))
        s, c = node_sums(feats[pix], index[nodes], len(redo))
        out_sums[redo], out_count[redo] = s, c
    return standardised_means(out_sums, out_count)


def texture_posterior(F: np.ndarray, nodes: np.ndarray, labels: np.ndarray, k: int,
                      sizes: np.ndarray | None = None) -> np.ndarray | None:
    """Each node's probability of each segment under a logistic regression of its texture
    fitted on ``nodes`` labelled ``labels`` (weighted by ``sizes``), shape (n, k); segments
    no labelled node has get 0. ``None`` with fewer than two segments labelled.

    Parameters
    ----------
    F : ndarray, shape (n, f)
    nodes : ndarray, shape (s,), int
    labels : ndarray, shape (s,), int in [0, k)
    k : int
    sizes : ndarray, shape (n,), optional
    """
    from sklearn.linear_model import LogisticRegression

    nodes, labels = np.asarray(nodes, np.int64), np.asarray(labels, np.int64)
    classes = np.unique(labels)
    if len(classes) < 2:
        return None
    weight = None if sizes is None else np.asarray(sizes, float)[nodes]
    import sklearn

    # our own finite arrays and fixed settings: scikit-learn's checks cost more than the fit here
    with sklearn.config_context(assume_finite=True, skip_parameter_validation=True):
        model = LogisticRegression(C=TEXTURE_C, tol=TEXTURE_TOL, max_iter=200).fit(F[nodes], labels,
                                                                                   sample_weight=weight)
        P = np.zeros((len(F), k))
        P[:, model.classes_] = model.predict_proba(F)
    return P


def texture_shaped(graph, P: np.ndarray, weight: float):
    """``graph`` with each edge weakened by ``exp(-weight ||P_i - P_j||^2)``, csr.

    Parameters
    ----------
    graph : sparse matrix or ndarray, shape (n, n)
    P : ndarray, shape (n, k)
    weight : float
    """
    import scipy.sparse as sp

    W = sp.coo_matrix(graph)
    d2 = ((P[W.row] - P[W.col]) ** 2).sum(1)
    return sp.csr_matrix((W.data * np.exp(-weight * d2), (W.row, W.col)), shape=W.shape)


def texture_walk(graph, seeds: np.ndarray, seed_labels: np.ndarray, prior: np.ndarray, prior_weight,
                 texture, weight: float) -> np.ndarray:
    """Step 4's walk (:func:`~core.constraint_step.walk.prior_walk`), and with ``texture``
    (node features (n, f), node sizes (n,)) and ``weight`` > 0 once more on the graph
    shaped by a texture model fitted on the first walk's labels (every node, weighted by
    its pixels; :func:`texture_posterior`, :func:`texture_shaped`): as GrabCut refits its
    colour models to the current labelling (Rother et al. 2004), so the model learns each
    segment's texture from more than the few nodes a click touches."""
    from .walk import prior_walk

    labels = prior_walk(graph, seeds, seed_labels, prior, prior_weight)
    if texture is None or weight <= 0:
        return labels
    F, sizes = texture
    P = texture_posterior(F, np.arange(len(F)), labels, prior.shape[1], sizes)
    if P is None:
        return labels
    return prior_walk(texture_shaped(graph, P, weight), seeds, seed_labels, prior, prior_weight)


def edit_texture_walk(nc, graph, seeds: np.ndarray, seed_labels: np.ndarray, prior: np.ndarray,
                      prior_weight, texture, weight: float) -> np.ndarray:
    """:func:`texture_walk`, computed once per edit for the same input: both colourings of
    ``colouring='auto'`` often end in the same walk (once every colour is reached, the same
    seeds, seed labels and an empty prior), which is then solved once. Kept on ``nc`` (one
    per edit) with the graph it ran on, as :func:`~core.constraint_step.potts.edit_conductance`;
    returns a fresh copy."""
    import hashlib

    weights = np.broadcast_to(np.asarray(prior_weight, float), (prior.shape[1],))
    h = hashlib.blake2b(digest_size=16)
    for a in (np.asarray(seeds, np.int64), np.asarray(seed_labels, np.int64), np.asarray(prior, float),
              np.ascontiguousarray(weights), np.asarray([weight], float)):
        h.update(np.ascontiguousarray(a).tobytes())
        h.update(repr(a.shape).encode())
    key = (id(graph), id(texture), h.digest())
    memo = nc.__dict__.setdefault("_texture_walks", {})
    if key not in memo:
        memo[key] = (graph, texture, texture_walk(graph, seeds, seed_labels, prior, prior_weight, texture, weight))
    return memo[key][2].copy()
