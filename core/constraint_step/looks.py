"""What stroked regions look like: colour-codebook histograms of nodes, used by step 2 with
``'ncut'`` (the groups' looks) and step 4 (the appearance prior)."""

from __future__ import annotations

import warnings

import numpy as np

from ..constraints import Kind
from .params import LOOK_BINS
from .resolve import Resolution


def territory_looks(codes, territory: np.ndarray, n_groups: int) -> np.ndarray:
    """What each group's nodes look like: the square root of their colour histogram.

    Parameters
    ----------
    codes : tuple (code, sizes)
        :func:`colour_codes` of the image's nodes.
    territory : ndarray, shape (n,), int
        Group of each node (-1: none), e.g. :func:`group_conductance`'s territories.
    n_groups : int

    Returns
    -------
    ndarray, shape (n_groups, LOOK_BINS)
        Rows of unit norm: the square roots of the pixel-weighted histograms of the node
        colours over a codebook of :data:`LOOK_BINS` colours (k-means on the image's node
        colours, seeded), so squared distances between rows are twice the squared
        Hellinger distances of the histograms.
    """
    code, sizes = codes
    H = _histograms(code, sizes, territory, n_groups)
    return np.sqrt(H / np.maximum(H.sum(1, keepdims=True), 1e-12))


def colour_codes(appearance) -> tuple[np.ndarray, np.ndarray]:
    """Each node's entry in a codebook of :data:`LOOK_BINS` colours (k-means on the image's
    node colours, seeded), and the node sizes: ``(code (n,), sizes (n,))``; hard entries
    (soft ones were measured worse: ``bench/results/tuning.md``)."""
    from scipy.cluster.vq import kmeans2

    colors, sizes = (np.asarray(a, float) for a in appearance)
    bins = min(LOOK_BINS, len(colors))
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an empty code ("One of the clusters is empty") is harmless here
        _, code = kmeans2(colors, bins, minit="++", seed=0)
    return code, sizes


def _histograms(code, sizes, owner, n_owners: int) -> np.ndarray:
    """Pixel counts per (owner, code), owners ``-1`` left out: shape (n_owners, LOOK_BINS)."""
    H = np.zeros((n_owners, LOOK_BINS))
    ok = owner >= 0
    np.add.at(H, (owner[ok], code[ok]), sizes[ok])
    return H


def appearance_prior(codes, owner: np.ndarray, k: int) -> np.ndarray:
    """How much each node looks like each segment: ``P[i, c]`` is the share of segment
    ``c``'s pixels (its nodes in ``owner``) in node ``i``'s colour of the codebook, over
    the segments (rows sum to 1; a colour no segment has: uniform).

    Parameters
    ----------
    codes : tuple (code, sizes)
        :func:`colour_codes` of the image's nodes.
    owner : ndarray, shape (n,), int
        Segment of each node (-1: none).
    k : int

    Returns
    -------
    ndarray, shape (n, k)
    """
    code, sizes = codes
    H = _histograms(code, sizes, owner, k)
    H /= np.maximum(H.sum(1, keepdims=True), 1e-12)  # each segment's colour distribution
    P = H[:, code].T + 1e-3
    return P / P.sum(1, keepdims=True)


def _look_samples(nc, res: Resolution) -> np.ndarray:
    """The nodes that show what each group looks like: its stroke-end nodes and the
    neighbourhoods they stand for (:attr:`Stroke.ends`: nodes near the end of a similar
    colour), a block's nodes; shape (n,), the group of each such node, -1 elsewhere (a node
    near two groups' ends goes to the newest stroke's)."""
    owner = np.full(nc.n_nodes, -1, np.int64)
    for k, s in enumerate(nc.strokes):
        if not res.honoured[k]:
            continue
        if s.kind == Kind.BLOCK:
            nodes = np.asarray(s.nodes, np.int64)
            owner[nodes] = res.group[nodes]
            continue
        for node, end in zip((s.a, s.b), s.ends):
            g = res.group[node]
            if g >= 0:
                owner[np.asarray(tuple(end) + (node,), np.int64)] = g
    return owner
