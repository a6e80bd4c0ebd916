"""Affinity matrices shared by every method (the ``affinity`` parameter).

* ``'contour'`` (default, :func:`contour_affinity`): the papers' Gaussian in position and
  colour, cut down between nodes that every path of touching superpixels separates by a
  strong image edge; positive definite with unit diagonal, like the Gaussian.
* ``'boundary'``: the adjacency of touching superpixels weighted by colour difference and
  edge strength (:func:`boundary_affinity`), given to the methods as its diffusion kernel
  ``(I + t L_sym)^-1`` at unit diagonal (:func:`diffusion_kernel`), fully connected and
  positive definite.
* ``'gaussian'``: the papers' Gaussian in position and colour.

Each method's docstring says what its equations make of them (its **Graph.** paragraph).
"""

from __future__ import annotations

import numpy as np
from scipy.spatial.distance import cdist

from ..params import ParamSpec

AFFINITIES = ("contour", "gaussian", "boundary")

AFFINITY_PARAMS = (
    ParamSpec("affinity", str, "contour",
              "contour: the papers' Gaussian in position and colour, cut down wherever every path "
              "of touching nodes between two nodes crosses a strong image edge (the default); "
              "gaussian: the papers' Gaussian alone; boundary: the graph of touching nodes "
              "weighted by colour and edge strength (methods needing a dense kernel get its "
              "diffusion kernel). The default rounding's walk runs on the boundary graph.",
              choices=AFFINITIES),
    ParamSpec("sigma_position", float, 0.08,
              "Gaussian affinity scale in position, as a fraction of the image diagonal "
              "(affinity gaussian).",
              low=0.0, high=10.0, low_open=True),
    ParamSpec("sigma_intensity", float, 0.08,
              "Affinity scale in colour (RGB or grey in [0, 1]): how fast affinity falls as two "
              "nodes' colours differ.",
              low=0.0, high=10.0, low_open=True),
    ParamSpec("sigma_contour", float, 0.2,
              "Contour affinity: exp(-m / sigma_contour) multiplies the Gaussian, m the strongest "
              "image edge that every path of touching nodes between the two nodes crosses; "
              "smaller = image edges cut harder.",
              low=0.0, high=10.0, low_open=True),
    ParamSpec("sigma_boundary", float, 0.05,
              "Boundary affinity: exp(-b / sigma_boundary) with b the mean edge strength along "
              "two nodes' shared boundary; smaller = image edges cut harder.",
              low=0.0, high=10.0, low_open=True),
    ParamSpec("graph_form", str, "auto",
              "Boundary affinity: what the method clusters: kernel (the diffusion kernel, dense), "
              "adjacency (the boundary graph itself) or auto (the method's own choice, in its help).",
              choices=("auto", "kernel", "adjacency")),
    ParamSpec("regularisation", float, 0.02,
              "Contour affinity: tau of regularised spectral clustering, tau times the mean node "
              "degree over n added to every pair's affinity, so that no small set of nodes walled "
              "off by strong edges (a speck, a scanner's band) is a segment on its own; 0: the "
              "affinity as built. Not for ssap, whose similarities are the affinity's logarithm.",
              low=0.0, high=10.0),
    ParamSpec("diffusion_time", float, 10.0,
              "Boundary affinity: t of the diffusion kernel (I + t L)^-1 given to the methods "
              "that need a dense positive-definite affinity; larger spreads further.",
              low=0.0, high=1e4, low_open=True, log_scale=True),
)


def gaussian_affinity(features: np.ndarray) -> np.ndarray:
    """Dense Gaussian kernel ``K_ij = exp(-||f_i - f_j||^2 / 2)`` on pre-scaled features.

    Parameters
    ----------
    features : ndarray, shape (n, d)
        Features already divided by their kernel widths.

    Returns
    -------
    K : ndarray, shape (n, n)
        Symmetric, ``K_ii = 1``, entries in (0, 1]. Positive definite for distinct points,
        as Lu & Carreira-Perpinan (2008) eq. 1 require.
    """
    d2 = cdist(features, features, "sqeuclidean")
    np.multiply(d2, -0.5, out=d2)
    np.exp(d2, out=d2)
    return d2


