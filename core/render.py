"""Pictures of results without Qt: label palettes, overlays, diverging eigenvector maps, PNG I/O."""

from __future__ import annotations

import io
import os

import numpy as np

from ._io import atomic_write_bytes
from .errors import SegappError

# The one palette of segments, in the window and in every export: high-saturation colours
# that natural images rarely contain; slots 0-8 are block labels 1-9 (segapp.gui.colours).
PALETTE = np.array([
    (255, 0, 200), (0, 225, 255), (255, 230, 0), (130, 70, 255), (255, 110, 0), (0, 255, 130),
    (255, 40, 70), (0, 110, 255), (185, 255, 0), (255, 150, 220), (0, 160, 140), (170, 0, 210),
    (255, 205, 130), (110, 205, 255), (205, 125, 0), (255, 255, 255),
], dtype=np.uint8)
MAX_SEGMENTS = len(PALETTE)  # the window's K: one colour per segment
OVERLAY_OPACITY = 0.45  # how strongly segments tint the image (window and exports)

# Diverging map (blue - white - red), anchors of ColorBrewer RdBu reversed.
_DIV = np.array([(5, 48, 97), (33, 102, 172), (67, 147, 195), (146, 197, 222), (209, 229, 240),
                 (247, 247, 247), (253, 219, 199), (244, 165, 130), (214, 96, 77), (178, 24, 43),
                 (103, 0, 31)], dtype=np.float64)


def palette(n: int) -> np.ndarray:
    """``n`` distinct RGB colours (uint8, shape (n, 3)), cycling the palette."""
    return PALETTE[np.arange(n) % len(PALETTE)]


def diverging(values: np.ndarray, vmax: float | None = None) -> np.ndarray:
    """Map values to RGB uint8 with a blue-white-red map symmetric about 0.

    Parameters
    ----------
    values : ndarray, any shape
    vmax : float, optional
        Saturation level; default the largest magnitude (the 99.5th percentile of ``|v|``).
    """
    v = np.asarray(values, dtype=np.float64)
    if vmax is None:
        finite = np.abs(v[np.isfinite(v)])
        vmax = float(np.percentile(finite, 99.5)) if finite.size else 1.0
    vmax = vmax if vmax > 0 else 1.0
    t = (np.clip(np.nan_to_num(v) / vmax, -1, 1) + 1) / 2 * (len(_DIV) - 1)
    i = np.clip(np.floor(t).astype(int), 0, len(_DIV) - 2)
    f = (t - i)[..., None]
    return np.round(_DIV[i] * (1 - f) + _DIV[i + 1] * f).astype(np.uint8)


CAPTION_PX = 16  # the caption line under each panel of an eigenvector strip


def eigenvector_strip(eigenvectors: np.ndarray, gap: int = 4, eigenvalues=None,
                      first: str = "") -> np.ndarray:
    """The leading eigenvectors (H, W, m) side by side, each in :func:`diverging` colours,
    with a caption under each (:data:`CAPTION_PX` high) numbered as the window's eigenvector
    dock numbers them ("vector 1 (u*)  eigenvalue 0.0036"; ``first`` names the first vector's
    kind); a vector that is all NaN (a method that returns fewer) is a grey panel captioned
    "no vector k"."""
    from PIL import Image, ImageDraw

    h, w, m = eigenvectors.shape
    out = np.full((h + CAPTION_PX, w * m + gap * (m - 1), 3), 255, np.uint8)
    names = []
    for k in range(m):
        v = eigenvectors[..., k]
        x = k * (w + gap)
        if np.all(~np.isfinite(v)):
            out[:h, x:x + w] = 225
            names.append(f"no vector {k + 1}")
            continue
        out[:h, x:x + w] = diverging(v)
        lam = "" if eigenvalues is None or k >= len(eigenvalues) or not np.isfinite(eigenvalues[k]) \
            else f"  eigenvalue {float(eigenvalues[k]):.3g}"
        kind = f" ({first})" if first and k == 0 else ""
        names.append(f"vector {k + 1}{kind}{lam}")
    picture = Image.fromarray(out)
    draw = ImageDraw.Draw(picture)
    for k, text in enumerate(names):
        draw.text((k * (w + gap) + 2, h + 2), text, fill=(0, 0, 0))
    return np.asarray(picture)


def to_rgb8(image: np.ndarray) -> np.ndarray:
    """Any accepted image as (H, W, 3) uint8 for display."""
    from .image import as_float_image

    f = as_float_image(image)
    if f.ndim == 2:
        f = np.repeat(f[..., None], 3, axis=2)
    return np.round(f * 255).astype(np.uint8)


def overlay(image: np.ndarray, labels: np.ndarray, opacity: float = OVERLAY_OPACITY,
            boundaries_only: bool = False) -> np.ndarray:
    """The image with segments tinted in palette colours (or only their boundaries drawn)."""
    from skimage.segmentation import find_boundaries

    rgb = to_rgb8(image).astype(np.float64)
    cols = palette(int(labels.max()) + 1).astype(np.float64)[labels]
    if boundaries_only:
        b = find_boundaries(labels, mode="inner")
        rgb[b] = cols[b]
        return rgb.astype(np.uint8)
    return np.round(rgb * (1 - opacity) + cols * opacity).astype(np.uint8)


def encode_png(array: np.ndarray) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(array)).save(buf, format="PNG")
    return buf.getvalue()


def save_png(path: str | os.PathLike, array: np.ndarray) -> None:
    """Write a uint8 array as PNG atomically (temporary file, then rename).

    Raises
    ------
    OutputError
        The file cannot be written (the message says why); the previous file is unchanged.
    """
    atomic_write_bytes(path, encode_png(array))


def save_labels(path: str | os.PathLike, labels: np.ndarray) -> None:
    """8-bit PNG of label indices 0..K-1 (same size as the image)."""
    if labels.max() > 255:
        raise SegappError("more than 256 segments cannot be stored in an 8-bit PNG")
    save_png(path, labels.astype(np.uint8))
