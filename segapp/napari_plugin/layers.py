"""napari layers as segapp constraints, in the Image layer's pixel coordinates.

What each layer kind stands for (the widget's form names them the same way):

* a **Shapes** layer of lines or paths: one link per shape, between its first and its last
  vertex (another shape, a rectangle say, is refused with a message); the form says whether
  a layer holds must-links or cannot-links;
* a **Points** layer: one labelled pixel per point (a 1×1 block, as the click protocol of
  ``segapp evaluate --objects`` gives clicks), its label from the layer's ``label`` feature
  (integers 1..255), 1 where the layer has no such feature;
* a **Labels** layer of brush regions, the image's size and placed as the image is: every
  value ``L > 0`` is a brush region of label ``L``
  (blocks of one label must-link, of different labels cannot-link; a region of label ``L``
  becomes segment ``L - 1``, shown as value ``L`` in the output layer).

Positions of shapes and points go from each layer's data coordinates to the image's through
napari's world coordinates, so those layers may have their own scale or translation and line
up as they do on screen; a labels layer's pixels must be the image's (same size and placing).
Only this module knows napari's layer classes, and only through their ``data``,
``features``, ``data_to_world`` and ``world_to_data``: it imports neither napari nor Qt.
"""

from __future__ import annotations

import numpy as np

from segapp.core import Block, Constraints
from segapp.core.block import MAX_LABEL
from segapp.core.errors import ConstraintError


def image_of(layer) -> np.ndarray:
    """The pixels of an Image layer as segapp takes them: (H, W) grey or (H, W, 3|4) colour.

    Raises
    ------
    ConstraintError
        For a stack or volume (segapp segments one 2-D image).
    """
    data = np.asarray(layer.data)
    rgb = bool(getattr(layer, "rgb", False))
    if data.ndim == 2 or (rgb and data.ndim == 3):
        return data
    raise ConstraintError(f"segapp segments one 2-D image; layer {layer.name!r} has shape {data.shape} "
                          "(choose a 2-D grey or RGB image layer)")


def to_pixels(points, layer, image_layer) -> np.ndarray:
    """(m, 2) positions in ``layer``'s data coordinates as (row, column) pixels of the image."""
    pts = np.asarray(points, float).reshape(-1, np.asarray(points).shape[-1] if np.size(points) else 2)
    out = [np.asarray(image_layer.world_to_data(layer.data_to_world(p)), float)[-2:] for p in pts]
    return np.rint(np.asarray(out, float).reshape(-1, 2)).astype(np.int64)


def _inside(px: np.ndarray, shape, what: str) -> None:
    h, w = shape
    bad = (px[:, 0] < 0) | (px[:, 0] >= h) | (px[:, 1] < 0) | (px[:, 1] >= w)
    if bad.any():
        r, c = px[np.argmax(bad)]
        raise ConstraintError(f"{what} at pixel ({r}, {c}) lies outside the {h}×{w} image")


LINK_SHAPES = ("line", "path")


def links_from_shapes(layer, image_layer, shape, kind: str) -> list[tuple[int, int, int, int]]:
    """One link per line or path of a Shapes layer: its first vertex to its last."""
    links = []
    types = list(getattr(layer, "shape_type", ["line"] * len(layer.data)))
    for i, verts in enumerate(layer.data):
        if types[i] not in LINK_SHAPES:
            raise ConstraintError(f"{kind} #{i} of layer {layer.name!r} is a {types[i]}; a link is a line "
                                  "or a path (drawn from one place to the other)")
        px = to_pixels(np.asarray(verts)[[0, -1]], layer, image_layer)
        _inside(px, shape, f"{kind} #{i} of layer {layer.name!r}")
        if (px[0] == px[1]).all():
            raise ConstraintError(f"{kind} #{i} of layer {layer.name!r} starts and ends on one pixel "
                                  f"({px[0, 0]}, {px[0, 1]}); draw it as a line between two places")
        links.append((int(px[0, 0]), int(px[0, 1]), int(px[1, 0]), int(px[1, 1])))
    return links


def blocks_from_points(layer, image_layer, shape) -> list[Block]:
    """One labelled pixel per point; labels from the ``label`` feature, else 1."""
    if len(layer.data) == 0:
        return []
    px = to_pixels(layer.data, layer, image_layer)
    _inside(px, shape, f"a point of layer {layer.name!r}")
    features = getattr(layer, "features", None)
    labels = list(features["label"]) if features is not None and "label" in features else [1] * len(px)
    for i, v in enumerate(labels):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer, float, np.floating)) \
                or not np.isfinite(v) or float(v) != int(v) or not 1 <= int(v) <= MAX_LABEL:
            raise ConstraintError(f"point #{i} of layer {layer.name!r} has label {v!r}; a label is a "
                                  f"whole number from 1 to {MAX_LABEL} (the layer's 'label' feature)")
    return [Block(int(label), int(r), int(c), int(r) + 1, int(c) + 1) for (r, c), label in zip(px, labels)]


def blocks_from_labels(layer, shape, image_layer=None) -> list[Block]:
    """One brush region per value ``L > 0`` of a Labels layer the image's size, placed as
    the image is (same scale and translation: its pixels are the image's pixels)."""
    from scipy import ndimage

    data = np.asarray(layer.data)
    if data.ndim != 2:
        raise ConstraintError(f"labels layer {layer.name!r} has shape {data.shape}; segapp reads a 2-D one")
    if data.shape != tuple(shape):
        raise ConstraintError(f"labels layer {layer.name!r} is {data.shape[0]}×{data.shape[1]} "
                              f"but the image is {shape[0]}×{shape[1]}; paint the brush regions "
                              "on a labels layer the image's size")
    if image_layer is not None and not (np.allclose(layer.scale[-2:], image_layer.scale[-2:])
                                        and np.allclose(layer.translate[-2:], image_layer.translate[-2:])):
        raise ConstraintError(f"labels layer {layer.name!r} is placed differently from the image (scale "
                              f"{tuple(layer.scale[-2:])}, translate {tuple(layer.translate[-2:])}); give it "
                              "the image's scale and translation")
    top = int(data.max(initial=0))
    if top > MAX_LABEL:
        raise ConstraintError(f"labels layer {layer.name!r} holds label {top}; brush regions are "
                              f"labelled 1 to {MAX_LABEL}")
    labels = np.where(data > 0, data, 0).astype(np.int64)
    blocks = []
    for v, box in enumerate(ndimage.find_objects(labels), start=1):
        if box is not None:  # one pass over the image; each label's mask only in its box
            blocks.append(Block.from_mask(v, labels[box] == v, top=box[0].start, left=box[1].start))
    return blocks


def constraints_from_layers(image_layer, must_link=None, cannot_link=None, points=None,
                            labels=None) -> Constraints:
    """:class:`core.Constraints` from the chosen layers (any may be None).

    The order of the items is the order of the kinds (must-links, cannot-links, then blocks),
    each in layer order: napari keeps no drawing order across layers.

    Raises
    ------
    ConstraintError
        A point outside the image, a link on one pixel, a labels layer of another size.
    """
    shape = image_of(image_layer).shape[:2]
    ml = links_from_shapes(must_link, image_layer, shape, "must-link") if must_link is not None else []
    cl = links_from_shapes(cannot_link, image_layer, shape, "cannot-link") if cannot_link is not None else []
    blocks = blocks_from_points(points, image_layer, shape) if points is not None else []
    if labels is not None:
        blocks += blocks_from_labels(labels, shape, image_layer)
    return Constraints(must_link=ml, cannot_link=cl, blocks=blocks)
