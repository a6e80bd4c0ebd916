"""Baselines the methods are read against on the simulated-user benchmark."""

from __future__ import annotations

import warnings

import numpy as np

from ..constraints import Constraints
from ..errors import FallbackWarning
from .simulate import DONT_CARE


def _random_walker_mode() -> str:
    """``'cg_mg'`` with pyamg (0.5-0.7 s per Berkeley image), else ``'cg_j'`` (about 5 s)
    with a :class:`~core.errors.FallbackWarning`, as scikit-image itself warns."""
    try:
        import pyamg  # noqa: F401
    except ImportError:
        warnings.warn("pyamg is not installed: the random walker falls back to its cg_j mode, "
                      "about 8x slower (pip install pyamg)", FallbackWarning, stacklevel=3)
        return "cg_j"
    return "cg_mg"


def random_walker_segmenter(image, cons: Constraints, target: np.ndarray, n_segments: int) -> np.ndarray:
    """scikit-image's random walker with seeds at exactly the constraint endpoints.

    Each endpoint (and each block's pixels) seeds a disk of radius 2 labelled with its
    *true* target segment, more than the methods are told (they get only the relation).
    Without seeds every pixel is segment 0.

    Parameters
    ----------
    image : ndarray, shape (H, W) or (H, W, 3)
    cons : Constraints
    target : ndarray, shape (H, W), int
        Target segment per pixel, :data:`~core.eval.simulate.DONT_CARE` outside it.
    n_segments : int
        Unused (the seeds decide); kept so every segmenter has one signature.

    Returns
    -------
    labels : ndarray, shape (H, W), int32
    """
    from skimage.draw import disk
    from skimage.segmentation import random_walker

    from ..image import as_float_image

    img = as_float_image(image)
    markers = np.zeros(img.shape[:2], np.int32)
    links = cons.must_link + cons.cannot_link
    for r, c in [(l[0], l[1]) for l in links] + [(l[2], l[3]) for l in links]:
        if target[r, c] != DONT_CARE:
            rr, cc = disk((r, c), 2, shape=markers.shape)
            markers[rr, cc] = target[r, c] + 1
    for b in cons.blocks:
        markers[b.top:b.bottom, b.left:b.right] = b.label
    if markers.max() == 0:
        return np.zeros(img.shape[:2], np.int32)
    mode = _random_walker_mode()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-image's own notes on the solver
        lab = random_walker(img, markers, mode=mode, channel_axis=-1 if img.ndim == 3 else None)
    return (lab - 1).astype(np.int32)
