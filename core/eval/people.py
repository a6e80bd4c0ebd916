"""Simulated users that draw as people do, and the health of the results they see.

The error-centre user of :mod:`core.eval.simulate` strokes where the result is wrong, so every
segment soon has strokes of its own. People draw otherwise: must-links inside the regions they
mean first, then cannot-links between them; in any order; or must-links alone. Every stroke
these users draw is correct (both ends in the regions the stroke says), so a result that gets
worse after a stroke is the tool's doing.

Users (``--user`` of ``segapp evaluate``):

``regions-first``
    For each of the K target regions (largest first) a must-link between two far-apart
    points deep inside it (:func:`region_points`), then a second must-link per region between
    two more points spread away from the first two, then a cannot-link between the centres of
    every two regions. 2K + K(K-1)/2 strokes: 5 at K = 2, 9 at K = 3.
``regions-in-turn``
    The same strokes, one region at a time: both must-links inside the largest region, then
    both inside the next, ..., then the cannot-links (a person who finishes one region before
    starting the next: the issue's 100075 sequence, head -> back then belly -> cub on the
    bears, then the water). Its second stroke is a second must-link group in a region that
    already holds one, while another region has none.
``shuffled``
    The same strokes in an order shuffled per image (seeded by the image's id).
``must-links``
    The 2K must-links alone.

Health of a result (:func:`health`), the figures issue "Strokes as people draw them" asks for:
*collapsed*: a predicted segment under :data:`SMALL` of the image while every target region
holds at least :data:`LARGE` of the cared pixels (the image has K real regions, the result
shows fewer); *blob cannot-links*: a cannot-link whose smaller end's segment is under
:data:`SMALL` of the image, on the same images (honoured by a blob around its end, not by
separating regions; where a target region is itself small, a small segment is right);
*harmful* strokes (:func:`harmful`): a stroke after which the ARI falls by more than
:data:`HARM`.
"""

from __future__ import annotations

import zlib

import numpy as np
from scipy.ndimage import distance_transform_edt

from ..constraints import Constraints, Kind
from ..errors import SegappError

USERS = ("error-centre", "regions-first", "regions-in-turn", "shuffled", "must-links")
SMALL = 0.03  # a segment under 3% of the image is a blob
LARGE = 0.10  # every target region at least 10%: the image has K real regions
HARM = 0.05  # an ARI fall of more than this after a correct stroke is harm
DEEP = 0.3  # stroke ends lie where the distance to the region's border is >= 30% of its largest


def _interior(mask: np.ndarray) -> np.ndarray:
    """Pixels of ``mask`` deep inside it (distance to its border, the image border included,
    at least :data:`DEEP` of the largest and at least 2 pixels where the region allows)."""
    d = distance_transform_edt(np.pad(mask, 1))[1:-1, 1:-1]
    deep = d >= max(min(2.0, d.max()), DEEP * d.max())
    return deep


def region_points(mask: np.ndarray) -> list[tuple[int, int]]:
    """Four far-apart points deep inside ``mask``: ``a`` farthest from the region's centroid,
    ``b`` farthest from ``a``, then ``c`` and ``d`` each farthest from the points chosen so far
    (the ends of the first and the second must-link)."""
    if not np.any(mask):  # (an empty mask's distance transform is 0 everywhere: every pixel "deep")
        raise SegappError("a target region has no pixel")
    pts = np.argwhere(_interior(mask)).astype(float)
    chosen: list[np.ndarray] = []
    start = pts.mean(0)
    a = pts[np.argmax(((pts - start) ** 2).sum(1))]
    chosen.append(a)
    for _ in range(3):
        d2 = np.min([((pts - q) ** 2).sum(1) for q in chosen], axis=0)
        chosen.append(pts[np.argmax(d2)])
    return [tuple(int(v) for v in q) for q in chosen]


def _centre(mask: np.ndarray) -> tuple[int, int]:
    d = distance_transform_edt(np.pad(mask, 1))[1:-1, 1:-1]
    return tuple(int(v) for v in np.unravel_index(np.argmax(d), d.shape))


