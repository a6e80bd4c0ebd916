"""Segmentation agreement measures; each is checked on hand-made cases in the tests."""

from __future__ import annotations

import numpy as np

from ..constraints import Kind


def _contingency(a, b):
    a = np.asarray(a).ravel()
    b = np.asarray(b).ravel()
    _, ai = np.unique(a, return_inverse=True)
    _, bi = np.unique(b, return_inverse=True)
    return np.bincount(ai * (bi.max() + 1) + bi, minlength=(ai.max() + 1) * (bi.max() + 1)).reshape(
        ai.max() + 1, bi.max() + 1).astype(np.float64)


def adjusted_rand(a, b) -> float:
    """Adjusted Rand index of two labelings (Hubert & Arabie 1985); equals scikit-learn's
    ``adjusted_rand_score`` but runs in a few ms on a 154,401-pixel image."""
    n = _contingency(a, b)
    comb = lambda x: x * (x - 1) / 2.0  # noqa: E731
    tot = comb(n.sum())
    s_ij = comb(n).sum()
    s_a, s_b = comb(n.sum(1)).sum(), comb(n.sum(0)).sum()
    expected = s_a * s_b / tot if tot else 0.0
    maxi = (s_a + s_b) / 2.0
    if maxi == expected:
        return 1.0
    return float((s_ij - expected) / (maxi - expected))


def rand_index(a, b) -> float:
    """Rand index: the fraction of pixel pairs on which the two labelings agree."""
    n = _contingency(a, b)
    comb = lambda x: x * (x - 1) / 2.0  # noqa: E731
    tot = comb(n.sum())
    same_both = comb(n).sum()
    same_a, same_b = comb(n.sum(1)).sum(), comb(n.sum(0)).sum()
    return float((tot + 2 * same_both - same_a - same_b) / tot) if tot else 1.0


def probabilistic_rand_index(seg, ground_truths) -> float:
    """PRI (Unnikrishnan et al. 2007): the mean Rand index over all human segmentations."""
    return float(np.mean([rand_index(seg, g) for g in ground_truths]))


def variation_of_information(a, b) -> float:
    """VoI = H(A|B) + H(B|A) in bits (Meila 2003; scikit-image); 0 for identical labelings."""
    from skimage.metrics import variation_of_information as voi

    ai = np.unique(np.asarray(a).ravel(), return_inverse=True)[1]
    bi = np.unique(np.asarray(b).ravel(), return_inverse=True)[1]
    return float(sum(voi(ai, bi)))


def segmentation_covering(seg, gt) -> float:
    """Covering of ``gt`` by ``seg`` (Arbelaez et al. 2011): sum over ground-truth regions R of
    |R| max_S IoU(R, S), divided by the pixel count."""
    n = _contingency(gt, seg)  # rows: gt regions, cols: seg regions
    inter = n
    union = n.sum(1, keepdims=True) + n.sum(0, keepdims=True) - inter
    iou = inter / np.maximum(union, 1)
    return float((n.sum(1) * iou.max(1)).sum() / n.sum())


def constrained_rand_index(labels, truth, must_link_pairs) -> float:
    """Xia et al. 2009, eq. 11: Rand index over the free decisions, the must-linked pairs
    (given, not decided) removed: ``(#CD - #ML) / (N(N-1)/2 - #ML)``; ``labels``, ``truth``
    per item, ``must_link_pairs`` (p, 2) distinct item pairs, all correctly decided here."""
    n = len(np.asarray(labels).ravel())
    total = n * (n - 1) / 2.0
    correct = rand_index(labels, truth) * total
    ml = len(must_link_pairs)
    return float((correct - ml) / (total - ml))