def rbf_affinity(X: np.ndarray, gamma: float) -> np.ndarray:
    """``exp(-gamma ||x_i - x_j||^2)`` for the estimator's ``affinity='rbf'``."""
    d2 = cdist(X, X, "sqeuclidean")
    np.multiply(d2, -gamma, out=d2)
    np.exp(d2, out=d2)
    return d2


def median_gamma(X: np.ndarray) -> float:
    """``1 / median squared distance`` (the median heuristic), used when ``gamma=None``."""
    d2 = cdist(X, X, "sqeuclidean")
    med = float(np.median(d2[np.triu_indices_from(d2, 1)])) if len(X) > 1 else 1.0
    return 1.0 / med if med > 0 else 1.0


def knn_graph(K: np.ndarray, n_neighbors: int) -> np.ndarray:
    """Symmetrised k-nearest-neighbour weights from a kernel (Lu & Ip 2010, step (1)).

    ``W_ij = K_ij / sqrt(K_ii K_jj)`` if ``j`` is among the ``n_neighbors`` most similar
    points to ``i`` (``j != i``), else 0; then ``W = (W + W^T) / 2``.

    Returns
    -------
    W : ndarray, shape (n, n)
    """
    n = K.shape[0]
    k = int(min(n_neighbors, n - 1))
    diag = np.sqrt(np.clip(np.diag(K), 1e-300, None))
    Kn = K / diag[:, None] / diag[None, :]
    score = Kn.copy()
    np.fill_diagonal(score, -np.inf)
    idx = np.argpartition(-score, k - 1, axis=1)[:, :k]
    W = np.zeros_like(K)
    rows = np.repeat(np.arange(n), k)
    W[rows, idx.ravel()] = Kn[rows, idx.ravel()]
    return (W + W.T) / 2.0


def boundary_affinity(rep, sigma_intensity: float, sigma_boundary: float):
    """Edge-aware affinity: touching nodes only, weighted by colour and boundary strength.

    ``W_ij = exp(-||c_i - c_j||^2 / (2 sigma_c^2)) exp(-b_ij / sigma_b)`` for nodes ``i``, ``j``
    that share a boundary (``b_ij`` its mean edge magnitude,
    :class:`~core.graph.boundaries.Boundaries`), 0 otherwise. Affinity cannot jump across an
    object's outline: it has to flow through the nodes along the way, and a strong edge
    between two of them stops it.

    Parameters
    ----------
    rep : Representation
        With ``boundaries``.
    sigma_intensity, sigma_boundary : float

    Returns
    -------
    W : scipy.sparse.csr_matrix, shape (n, n)
        Symmetric, zero diagonal.
    """
    import scipy.sparse as sp

    b = rep.boundaries
    i, j = b.pairs[:, 0], b.pairs[:, 1]
    dc2 = ((rep.colors[i] - rep.colors[j]) ** 2).sum(1)
    w = np.exp(-dc2 / (2.0 * sigma_intensity ** 2)) * np.exp(-b.strength / sigma_boundary)
    n = rep.n_nodes
    W = sp.coo_matrix((np.r_[w, w], (np.r_[i, j], np.r_[j, i])), shape=(n, n)).tocsr()
    return W


def diffusion_kernel(W, t: float) -> np.ndarray:
    """Regularised-Laplacian kernel of a sparse graph, rescaled to unit diagonal.

    ``K = S^-1/2 (I + t L)^-1 S^-1/2`` with ``L = I - D^-1/2 W D^-1/2`` the normalised
    Laplacian and ``S = diag((I + t L)^-1)`` (Smola & Kondor, "Kernels and regularization on
    graphs", COLT 2003). ``K`` is symmetric positive definite, dense, non-negative (the
    inverse of an M-matrix), 1 on the diagonal like a Gaussian, and large only between
    nodes joined by many strong paths: a fully connected affinity that still respects the
    graph's edges.

    Parameters
    ----------
    W : sparse matrix, shape (n, n)
    t : float
        Diffusion time: larger spreads affinity further along the graph.

    Returns
    -------
    K : ndarray, shape (n, n)
    """
    import scipy.linalg as sl

    from ..spectral.linalg import normalize

    S, _ = normalize(W)
    n = W.shape[0]
    M = (1.0 + t) * np.eye(n) - t * S.toarray()
    K = sl.cho_solve(sl.cho_factor(M), np.eye(n))
    s = 1.0 / np.sqrt(np.diag(K))
    K *= s[:, None]
    K *= s[None, :]
    np.clip(K, 0.0, 1.0, out=K)
    return (K + K.T) / 2.0