def region_strokes(target: np.ndarray, k: int) -> list[tuple[str, tuple, tuple]]:
    """The regions-first user's strokes, in drawing order: ``(kind, (r, c), (r, c))`` with
    kind ``'must_link'`` or ``'cannot_link'`` (module docstring). A target region without a
    pixel (a target of fewer than ``k`` regions) gets no stroke: every stroke stays correct."""
    present = [g for g in range(k) if (target == g).any()]
    pts = [region_points(target == g) for g in present]
    first = [(Kind.MUST_LINK, p[0], p[1]) for p in pts]
    second = [(Kind.MUST_LINK, p[2], p[3]) for p in pts]
    centres = [_centre(target == g) for g in present]
    n = len(present)
    cannot = [(Kind.CANNOT_LINK, centres[a], centres[b]) for a in range(n) for b in range(a + 1, n)]
    return first + second + cannot


def user_strokes(user: str, target: np.ndarray, k: int, seed_text: str = "") -> list:
    """The strokes ``user`` draws on ``target``, in its drawing order.

    Raises
    ------
    SegappError
        ``user`` is not one of the people-like users (listing them).
    """
    strokes = region_strokes(target, k)
    if user == "regions-first":
        return strokes
    if user == "regions-in-turn":
        n = sum(s[0] == Kind.MUST_LINK for s in strokes) // 2  # regions with strokes
        return [s for g in range(n) for s in (strokes[g], strokes[n + g])] + strokes[2 * n:]
    if user == "shuffled":
        rng = np.random.RandomState(zlib.crc32(seed_text.encode()))
        return [strokes[i] for i in rng.permutation(len(strokes))]
    if user == "must-links":
        return [s for s in strokes if s[0] == Kind.MUST_LINK]
    raise SegappError(f"unknown people-like user {user!r}; valid: {', '.join(USERS[1:])}")


def constraints_of(strokes) -> Constraints:
    """``strokes`` as :class:`~core.constraints.Constraints`, their order the drawing order."""
    ml, cl, order = [], [], {Kind.MUST_LINK: [], Kind.CANNOT_LINK: [], Kind.BLOCK: []}
    for seq, (kind, p, q) in enumerate(strokes):
        (ml if kind == Kind.MUST_LINK else cl).append((*p, *q, 1.0))
        order[kind].append(seq)
    return Constraints(ml, cl, (), order=order)


def draw(strokes, segmenter):
    """Add ``strokes`` one at a time, as a person draws: round 0 is the result without
    strokes, round r the result after the first r strokes.

    Yields dicts with ``round``, ``labels``, ``constraints``, ``added`` (as
    :func:`core.eval.simulate.simulate` does).
    """
    import time

    for r in range(len(strokes) + 1):
        cons = constraints_of(strokes[:r])
        t = time.perf_counter()
        labels = segmenter(cons)
        kind = strokes[r - 1][0] if r else None
        yield {"round": r, "labels": labels, "constraints": cons, "seconds": time.perf_counter() - t,
               "added": {k: int(kind == k) for k in (Kind.MUST_LINK, Kind.CANNOT_LINK, Kind.BLOCK)}}


def health(labels: np.ndarray, target: np.ndarray, cons: Constraints, k: int) -> dict:
    """``collapsed`` (1.0/0.0), ``blob_cannot`` (how many cannot-links are honoured only by
    a blob, module docstring) and ``n_cannot`` (how many cannot-links there are) of one
    result."""
    from .metrics import small_cannot_links
    from .simulate import DONT_CARE

    n = labels.size
    care = target != DONT_CARE
    real = all((target[care] == g).mean() >= LARGE for g in range(k)) if care.any() else False
    sizes = np.bincount(labels.ravel(), minlength=k)[:max(k, int(labels.max()) + 1)] / n
    collapsed = float(real and (sizes[:k] < SMALL).any())
    blobs = len(small_cannot_links(cons, lambda r, c: labels[int(r), int(c)], sizes, SMALL)) if real else 0
    return {"collapsed": collapsed, "blob_cannot": blobs, "n_cannot": len(cons.cannot_link)}


def harmful(aris) -> int:
    """How many strokes lowered the ARI by more than :data:`HARM` (``aris[r]``: after ``r``
    strokes)."""
    a = np.asarray(aris, float)
    return int(np.sum(a[:-1] - a[1:] > HARM))