def mean_iou(seg, gt, ignore=None) -> float:
    """Mean IoU over the ground-truth segments after Hungarian matching of segments.

    ``ignore`` (bool mask) marks don't-care pixels, left out of every count.
    """
    from scipy.optimize import linear_sum_assignment

    seg, gt = np.asarray(seg).ravel(), np.asarray(gt).ravel()
    if ignore is not None:
        keep = ~np.asarray(ignore).ravel()
        seg, gt = seg[keep], gt[keep]
    _, gi = np.unique(gt, return_inverse=True)
    _, si = np.unique(seg, return_inverse=True)
    inter = np.zeros((gi.max() + 1, si.max() + 1))
    np.add.at(inter, (gi, si), 1)
    union = inter.sum(1, keepdims=True) + inter.sum(0, keepdims=True) - inter
    iou = inter / np.maximum(union, 1)
    r, c = linear_sum_assignment(-iou)
    per = np.zeros(iou.shape[0])
    per[r] = iou[r, c]
    return float(per.mean())


def honoured(constraints, label_at, block_labels) -> dict:
    """Which of the user's constraints a segmentation honours.

    A must-link holds when its two endpoints share a segment, a cannot-link when they do
    not; a block when all its pixels have one segment, the same as every block of its label
    and different from every block of another label.

    Parameters
    ----------
    constraints : core.Constraints
    label_at : callable (row, col) -> int
        The segment of a pixel.
    block_labels : callable (core.Block,) -> ndarray
        The segments of the pixels of a block (a rectangle or a brush region).

    Returns
    -------
    dict with ``'must_link'`` (p,), ``'cannot_link'`` (q,), ``'blocks'`` (b,) bool arrays
    """
    ml = np.array([label_at(r1, c1) == label_at(r2, c2) for r1, c1, r2, c2, _ in constraints.must_link], bool)
    cl = np.array([label_at(r1, c1) != label_at(r2, c2) for r1, c1, r2, c2, _ in constraints.cannot_link], bool)
    seg = []
    for b in constraints.blocks:
        s = np.unique(block_labels(b))
        seg.append(int(s[0]) if len(s) == 1 else -1)
    ok = []
    for i, b in enumerate(constraints.blocks):
        same = [seg[j] for j, o in enumerate(constraints.blocks) if o.label == b.label]
        other = [seg[j] for j, o in enumerate(constraints.blocks) if o.label != b.label]
        ok.append(seg[i] >= 0 and all(s == seg[i] for s in same) and seg[i] not in other)
    return {Kind.MUST_LINK: ml, Kind.CANNOT_LINK: cl, Kind.BLOCK: np.array(ok, bool)}


def small_cannot_links(constraints, label_at, shares: np.ndarray, smallest: float) -> list:
    """The cannot-links kept apart only by a small segment: ``(index, share)`` of each
    honoured cannot-link one of whose ends lies in a segment under ``smallest`` of the image
    (``share``: that segment's), in the constraints' order.

    Such a cannot-link may be honoured by a blob around its end rather than by its end's
    region (the issue "Strokes as people draw them": "a cannot-link separates regions, not
    pixels ... or say that it could not"); or the region is that small (a fish in the sea).
    The result cannot tell the two apart, so the window and the command line say which
    cannot-link it is and what would settle it (a must-link inside the end's region).

    Parameters
    ----------
    constraints : core.Constraints
    label_at : callable (row, col) -> int
        The segment of a pixel.
    shares : ndarray, shape (k,)
        Each segment's share of the image.
    smallest : float
        The share under which a segment counts as small
        (:data:`core.constraint_step.params.UNREACHED_MIN_SHARE`, the health metrics' blob).
    """
    out = []
    for i, (r1, c1, r2, c2, _) in enumerate(constraints.cannot_link):
        a, b = int(label_at(r1, c1)), int(label_at(r2, c2))
        if a != b:
            low = float(min(shares[a], shares[b]))
            if low < smallest:
                out.append((i, low))
    return out


def pixel_honoured(constraints, labels: np.ndarray) -> dict:
    """:func:`honoured` for a label image ``labels`` of shape (H, W)."""
    return honoured(constraints, lambda r, c: int(labels[r, c]),
                    lambda b: labels[b.top:b.bottom, b.left:b.right][b.mask()])
