"""Step 4f: with labelled blocks alone, the far field no block reaches goes to the ground.

Labelled blocks and brush regions (the click protocol's labelled points, a person marking an
object and its surroundings with two labels) seed every segment, so the walk of step 4
decides every node, also those far from every seed. There the walk says nothing: with its
prior of weight ``w`` (``rounding_prior``) towards no label, a walker from such a node is
absorbed before it reaches any seed, and the two labels' probabilities differ by noise
(GrabCut's person3, the seventh click, on the hiker's head: the 277 of 773 nodes whose
probabilities sum to under 0.1 were wrong on 99% of those under 0.05, and the head's label
took the sky, the mountain and the far field; ``bench/results/tuning.md``, forty-eighth
session). Those nodes are background in the truth on every image looked at: an object
marked by clicks rarely reaches the image's border, the far field does.

The rule (our addition; no paper has it): the *reach* of every node is the walk with the
prior of step 4 from every seed node, all seeds given one label,

``(D (1 + w) - W_uu) r_u = W_us 1``

(``r`` = 1 at the seeds), on the boundary graph weakened by the texture model as the final
walk's is (:func:`~core.constraint_step.texture.texture_shaped`, fitted on the step's
labels): the probability that a walker from the node reaches a seed before the prior absorbs
it, the sum of the step's per-label probabilities where every segment is seeded (Grady
2005). Every node with ``r < tau`` (``rounding_ground``) takes the *ground*: the segment that
holds the most image-border pixels among the reached nodes, where it holds at least
:data:`~core.constraint_step.params.GROUND_BORDER_SHARE` of them (a segment around the
others: the background prior of geodesic saliency, Wei et al. 2012). Only where the
constraints are blocks alone and every segment holds one (no link says which segments are
regions of their own: with the people-like users' must-links the far field is a region of
its own as often as not, regions-first, K = 2, e2cp, final ARI 0.762 -> 0.717 with the rule
applied to links too), and not where two segments share the border (labelled blocks on
Berkeley images, error-centre user, K = 3: NoC@0.80 6.13 -> 7.27 without that share, 6.08
with it).

Measured (``bench/results/tuning.md``, forty-eighth session): the GrabCut click protocol
(clicks as labelled points, the result on screen passed on), NoC@90 spectral-learning 7.84
-> 7.30, gp-propagation 8.36 -> 7.70, csp 7.94 -> 7.38, e2cp 8.10 -> 7.74, rom 8.06 -> 7.70,
ssap 8.24 -> 8.24; Berkeley labelled blocks (first 60 training images, error-centre user,
e2cp): K = 2 NoC@0.80 4.15 -> 4.18 (final ARI 0.893 -> 0.915), K = 3 6.13 -> 6.08 (0.867 ->
0.854).

References
----------
Grady, L. "Multilabel random walker image segmentation using prior models", CVPR 2005.
Wei, Y., Wen, F., Zhu, W., Sun, J. "Geodesic saliency using background priors", ECCV 2012.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .params import GROUND_BORDER_SHARE


def reach(W, seeds: np.ndarray, weight: float) -> np.ndarray:
    """Each node's probability of reaching a node of ``seeds`` before the prior of weight
    ``weight`` absorbs it (module docstring), shape (n,); 1 at the seeds.

    Parameters
    ----------
    W : sparse matrix or ndarray, shape (n, n)
    seeds : ndarray, shape (s,), int
    weight : float
        > 0 (at 0 every connected node is reached).
    """
    import scipy.sparse.linalg as sla

    W = sp.csr_matrix(W)
    n = W.shape[0]
    d = np.asarray(W.sum(1)).ravel()
    free = np.ones(n, bool)
    free[np.asarray(seeds, np.int64)] = False
    u = np.flatnonzero(free)
    r = np.ones(n)
    if len(u) == 0:
        return r
    A = (sp.diags(d[u] * (1.0 + weight) + 1e-9 * max(float(d.max(initial=0.0)), 1e-12)) - W[u][:, u]).tocsc()
    b = np.asarray(W[u][:, ~free].sum(1)).ravel()
    r[u] = sla.splu(A).solve(b)
    return r


def grounded(labels: np.ndarray, W, seeds: np.ndarray, border: np.ndarray, weight: float, tau: float,
             k: int) -> tuple[np.ndarray, int]:
    """``labels`` with the nodes of :func:`reach` under ``tau`` given the ground (the segment
    holding most ``border`` pixels among the other nodes), and how many changed.

    Parameters
    ----------
    labels : ndarray, shape (n,), int
    W : sparse matrix or ndarray, shape (n, n)
        The boundary graph the step walks on.
    seeds : ndarray, shape (s,), int
        The nodes of blocks and brush regions.
    border : ndarray, shape (n,)
        Each node's pixels on the image's border.
    weight, tau : float
        ``rounding_prior`` and ``rounding_ground``.
    k : int

    Returns
    -------
    labels : ndarray, shape (n,), int64
    changed : int
    """
    labels = np.asarray(labels, np.int64)
    if tau <= 0 or weight <= 0 or len(seeds) == 0:
        return labels, 0
    far = reach(W, seeds, weight) < tau
    near = ~far
    held = np.bincount(labels[near], weights=np.asarray(border, float)[near], minlength=k)[:k]
    if not far.any() or held.max(initial=0.0) <= 0 or held.max() < GROUND_BORDER_SHARE * held.sum():
        return labels, 0  # no segment surrounds the others: the far field may be a region of its own
    ground = int(np.argmax(held))
    out = labels.copy()
    out[far] = ground
    return out, int(np.sum(labels[far] != ground))
