"""A deterministic simulated user on Berkeley images, and the random-walker anchor.

Protocol (issue 4): the target is the K largest segments of the annotator with the fewest
segments; other pixels are "don't care" (never scored, never clicked). Starting from the
unconstrained result, each round matches predicted to target segments (Hungarian on overlap),
takes the error mask (cared pixels whose matched label is wrong), clicks p = the argmax of its
distance transform (the image border counts as boundary), and adds a must-link from p to the
distance-transform argmax of the correctly labelled part of p's true segment g (of g if none
is correct) and, when p's predicted segment was matched to a target segment h, a cannot-link
from p to the same kind of point of h. Blocks mode adds one 5x5 block at p labelled g instead.
"""

from __future__ import annotations

import time

import numpy as np
from scipy.ndimage import distance_transform_edt
from scipy.optimize import linear_sum_assignment

from ..constraints import Block, Constraints
from ..errors import SegappError

DONT_CARE = -1


def make_target(ground_truths, k: int) -> np.ndarray:
    """The ``k`` largest segments (relabelled 0..k-1 by size) of the annotator with the
    fewest segments; every other pixel is ``DONT_CARE``."""
    if not 2 <= k:
        raise SegappError(f"the target needs at least 2 segments, got {k}")
    gt = min(ground_truths, key=lambda g: len(np.unique(g)))
    ids, counts = np.unique(gt, return_counts=True)
    keep = ids[np.argsort(-counts, kind="stable")][:k]
    target = np.full(gt.shape, DONT_CARE, np.int32)
    for new, old in enumerate(keep):
        target[gt == old] = new
    return target


def match(pred: np.ndarray, target: np.ndarray) -> dict:
    """Predicted label -> target segment, Hungarian on the overlap over cared pixels."""
    care = target != DONT_CARE
    p, t = pred[care], target[care]
    overlap = np.zeros((int(pred.max()) + 1, int(target.max()) + 1))
    np.add.at(overlap, (p, t), 1)
    r, c = linear_sum_assignment(-overlap)
    return {int(a): int(b) for a, b in zip(r, c)}


def _center(mask: np.ndarray) -> tuple[int, int]:
    """Argmax of the distance transform of ``mask``, the image border counting as boundary."""
    d = distance_transform_edt(np.pad(mask, 1))[1:-1, 1:-1]
    return tuple(int(v) for v in np.unravel_index(np.argmax(d), d.shape))



def next_click(pred: np.ndarray, target: np.ndarray, covered: np.ndarray | None = None):
    """One round of the simulated user: ``(p, g, h_point_or_None, g_point)`` or None if no error.

    ``covered`` (optional, shape (H, W), bool): pixels already under a labelled block, never
    clicked again (a person does not label the same spot twice; without it, one block that
    changes nothing would be placed at the same spot every round)."""
    care = target != DONT_CARE
    m = match(pred, target)
    as_target = np.array([m.get(i, -2) for i in range(int(pred.max()) + 1)])[pred]
    error = care & (as_target != target)
    if covered is not None:
        error &= ~covered
    if not error.any():
        return None
    p = _center(error)
    g = int(target[p])
    correct_g = (target == g) & (as_target == g)
    gp = _center(correct_g if correct_g.any() else target == g)
    h = m.get(int(pred[p]))
    hp = None
    if h is not None and h != g:
        correct_h = (target == h) & (as_target == h)
        hp = _center(correct_h if correct_h.any() else target == h)
    return p, g, hp, gp


def add_round(cons: Constraints, click, mode: str, shape, target: np.ndarray | None = None) -> Constraints:
    """``cons`` with this round's strokes (or block) appended, newest last in the creation
    order (:attr:`Constraints.order`), so the constraint-respecting rounding lets the newest
    stroke win across kinds as it does for a person drawing them."""
    p, g, hp, gp = click
    order = {k: list(v) for k, v in cons.order.items()}
    nxt = iter(range(sum(len(v) for v in order.values()), 10**9))
    if mode == "blocks":
        r, c = p
        labelled = {b.label for b in cons.blocks}
        if target is not None and hp is not None and g + 1 in labelled and int(target[hp]) + 1 not in labelled:
            # the clicked segment is labelled already: label the one it is wrongly merged with
            (r, c), g = hp, int(target[hp])
        top, left = max(0, min(r - 2, shape[0] - 5)), max(0, min(c - 2, shape[1] - 5))
        order["blocks"].append(next(nxt))
        return Constraints(cons.must_link, cons.cannot_link, cons.blocks + (Block(g + 1, top, left, top + 5, left + 5),),
                           order=order)
    ml, cl = cons.must_link, cons.cannot_link
    if gp != p:
        ml = ml + ((*p, *gp, 1.0),)
        order["must_link"].append(next(nxt))
    if hp is not None:
        cl = cl + ((*p, *hp, 1.0),)
        order["cannot_link"].append(next(nxt))
    return Constraints(ml, cl, cons.blocks, order=order)


def simulate(image, target, segmenter, rounds: int = 10, mode: str = "strokes"):
    """Run the simulated user; ``segmenter(constraints) -> labels``.

    Yields
    ------
    dict
        One per round 0..rounds: ``round``, ``labels``, ``constraints``, ``seconds`` and
        ``added`` (how many must-links, cannot-links and blocks this round appended).
    """
    if mode not in ("strokes", "blocks"):
        raise SegappError(f"unknown simulation mode {mode!r}; valid: 'strokes', 'blocks'")
    cons = Constraints()
    kinds = ("must_link", "cannot_link", "blocks")
    for r in range(rounds + 1):
        before = {k: len(getattr(cons, k)) for k in kinds}
        if r > 0:
            covered = np.zeros(target.shape, bool)
            for b in cons.blocks:
                covered[b.top:b.bottom, b.left:b.right] = True
            click = next_click(labels, target, covered)
            if click is not None:
                cons = add_round(cons, click, mode, target.shape, target)
        t = time.perf_counter()
        labels = segmenter(cons)
        yield {"round": r, "labels": labels, "constraints": cons, "seconds": time.perf_counter() - t,
               "added": {k: len(getattr(cons, k)) - before[k] for k in kinds}}
