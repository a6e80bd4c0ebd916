"""The click protocol of interactive object segmentation (NoC@85 / NoC@90).

The field compares interactive segmentation by the number of clicks a simulated user needs
to reach an IoU of 0.85 / 0.90 with the object, at most :data:`MAX_CLICKS` (Xu et al.,
"Deep interactive object selection", CVPR 2016; Sofiiuk et al., f-BRS 2020 and RITM 2021),
on data sets such as GrabCut (50 images; ``../shared/grabcut``). The clicker
(:func:`next_click`): after each result, the false-negative region (object pixels outside
the predicted mask) and the false-positive region (background pixels inside it), both
without the "unsure" band (mask value 128) and without pixels already clicked, get a
Euclidean distance transform in which the image border counts as outside; the next click
goes to the pixel farthest inside the region with the larger maximum, positive if that is
the missed object part, negative otherwise. An image that never reaches the threshold
counts :data:`MAX_CLICKS`.

Clicks enter segapp the two ways the app takes them (:func:`clicks_to_constraints`):

``points``
    Each click is a one-pixel labelled block: label 1 (object) or 2 (background). The
    predicted object is the segment holding the label-1 blocks.
``strokes``
    Pairwise strokes, as a person would draw them with links: every later positive click
    must-linked to the first positive one, every later negative click to the first negative
    one, and the first positive click cannot-linked to every negative one. The predicted
    object is the segment of the first positive click.

Masks in the GrabCut layout: 8-bit, 255 object, 0 background, 128 ignored.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.ndimage import distance_transform_edt

from ..constraints import Block, Constraints, Kind
from ..errors import SegappError

MAX_CLICKS = 20
THRESHOLDS = (0.85, 0.90)
CLICK_MODES = ("points", "strokes")
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff")


@dataclass(frozen=True)
class ObjectItem:
    """One image of an object data set and its mask."""

    id: str
    image: Path
    mask: Path


def find_objects(folder) -> list[ObjectItem]:
    """The images of a folder in the GrabCut layout (``images/<stem>.*`` and
    ``masks/<stem>.*``), sorted by name; images without a mask are left out.

    Raises
    ------
    SegappError
        No ``images`` or ``masks`` folder, or no image with a mask.
    """
    root = Path(folder)
    imgs, masks = root / "images", root / "masks"
    if not imgs.is_dir() or not masks.is_dir():
        raise SegappError(f"{root} is not in the GrabCut layout: it needs the folders images/ and masks/ "
                          "(masks: 255 object, 0 background, 128 ignored)")
    by_stem = {p.stem: p for p in masks.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES}
    items = [ObjectItem(p.stem, p, by_stem[p.stem]) for p in sorted(imgs.iterdir())
             if p.suffix.lower() in IMAGE_SUFFIXES and p.stem in by_stem]
    if not items:
        raise SegappError(f"no image in {imgs} has a mask of the same name in {masks}")
    return items


def load_mask(path, shape) -> np.ndarray:
    """A GrabCut mask as uint8 (0, 128, 255), checked against the image's ``shape``."""
    from PIL import Image

    try:
        m = np.asarray(Image.open(path).convert("L"))
    except (OSError, ValueError) as e:
        raise SegappError(f"cannot read the mask {path}: {e}") from None
    if m.shape != tuple(shape[:2]):
        raise SegappError(f"the mask {path} is {m.shape[1]}x{m.shape[0]}, its image {shape[1]}x{shape[0]}")
    out = np.zeros(m.shape, np.uint8)
    out[m >= 192] = 255
    out[(m > 64) & (m < 192)] = 128
    return out


def iou(pred: np.ndarray, mask: np.ndarray) -> float:
    """Intersection over union of the predicted object ``pred`` (bool) with the mask's
    object, pixels of the 128 band left out."""
    care = mask != 128
    obj = mask == 255
    union = np.sum((pred | obj) & care)
    return float(np.sum(pred & obj & care) / union) if union else 1.0


def _inside(region: np.ndarray) -> np.ndarray:
    """Distance of each pixel of ``region`` to its outside, the image border counting as
    outside."""
    return distance_transform_edt(np.pad(region, 1))[1:-1, 1:-1]


def next_click(pred: np.ndarray, mask: np.ndarray, clicked: np.ndarray):
    """The clicker's next click: ``(row, col, positive)``, or None when nothing is wrong."""
    care = (mask != 128) & ~clicked
    fn = (mask == 255) & ~pred & care
    fp = (mask == 0) & pred & care
    dfn, dfp = _inside(fn), _inside(fp)
    if max(dfn.max(initial=0), dfp.max(initial=0)) <= 0:
        return None
    positive = dfn.max() >= dfp.max()
    d = dfn if positive else dfp
    r, c = np.unravel_index(int(np.argmax(d)), d.shape)
    return int(r), int(c), bool(positive)


def random_click(pred: np.ndarray, mask: np.ndarray, clicked: np.ndarray, rng):
    """A click at a random pixel of the larger connected error region (false negatives or
    false positives, as :func:`next_click` chooses between them): the user who clicks at
    random inside the wrong region."""
    from .simulate import _random_in_largest

    care = (mask != 128) & ~clicked
    fn = (mask == 255) & ~pred & care
    fp = (mask == 0) & pred & care
    if not (fn.any() or fp.any()):
        return None
    positive = _inside(fn).max(initial=0) >= _inside(fp).max(initial=0)
    r, c = _random_in_largest(fn if positive else fp, rng)
    return r, c, bool(positive)


