"""What the window reads and writes, as plain functions run by :class:`~.background.Background`.

No Qt here; each function raises the project's own errors with a message naming the file.
"""

from __future__ import annotations

import numpy as np

from segapp.core.constraints import Kind
from segapp import core
from segapp.core import render

from .paint import boundary_rgba


def decode_image(path) -> tuple[np.ndarray, np.ndarray]:
    """The decoded image and a (H, W, 3) uint8 picture of it for the canvas.

    8-bit RGB files are shown as decoded (no copy); other kinds are scaled to 8 bits.
    """
    image = core.load_image(path)
    if image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3:
        return image, np.ascontiguousarray(image)
    return image, render.to_rgb8(image)


def read_ground_truth(path) -> tuple[list, list]:
    """Human segmentations of a BSDS ``.mat`` file and a boundary picture of each."""
    from segapp.core.eval import bsds

    segs = bsds.load_ground_truth(path)
    from .colours import GROUND_TRUTH_OUTLINE

    return segs, [boundary_rgba(s, GROUND_TRUTH_OUTLINE) for s in segs]


def write_constraints(path, snapshot: dict) -> str:
    """Write the items of a model snapshot as a constraint file (atomically)."""
    core.Constraints(snapshot[Kind.MUST_LINK], snapshot[Kind.CANNOT_LINK], snapshot[Kind.BLOCK],
                     order=snapshot.get("order")).to_json(path)
    return str(path)