def minimax_edge(rep) -> np.ndarray:
    """For every two nodes, the strongest image edge that every path of touching nodes
    between them must cross: ``m_ij = min over paths max over the path's steps b_kl``, ``b``
    the boundary strength of :class:`~core.graph.boundaries.Boundaries`.

    This is the path-based (minimax) dissimilarity of Fischer & Buhmann (TPAMI 2003), the
    cophenetic distance of single linkage on the boundary graph: read off its minimum
    spanning tree, whose merge order scipy's ``cophenet`` turns into all pairs.

    Returns
    -------
    M : ndarray, shape (n, n)
        Symmetric, zero diagonal; an ultrametric.
    """
    import scipy.sparse as sp
    from scipy.cluster.hierarchy import DisjointSet, cophenet
    from scipy.sparse.csgraph import minimum_spanning_tree
    from scipy.spatial.distance import squareform

    b, n = rep.boundaries, rep.n_nodes
    if n < 2:
        return np.zeros((n, n))
    top = float(b.strength.max()) + 1.0 if len(b.strength) else 1.0
    C = sp.coo_matrix((b.strength + 1e-12, (b.pairs[:, 0], b.pairs[:, 1])), shape=(n, n)).tocsr()
    T = minimum_spanning_tree(C).tocoo()
    rows, cols, vals = list(T.row), list(T.col), list(T.data)
    if len(vals) < n - 1:  # parts that touch nowhere: joined above every real edge
        from scipy.sparse.csgraph import connected_components

        _, comp = connected_components(C, directed=False)
        firsts = [int(np.flatnonzero(comp == c)[0]) for c in range(comp.max() + 1)]
        rows += firsts[:-1]
        cols += firsts[1:]
        vals += [top] * (len(firsts) - 1)
    order = np.argsort(vals, kind="stable")
    parts = DisjointSet(range(n))
    cluster = {x: x for x in range(n)}  # each part's root -> its cluster number in Z
    Z = np.zeros((n - 1, 4))
    for k, e in enumerate(order):
        ra, rc = parts[rows[e]], parts[cols[e]]
        a, c = cluster[ra], cluster[rc]
        Z[k] = (min(a, c), max(a, c), vals[e], parts.subset_size(ra) + parts.subset_size(rc))
        parts.merge(ra, rc)
        cluster[parts[ra]] = n + k
    return squareform(cophenet(Z))


def contour_affinity(rep, sigma_position: float, sigma_intensity: float, sigma_contour: float) -> np.ndarray:
    """The papers' Gaussian, cut where image edges separate two nodes.

    ``K_ij = exp(-||f_i - f_j||^2 / 2) exp(-m_ij / sigma_contour)`` with ``f`` the scaled
    position and colour (:func:`gaussian_affinity`) and ``m`` the minimax edge strength
    (:func:`minimax_edge`): two nodes of one colour stay close unless every way from one to
    the other over touching nodes crosses a strong edge. The intervening-contour cue of
    Malik, Belongie, Leung & Shi (IJCV 2001), taken along the best path of the boundary
    graph instead of the straight line.

    Positive definite, as gp-propagation's eq. 1 needs: ``exp(-m / s)`` of an ultrametric
    ``m`` is a strictly ultrametric matrix, non-singular with a diagonally dominant
    Stieltjes inverse (Martinez, Michon & San Martin, SIAM J. Matrix Anal. Appl. 1994), so
    positive definite, and the entrywise product with the Gaussian is positive definite by
    Schur's product theorem. Unit diagonal, entries in (0, 1].

    Returns
    -------
    K : ndarray, shape (n, n)
    """
    K = gaussian_affinity(rep.features(sigma_position, sigma_intensity))
    M = minimax_edge(rep)
    np.multiply(M, -1.0 / sigma_contour, out=M)
    np.exp(M, out=M)
    K *= M
    return K


GRAPH_FORMS = ("kernel", "adjacency")


