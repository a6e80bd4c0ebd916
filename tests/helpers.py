"""Test data every test folder may need (imported as ``tests.helpers``; never from
``bench/``)."""

from __future__ import annotations

import numpy as np
from scipy.io import savemat


def make_bsds(root, n=3, h=12, w=16):
    """A tiny BSDS500-layout folder: n JPEGs and .mat files with two annotators."""
    from PIL import Image

    for s in ("train",):
        (root / "images" / s).mkdir(parents=True)
        (root / "groundTruth" / s).mkdir(parents=True)
        for k in range(n):
            img = np.zeros((h, w, 3), np.uint8)
            img[:, w // 2:] = 200
            Image.fromarray(img).save(root / "images" / s / f"{100 + k}.jpg")
            a = np.ones((h, w), np.uint16)
            a[:, w // 2:] = 2
            b = a.copy()
            b[: h // 2] += 2
            gt = np.empty((1, 2), dtype=object)
            for j, seg in enumerate((a, b)):
                gt[0, j] = {"Segmentation": seg, "Boundaries": np.zeros((h, w), bool)}
            savemat(root / "groundTruth" / s / f"{100 + k}.mat", {"groundTruth": gt})
    return root