def suggestion_clicker(shown: dict, segmenter, committee=None):
    """``(pred, mask, clicked) -> click``: the user who clicks where segapp suggests
    (:func:`core.suggest` on ``shown['seg']``, made from ``shown['cons']``) and
    says from the mask whether the pixel is object; a suggestion on an ignored or clicked
    pixel is passed over. Before any result the unconstrained one is made (``segmenter``).
    ``committee(constraints) -> [label images]``: other methods' results, where their
    disagreement marks the uncertain regions (``others`` of :func:`core.suggest`)."""
    from .simulate import _suggestions

    asked: list = []

    def click(pred, mask, clicked):
        if "seg" not in shown:
            segmenter(Constraints())
        cons = shown.get("cons") or Constraints()
        others = committee(cons) if committee is not None else ()
        for s in _suggestions(shown["seg"], cons, asked, others):
            asked.append(s.point)
            r, c = s.point
            if mask[r, c] != 128 and not clicked[r, c]:
                return r, c, bool(mask[r, c] == 255)
        return None
    return click


def clicks_to_constraints(clicks, mode: str) -> Constraints:
    """The clicks so far as constraints (module docstring), newest last in creation order."""
    if mode == "points":
        blocks = tuple(Block(1 if pos else 2, r, c, r + 1, c + 1) for r, c, pos in clicks)
        return Constraints((), (), blocks)
    if mode != "strokes":
        raise SegappError(f"unknown click mode {mode!r}; valid: {', '.join(CLICK_MODES)}")
    pos = [(r, c) for r, c, p in clicks if p]
    neg = [(r, c) for r, c, p in clicks if not p]
    ml, cl, order = [], [], {Kind.MUST_LINK: [], Kind.CANNOT_LINK: [], Kind.BLOCK: []}
    for seq, (r, c, p) in enumerate(clicks):
        first = pos[0] if p else (neg[0] if neg else None)
        if first is not None and (r, c) != first:
            ml.append((*first, r, c, 1.0))
            order[Kind.MUST_LINK].append(2 * seq)
        if not p and pos:
            cl.append((*pos[0], r, c, 1.0))
            order[Kind.CANNOT_LINK].append(2 * seq + 1)
    return Constraints(ml, cl, (), order=order)


def object_of(labels: np.ndarray, clicks, mode: str) -> np.ndarray:
    """The predicted object (bool, the labels' shape): the segment of the first positive click
    (``strokes``), or the segment holding most positive clicks (``points``, as a person reads
    label 1's colour); all False before any positive click."""
    pos = [labels[r, c] for r, c, p in clicks if p]
    if not pos:
        return np.zeros(labels.shape, bool)
    seg = pos[0] if mode == "strokes" else np.bincount(pos).argmax()
    return labels == seg


def run_clicks(mask: np.ndarray, segmenter, mode: str, max_clicks: int = MAX_CLICKS, clicker=None):
    """Click until IoU 0.90 or ``max_clicks``; ``segmenter(constraints) -> labels (H, W)``;
    ``clicker(pred, mask, clicked) -> click or None`` replaces the field's :func:`next_click`.

    Yields
    ------
    dict
        One per click 1..n: ``click``, ``iou``, ``seconds``, ``positive``.
    """
    if mode not in CLICK_MODES:
        raise SegappError(f"unknown click mode {mode!r}; valid: {', '.join(CLICK_MODES)}")
    clicks, clicked = [], np.zeros(mask.shape, bool)
    pred = np.zeros(mask.shape, bool)
    for n in range(1, max_clicks + 1):
        click = (clicker or next_click)(pred, mask, clicked)
        if click is None:
            return
        clicks.append(click)
        clicked[click[0], click[1]] = True
        t = time.perf_counter()
        labels = segmenter(clicks_to_constraints(clicks, mode))
        seconds = time.perf_counter() - t
        pred = object_of(labels, clicks, mode)
        value = iou(pred, mask)
        yield {"click": n, "iou": value, "seconds": seconds, "positive": click[2]}
        if value >= max(THRESHOLDS):
            return


def noc(ious_by_click: dict, threshold: float, max_clicks: int = MAX_CLICKS) -> int:
    """Clicks needed to reach ``threshold`` (``max_clicks`` if never), from ``{click: iou}``."""
    return next((k for k in sorted(ious_by_click) if ious_by_click[k] >= threshold), max_clicks)


def ceiling(rep, mask: np.ndarray, params: dict | None = None) -> float:
    """The representation's ceiling: the IoU of the best labelling of ``rep``'s nodes (each
    node takes the label most of its cared pixels have in the mask), after the pixel
    refinement (:mod:`core.pixel_refinement`) with ``params`` (``pixel_band``,
    ``pixel_looks``, ``sigma_intensity``, ``sigma_boundary``; defaults where missing) when
    ``rep`` carries its working image. What no click can beat: the nodes' labelling is the
    only freedom the methods have.

    Parameters
    ----------
    rep : Representation
        The nodes the methods label, of an image of ``mask``'s size.
    mask : ndarray, shape (H, W), uint8
        255 object, 0 background, 128 ignored.
    params : dict, optional
    """
    from ..pipeline import SHARED_PARAMS
    from ..pixel_refinement import PixelRefinement, apply_refinement

    p = {s.name: s.default for s in SHARED_PARAMS}
    p.update(params or {})
    node_of_pixel = rep.node_of_pixel
    care = mask != 128
    n = rep.n_nodes
    obj = np.bincount(node_of_pixel[care], weights=(mask[care] == 255).astype(float), minlength=n)
    tot = np.bincount(node_of_pixel[care], minlength=n)
    node_obj = (obj > 0.5 * np.maximum(tot, 1)).astype(np.int64)
    done = apply_refinement(PixelRefinement(rep, node_obj, 2, np.zeros(0, np.int64), p["pixel_band"],
                                            p["pixel_looks"], p["sigma_intensity"], p["sigma_boundary"], n))
    return iou(done.representation.to_pixels(done.node_labels) == 1, mask)