def node_affinity(rep, params: dict, form: str = "kernel") -> np.ndarray:
    """The affinity a method clusters, from the graph parameters (:data:`AFFINITY_PARAMS`).

    Parameters
    ----------
    rep : Representation
    params : dict
        ``affinity``, ``sigma_position``, ``sigma_intensity``, ``sigma_contour``,
        ``sigma_boundary``, ``diffusion_time``.
    form : {'kernel', 'adjacency'}
        With ``affinity='boundary'``: the diffusion kernel of the boundary graph
        (:func:`diffusion_kernel`, dense, positive definite, for the methods whose papers
        need a kernel or a fully connected affinity) or the boundary graph itself
        (:func:`boundary_affinity`, as a dense array with zeros between nodes that do not
        touch). Ignored for ``affinity='gaussian'`` and ``'contour'`` (both dense kernels).

    Returns
    -------
    ndarray, shape (n, n)
    """
    if params["affinity"] == "gaussian":
        return gaussian_affinity(rep.features(params["sigma_position"], params["sigma_intensity"]))
    if params["affinity"] == "contour":
        return contour_affinity(rep, params["sigma_position"], params["sigma_intensity"], params["sigma_contour"])
    W = boundary_affinity(rep, params["sigma_intensity"], params["sigma_boundary"])
    if params.get("graph_form", "auto") != "auto":
        form = params["graph_form"]
    if form == "adjacency":
        return W.toarray()
    return diffusion_kernel(W, params["diffusion_time"])


def regularised(K: np.ndarray, tau: float) -> np.ndarray:
    """The regularised affinity ``K + (tau d / n) 1 1^T``, ``d`` the mean node degree of ``K``.

    Parameters
    ----------
    K : ndarray, shape (n, n)
        A dense affinity.
    tau : float
        The regularisation, relative to the mean degree (0: ``K`` itself).

    Returns
    -------
    ndarray, shape (n, n)

    Notes
    -----
    Amini et al. (2013) add ``tau / n`` to every entry of an adjacency matrix before its
    spectral clustering (their ``A_tau``); with ``tau`` set relative to the mean degree it
    means the same on any image. A set ``S`` of nodes joined to the rest by next to nothing
    has a normalised cut near 0, so the leading eigenvectors of the unregularised graph
    localise on it and a method's two segments are ``S`` and everything else; regularised,
    the cut of ``S`` is at least ``tau d |S| (n - |S|) / n``, which grows with ``S``'s share
    and rules out the small ones first (Zhang & Rohe 2018: regularisation removes the
    "dangling sets" a graph's conductance is blind to). Measured (all 200 BSDS training
    images, K = 2, no stroke; ``bench/results/tuning.md``, forty-fifth session): results with a
    segment under 3% of the image spectral-learning 45 -> 0, csp 26 -> 0, e2cp 12 -> 2; mean
    ARI 0.30 / 0.32 / 0.35 -> 0.40 / 0.41 / 0.39 (tau 0.02; 0.05: 0.39 / 0.39 / 0.41; 0.1:
    0.36 / 0.36 / 0.41). ssap is left out: its similarities are ``2 log K`` and tau 0.02
    lowered its ARI without strokes 0.36 -> 0.29.

    References
    ----------
    A. A. Amini, A. Chen, P. J. Bickel, E. Levina, Pseudo-likelihood methods for community
    detection in large sparse networks, Annals of Statistics 41(4), 2013.
    Y. Zhang, K. Rohe, Understanding regularized spectral clustering via graph conductance,
    NeurIPS 2018.
    """
    if tau <= 0:
        return K
    return K + tau * float(K.sum(1).mean()) / len(K)


def affinity_key(params: dict, form: str = "kernel") -> tuple:
    """What :func:`node_affinity` depends on, as a cache key: the same key, the same matrix."""
    if params["affinity"] == "gaussian":
        return ("gaussian", float(params["sigma_position"]), float(params["sigma_intensity"]))
    if params["affinity"] == "contour":
        return ("contour", float(params["sigma_position"]), float(params["sigma_intensity"]),
                float(params["sigma_contour"]))
    if params.get("graph_form", "auto") != "auto":
        form = params["graph_form"]
    key = ("boundary", form, float(params["sigma_intensity"]), float(params["sigma_boundary"]))
    return key + ((float(params["diffusion_time"]),) if form == "kernel" else ())
